#!/bin/sh
# End to end, a link that dies mid-run: `txpath run --driver DRIVER --lock
# LOCK --packets N` with N far more than it can send before the interface
# is set down (ip link set ... down, in the namespace).  The run must end
# promptly (the producers stop once the driver says the device died),
# exit 1 naming the cause, keep its accounting (submitted = transmitted +
# dropped), and have counted as transmitted exactly what the receiving
# side got: a frame the kernel took and did not send is dropped, not sent.
#  - afpacket, afxdp: out of veth0; received on its peer veth1.  afpacket
#    bypasses the kernel's qdisc: frames in a qdisc when the link goes
#    down are purged with no word to the socket (see the driver).
#  - tap: written into the TAP device txtap0; received on txtap0 itself.
# usage: linkdown.sh path/to/txpath afpacket|afxdp|tap core|lltx
set -u
TXPATH=$1 DRIVER=$2 LOCK=$3
N=1000000000
. "$(dirname "$0")/lib.sh"
require_root_and_tools
ns_setup "down-$DRIVER-$LOCK"
link_setup "$DRIVER"
EXTRA=""
[ "$DRIVER" = afpacket ] && EXTRA=--qdisc-bypass

before=$(rx_packets $PEER)
# A generous limit: the run should end within a second of the link going.
nsx timeout 30 "$TXPATH" run --driver "$DRIVER" --dev $DEV --lock "$LOCK" --threads 2 \
	--packets $N $EXTRA --json >"$TMP/run.json" 2>"$TMP/run.err" &
RUN_PID=$!
# Down once frames flow (the peer's counter moves), not before.
for _ in $(seq 200); do
	[ "$(rx_packets $PEER)" -gt $((before + 1000)) ] && break
	kill -0 "$RUN_PID" 2>/dev/null || break
	sleep 0.05
done
ip -n "$NS" link set $DEV down || fail "cannot set $DEV down"
wait "$RUN_PID"
rc=$?
cat "$TMP/run.err"
[ $rc -ne 124 ] || fail "the run did not end within 30 s of the link going down"
expect "run exit status" $rc 1
grep -q "link went down" "$TMP/run.err" || fail "no cause on stderr"
died=$(json "$TMP/run.json" "d['died']")
case "$died" in
	"link down"*) ;;
	*) fail "the report's cause: got '$died', want 'link down (...)'" ;;
esac
after=$(rx_packets $PEER)
sub=$(json "$TMP/run.json" "d['submitted']")
tx=$(json "$TMP/run.json" "d['transmitted']")
drop=$(json "$TMP/run.json" "sum(d['dropped'].values())")
expect "run accounted" "$(json "$TMP/run.json" "d['accounted']")" True
expect "submitted = transmitted + dropped" "$sub" $((tx + drop))
[ "$sub" -lt $N ] || fail "the producers did not stop: $sub of $N submitted"
expect "run ring_errors" "$(json "$TMP/run.json" "d['ring_errors']")" 0
expect "run bug_logs" "$(json "$TMP/run.json" "d['bug_logs']")" 0
expect "$PEER rx_packets (= transmitted)" $((after - before)) "$tx"
echo "PASS: $DRIVER $EXTRA, lock $LOCK: link down after $tx frames sent, each seen on $PEER;" \
	"$drop dropped ($(json "$TMP/run.json" "', '.join('%s %d' % kv for kv in d['dropped'].items() if kv[1])"))," \
	"$((N - sub)) never submitted"
