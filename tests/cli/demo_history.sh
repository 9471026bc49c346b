#!/bin/sh
# `txpath demo --history`: the plain binary hands it to txpath-check,
# every row shown is explored in full under sc, tso and arm, and the
# verdicts are the explorer's: the 2004 false BUG found, the 2024 watchdog
# race found under every model and its fix proven, the stop helper's
# missing barrier found under arm only (its stop a locked set_bit under
# tso), within the bound (3 preemptions; its 20000 random schedules
# more, where the bound proves the row, find nothing), the lockless qdisc as merged
# found under all three and 5.13's missing barrier under tso and arm, not
# sc, veth's 2025 lost wakeup under arm only and its fix proven; the
# model each needs is the first that finds it; the seeds' race reached
# where the BUG line was silenced and under Miller's rule, not where a
# lock or one runner rules it out.  The text table has a row per JSON
# row.
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
MODELS = ("sc", "tso", "arm")
def kinds(r):
    return tuple(r[mm]["violation"] for mm in MODELS)
def expect(what, want, needs):
    r = row(what)
    assert kinds(r) == want, f"{what}: {kinds(r)}, want {want}"
    assert r["memory_model_needed"] == needs, f"{what}: needs {r['memory_model_needed']}"
for r in rows:
    for mm in MODELS:
        v = r[mm]
        assert v["complete"] or v["violation"], f"{r['what']} {mm}: search incomplete"
        assert v["schedules"] > 0, f"{r['what']} {mm}: no schedule"
    found = [mm for mm in MODELS if r[mm]["violation"]]
    assert r["memory_model_needed"] == (found[0] if found else None), r["what"]
    race = [mm for mm in MODELS if r[mm]["xmit_on_stopped_reachable"]]
    complete = all(r[mm]["complete"] and not r[mm]["violation"] for mm in MODELS)
    assert r["race"] == (race[0] if race else "no" if complete else "?"), r["what"]
expect("tg3's false BUG", ("bug-log",) * 3, "sc")
expect("XOFF before trans_start", ("false-timeout",) * 3, "sc")
expect("trans_start before XOFF", (None,) * 3, None)
expect("barrier left out", (None, None, "stall"), "arm")
assert row("barrier left out")["arm"]["preemptions"] <= 3, "the stop's missing barrier: past the bound"
assert not any(r[mm]["random"] for r in rows for mm in MODELS)
expect("a packet stranded", ("stall",) * 3, "sc")
expect("no barrier after the unlock", (None, "stall", "stall"), "tso")
expect("between unlock and MISSED test", (None,) * 3, None)
expect("DRAINING", (None,) * 3, None)
expect("CVE-2025-68232", (None, None, "stall"), "arm")
expect("kick NAPI", (None,) * 3, None)
# The race, apart from any property: reached where the BUG line was
# silenced (proven, yet reachable) and under Miller's rule (met with BUSY),
# gone where the xmit lock guards the driver and where one context runs
# a queue.
expect("the message silenced", (None,) * 3, None)
assert row("the message silenced")["race"] == "sc"
assert row("Miller's rule")["race"] == "sc"
assert row("2.6.11-rc2")["race"] == "no"
assert row("one context runs a queue")["race"] == "no"
assert row("XOFF before trans_start")["sc"]["preemptions"] == 1
assert row("CVE-2025-68232")["arm"]["preemptions"] == 1
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
# veth-6.16: proven, proven, found under arm; needs arm.
grep -E '^2025  veth-6.16 ' "$TMP/h.txt" |
	grep -q -E 'proven +proven +found stall, 1 preemption +arm ' ||
	fail "text: veth-6.16's row does not read found under arm only"
echo "PASS"
