#!/bin/sh
# End to end on many queues: `txpath run --driver DRIVER --lock LOCK
# --threads 2 --queues 2 --bql on` on an interface of two queues, each
# producer on a queue of its own (XPS's default: context i to queue i
# mod 2), each queue a ring with its own socket or descriptor:
#  - afxdp: an XSK socket per queue of veth0 (made with numtxqueues 2
#    numrxqueues 2), over one UMEM; received on its peer veth1.
#  - afpacket: a socket per queue on veth0 (the kernel picks veth0's
#    queue by flow); received on veth1.
#  - tap: a descriptor per queue of txtap0, made multi_queue; received on
#    txtap0 itself.
# The receiving side's counter and `txpath recv` see every frame exactly
# once; both queues carried frames, their bytes reported to BQL; in core
# mode no flow is reordered (in LLTX two contexts may post a flow's
# packets in either order).
# usage: mq.sh path/to/txpath afpacket|afxdp|tap core|lltx [extra run options]
set -u
TXPATH=$1 DRIVER=$2 LOCK=$3
shift 3
N=40000
. "$(dirname "$0")/lib.sh"
require_root_and_tools
ns_setup "mq-$DRIVER-$LOCK"
link_setup "$DRIVER" 2

send_and_check "$DRIVER" "$LOCK" $N 2 --threads 2 --queues 2 --bql on "$@"
# The queues, BQL and (core) order; then the figures, in one Python.
python3 - "$TMP/run.json" "$TMP/recv.json" "$DRIVER $*" "$LOCK" $N <<'PY' || exit 1
import json, sys
d, r = (json.load(open(f)) for f in sys.argv[1:3])
drv, lock, n = sys.argv[3].strip(), sys.argv[4], int(sys.argv[5])
per = [q["transmitted"] for q in d["per_queue"]]
for what, got, want in (("run queues", d["queues"], 2), ("run bql", d["bql"], True),
                        ("queues carrying frames", sum(t > 0 for t in per), 2),
                        ("frames over the queues", sum(per), n)) + \
        ((("recv reordered (core)", r["reordered"], 0),) if lock == "core" else ()):
    if got != want:
        print("FAIL: %s: got %s, want %s" % (what, got, want))
        sys.exit(1)
print("PASS: %s, lock %s, 2 queues x 2 threads, BQL: %d frames, each seen once at the peer; "
      "%s Mpps, per queue %s, BQL limits %s, reordered %d"
      % (drv, lock, n, d["mpps"], per, [q["bql_limit"] for q in d["per_queue"]], r["reordered"]))
PY
