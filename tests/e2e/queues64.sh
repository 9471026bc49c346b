#!/bin/sh
# Every queue txpath offers (issue 28): `txpath run --driver DRIVER
# --queues 64` on an interface of 64 queues (veth0 for afpacket and afxdp,
# a multi_queue txtap0 for tap) sends every frame and ends.  The 64
# completion contexts once took every context id, and the run hung with
# its producers waiting for one.  The timeout is a guard only.
# usage: queues64.sh path/to/txpath afpacket|afxdp|tap
set -u
TXPATH=$1 DRIVER=$2
N=20000
. "$(dirname "$0")/lib.sh"
require_root_and_tools
ns_setup "q64-$DRIVER"
link_setup "$DRIVER" 64

nsx timeout -s KILL 60 "$TXPATH" run --driver "$DRIVER" --dev $DEV --queues 64 --threads 2 \
	--packets $N --json >"$TMP/run.json" 2>"$TMP/run.err"
rc=$?
cat "$TMP/run.err"
expect "run exit status" $rc 0
check_run "$TMP/run.json" $N
expect_json "$TMP/run.json" "run queues" "d['queues']" 64
echo "PASS: $DRIVER, 64 queues x 2 threads: $N frames, every one transmitted"
