#!/bin/sh
# `txpath bench --quick`: the smoke run keeps working (no judgement on
# speed): every case runs and accounts for its packets, the JSON has a row
# per case with every field, the chart is drawn, bad usage exits 2; the
# rte_ring row measured or skipped, as the build configured it.
# usage: bench_quick.sh path/to/txpath measured|skipped
set -u
TXPATH=$1
RTE_RING=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
. "$(dirname "$0")/lib.sh"

"$TXPATH" bench --quick --threads 2 --json --svg "$dir/b.svg" >"$dir/out" 2>"$dir/err"
rc=$?
check "bench --quick exits 0 (got $rc: $(cat "$dir/err"))" '[ "$rc" -eq 0 ]'
for config in mutex mutex-burst core/concurrent lltx/concurrent core/exclusive lltx/exclusive \
	core/excl/mq 6.x core/excl/defer core/nolock core/noqueue lltx/noqueue; do
	for t in 1 2; do
		check "a null row for $config at $t threads" \
			"grep -q '\"config\":\"$config\",\"driver\":\"null\",\"threads\":$t,' '$dir/out'"
	done
done
check "sim rows" "grep -q '\"config\":\"lltx/concurrent\",\"driver\":\"sim\",\"threads\":2,' '$dir/out'"
check "every row has its fields" \
	"[ \$(grep -o '\"mpps\":[0-9.e+-]*,\"ns_per_packet\":[0-9.e+-]*,\"ratio_vs_mutex_burst\":[0-9.e+-]*,\"spread\":[0-9.e+-]*,\"cpu_ns_per_packet\":[0-9.e+-]*}' '$dir/out' | wc -l) -eq \$(grep -o '\"config\":' '$dir/out' | wc -l) ]"
check "mutex-burst is 1x itself" "grep -q '\"config\":\"mutex-burst\",\"driver\":\"null\",\"threads\":1,\"mpps\":[0-9.e+-]*,\"ns_per_packet\":[0-9.e+-]*,\"ratio_vs_mutex_burst\":1,' '$dir/out'"
check "ratios" "grep -q '\"ratio\":\"lltx/core, concurrent\",\"driver\":\"null\",\"threads\":1,\"value\":' '$dir/out'"
check "the chart is an SVG with lines" "head -c 4 '$dir/b.svg' | grep -q '<svg' && grep -q '<polyline' '$dir/b.svg' && tail -1 '$dir/b.svg' | grep -q '</svg>'"

"$TXPATH" bench --quick --threads 1 --no-sim --burst 8 >"$dir/out" 2>"$dir/err"
rc=$?
check "table run exits 0 (got $rc)" '[ "$rc" -eq 0 ]'
check "table header" "grep -q '^config  *driver  *threads  *Mpps  *ns/pkt  *vs mutex-burst  *spread' '$dir/out'"
check "the burst size in the header" "head -1 '$dir/out' | grep -q 'every case in bursts of 8,'"
# rte_ring: measured where the build found DPDK, else said absent.
if [ "$RTE_RING" = measured ]; then
	check "an rte_ring row measured" "grep -Eq '^rte_ring  *null  *1  *[0-9]' '$dir/out'"
else
	check "an rte_ring row skipped" "grep -Eq '^rte_ring  *null  *1  *skipped: ' '$dir/out'"
fi
check "no sim rows with --no-sim" "! grep -q ' sim ' '$dir/out'"

"$TXPATH" bench --burst 0 >"$dir/out" 2>"$dir/err"
check "--burst 0 is bad usage" '[ $? -eq 2 ] && grep -q -- "--burst" "$dir/err" && [ ! -s "$dir/out" ]'
"$TXPATH" bench --bogus >"$dir/out" 2>"$dir/err"
check "unknown option is bad usage" '[ $? -eq 2 ]'
"$TXPATH" bench --help >"$dir/out" 2>"$dir/err"
check "--help" '[ $? -eq 0 ] && grep -q "usage: txpath bench" "$dir/out"'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
