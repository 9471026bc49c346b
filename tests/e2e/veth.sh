#!/bin/sh
# End to end on a real interface: `txpath run --driver DRIVER --lock LOCK`
# with 2 threads sends N frames, and the receiving side's counters and
# `txpath recv` on it must both show every frame exactly once, and the
# run's own accounting must match.
#  - afpacket, afxdp: out of veth0; received on its peer veth1.
#  - tap: written into the TAP device txtap0; received on txtap0 itself.
# usage: veth.sh path/to/txpath afpacket|afxdp|tap core|lltx [extra run options]
set -u
TXPATH=$1 DRIVER=$2 LOCK=$3
shift 3
N=100000
. "$(dirname "$0")/lib.sh"
require_root_and_tools
ns_setup "$DRIVER-$LOCK"
link_setup "$DRIVER"

send_and_check "$DRIVER" "$LOCK" $N 2 --threads 2 "$@"
echo "PASS: $DRIVER $*, lock $LOCK, 2 threads: $N frames, each seen once on $PEER" \
	"(xmit_on_stopped $(json "$TMP/run.json" "d['xmit_on_stopped']"), reordered $(json "$TMP/recv.json" "d['reordered']"))"
