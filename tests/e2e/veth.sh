#!/bin/sh
# End to end on a veth pair: `txpath run --driver DRIVER --lock LOCK` with
# 2 threads sends N frames out of veth0; veth1's counters and `txpath recv`
# on veth1 must both show every frame exactly once, and the run's own
# accounting must match.
# usage: veth.sh path/to/txpath afpacket|afxdp core|lltx [extra run options]
set -u
TXPATH=$1 DRIVER=$2 LOCK=$3
shift 3
N=100000
. "$(dirname "$0")/lib.sh"
require_root_and_tools
ns_setup "$DRIVER-$LOCK"
veth_setup

before=$(rx_packets veth1)
recv_start veth1 $N
nsx "$TXPATH" run --driver "$DRIVER" --dev veth0 --lock "$LOCK" --threads 2 \
	--packets $N --json "$@" >"$TMP/run.json" 2>"$TMP/run.err"
rc=$?
[ $rc -eq 0 ] || kill "$RECV_PID" 2>/dev/null
recv_wait
cat "$TMP/run.err"
expect "run exit status" $rc 0
after=$(rx_packets veth1)
check_run "$TMP/run.json" $N
check_recv $N 2
expect "veth1 rx_packets" $((after - before)) $N
echo "PASS: $DRIVER, lock $LOCK, 2 threads: $N frames, each seen once on veth1" \
	"(xmit_on_stopped $(json "$TMP/run.json" "d['xmit_on_stopped']"), reordered $(json "$TMP/recv.json" "d['reordered']"))"
