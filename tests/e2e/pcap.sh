#!/bin/sh
# End to end into a pcap file: `txpath run --driver pcap --lock LOCK` with
# 2 threads writes N frames; the file is read back twice: by `txpath recv
# --file` (checksums, pattern, per-flow sequence) and by an independent
# reader here (record count, lengths, addresses, each (flow, seq) once).
# Needs no privilege and no network.
# usage: pcap.sh path/to/txpath core|lltx
set -u
TXPATH=$1 LOCK=$2
N=20000
SIZE=128
command -v python3 >/dev/null 2>&1 || { echo "SKIP: needs python3"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

"$TXPATH" run --driver pcap --file "$TMP/out.pcap" --lock "$LOCK" --threads 2 \
	--packets $N --size $SIZE --dst-ip 198.19.1.2 --dst-port 4321 --json \
	>"$TMP/run.json" || fail "txpath run exited $?"
python3 - "$TMP/run.json" $N <<'PY' || fail "run accounting"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert d["submitted"] == n and d["transmitted"] == n, d
assert sum(d["dropped"].values()) == 0 and d["bug_logs"] == 0 and d["accounted"], d
PY
"$TXPATH" recv --file "$TMP/out.pcap" --json >"$TMP/recv.json" || fail "txpath recv --file exited $?"
python3 - "$TMP/recv.json" "$TMP/out.pcap" $N $SIZE <<'PY' || fail "frames in the file"
import json, struct, sys
r = json.load(open(sys.argv[1])); path, n, size = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
assert r["frames"] == n and r["received"] == n, r
assert r["lost"] == 0 and r["duplicated"] == 0 and r["bad"] == 0 and r["alien"] == 0, r
assert len(r["flows"]) == 2, r
raw = open(path, "rb").read()
magic, vmaj, vmin, _, _, snap, link = struct.unpack_from("<IHHiIII", raw, 0)
assert magic == 0xa1b2c3d4 and link == 1, (hex(magic), link)   # microseconds, Ethernet
off, seen = 24, set()
while off < len(raw):
    _, _, caplen, length = struct.unpack_from("<IIII", raw, off); off += 16
    f = raw[off:off + caplen]; off += caplen
    assert caplen == length == size, (caplen, length)
    assert f[12:14] == b"\x08\x00" and f[23] == 17, "not IPv4/UDP"
    assert f[30:34] == bytes([198, 19, 1, 2]), "destination address"
    assert struct.unpack(">H", f[36:38])[0] == 4321, "destination port"
    assert struct.unpack(">I", f[42:46])[0] == 0x54585031, "magic"
    flow, hi, lo = struct.unpack(">III", f[46:58])
    key = (flow, hi << 32 | lo)
    assert key not in seen, ("duplicate", key)
    seen.add(key)
want = {(fl, s) for fl in (0, 1) for s in range(n // 2)}
assert seen == want, ("missing", len(want - seen), "extra", len(seen - want))
PY
echo "PASS: pcap, lock $LOCK, 2 threads: $N frames in the file, each once and valid"

# --file -: the frames on standard output, whole; the report on standard
# error (text, and JSON with --json); exit 0.
"$TXPATH" run --driver pcap --file - --lock "$LOCK" --threads 2 --packets 1000 \
	>"$TMP/stdout.pcap" 2>"$TMP/stdout.txt"
rc=$?
[ $rc -eq 0 ] || { cat "$TMP/stdout.txt"; fail "--file -: exit $rc"; }
grep -q "submitted 1000 = transmitted 1000 + dropped 0" "$TMP/stdout.txt" ||
	{ cat "$TMP/stdout.txt"; fail "--file -: no report on standard error"; }
"$TXPATH" run --driver pcap --file - --lock "$LOCK" --threads 2 --packets 1000 --json \
	>"$TMP/stdout.pcap" 2>"$TMP/stdout.json"
rc=$?
[ $rc -eq 0 ] || { cat "$TMP/stdout.json"; fail "--file - --json: exit $rc"; }
"$TXPATH" recv --file "$TMP/stdout.pcap" --json >"$TMP/recv.json" ||
	fail "txpath recv --file of --file -'s output exited $?"
python3 - "$TMP/stdout.json" "$TMP/recv.json" <<'PY' || fail "--file -: report or frames"
import json, sys
d, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["transmitted"] == 1000 and d["accounted"], d
assert r["frames"] == r["received"] == 1000 and r["bad"] == 0 and r["lost"] == 0, r
PY
echo "PASS: pcap, lock $LOCK, --file -: 1000 frames on standard output, the report on standard error"
