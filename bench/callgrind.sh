#!/bin/sh
# Instructions per packet on the hot path, free of timing noise: run
# `txpath run --driver null --threads 1` under callgrind for two packet
# counts and divide the difference in instructions by the difference in
# packets, so start-up and tear-down cancel.  Given twice: for the whole
# process (the workload's producer loop and packet allocation included),
# and for the transmit path alone (what txp_xmit_burst runs: the core, the
# driver, the completion and the free).  Then the locked instructions
# (lock-prefixed, xchg with memory, mfence: each a full barrier on x86,
# and what a packet's time goes to when it is one at a time) per packet,
# from the same profiles (--dump-instr) and the binary's disassembly.
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
if ! command -v objdump >/dev/null 2>&1; then
	echo "callgrind: objdump is not installed (apt-get install binutils)" >&2
	exit 1
fi
out=$(mktemp)
prof=$(mktemp)
locked=$(mktemp)
trap 'rm -f "$out" "$prof" "$locked"' EXIT
# The addresses of the binary's locked instructions, one a line.
objdump -d --no-show-raw-insn "$TXPATH" |
	sed -n 's/^ *\([0-9a-f]*\):	\(lock \|xchg  *[^ ]*(\|mfence\).*/\1/p' >"$locked"

# "total xmit locked": instructions executed by the whole process, inside
# txp_xmit_burst, and locked ones in the binary's own code, for a run of
# $1 packets.  With --compress-pos=no each cost line of the profile starts
# with its instruction's address; the line after a calls= line is the
# call's inclusive cost, not an instruction's, and is skipped.  The
# annotation lists txp_xmit_burst once per file its code comes from
# (xmit.c, and the headers inlined into it), the whole of it first; that
# line may end with the object's name or without.
count() {
	n=$1
	shift
	valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
		--callgrind-out-file="$prof" \
		"$TXPATH" run --driver null --threads 1 --packets "$n" --quiet "$@" >"$out" 2>&1 ||
		{ cat "$out" >&2; exit 1; }
	total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out")
	xmit=$(callgrind_annotate --inclusive=yes "$prof" 2>/dev/null |
		sed -n 's/^ *\([0-9,]*\) .*:txp_xmit_burst\( .*\)\{0,1\}$/\1/p' | head -1 | tr -d ,)
	lk=$(awk -v bin="$TXPATH" 'NR == FNR { lk["0x" $1] = 1; next }
		/^ob=/ { mine = substr($0, 4) == bin || substr($0, length($0) - length(bin) + 1) == bin; next }
		/^calls=/ { skip = 1; next }
		/^0x/ { if (!skip && mine && ($1 in lk)) n += $NF; skip = 0 }
		END { print n + 0 }' "$locked" "$prof")
	echo "$total ${xmit:-0} $lk"
}

small=$(count $SMALL "$@")
large=$(count $LARGE "$@")
echo "callgrind: txpath run --driver null --threads 1${*:+ $*}"
echo "  $SMALL packets: ${small%% *} instructions; $LARGE packets: ${large%% *} instructions"
# The target is for the default path (bursts of 32); other knobs are shown
# for comparison.
target=""
[ $# -eq 0 ] && target=" (target <= 150)"
echo "$small $large" | awk -v p=$((LARGE - SMALL)) -v t="$target" '{
	printf "  instructions per packet: %.1f%s\n", ($4 - $1) / p, t
	printf "  of which in txp_xmit_burst: %.1f\n", ($5 - $2) / p
	printf "  locked instructions per packet: %.2f\n", ($6 - $3) / p }'
