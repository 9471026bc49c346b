/*
 * capture.c - a pcap capture in memory: load, flows, rewrites.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

#define ETH_HLEN_ 14u
#define ETHERTYPE_IPV4 0x0800u
#define ETHERTYPE_VLAN 0x8100u	/* 802.1Q */
#define ETHERTYPE_QINQ 0x88a8u	/* 802.1ad, the outer tag of two */
#define VLAN_HLEN 4u
#define MAX_TAGS 2
#define PROTO_TCP 6u
#define PROTO_UDP 17u

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

/* Where f's network header starts, past up to MAX_TAGS VLAN tags
 * (802.1Q or 802.1ad), its EtherType in *type; 0 if f ends before. */
static uint32_t l3_offset(const unsigned char *f, uint32_t len, uint16_t *type)
{
	uint32_t off = ETH_HLEN_ - 2;

	for (int tags = 0;; tags++, off += VLAN_HLEN) {
		if (len < off + 2)
			return 0;
		*type = get16(f + off);
		if (tags == MAX_TAGS || (*type != ETHERTYPE_VLAN && *type != ETHERTYPE_QINQ))
			return off + 2;
	}
}

/* The IPv4 header of f (tagged or not), its length in *ihl and the bytes
 * from it to the frame's end in *room; NULL if f carries none whole. */
static unsigned char *ipv4_header(const unsigned char *f, uint32_t len, unsigned *ihl,
				  uint32_t *room)
{
	uint16_t type = 0;
	uint32_t off = l3_offset(f, len, &type);
	unsigned char *ip = (unsigned char *)f + off;

	if (!off || type != ETHERTYPE_IPV4 || len < off + 20 || ip[0] >> 4 != 4)
		return NULL;
	*ihl = (ip[0] & 0xfu) * 4u;
	*room = len - off;
	if (*ihl < 20 || *room < *ihl)
		return NULL;
	return ip;
}

/* Does the IPv4 packet at ip carry its L4 header (a first fragment)? */
static bool first_fragment(const unsigned char *ip)
{
	return (get16(ip + 6) & 0x1fffu) == 0;
}

static uint32_t fnv(uint32_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

uint32_t capture_flow(const unsigned char *f, uint32_t len)
{
	unsigned ihl;
	uint32_t room, h = 2166136261u;
	const unsigned char *ip = ipv4_header(f, len, &ihl, &room);

	if (!ip)
		return fnv(h, f, len < ETH_HLEN_ ? len : ETH_HLEN_);
	h = fnv(h, ip + 9, 1);		/* protocol */
	h = fnv(h, ip + 12, 8);		/* addresses */
	if ((ip[9] == PROTO_TCP || ip[9] == PROTO_UDP) && first_fragment(ip) && room >= ihl + 4)
		h = fnv(h, ip + ihl, 4);	/* ports */
	return h;
}

uint64_t capture_time_ns(int64_t sec, int64_t nsec)
{
	/* pcap stores seconds unsigned; libpcap hands them over through a
	 * signed 32-bit field: past 2^31 s (2038) they come negative. */
	uint64_t s = sec < 0 ? (uint32_t)sec : (uint64_t)sec;

	if (s > UINT32_MAX)	/* pcapng's 64 bits: beyond any clock */
		s = UINT32_MAX;
	return s * 1000000000u + (uint64_t)(nsec < 0 ? 0 : nsec);
}

static void frame_add(struct capture *c, const struct pcap_pkthdr *h, const unsigned char *d,
		      unsigned char *copy)
{
	struct cap_frame *f = &c->frame[c->n++];

	memcpy(copy, d, h->caplen);
	f->data = copy;
	f->len = h->caplen;
	f->flow = capture_flow(copy, h->caplen);
	f->ts_ns = capture_time_ns(h->ts.tv_sec, h->ts.tv_usec);
	c->bytes += h->caplen;
	if (h->caplen > c->max_len)
		c->max_len = h->caplen;
	if (h->caplen < h->len)
		c->truncated++;
}

/* Room for one more frame; false if memory is short. */
static bool frame_room(struct capture *c, size_t *cap)
{
	struct cap_frame *nf;

	if (c->n < *cap)
		return true;
	*cap = *cap ? *cap * 2 : 1024;
	nf = realloc(c->frame, *cap * sizeof(*nf));
	if (!nf)
		return false;
	c->frame = nf;
	return true;
}

static int load_frames(struct capture *c, pcap_t *p, const char *path, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const unsigned char *d;
	size_t cap = 0;
	int rc;

	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		unsigned char *copy = h->caplen ? malloc(h->caplen) : NULL;

		if (!h->caplen) {
			c->empty++;	/* nothing to send */
			continue;
		}
		if (!copy || !frame_room(c, &cap)) {
			free(copy);
			snprintf(err, errlen, "%s: out of memory for its frames", path);
			return -1;
		}
		frame_add(c, h, d, copy);
	}
	if (rc == -1) {
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(p));
		return -1;
	}
	if (!c->n) {
		snprintf(err, errlen, "%s: no frames to replay (%llu zero-length records)", path,
			 (unsigned long long)c->empty);
		return -1;
	}
	return 0;
}

int capture_load(struct capture *c, const char *path, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p;
	int link, rc;

	memset(c, 0, sizeof(*c));
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!p) {
		/* libpcap's message names the file, or says what is wrong. */
		snprintf(err, errlen, "cannot read %s: %s", path, perr);
		return -1;
	}
	link = pcap_datalink(p);
	if (link != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(link);

		snprintf(err, errlen, "%s: link type %s (%d) is not supported: only Ethernet (EN10MB)",
			 path, name ? name : "unknown", link);
		pcap_close(p);
		return -1;
	}
	rc = load_frames(c, p, path, err, errlen);
	pcap_close(p);
	if (rc != 0)
		capture_free(c);
	return rc;
}

void capture_free(struct capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->frame[i].data);
	free(c->frame);
	memset(c, 0, sizeof(*c));
}

/* -- rewrites ------------------------------------------------------------- */

/* RFC 1624's incremental update: checksum csum over a 16-bit word that
 * goes from old to new. */
static uint16_t csum_update(uint16_t csum, uint16_t old, uint16_t new)
{
	uint32_t s = (uint16_t)~csum + (uint32_t)(uint16_t)~old + new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Set the 32-bit address at a to v, updating the checksums at the
 * offsets given (NULL: none) by the words changed. */
static void set_addr(unsigned char *a, uint32_t v, unsigned char *ipsum, unsigned char *l4sum,
		     bool udp)
{
	uint16_t words[2] = { (uint16_t)(v >> 16), (uint16_t)v };

	for (int i = 0; i < 2; i++) {
		uint16_t old = get16(a + 2 * i);

		put16(ipsum, csum_update(get16(ipsum), old, words[i]));
		if (l4sum && !(udp && get16(l4sum) == 0)) {
			uint16_t c = csum_update(get16(l4sum), old, words[i]);

			/* UDP sends a computed 0 as 0xffff: 0 means none. */
			put16(l4sum, udp && c == 0 ? 0xffff : c);
		}
		put16(a + 2 * i, words[i]);
	}
}

/* Where the TCP or UDP checksum of the IPv4 packet at ip is, if the
 * room bytes from ip on hold it; else NULL (and *udp false). */
static unsigned char *l4_checksum(unsigned char *ip, unsigned ihl, uint32_t room, bool *udp)
{
	unsigned off = ip[9] == PROTO_TCP ? 16u : 6u;

	*udp = ip[9] == PROTO_UDP;
	if ((ip[9] != PROTO_TCP && !*udp) || !first_fragment(ip) || room < ihl + off + 2) {
		*udp = false;
		return NULL;
	}
	return ip + ihl + off;
}

/* The IPv4 addresses of one frame (VLAN-tagged or not); true if it is
 * IPv4. */
static bool rewrite_ip(unsigned char *f, uint32_t len, const struct cap_rewrite *rw)
{
	unsigned ihl;
	uint32_t room;
	unsigned char *ip = ipv4_header(f, len, &ihl, &room), *l4;
	bool udp;

	if (!ip)
		return false;
	l4 = l4_checksum(ip, ihl, room, &udp);
	if (rw->src_ip)
		set_addr(ip + 12, rw->sip, ip + 10, l4, udp);
	if (rw->dst_ip)
		set_addr(ip + 16, rw->dip, ip + 10, l4, udp);
	return true;
}

uint64_t capture_rewrite(struct capture *c, const struct cap_rewrite *rw)
{
	uint64_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct cap_frame *f = &c->frame[i];

		if (f->len < ETH_HLEN_)
			continue;
		if (rw->dst_mac)
			memcpy(f->data, rw->dmac, 6);
		if (rw->src_mac)
			memcpy(f->data + 6, rw->smac, 6);
		if ((rw->src_ip || rw->dst_ip) && rewrite_ip(f->data, f->len, rw))
			n++;
		f->flow = capture_flow(f->data, f->len);	/* the flow as sent */
	}
	return n;
}
