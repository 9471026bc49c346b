#!/usr/bin/env python3
"""make mutate: each mutant in tests/mutants/*.mut, a small change to the
real code, applied to a scratch copy of the tree, built, and checked with
the `txpath check` command it names.  A mutant is killed when the check's
outcome (the violation's kind, or none) differs from the unmutated
code's, and is the outcome it names (`kind:`) if it names one.  A mutant
that names memory models (`models:`) is checked under each of them (its
check then names none) and is killed under those where its outcome
differs: "killed under arm" when the other models cannot tell it from
the real code; `killed-under:` says where it must be killed, exactly
(a release made relaxed must survive sc and tso).  A mutant
whose text is not found exactly once fails loudly ("does not apply"):
the code moved, and the mutant must follow it.  Survivors are listed with
why (`survives:`, a known blind spot or an equivalent mutant); an
unexplained survivor, a mutant that does not apply or build, or a check
that fails on the unmutated code, fails the run.

usage: mutate.py SRC WORK [--fast] [--reduce] [NAME...]
  SRC   the source tree (its files as git lists them, changes included)
  WORK  a scratch directory (its src/ and build/ are replaced)
  --fast  only the mutants marked `fast: yes` (make test runs these)
  --reduce  every bounded check (sc, tso and arm) with `txpath check
          --reduce`: the reduced search must kill what the full one kills

A mutant file:
  # what the bug is, one or more comment lines
  file: src/sync/sync.c
  check: --era 2.6.8 --bound 2
  kind: claim                  (optional)
  models: sc tso arm           (optional: each model in turn)
  killed-under: arm            (optional, with models: exactly these)
  fast: yes                    (optional)
  survives: why                (optional: a known survivor)
  @@ find
  ...lines, exactly as in the file...
  @@ replace
  ...lines...
  @@ end
"""
import json
import re
import os
import shutil
import subprocess
import sys
import time


def parse(path):
    m = {"name": os.path.basename(path)[:-4], "what": [], "fast": False}
    block = None
    with open(path) as f:
        for line in f:
            if line.startswith("@@ "):
                block = line[3:].strip()
                if block == "end":
                    block = None
                else:
                    m[block] = ""
                continue
            if block:
                m[block] += line
            elif line.startswith("#"):
                m["what"].append(line[1:].strip())
            elif ":" in line:
                key, val = line.split(":", 1)
                m[key.strip()] = val.strip()
    for key in ("file", "check", "find", "replace"):
        if key not in m:
            sys.exit(f"mutate: {path}: no '{key}'")
    m["fast"] = m["fast"] in ("yes", True)
    m["checks"] = checks(m)
    return m


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def copy_tree(src, dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    try:
        files = run(["git", "-C", src, "ls-files", "-co", "--exclude-standard", "-z"])
        listed = files.stdout.split("\0") if files.returncode == 0 else None
    except OSError:
        listed = None
    if listed is None:
        # Not a git tree: every file but hidden ones and build trees'.
        listed = []
        for d, dirs, fs in os.walk(src):
            dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
            listed += [os.path.relpath(os.path.join(d, f), src) for f in fs]
    for rel in listed:
        if not rel or not os.path.isfile(os.path.join(src, rel)):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, rel)) or dst, exist_ok=True)
        # Fresh times: a build left from an earlier run rebuilds it all.
        shutil.copy(os.path.join(src, rel), os.path.join(dst, rel))


def build(work):
    r = run(["cmake", "--build", os.path.join(work, "build"), "-j2", "--target", "txpath-check"])
    return r.returncode == 0, r.stdout


REDUCE = False


def reduced(check):
    """The check as run: with --reduce where it applies (a bounded
    search), when asked."""
    words = check.split()
    if not REDUCE or "--pct" in words or "--random" in words:
        return words
    return words + ["--reduce"]


def outcome(work, check):
    """The check's verdict: (kind or 'none', schedules, seconds), or an error."""
    binary = os.path.join(work, "build", "txpath-check")
    r = run([binary, "check"] + reduced(check) + ["--json"], timeout=900)
    # The library's own contract checks (txp_assert_held, in the check
    # build) abort naming what was broken: a finding, as a violation is.
    held = re.search(r"txpath: (\S+)\(\) needs (\S+) held", r.stdout)
    if r.returncode not in (0, 1) and held:
        return ("assert-held", 0, 0.0)
    if r.returncode not in (0, 1):
        return ("error (exit %d): %s" % (r.returncode, r.stdout.strip()[-200:]), 0, 0.0)
    j = json.loads(r.stdout)
    v = j["violation"]
    return (v["kind"] if v else "none", j["schedules"], j["seconds"])


def checks(m):
    """The mutant's checks: {model: options}, model None when it names none."""
    models = m.get("models", "").split()
    if not models:
        if "killed-under" in m:
            sys.exit(f"mutate: {m['name']}: 'killed-under' without 'models'")
        return {None: m["check"]}
    if "--memory-model" in m["check"].split():
        sys.exit(f"mutate: {m['name']}: 'models' and a --memory-model in its check")
    return {mm: f"{m['check']} --memory-model {mm}" for mm in models}


def verdict_of(m, killed_in, ok):
    """The verdict's text, and whether it is as the mutant file says."""
    models = list(m["checks"])
    want = m.get("killed-under", "").split()
    where = "" if models == [None] else " under " + ", ".join(killed_in)
    if not ok:
        return "DOES NOT BUILD", False
    if not killed_in:
        return "survived", "survives" in m
    if "survives" in m:
        return "killed" + where + " (was said to survive)", False
    if want and killed_in != [mm for mm in models if mm in want]:
        return "KILLED" + where + " (want under " + ", ".join(want) + ")", False
    return "killed" + where, True


def try_mutant(work, tree, m, baseline):
    """Apply m, build, run its checks, print its rows; as it should be?"""
    path = os.path.join(tree, m["file"])
    with open(path) as f:
        original = f.read()
    n = original.count(m["find"])
    if n != 1:
        print(f"{m['name']:<30} DOES NOT APPLY: its text is found {n} times in {m['file']}")
        return False
    for check in m["checks"].values():
        if baseline[check][0].startswith("error"):
            print(f"{m['name']:<30} BASELINE FAILS: txpath check {check}: {baseline[check][0]}")
            return False
    with open(path, "w") as f:
        f.write(original.replace(m["find"], m["replace"]))
    ok, log = build(work)
    got = {mm: outcome(work, check) if ok else ("does not build", 0, 0.0)
           for mm, check in m["checks"].items()}
    with open(path, "w") as f:
        f.write(original)
    killed_in = [mm for mm, check in m["checks"].items()
                 if ok and got[mm][0] != baseline[check][0] and not got[mm][0].startswith("error")
                 and m.get("kind", got[mm][0]) == got[mm][0]]
    verdict, as_said = verdict_of(m, killed_in, ok)
    for k, (mm, check) in enumerate(m["checks"].items()):
        name = m["name"] if k == 0 else ""
        text = verdict if k == 0 else ""
        kind, schedules, secs = got[mm]
        under = "" if mm is None else f"  ({mm})"
        print(f"{name:<30} {text:<22} {baseline[check][0]:<10} {kind:<18} {schedules:>9} {secs:>6.1f}{under}")
    print(f"{'':<30} {' '.join(m['what'])}")
    print(f"{'':<30} txpath check {m['check']}  ({m['file']})")
    if not killed_in and ok:
        if "survives" in m:
            print(f"{'':<30} survives: {m['survives']}")
        else:
            print(f"{'':<30} an unexplained survivor: a blind spot to close, or say why")
    elif "survives" in m and ok:
        print(f"{'':<30} now killed: drop its 'survives:' line")
    return as_said


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    global REDUCE
    fast = "--fast" in sys.argv[1:]
    REDUCE = "--reduce" in sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    src, work, names = os.path.abspath(args[0]), os.path.abspath(args[1]), args[2:]
    here = os.path.join(src, "tests", "mutants")
    mutants = [parse(os.path.join(here, f)) for f in sorted(os.listdir(here)) if f.endswith(".mut")]
    if names:
        unknown = set(names) - {m["name"] for m in mutants}
        if unknown:
            sys.exit("mutate: no mutant " + ", ".join(sorted(unknown)))
        mutants = [m for m in mutants if m["name"] in names]
    elif fast:
        mutants = [m for m in mutants if m["fast"]]
    t0 = time.time()
    tree = os.path.join(work, "src")
    copy_tree(src, tree)
    r = run(["cmake", "-S", tree, "-B", os.path.join(work, "build"),
             "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
    ok, log = build(work) if r.returncode == 0 else (False, r.stdout)
    if not ok:
        sys.exit("mutate: the unmutated copy does not build:\n" + log[-2000:])
    baseline = {}
    for m in mutants:
        for check in m["checks"].values():
            if check not in baseline:
                baseline[check] = outcome(work, check)
    failed = 0
    print(f"{'mutant':<30} {'verdict':<22} {'unmutated':<10} {'mutated':<18} {'schedules':>9} {'s':>6}")
    for m in mutants:
        failed += 0 if try_mutant(work, tree, m, baseline) else 1
    print(f"mutate: {len(mutants)} mutants, {failed} not as they should be, in {time.time() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
