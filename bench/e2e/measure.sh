# bench/e2e/measure.sh - what the e2e benches share, sourced after
# tests/e2e/lib.sh and veth_setup: the frame, the senders' commands, how
# they measure (what arrived at the peer veth1 over wall time, RUNS
# times) and how they print a row.

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

now() { date +%s.%N; }

# best_of RATE CMD...: RATE CMD... RUNS times (RATE echoes frames per
# second, or "fail"); echoes "BEST MIN MAX", or "fail" at the first failure.
best_of() {
	rates=""
	for _ in $(seq "$RUNS"); do
		r=$("$@")
		[ "$r" = fail ] && { echo fail; return; }
		rates="$rates $r"
	done
	python3 -c 'import sys; r = [int(x) for x in sys.argv[1:]]; print(max(r), min(r), max(r))' $rates
}

# count_rate N CMD...: CMD sends N frames; N over CMD's wall time, "fail"
# if it exited non-zero or N did not all arrive.
count_rate() {
	n=$1
	shift
	a=$(rx_packets veth1)
	t0=$(now)
	"$@" >"$TMP/out" 2>&1 || { echo fail; cat "$TMP/out" >&2; return; }
	t1=$(now)
	b=$(rx_packets veth1)
	[ $((b - a)) -eq "$n" ] || { echo "fail"; echo "$* delivered $((b - a))" >&2; return; }
	python3 -c "print(round($n / ($t1 - $t0)))"
}

# measure N CMD...: best_of count_rate, the best figure alone.
measure() {
	set -- $(best_of count_rate "$@")
	echo "$1"
}

# window_rate SECONDS CMD...: CMD (a program, not a shell function) in
# the background, in a process group of its own, sending until stopped;
# the frames that arrived at veth1 over SECONDS of wall time, from WARM
# seconds after the first arrived (start-up left out: DPDK's EAL takes a
# second or more); then SIGTERM to the group (trafgen --cpus N's children
# ignore their parent's), and CMD must exit 0 or 143 (SIGTERM), having
# sent until then.  "fail" otherwise.
window_rate() {
	secs=$1
	shift
	a=$(rx_packets veth1)
	setsid "$@" >"$TMP/out" 2>&1 &
	pid=$!
	while [ "$(rx_packets veth1)" = "$a" ]; do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; echo fail; cat "$TMP/out" >&2; return; }
		sleep 0.05
	done
	sleep "$WARM"
	a=$(rx_packets veth1)
	t0=$(now)
	sleep "$secs"
	b=$(rx_packets veth1)
	t1=$(now)
	kill -0 "$pid" 2>/dev/null ||
		{ wait "$pid"; echo fail; echo "$1 stopped before the window ended" >&2; cat "$TMP/out" >&2; return; }
	# The group that setsid made ($pid leads it: a background job of a
	# non-interactive shell is no group leader, so setsid does not fork);
	# dash's kill takes no "--".  The process alone if there is no group.
	kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 143 ] || { echo fail; cat "$TMP/out" >&2; return; }
	python3 -c "print(round(($b - $a) / ($t1 - $t0)))"
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

# -- interleaved rounds (vs.sh, replay.sh) --------------------------------
# One sender after another, round after round (A B C A B C ...), so that a
# slow spell of a shared machine falls on every sender alike, and each
# sender's median over the rounds, with its range and spread.

# sender LABEL CMD...: one more sender for interleaved (CMD is split at
# blanks again when it runs: no argument of it may hold one).
sender() {
	label=$1
	shift
	printf '%s|%s\n' "$label" "$*" >>"$TMP/senders"
}

# interleaved "RATE ARGS" ROUNDS: every sender of $TMP/senders in turn,
# ROUNDS times, each measured by RATE ARGS CMD... (window_rate SECONDS, or
# count_rate N); sender I's figures (or "fail") into $TMP/samples.I.
interleaved() {
	rm -f "$TMP"/samples.*
	for _ in $(seq "$2"); do
		i=0
		while IFS='|' read -r _ cmd; do
			i=$((i + 1))
			# shellcheck disable=SC2086
			$1 $cmd >>"$TMP/samples.$i" </dev/null
		done <"$TMP/senders"
	done
}

# summary I: "MEDIAN MIN MAX SPREAD" of sender I's figures, SPREAD being
# (max - min) / median in %; "fail" if a round failed.
summary() {
	python3 -c 'import statistics, sys
v = open(sys.argv[1]).read().split()
if not v or "fail" in v:
    print("fail")
else:
    r = [int(x) for x in v]
    m = statistics.median(r)
    print(round(m), min(r), max(r), "%.0f%%" % (100 * (max(r) - min(r)) / m if m else 0))' \
		"$TMP/samples.$1"
}

# print_senders THREADS: a row per sender of $TMP/senders, the ratio of
# its median to the first sender's.
print_senders() {
	base=$(summary 1)
	base=${base%% *}
	i=0
	while IFS='|' read -r label _; do
		i=$((i + 1))
		# shellcheck disable=SC2046
		median_row "$label" "$1" "$base" $(summary "$i")
	done <"$TMP/senders"
}

# median_row NAME THREADS BASE MEDIAN [MIN MAX SPREAD]: a row, the ratio
# MEDIAN/BASE; a failed figure prints as such.
median_row() {
	ratio=$(python3 -c "print('%.2f' % ($4 / $3))" 2>/dev/null || echo -)
	range=${6:+$5-$6}
	printf '%-46s %7s %10s %17s %6s %6s\n' "$1" "$2" "$4" "${range:--}" "${7:--}" "$ratio"
}

median_header() {
	printf '%-46s %7s %10s %17s %6s %6s\n' "sender" "threads" "pps(med)" "range" "spread" "ratio"
}
