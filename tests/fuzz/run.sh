#!/bin/sh
# Run every libFuzzer target of a TXP_FUZZ build: first once over each
# input of its checked-in corpus (tests/fuzz/corpus/NAME: the seeds and
# every input that once found a bug, so a fixed bug stays fixed), then
# fuzzing for SECONDS from a scratch copy of that corpus (the repository's
# is never written).  Prints the executions per target and in all; an
# input that fails is kept in BUILD/fuzz-artifacts/NAME/.
# usage: run.sh BUILD SECONDS
set -u
build=$1 seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# UBSan's reports with the stack of the undefined behaviour.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
total=0 failed=""

# fail NAME WHAT LOG: report a target's failure with the end of its log.
fail() {
	echo "fuzz_$1: FAILED $2 (log: $3)"
	grep -E "^Running: " "$3" | tail -1
	grep -E "ERROR|SUMMARY|property failed|Test unit written|^    #[0-9]+ .* in " "$3" |
		grep -vE "in (fuzzer::|__sanitizer|abort|raise|__pthread|main|_start|__libc)" | head -20
	failed="$failed $1"
}

targets=$(find "$build/tests/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
if [ -z "$targets" ]; then
	echo "run.sh: no fuzz targets in $build/tests/fuzz (build the fuzz-targets target)" >&2
	exit 1
fi
for bin in $targets; do
	name=${bin##*/fuzz_}
	corpus=$here/corpus/$name
	art=$build/fuzz-artifacts/$name
	log=$build/fuzz-logs/$name.log
	mkdir -p "$art" "$build/fuzz-logs" "$scratch/$name"
	if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus")" ]; then
		echo "fuzz_$name: FAILED: no seed corpus in $corpus"
		failed="$failed $name"
		continue
	fi
	# The checked-in inputs, each once.
	if ! "$bin" -artifact_prefix="$art/" "$corpus"/* >"$log" 2>&1; then
		fail "$name" "on its checked-in corpus" "$log"
		continue
	fi
	cp "$corpus"/* "$scratch/$name/"
	"$bin" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$art/" "$scratch/$name" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	execs=${execs:-0}
	total=$((total + execs))
	if [ "$rc" -ne 0 ]; then
		fail "$name" "after $execs executions" "$log"
	else
		echo "fuzz_$name: $execs executions in ${seconds}s, nothing found"
	fi
done
echo "fuzz: $total executions in all"
if [ -n "$failed" ]; then
	echo "fuzz: FAILED:$failed (add the input to tests/fuzz/corpus/NAME once fixed)"
	exit 1
fi
