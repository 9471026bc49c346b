#!/bin/sh
# bench/e2e/bench.sh - txpath's real drivers against trafgen (netsniff-ng),
# on one veth pair in a network namespace of its own, with the same frame
# (Ethernet/IPv4/UDP, same bytes and size), the same packet count, one
# thread and two.  The figure is what arrived: the peer veth1's received
# packets over the wall time of the command, best of RUNS; ratios are
# against trafgen with the same thread count.  Root only; not a test.
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
SRC_MAC=$(nsx cat /sys/class/net/veth0/address)
DST_MAC=$(nsx cat /sys/class/net/veth1/address)
FRAME="--src-mac $SRC_MAC --dst-mac $DST_MAC --size $SIZE"

# trafgen's packet: txpath's own frame (flow 0, seq 0), byte for byte.
# shellcheck disable=SC2086
"$TXPATH" run --driver pcap --file "$TMP/one.pcap" --packets 1 --threads 1 $FRAME >/dev/null ||
	fail "cannot make the frame"
python3 -c 'import sys; raw = open(sys.argv[1], "rb").read()[40:]
print("{ " + ", ".join("0x%02x" % b for b in raw) + " }")' "$TMP/one.pcap" >"$TMP/trafgen.cfg"

. "$(dirname "$0")/measure.sh"

trafgen_run() {
	nsx trafgen --dev veth0 --conf "$TMP/trafgen.cfg" --num "$PACKETS" --cpus "$1" \
		--no-sock-mem --notouch-irq --no-cpu-stats
}

txpath_run() {
	threads=$1
	shift
	# shellcheck disable=SC2086
	nsx "$TXPATH" run --dev veth0 --threads "$threads" --packets "$PACKETS" $FRAME "$@"
}

echo "txpath vs trafgen on veth ($(uname -r)), $SIZE-byte frames, $PACKETS packets, best of $RUNS"
echo "trafgen: --cpus N, qdisc bypass (its default); txpath: --threads N"
printf '%-50s %8s %12s %8s\n' "sender" "threads" "pps" "ratio"
for threads in 1 2; do
	base=$(measure "$PACKETS" trafgen_run "$threads")
	printf '%-50s %8s %12s %8s\n' "trafgen" "$threads" "$base" "1.00"
	for cfg in "afxdp --lock core" "afxdp --lock lltx" \
		"afpacket --qdisc-bypass --lock core" "afpacket --qdisc-bypass --lock lltx" \
		"afpacket --lock core"; do
		# shellcheck disable=SC2086
		pps=$(measure "$PACKETS" txpath_run "$threads" --driver $cfg)
		ratio=$(python3 -c "print('%.2f' % ($pps / $base) if '$pps' != 'fail' and '$base' not in ('fail', '0') else '-')" 2>/dev/null || echo -)
		printf '%-50s %8s %12s %8s\n' "txpath --driver $cfg" "$threads" "$pps" "$ratio"
	done
done
