#!/bin/sh
# Instructions per packet on the hot path, free of timing noise: run
# `txpath run --driver null --threads 1` under callgrind for two packet
# counts and divide the difference in instructions by the difference in
# packets, so start-up and tear-down cancel.  Given twice: for the whole
# process (the workload's producer loop and packet allocation included),
# and for the transmit path alone (what txp_xmit_burst runs: the core, the
# driver, the completion and the free).
# usage: callgrind.sh path/to/txpath [extra txpath run options]
set -eu
TXPATH=$1
shift
SMALL=200000
LARGE=1200000
if ! command -v valgrind >/dev/null 2>&1; then
	echo "callgrind: valgrind is not installed (apt-get install valgrind)" >&2
	exit 1
fi
out=$(mktemp)
prof=$(mktemp)
trap 'rm -f "$out" "$prof"' EXIT

# "total xmit": instructions executed by the whole process, and inside
# txp_xmit_burst, for a run of $1 packets.
count() {
	n=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$prof" \
		"$TXPATH" run --driver null --threads 1 --packets "$n" --quiet "$@" >"$out" 2>&1 ||
		{ cat "$out" >&2; exit 1; }
	total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out")
	xmit=$(callgrind_annotate --inclusive=yes "$prof" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) .*:txp_xmit_burst .*/\1/p' | head -1 | tr -d ,)
	echo "$total ${xmit:-0}"
}

small=$(count $SMALL "$@")
large=$(count $LARGE "$@")
echo "callgrind: txpath run --driver null --threads 1${*:+ $*}"
echo "  $SMALL packets: ${small% *} instructions; $LARGE packets: ${large% *} instructions"
# The target is for the default path (bursts of 32); other knobs are shown
# for comparison.
target=""
[ $# -eq 0 ] && target=" (target <= 150)"
awk -v a="${small% *}" -v b="${large% *}" -v xa="${small#* }" -v xb="${large#* }" \
	-v p=$((LARGE - SMALL)) -v t="$target" 'BEGIN {
	printf "  instructions per packet: %.1f%s\n", (b - a) / p, t
	printf "  of which in txp_xmit_burst: %.1f\n", (xb - xa) / p }'
