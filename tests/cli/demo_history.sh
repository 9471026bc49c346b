#!/bin/sh
# `txpath demo --history`: the plain binary hands it to txpath-check,
# every row shown is explored in full under sc and tso, and the verdicts
# are the explorer's: the 2004 false BUG found, the 2024 watchdog race
# found under both models and its fix proven, the stop helper's missing
# barrier found under tso only.  The text table has a row per JSON row.
# usage: demo_history.sh path/to/txpath
set -u
TXPATH=$1
command -v python3 >/dev/null 2>&1 || { echo "SKIP: needs python3"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

"$TXPATH" demo --history --json >"$TMP/h.json" || fail "demo --history --json exited $?"
python3 - "$TMP/h.json" <<'PY' || fail "the history's verdicts (above)"
import json, sys
rows = json.load(open(sys.argv[1]))
def row(what):
    hit = [r for r in rows if what in r["what"]]
    assert len(hit) == 1, f"{what}: {len(hit)} rows"
    return hit[0]
def kinds(r):
    return r["sc"]["violation"], r["tso"]["violation"]
for r in rows:
    for mm in ("sc", "tso"):
        v = r[mm]
        assert v["complete"] or v["violation"], f"{r['what']} {mm}: search incomplete"
        assert v["schedules"] > 0, f"{r['what']} {mm}: no schedule"
assert kinds(row("tg3's false BUG")) == ("bug-log", "bug-log"), kinds(row("tg3's false BUG"))
assert kinds(row("XOFF before trans_start")) == ("false-timeout", "false-timeout")
assert kinds(row("trans_start before XOFF")) == (None, None)
assert kinds(row("barrier left out")) == (None, "stall")
assert row("XOFF before trans_start")["sc"]["preemptions"] == 1
print(f"{len(rows)} rows as expected")
PY
"$TXPATH" demo --history >"$TMP/h.txt" || fail "demo --history exited $?"
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$TMP/h.json")
# Each row twice: in the table, and as its options below it.
got=$(grep -c -E '^[0-9]{4}  ' "$TMP/h.txt")
[ "$got" -eq "$n" ] || fail "text: $got rows in the table, want $n"
got=$(grep -c -E '^  [0-9]{4}  --' "$TMP/h.txt")
[ "$got" -eq "$n" ] || fail "text: $got rows' options, want $n"
grep -q 'found false-timeout, 1 preemption' "$TMP/h.txt" || fail "text: no false-timeout row"
echo "PASS"
