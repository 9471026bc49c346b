/*
 * fuzz_frame.c - txp_frame_parse, the receiver's parser of whatever
 * arrives on a link or in a pcap file.  Properties: any bytes are parsed
 * without reading outside them (ASan) or undefined behaviour (UBSan);
 * a frame it accepts, with one byte of its IP packet changed, is refused
 * (unless the change only zeroed the UDP checksum: no checksum); a frame
 * txp_frame_build wrote (its length, addresses, flow and seq taken from
 * the input) parses back to its flow and seq, and the same frame cut
 * short by a byte is refused.
 */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "drivers/common/frame.h"
#include "fuzz.h"
#include "txpath/net.h"

/* Mostly up to an MTU's worth; one time in 16, up to the largest. */
static unsigned frame_len(unsigned v)
{
	bool jumbo = (v & 0xf000) == 0xf000;

	return TXP_FRAME_MIN_LEN + v % (jumbo ? 65536 - TXP_FRAME_MIN_LEN : 1515 - TXP_FRAME_MIN_LEN);
}

static void build_and_parse(struct fuzz_in *in)
{
	unsigned len = frame_len((unsigned)fuzz_take(in, 2));
	struct txp_frame_addr a = { 0 };
	uint32_t flow = (uint32_t)fuzz_take(in, 4), got_flow = 0;
	uint64_t seq = fuzz_take(in, 8), got_seq = 0;
	unsigned char *buf = malloc(len);

	FUZZ_CHECK(buf);
	for (unsigned i = 0; i < 6; i++) {
		a.src_mac[i] = (uint8_t)fuzz_take(in, 1);
		a.dst_mac[i] = (uint8_t)fuzz_take(in, 1);
	}
	a.src_ip = (uint32_t)fuzz_take(in, 4);
	a.dst_ip = (uint32_t)fuzz_take(in, 4);
	a.src_port = (uint16_t)fuzz_take(in, 2);
	a.dst_port = (uint16_t)fuzz_take(in, 2);
	txp_frame_build(buf, len, &a, flow, seq);
	FUZZ_CHECK(txp_frame_parse(buf, len, &got_flow, &got_seq));
	FUZZ_CHECK(got_flow == flow && got_seq == seq);
	FUZZ_CHECK(!txp_frame_parse(buf, len - 1, &got_flow, &got_seq));
	free(buf);
}

/* An accepted frame with one byte of its IP packet changed: which one and
 * how from its destination MAC, which the parser does not look at. */
static void corrupt_and_parse(const uint8_t *data, unsigned len)
{
	unsigned ip_len = (unsigned)data[FRAME_OFF_IP + 2] << 8 | data[FRAME_OFF_IP + 3];
	unsigned pos = FRAME_OFF_IP + ((unsigned)data[0] << 8 | data[1]) % ip_len;
	uint8_t flip = data[2] ? data[2] : 1;
	unsigned char *f = malloc(len);
	uint32_t flow;
	uint64_t seq;

	FUZZ_CHECK(f);
	memcpy(f, data, len);
	f[pos] ^= flip;
	if (f[FRAME_OFF_UDP + 6] || f[FRAME_OFF_UDP + 7])	/* still a UDP checksum */
		FUZZ_CHECK(!txp_frame_parse(f, len, &flow, &seq));
	free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint32_t flow;
	uint64_t seq;

	if (size > UINT_MAX)
		return 0;
	if (txp_frame_parse(data, (unsigned)size, &flow, &seq))
		corrupt_and_parse(data, (unsigned)size);
	build_and_parse(&in);
	return 0;
}
