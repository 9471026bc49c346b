#!/bin/sh
# `txpath recv --file` in bounded memory (issue 8, bug 3): a capture whose
# one flow has seq 0 then 2^34 once made recv allocate a bitmap up to 2^34
# (4.2 GB, 7 s; under a memory limit the frame came out as "bad").  Now it
# finishes within 512 MiB of address space and counts the far frame as out
# of window (too far ahead), in the JSON and in the text report, exit 1.
# usage: recv_window.sh path/to/txpath
set -u
TXPATH=$1
HERE=$(dirname "$0")
command -v python3 >/dev/null 2>&1 || { echo "SKIP: needs python3"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

"$TXPATH" run --driver pcap --file "$TMP/two.pcap" --packets 2 --threads 1 >/dev/null ||
	fail "txpath run exited $?"
python3 "$HERE/pcap_setseq.py" "$TMP/two.pcap" "$TMP/far.pcap" 0 17179869184 ||
	fail "could not write the capture"

# The limit, unless the binary cannot start under one (the sanitizers
# reserve terabytes of address space).
limit=
if (ulimit -v 524288 && "$TXPATH" --help >/dev/null 2>&1); then
	limit="ulimit -v 524288 &&"
else
	echo "note: no memory limit for this build"
fi
recv() {
	sh -c "$limit exec \"\$0\" recv --file \"\$1\" $*" "$TXPATH" "$TMP/far.pcap"
}

recv --json >"$TMP/recv.json" 2>"$TMP/recv.err"
rc=$?
[ "$rc" -eq 1 ] || fail "recv --json exited $rc, want 1: $(cat "$TMP/recv.err")"
python3 - "$TMP/recv.json" <<'PY' || fail "recv --json: $(cat "$TMP/recv.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["frames"] == 2 and d["bad"] == 0 and d["alien"] == 0, d
assert d["received"] == 1 and d["lost"] == 0 and d["duplicated"] == 0, d
assert d["out_of_window"] == 1 and d["too_far_ahead"] == 1 and d["too_old"] == 0, d
assert d["untracked"] == 0, d
assert d["flows"] == [{"flow": 0, "received": 1, "lost": 0, "duplicated": 0,
                       "reordered": 0, "out_of_window": 1, "too_old": 0,
                       "too_far_ahead": 1, "last_seq": 0}], d["flows"]
PY
recv >"$TMP/recv.txt" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "recv exited $rc, want 1: $(cat "$TMP/recv.txt")"
grep -q "out of window 1 (too old 0, too far ahead 1)" "$TMP/recv.txt" ||
	fail "the text report lacks the out-of-window count: $(cat "$TMP/recv.txt")"
echo "PASS: recv --file with seq 0 then 2^34: bounded, 1 frame out of window"
