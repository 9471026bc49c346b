/*
 * txpath/qdisc.h - queueing disciplines, each a const ops table.
 *
 * Every op is called with the owning queue's root lock held (the
 * kernel's dev->queue_lock); a qdisc has no locking of its own.
 */
#ifndef TXPATH_QDISC_H
#define TXPATH_QDISC_H

#include <stddef.h>

#include "txpath/pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct txp_qdisc;

struct txp_qdisc_ops {
	const char *id;
	size_t priv_size;	/* bytes of private state after struct txp_qdisc */

	/* Set up an empty qdisc holding at most limit packets per band. */
	void (*init)(struct txp_qdisc *q, unsigned limit);
	/* Take pkt, or refuse it (full): 0 or TXP_XMIT_DROP, and then the
	 * packet is still the caller's, who drops it with a reason.
	 * NULL: no queue at all (noqueue): the core calls the driver directly. */
	int (*enqueue)(struct txp_qdisc *q, struct txp_pkt *pkt);
	/* The next packet to send, or NULL when empty. */
	struct txp_pkt *(*dequeue)(struct txp_qdisc *q);
	/* Put back a packet just dequeued, so it is the next one out. */
	void (*requeue)(struct txp_qdisc *q, struct txp_pkt *pkt);
};

struct txp_qdisc {
	const struct txp_qdisc_ops *ops;
	unsigned qlen;		/* packets held, all bands */
#ifdef __cplusplus
	alignas(16) unsigned char priv[];	/* a flexible array: a GNU extension in C++ */
#else
	_Alignas(16) unsigned char priv[];
#endif
};

/* The default: three FIFO bands by priority, band 0 first (pfifo_fast). */
extern const struct txp_qdisc_ops txp_pfifo_fast_ops;
/* No queue (software devices): packets go straight to the driver. */
extern const struct txp_qdisc_ops txp_noqueue_ops;

/* Band of a priority in pfifo_fast (prio2band). */
unsigned txp_pfifo_fast_band(unsigned priority);

/* A qdisc of the given kind (calloc'd, init'ed); NULL when out of memory. */
struct txp_qdisc *txp_qdisc_create(const struct txp_qdisc_ops *ops, unsigned limit);
void txp_qdisc_destroy(struct txp_qdisc *q);
/* Look a qdisc kind up by id ("pfifo_fast", "noqueue"); NULL if unknown. */
const struct txp_qdisc_ops *txp_qdisc_lookup(const char *id);

#ifdef __cplusplus
}
#endif

#endif
