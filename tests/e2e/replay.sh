#!/bin/sh
# End to end for `txpath replay`: real traffic made by the kernel (a TCP
# transfer and UDP datagrams with nc) between this test's namespace and a
# second one of its own, captured with tcpdump; then replayed with 2
# threads by each driver onto an interface that leads only into the test's
# namespace (veth0 -> veth1; a TAP device), captured at the peer, and
# compared frame for frame: the same bytes, each flow in its order.
# usage: replay.sh path/to/txpath
set -u
TXPATH=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../cli/lib.sh"
require_root_and_tools
for t in tcpdump nc; do
	command -v $t >/dev/null 2>&1 || skip "needs $t (scripts/deps.sh installs it)"
done
ns_setup replay
NS2="$NS-far"
trap 'ip netns del "$NS2" 2>/dev/null; cleanup' EXIT
ip netns add "$NS2" || fail "cannot create namespace $NS2"

# The traffic: capA (198.18.5.1) <-> capB (198.18.5.2, in NS2), no
# offloads, so that every frame captured is one frame on the wire.
ip -n "$NS" link add capA type veth peer name capB netns "$NS2" || fail "cannot create a veth pair"
ip -n "$NS" addr add 198.18.5.1/24 dev capA
ip -n "$NS2" addr add 198.18.5.2/24 dev capB
for side in "$NS capA" "$NS2 capB"; do
	set -- $side
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1
	ip -n "$1" link set "$2" up
done
ip -n "$NS2" link set lo up

# capture IFACE FILE: tcpdump of every frame on IFACE (the peers send
# none of their own: IPv6 is off, they have no address), until stop_capture.
capture() {
	rm -f "$TMP/tcpdump.err"	# not the last capture's "listening on"
	ip netns exec "$NS" tcpdump -i "$1" -s 4096 -U --immediate-mode -B 16384 -w "$2" \
		>"$TMP/tcpdump.err" 2>&1 &
	CAP_PID=$!
	for _ in $(seq 100); do
		grep -q "listening on" "$TMP/tcpdump.err" 2>/dev/null && return 0
		sleep 0.05
	done
	cat "$TMP/tcpdump.err"
	fail "tcpdump did not start on $1"
}
stop_capture() {
	sleep 0.5
	kill -TERM "$CAP_PID"
	wait "$CAP_PID"
}

capture capA "$TMP/traffic.pcap"
ip netns exec "$NS2" nc -l 5001 >/dev/null 2>&1 </dev/null &
TCP_PID=$!
ip netns exec "$NS2" nc -u -l 5002 >/dev/null 2>&1 </dev/null &
UDP_PID=$!
sleep 0.3
head -c 200000 /dev/urandom >"$TMP/payload"
nsx nc -N 198.18.5.2 5001 <"$TMP/payload" || fail "the TCP transfer failed"
for i in $(seq 30); do
	head -c $((i * 37)) /dev/urandom | nsx nc -u -w0 198.18.5.2 5002
done
sleep 0.2
stop_capture
kill "$TCP_PID" "$UDP_PID" 2>/dev/null
wait "$TCP_PID" "$UDP_PID" 2>/dev/null
frames=$(tcpdump -r "$TMP/traffic.pcap" 2>/dev/null | wc -l)
[ "$frames" -gt 150 ] || fail "only $frames frames of traffic captured"

# The replay's targets, without addresses (nothing answers what they
# receive) and without GRO (each frame arrives as sent): veth0 -> veth1,
# and a TAP device (what is written to it arrives on it).
ip -n "$NS" link add veth0 type veth peer name veth1 || fail "cannot create a veth pair"
nsx ethtool -K veth1 gro off >/dev/null 2>&1
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
ip -n "$NS" tuntap add dev txtap0 mode tap || fail "cannot create a TAP device"
for d in veth0 veth1 txtap0; do
	ip -n "$NS" link set $d up
done
# wait_carrier DEV: until DEV has its carrier (a veth's comes a moment
# after both ends are up; afpacket refuses a link without one).
wait_carrier() {
	for _ in $(seq 100); do
		[ "$(nsx cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ] && return 0
		sleep 0.05
	done
	fail "$1 has no carrier"
}
wait_carrier veth0
for driver in afpacket afxdp tap; do
	if [ $driver = tap ]; then dev=txtap0 peer=txtap0; else dev=veth0 peer=veth1; fi
	capture $peer "$TMP/got-$driver.pcap"
	nsx "$TXPATH" replay "$TMP/traffic.pcap" --dev $dev --driver $driver --threads 2 \
		--topspeed --json >"$TMP/replay.json" 2>"$TMP/replay.err"
	rc=$?
	stop_capture
	cat "$TMP/replay.err"
	expect "$driver replay exit status" $rc 0
	expect "$driver frames" "$(json "$TMP/replay.json" "d['transmitted']")" "$frames"
	expect "$driver dropped" "$(json "$TMP/replay.json" "sum(d['dropped'].values())")" 0
	python3 "$(dirname "$0")/pcap_compare.py" "$TMP/traffic.pcap" "$TMP/got-$driver.pcap" ||
		fail "$driver: what arrived on $peer is not what was captured"
	echo "PASS: replay $driver, 2 threads"
done

# A frame longer than the device takes: refused before anything is sent.
python3 -c 'import struct, sys
open(sys.argv[1], "wb").write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
    + struct.pack("<IIII", 0, 0, 3000, 3000) + bytes(3000))' "$TMP/big.pcap"
nsx "$TXPATH" replay "$TMP/big.pcap" --dev veth0 >"$TMP/big.out" 2>"$TMP/big.err"
rc=$?
expect "oversized replay exit status" $rc 1
expect "oversized replay message lines" "$(wc -l <"$TMP/big.err")" 1
grep -q "3000-byte frames exceed the MTU (1500)" "$TMP/big.err" ||
	{ cat "$TMP/big.err"; fail "no clear message for a frame over the MTU"; }
echo "PASS: replay refuses frames over the MTU"

# Captures made here (replay_captures.py): 4000 frames of 64 flows, 1 ms
# apart, their seconds crossing 2^31; tagged and untagged IPv4 with
# records of zero bytes.
CAPS="$(dirname "$0")/replay_captures.py"
python3 "$CAPS" flows "$TMP/flows.pcap" && python3 "$CAPS" vlan "$TMP/vlan.pcap" ||
	fail "cannot write the test's captures"

# 8 producers at top speed through a 2-slot ring: the queue backs up, yet
# holds every frame in flight: nothing dropped (was qdisc-limit).
for driver in afpacket afxdp tap; do
	if [ $driver = tap ]; then dev=txtap0; else dev=veth0; fi
	nsx "$TXPATH" replay "$TMP/flows.pcap" --dev $dev --driver $driver --threads 8 --topspeed \
		--ring 2 --json >"$TMP/replay.json" 2>"$TMP/replay.err"
	rc=$?
	cat "$TMP/replay.err"
	expect "$driver 8 threads: exit status" $rc 0
	expect_json "$TMP/replay.json" "$driver 8 threads: transmitted" "d['transmitted']" 4000 \
		"$driver 8 threads: dropped" "d['dropped']" \
		"$(json "$TMP/replay.json" "dict((k, 0) for k in d['dropped'])")"
done
echo "PASS: replay, 8 threads at top speed through a 2-slot ring: nothing dropped"

# Seconds past 2^31 are later, not 68 years earlier: the capture's 4 s at
# 10 times its speed, within the limit (was a wait of centuries).
nsx timeout 60 "$TXPATH" replay "$TMP/flows.pcap" --dev veth0 --multiplier 10 --json \
	>"$TMP/replay.json" 2>"$TMP/replay.err"
rc=$?
cat "$TMP/replay.err"
[ $rc -ne 124 ] || fail "a capture crossing 2^31 s did not end within 60 s"
expect "2^31 replay exit status" $rc 0
expect_json "$TMP/replay.json" "2^31 replay transmitted" "d['transmitted']" 4000
echo "PASS: replay of a capture whose seconds cross 2^31"

# VLAN-tagged IPv4 (one tag, two) rewritten like the rest, checksums
# right, as seen on the peer; the records of zero bytes counted, in the
# JSON and in the text.
capture veth1 "$TMP/got-vlan.pcap"
nsx "$TXPATH" replay "$TMP/vlan.pcap" --dev veth0 --rewrite-src-ip 198.19.1.1 \
	--rewrite-dst-ip 198.19.2.2 --json >"$TMP/replay.json" 2>"$TMP/replay.err"
rc=$?
stop_capture
cat "$TMP/replay.err"
expect "vlan replay exit status" $rc 0
expect_json "$TMP/replay.json" "vlan replay transmitted" "d['transmitted']" 18 \
	"vlan replay empty records" "d['empty_records']" 3
python3 "$CAPS" check-vlan "$TMP/got-vlan.pcap" 198.19.1.1 198.19.2.2 ||
	fail "the VLAN frames as they arrived"
nsx "$TXPATH" replay "$TMP/vlan.pcap" --dev veth0 >"$TMP/replay.out" 2>"$TMP/replay.err"
grep -q "3 records of zero bytes in the capture: skipped" "$TMP/replay.out" ||
	{ cat "$TMP/replay.out"; fail "the text does not count the records of zero bytes"; }
echo "PASS: replay rewrites VLAN-tagged IPv4 (1 and 2 tags), counts records of zero bytes"

# paced_replay NAME [options]: a replay of hours (10000 passes of the 4000
# frames at 2000 pps: 5.5 h, which only the signal or the link going down
# ends early) in the background (ip netns exec execs txpath: $REPLAY_PID
# is its), its output in $TMP/NAME.out; returns once its frames arrive on
# veth1.
paced_replay() {
	name=$1
	shift
	before=$(rx_packets veth1)
	ip netns exec "$NS" "$TXPATH" replay "$TMP/flows.pcap" --dev veth0 --threads 2 \
		--pps 2000 --loop 10000 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	REPLAY_PID=$!
	for _ in $(seq 200); do
		[ "$(rx_packets veth1)" -gt $((before + 100)) ] && return 0
		kill -0 "$REPLAY_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMP/$name.err"
	fail "$name: no frame arrived on veth1"
}

# The link goes down mid-replay: named, the producers stop (the replay
# ends, well before its hours), exit 1, every frame submitted accounted.
paced_replay linkdown --json
ip -n "$NS" link set veth0 down || fail "cannot set veth0 down"
finish "$REPLAY_PID" 20
ip -n "$NS" link set veth0 up
wait_carrier veth0
cat "$TMP/linkdown.err"
[ "$rc" != none ] || fail "the replay went on 20 s after the link went down"
expect "link down: exit status" $rc 1
grep -q "txpath replay: veth0: link went down mid-replay" "$TMP/linkdown.err" ||
	fail "link down: no cause on stderr"
expect_json "$TMP/linkdown.out" "link down: died" "d['died'].startswith('link down')" True \
	"link down: stopped early" "d['frames'] < d['frames_expected']" True \
	"link down: accounted" "d['frames'] == d['transmitted'] + sum(d['dropped'].values())" True \
	"link down: interrupted" "d['interrupted']" None
echo "PASS: replay names a link that went down and stops"

# SIGTERM mid-replay: exit 143, the report says so, JSON and text.
for form in json text; do
	[ $form = json ] && set -- --json || set --
	paced_replay "term-$form" "$@"
	kill -TERM "$REPLAY_PID"
	finish "$REPLAY_PID" 20
	cat "$TMP/term-$form.err"
	expect "SIGTERM ($form): exit status" $rc 143
done
expect_json "$TMP/term-json.out" "SIGTERM: interrupted" "d['interrupted']" SIGTERM \
	"SIGTERM: died" "d['died']" None \
	"SIGTERM: accounted" "d['frames'] == d['transmitted'] + sum(d['dropped'].values())" True
grep -q "interrupted by SIGTERM: [0-9]* of the 40000000 frames were sent" "$TMP/term-text.out" ||
	{ cat "$TMP/term-text.out"; fail "SIGTERM: the text does not say it was interrupted"; }
echo "PASS: replay interrupted by SIGTERM says so (JSON and text)"
