# bench/e2e/measure.sh - what the e2e benches share, sourced after
# tests/e2e/lib.sh and veth_setup: the frame, the senders' commands, how
# they measure (what arrived at the peer veth1 over wall time, and the
# sender's CPU), the interleaved rounds, the profile, and the rows.

# frame_setup SIZE: FRAME, txpath's frame options (veth0 -> veth1, SIZE
# bytes); TRAFGEN, trafgen on veth0 sending that frame (flow 0, seq 0),
# byte for byte (add --num and --cpus); TXRUN, txpath run on veth0 with it.
frame_setup() {
	FRAME="--src-mac $(nsx cat /sys/class/net/veth0/address)"
	FRAME="$FRAME --dst-mac $(nsx cat /sys/class/net/veth1/address) --size $1"
	# shellcheck disable=SC2086
	"$TXPATH" run --driver pcap --file "$TMP/one.pcap" --packets 1 --threads 1 $FRAME >/dev/null ||
		fail "cannot make the frame"
	python3 -c 'import sys; raw = open(sys.argv[1], "rb").read()[40:]
print("{ " + ", ".join("0x%02x" % b for b in raw) + " }")' "$TMP/one.pcap" >"$TMP/trafgen.cfg"
	TRAFGEN="trafgen --dev veth0 --conf $TMP/trafgen.cfg --no-sock-mem --notouch-irq --no-cpu-stats"
	TXRUN="$TXPATH run --dev veth0 $FRAME"
}

# The e2e benches' Python: sample.py reads the peer's counter and the CPU
# at an instant, report.py does the arithmetic and prints the tables.
E2E=$(dirname "$0")
SAMPLE="python3 $E2E/sample.py"
REPORT="python3 $E2E/report.py"

# best_of RATE CMD...: RATE CMD... RUNS times (RATE echoes frames per
# second first, or "fail"); echoes "BEST MIN MAX", or "fail" at the first
# failure.
best_of() {
	rates=""
	for _ in $(seq "$RUNS"); do
		r=$("$@")
		[ "$r" = fail ] && { echo fail; return; }
		rates="$rates ${r%% *}"
	done
	python3 -c 'import sys; r = [int(x) for x in sys.argv[1:]]; print(max(r), min(r), max(r))' $rates
}

# count_rate N CMD...: CMD (a program, run in the namespace) sends N
# frames; echoes report.py window's "PPS USR SYS SOFTIRQ" from the arrival
# of its first frame to its end (start-up left out), "fail" if it exited
# non-zero or N did not all arrive.
count_rate() {
	n=$1
	shift
	# shellcheck disable=SC2086
	$(profiler) ip netns exec "$NS" $SAMPLE veth1 --run "$TMP/out" "$@" >"$TMP/snaps" ||
		{ echo fail; cat "$TMP/out" >&2; return; }
	$REPORT window "$TMP/snaps" "$n"
}

# measure N CMD...: best_of count_rate, the best figure alone.
measure() {
	set -- $(best_of count_rate "$@")
	echo "$1"
}

# window_rate SECONDS CMD...: CMD (a program, run in the namespace) in
# the background, in a process group of its own, sending until stopped;
# echoes report.py window's "PPS USR SYS SOFTIRQ" over SECONDS of wall
# time, from WARM seconds after the first frame arrived (start-up left
# out: DPDK's EAL takes a second or more), the sender's CPU being its
# group's; then SIGTERM to the group (trafgen --cpus N's children ignore
# their parent's), and CMD must exit 0 or 143 (SIGTERM), having sent
# until then.  "fail" otherwise.
window_rate() {
	secs=$1
	shift
	a=$(rx_packets veth1)
	# ip execs CMD in the namespace: $pid stays CMD's, and leads its group.
	setsid ip netns exec "$NS" "$@" >"$TMP/out" 2>&1 &
	pid=$!
	while [ "$(rx_packets veth1)" = "$a" ]; do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; echo fail; cat "$TMP/out" >&2; return; }
		sleep 0.05
	done
	sleep "$WARM"
	# shellcheck disable=SC2086
	nsx $SAMPLE veth1 "$pid" >"$TMP/snaps"
	$(profiler) sleep "$secs"
	# shellcheck disable=SC2086
	nsx $SAMPLE veth1 "$pid" >>"$TMP/snaps"
	kill -0 "$pid" 2>/dev/null ||
		{ wait "$pid"; echo fail; echo "$1 stopped before the window ended" >&2; cat "$TMP/out" >&2; return; }
	# The group that setsid made ($pid leads it: a background job of a
	# non-interactive shell is no group leader, so setsid does not fork);
	# dash's kill takes no "--".  The process alone if there is no group.
	kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 143 ] || { echo fail; cat "$TMP/out" >&2; return; }
	$REPORT window "$TMP/snaps"
}

# row NAME THREADS BASE BEST [MIN MAX]: a table row, the ratio BEST/BASE;
# a missing or failed figure prints as such.
row() {
	ratio=$(python3 -c "print('%.2f' % ($4 / $3))" 2>/dev/null || echo -)
	range=${6:+$5-$6}
	printf '%-46s %7s %10s %17s %6s\n' "$1" "$2" "$4" "${range:--}" "$ratio"
}

row_header() {
	printf '%-46s %7s %10s %17s %6s\n' "sender" "threads" "pps(best)" "range" "ratio"
}

# -- where the CPU goes -----------------------------------------------------
# PROFILE, when set, names the file where count_rate and window_rate have
# perf record every CPU while they measure (the whole run; the window).

# profiler: the command that runs what is measured under perf, if PROFILE.
profiler() {
	[ -n "${PROFILE:-}" ] && echo "perf record -e cpu-clock -a -g -q -o $PROFILE --"
}

# perf_works: perf can sample every CPU here (cpu-clock: a VM may have no
# hardware counters).
perf_works() {
	command -v perf >/dev/null 2>&1 &&
		perf record -e cpu-clock -a -q -o "$TMP/perf.try" -- true >/dev/null 2>&1
}

# profile_senders "RATE ARGS": each sender of $TMP/senders once more,
# under perf (a round not counted in the table), and report.py's profile
# of it; a line saying why not where perf cannot sample.
profile_senders() {
	if ! perf_works; then
		echo "no profile: perf cannot sample every CPU here"
		return
	fi
	echo "where the CPU went: each sender once more under perf (cpu-clock, both CPUs, call"
	echo "graphs), shares of the samples (the sender's kernel time: under its send calls, under"
	echo "net_rx_action: veth1's receive run in its context, other), and the kernel functions"
	echo "most sampled in the sender and ksoftirqd"
	while IFS='|' read -r label _ cmd; do
		# shellcheck disable=SC2086
		r=$(PROFILE=$TMP/perf.data; $1 $cmd </dev/null)
		if [ "$r" = fail ]; then
			echo "  $label: fail"
		else
			perf script -i "$TMP/perf.data" -F comm,pid,ip,sym,dso >"$TMP/perf.txt" 2>/dev/null
			$REPORT profile "$label" "$TMP/perf.txt" "$TMP/snaps"
		fi
	done <"$TMP/senders"
}

# -- interleaved rounds (vs.sh, replay.sh) --------------------------------
# One sender after another, round after round (A B C A B C ...), so that a
# slow spell of a shared machine falls on every sender alike; report.py
# gives each sender's median over the rounds, its range and spread.

# senders_reset: no senders yet.
senders_reset() {
	: >"$TMP/senders"
}

# sender LABEL THREADS CMD...: one more sender for interleaved (CMD is
# split at blanks again when it runs: no argument of it may hold one).
sender() {
	label=$1 threads=$2
	shift 2
	printf '%s|%s|%s\n' "$label" "$threads" "$*" >>"$TMP/senders"
}

# interleaved "RATE ARGS" ROUNDS: every sender of $TMP/senders in turn,
# ROUNDS times, each measured by RATE ARGS CMD... (window_rate SECONDS, or
# count_rate N); sender I's lines (or "fail") into $TMP/samples.I.
interleaved() {
	rm -f "$TMP"/samples.*
	for _ in $(seq "$2"); do
		i=0
		while IFS='|' read -r _ _ cmd; do
			i=$((i + 1))
			# shellcheck disable=SC2086
			$1 $cmd >>"$TMP/samples.$i" </dev/null
		done <"$TMP/senders"
	done
}

# print_senders I:NAME...: report.py's table of the senders, a ratio
# column "vs NAME" against sender I's median for each I:NAME.
print_senders() {
	$REPORT table "$TMP" "$@"
}

# goal WHAT GOAL I K...: report.py's line for the best of senders K...
# against sender I.
goal() {
	$REPORT goal "$TMP" "$@"
}

# cpu_legend: what the CPU columns of print_senders are.
cpu_legend() {
	echo "CPU per frame that arrived, medians: usr and sys, the sender's own (every process and"
	echo "thread of it) in user space and in the kernel; softirq, the whole machine's softirq time"
	echo "(both CPUs, sampled at the tick): veth1's receive, part of sys where it ran in the"
	echo "sender's context, else in ksoftirqd"
}
