#!/bin/sh
# bench/e2e/bench.sh - txpath's real drivers against trafgen (netsniff-ng),
# on one veth pair in a network namespace of its own, with the same frame
# (Ethernet/IPv4/UDP, same bytes and size), the same packet count, one
# thread and two.  The figure is what arrived: the peer veth1's received
# packets from the first frame's arrival to the command's end, best of
# RUNS (and the range); ratios are against trafgen with the same thread
# count.  Root only; not a test.
#
# usage: bench/e2e/bench.sh path/to/txpath [PACKETS [SIZE [RUNS]]]
set -u
TXPATH=$1
PACKETS=${2:-2000000}
SIZE=${3:-64}
RUNS=${4:-3}
. "$(dirname "$0")/../../tests/e2e/lib.sh"
require_root_and_tools
command -v trafgen >/dev/null 2>&1 || skip "needs trafgen (Debian netsniff-ng; scripts/deps.sh installs it)"
ns_setup bench
veth_setup
. "$(dirname "$0")/measure.sh"
frame_setup "$SIZE"

echo "txpath vs trafgen on veth ($(uname -r)), $SIZE-byte frames, $PACKETS packets, best of $RUNS"
echo "trafgen: --cpus N, qdisc bypass (its default); txpath: --threads N"
row_header
for threads in 1 2; do
	# shellcheck disable=SC2086
	set -- $(best_of count_rate "$PACKETS" $TRAFGEN --num "$PACKETS" --cpus "$threads")
	base=$1
	row trafgen "$threads" "$base" "$@"
	for cfg in "afxdp --lock core" "afxdp --lock lltx" \
		"afpacket --qdisc-bypass --lock core" "afpacket --qdisc-bypass --lock lltx" \
		"afpacket --lock core"; do
		# shellcheck disable=SC2086
		row "txpath --driver $cfg" "$threads" "$base" \
			$(best_of count_rate "$PACKETS" $TXRUN --threads "$threads" --packets "$PACKETS" --driver $cfg)
	done
done
