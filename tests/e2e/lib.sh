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

# veth_setup: veth0 198.18.0.1/24 <-> veth1 198.18.0.2/24.  veth0 gets a
# qdisc so the kernel pushes back instead of dropping when veth1's ring is
# full; veth1 runs NAPI (GRO on), which has that ring.
veth_setup() {
	ip -n "$NS" link add veth0 type veth peer name veth1 || fail "cannot create a veth pair"
	for d in veth0 veth1; do
		nsx sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1"
	done
	ip -n "$NS" addr add 198.18.0.1/24 dev veth0
	ip -n "$NS" addr add 198.18.0.2/24 dev veth1
	nsx tc qdisc replace dev veth0 root pfifo limit 10000
	nsx ethtool -K veth1 gro on >/dev/null 2>&1
	ip -n "$NS" link set veth0 up
	ip -n "$NS" link set veth1 up
}

# tap_setup: a TAP device txtap0, 198.18.0.2/24, up.
tap_setup() {
	ip -n "$NS" tuntap add dev txtap0 mode tap || fail "cannot create a TAP device"
	nsx sysctl -qw net.ipv6.conf.txtap0.disable_ipv6=1
	ip -n "$NS" addr add 198.18.0.2/24 dev txtap0
	ip -n "$NS" link set txtap0 up
}

# link_setup DRIVER: what DRIVER sends on, into DEV, and where it arrives,
# into PEER: a TAP device txtap0 for tap (received on txtap0 itself),
# else veth0 and its peer veth1.
link_setup() {
	if [ "$1" = tap ]; then
		[ -c /dev/net/tun ] || skip "no /dev/net/tun"
		tap_setup
		DEV=txtap0 PEER=txtap0
	else
		veth_setup
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

# check_run FILE N: the run's own accounting: every one of N packets
# transmitted, none dropped, no false BUG, no impossible ring state.
check_run() {
	expect "run submitted" "$(json "$1" "d['submitted']")" "$2"
	expect "run transmitted" "$(json "$1" "d['transmitted']")" "$2"
	expect "run dropped" "$(json "$1" "sum(d['dropped'].values())")" 0
	expect "run accounted" "$(json "$1" "d['accounted']")" True
	expect "run stalled" "$(json "$1" "d['stalled']")" False
	expect "run bug_logs" "$(json "$1" "d['bug_logs']")" 0
	expect "run ring_errors" "$(json "$1" "d['ring_errors']")" 0
}

# check_recv N FLOWS: txpath recv saw each of N frames exactly once.
check_recv() {
	f="$TMP/recv.json"
	expect "recv received" "$(json "$f" "d['received']")" "$1"
	expect "recv lost" "$(json "$f" "d['lost']")" 0
	expect "recv duplicated" "$(json "$f" "d['duplicated']")" 0
	expect "recv bad" "$(json "$f" "d['bad']")" 0
	expect "recv socket drops" "$(json "$f" "d['socket_drops']")" 0
	expect "recv flows" "$(json "$f" "len(d['flows'])")" "$2"
	expect "recv exit status" "$RECV_RC" 0
}
