#!/bin/sh
# A NIC whose doorbell carries no index (txp_nic_tx_ring_kick, as
# r8169's): tests/plugins/kick_ring.c stops its queue only when its ring
# is full, so the NIC is kicked with a ring announced full.  run: every
# packet sent, none lost, the queue stopped and woken; check: no
# violation at the bound under sc and tso, the queue stopped.
# usage: kick_ring.sh path/to/txpath plugin-dir [BOUND]
set -u
TXPATH=$1
SO=$2/kick_ring.so
BOUND=$(( ${3:-2} > 2 ? 2 : ${3:-2} ))
. "$(dirname "$0")/lib.sh"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
detail=$out

"$TXPATH" run --driver-so "$SO" --threads 2 --packets 20000 --json >"$out" 2>"$err"
check "run exits 0" '[ $? -eq 0 ]'
exact_run run 20000
for mm in sc tso; do
	proven --driver-so "$SO" --producers 1 --packets 5 --bound "$BOUND" --memory-model $mm
	check "check $mm: the queue stopped" '! grep -q "no schedule stopped a queue" "$out"'
done
echo "kick_ring: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
