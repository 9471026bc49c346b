#!/bin/sh
# bench/e2e/umem_pool.sh - AF_XDP with txpath's own copy (the frame
# written in the packet's buffer, then copied into the slot's UMEM frame)
# against without it (--umem-pool: the frame written straight into a UMEM
# frame and posted by its address), on one veth pair in a namespace of its
# own, copy-mode bind.  The figure is what arrived: veth1's received
# packets over the wall time of the run, best of RUNS, per frame size and
# thread count.  Root only; not a test.
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

now() { date +%s.%N; }

# measure ARGS...: Mpps that arrived on veth1, best of RUNS; "fail" if a
# run exited non-zero or did not deliver every packet.
measure() {
	best=0
	for _ in $(seq "$RUNS"); do
		a=$(rx_packets veth1)
		t0=$(now)
		nsx "$TXPATH" run --driver afxdp --dev veth0 --packets "$PACKETS" --quiet "$@" \
			>"$TMP/out" 2>&1 || { echo fail; cat "$TMP/out" >&2; return; }
		t1=$(now)
		b=$(rx_packets veth1)
		[ $((b - a)) -eq "$PACKETS" ] || { echo fail; echo "$* delivered $((b - a))" >&2; return; }
		best=$(python3 -c "print(max($best, $PACKETS / ($t1 - $t0) / 1e6))")
	done
	printf '%.3f' "$best"
}

printf '%-6s %-8s %-12s %-12s %s\n' size threads "copy Mpps" "umem Mpps" ratio
for size in 64 1500; do
	for threads in 1 2; do
		c=$(measure --size $size --threads $threads)
		z=$(measure --size $size --threads $threads --umem-pool)
		r=$(python3 -c "print('%.2f' % ($z / $c))" 2>/dev/null || echo -)
		printf '%-6s %-8s %-12s %-12s %s\n' $size $threads "$c" "$z" "$r"
	done
done
