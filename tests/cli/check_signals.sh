#!/bin/sh
# `txpath check` on SIGINT and SIGTERM (issue 8): the first stops the
# search at the next schedule and prints what was explored, marked
# incomplete, then exits 130 (SIGINT) or 143 (SIGTERM); a second signal
# ends it at once, with no report.  (A shell's background job inherits
# SIGINT ignored, which txpath respects: env --default-signal gives it back
# its default first.)
# usage: check_signals.sh path/to/txpath
set -u
TXPATH=$1
out=$(mktemp) err=$(mktemp)
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -f "$out" "$err"' EXIT
pass=0 fail=0

env --default-signal=INT true 2>/dev/null || { echo "SKIP: needs env --default-signal (coreutils 8.31)"; exit 77; }

# A search that takes a minute or more: bound 3 of 2.6.8.  Signals are
# sent once its handlers are in (SigCgt has SIGINT, bit 1, and SIGTERM,
# bit 14; or after 10 s of looking, when the results will tell), then
# after a second of exploring.
start() {
	env --default-signal=INT "$TXPATH" check --era 2.6.8 --bound 3 "$@" >"$out" 2>"$err" </dev/null &
	pid=$!
	tries=0
	while [ "$tries" -lt 200 ] && kill -0 "$pid" 2>/dev/null; do
		caught=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
		[ -n "$caught" ] && [ $((0x$caught & 0x4002)) -eq $((0x4002)) ] && break
		tries=$((tries + 1))
		sleep 0.05
	done
	sleep 1
}

finish() {
	wait "$pid" 2>/dev/null
	rc=$?
	pid=
}

check() {
	what=$1 ok=$2
	if [ "$ok" = yes ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $what (exit $rc); stdout:"
		cat "$out"
		echo "stderr:"
		cat "$err"
	fi
}

has() {
	grep -q -E -- "$1" "$out" && echo yes || echo no
}

# One signal: the report so far, incomplete, 128 + the signal.
for spec in "INT 130" "TERM 143"; do
	set -- $spec
	start
	kill -"$1" "$pid"
	finish
	check "SIG$1: exit $2" "$([ "$rc" -eq "$2" ] && echo yes || echo no)"
	check "SIG$1: 'incomplete' and the schedules explored" \
		"$(has '^explored [0-9]+ schedules in .*, incomplete: interrupted at bound [0-3] of 3')"
	check "SIG$1: the summary lines" "$(has '^no violation in the schedules explored$')"
	check "SIG$1: nothing on stderr" "$([ ! -s "$err" ] && echo yes || echo no)"
done

# The same as JSON.
start --json
kill -INT "$pid"
finish
check "--json, SIGINT: exit 130" "$([ "$rc" -eq 130 ] && echo yes || echo no)"
check "--json, SIGINT: marked interrupted" \
	"$(has '"schedules":[0-9]+,"complete":false,"interrupted":true,"bound_reached":[0-3],')"

# Two signals before it can look (both pending while it is stopped): it
# ends at once, by the signal, with no report.
start
kill -STOP "$pid"
kill -INT "$pid"
kill -TERM "$pid"
kill -CONT "$pid"
finish
check "two signals: ended by one" "$([ "$rc" -eq 130 ] || [ "$rc" -eq 143 ] && echo yes || echo no)"
check "two signals: no report" "$([ ! -s "$out" ] && echo yes || echo no)"

# A worker killed (SIGKILL: the out-of-memory killer, say) cannot say
# so: this process says which, saves the position of what the workers
# explored, and ends with the worker's status (before: the status alone,
# nothing said or saved).
ckpt=$(mktemp -u)
start --jobs 2 --checkpoint "$ckpt"
worker=$(pgrep -P "$pid" | head -1)
[ -n "$worker" ] && kill -KILL "$worker"
finish
check "a worker killed: exit 137" "$([ "$rc" -eq 137 ] && echo yes || echo no)"
check "a worker killed: said" \
	"$(grep -q '^txpath check: worker [12] of 2 was killed by Killed' "$err" && echo yes || echo no)"
check "a worker killed: the position saved" \
	"$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if "pieces" in d["shard"] else 1)' "$ckpt" 2>/dev/null && echo yes || echo no)"
rm -f "$ckpt"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
