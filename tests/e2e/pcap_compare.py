#!/usr/bin/env python3
"""pcap_compare.py SENT.pcap GOT.pcap: did GOT receive exactly SENT's
frames, byte for byte, each flow's in its order?  A flow is the IPv4
5-tuple (ports for TCP and UDP, first fragments only), else the Ethernet
addresses and type, as txpath replay pins them.  Prints one line; exit 0
when they match, 1 otherwise."""
import struct
import sys


def frames(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        end = "<"
    elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
        end = ">"
    else:
        sys.exit("%s: not a pcap file" % path)
    out, off = [], 24
    while off + 16 <= len(data):
        caplen = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        out.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return out


def flow(f):
    if len(f) >= 34 and f[12:14] == b"\x08\x00" and f[14] >> 4 == 4:
        ihl = (f[14] & 15) * 4
        key = (f[23], f[26:34])
        first = struct.unpack(">H", f[20:22])[0] & 0x1fff == 0
        if f[23] in (6, 17) and first and len(f) >= 14 + ihl + 4:
            key += (f[14 + ihl:14 + ihl + 4],)
        return key
    return (f[:14],)


def by_flow(fs):
    d = {}
    for f in fs:
        d.setdefault(flow(f), []).append(f)
    return d


sent, got = frames(sys.argv[1]), frames(sys.argv[2])
if sorted(sent) != sorted(got):
    print("FAIL: sent %d frames, got %d; %d sent frames missing, %d received not sent" % (
        len(sent), len(got), len(set(sent) - set(got)), len(set(got) - set(sent))))
    sys.exit(1)
s, g = by_flow(sent), by_flow(got)
bad = [k for k in s if s[k] != g.get(k)]
if bad:
    print("FAIL: %d of %d flows out of order" % (len(bad), len(s)))
    sys.exit(1)
print("same %d frames, byte for byte, %d flows each in order" % (len(sent), len(s)))
