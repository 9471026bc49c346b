/*
 * txpath/net.h - what the real drivers (afxdp, afpacket, tap, pcap) need
 * to know: the interface or file, the driver's own knobs, and the
 * Ethernet/IPv4/UDP frame they build for every packet.  The devices
 * themselves are txpath/netdrv.h's.
 *
 * Every packet becomes one valid frame: Ethernet, IPv4 (checksummed), UDP
 * (checksummed), and a payload that starts with a magic word, the flow id
 * and the sequence number, so that a receiver (`txpath recv`) can check
 * per-flow order, loss and duplication.  Destinations are kept inside the
 * benchmarking range 198.18.0.0/15 (RFC 2544): txpath is a load generator.
 */
#ifndef TXPATH_NET_H
#define TXPATH_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The benchmarking range, host order: 198.18.0.0/15. */
#define TXP_NET_BENCH_NET  0xc6120000u
#define TXP_NET_BENCH_MASK 0xfffe0000u

/* Ethernet + IPv4 + UDP headers, and the payload txpath puts first. */
#define TXP_FRAME_HDR_LEN   42u
#define TXP_FRAME_MAGIC     0x54585031u	/* "TXP1" */
#define TXP_FRAME_MIN_LEN   60u		/* Ethernet minimum without FCS */
#define TXP_FRAME_MAX_LEN   65549u	/* Ethernet + the largest IPv4 packet */

/* AF_XDP bind mode. */
enum txp_xdp_mode {
	TXP_XDP_COPY,		/* XDP_COPY: works on every interface */
	TXP_XDP_ZEROCOPY,	/* XDP_ZEROCOPY: the driver must support it */
};

/* Addresses of the frames; every field in host order.  A zero field
 * (or an unset MAC) means its default: see txp_frame_addr_resolve(). */
struct txp_frame_addr {
	uint8_t src_mac[6], dst_mac[6];
	bool src_mac_set, dst_mac_set;
	uint32_t src_ip, dst_ip;
	uint16_t src_port, dst_port;
};

/* All zero is the default: copy mode, queue 0, TPACKET_V2, through the
 * kernel's qdisc, default addresses, libbpf's logging left alone. */
struct txp_net_cfg {
	const char *ifname;	/* --dev: afxdp, afpacket, tap */
	const char *file;	/* --file: pcap */
	enum txp_xdp_mode xdp_mode;
	unsigned queue;		/* afxdp: the interface's queue id */
	bool umem_pool;		/* afxdp: the run's packets in UMEM frames (no copy) */
	unsigned tpacket;	/* afpacket: 2 or 3 (TPACKET_V2, _V3); 0: 2 */
	bool qdisc_bypass;	/* afpacket: PACKET_QDISC_BYPASS */
	/* afxdp: silence libbpf's and libxdp's own logging, for the whole
	 * process (their print callbacks are global); off: left as it is. */
	bool quiet_bpf_log;
	struct txp_frame_addr addr;
};

/* Fill the defaults into the zero fields of a: src 198.18.0.1:9,
 * dst 198.18.0.2:9, dst MAC broadcast, src MAC if_mac (NULL: 02:00:00:00:00:01). */
void txp_frame_addr_resolve(struct txp_frame_addr *a, const uint8_t *if_mac);

/* "aa:bb:cc:dd:ee:ff" -> mac; false if malformed. */
bool txp_parse_mac(const char *s, uint8_t mac[6]);
/* Dotted quad -> host order; false if malformed. */
bool txp_parse_ipv4(const char *s, uint32_t *ip);
/* In 198.18.0.0/15? */
static inline bool txp_ipv4_is_bench(uint32_t ip)
{
	return (ip & TXP_NET_BENCH_MASK) == TXP_NET_BENCH_NET;
}

/*
 * Write the frame of (flow, seq) into buf: len bytes in all, headers and
 * checksums included.  The payload is magic, flow, seq, then a pattern
 * derived from them.  0; or -EINVAL, nothing written, if len is outside
 * TXP_FRAME_MIN_LEN..TXP_FRAME_MAX_LEN or buf or a is NULL.
 */
int txp_frame_build(void *buf, unsigned len, const struct txp_frame_addr *a,
		    uint32_t flow, uint64_t seq);
/*
 * txp_frame_build() in two halves, for a sender of many frames of one
 * length and addresses: write the template once (flow and seq zero, UDP
 * checksum not yet set; returns its unfolded UDP checksum sum, csum_base),
 * then per frame stamp flow and seq into a copy of it and set the UDP
 * checksum.  Any thread; buf is the caller's.  The template's arguments
 * as txp_frame_build()'s: outside them it writes nothing and returns 0,
 * and a stamp with csum_base 0 writes nothing either (a template's real
 * sum is never 0), so no half-built frame comes of it.
 */
uint32_t txp_frame_template(void *buf, unsigned len, const struct txp_frame_addr *a);
void txp_frame_stamp(void *buf, uint32_t csum_base, uint32_t flow, uint64_t seq);

/*
 * Check that buf holds a frame of txpath's: Ethernet/IPv4/UDP with valid
 * lengths and checksums and the magic word; on success *flow and *seq.
 * The pattern after them is checked too, so a corrupted frame fails.
 */
bool txp_frame_parse(const void *buf, unsigned len, uint32_t *flow, uint64_t *seq);

#ifdef __cplusplus
}
#endif

#endif
