#!/bin/sh
# End to end, afpacket with its socket's send buffer run out: a token
# bucket (tbf, 4 Mbit/s) on veth0 holds the frames, each charged to the
# TX ring's socket until the kernel frees its skb, so that 3000 frames
# (about 2.7 MB charged, against a default SO_SNDBUF of about 200 kB) are
# far more than the buffer covers.  Kicks then go through in part: the
# kernel sends frames until the buffer is full, returns the bytes sent, no
# error, and leaves the rest requested.  The run must still send every
# frame, each seen once on veth1, and end (a driver that took such a
# kick for the whole ring never kicked again once the producers were
# done: the last frames stayed in the ring, the run stalled).
# usage: sndbuf.sh path/to/txpath core|lltx [extra run options]
set -u
TXPATH=$1 LOCK=$2
shift 2
N=3000
. "$(dirname "$0")/lib.sh"
require_root_and_tools
ns_setup "sndbuf-$LOCK"
link_setup afpacket
nsx tc qdisc replace dev veth0 root tbf rate 4mbit burst 4kb limit 4mb ||
	skip "cannot set a tbf qdisc (sch_tbf)"

send_and_check afpacket "$LOCK" $N 2 --threads 2 "$@"
overlimits=$(nsx tc -s qdisc show dev veth0 | sed -n 's/.*overlimits \([0-9]*\).*/\1/p' | head -1)
[ "${overlimits:-0}" -gt 0 ] || fail "the tbf never held a frame (overlimits ${overlimits:-none})"
echo "PASS: afpacket $*, lock $LOCK, send buffer run out behind a 4 Mbit/s tbf:" \
	"$N frames, each seen once on $PEER (tbf overlimits $overlimits)"
