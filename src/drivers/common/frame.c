/*
 * frame.c - txpath's Ethernet/IPv4/UDP frames: build, stamp, parse, and
 * the address defaults.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "frame.h"

#define ETH_P_IPV4   0x0800u
#define IPPROTO_UDP_ 17u

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* One's complement sum of big-endian 16-bit words (an odd byte is padded). */
static uint32_t csum_add(uint32_t sum, const unsigned char *p, unsigned len)
{
	unsigned i;

	for (i = 0; i + 1 < len; i += 2)
		sum += get16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The payload byte at offset k (k >= 16: after magic, flow, seq). */
static unsigned char pattern(unsigned k)
{
	return (unsigned char)(k * 7u + 1u);
}

static uint32_t udp_pseudo_sum(const unsigned char *f, unsigned udp_len)
{
	uint32_t sum = csum_add(0, f + FRAME_OFF_IP + 12, 8);	/* src, dst */

	return sum + IPPROTO_UDP_ + udp_len;
}

/* Can a frame of len bytes be written at buf with a's addresses? */
static bool frame_args_ok(const void *buf, unsigned len, const struct txp_frame_addr *a)
{
	return buf && a && len >= TXP_FRAME_MIN_LEN && len <= TXP_FRAME_MAX_LEN;
}

uint32_t txp_frame_template(void *buf, unsigned len, const struct txp_frame_addr *a)
{
	unsigned char *f = buf, *ip = f + FRAME_OFF_IP, *udp = f + FRAME_OFF_UDP;
	unsigned ip_len = len - FRAME_OFF_IP, udp_len = len - FRAME_OFF_UDP;

	if (!frame_args_ok(buf, len, a))
		return 0;
	memcpy(f, a->dst_mac, 6);
	memcpy(f + 6, a->src_mac, 6);
	put16(f + 12, ETH_P_IPV4);
	memset(ip, 0, 20);
	ip[0] = 0x45;			/* IPv4, 5 words */
	put16(ip + 2, (uint16_t)ip_len);
	put16(ip + 6, 0x4000);		/* don't fragment */
	ip[8] = 64;			/* TTL */
	ip[9] = IPPROTO_UDP_;
	put32(ip + 12, a->src_ip);
	put32(ip + 16, a->dst_ip);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	put16(udp, a->src_port);
	put16(udp + 2, a->dst_port);
	put16(udp + 4, (uint16_t)udp_len);
	put16(udp + 6, 0);
	put32(f + FRAME_OFF_PAYLOAD, TXP_FRAME_MAGIC);
	memset(f + FRAME_OFF_FLOW, 0, 12);
	for (unsigned k = 16; FRAME_OFF_PAYLOAD + k < len; k++)
		f[FRAME_OFF_PAYLOAD + k] = pattern(k);
	return csum_add(udp_pseudo_sum(f, udp_len), udp, udp_len);
}

void txp_frame_stamp(void *buf, uint32_t csum_base, uint32_t flow, uint64_t seq)
{
	unsigned char *f = buf;
	uint32_t hi = (uint32_t)(seq >> 32), lo = (uint32_t)seq;
	uint16_t c;

	/* 0: the template refused its arguments (a real base holds the
	 * pseudo header's protocol and length, never 0). */
	if (!csum_base)
		return;
	put32(f + FRAME_OFF_FLOW, flow);
	put32(f + FRAME_OFF_SEQ, hi);
	put32(f + FRAME_OFF_SEQ + 4, lo);
	csum_base += (flow >> 16) + (flow & 0xffff) + (hi >> 16) + (hi & 0xffff) +
		     (lo >> 16) + (lo & 0xffff);
	c = csum_fold(csum_base);
	put16(f + FRAME_OFF_UDP + 6, c ? c : 0xffff);
}

int txp_frame_build(void *buf, unsigned len, const struct txp_frame_addr *a,
		    uint32_t flow, uint64_t seq)
{
	if (!frame_args_ok(buf, len, a))
		return -EINVAL;
	txp_frame_stamp(buf, txp_frame_template(buf, len, a), flow, seq);
	return 0;
}

bool txp_frame_parse(const void *buf, unsigned len, uint32_t *flow, uint64_t *seq)
{
	const unsigned char *f = buf, *ip = f + FRAME_OFF_IP, *udp = f + FRAME_OFF_UDP;
	unsigned ip_len, udp_len;
	uint32_t sum;

	if (len < FRAME_HEAD_LEN || get16(f + 12) != ETH_P_IPV4 || ip[0] != 0x45 ||
	    ip[9] != IPPROTO_UDP_ || csum_fold(csum_add(0, ip, 20)) != 0)
		return false;
	ip_len = get16(ip + 2);
	udp_len = get16(udp + 4);
	if (ip_len > len - FRAME_OFF_IP || udp_len != ip_len - 20 ||
	    FRAME_OFF_UDP + udp_len < FRAME_HEAD_LEN)
		return false;
	sum = csum_add(udp_pseudo_sum(f, udp_len), udp, udp_len);
	if (get16(udp + 6) != 0 && csum_fold(sum) != 0)
		return false;
	if (get32(f + FRAME_OFF_PAYLOAD) != TXP_FRAME_MAGIC)
		return false;
	for (unsigned k = 16; FRAME_OFF_UDP + 8 + k < FRAME_OFF_UDP + udp_len; k++)
		if (f[FRAME_OFF_PAYLOAD + k] != pattern(k))
			return false;
	*flow = get32(f + FRAME_OFF_FLOW);
	*seq = (uint64_t)get32(f + FRAME_OFF_SEQ) << 32 | get32(f + FRAME_OFF_SEQ + 4);
	return true;
}

/* -- addresses ---------------------------------------------------------- */

void txp_frame_addr_resolve(struct txp_frame_addr *a, const uint8_t *if_mac)
{
	static const uint8_t local_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

	if (!a->src_mac_set) {
		memcpy(a->src_mac, if_mac ? if_mac : local_mac, 6);
		a->src_mac_set = true;
	}
	if (!a->dst_mac_set) {
		memset(a->dst_mac, 0xff, 6);
		a->dst_mac_set = true;
	}
	if (!a->src_ip)
		a->src_ip = TXP_NET_BENCH_NET | 1;	/* 198.18.0.1 */
	if (!a->dst_ip)
		a->dst_ip = TXP_NET_BENCH_NET | 2;	/* 198.18.0.2 */
	if (!a->src_port)
		a->src_port = 9;
	if (!a->dst_port)
		a->dst_port = 9;
}

/* A hex digit's value, or -1. */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* Six pairs of hex digits joined by ':', exactly (sscanf's %x would take
 * white space, a sign or a single digit in a pair). */
bool txp_parse_mac(const char *s, uint8_t mac[6])
{
	uint8_t v[6];

	for (int i = 0; i < 6; i++, s += 3) {
		int hi = hex_digit(s[0]), lo = hi < 0 ? -1 : hex_digit(s[1]);

		if (lo < 0 || s[2] != (i < 5 ? ':' : '\0'))
			return false;
		v[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, v, 6);
	return true;
}

bool txp_parse_ipv4(const char *s, uint32_t *ip)
{
	struct in_addr in;

	if (inet_pton(AF_INET, s, &in) != 1)
		return false;
	*ip = ntohl(in.s_addr);
	return true;
}
