#!/bin/sh
# Write errors end a command with one clear line on stderr and exit 1,
# never a success: the pcap driver on a full file (/dev/full; a tiny
# tmpfs, root only) stops the run with the frames it could not write
# dropped as tx-error, the file holding exactly the frames counted
# transmitted; the pcap driver on standard output, full or a pipe closed
# early; bench --svg on a full file; and standard output itself, for every
# command.
# usage: write_errors.sh path/to/txpath
set -u
TXPATH=$1
command -v python3 >/dev/null 2>&1 || { echo "SKIP: needs python3"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0

bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	sed 's/^/  stderr: /' "$TMP/err"
}

# expect_write_error WANT-IN-MESSAGE -- ARGS...: exit 1, exactly one line on
# stderr with WANT; stdout is $TMP/out unless ARGS redirect it themselves.
expect_write_error() {
	want=$1
	shift
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	lines=$(wc -l <"$TMP/err")
	if [ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -q -- "$want" "$TMP/err"; then
		pass=$((pass + 1))
	else
		bad "$* -> exit $rc, $lines stderr lines (want 1, one line with '$want')"
	fi
}

# The run's JSON: every packet accounted, some dropped as tx-error, and
# (with a file) exactly the transmitted ones in the file, readable.
check_accounting() {
	if python3 - "$TMP/out" "$@" <<'PY'; then
import json, os, sys
d = json.load(open(sys.argv[1]))
drops = d["dropped"]
assert d["submitted"] == d["transmitted"] + sum(drops.values()), d
assert d["accounted"] and d["lost"] == 0, d
assert drops["tx-error"] > 0, drops
assert sum(drops.values()) == drops["tx-error"], drops
if len(sys.argv) > 3:
    path, size = sys.argv[2], int(sys.argv[3])
    frames = (os.path.getsize(path) - 24) / (16 + size)
    assert frames == d["transmitted"] > 0, (frames, d["transmitted"])
else:
    assert d["transmitted"] == 0, d
PY
		pass=$((pass + 1))
	else
		bad "accounting of: $*"
	fi
}

# -- the pcap driver on /dev/full: nothing written, nothing transmitted ----
for lock in core lltx; do
	expect_write_error "txpath run: /dev/full: write error (No space left on device)" \
		"$TXPATH" run --driver pcap --file /dev/full --lock $lock --threads 2 \
		--packets 20000 --quiet --json
	check_accounting
done
# A --seconds run too.
expect_write_error "/dev/full: write error" \
	timeout 30 "$TXPATH" run --driver pcap --file /dev/full --seconds 1 --quiet --json
check_accounting

# stdout_error RC CAUSE SENT WHAT: a run of --file - ended with exit 1
# (RC), its report (JSON) on stderr, then the one line naming standard
# output, CAUSE and the count the report has; SENT: the frames it counts
# transmitted, "none" or "some" (any number).
stdout_error() {
	if [ "$1" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 2 ] &&
		python3 - "$TMP/err" "$2" "$3" <<'PY'; then
import json, sys
report, line = open(sys.argv[1]).read().splitlines()
d = json.loads(report)
n = d["dropped"]["tx-error"]
assert n > 0 and d["accounted"], d
assert sys.argv[3] != "none" or d["transmitted"] == 0, d
want = "txpath run: standard output: write error (%s); %d packets dropped as tx-error" \
       % (sys.argv[2], n)
assert line == want, (line, want)
PY
		pass=$((pass + 1))
	else
		bad "$4 -> exit $1 (want 1, the report and one line: write error ($2))"
	fi
}

# The pcap driver on standard output (--file -), full.
sh -c '"$0" run --driver pcap --file - --packets 1000 --quiet --json >/dev/full' "$TXPATH" \
	2>"$TMP/err"
stdout_error $? "No space left on device" none "run --driver pcap --file - >/dev/full"
# ... into a pipe whose reader goes away (| head): not a silent death by
# SIGPIPE (exit 141) but the same write error, Broken pipe.  More frames
# than the pipe holds, so that the writes after head's exit fail.
{ "$TXPATH" run --driver pcap --file - --packets 200000 --quiet --json 2>"$TMP/err"
	echo $? >"$TMP/rc"; } | head -c 1000 >/dev/null
stdout_error "$(cat "$TMP/rc")" "Broken pipe" some "run --driver pcap --file - | head -c 1000"

# -- bench --svg on a full file: the error, and no "chart:" line -----------
BENCH="bench --quick --no-sim --threads 1 --seconds 0.01"
# shellcheck disable=SC2086
expect_write_error "txpath bench: /dev/full: write error: No space left on device" \
	"$TXPATH" $BENCH --svg /dev/full
if grep -q "chart:" "$TMP/out"; then
	bad "bench --svg /dev/full printed a chart line"
else
	pass=$((pass + 1))
fi
# A chart that cannot be opened fails before the runs.
# shellcheck disable=SC2086
expect_write_error "cannot write $TMP/none/x.svg: No such file or directory" \
	"$TXPATH" $BENCH --svg "$TMP/none/x.svg"

# -- standard output full, for every command ---------------------------------
"$TXPATH" run --driver pcap --file "$TMP/small.pcap" --packets 100 --quiet >/dev/null ||
	bad "could not write $TMP/small.pcap"
STDOUT="txpath: write error on standard output: No space left on device"
for args in "--help" "run --help" "run --packets 1000 --threads 2" \
	"run --packets 1000 --threads 2 --json" "demo --packets 1000 --threads 2" \
	"demo --packets 1000 --threads 2 --json" "$BENCH" "recv --file $TMP/small.pcap" \
	"recv --file $TMP/small.pcap --json" "check --era 2.6.11 --bound 1 --json"; do
	# shellcheck disable=SC2086
	expect_write_error "$STDOUT" sh -c '"$0" "$@" >/dev/full' "$TXPATH" $args
done

# -- a tiny tmpfs fills mid-run: the file keeps what was counted sent --------
# in_tmpfs DIR COMMAND...: COMMAND in a mount namespace of its own with a
# 64 KiB tmpfs on DIR; DIR/*.pcap are copied out to DIR.*.pcap.
in_tmpfs() {
	unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1" || exit 3
		d=$1; shift; "$@"; rc=$?
		for f in "$d"/*.pcap; do cp "$f" "$d.${f##*/}"; done; exit $rc' sh "$@"
}
mkdir "$TMP/mnt"
if [ "$(id -u)" -ne 0 ] || ! in_tmpfs "$TMP/mnt" true 2>/dev/null; then
	echo "note: skipped the tmpfs cases (need root, unshare and a tmpfs mount)"
else
	SIZE=100
	for lock in core lltx; do
		expect_write_error "txpath run: $TMP/mnt/x.pcap: write error (No space left on device)" \
			in_tmpfs "$TMP/mnt" "$TXPATH" run --driver pcap --file "$TMP/mnt/x.pcap" \
			--lock $lock --threads 2 --packets 20000 --size $SIZE --quiet --json
		check_accounting "$TMP/mnt.x.pcap" $SIZE
		# What is in the file is whole: each frame valid, none twice.
		# Not in order, nor without gaps: under LLTX two contexts may post
		# a flow's packets out of order (2.6.11's harmless race), so the
		# cut can fall between them, and recv says so (its exit status).
		"$TXPATH" recv --file "$TMP/mnt.x.pcap" --json >"$TMP/recv.json"
		if python3 - "$TMP/recv.json" "$TMP/out" <<'PY'; then
import json, sys
r, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert r["frames"] == r["received"] == d["transmitted"], (r, d["transmitted"])
assert r["bad"] == 0 and r["duplicated"] == 0 and r["alien"] == 0, r
PY
			pass=$((pass + 1))
		else
			bad "recv --file on the cut file: $(tr -d '\n' <"$TMP/recv.json" | cut -c1-400)"
		fi
		rm -f "$TMP/mnt.x.pcap"
	done
	# The demo stops at the row whose file filled, before the next.
	expect_write_error "txpath demo: $TMP/mnt/d.2.6.8.pcap: write error (No space left on device)" \
		in_tmpfs "$TMP/mnt" "$TXPATH" demo --driver pcap --file "$TMP/mnt/d.pcap" \
		--packets 20000 --threads 2
	if grep -q '^2\.6\.8 ' "$TMP/out" && ! grep -q '^2\.6\.9 ' "$TMP/out"; then
		pass=$((pass + 1))
	else
		bad "demo went on after the row whose file filled"
		cat "$TMP/out"
	fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
