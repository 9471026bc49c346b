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
