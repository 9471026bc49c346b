/*
 * txpath/pkt.h - the packet (struct sk_buff of the seeds), and packet pools.
 *
 * A packet is a head plus nr_frags fragments; a driver needs one
 * descriptor for each, so nr_frags + 1 in all.  Whoever holds a packet
 * owns it: the producer until txp_dev_queue_xmit(), then the qdisc, then
 * the driver, until it is completed or dropped.
 *
 * The bytes: the head is head_len bytes at data, inside a head buffer
 * (buf, buf_size bytes; data - buf is the headroom, for headers pushed in
 * front); fragment i is frags[i].len bytes at frags[i].data.  On the wire
 * the frame is the head, then the fragments in order: len bytes in all,
 * len == head_len + the fragments' lengths.  The bytes belong to whoever
 * owns the packet, as the packet does: the producer writes them before
 * txp_dev_queue_xmit() and never after; a driver reads them until it
 * completes or drops the packet (a driver that sends bytes refuses, as
 * TXP_DROP_DRIVER, a packet whose lengths do not add up).  Drivers that
 * send no bytes (sim, null) read only len and nr_frags, so a packet for
 * them needs no buffer at all.
 *
 * Buffers come from a pool made with buffers (txp_pkt_pool_create_cfg:
 * every packet has a head buffer of the size chosen then), or are the
 * user's own: point data/buf or frags at them, and set a destructor,
 * which runs once as the packet is freed, transmitted or dropped, after
 * which nothing touches those bytes again (the user's release hook).
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

/* A fragment: len bytes at data. */
struct txp_frag {
	void *data;
	uint32_t len;
};

/*
 * The first 64 bytes are everything the core, the qdiscs and the drivers
 * touch per packet (one cache line, the first of its slot in a pool); the
 * head buffer's bounds and the fragments follow, read only by a driver
 * that sends bytes, and only the first nr_frags fragments.
 */
struct txp_pkt {
	struct txp_pkt *next;	/* link for whoever owns the packet now */
	unsigned char *data;	/* the head's first byte; NULL: no bytes */
	uint64_t seq;		/* sequence number within its flow */
	uint32_t flow;		/* flow id: one per producer */
	uint32_t len;		/* bytes on the wire: head_len + the fragments' */
	uint32_t head_len;	/* bytes at data */
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
	 * sender gets its send budget back (skb->destructor, sock_wfree),
	 * and how the user's own buffers are released. */
	void (*destructor)(struct txp_pkt *pkt);
	struct txp_pkt_pool *pool;	/* home pool; NULL: from the heap */

	/* -- cold: read by drivers that send bytes, and destructors ----- */
	void *sk;		/* the sender's, for the destructor: meaningful
				 * only while destructor is set (not zeroed) */
	/* The head buffer (data - buf is the headroom), buf_size bytes;
	 * meaningful while data is not NULL. */
	unsigned char *buf;
	uint32_t buf_size;
	unsigned char *home_buf;	/* the pool's buffer for it: the pool's */
	struct txp_frag frags[TXP_MAX_FRAGS];

	/* -- the kernel's offload fields (txpath/kernel.h), for drivers in
	 * the kernel's style.  Zero in a new packet; the core and the
	 * qdiscs never read them.  data_len is len - head_len, the bytes
	 * in fragments (skb->data_len): kept by txp_pkt_add_frag() and
	 * txp_pkt_attach_head(), and by txpath's own producers, whose
	 * frames also say their protocol (IPv4). */
	uint32_t data_len;
	uint16_t gso_size, gso_segs;	/* TSO: MSS and segments; 0: not GSO */
	uint32_t gso_type;		/* SKB_GSO_* */
	uint16_t csum_start, csum_offset;	/* CHECKSUM_PARTIAL: from data */
	uint16_t protocol;		/* ethertype, big-endian (skb->protocol) */
	uint16_t vlan_proto, vlan_tci;	/* a VLAN tag to insert when vlan_proto != 0 */
	uint8_t ip_summed;		/* CHECKSUM_NONE (0) .. CHECKSUM_PARTIAL */
	uint8_t no_fcs;			/* the device must not append its FCS */
	uint8_t tx_flags;		/* SKBTX_* */
	char cb[48];			/* the driver's scratch area (skb->cb) */
	uint32_t truesize;		/* skb->truesize: a receive path's; unused */
	uint32_t tail;			/* skb->tail: a receive path's; unused */
	uint8_t pkt_type;		/* skb->pkt_type: a receive path's; unused */
};

/* Bytes free before data (for headers pushed in front), and after the head. */
static inline uint32_t txp_pkt_headroom(const struct txp_pkt *pkt)
{
	return (uint32_t)(pkt->data - pkt->buf);
}

static inline uint32_t txp_pkt_tailroom(const struct txp_pkt *pkt)
{
	return pkt->buf_size - txp_pkt_headroom(pkt) - pkt->head_len;
}

/* Append n bytes to the head (skb_put): returns where they go, or NULL
 * (nothing changed) if the tailroom is smaller.  Owner only. */
unsigned char *txp_pkt_put(struct txp_pkt *pkt, uint32_t n);
/* Prepend n bytes to the head (skb_push): returns the new data, or NULL
 * (nothing changed) if the headroom is smaller.  Owner only. */
unsigned char *txp_pkt_push(struct txp_pkt *pkt, uint32_t n);
/* Add a fragment of len bytes at data (the caller's memory, released by
 * its destructor); len grows by it.  -ENOSPC with TXP_MAX_FRAGS already.
 * Owner only. */
int txp_pkt_add_frag(struct txp_pkt *pkt, void *data, uint32_t len);
/* Make the caller's size bytes at buf the head buffer, the head the len
 * bytes after headroom; len is then head_len (no fragments).  The
 * destructor releases buf.  -EINVAL if headroom + len > size.  Owner only. */
int txp_pkt_attach_head(struct txp_pkt *pkt, void *buf, uint32_t size, uint32_t headroom,
			uint32_t len);
/* Do the head and the fragments hold len bytes (data set when head_len is
 * not 0, every fragment's too, head_len + fragments == len)? */
bool txp_pkt_bytes_ok(const struct txp_pkt *pkt);
/* Copy the frame (head, then fragments) into dst, which holds cap bytes:
 * returns len, or 0 (dst untouched) if !txp_pkt_bytes_ok() or len > cap. */
uint32_t txp_pkt_gather(const struct txp_pkt *pkt, void *dst, uint32_t cap);

/* A zeroed packet from the heap, or NULL when memory is exhausted. */
struct txp_pkt *txp_pkt_alloc(void);
/* Run the destructor, if any, and free: back to its pool, or the heap.
 * Any thread.  NULL: nothing.  A packet goes home to the pool its pool
 * field names: one changed (a packet of another pool, or of the heap,
 * freed into this one) makes that pool hand out a slot it does not own,
 * with its own buffer size over the slot's buffer, and is caught only at
 * txp_pkt_pool_destroy().  Freeing a packet twice is undefined. */
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

/* A pool whose packets carry head buffers. */
struct txp_pkt_pool_cfg {
	unsigned capacity;	/* packets; 0: no limit (not with area) */
	uint32_t buf_size;	/* bytes of each head buffer; 0: no buffers */
	uint32_t headroom;	/* data starts this far into it; < buf_size */
	/* NULL: the pool allocates the buffers.  Else capacity * buf_size
	 * bytes of the caller's, carved in order (an AF_XDP UMEM, see
	 * txpath/net.h): the pool never frees them. */
	unsigned char *area;
};

/*
 * A pool as cfg says, owned by the calling thread: each packet allocated
 * has buf, buf_size set, data at buf + headroom, head_len 0.  NULL when
 * cfg is NULL, memory is short or cfg is inconsistent (headroom >=
 * buf_size, an area without capacity).
 */
struct txp_pkt_pool *txp_pkt_pool_create_cfg(const struct txp_pkt_pool_cfg *cfg);

/*
 * Destroy a pool.  Every one of its packets must be home (freed): false,
 * and nothing is freed, if some are still out, if a packet of another
 * pool (or of the heap) was freed into it, if one was freed twice (a leak
 * is safer than a use after free), or if memory is short for the check.
 * Any thread, once the owner and every thread that freed its packets are
 * done with it (joined, or otherwise ordered).  NULL: true.  A pool
 * destroyed is gone: destroying it again is undefined, as free() is.
 */
bool txp_pkt_pool_destroy(struct txp_pkt_pool *pool);

/*
 * Allocate up to n packets into pkts: the first cache line's fields zeroed
 * but pool (and data, in a pool with buffers); returns how
 * many (fewer, even 0, when a capacity-bound pool has that few home).
 * Owner only: single-consumer.  No malloc unless the pool must grow.
 */
unsigned txp_pkt_pool_alloc_bulk(struct txp_pkt_pool *pool, struct txp_pkt **pkts, unsigned n);
/* One packet, or NULL (see txp_pkt_pool_alloc_bulk).  Owner only.  Both:
 * pool (or pkts) NULL: nothing allocated. */
struct txp_pkt *txp_pkt_pool_alloc(struct txp_pkt_pool *pool);

#ifdef __cplusplus
}
#endif

#endif
