#!/bin/sh
# SIGINT in the middle of a run on a real interface: the run stops, prints
# its report (interrupted, every packet accounted for) and exits 130; it
# leaves nothing behind: no XDP program on the interface, no socket (the
# namespace's AF_PACKET sockets are gone; the AF_XDP queue and the TAP
# device can be bound again at once), no interface made or left.  Then the
# same with two signals (the second ends the process at once, with no
# report): the kernel closes the descriptors, and as txpath's AF_XDP socket
# loads no XDP program (XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD), none is left.
# On afpacket, txpath recv too: interrupted, it prints what it counted.
# On afpacket, a third run goes through a slow token bucket, so that the
# drain time runs out: the rest is dropped as interrupted.  What the
# kernel takes from the run is bounded by the run's own TX ring (--ring):
# a frame stays in its slot until the kernel frees it, whatever the
# socket's send buffer (net.core.wmem_default, which a namespace inherits
# and cannot change); the run keeps more than that in flight (--sndbuf).
#  - afpacket, afxdp: out of veth0 to veth1; tap: into the TAP device txtap0.
# usage: signals.sh path/to/txpath afpacket|afxdp|tap
set -u
TXPATH=$1 DRIVER=$2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../cli/lib.sh"
require_root_and_tools
env --default-signal=INT true 2>/dev/null || skip "needs env --default-signal (coreutils 8.31)"
ns_setup "signals-$DRIVER"
link_setup "$DRIVER"

links() {
	ip -n "$NS" -o link show | sed 's/^[0-9]*: \([^:@]*\).*/\1/' | sort | tr '\n' ' '
}

# packet_sockets: the namespace's AF_PACKET sockets.
packet_sockets() {
	nsx cat /proc/net/packet | tail -n +2 | wc -l
}

# ended PID: exited (a zombie or gone).
ended() {
	! [ -r "/proc/$1/status" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# refused_busy FILE: a run that ended refused as busy.  The kernel frees an
# AF_XDP socket's queue in deferred work, a moment after the socket closes:
# a run started just after another may find the queue still taken.
refused_busy() {
	grep -q 'busy' "$1"
}

# start NAME [run options]: `txpath run` in the background, SIGINT at its
# default (a shell's background job inherits it ignored, and txpath
# respects that); returns once frames arrive on the peer.
start() {
	name=$1
	shift
	for _ in $(seq 20); do
		before=$(rx_packets $PEER)
		env --default-signal=INT ip netns exec "$NS" "$TXPATH" run --driver "$DRIVER" \
			--dev $DEV --threads 2 --seconds 60 --json "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" &
		pid=$!
		for _ in $(seq 200); do
			[ "$(rx_packets $PEER)" -gt "$before" ] && return 0
			ended "$pid" && break
			sleep 0.05
		done
		ended "$pid" && wait "$pid" && break
		refused_busy "$TMP/$name.err" || break
		sleep 0.1
	done
	cat "$TMP/$name.err"
	fail "$name: no frame arrived on $PEER"
}

# stopped: wait for it, 20 s at most; its exit status in rc.
stopped() {
	finish "$pid" 20
	[ "$rc" = none ] && fail "$name: still running 20 s after the signal"
}

# nothing_left WHEN: no XDP program, no socket, no interface made.
nothing_left() {
	ip -n "$NS" link show dev $DEV | grep -q xdp && fail "$1: an XDP program is left on $DEV"
	expect "$1: AF_PACKET sockets in the namespace" "$(packet_sockets)" 0
	expect "$1: interfaces" "$(links)" "$LINKS"
	if [ "$DRIVER" = tap ]; then
		expect "$1: txtap0 carrier (a descriptor attached)" "$(nsx cat /sys/class/net/txtap0/carrier)" 0
	fi
	# The socket's queue, or the TAP device, is free: a new run binds it
	# (once the kernel's deferred release is done, for AF_XDP).
	for _ in $(seq 20); do
		nsx "$TXPATH" run --driver "$DRIVER" --dev $DEV --packets 1000 >/dev/null \
			2>"$TMP/again.err" && return 0
		refused_busy "$TMP/again.err" || break
		sleep 0.1
	done
	cat "$TMP/again.err"
	fail "$1: a new run on $DEV cannot start"
}

LINKS=$(links)
expect "AF_PACKET sockets before" "$(packet_sockets)" 0

# One SIGINT: the clean path.
start once
[ "$DRIVER" = afpacket ] && { [ "$(packet_sockets)" -gt 0 ] || fail "the run's AF_PACKET socket is not listed"; }
kill -INT "$pid"
stopped
cat "$TMP/once.err"
expect "run exit status after SIGINT" $rc 130
expect "run interrupted" "$(json "$TMP/once.json" "d['interrupted']")" SIGINT
expect "run accounted" "$(json "$TMP/once.json" "d['submitted'] == d['transmitted'] + sum(d['dropped'].values()) and d['accounted']")" True
expect "run dropped as dev-down" "$(json "$TMP/once.json" "d['dropped']['dev-down']")" 0
expect "run ring_errors" "$(json "$TMP/once.json" "d['ring_errors']")" 0
nothing_left "after SIGINT"

# Two signals: ended at once, no report; the kernel cleans up.  Both are
# made pending while it is stopped (two of a kind would merge into one),
# and arrive together: whichever is taken second ends it.
start twice
kill -STOP "$pid"
kill -INT "$pid"
kill -TERM "$pid"
kill -CONT "$pid"
stopped
[ "$rc" = 130 ] || [ "$rc" = 143 ] || fail "run exit status after SIGINT and SIGTERM: got $rc, want 130 or 143"
[ -s "$TMP/twice.json" ] && fail "a report after the second signal: it did not end at once"
nothing_left "after two signals"

# A link slower than the run (afpacket through a token bucket): what is
# still in flight when the drain time is up is dropped as interrupted.
# The kernel holds 64 frames at most (the ring), the run 2 x 1024 (its
# qdisc takes them all): far more than the link sends in the drain time.
if [ "$DRIVER" = afpacket ]; then
	nsx tc qdisc replace dev veth0 root tbf rate 200kbit burst 1600 limit 1000000
	start slow --ring 64 --sndbuf 1024 --txqueuelen 4096
	kill -INT "$pid"
	stopped
	expect "slow run exit status after SIGINT" $rc 130
	expect "slow run accounted" "$(json "$TMP/slow.json" "d['submitted'] == d['transmitted'] + sum(d['dropped'].values()) and d['accounted']")" True
	expect "slow run: the rest dropped as interrupted" "$(json "$TMP/slow.json" "d['dropped']['interrupted'] > 0 and d['dropped']['dev-down'] == 0")" True
	nsx tc qdisc replace dev veth0 root pfifo limit 10000
	nothing_left "after SIGINT on a slow link"
fi

# txpath recv, until interrupted: SIGINT, and it prints what it counted.
if [ "$DRIVER" = afpacket ]; then
	env --default-signal=INT ip netns exec "$NS" "$TXPATH" recv --dev veth1 --json \
		>"$TMP/recv.json" 2>"$TMP/recv.err" &
	pid=$!
	for _ in $(seq 200); do
		grep -q listening "$TMP/recv.err" 2>/dev/null && break
		sleep 0.05
	done
	before=$(rx_packets veth1)
	nsx "$TXPATH" run --driver afpacket --dev veth0 --threads 2 --packets 1000 >/dev/null ||
		fail "run for recv"
	# The 1000 frames in (veth1's counter), then a moment for recv's
	# ring to hand over its last block (it retires one after 10 ms).
	for _ in $(seq 200); do
		[ "$(rx_packets veth1)" -ge $((before + 1000)) ] && break
		sleep 0.05
	done
	sleep 0.5
	kill -INT "$pid"
	name=recv
	stopped
	cat "$TMP/recv.err"
	expect "recv exit status after SIGINT" $rc 130
	expect "recv interrupted" "$(json "$TMP/recv.json" "d['interrupted']")" SIGINT
	expect "recv received" "$(json "$TMP/recv.json" "d['received']")" 1000
	expect "recv lost" "$(json "$TMP/recv.json" "d['lost']")" 0
	expect "AF_PACKET sockets after recv" "$(packet_sockets)" 0
fi

echo "PASS: $DRIVER: SIGINT mid-run: exit 130, $(json "$TMP/once.json" "d['submitted']") packets" \
	"accounted ($(json "$TMP/once.json" "d['dropped']['interrupted']") dropped as interrupted)," \
	"nothing left on $DEV; two signals: ended at once, nothing left"
