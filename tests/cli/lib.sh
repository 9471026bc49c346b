# lib.sh - what the command-line tests share: a tally of checks, and
# waiting for a txpath started in the background.  Sourced by the tests.

pass=0 fail=0

# check WHAT EXPR: EXPR (evaluated) must hold; on failure say WHAT, and
# the start of the file $detail if one is named.
check() {
	if eval "$2"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $1"
		[ -n "${detail:-}" ] && [ -r "$detail" ] && sed 's/^/  | /' "$detail" | head -5
	fi
	return 0
}

# The binary under test, to tell its processes from others: the shell
# reaps a background job as soon as it ends, and its number may then be
# given to someone else's process.
TXPATH_EXE=$(readlink -f "$TXPATH")

# alive PID: txpath (started in the background), running, not a zombie.
alive() {
	[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$TXPATH_EXE" ] &&
		! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# finish PID LIMIT: wait for PID, LIMIT seconds at most; its exit status
# in rc, or rc=none when it had to be killed (what its threads were doing
# is printed first).
finish() {
	for _ in $(seq $(($2 * 10))); do
		alive "$1" || break
		sleep 0.1
	done
	if alive "$1"; then
		echo "still running $2 s after the signal: $(tr '\0' ' ' <"/proc/$1/cmdline")"
		grep -E '^(SigPnd|ShdPnd|SigBlk|SigCgt)' "/proc/$1/status" | tr '\n' ' '
		echo
		for t in "/proc/$1"/task/*; do
			echo "  thread $(cat "$t/comm"): state $(cut -d' ' -f3 "$t/stat"), in $(cat "$t/wchan")," \
				"pending $(sed -n 's/^SigPnd:[[:space:]]*//p' "$t/status")"
		done
		kill -KILL "$1"
		wait "$1"
		rc=none
	else
		wait "$1"
		rc=$?
	fi
}

# run_check EXPECTED_RC ARGS...: txpath check ARGS, stdout in $out,
# stderr in $err (the sourcing test's files).
run_check() {
	want=$1
	shift
	"$TXPATH" check "$@" >"$out" 2>"$err"
	rc=$?
	check "check $* exits $want (got $rc)" '[ "$rc" -eq "$want" ]'
}

# A proof: exit 0, no violation, the bound searched in full.
proven() {
	run_check 0 "$@"
	check "check $*: no violation" 'grep -q "^no violation$" "$out"'
	check "check $*: complete" 'grep -q "the search within the bound is complete" "$out"'
}

# exact_run WHAT N: txpath run's JSON report in $out, of N packets: every
# one accounted (transmitted, or dropped for a reason), none lost or
# duplicated, some transmitted, the queue stopped and woken.
exact_run() {
	exact_n=$2
	check "$1: accounted, none lost or duplicated, stopped and woken" \
		'[ "$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); dr = d[\"dropped\"]; print(d[\"accounted\"] and d[\"lost\"] == 0 and d[\"duplicated\"] == 0 and d[\"transmitted\"] + sum(dr.values()) == int(sys.argv[2]) and d[\"transmitted\"] > 0 and d[\"stops\"] > 0 and d[\"wakes\"] > 0)" "$out" "$exact_n")" = True ]'
}
