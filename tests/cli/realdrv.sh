#!/bin/sh
# Real drivers' transmit paths (issue 25): Linux's e1000 or r8169 from
# the source tree named by LINUX_TREE, else Debian's linux-source-6.12 as
# scripts/deps.sh unpacks it, built unchanged by scripts/realdrv.sh, run
# and checked.  Skipped without a tree: the project holds no kernel code.
# usage: realdrv.sh path/to/txpath [BOUND [PLAIN [DRIVER]]]
# BOUND: the build's plugin bound (3, 2 under ASan, 1 under TSan); the
# proofs run at 2 at most.  PLAIN: on where the check build serves an
# instrumented plugin (not under the sanitizers).  DRIVER: e1000
# (default) or r8169.
set -u
TXPATH=$1
BOUND=$(( ${2:-2} > 2 ? 2 : ${2:-2} ))
PLAIN=${3:-on}
DRIVER=${4:-e1000}
SRC=$(dirname "$0")/../..
. "$(dirname "$0")/lib.sh"
# The tree: LINUX_TREE, else the one scripts/deps.sh unpacks.
LINUX_TREE=${LINUX_TREE:-/usr/src/linux-source-6.12}
[ -d "$LINUX_TREE/drivers/net/ethernet/intel/e1000" ] && [ -d "$LINUX_TREE/drivers/net/ethernet/realtek" ] ||
	{ echo "SKIP: no Linux source tree at $LINUX_TREE (LINUX_TREE; make test unpacks Debian's linux-source-6.12 there as root)"; exit 77; }
out=$(mktemp) err=$(mktemp) tmp=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$tmp"' EXIT
detail=$out

sh "$SRC/scripts/realdrv.sh" "$TXPATH" "$LINUX_TREE" "$tmp" "$DRIVER" >"$out" 2>&1
check "the driver's files build unchanged, and the plugins" '[ $? -eq 0 ]'
so=$tmp/$DRIVER-run.so

# Every packet sent or dropped by the qdisc, none lost or duplicated, the
# queue stopped and woken: run's JSON report of 100,000 packets.
run_exact() {
	"$TXPATH" run --driver-so "$so" --threads 4 --packets 100000 --json "$@" >"$out" 2>"$err"
	check "run $*: exits 0" '[ $? -eq 0 ]'
	exact_run "run $*" 100000
}

# The tally (and NOTE after it), and the exit status it makes.
tally() {
	echo "realdrv: $pass passed, $fail failed$1"
	[ "$fail" -eq 0 ]
	exit
}

models2="sc tso" models3="sc tso arm"
[ "$PLAIN" = on ] || models2=sc models3=sc
if [ "$DRIVER" = r8169 ]; then
	# Its ring is the driver's NUM_TX_DESC (256), which it stops at fewer
	# than MAX_SKB_FRAGS + 1 descriptors free (19): fragments of mixed
	# counts fill it, at times to the last descriptor (a full ring the
	# NIC must still see).
	run_exact --frags 0-18
	"$TXPATH" run --driver-so "$so" --ring 64 --packets 10 >"$out" 2>&1
	check "another ring size is refused" 'grep -q "the ring is the driver.s, 256" "$out"'
	# The --run-cflags build: three packets at the bound; thirteen of
	# nineteen descriptors (--frags 18) stop the queue, at bound 1 (sc
	# only in the sanitizer builds: the plain build proves the rest).
	for mm in $models2; do
		proven --driver-so "$so" --frags 0-2 --producers 1 --packets 3 --bound "$BOUND" \
			--memory-model $mm
		proven --driver-so "$so" --frags 18 --producers 1 --packets 13 --bound 1 \
			--memory-model $mm
		check "check $mm: the queue stopped" '! grep -q "no schedule stopped a queue" "$out"'
	done
	[ "$PLAIN" = on ] || tally " (no plain access seen here)"
	# The --cflags build: rtl_tx reads the first descriptor's opts1
	# (READ_ONCE) while rtl8169_start_xmit sets its DescOwn with a plain
	# store (docs/porting.md, section 7).
	run_check 1 --driver-so "$tmp/r8169.so" --frags 0-2 --producers 1 --packets 3 \
		--bound "$BOUND"
	check "the data race on the first descriptor's opts1" \
		'grep -q "^VIOLATION data-race .* plain write by CPU [0-9] in rtl8169_start_xmit .* marked read by IRQ" "$out"'
	tally ""
fi

# 4 threads, fragments: the queue stopped at its threshold, MAX_SKB_FRAGS
# + 7 descriptors.
run_exact --frags 0-2 --ring 64

# The --run-cflags build, its seam operations seen.  Its stop threshold
# is 25 descriptors and its wake threshold 32 free: a ring of 34 stops
# after three packets of three (sc only in the sanitizer builds).
for mm in $models3; do
	proven --driver-so "$so" --frags 2 --producers 1 --packets 3 --ring 34 --bound "$BOUND" \
		--memory-model $mm
	check "check $mm: the queue stopped" '! grep -q "no schedule stopped a queue" "$out"'
done

# The --cflags build, every plain access seen: the completion reads the
# next packet's next_to_watch while start_xmit writes it (docs/porting.md,
# section 7).
[ "$PLAIN" = on ] || tally " (no plain access seen here)"
run_check 1 --driver-so "$tmp/e1000.so" --frags 2 --producers 1 --packets 3 --ring 34 --bound "$BOUND"
check "the data race on next_to_watch" \
	'grep -q "^VIOLATION data-race .* plain write by CPU [0-9] in e1000_tx_map .* plain read by IRQ in e1000_clean_tx_irq" "$out"'
tally ""
