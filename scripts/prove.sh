#!/bin/sh
# make prove: every era through the schedule explorer at bound 3 (or
# $BOUND), on the real code, each checked against what the seeds say of
# it.  Minutes; never part of `make test`, which proves bound 2.
# usage: prove.sh path/to/txpath
set -eu
TXPATH=$1
BOUND=${BOUND:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0

# era, the violation expected ("none" or a kind), race reachable
# (true/false), and for the multi-queue eras the queues and the bound: on
# one queue at $BOUND, on their two queues one bound lower (each queue
# brings a completion context: bound 3 of two takes hours without a
# reduction of the search).
B2=$((BOUND > 1 ? BOUND - 1 : BOUND))
for spec in "2.6.8 none false" "2.6.9 bug-log true" "silence none true" \
	    "2.6.11-rc2 none false" "2.6.11 none true" "2.6.18 none false" \
	    "2.6.38 none false 1 $BOUND" "2.6.38 none false 2 $B2" \
	    "3.3 none false 1 $BOUND" "3.3 none false 2 $B2" \
	    "3.18 none false 1 $BOUND" "3.18 none false 2 $B2" \
	    "6.x none false 1 $BOUND" "6.x none false 2 $B2"; do
	set -- $spec
	queues=${4:-1} bound=${5:-$BOUND}
	echo "txpath check --era $1 --queues $queues --bound $bound ..." >&2
	rc=0
	"$TXPATH" check --era "$1" --queues "$queues" --bound "$bound" --json >"$out" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "prove: txpath check --era $1 failed (exit $rc)" >&2
		exit 2
	fi
	python3 - "$1" "$2" "$3" "$out" "$queues" "$bound" <<'PY' || status=1
import json, sys
era, want, want_race, path, queues, bound = sys.argv[1:]
r = json.load(open(path))
v = r["violation"]
got = v["kind"] if v else "none"
race = "true" if r["xmit_on_stopped_reachable"] else "false"
# A violation stops the search: reachability is then only what was seen.
ok = got == want and (v is not None or race == want_race)
pre = v["preemptions"] if v else "-"
print(f"{era:<11} q{queues} b{bound} {got:<9} preemptions {pre:<2} schedules {r['schedules']:>9} "
      f"in {r['seconds']:7.1f} s  complete {str(r['complete']).lower():<5} "
      f"race reachable {race:<5} {'as expected' if ok else 'NOT AS EXPECTED (want ' + want + ', race ' + want_race + ')'}")
sys.exit(0 if ok else 1)
PY
done
exit $status
