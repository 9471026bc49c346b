"""replay_captures.py KIND OUT: a pcap capture (classic format, microseconds,
Ethernet) for tests/e2e/replay.sh, written to OUT.
  flows  4000 UDP frames over 64 flows, 1 ms apart, their seconds crossing
         2^31 (2038: libpcap hands such seconds over negative)
  vlan   IPv4 UDP and TCP frames untagged, under one 802.1Q tag and under
         two (802.1ad outside), checksums right, and a record of zero
         bytes after each kind (3)
replay_captures.py check-vlan FILE IP-SRC IP-DST: every frame of the capture
FILE is IPv4 from IP-SRC to IP-DST, both checksums right, and frames with
no tag, one and two are among them; else it fails saying which.
Addresses in 198.18.0.0/15; the frames go nowhere but the test's veth."""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from pcap_setseq import csum  # noqa: E402  (the Internet checksum)


def ipv4(proto, sport, dport, ident, payload):
    """An IPv4 packet 198.18.7.1 -> 198.18.7.2, both checksums right."""
    src, dst = bytes([198, 18, 7, 1]), bytes([198, 18, 7, 2])
    if proto == 17:
        l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
        at = 6
    else:
        l4 = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 0x50, 0x18, 512, 0, 0) + payload
        at = 16
    c = csum(src + dst + struct.pack("!BBH", 0, proto, len(l4)) + l4)
    l4 = l4[:at] + struct.pack("!H", c) + l4[at + 2:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), ident, 0, 64, proto, 0, src, dst)
    return ip[:10] + struct.pack("!H", csum(ip)) + ip[12:] + l4


def frame(packet, tags=()):
    eth = bytes([2, 0, 0, 0, 7, 2, 2, 0, 0, 0, 7, 1])
    for tpid, vid in tags:
        eth += struct.pack("!HH", tpid, vid)
    return eth + b"\x08\x00" + packet


def flows():
    t0 = (1 << 31) - 2  # two seconds before 2^31
    for i in range(4000):
        us = t0 * 1000000 + i * 1000
        yield us // 1000000, us % 1000000, frame(ipv4(17, 1000 + i % 64, 9, i, bytes(18)))


def vlan():
    tag_sets = [(), ((0x8100, 10),), ((0x88A8, 100), (0x8100, 10))]
    n = 0
    for tags in tag_sets:
        for proto in (17, 6):
            for k in range(3):
                yield 1000, n, frame(ipv4(proto, 2000 + k, 80, n, bytes(range(40 + k))), tags)
                n += 1
        yield 1000, n, b""  # a record of zero bytes
        n += 1


def records(path):
    """The frames of a classic pcap file, in order."""
    raw = open(path, "rb").read()
    off = 24
    while off < len(raw):
        caplen = struct.unpack_from("<I", raw, off + 8)[0]
        yield raw[off + 16:off + 16 + caplen]
        off += 16 + caplen


def check_vlan(path, src, dst):
    addrs = socket.inet_aton(src) + socket.inet_aton(dst)
    tags_seen = set()
    for f in records(path):
        l3, tags = 12, 0
        while struct.unpack_from("!H", f, l3)[0] in (0x8100, 0x88A8):
            l3, tags = l3 + 4, tags + 1
        ip = f[l3 + 2:]
        assert ip[12:20] == addrs, ("not rewritten", tags, ip[12:20])
        assert csum(ip[:20]) == 0, ("IPv4 checksum", tags)
        l4 = ip[20:struct.unpack_from("!H", ip, 2)[0]]
        pseudo = ip[12:20] + struct.pack("!BBH", 0, ip[9], len(l4))
        assert csum(pseudo + l4) == 0, ("L4 checksum", tags)
        tags_seen.add(tags)
    assert tags_seen == {0, 1, 2}, ("tags seen", tags_seen)


def main():
    if sys.argv[1] == "check-vlan":
        check_vlan(*sys.argv[2:5])
        return
    kind, out = sys.argv[1], sys.argv[2]
    recs = [struct.pack("<IIII", s, us, len(f), len(f)) + f for s, us, f in
            {"flows": flows, "vlan": vlan}[kind]()]
    with open(out, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + b"".join(recs))


main()
