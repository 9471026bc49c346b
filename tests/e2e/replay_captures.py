"""replay_captures.py KIND OUT: a pcap capture (classic format, microseconds,
Ethernet) for tests/e2e/replay.sh, written to OUT.
  flows  4000 UDP frames over 64 flows, 1 ms apart
Addresses in 198.18.0.0/15; the frames go nowhere but the test's veth."""
import os
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
    t0 = 1000
    for i in range(4000):
        us = t0 * 1000000 + i * 1000
        yield us // 1000000, us % 1000000, frame(ipv4(17, 1000 + i % 64, 9, i, bytes(18)))


def main():
    kind, out = sys.argv[1], sys.argv[2]
    recs = [struct.pack("<IIII", s, us, len(f), len(f)) + f for s, us, f in
            {"flows": flows}[kind]()]
    with open(out, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + b"".join(recs))


main()
