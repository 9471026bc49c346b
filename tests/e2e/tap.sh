#!/bin/sh
# End to end on a TAP device: `txpath run --driver tap --lock LOCK` with 2
# threads writes N frames into txtap0; they arrive as txtap0's received
# frames: its counters and `txpath recv` must both show each exactly once.
# usage: tap.sh path/to/txpath core|lltx
set -u
TXPATH=$1 LOCK=$2
N=100000
. "$(dirname "$0")/lib.sh"
require_root_and_tools
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
ns_setup "tap-$LOCK"
tap_setup

before=$(rx_packets txtap0)
recv_start txtap0 $N
nsx "$TXPATH" run --driver tap --dev txtap0 --lock "$LOCK" --threads 2 \
	--packets $N --json >"$TMP/run.json" 2>"$TMP/run.err"
rc=$?
[ $rc -eq 0 ] || kill "$RECV_PID" 2>/dev/null
recv_wait
cat "$TMP/run.err"
expect "run exit status" $rc 0
after=$(rx_packets txtap0)
check_run "$TMP/run.json" $N
check_recv $N 2
expect "txtap0 rx_packets" $((after - before)) $N
echo "PASS: tap, lock $LOCK, 2 threads: $N frames, each seen once on txtap0"
