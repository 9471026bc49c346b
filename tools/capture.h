/*
 * capture.h - a pcap capture in memory, for `txpath replay`: its Ethernet
 * frames as captured, each with its time and its flow (the 5-tuple's
 * hash), and address rewrites that keep the IPv4, TCP and UDP checksums
 * right.
 */
#ifndef TXP_TOOL_CAPTURE_H
#define TXP_TOOL_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cap_frame {
	unsigned char *data;	/* caplen bytes, as captured */
	uint32_t len;
	uint32_t flow;		/* capture_flow(): hash of the 5-tuple, else of the MACs */
	uint64_t ts_ns;		/* capture time */
};

struct capture {
	struct cap_frame *frame;
	size_t n;
	uint32_t max_len;	/* the longest frame */
	uint64_t bytes;		/* all frames' */
	uint64_t truncated;	/* frames captured shorter than they were */
	uint64_t empty;		/* zero-length records: skipped, not frames */
};

/* Read every frame of the pcap file path (records of zero bytes counted
 * in c->empty, not kept).  0, or -1 and one line in err: the file
 * unreadable or not a capture, a link type other than Ethernet (named),
 * no frames. */
int capture_load(struct capture *c, const char *path, char *err, size_t errlen);
void capture_free(struct capture *c);

/* What to rewrite in every frame (each field only if its flag is set);
 * addresses in host order. */
struct cap_rewrite {
	bool src_mac, dst_mac, src_ip, dst_ip;
	uint8_t smac[6], dmac[6];
	uint32_t sip, dip;
};

/* Apply rw to every frame: MACs of every frame, IPv4 addresses of IPv4
 * frames (untagged, or under one or two 802.1Q/802.1ad tags), with the
 * IPv4 header checksum and the TCP or UDP checksum updated (a UDP
 * checksum of 0, none, stays 0).  Returns the frames whose IPv4
 * addresses were changed. */
uint64_t capture_rewrite(struct capture *c, const struct cap_rewrite *rw);

/* A record's time in ns from libpcap's seconds and nanoseconds: the
 * seconds as pcap stores them, unsigned 32 bits (libpcap gives those
 * past 2^31 negative). */
uint64_t capture_time_ns(int64_t sec, int64_t nsec);

/* The flow of a frame (VLAN tags skipped): hash of its IPv4 5-tuple
 * (ports for TCP and UDP, first fragments only), else of its Ethernet
 * addresses and type. */
uint32_t capture_flow(const unsigned char *f, uint32_t len);

#endif
