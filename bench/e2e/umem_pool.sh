#!/bin/sh
# bench/e2e/umem_pool.sh - AF_XDP with txpath's own copy (the frame
# written in the packet's buffer, then copied into the slot's UMEM frame)
# against without it (--umem-pool: the frame written straight into a UMEM
# frame and posted by its address), on one veth pair in a namespace of its
# own, copy-mode bind.  The figure is what arrived: veth1's received
# packets from the first frame's arrival to the run's end, best of RUNS,
# per frame size and thread count.  Root only; not a test.
#
# usage: bench/e2e/umem_pool.sh path/to/txpath [PACKETS [RUNS]]
set -u
TXPATH=$1
PACKETS=${2:-2000000}
RUNS=${3:-3}
. "$(dirname "$0")/../../tests/e2e/lib.sh"
require_root_and_tools
ns_setup umem
veth_setup

. "$(dirname "$0")/measure.sh"

# mpps ARGS...: txpath run --driver afxdp ARGS, in Mpps at the peer.
mpps() {
	pps=$(measure "$PACKETS" "$TXPATH" run --driver afxdp --dev veth0 --packets "$PACKETS" \
		--quiet "$@")
	python3 -c "print('%.3f' % ($pps / 1e6))" 2>/dev/null || echo "$pps"
}

printf '%-6s %-8s %-12s %-12s %s\n' size threads "copy Mpps" "umem Mpps" ratio
for size in 64 1500; do
	for threads in 1 2; do
		c=$(mpps --size $size --threads $threads)
		z=$(mpps --size $size --threads $threads --umem-pool)
		r=$(python3 -c "print('%.2f' % ($z / $c))" 2>/dev/null || echo -)
		printf '%-6s %-8s %-12s %-12s %s\n' $size $threads "$c" "$z" "$r"
	done
done
