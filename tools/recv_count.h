/*
 * recv_count.h - what `txpath recv` counts of the frames it is given:
 * txpath's frames go to the per-flow accounting (flows.h), the others are
 * told apart as damaged (bad) or someone else's (alien).  And a pcap
 * capture, from a file or from memory, read through it.
 *
 * Pure: no printing, no exit; single-threaded.
 */
#ifndef TXP_TOOL_RECV_COUNT_H
#define TXP_TOOL_RECV_COUNT_H

#include <stddef.h>
#include <stdint.h>

#include "flows.h"

struct recv_count {
	uint64_t frames;	/* every frame given */
	uint64_t alien;		/* not txpath's */
	uint64_t bad;		/* txpath's magic word, but damaged or truncated */
	struct flows *flows;	/* the rest: txpath's frames, by flow */
};

/* txpath's frames: the ones the flows were given. */
static inline uint64_t recv_count_ours(const struct recv_count *rc)
{
	return rc->frames - rc->alien - rc->bad;
}

/* Count one frame of len bytes. */
void recv_count_frame(struct recv_count *rc, const unsigned char *data, unsigned len);

/* Count every frame of the pcap file at path, or of the len bytes of a
 * pcap file at buf.  0, or -1 and a message in err (the frames before
 * the error are counted). */
int recv_count_pcap_file(struct recv_count *rc, const char *path, char *err, size_t errlen);
int recv_count_pcap_buffer(struct recv_count *rc, const void *buf, size_t len, char *err,
			   size_t errlen);

#endif
