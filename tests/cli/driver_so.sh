#!/bin/sh
# Driver plugins (issue 11): the example drivers of examples/drivers/ under
# `txpath check --driver-so` and `txpath run --driver-so`, and the one-line
# errors (exit 2) for plugins that break the contract.
# usage: driver_so.sh path/to/txpath BUILD_DIR CASE [BOUND]
# BOUND: the proofs' (default 3; less in the sanitizer builds, which also
# skip the search that needs 3 preemptions when it is 1).
set -u
TXPATH=$1 BUILD=$2 CASE=$3 BOUND=${4:-3}
EX=$BUILD/examples/drivers BAD=$BUILD/tests/plugins
. "$(dirname "$0")/lib.sh"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
detail=$out

# signal_when_stuck PID SIG NUMBER: once PID catches SIG (its bit in
# SigCgt), and a second more (what it runs is stuck by then), send it.
signal_when_stuck() {
	for _ in $(seq 500); do
		mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		[ -n "$mask" ] && [ $((0x$mask & (1 << ($3 - 1)))) -ne 0 ] && break
		sleep 0.01
	done
	sleep 1
	kill -"$2" "$1"
}

# error PATTERN ARGS...: txpath ARGS says one line on stderr matching
# PATTERN, and exits 2.
error() {
	pattern=$1
	shift
	"$TXPATH" "$@" >"$out" 2>"$err"
	rc=$?
	check "$* exits 2 (got $rc)" '[ "$rc" -eq 2 ]'
	check "$*: one line" '[ "$(wc -l <"$err")" -eq 1 ]'
	check "$* says '$pattern'" 'grep -q -- "$pattern" "$err"'
}

# violation_of FILE: a check --json document's violation, count and
# flags, in one line: kind, schedule, preemptions, schedules, reduced,
# symmetric, interrupted.
violation_of() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); v = d["violation"]
print(v and v["kind"], v and v["schedule"], v and v["preemptions"], d["schedules"],
      d["reduced"], d["symmetric"], d["interrupted"])' "$1"
}

case $CASE in
tg3_2004_bug)
	# The false BUG of 2004, within two preemptions, drawn in the
	# driver's own function names; its schedule replays it.
	run_check 1 --driver-so "$EX/tg3_2004.so" --bound 2
	check "a bug-log" 'grep -q "^VIOLATION bug-log after [0-2] preemptions" "$out"'
	check "its netif_stop_queue drawn" 'grep -q "tg3_start_xmit: netif_stop_queue()" "$out"'
	check "its tx_lock drawn" 'grep -q "tg3_start_xmit: spin_lock(&tp->tx_lock)" "$out"'
	check "its poll drawn" 'grep -q "tg3_poll: spin_lock(&tp->tx_lock)" "$out"'
	check "the BUG line drawn" 'grep -q "BUG! Tx Ring full when queue awake!$" "$out"'
	schedule=$(sed -n 's/^schedule: //p' "$out")
	verdict=$(grep "^VIOLATION" "$out")
	run_check 1 --driver-so "$EX/tg3_2004.so" --replay "$schedule"
	check "the replay finds it again" '[ "$(grep "^VIOLATION" "$out")" = "$verdict" ]'
	;;
tg3_2005_proven)
	# At most bound 2: bound 3 of 2 x 2 through the plugin is five
	# minutes, make prove's (scripts/prove.sh).
	proven --driver-so "$EX/tg3_2005.so" --bound $((BOUND < 2 ? BOUND : 2))
	;;
modern_proven)
	proven --driver-so "$EX/modern.so" --producers 1 --packets 3 --bound "$BOUND"
	proven --driver-so "$EX/modern.so" --producers 1 --packets 3 --bound "$BOUND" --memory-model tso
	;;
modern_nomb)
	# Without start_xmit's barrier after its stop: correct under sc, and
	# under tso too (the stop is set_bit(), a locked instruction); a
	# stall under arm, past bound 3: by random schedules.
	proven --driver-so "$EX/modern_nomb.so" --producers 1 --packets 3 --bound "$BOUND"
	proven --driver-so "$EX/modern_nomb.so" --producers 1 --packets 3 \
		--bound $((BOUND < 2 ? BOUND : 2)) --memory-model tso
	if [ "$BOUND" -ge 2 ]; then
		run_check 1 --driver-so "$EX/modern_nomb.so" --producers 1 --packets 3 \
			--memory-model arm --random --runs 20000 --seed 1
		check "a stall" 'grep -q "^VIOLATION stall after" "$out"'
		check "a load reading an older value" 'grep -q "load reads an older value" "$out"'
	fi
	;;
self_lock)
	run_check 1 --driver-so "$EX/self_lock.so"
	check "the recursion, in the plugin's function" \
		'grep -q "^VIOLATION validator .*recursive locking.*xmit lock.*self_start_xmit" "$out"'
	;;
run)
	# Real threads, the completion in its own: every packet accounted.
	for so in tg3_2005 modern; do
		"$TXPATH" run --driver-so "$EX/$so.so" --ring 64 --threads 4 --packets 100000 --json \
			>"$out" 2>"$err"
		rc=$?
		check "run --driver-so $so.so exits 0 (got $rc)" '[ "$rc" -eq 0 ]'
		check "run $so: accounted, none lost" \
			'grep -q "\"accounted\": *true" "$out" && grep -q "\"lost\": *0[,}]" "$out"'
	done
	"$TXPATH" run --driver-so "$EX/tg3_2005.so" --driver-arg wake=2 --packets 1000 --threads 2 \
		>"$out" 2>"$err"
	check "a knob given" '[ $? -eq 0 ]'
	# --bql on with a plugin that reports no bytes: said, not silent
	# (before: accepted, and BQL limited nothing); one that does: no note.
	for so in tg3_2005 kernel_style; do
		"$TXPATH" run --driver-so "$EX/$so.so" --bql on --packets 20000 --threads 2 \
			>"$out" 2>"$err"
		rc=$?
		check "run $so.so --bql on: exit 0 (got $rc)" '[ "$rc" -eq 0 ]'
	done
	check "kernel_style.so feeds BQL: no note" '! grep -q "reported no bytes" "$err"'
	"$TXPATH" run --driver-so "$EX/tg3_2005.so" --bql on --packets 20000 --threads 2 >"$out" 2>"$err"
	check "tg3_2005.so --bql on: the note" \
		'grep -q "^txpath run: note: --bql on, but tg3-2005 reported no bytes to BQL" "$err"'
	# Its bench rows, beside the simulated NIC's tg3-2005.
	"$TXPATH" bench --quick --threads 1 --driver-so "$EX/tg3_2005.so" >"$out" 2>"$err"
	check "bench --driver-so exits 0" '[ $? -eq 0 ]'
	check "bench: the plugin's rows, accounted" \
		'[ "$(grep -c "^lltx/[a-z]* *plugin " "$out")" -eq 2 ] && ! grep -q "NOT ACCOUNTED" "$out"'
	check "bench: plugin/sim ratios" '[ "$(grep -c "^plugin/sim, lltx/" "$out")" -eq 2 ]'
	# A core-lock plugin: its two rows on one queue (there were three, the
	# queue per producer's too, in room for two: the heap overrun, abort).
	"$TXPATH" bench --quick --threads 1 --no-sim --driver-so "$EX/modern.so" >"$out" 2>"$err"
	check "bench --driver-so modern.so exits 0" '[ $? -eq 0 ]'
	check "bench: a core plugin's rows, one queue" \
		'[ "$(grep -c "^core/[a-z]* *plugin " "$out")" -eq 2 ] && ! grep -q "NOT ACCOUNTED" "$out"'
	;;
errors)
	error "not a loadable shared object" run --driver-so /etc/passwd
	# A FIFO: refused at once (dlopen() waited for a writer for ever).
	fifo=$(mktemp -u) && mkfifo "$fifo"
	error "not a regular file" run --driver-so "$fifo"
	error "not a regular file" check --driver-so "$fifo"
	rm -f "$fifo"
	error "not a loadable shared object" check --driver-so "$BUILD/no-such.so"
	error "no entry point txp_plugin_entry()" check --driver-so "$BAD/bad_no_entry.so"
	error "plugin ABI version 2, this txpath loads version 1" check --driver-so "$BAD/bad_bad_abi.so"
	error "the plugin gives no poll" check --driver-so "$BAD/bad_no_poll.so"
	error "start_xmit returned 7" check --driver-so "$BAD/bad_bad_return.so"
	# The program ends from a producer thread, the others still running:
	# ThreadSanitizer would report them as leaked, on purpose.
	TSAN_OPTIONS="${TSAN_OPTIONS:-} report_thread_leaks=0" \
		error "start_xmit returned 7" run --driver-so "$BAD/bad_bad_return.so" --packets 10
	error "has no such knob (its knobs: wake)" run --driver-so "$EX/tg3_2005.so" --driver-arg nope=1
	error "a whole number 1..4096" run --driver-so "$EX/tg3_2005.so" --driver-arg wake=0
	error "--driver-arg: wake given twice" run --driver-so "$EX/tg3_2005.so" --driver-arg wake=1,wake=2
	error "is written for --lock lltx, not core" check --driver-so "$EX/tg3_2005.so" --lock core
	error "applies to --driver-so only" check --driver-arg wake=2
	error "choose one of --personality, --driver-so" check --driver-so "$EX/tg3_2005.so" --personality tg3-2004
	# Before, check took it, and reported a false bug-log for modern.so.
	error "--queues is for the simulated NIC, not --driver-so" check --driver-so "$EX/modern.so" --queues 2
	error "give one of --cflags, --libs" config
	error "unknown option '--x'" config --x
	# The build helper builds a plugin that loads.
	kinc=$("$TXPATH" config --cflags | sed -n 's/^-I\([^ ]*\) .*/\1/p')
	inc=$("$TXPATH" config --cflags | sed -n 's/^-I[^ ]* -I\([^ ]*\) .*/\1/p')
	check "config --cflags: the kernel's layout first" '[ -r "$kinc/linux/netdevice.h" ]'
	check "config --cflags: the headers" '[ -r "$inc/txpath/plugin.h" ]'
	so=$(mktemp --suffix .so)
	# shellcheck disable=SC2046
	${CC:-cc} $("$TXPATH" config --cflags) -o "$so" "$(dirname "$0")/../../examples/drivers/tg3_lltx.c" \
		$("$TXPATH" config --libs)
	check "built with config's flags" '[ $? -eq 0 ]'
	"$TXPATH" run --driver-so "$so" --packets 1000 --threads 2 >"$out" 2>"$err"
	check "... and it runs" '[ $? -eq 0 ]'
	rm -f "$so"
	# A driver that keeps a packet: lost, whatever the schedule.
	run_check 1 --driver-so "$BAD/bad_leak.so" --bound 0
	check "a leak is lost" \
		'grep -q "^VIOLATION lost after 0 preemptions: packet .* (flow 0, seq 1) never freed" "$out"'
	# A crash: reported with its schedule, which replays it.
	run_check 1 --driver-so "$BAD/bad_crash.so" --packets 3
	check "the crash reported" 'grep -q "^VIOLATION crash after .*the driver crashed (Illegal instruction)" "$out"'
	schedule=$(sed -n 's/^schedule: //p' "$out")
	run_check 1 --driver-so "$BAD/bad_crash.so" --packets 3 --replay "$schedule"
	check "its replay crashes too" 'grep -q "^VIOLATION crash" "$out"'
	# On several workers: the report printed once, by this process, and
	# the same as one worker's (the first in the search's order; before,
	# each worker that met the crash printed its own).
	for jobs in 1 2 3; do
		run_check 1 --driver-so "$BAD/bad_crash.so" --packets 3 --jobs "$jobs"
		check "the crash on $jobs workers: reported once" \
			'[ "$(grep -c "^VIOLATION crash" "$out")" -eq 1 ]'
		check "the crash on $jobs workers: the schedule of one run" \
			'[ "$(sed -n "s/^schedule: //p" "$out")" = "$schedule" ]'
	done
	# A crash that breaks the heap: glibc finds a double free inside
	# free() and aborts holding its arena's lock, so the crash's report,
	# which allocates, never gets through; the monitor writes it after a
	# second (before: a livelock, after 10 s).  On one worker, on two, in
	# two shards merged.  Not in the sanitizer builds, whose allocator
	# reports the double free itself.
	if ldd "$(dirname "$TXPATH")/txpath-check" | grep -q 'lib[at]san'; then
		echo "note: the broken heap is not checked in a sanitizer build"
	else
		heap="^VIOLATION crash after .*the driver crashed (Aborted)"
		run_check 1 --driver-so "$BAD/bad_heap.so" --packets 3
		check "a broken heap: a crash, reported" 'grep -q "$heap" "$out"'
		run_check 1 --driver-so "$BAD/bad_heap.so" --packets 3 --jobs 2
		check "a broken heap on 2 workers: a crash, reported" 'grep -q "$heap" "$out"'
		"$TXPATH" check --driver-so "$BAD/bad_heap.so" --packets 3 --shard 0/2 >"$out.0" 2>/dev/null
		"$TXPATH" check --driver-so "$BAD/bad_heap.so" --packets 3 --shard 1/2 >"$out.1" 2>/dev/null
		run_check 1 --merge "$out.0" "$out.1"
		check "a broken heap in 2 shards, merged: a crash, reported" 'grep -q "$heap" "$out"'
		rm -f "$out.0" "$out.1"
	fi
	# With --json, the report is JSON (before: the text, whatever --json).
	for v in crash exit; do
		run_check 1 --driver-so "$BAD/bad_$v.so" --packets 3 --json
		check "--json, the $v: its JSON, the same schedule" \
			'[ "$(python3 -c "import json, sys; v = json.load(open(sys.argv[1]))[\"violation\"]; print(v[\"kind\"], v[\"schedule\"])" "$out")" = "$v $schedule" ]'
	done
	# A shard that meets the crash or the exit writes its document all
	# the same (before: the text report, and no document to merge), and
	# --merge of N shards gives one run's violation, count and flags, as
	# do N workers and a run resumed from a position; with --reduce too.
	# Five producers of a packet each: the crash after 222 schedules.  A
	# livelock goes the same way (its spin replayed, not tested here).
	shards=$(mktemp -d)
	for v in crash exit; do
		for reduce in "" --reduce; do
			# shellcheck disable=SC2086
			set -- --driver-so "$BAD/bad_$v.so" --packets 1 --producers 5 $reduce
			run_check 1 "$@" --json
			one=$(violation_of "$out")
			for n in 1 2 3; do
				for i in $(seq 0 $((n - 1))); do
					"$TXPATH" check "$@" --shard "$i/$n" >"$shards/$i.json"
					rc=$?
					check "the $v, shard $i/$n: exit 0 (got $rc)" '[ "$rc" -eq 0 ]'
				done
				run_check 1 --json --merge $(seq -f "$shards/%g.json" 0 $((n - 1)))
				check "the $v$reduce in $n shards, merged: one run's ($one)" \
					'[ "$(violation_of "$out")" = "$one" ]'
				run_check 1 "$@" --json --jobs "$n"
				check "the $v$reduce on $n workers: one run's" \
					'[ "$(violation_of "$out")" = "$one" ]'
			done
			"$TXPATH" check "$@" --checkpoint "$shards/pos.json" --checkpoint-every 0.001 \
				>/dev/null 2>&1
			for jobs in 1 2; do
				run_check 1 "$@" --json --resume "$shards/pos.json" --jobs "$jobs"
				check "the $v$reduce resumed on $jobs: one run's (before: this run's count)" \
					'[ "$(violation_of "$out")" = "$one" ]'
			done
		done
	done
	rm -rf "$shards"
	# exit() from an op: a violation with its schedule (before: check
	# ended with the driver's status 3, and said nothing).
	run_check 1 --driver-so "$BAD/bad_exit.so" --packets 3
	check "the exit reported" 'grep -q "^VIOLATION exit after .*the driver called exit()" "$out"'
	schedule=$(sed -n 's/^schedule: //p' "$out")
	run_check 1 --driver-so "$BAD/bad_exit.so" --packets 3 --replay "$schedule"
	check "its replay exits too" 'grep -q "^VIOLATION exit" "$out"'
	# A loop on plain memory, which nothing preempts: a livelock after
	# --spin-seconds, with its schedule (before: check hung for ever).
	# The report is written from the monitor's thread, which reads what
	# the stuck explorer left: ThreadSanitizer would call that a race.
	TSAN_OPTIONS="${TSAN_OPTIONS:-} report_bugs=0" \
		run_check 1 --driver-so "$BAD/bad_spin.so" --packets 3 --spin-seconds 1
	check "the spin reported" \
		'grep -q "^VIOLATION livelock after .* without reaching a scheduling point" "$out"'
	schedule=$(sed -n 's/^schedule: //p' "$out")
	TSAN_OPTIONS="${TSAN_OPTIONS:-} report_bugs=0" \
		run_check 1 --driver-so "$BAD/bad_spin.so" --packets 3 --spin-seconds 1 --replay "$schedule"
	check "its replay spins too" 'grep -q "^VIOLATION livelock" "$out"'
	# SIGINT while it spins: the report at once, exit 130 (before: the
	# signal waited for a schedule's end that never came).
	TSAN_OPTIONS="${TSAN_OPTIONS:-} report_bugs=0" env --default-signal=INT \
		"$TXPATH" check --driver-so "$BAD/bad_spin.so" --packets 3 --spin-seconds 600 \
		>"$out" 2>"$err" &
	pid=$!
	signal_when_stuck "$pid" INT 2
	finish "$pid" 30
	check "spin, SIGINT: exit 130 (got $rc)" '[ "$rc" = 130 ]'
	check "spin, SIGINT: the livelock, a stop asked" \
		'grep -q "^VIOLATION livelock after .*; a stop was asked" "$out"'
	# SIGINT while --merge replays a shard's livelock: the replay stops,
	# the livelock reported at once, exit 130 (before: no report, the
	# merge ended by the signal).
	"$TXPATH" check --driver-so "$BAD/bad_spin.so" --packets 3 --spin-seconds 5 --shard 0/1 \
		>"$out.0" 2>/dev/null
	TSAN_OPTIONS="${TSAN_OPTIONS:-} report_bugs=0" env --default-signal=INT \
		"$TXPATH" check --merge "$out.0" >"$out" 2>"$err" &
	pid=$!
	signal_when_stuck "$pid" INT 2
	finish "$pid" 30
	rm -f "$out.0"
	check "--merge of a spin, SIGINT: exit 130 (got $rc)" '[ "$rc" = 130 ]'
	check "--merge of a spin, SIGINT: the livelock, a stop asked" \
		'grep -q "^VIOLATION livelock after .*; a stop was asked" "$out"'
	# A driver slow, not stuck (300 ms a start_xmit), and the process
	# stopped (SIGSTOP) for twice the livelock's second, three times: the
	# time it was stopped is nobody's loop (before: a livelock, exit 1).
	# One worker (--jobs 1), so the signals reach the search; SIGINT ends it.
	env --default-signal=INT "$TXPATH" check --driver-so "$BAD/bad_slow.so" --spin-seconds 1 \
		--jobs 1 >"$out" 2>"$err" &
	pid=$!
	signal_when_stuck "$pid" CONT 2
	for _ in 1 2 3; do
		kill -STOP "$pid"
		sleep 2
		kill -CONT "$pid"
		sleep 0.5
	done
	kill -INT "$pid"
	finish "$pid" 30
	check "slow driver, stopped 3 x 2 s: exit 130 (got $rc)" '[ "$rc" = 130 ]'
	check "slow driver, stopped 3 x 2 s: no livelock" '! grep -q "livelock" "$out"'
	;;
rogue_stall)
	# A driver that spins in start_xmit, completes packets twice, or frees
	# one and returns BUSY: the stall reported, exit 1, no hang (the
	# timeout is a guard only: the run must end by itself).  The threads a
	# wedged run leaves, the races of a driver's double frees on the
	# pools, and the pools they corrupted (left unfreed) are the driver's,
	# on purpose: the sanitizers are told not to report them.
	for v in spin twice free_busy; do
		TSAN_OPTIONS="${TSAN_OPTIONS:-} report_thread_leaks=0 report_bugs=0" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-} detect_leaks=0" \
		timeout -s KILL 60 "$TXPATH" run --driver-so "$BAD/rogue_$v.so" --packets 20000 \
			--threads 2 --stall-seconds 1 >"$out" 2>"$err"
		rc=$?
		check "run rogue_$v: exit 1 (got $rc)" '[ "$rc" -eq 1 ]'
		check "run rogue_$v: the stall reported" 'grep -q "^  STALLED: nothing moved for 1 s" "$out"'
		check "run rogue_$v: the verdict" 'grep -q "^  verdict: BROKEN: stalled" "$out"'
	done
	;;
rogue_ends)
	# A driver that crashes (its stack overflowed too), aborts or calls
	# exit() in an op: one line naming the driver, what it did and in
	# which op; exit 1.
	for v in "segv:crashed (SIGSEGV) in start_xmit" "stack:crashed (SIGSEGV) in start_xmit" \
		"abort:crashed (SIGABRT) in poll" \
		"exit:called exit() in start_xmit"; do
		so=${v%%:*} said=${v#*:}
		timeout -s KILL 60 "$TXPATH" run --driver-so "$BAD/rogue_$so.so" --packets 20000 \
			--threads 2 >"$out" 2>"$err"
		rc=$?
		check "run rogue_$so: exit 1 (got $rc)" '[ "$rc" -eq 1 ]'
		check "run rogue_$so: says so on one line" \
			'[ "$(cat "$err")" = "txpath: the driver '"'rogue'"' $said" ]'
	done
	;;
rogue_signal)
	# A run that cannot progress (its driver spins in start_xmit, and no
	# stall is declared for 10 minutes) still ends on SIGTERM: the
	# report, what the device held dropped as interrupted, exit 143.
	TSAN_OPTIONS="${TSAN_OPTIONS:-} report_thread_leaks=0" \
		env --default-signal=TERM "$TXPATH" run --driver-so "$BAD/rogue_spin.so" --packets 20000 \
		--threads 2 --stall-seconds 600 --json >"$out" 2>"$err" &
	pid=$!
	signal_when_stuck "$pid" TERM 15
	finish "$pid" 30
	check "rogue_spin SIGTERM: exit 143 (got $rc)" '[ "$rc" = 143 ]'
	check "rogue_spin SIGTERM: the report, interrupted, wedged, balanced, the rest interrupted" \
		'[ "$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(d[\"interrupted\"] == \"SIGTERM\" and d[\"wedged\"] and d[\"accounted\"] and d[\"dropped\"][\"interrupted\"] > 0)" "$out")" = True ]'
	check "rogue_spin SIGTERM: says the driver never came back" 'grep -q "never came back" "$err"'
	;;
*)
	echo "unknown case $CASE"
	exit 2
	;;
esac
echo "$CASE: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
