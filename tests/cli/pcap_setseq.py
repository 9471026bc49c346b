"""pcap_setseq.py IN OUT SEQ...: copy the pcap file IN (written by `txpath
run --driver pcap`) to OUT with the sequence number of its k-th frame set
to the k-th SEQ, and the frame's UDP checksum made right again.  Its
csum() is the Internet checksum for the other tests' scripts."""
import struct
import sys

SEQ, UDP, UDP_CSUM, IP_SRC = 50, 34, 40, 26  # offsets in the frame


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF



def main():
    src, dst, seqs = sys.argv[1], sys.argv[2], [int(x, 0) for x in sys.argv[3:]]
    d = bytearray(open(src, "rb").read())
    off = 24
    for seq in seqs:
        caplen = struct.unpack_from("<I", d, off + 8)[0]
        f = off + 16
        struct.pack_into("!Q", d, f + SEQ, seq)
        udp_len = struct.unpack_from("!H", d, f + UDP + 4)[0]
        struct.pack_into("!H", d, f + UDP_CSUM, 0)
        pseudo = bytes(d[f + IP_SRC:f + IP_SRC + 8]) + struct.pack("!BBH", 0, 17, udp_len)
        c = csum(pseudo + bytes(d[f + UDP:f + UDP + udp_len]))
        struct.pack_into("!H", d, f + UDP_CSUM, c or 0xFFFF)
        off = f + caplen
    open(dst, "wb").write(d)


if __name__ == "__main__":  # replay_captures.py imports csum
    main()
