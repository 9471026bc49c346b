/*
 * test_capture.c - txpath replay's captures (tools/capture.c) and their
 * schedule (tools/replay_pace.c).  After an address is changed, the IPv4
 * header checksum and the TCP or UDP checksum are right again, checked by
 * computing them afresh, under VLAN tags too; a UDP datagram without a
 * checksum keeps none; flows follow the 5-tuple.  A capture is read with
 * its seconds unsigned (past 2^31) and its zero-length records counted;
 * a schedule never goes back in time and refuses what would overflow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "replay_pace.h"
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

/* Put tags VLAN tags into the frame f of len bytes after its addresses
 * (the outer one 802.1ad when there are two): the new length. */
static unsigned add_tags(unsigned char *f, unsigned len, unsigned tags)
{
	static const unsigned char tag[2][4] = { { 0x88, 0xa8, 0x00, 0x64 },
						 { 0x81, 0x00, 0x00, 0x0a } };

	memmove(f + 12 + 4 * tags, f + 12, len - 12);
	for (unsigned t = 0; t < tags; t++)
		memcpy(f + 12 + 4 * t, tag[t + 2 - tags], 4);
	return len + 4 * tags;
}

/* The frame's tags taken out again, for the checks of an untagged one. */
static void drop_tags(unsigned char *f, unsigned len, unsigned tags)
{
	memmove(f + 12, f + 12 + 4 * tags, len - 12 - 4 * tags);
}

static void rewrite_one(unsigned proto, int udp_sum, unsigned tags)
{
	unsigned char *f = malloc(128);
	struct cap_frame fr;
	struct capture c = { .frame = &fr, .n = 1 };
	struct cap_rewrite rw = { .src_ip = true, .dst_ip = true, .sip = 0xc6130a0b,
				  .dip = 0xc613fffe, .dst_mac = true };
	unsigned len = make_frame(f, proto, udp_sum);
	uint32_t before;

	if (udp_sum || proto == 6)
		assert_int_equal(l4_verify(f, len), 0);
	before = capture_flow(f, len);
	len = add_tags(f, len, tags);
	assert_int_equal(capture_flow(f, len), before);		/* tags skipped */
	memcpy(rw.dmac, "\xaa\xbb\xcc\xdd\xee\xff", 6);
	fr = (struct cap_frame){ .data = f, .len = len };
	assert_int_equal(capture_rewrite(&c, &rw), 1);
	assert_memory_equal(f, "\xaa\xbb\xcc\xdd\xee\xff", 6);
	assert_int_equal(fr.flow, capture_flow(f, len));
	drop_tags(f, len, tags);
	len -= 4 * tags;
	assert_memory_equal(f + 26, "\xc6\x13\x0a\x0b\xc6\x13\xff\xfe", 8);
	assert_int_equal(fold(sum16(0, f + 14, 20)), 0);	/* IPv4 header */
	if (udp_sum || proto == 6)
		assert_int_equal(l4_verify(f, len), 0);
	else
		assert_int_equal(f[40] | f[41], 0);		/* still none */
	assert_int_not_equal(fr.flow, before);			/* the flow as sent */
	free(f);
}

static void test_rewrite_tcp(void **state)
{
	(void)state;
	rewrite_one(6, 1, 0);
}

static void test_rewrite_udp(void **state)
{
	(void)state;
	rewrite_one(17, 1, 0);
}

static void test_rewrite_udp_no_checksum(void **state)
{
	(void)state;
	rewrite_one(17, 0, 0);
}

/* 802.1Q-tagged IPv4, one tag and two (802.1ad outside): rewritten. */
static void test_rewrite_vlan(void **state)
{
	(void)state;
	for (unsigned tags = 1; tags <= 2; tags++) {
		rewrite_one(6, 1, tags);
		rewrite_one(17, 1, tags);
		rewrite_one(17, 0, tags);
	}
}

/* Three tags, or a tagged frame cut short: not IPv4 as far as the
 * rewrite can tell, left alone. */
static void test_rewrite_vlan_not_ipv4(void **state)
{
	unsigned char f[160], copy[160];
	struct cap_frame fr;
	struct capture c = { .frame = &fr, .n = 1 };
	struct cap_rewrite rw = { .src_ip = true, .sip = 0xc6130a0b };
	unsigned len = add_tags(f, make_frame(f, 17, 1), 2);

	(void)state;
	len = add_tags(f, len, 1);	/* a third */
	memcpy(copy, f, len);
	fr = (struct cap_frame){ .data = f, .len = len };
	assert_int_equal(capture_rewrite(&c, &rw), 0);
	assert_memory_equal(f, copy, len);
	fr.len = 14 + 4 + 19;		/* one tag, 19 bytes of IPv4 header */
	assert_int_equal(capture_rewrite(&c, &rw), 0);
}

/* Records in the classic pcap format, microseconds: (seconds, usec,
 * caplen) each, caplen bytes of frame; into a temporary file. */
static void write_pcap(char *path, const uint32_t (*rec)[3], unsigned n)
{
	static const uint32_t hdr[6] = { 0xa1b2c3d4, 2 | 4 << 16, 0, 0, 65535, 1 };
	unsigned char frame[64] = { 0 };
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(hdr, sizeof(hdr), 1, f), 1);	/* little-endian host */
	for (unsigned i = 0; i < n; i++) {
		uint32_t rh[4] = { rec[i][0], rec[i][1], rec[i][2], rec[i][2] };

		assert_int_equal(fwrite(rh, sizeof(rh), 1, f), 1);
		assert_int_equal(fwrite(frame, 1, rec[i][2], f), rec[i][2]);
	}
	assert_int_equal(fclose(f), 0);
}

/* Seconds past 2^31 (2038) read as pcap stores them, unsigned: the next
 * frame is one second later, not 68 years earlier; zero-length records
 * counted, not kept. */
static void test_load_time_and_empty(void **state)
{
	static const uint32_t rec[][3] = {
		{ 0x7fffffff, 500000, 60 }, { 0x7fffffff, 900000, 0 },
		{ 0x80000000, 500000, 60 }, { 0x80000001, 0, 0 }, { 0xffffffff, 0, 42 },
	};
	char path[] = "/tmp/test_capture.XXXXXX", err[256];
	struct capture c;

	(void)state;
	write_pcap(path, rec, 5);
	assert_int_equal(capture_load(&c, path, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.empty, 2);
	assert_int_equal(c.frame[1].ts_ns - c.frame[0].ts_ns, 1000000000ull);
	assert_int_equal(c.frame[2].ts_ns, 0xffffffffull * 1000000000ull);
	assert_int_equal(c.frame[2].len, 42);
	capture_free(&c);
	assert_int_equal(capture_time_ns(-1, 7), 0xffffffffull * 1000000000ull + 7);
	assert_int_equal(capture_time_ns(INT32_MIN, 0), 0x80000000ull * 1000000000ull);
}

/* Nothing but zero-length records: refused, the count said. */
static void test_load_only_empty(void **state)
{
	static const uint32_t rec[][3] = { { 1, 0, 0 }, { 2, 0, 0 } };
	char path[] = "/tmp/test_capture.XXXXXX", err[256];
	struct capture c;

	(void)state;
	write_pcap(path, rec, 2);
	assert_int_equal(capture_load(&c, path, err, sizeof(err)), -1);
	unlink(path);
	assert_non_null(strstr(err, "no frames to replay (2 zero-length records)"));
}

/* A schedule's inputs and outputs: a capture of up to 8 frames. */
struct sched {
	struct cap_frame f[8];
	struct capture c;
	uint64_t at[8], pass;
	char err[256];
};

/* s's capture: n frames of len bytes at the times ts (ns). */
static void sched_capture(struct sched *s, const uint64_t *ts, unsigned n, uint32_t len)
{
	for (unsigned i = 0; i < n; i++)
		s->f[i] = (struct cap_frame){ .len = len, .ts_ns = ts[i] };
	s->c = (struct capture){ .frame = s->f, .n = n };
}

/* replay_schedule() of s's capture; its return code. */
static int schedule(struct sched *s, enum replay_pace pace, double rate, uint64_t loops)
{
	return replay_schedule(&s->c, pace, rate, loops, s->at, &s->pass, s->err, sizeof(s->err));
}

/* The capture's timing: offsets from the first frame, divided by the
 * multiplier; a frame captured before the one ahead of it follows it at
 * once; a pass lasts until the last frame. */
static void test_schedule_capture(void **state)
{
	static const uint64_t ts[] = { 5000, 7000, 6000, 1000, 9000 };
	static const uint64_t want[] = { 0, 1000, 1000, 1000, 2000 };
	struct sched s;

	(void)state;
	sched_capture(&s, ts, 5, 60);
	assert_int_equal(schedule(&s, PACE_CAPTURE, 2, 1), 0);
	assert_memory_equal(s.at, want, sizeof(want));
	assert_int_equal(s.pass, 2000);
}

/* pps and Mbps: evenly, by frames or by bits; a pass one frame longer. */
static void test_schedule_rates(void **state)
{
	static const uint64_t ts[] = { 0, 0, 0 };
	struct sched s;

	(void)state;
	sched_capture(&s, ts, 3, 125);	/* 1000 bits each */
	assert_int_equal(schedule(&s, PACE_PPS, 1000, 1), 0);
	assert_int_equal(s.at[2], 2000000);
	assert_int_equal(s.pass, 3000000);
	assert_int_equal(schedule(&s, PACE_MBPS, 1, 1), 0);
	assert_int_equal(s.at[1], 1000000);
	assert_int_equal(s.pass, 3000000);
	assert_int_equal(schedule(&s, PACE_TOP, 0, 1), 0);
	assert_int_equal(s.at[2], 0);
}

/* What would overflow an integer of nanoseconds, or last more than 100
 * years, is refused with one line: the slowest rate over the widest
 * capture, a rate below the bounds, many loops. */
static void test_schedule_too_long(void **state)
{
	static const uint64_t ts[] = { 0, 0xffffffffull * 1000000000ull };
	struct sched s;

	(void)state;
	sched_capture(&s, ts, 2, 60);
	assert_int_equal(schedule(&s, PACE_CAPTURE, REPLAY_RATE_MIN, 1), -1);
	assert_non_null(strstr(s.err, "more than the 100"));
	assert_null(strchr(s.err, '\n'));
	assert_int_equal(schedule(&s, PACE_PPS, 1e-300, 1), -1);
	assert_int_equal(schedule(&s, PACE_MBPS, 1e-300, 1), -1);
	assert_int_equal(schedule(&s, PACE_PPS, REPLAY_RATE_MIN, 1000000000), -1);
	/* 2^32 s is 136 years as captured, 68 at twice the speed. */
	assert_int_equal(schedule(&s, PACE_CAPTURE, 1, 1), -1);
	assert_int_equal(schedule(&s, PACE_CAPTURE, 2, 1), 0);
	assert_int_equal(s.pass, ts[1] / 2);
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
		cmocka_unit_test(test_rewrite_vlan),
		cmocka_unit_test(test_rewrite_vlan_not_ipv4),
		cmocka_unit_test(test_load_time_and_empty),
		cmocka_unit_test(test_load_only_empty),
		cmocka_unit_test(test_schedule_capture),
		cmocka_unit_test(test_schedule_rates),
		cmocka_unit_test(test_schedule_too_long),
	};

	return txp_test_main(argc, argv, tests);
}
