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

# alive PID: running, not a zombie.
alive() {
	[ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# finish PID LIMIT: wait for PID, LIMIT seconds at most; its exit status
# in rc, or rc=none when it had to be killed.
finish() {
	for _ in $(seq $(($2 * 10))); do
		alive "$1" || break
		sleep 0.1
	done
	if alive "$1"; then
		kill -KILL "$1"
		wait "$1"
		rc=none
	else
		wait "$1"
		rc=$?
	fi
}
