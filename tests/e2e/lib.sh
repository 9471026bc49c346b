# lib.sh - what the end-to-end tests share: a network namespace of their
# own with a veth pair (or a TAP device) in 198.18.0.0/15, IPv6 off, all
# of it removed on exit, failure included.  Sourced by the tests.
#
# Network safety: every frame stays inside the namespace made here; the
# frames' destination is 198.18.0.2, in the benchmarking range.

SKIP=77
NS=""
TMP=""

skip() {
	echo "SKIP: $*"
	exit $SKIP
}

fail() {
	echo "FAIL: $*"
	exit 1
}

# Root, and the tools, or skip with the reason.
require_root_and_tools() {
	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, AF_PACKET, AF_XDP)"
	for t in ip tc ethtool python3; do
		command -v "$t" >/dev/null 2>&1 || skip "needs $t (scripts/deps.sh installs it)"
	done
	ip netns list >/dev/null 2>&1 || skip "cannot use network namespaces here"
}

cleanup() {
	[ -n "$NS" ] && ip netns del "$NS" 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
	NS=""
	TMP=""
}

# ns_setup NAME: a namespace txp-e2e-NAME-PID with lo up, IPv6 off.
ns_setup() {
	NS="txp-e2e-$1-$$"
	TMP=$(mktemp -d)
	trap cleanup EXIT
	trap 'exit 1' INT TERM
	ip netns add "$NS" || fail "cannot create namespace $NS"
	nsx sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$NS" link set lo up
}

nsx() {
	ip netns exec "$NS" "$@"
}

# qdisc_setup DEV QUEUES: a pfifo of 10000 packets per transmit queue,
# under mq when there are many.  With one root FIFO for all the queues a
# flow sometimes arrived reordered at veth1 (in core mode, where txpath
# keeps it in order), more often with a larger socket send buffer
# (net.core.wmem_default): the kernel's qdisc then holds more.
qdisc_setup() {
	if [ "$2" -gt 1 ]; then
		nsx tc qdisc replace dev "$1" root handle 1: mq
		for i in $(seq "$2"); do
			nsx tc qdisc replace dev "$1" parent 1:$(printf '%x' "$i") pfifo limit 10000
		done
	else
		nsx tc qdisc replace dev "$1" root pfifo limit 10000
	fi
}

# veth_setup [QUEUES]: veth0 198.18.0.1/24 <-> veth1 198.18.0.2/24, each
# with QUEUES transmit and receive queues (default 1).  veth0 gets a
# qdisc so the kernel pushes back instead of dropping when veth1's ring is
# full; veth1 runs NAPI (GRO on), which has that ring, one per queue.
veth_setup() {
	q=${1:-1}
	ip -n "$NS" link add veth0 numtxqueues "$q" numrxqueues "$q" type veth \
		peer name veth1 numtxqueues "$q" numrxqueues "$q" ||
		fail "cannot create a veth pair"
	for d in veth0 veth1; do
		nsx sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1"
	done
	ip -n "$NS" addr add 198.18.0.1/24 dev veth0
	ip -n "$NS" addr add 198.18.0.2/24 dev veth1
	qdisc_setup veth0 "$q"
	nsx ethtool -K veth1 gro on >/dev/null 2>&1
	# Many queues: veth1's NAPI takes every frame into the ring of its
	# queue, in order, only when veth0 has no TSO (veth's
	# veth_skb_is_eligible_for_gro()); else frames go to the backlog of
	# whichever CPU ran veth0's qdisc, and a flow can arrive reordered.
	[ "$q" -gt 1 ] && nsx ethtool -K veth0 tso off >/dev/null 2>&1
	ip -n "$NS" link set veth0 up
	ip -n "$NS" link set veth1 up
}

# tap_setup [QUEUES]: a TAP device txtap0, 198.18.0.2/24, up; made
# multi_queue when QUEUES is over 1.
tap_setup() {
	mq=""
	[ "${1:-1}" -gt 1 ] && mq=multi_queue
	ip -n "$NS" tuntap add dev txtap0 mode tap $mq || fail "cannot create a TAP device"
	nsx sysctl -qw net.ipv6.conf.txtap0.disable_ipv6=1
	ip -n "$NS" addr add 198.18.0.2/24 dev txtap0
	ip -n "$NS" link set txtap0 up
}

# link_setup DRIVER [QUEUES]: what DRIVER sends on, into DEV, and where it
# arrives, into PEER: a TAP device txtap0 for tap (received on txtap0
# itself), else veth0 and its peer veth1; QUEUES queues each (default 1).
link_setup() {
	if [ "$1" = tap ]; then
		[ -c /dev/net/tun ] || skip "no /dev/net/tun"
		tap_setup "${2:-1}"
		DEV=txtap0 PEER=txtap0
	else
		veth_setup "${2:-1}"
		DEV=veth0 PEER=veth1
	fi
}

# rx_packets DEV: the interface's received-packets counter.
rx_packets() {
	nsx cat "/sys/class/net/$1/statistics/rx_packets"
}

# recv_start DEV N: txpath recv in the background, until N frames or 60 s;
# returns once it listens.  Its JSON goes to $TMP/recv.json.
recv_start() {
	nsx "$TXPATH" recv --dev "$1" --packets "$2" --seconds 60 --json \
		>"$TMP/recv.json" 2>"$TMP/recv.err" &
	RECV_PID=$!
	for _ in $(seq 200); do
		grep -q listening "$TMP/recv.err" 2>/dev/null && return 0
		kill -0 "$RECV_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMP/recv.err"
	fail "txpath recv did not start listening on $1"
}

recv_wait() {
	wait "$RECV_PID"
	RECV_RC=$?
}

# json FILE EXPR: a value from a JSON document (EXPR in Python, on d).
json() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] || fail "$1: got $2, want $3"
}

# expect_json FILE WHAT EXPR WANT [WHAT EXPR WANT ...]: each EXPR (Python,
# on d, FILE's JSON document) is WANT, else fail naming WHAT.  One Python
# for them all: on a loaded machine each start costs up to a second.
expect_json() {
	python3 - "$@" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
a = sys.argv[2:]
for what, expr, want in zip(a[0::3], a[1::3], a[2::3]):
    got = str(eval(expr))
    if got != want:
        print("FAIL: %s: got %s, want %s" % (what, got, want))
        sys.exit(1)
PY
}

# check_run FILE N: the run's own accounting: every one of N packets
# transmitted, none dropped, no false BUG, no impossible ring state.
check_run() {
	expect_json "$1" "run submitted" "d['submitted']" "$2" \
		"run transmitted" "d['transmitted']" "$2" \
		"run dropped" "sum(d['dropped'].values())" 0 \
		"run accounted" "d['accounted']" True \
		"run stalled" "d['stalled']" False \
		"run bug_logs" "d['bug_logs']" 0 \
		"run ring_errors" "d['ring_errors']" 0
}

# send_and_check DRIVER LOCK N FLOWS [run options]: `txpath run` of N
# frames on DEV (its JSON in $TMP/run.json) with txpath recv on PEER: the
# run's accounting, recv and PEER's counter each see every frame once.
send_and_check() {
	drv=$1 lock=$2 n=$3 flows=$4
	shift 4
	before=$(rx_packets $PEER)
	recv_start $PEER $n
	nsx "$TXPATH" run --driver "$drv" --dev $DEV --lock "$lock" --packets $n --json "$@" \
		>"$TMP/run.json" 2>"$TMP/run.err"
	rc=$?
	[ $rc -eq 0 ] || kill "$RECV_PID" 2>/dev/null
	recv_wait
	cat "$TMP/run.err"
	expect "run exit status" $rc 0
	after=$(rx_packets $PEER)
	check_run "$TMP/run.json" $n
	check_recv $n $flows
	expect "$PEER rx_packets" $((after - before)) $n
}

# check_recv N FLOWS: txpath recv saw each of N frames exactly once.
check_recv() {
	expect "recv exit status" "$RECV_RC" 0
	expect_json "$TMP/recv.json" "recv received" "d['received']" "$1" \
		"recv lost" "d['lost']" 0 \
		"recv duplicated" "d['duplicated']" 0 \
		"recv bad" "d['bad']" 0 \
		"recv socket drops" "d['socket_drops']" 0 \
		"recv flows" "len(d['flows'])" "$2"
}
