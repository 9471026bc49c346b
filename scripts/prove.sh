#!/bin/sh
# make prove: every era through the schedule explorer, on the real code,
# over a matrix of scenarios, each checked against what the seeds say of
# the era.  Every scenario fills the ring (the packets need more
# descriptors than it has above its stop reserve), or the race could not
# happen at all.  The base scenario (2 producers x 2 packets, ring 3) and
# the single-producer one (where a stale wake hid) run at bound $BOUND
# (default 3) in the full search; the wider ones at bound $WIDE_BOUND
# (default 3) with the search's reduction (check --reduce: its verdicts
# are the full search's, tests/check/test_reduce.c), 15 s to 2.5 minutes
# each; three producers at bound $THREE_BOUND (default 2): at bound 3,
# even with the producers' permutations as one state (2.6.8: 12.9 million
# schedules in 18 minutes), they pass 200 million states, the reduction's
# table.  Each row of the full search on every CPU: txpath check --jobs
# $CHECK_JOBS (default: the CPUs), whose verdicts and counts are one
# worker's; those with --reduce on one worker each (workers sharing a
# table still explore 2 to 6 % of it twice, docs/checking.md), but
# $CHECK_JOBS of them side by side, by GNU parallel (Debian's parallel,
# which make prove installs).
# Never part of `make test`.
# usage: prove.sh path/to/txpath
#        ROWS=REGEX prove.sh path/to/txpath
#            only the rows whose era (or label) and name, "LABEL NAME" as
#            printed, grep -E matches: ROWS='^2\.6\.11 ' the rows of
#            2.6.11, ROWS='^(6\.x|3\.3) .*-q2$' their two queues',
#            ROWS='^history ' demo --history's; a failed row again alone
#        prove.sh --row WORK TXPATH FILE JOBS LABEL NAME BOUND WANT WANT_RACE OPTIONS...
#            one row (row(), below), as GNU parallel runs those side by side
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
one_row=
if [ "$1" = --row ]; then
	one_row=1 work=$2 TXPATH=$3
	rows=$work/rows
	shift 3
else
	TXPATH=$1
fi
CHECK_JOBS=${CHECK_JOBS:-$(nproc)}
BOUND=${BOUND:-3}
WIDE_BOUND=${WIDE_BOUND:-3}
THREE_BOUND=${THREE_BOUND:-2}
if [ -z "${work:-}" ]; then
	work=$(mktemp -d)
	rows=$work/rows
	: >"$rows"
	: >"$work/planned"
	trap 'rm -rf "$work"' EXIT
fi
planned=$work/planned
out=$work/out
status=0
start=$(date +%s)

# The scenarios: name, bound, then the options.
scenarios() {
	cat <<END
2x2-ring3 $BOUND --producers 2 --packets 2 --ring 3
1x5-ring3 $BOUND --producers 1 --packets 5 --ring 3
2x3-ring5 $WIDE_BOUND --producers 2 --packets 3 --ring 5 --reduce
2x2-frags0-1 $WIDE_BOUND --producers 2 --packets 2 --frags 0-1 --reduce
2x2-bulk2 $WIDE_BOUND --producers 2 --packets 2 --ring 3 --bulk 2 --reduce
3x2-ring3 $THREE_BOUND --producers 3 --packets 2 --ring 3
END
}

# The modern eras on their two queues (a completion context each), the
# base scenario at $BOUND with the search's reduction (check --reduce: a
# state explored in full is not explored again; bound 3 of two queues
# takes hours without it, 1 to 8 minutes with it).  There producer i
# sends on queue i mod 2, so no queue is shared: three producers of a
# packet each put two on queue 0, contending for its locks while queue 1
# runs (bound $THREE_BOUND: 1.8 million schedules, 91 s on 6.x; 3 x 2
# at bound 2 passes 200 million states).  The matrix runs them on one
# queue.
two_queues() {
	echo "2x2-ring3-q2 $BOUND --producers 2 --packets 2 --ring 3 --queues 2 --reduce"
	echo "3x1-ring3-q2 $THREE_BOUND --producers 3 --packets 1 --ring 3 --queues 2 --reduce"
}
MODERN="2.6.38 3.3 3.18 6.x"

# Rows with --reduce are queued (a command line each, quoted), and run
# by GNU parallel, $CHECK_JOBS at a time, each into a file of its own,
# their rows printed in their order; the others, on every CPU, once those
# queued are done.  A shell waits for its own children: a loop in a
# pipeline (a subshell) calls pool_wait before it ends.
queue=$work/queue
queued=0
pool_wait() {
	if [ -s "$queue" ]; then
		parallel --will-cite -j "$CHECK_JOBS" --keep-order --halt now,fail=1 <"$queue" ||
			: >"$work/failed"
		: >"$queue"
	fi
	if [ -e "$work/failed" ]; then
		exit 2
	fi
}

# quoted WORD...: each word in single quotes, for a shell to read back.
quoted() {
	for w in "$@"; do
		printf "'%s' " "$(printf '%s' "$w" | sed "s/'/'\\\\''/g")"
	done
}

# chosen "LABEL NAME": is the row one of those ROWS asks for?
chosen() {
	[ -z "${ROWS:-}" ] || printf '%s\n' "$1" | grep -Eq -- "$ROWS"
}

# run_one LABEL NAME BOUND WANT WANT_RACE OPTIONS...: one txpath check,
# judged against what is expected, its row printed and kept (the rows
# planned, in $planned, are what the count at the end expects).
run_one() {
	chosen "$1 $2" || return 0
	echo "$1 $2" >>"$planned"
	case " $* " in
	*" --reduce "*)
		queued=$((queued + 1))
		echo "$(quoted sh "$0" --row "$work" "$TXPATH" "$work/row$queued.$$" 1 "$@")" >>"$queue"
		;;
	*)
		pool_wait
		row "$out" "$CHECK_JOBS" "$@"
		;;
	esac
}

# row FILE JOBS LABEL NAME BOUND WANT WANT_RACE OPTIONS...: run_one's,
# its JSON into FILE, on JOBS workers.
row() {
	file=$1 jobs=$2 label=$3 name=$4 bound=$5 want=$6 want_race=$7
	shift 7
	echo "txpath check $* --bound $bound ..." >&2
	rc=0
	"$TXPATH" check "$@" --bound "$bound" --jobs "$jobs" --json >"$file" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "prove: txpath check $* failed (exit $rc)" >&2
		: >"$work/failed"
		exit 2
	fi
	python3 - "$label" "$name" "$bound" "$want" "$want_race" "$file" <<'PY' | tee -a "$rows"
import json, sys
era, name, bound, want, want_race, path = sys.argv[1:]
r = json.load(open(path))
v = r["violation"]
got = v["kind"] if v else "none"
race = "true" if r["xmit_on_stopped_reachable"] else "false"
# A violation stops the search: reachability is then only what was seen.
ok = got == want and (v is not None or (race == want_race and r["complete"]))
what = ("proved" if v is None else "found " + got) if ok else \
    f"NOT AS EXPECTED (want {want}, race {want_race})"
pre = v["preemptions"] if v else "-"
# The verdict last: the count at the end looks for it there.
red = f"  (reduced: {r['pruned']} cut short, {r['asleep']} never run)" if r["reduced"] else ""
print(f"{era:<11} {name:<13} bound {bound}  {got:<8} preemptions {pre:<2} "
      f"schedules {r['schedules']:>9} in {r['seconds']:7.1f} s  race reachable {race:<5}{red} {what}")
PY
}

if [ -n "$one_row" ]; then
	row "$@"
	exit 0
fi

# era, the violation expected ("none" or a kind), race reachable (true/false)
for spec in "2.6.8 none false" "2.6.9 bug-log true" "silence none true" \
	    "2.6.11-rc2 none false" "2.6.11 none true" "2.6.18 none false" \
	    "2.6.38 none false" "3.3 none false" "3.18 none false" "6.x none false" \
	    "5.1-nolock stall false" "5.13-missed none false" "5.19-barrier none false" \
	    "6.18-draining none false"; do
	set -- $spec
	era=$1 want=$2 want_race=$3
	case " $MODERN " in
	*" $era "*) list() { scenarios | sed 's/$/ --queues 1/'; two_queues; } ;;
	*) list() { scenarios; } ;;
	esac
	list | {
		while read -r name bound opts; do
			# shellcheck disable=SC2086
			run_one "$era" "$name" "$bound" "$want" "$want_race" --era "$era" $opts
		done
		pool_wait
	}
done

# The watchdog against BQL (2024): the watchdog's timer as one more
# context, on one queue, 1 producer x 2 packets (the first crosses BQL's
# limit): the stack's order before the fix found, today's proved.
WATCHDOG="--lock core --runner exclusive --bql on --producers 1 --packets 2 --watchdog"
for spec in "modern none" "modern-2023 false-timeout"; do
	set -- $spec
	for mm in sc tso; do
		# shellcheck disable=SC2086
		run_one "$1" "watchdog-$mm" "$BOUND" "$2" false --personality "$1" $WATCHDOG \
			--memory-model "$mm"
	done
done
# The lockless qdisc's eras under tso, on the base scenario at $BOUND
# with the reduction (half a minute each): 5.1 and 5.13 found (5.13 under
# tso only: the unlock's release still in the store buffer when MISSED is
# tested), 5.19 and 6.18 proved.  Then 6.18's defer list on 6.x (one
# queue: the root-locked pfifo_fast whose first enqueuer takes the lock)
# under sc and tso (25 s and 80 s).
for spec in "5.1-nolock stall" "5.13-missed stall" "5.19-barrier none" "6.18-draining none"; do
	set -- $spec
	run_one "$1" "2x2-ring3-tso" "$BOUND" "$2" false --era "$1" \
		--producers 2 --packets 2 --ring 3 --memory-model tso --reduce
done
for mm in sc tso; do
	run_one "6.x" "defer-$mm" "$BOUND" none false --era 6.x --queues 1 --defer on \
		--producers 2 --packets 2 --ring 3 --memory-model "$mm" --reduce
done
# A producer's queued and tried bursts by turns on the defer list and on
# the drainer (--send mixed): its flow in order (a tried burst once
# overtook what its caller had pushed: on the drainer's list only with a
# third producer holding the root lock, so 3 x 2 there, at bound 2).
run_one "6.x" "defer-on-mixed" "$BOUND" none false --era 6.x --queues 1 --defer on \
	--send mixed --producers 2 --packets 2 --ring 3 --reduce
run_one "6.x" "defer-drain-mixed-3p" 2 none false --era 6.x --queues 1 --defer drain \
	--send mixed --producers 3 --packets 2 --ring 3 --reduce
# The arm memory model (issue 12), on the base scenario at bound
# $ARM_BOUND (default 2) with the reduction (issue 26: under arm a state
# is named by its trace, the loads' choices and the model's state; the
# verdicts are the full search's, tests/check/test_reduce.c and the
# litmus tests): 5.19-barrier at bound 2 in 142,112 schedules and 19.9 s
# of CPU, where the full search takes 306,208 and 34.0 s (the arm model's
# part of a name costs, and no choice is asleep under arm, so the gain is
# smaller than under tso); at bound 3, 6.18-draining under arm is proved
# by the full search in 10 minutes, 16.6 million schedules, and
# 5.19-barrier did not finish in 15 on the shared machine: the modern
# eras on one queue, the lockless qdisc's eras (5.1 and 5.13 found as
# under tso, the fixed ones proved), and veth's backpressure (6.16's lost
# wakeup found, found under arm only; the fix proved, at $BOUND as under
# sc and tso, where it is minutes, by the full search).
ARM_BOUND=${ARM_BOUND:-2}
for spec in "2.6.38 none" "3.3 none" "3.18 none" "6.x none" "5.1-nolock stall" \
	    "5.13-missed stall" "5.19-barrier none" "6.18-draining none"; do
	set -- $spec
	case " $MODERN " in *" $1 "*) q="--queues 1" ;; *) q="" ;; esac
	# shellcheck disable=SC2086
	run_one "$1" "2x2-ring3-arm" "$ARM_BOUND" "$2" false --era "$1" $q \
		--producers 2 --packets 2 --ring 3 --memory-model arm --reduce
done
VETH="--lock core --runner exclusive --producers 2 --packets 2 --ring 3"
for spec in "veth-6.16 sc none" "veth-6.16 tso none" "veth-6.16 arm stall" \
	    "veth sc none" "veth tso none" "veth arm none"; do
	set -- $spec
	# shellcheck disable=SC2086
	run_one "$1" "veth-$2" "$BOUND" "$3" false --personality "$1" $VETH --memory-model "$2"
done
# The tg3 of 2005 as a driver plugin (examples/drivers/tg3_lltx.c, built
# next to txpath), 2 producers x 2 packets at bound 3: five minutes, so
# make test stops at bound 2 (tests/cli/driver_so.sh).
TG3_SO="$(dirname "$TXPATH")/examples/drivers/tg3_2005.so"
if [ -f "$TG3_SO" ]; then
	run_one "tg3_2005.so" "2x2-plugin" 3 none true --driver-so "$TG3_SO"
fi
# The driver in the kernel's style (examples/drivers/kernel_style.c: a
# descriptor ring the NIC model consumes, DMA followed), one producer's 3
# packets of 0 to 2 fragments filling its ring: make test proves it at
# bound 3 under sc and at 2 under tso and arm; here at 3 under those
# (2.6 and 7.4 minutes on one worker: 3.3 and 5.5 million schedules).
KS_SO="$(dirname "$TXPATH")/examples/drivers/kernel_style.so"
if [ -f "$KS_SO" ]; then
	for mm in tso arm; do
		run_one "kernel_style" "1x3-$mm" 3 none false --driver-so "$KS_SO" --frags 0-2 \
			--producers 1 --packets 3 --memory-model $mm
	done
fi
# Linux's e1000, built unchanged from the tree LINUX_TREE names, else
# the one scripts/deps.sh unpacks (scripts/realdrv.sh; skipped without
# one): 3 packets of 3 descriptors fill its ring of 34 to its stop
# threshold, at $BOUND under each model.
LINUX_TREE=${LINUX_TREE:-/usr/src/linux-source-6.12}
e1000_models=
for mm in sc tso arm; do
	chosen "e1000 1x3-$mm" && e1000_models="$e1000_models $mm"
done
if [ -z "$e1000_models" ]; then
	:
elif [ -d "$LINUX_TREE/drivers/net/ethernet/intel/e1000" ]; then
	sh "$SRC/scripts/realdrv.sh" "$TXPATH" "$LINUX_TREE" "$work/realdrv" >&2
	for mm in $e1000_models; do
		run_one "e1000" "1x3-$mm" "$BOUND" none false --driver-so "$work/realdrv/e1000-run.so" \
			--frags 2 --producers 1 --packets 3 --ring 34 --memory-model $mm
	done
else
	echo "prove: no Linux source tree at $LINUX_TREE (LINUX_TREE): e1000 is not run" >&2
fi
# The stop without its barrier before the recheck (recheck-nomb, and the
# stop helper's, modern-nomb): the stop is set_bit(), a locked instruction
# under tso, so proved there at bound 3 (half a million schedules, two
# minutes each); under arm a stall at 3 preemptions (make test finds it
# with random schedules, demo --history at bound 3).
for p in recheck-nomb modern-nomb; do
	run_one "$p" "1x3-tso" 3 none false --personality "$p" --lock core \
		--producers 1 --packets 3 --memory-model tso
done

# The real drivers' ring (check --driver ring, issue 24: afxdp's, against
# a modelled kernel endpoint), in both lock modes.  The model's kernel
# and the ring's polling completion context make its states many more
# than the simulated NIC's, so the bounds are split: one producer's 3
# packets (it fills the ring of 2, stops, is woken against the reaper
# and the kernel) at $BOUND under sc and tso with the reduction, and at
# $ARM_BOUND under arm; 2 producers x 2 packets (the LLTX race: reached
# in LLTX, never in core mode) at $RING_BOUND (default 2: 2.1 million
# schedules, 90 million states, 6 GB and 80 s of CPU under sc; at 3 the
# states pass the reduction's table) with the reduction, and at 1 under
# arm, reduced too (LLTX: 33,976 schedules where the full search takes
# 91,024; there the race needs a preemption more, for the stop's store).
RING_BOUND=${RING_BOUND:-2}
RING1="--driver ring --producers 1 --packets 3 --ring 2"
RING2="--driver ring --producers 2 --packets 2 --ring 2"
for lock in lltx core; do
	race=false
	[ "$lock" = lltx ] && race=true
	for mm in sc tso; do
		# shellcheck disable=SC2086
		run_one ring "1x3-$lock-$mm" "$BOUND" none false $RING1 --lock "$lock" \
			--memory-model "$mm" --reduce
		# shellcheck disable=SC2086
		run_one ring "2x2-$lock-$mm" "$RING_BOUND" none "$race" $RING2 --lock "$lock" \
			--memory-model "$mm" --reduce
	done
	# shellcheck disable=SC2086
	run_one ring "1x3-$lock-arm" "$ARM_BOUND" none false $RING1 --lock "$lock" \
		--memory-model arm --reduce
	# shellcheck disable=SC2086
	run_one ring "2x2-$lock-arm" 1 none false $RING2 --lock "$lock" --memory-model arm \
		--reduce
done
pool_wait

# The release made relaxed (tests/mutants/core-no-mb-before-atomic.mut): built
# from the source next to this script, found under arm only.  Skipped
# with a message when that source is not here.
if ! chosen "mutant core-no-mb-before-atomic"; then
	:
elif [ -f "$SRC/tests/mutants/core-no-mb-before-atomic.mut" ]; then
	echo "mutant core-no-mb-before-atomic" >>"$planned"
	scratch=$(mktemp -d)
	if python3 "$SRC/tests/mutants/mutate.py" "$SRC" "$scratch" core-no-mb-before-atomic >"$out" 2>&1; then
		grep -A2 '^core-no-mb-before-atomic' "$out" >&2
		echo "mutant      core-no-mb-before-atomic  survives sc and tso, killed under arm: found false-timeout" |
			tee -a "$rows"
	else
		echo "mutant      core-no-mb-before-atomic NOT AS EXPECTED" | tee -a "$rows"
		cat "$out" >&2
	fi
	rm -rf "$scratch"
else
	echo "prove: no source tree at $SRC: the release-made-relaxed mutant is not run" >&2
fi
# txpath demo --history, every row's verdicts under sc, tso and arm as
# tests/cli/demo_history.sh asserts them (minutes: each row's searches,
# and 20000 random schedules of the stop helper's missing barrier where
# the bound proves it).
if chosen "history demo" && [ -f "$SRC/tests/cli/demo_history.sh" ]; then
	echo "history demo" >>"$planned"
	if sh "$SRC/tests/cli/demo_history.sh" "$TXPATH" >"$out" 2>&1; then
		echo "history     txpath demo --history: every row as expected: proved" | tee -a "$rows"
	else
		echo "history     txpath demo --history NOT AS EXPECTED" | tee -a "$rows"
		cat "$out" >&2
	fi
fi
total=$(wc -l <"$planned")
good=$(grep -c -e ' proved$' -e ' found [a-z-]*$' "$rows" || true)
if [ "$good" -ne "$total" ]; then
	status=1
fi
echo "prove: $(grep -c ' proved$' "$rows" || true) runs proved, $(grep -c ' found [a-z-]*$' "$rows" || true)" \
     "found as expected, $((total - good)) of $total not as expected, in $(( $(date +%s) - start )) s"
exit $status
