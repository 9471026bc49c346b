/*
 * txpath/pkt.h - the packet (struct sk_buff of the seeds), and packet pools.
 *
 * A packet is a head plus nr_frags fragments; a driver needs one
 * descriptor for each, so nr_frags + 1 in all.  Whoever holds a packet
 * owns it: the producer until txp_dev_queue_xmit(), then the qdisc, then
 * the driver, until it is completed or dropped.
 *
 * Packets come from the heap (txp_pkt_alloc: one malloc each) or from a
 * pool (txp_pkt_pool_alloc: no malloc on the hot path).  A pool belongs
 * to the thread that created it, which alone allocates from it; any
 * thread may free a pool's packets (the completion context frees what a
 * producer allocated), and they go home to their pool.
 */
#ifndef TXPATH_PKT_H
#define TXPATH_PKT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest fragment count a packet may carry (MAX_SKB_FRAGS in 2.6). */
#define TXP_MAX_FRAGS 18

struct txp_pkt_pool;

/* 64 bytes: one cache line each in a pool. */
struct txp_pkt {
	struct txp_pkt *next;	/* link for whoever owns the packet now */
	uint64_t seq;		/* sequence number within its flow */
	uint32_t flow;		/* flow id: one per producer */
	uint32_t len;		/* bytes on the wire */
	uint16_t nr_frags;	/* fragments beyond the head, <= TXP_MAX_FRAGS */
	uint8_t priority;	/* 0..15, as skb->priority; picks the band */
	/*
	 * Set by the core for start_xmit only: another packet follows at
	 * once, so the driver may leave its doorbell for the last one
	 * (skb->xmit_more of Linux 3.18).  The core clears it on the last
	 * packet of a batch; a batch can still end early when the queue is
	 * found stopped, so a driver that defers its doorbell rings it
	 * when !xmit_more *or* when it stops the queue, as Linux drivers do.
	 */
	uint8_t xmit_more;
	/* The queue the packet was sent on (skb->queue_mapping), set by the
	 * core at txp_dev_queue_xmit(). */
	uint16_t queue_mapping;
	/* The sender has nothing of this flow in flight: the flow may move
	 * to another queue without reordering (skb->ooo_okay). */
	uint8_t ooo_okay;
	/* Called as the packet is freed, transmitted or dropped: how its
	 * sender gets its send budget back (skb->destructor, sock_wfree). */
	void (*destructor)(struct txp_pkt *pkt);
	void *sk;		/* the sender's, for the destructor */
	struct txp_pkt_pool *pool;	/* home pool; NULL: from the heap */
};

/* A zeroed packet from the heap, or NULL when memory is exhausted. */
struct txp_pkt *txp_pkt_alloc(void);
/* Run the destructor, if any, and free: back to its pool, or the heap.
 * Any thread. */
void txp_pkt_free(struct txp_pkt *pkt);
/* Free a list linked through ->next (NULL-terminated).  Any thread.  Runs
 * of packets of one pool go home with one atomic operation. */
void txp_pkt_free_list(struct txp_pkt *list);

/* -- pools --------------------------------------------------------------- */

/*
 * A pool of at most `capacity` packets (0: no limit; it grows by chunks),
 * owned by the calling thread.  With a capacity, the pool is the sender's
 * send buffer: once every packet is out, allocation fails until some come
 * back, as a socket's sk_wmem_alloc does.  NULL when memory is short.
 */
struct txp_pkt_pool *txp_pkt_pool_create(unsigned capacity);

/*
 * Destroy a pool.  Every one of its packets must be home (freed): false,
 * and nothing is freed, if some are still out (a leak is safer than a
 * use after free).  Any thread, once the owner and every thread that
 * freed its packets are done with it (joined, or otherwise ordered).
 */
bool txp_pkt_pool_destroy(struct txp_pkt_pool *pool);

/*
 * Allocate up to n packets into pkts: fields zeroed but pool; returns how
 * many (fewer, even 0, when a capacity-bound pool has that few home).
 * Owner only: single-consumer.  No malloc unless the pool must grow.
 */
unsigned txp_pkt_pool_alloc_bulk(struct txp_pkt_pool *pool, struct txp_pkt **pkts, unsigned n);
/* One packet, or NULL (see txp_pkt_pool_alloc_bulk).  Owner only. */
struct txp_pkt *txp_pkt_pool_alloc(struct txp_pkt_pool *pool);

#ifdef __cplusplus
}
#endif

#endif
