# bench/e2e/measure.sh - how the e2e benches measure, sourced after
# tests/e2e/lib.sh: what arrived at the peer veth1 over a command's wall
# time.

now() { date +%s.%N; }

# measure N CMD...: frames per second that arrived on veth1 while CMD ran,
# best of RUNS; "fail" if a run exited non-zero or did not deliver N.
measure() {
	n=$1 best=0
	shift
	for _ in $(seq "$RUNS"); do
		a=$(rx_packets veth1)
		t0=$(now)
		"$@" >"$TMP/out" 2>&1 || { echo fail; cat "$TMP/out" >&2; return; }
		t1=$(now)
		b=$(rx_packets veth1)
		[ $((b - a)) -eq "$n" ] || { echo "fail"; echo "$* delivered $((b - a))" >&2; return; }
		best=$(python3 -c "print(max($best, round($n / ($t1 - $t0))))")
	done
	echo "$best"
}
