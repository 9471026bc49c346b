#!/bin/sh
# A real driver's transmit path (issue 25): Linux's e1000 from the source
# tree named by LINUX_TREE, built unchanged by scripts/realdrv.sh, run
# and checked.  The tree: LINUX_TREE, else Debian's linux-source-6.12 as
# scripts/deps.sh unpacks it; skipped without one: the project holds no
# kernel code.
# usage: realdrv.sh path/to/txpath [BOUND [PLAIN]]
# BOUND: the build's plugin bound (3, 2 under ASan, 1 under TSan); the
# proofs run at 2 at most.  PLAIN: on where the check build serves an
# instrumented plugin (not under the sanitizers).
set -u
TXPATH=$1
BOUND=$(( ${2:-2} > 2 ? 2 : ${2:-2} ))
PLAIN=${3:-on}
SRC=$(dirname "$0")/../..
. "$(dirname "$0")/lib.sh"
# The tree: LINUX_TREE, else the one scripts/deps.sh unpacks.
LINUX_TREE=${LINUX_TREE:-/usr/src/linux-source-6.12}
[ -d "$LINUX_TREE/drivers/net/ethernet/intel/e1000" ] ||
	{ echo "SKIP: no Linux source tree at $LINUX_TREE (LINUX_TREE; make test unpacks Debian's linux-source-6.12 there as root)"; exit 77; }
out=$(mktemp) err=$(mktemp) tmp=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$tmp"' EXIT
detail=$out

sh "$SRC/scripts/realdrv.sh" "$TXPATH" "$LINUX_TREE" "$tmp" >"$out" 2>&1
check "the driver's files build unchanged, and the plugins" '[ $? -eq 0 ]'
so=$tmp/e1000-run.so

# 4 threads, fragments: every packet sent, none lost, the queue stopped
# (its threshold, MAX_SKB_FRAGS + 7 descriptors, reached) and woken.
"$TXPATH" run --driver-so "$so" --threads 4 --packets 100000 --frags 0-2 --ring 64 --json \
	>"$out" 2>"$err"
check "run exits 0" '[ $? -eq 0 ]'
check "run: accounted, none lost or duplicated, stopped and woken" \
	'[ "$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); dr = d[\"dropped\"]; print(d[\"accounted\"] and d[\"lost\"] == 0 and d[\"duplicated\"] == 0 and d[\"transmitted\"] + sum(dr.values()) == 100000 and d[\"transmitted\"] > 0 and d[\"stops\"] > 0 and d[\"wakes\"] > 0)" "$out")" = True ]'

# The --run-cflags build, its seam operations seen.  Its stop threshold
# is 25 descriptors and its wake threshold 32 free: a ring of 34 stops
# after three packets of three.
for mm in sc tso arm; do
	proven --driver-so "$so" --frags 2 --producers 1 --packets 3 --ring 34 --bound "$BOUND" \
		--memory-model $mm
	check "check $mm: the queue stopped" '! grep -q "no schedule stopped a queue" "$out"'
done

# The --cflags build, every plain access seen: the completion reads the
# next packet's next_to_watch while start_xmit writes it (docs/porting.md,
# section 7).
if [ "$PLAIN" != on ]; then
	echo "realdrv: $pass passed, $fail failed (no plain access seen here)"
	[ "$fail" -eq 0 ]
	exit
fi
run_check 1 --driver-so "$tmp/e1000.so" --frags 2 --producers 1 --packets 3 --ring 34 --bound "$BOUND"
check "the data race on next_to_watch" \
	'grep -q "^VIOLATION data-race .* plain write by CPU [0-9] in e1000_tx_map .* plain read by IRQ in e1000_clean_tx_irq" "$out"'
echo "realdrv: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
