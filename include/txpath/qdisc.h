/*
 * txpath/qdisc.h - queueing disciplines, each a const ops table.
 *
 * A qdisc either runs under its queue's root lock (the kernel's
 * dev->queue_lock): every op is called with it held and the qdisc has no
 * locking of its own; or it locks for itself (TCQ_F_NOLOCK, Linux 4.16+:
 * ops->nolock is set): enqueue is multi-producer safe and takes no root
 * lock, dequeue and requeue are called with the qdisc's own seqlock held,
 * which one context at a time takes by trylock (qdisc_run_begin) and
 * releases when it stops running the queue (qdisc_run_end).
 */
#ifndef TXPATH_QDISC_H
#define TXPATH_QDISC_H

#include <stddef.h>

#include "txpath/pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct txp_qdisc;

/*
 * The history of the lockless qdisc's run protocol (qdisc_run_begin and
 * qdisc_run_end in include/net/sch_generic.h, and how dequeue and a
 * stopped queue treat the state bits), one step per fix.  txpath's eras
 * 5.1-nolock .. 6.18-draining pick one each.
 */
enum txp_nolock_rev {
	TXP_NOLOCK_NONE,	/* not lockless: runs under the root lock */
	TXP_NOLOCK_TRYLOCK,	/* 5.1: run_begin is a trylock of the seqlock,
				 * run_end its unlock; a producer whose trylock
				 * fails leaves its packet to the holder, who
				 * may have found the qdisc empty already (the
				 * packet stuck problem, fixed in 2021) */
	TXP_NOLOCK_MISSED,	/* 5.13: a failed trylock sets MISSED and tries
				 * once more; run_end reschedules on MISSED;
				 * dequeue clears it on empty and looks again */
	TXP_NOLOCK_BARRIER,	/* the same with 2022's two barriers:
				 * test_and_set_bit(MISSED), ordered after the
				 * enqueue (Vincent Ray, Eric Dumazet), and an
				 * smp_mb() between run_end's unlock (a release
				 * store) and its test of MISSED (a later load;
				 * Guoju Fang) */
	TXP_NOLOCK_DRAINING,	/* as in 6.18: the 2022 barriers; a stopped
				 * queue clears MISSED and sets DRAINING (both
				 * mean "not empty"; with the lockless bypass,
				 * since 5.14); running out of quota sets MISSED */
};

struct txp_qdisc_ops {
	const char *id;
	size_t priv_size;	/* bytes of private state after struct txp_qdisc */

	/* TCQ_F_NOLOCK and which history it follows; TXP_NOLOCK_NONE for a
	 * qdisc under the root lock. */
	enum txp_nolock_rev nolock;

	/* Set up an empty qdisc holding at most limit packets per band:
	 * 0, or -ENOMEM.  Before any context uses it. */
	int (*init)(struct txp_qdisc *q, unsigned limit);
	/* Free what init allocated (NULL: nothing).  No context uses it. */
	void (*destroy)(struct txp_qdisc *q);
	/* Take pkt, or refuse it (full): 0 or TXP_XMIT_DROP, and then the
	 * packet is still the caller's, who drops it with a reason.
	 * Lockless: any context, no lock held (multi-producer safe).
	 * NULL: no queue at all (noqueue): the core calls the driver directly. */
	int (*enqueue)(struct txp_qdisc *q, struct txp_pkt *pkt);
	/* The next packet to send, or NULL when empty.  Lockless: caller
	 * holds the seqlock. */
	struct txp_pkt *(*dequeue)(struct txp_qdisc *q);
	/* Put back a packet just dequeued, so it is the next one out.
	 * Lockless: caller holds the seqlock. */
	void (*requeue)(struct txp_qdisc *q, struct txp_pkt *pkt);
	/* Packets held.  Lockless: caller holds the seqlock.  NULL: qlen. */
	unsigned (*backlog)(struct txp_qdisc *q);
};

struct txp_qdisc {
	const struct txp_qdisc_ops *ops;
	unsigned qlen;		/* packets held, all bands (root-locked qdiscs) */
#ifdef __cplusplus
	/* A flexible array member: a GNU extension in C++ that g++ and
	 * clang++ lay out as C does; -Wpedantic says so, and is told. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
	alignas(16) unsigned char priv[];
#pragma GCC diagnostic pop
#else
	_Alignas(16) unsigned char priv[];
#endif
};

/* The default: three FIFO bands by priority, band 0 first (pfifo_fast). */
extern const struct txp_qdisc_ops txp_pfifo_fast_ops;
/* pfifo_fast without the root lock (TCQ_F_NOLOCK): each band a bounded
 * ring whose producers take a small lock of the band's, as ptr_ring's
 * do, and whose one consumer is the seqlock's holder; requeued packets
 * wait on a list of their own (gso_skb).  One kind per history:
 * "nolock-5.1", "nolock-5.13", "nolock-5.19", "nolock" (as in 6.18). */
extern const struct txp_qdisc_ops txp_pfifo_nolock_trylock_ops;
extern const struct txp_qdisc_ops txp_pfifo_nolock_missed_ops;
extern const struct txp_qdisc_ops txp_pfifo_nolock_barrier_ops;
extern const struct txp_qdisc_ops txp_pfifo_nolock_ops;
/* No queue (software devices): packets go straight to the driver. */
extern const struct txp_qdisc_ops txp_noqueue_ops;

/* Band of a priority in pfifo_fast (prio2band). */
unsigned txp_pfifo_fast_band(unsigned priority);

/* A qdisc of the given kind (calloc'd, init'ed); NULL when out of memory,
 * or when ops is NULL or has no init. */
struct txp_qdisc *txp_qdisc_create(const struct txp_qdisc_ops *ops, unsigned limit);
void txp_qdisc_destroy(struct txp_qdisc *q);
/* Packets q holds: caller holds the root lock, or a lockless q's seqlock. */
unsigned txp_qdisc_backlog(struct txp_qdisc *q);
/* Look a qdisc kind up by id ("pfifo_fast", "noqueue", "nolock", ...);
 * NULL if unknown. */
const struct txp_qdisc_ops *txp_qdisc_lookup(const char *id);
/* The kinds' ids, space-separated, in buf (len > 0), for messages. */
char *txp_qdisc_names(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
