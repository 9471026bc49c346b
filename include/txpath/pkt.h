/*
 * txpath/pkt.h - the packet (struct sk_buff of the seeds).
 *
 * A packet is a head plus nr_frags fragments; a driver needs one
 * descriptor for each, so nr_frags + 1 in all.  Whoever holds a packet
 * owns it: the producer until txp_dev_queue_xmit(), then the qdisc, then
 * the driver, until it is completed or dropped.
 */
#ifndef TXPATH_PKT_H
#define TXPATH_PKT_H

#include <stdint.h>

/* Largest fragment count a packet may carry (MAX_SKB_FRAGS in 2.6). */
#define TXP_MAX_FRAGS 18

struct txp_pkt {
	struct txp_pkt *next;	/* link for whoever owns the packet now */
	uint64_t seq;		/* sequence number within its flow */
	uint32_t flow;		/* flow id: one per producer */
	uint32_t len;		/* bytes on the wire */
	uint16_t nr_frags;	/* fragments beyond the head, <= TXP_MAX_FRAGS */
	uint8_t priority;	/* 0..15, as skb->priority; picks the band */
	/* Called as the packet is freed, transmitted or dropped: how its
	 * sender gets its send budget back (skb->destructor, sock_wfree). */
	void (*destructor)(struct txp_pkt *pkt);
	void *sk;		/* the sender's, for the destructor */
};

/* A zeroed packet, or NULL when memory is exhausted. */
struct txp_pkt *txp_pkt_alloc(void);
/* Run the destructor, if any, and free. */
void txp_pkt_free(struct txp_pkt *pkt);

#endif
