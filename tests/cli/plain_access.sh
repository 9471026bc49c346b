#!/bin/sh
# Plain accesses under txpath check (issue 23), on plugins compiled with
# the check build's instrumentation (tests/plugins/CMakeLists.txt): a
# plain index written after its unlock is a data race at once, named by
# both accesses, and replays; the same index written under the lock is
# clean; a driver that reads its own released index with a plain load
# (examples/drivers/modern_locked.c) is clean under tso and arm; a
# statistic read without its lock races, unless through data_race() (or
# written and read through volatile pointers);
# a driver that writes more than the race detector keeps is warned of;
# --plain-points makes the plugin's plain accesses (or a source file's)
# scheduling points: more schedules, the same verdict.
# usage: plain_access.sh path/to/txpath PLUGIN_DIR PLAIN_FLAGS
# PLAIN_FLAGS: the instrumentation's; empty in the sanitizer builds,
# which see the seam only: skipped (77).
set -u
TXPATH=$1 PLUGINS=$2 FLAGS=$3
[ -n "$FLAGS" ] || exit 77
. "$(dirname "$0")/lib.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
detail=$out

# run_check EXPECTED_RC ARGS...: txpath check ARGS, stdout in $out.
run_check() {
	want=$1
	shift
	"$TXPATH" check "$@" >"$out" 2>&1
	rc=$?
	check "check $* exits $want (got $rc)" '[ "$rc" -eq "$want" ]'
}

run_check 1 --driver-so "$PLUGINS/plain_index_race.so" --bound 1
check "a data race at 0 preemptions" 'grep -q "^VIOLATION data-race after 0 preemptions" "$out"'
check "the write after the unlock named" \
	'grep -q "a plain write by .* in drv_start_xmit (plain_index.c:[0-9]*)" "$out"'
check "the completion's read named" 'grep -q "read by .* in drv_poll (plain_index.c:" "$out"'
schedule=$(sed -n 's/^schedule: //p' "$out")
# The same, but for where the word is (the address differs per process).
verdict() {
	grep "^VIOLATION" "$out" | sed 's/0x[0-9a-f]*/ADDR/'
}
first=$(verdict)
run_check 1 --driver-so "$PLUGINS/plain_index_race.so" --replay "$schedule"
check "the replay finds it again" '[ "$(verdict)" = "$first" ]'

# A driver writer's build, in one command (gcc would link libtsan into
# the plugin without --libs' -nodefaultlibs, and it would not load).
so=$(mktemp --suffix .so)
# shellcheck disable=SC2046
${CC:-cc} -O2 $("$TXPATH" config --cflags) -DAFTER_UNLOCK -o "$so" \
	"$(dirname "$0")/../plugins/plain_index.c" $("$TXPATH" config --libs)
check "built with config's flags" '[ $? -eq 0 ]'
run_check 1 --driver-so "$so" --bound 1
check "... and its race found" 'grep -q "^VIOLATION data-race after 0 preemptions" "$out"'
# A statistic written and read through volatile pointers (ACCESS_ONCE,
# the kernel's READ_ONCE and WRITE_ONCE): marked, no race, built the same
# way (before, config's flags left volatile accesses plain: a data race).
# shellcheck disable=SC2046
${CC:-cc} -O2 $("$TXPATH" config --cflags) -Werror -DSTATS_RACE -DSTATS_VOLATILE -o "$so" \
	"$(dirname "$0")/../plugins/plain_index.c" $("$TXPATH" config --libs)
check "volatile accesses, built with config's flags" '[ $? -eq 0 ]'
run_check 0 --driver-so "$so" --bound 1
check "... is no data race" 'grep -q "^no violation$" "$out"'
rm -f "$so"

# Under tso and arm with the search's reduction (its verdicts are the full
# search's: test_reduce), a third of the time; arm at bound 1 (bound 2,
# 176,182 schedules, is 15 s).
for mm in sc tso arm; do
	reduce= bound=2
	[ $mm = sc ] || reduce=--reduce
	[ $mm = arm ] && bound=1
	run_check 0 --driver-so "$PLUGINS/plain_index.so" --bound $bound --memory-model $mm $reduce
	check "under the lock, $mm: no violation" 'grep -q "^no violation$" "$out"'
done
for mm in tso arm; do
	run_check 0 --driver-so "$PLUGINS/plain_modern.so" --producers 1 --packets 3 --bound 2 \
		--memory-model $mm
	check "own released index read plainly, $mm: no violation" 'grep -q "^no violation$" "$out"'
done

run_check 1 --driver-so "$PLUGINS/plain_stats_race.so" --bound 1
check "a statistic read without its lock: a data race" \
	'grep -q "^VIOLATION data-race" "$out" && grep -q "in count_early_poll" "$out"'
run_check 0 --driver-so "$PLUGINS/plain_stats_marked.so" --bound 1
check "... through data_race(): none" 'grep -q "^no violation$" "$out"'

# A driver that writes more than the race detector keeps in an execution:
# a warning that races were not looked for past it, in the text and the
# JSON (before: "no violation", nothing said); none for one that does not.
unkept="touched more memory than the race detector keeps"
run_check 0 --driver-so "$PLUGINS/plain_big.so" --bound 0
check "64 KiB written: the warning" 'grep -q "^warning: some executions $unkept" "$out"'
run_check 0 --driver-so "$PLUGINS/plain_big.so" --bound 0 --json
check "... in the JSON" \
	'python3 -c "import json, sys; sys.exit(not any(\"$unkept\" in w for w in json.load(open(sys.argv[1]))[\"warnings\"]))" "$out"'
run_check 0 --driver-so "$PLUGINS/plain_index.so" --bound 0
check "... none without" '! grep -q "$unkept" "$out"'

# schedules ARGS...: the count of a clean search of plain_index.so (at
# bound 1: 996 schedules, and 1,728 with either --plain-points).
schedules() {
	"$TXPATH" check --driver-so "$PLUGINS/plain_index.so" --bound 1 --json "$@" >"$out" 2>&1 &&
		python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["violation"] is None and j["complete"]; print(j["schedules"], j["plain_points"])' "$out"
}
seam=$(schedules) plugin=$(schedules --plain-points driver) file=$(schedules --plain-points plain_index.c)
check "--plain-points driver: more schedules ($seam / $plugin)" \
	'[ "${seam% *}" -lt "${plugin% *}" ] && [ "${plugin#* }" = driver ] && [ "${seam#* }" = None ]'
check "--plain-points plain_index.c: more schedules ($seam / $file)" \
	'[ "${seam% *}" -lt "${file% *}" ] && [ "${file#* }" = plain_index.c ]'
# The real drivers' ring with its own plain accesses as points: clean.
# A plain access to the context's own stack was one, and its word, noted
# as read, was rewritten by the next call's return address: the idle
# completion context never waited, and a livelock was reported after 115
# schedules.
run_check 0 --driver ring --plain-points ring.c --bound 1
check "the ring, ring.c's accesses as points: no violation" 'grep -q "^no violation$" "$out"'
run_check 2 --driver-so "$PLUGINS/plain_index.so" --plain-points nosuch.c
check "an unknown file: one line" 'grep -q "plain-points nosuch.c: no such source file" "$out" && [ "$(wc -l <"$out")" -eq 1 ]'
run_check 2 --era 2.6.18 --plain-points driver
check "driver without a plugin" 'grep -q "no --driver-so" "$out"'

echo "plain_access: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
