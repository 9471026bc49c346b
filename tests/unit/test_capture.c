/*
 * test_capture.c - txpath replay's rewrites (tools/capture.c): after an
 * address is changed, the IPv4 header checksum and the TCP or UDP
 * checksum are right again, checked by computing them afresh; a UDP
 * datagram without a checksum keeps none; flows follow the 5-tuple.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "testutil.h"

#define PAYLOAD 37

static uint32_t sum16(uint32_t s, const unsigned char *p, unsigned n)
{
	for (unsigned i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The L4 checksum of the frame's IPv4 packet, computed afresh over the
 * pseudo header and the segment with its checksum field as it is: 0
 * when the field is right. */
static uint16_t l4_verify(const unsigned char *f, unsigned len)
{
	const unsigned char *ip = f + 14;
	unsigned l4len = len - 34;
	uint32_t s = sum16(0, ip + 12, 8) + ip[9] + l4len;

	return fold(sum16(s, ip + 20, l4len));
}

/* An Ethernet/IPv4 frame of protocol proto (6 or 17) from 198.18.1.1:1000
 * to 198.18.1.2:2000, both checksums set (UDP's only if udp_sum). */
static unsigned make_frame(unsigned char *f, unsigned proto, int udp_sum)
{
	unsigned hl = proto == 6 ? 20 : 8, len = 34 + hl + PAYLOAD, csum_at = proto == 6 ? 16 : 6;
	unsigned char *ip = f + 14, *l4 = f + 34;
	uint16_t c;

	memset(f, 0, len);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
	ip[0] = 0x45;
	ip[2] = (unsigned char)((len - 14) >> 8);
	ip[3] = (unsigned char)(len - 14);
	ip[8] = 64;
	ip[9] = (unsigned char)proto;
	memcpy(ip + 12, "\xc6\x12\x01\x01\xc6\x12\x01\x02", 8);
	c = fold(sum16(0, ip, 20));
	ip[10] = (unsigned char)(c >> 8);
	ip[11] = (unsigned char)c;
	l4[0] = 1000 >> 8, l4[1] = 1000 & 0xff, l4[2] = 2000 >> 8, l4[3] = 2000 & 0xff;
	if (proto == 17) {
		l4[4] = (unsigned char)((8 + PAYLOAD) >> 8);
		l4[5] = (unsigned char)(8 + PAYLOAD);
	} else {
		l4[12] = 0x50;
	}
	for (unsigned k = 0; k < PAYLOAD; k++)
		l4[hl + k] = (unsigned char)(k * 29 + 3);
	if (proto == 6 || udp_sum) {
		c = l4_verify(f, len);
		l4[csum_at] = (unsigned char)(c >> 8);
		l4[csum_at + 1] = (unsigned char)c;
	}
	return len;
}

static void rewrite_one(unsigned proto, int udp_sum)
{
	unsigned char *f = malloc(128);
	struct cap_frame fr;
	struct capture c = { .frame = &fr, .n = 1 };
	struct cap_rewrite rw = { .src_ip = true, .dst_ip = true, .sip = 0xc6130a0b,
				  .dip = 0xc613fffe, .dst_mac = true };
	unsigned len = make_frame(f, proto, udp_sum);
	uint32_t before = capture_flow(f, len);

	memcpy(rw.dmac, "\xaa\xbb\xcc\xdd\xee\xff", 6);
	fr = (struct cap_frame){ .data = f, .len = len };
	if (udp_sum || proto == 6)
		assert_int_equal(l4_verify(f, len), 0);
	assert_int_equal(capture_rewrite(&c, &rw), 1);
	assert_memory_equal(f, "\xaa\xbb\xcc\xdd\xee\xff", 6);
	assert_memory_equal(f + 26, "\xc6\x13\x0a\x0b\xc6\x13\xff\xfe", 8);
	assert_int_equal(fold(sum16(0, f + 14, 20)), 0);	/* IPv4 header */
	if (udp_sum || proto == 6)
		assert_int_equal(l4_verify(f, len), 0);
	else
		assert_int_equal(f[40] | f[41], 0);		/* still none */
	assert_int_not_equal(fr.flow, before);			/* the flow as sent */
	assert_int_equal(fr.flow, capture_flow(f, len));
	free(f);
}

static void test_rewrite_tcp(void **state)
{
	(void)state;
	rewrite_one(6, 1);
}

static void test_rewrite_udp(void **state)
{
	(void)state;
	rewrite_one(17, 1);
}

static void test_rewrite_udp_no_checksum(void **state)
{
	(void)state;
	rewrite_one(17, 0);
}

/* Frames of one 5-tuple are one flow; another port is another flow. */
static void test_flows(void **state)
{
	unsigned char a[128], b[128];
	unsigned la = make_frame(a, 17, 1), lb = make_frame(b, 17, 1);

	(void)state;
	b[34 + 8] ^= 1;		/* payload: same flow */
	assert_int_equal(capture_flow(a, la), capture_flow(b, lb));
	b[35] ^= 1;		/* source port */
	assert_int_not_equal(capture_flow(a, la), capture_flow(b, lb));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rewrite_tcp),
		cmocka_unit_test(test_rewrite_udp),
		cmocka_unit_test(test_rewrite_udp_no_checksum),
		cmocka_unit_test(test_flows),
	};

	return txp_test_main(argc, argv, tests);
}
