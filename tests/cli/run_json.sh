#!/bin/sh
# txpath run's knobs and its JSON (issue 9): a knob given on its own
# overrides its era wherever --era stands; every counter the device
# reports is reported per queue too, and the queues' sum is the device's;
# `txpath demo` shows the modern eras' rows.
# usage: run_json.sh path/to/txpath
set -u
TXPATH=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/lib.sh"

# holds FILE EXPR: EXPR, a Python expression over the run object d, holds.
holds() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# The era's device (6.x: 2 queues, BQL, bulk 32, a watchdog of 5000 ms),
# then the same knobs set before --era and after it.
"$TXPATH" run --era 6.x --packets 2000 --json >"$dir/era" 2>"$dir/err"
rc=$?
check "--era 6.x runs (exit $rc: $(head -1 "$dir/err"))" \
	"[ $rc -eq 0 ] && holds '$dir/era' 'd[\"queues\"] == 2 and d[\"bql\"] and d[\"bulk\"] == 32 and d[\"watchdog_ms\"] == 5000'"
for order in before after; do
	knobs="--bql off --queues 1 --bulk 1 --watchdog-ms 100"
	if [ "$order" = before ]; then
		set -- $knobs --era 6.x
	else
		set -- --era 6.x $knobs
	fi
	"$TXPATH" run "$@" --packets 2000 --json >"$dir/$order" 2>"$dir/err"
	rc=$?
	check "knobs $order --era override it (exit $rc: $(head -1 "$dir/err"))" \
		"[ $rc -eq 0 ] && holds '$dir/$order' 'd[\"queues\"] == 1 and not d[\"bql\"] and d[\"bulk\"] == 1 and d[\"watchdog_ms\"] == 100'"
done
# A knob the era's driver cannot take is refused in either order.
for args in "--bql on --era 2.6.18" "--era 2.6.18 --bql on"; do
	# shellcheck disable=SC2086
	"$TXPATH" run $args --packets 100 >"$dir/out" 2>"$dir/err"
	rc=$?
	check "run $args: usage error (exit $rc)" \
		"[ $rc -eq 2 ] && grep -q 'predates byte queue limits' '$dir/err'"
done

# Two queues, two producers, a ring small enough to stop and requeue:
# each counter per queue, and their sums the device's.
"$TXPATH" run --era 6.x --threads 2 --ring 16 --packets 40000 --json >"$dir/mq" 2>"$dir/err"
rc=$?
check "a 2-queue run (exit $rc: $(head -1 "$dir/err"))" "[ $rc -eq 0 ] && holds '$dir/mq' 'len(d[\"per_queue\"]) == 2'"
check "every counter of the device is in each queue's object" \
	"holds '$dir/mq' 'all(k in q for q in d[\"per_queue\"] for k in (\"submitted\", \"transmitted\", \"dropped\", \"xmit_calls\", \"xmit_on_stopped\", \"bug_logs\", \"tx_busy\", \"tx_locked\", \"collisions\", \"requeues\", \"stops\", \"wakes\", \"tx_timeouts\", \"bql_limit\", \"bql_inflight\"))'"
check "the queues' counters sum to the device's" \
	"holds '$dir/mq' 'all(sum(q[k] for q in d[\"per_queue\"]) == d[k] for k in (\"submitted\", \"transmitted\", \"xmit_calls\", \"xmit_on_stopped\", \"bug_logs\", \"tx_busy\", \"tx_locked\", \"collisions\", \"requeues\", \"stops\", \"wakes\", \"tx_timeouts\"))'"
check "the queues' drops sum to the device's, reason by reason" \
	"holds '$dir/mq' 'all(sum(q[\"dropped\"][r] for q in d[\"per_queue\"]) == n for r, n in d[\"dropped\"].items())'"
check "both queues carried packets" "holds '$dir/mq' 'all(q[\"transmitted\"] > 0 for q in d[\"per_queue\"])'"
check "the small ring stopped a queue (the counters are not all zero)" "holds '$dir/mq' 'd[\"stops\"] > 0'"
check "each flow in order at the wire (the core's xmit lock, one runner)" \
	"holds '$dir/mq' 'd[\"reordered\"] == 0 and d[\"requeues\"] > 0'"

# The null driver under LLTX with byte queue limits: two producers on one
# queue post and complete at once, so the limits' sent side and their
# completions take the driver's own lock (null.c); without it they race
# (ThreadSanitizer's report fails this run) and the counts come apart.
"$TXPATH" run --driver null --lock lltx --bql on --threads 2 --queues 1 --packets 200000 \
	--json >"$dir/lltx_bql" 2>"$dir/err"
rc=$?
check "null, LLTX, BQL, 2 producers on one queue (exit $rc: $(head -1 "$dir/err"))" \
	"[ $rc -eq 0 ] && holds '$dir/lltx_bql' 'd[\"transmitted\"] == 200000 and d[\"per_queue\"][0][\"bql_inflight\"] == 0'"

# The demo's rows include the modern eras.  (Its exit status is not
# asked: 5.1-nolock, the lockless qdisc as merged, may strand a packet.)
"$TXPATH" demo --packets 20000 >"$dir/demo" 2>"$dir/err"
rc=$?
check "demo ran (exit $rc: $(head -1 "$dir/err"))" "[ $rc -le 1 ]"
for era in 2.6.38 3.3 3.18 6.x 5.1-nolock 5.13-missed 5.19-barrier 6.18-draining; do
	check "a demo row for $era" "grep -q '^$era ' '$dir/demo'"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
