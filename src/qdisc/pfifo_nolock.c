/*
 * pfifo_nolock.c - pfifo_fast without the root lock (TCQ_F_NOLOCK).
 *
 * Each band is a bounded ring of packet pointers, as Linux's skb_array on
 * ptr_ring: a slot holds a packet or NULL; producers, any number, take the
 * band's small producer lock, check that the slot under their index is
 * free and fill it; the one consumer (the context holding the qdisc's
 * seqlock) takes the packet out of the slot under its index and frees the
 * slot.  A packet put back (requeue) waits on a list of its own, taken
 * first (the kernel's gso_skb), guarded by the seqlock.
 *
 * The slots and the state bits go through the concurrency seam, so the
 * explorer sees every producer, consumer and runner step; the indices are
 * plain, each guarded by its lock (the producer lock, the seqlock).
 */
#include <errno.h>
#include <stdlib.h>

#include "nolock.h"
#include "txpath/dev.h"

#define PFIFO_BANDS 3

struct nolock_band {
	/* ptr_ring's producer side: its lock and the next slot to fill. */
	struct txp_spinlock producer_lock;
	unsigned producer;
	/* The consumer side, the seqlock holder's alone (on the producers'
	 * line: a qdisc's private state is 16-byte aligned, not 64). */
	unsigned consumer;
	unsigned size;
	_Atomic(struct txp_pkt *) *slot;
	/* Statistics for the backlog: produced under the producer lock,
	 * consumed under the seqlock; never synchronisation. */
	_Atomic uint64_t produced, consumed;
};

struct pfifo_nolock {
	struct txp_qdisc_nolock nl;	/* first: txp__qdisc_nolock() */
	struct txp_pkt *requeued;	/* put back, next out first (seqlock) */
	unsigned nrequeued;
	struct nolock_band band[PFIFO_BANDS];
};

static struct pfifo_nolock *pfifo(struct txp_qdisc *q)
{
	return (struct pfifo_nolock *)(void *)q->priv;
}

/* A statistic bumped by the holder of the lock that guards it. */
static inline void stat_bump(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static int pfifo_nolock_init(struct txp_qdisc *q, unsigned limit)
{
	struct pfifo_nolock *p = pfifo(q);

	txp_spin_init(&p->nl.seqlock, "qdisc seqlock");
	atomic_init(&p->nl.state, 0);
	for (unsigned i = 0; i < PFIFO_BANDS; i++) {
		struct nolock_band *b = &p->band[i];

		txp_spin_init(&b->producer_lock, "ptr_ring producer lock");
		b->size = limit ? limit : 1;
		b->slot = calloc(b->size, sizeof(*b->slot));
		if (!b->slot) {
			while (i-- > 0)
				free(p->band[i].slot);
			return -ENOMEM;
		}
		for (unsigned s = 0; s < b->size; s++)
			atomic_init(&b->slot[s], NULL);
		atomic_init(&b->produced, 0);
		atomic_init(&b->consumed, 0);
	}
	return 0;
}

static void pfifo_nolock_destroy(struct txp_qdisc *q)
{
	for (unsigned i = 0; i < PFIFO_BANDS; i++)
		free(pfifo(q)->band[i].slot);
}

/* __ptr_ring_produce under the band's producer lock.  Multi-producer safe. */
static int pfifo_nolock_enqueue(struct txp_qdisc *q, struct txp_pkt *pkt)
{
	struct nolock_band *b = &pfifo(q)->band[txp_pfifo_fast_band(pkt->priority)];
	int rc = TXP_XMIT_DROP;

	pkt->next = NULL;
	txp_spin_lock(&b->producer_lock);
	/* Acquire: pairs with the release that frees the slot in
	 * band_consume(), so the consumer is done with what it held. */
	if (!txp_load_acquire(&b->slot[b->producer])) {
		/* Release: the packet's fields before the pointer; pairs with
		 * the acquire in band_consume(). */
		txp_store_release(&b->slot[b->producer], pkt);
		b->producer = b->producer + 1 == b->size ? 0 : b->producer + 1;
		stat_bump(&b->produced);
		rc = TXP_XMIT_OK;
	}
	txp_spin_unlock(&b->producer_lock);
	return rc;
}

/* __ptr_ring_consume: the band's next packet, or NULL.  Caller holds the
 * seqlock. */
static struct txp_pkt *band_consume(struct nolock_band *b)
{
	/* Acquire: pairs with the release in pfifo_nolock_enqueue(). */
	struct txp_pkt *pkt = txp_load_acquire(&b->slot[b->consumer]);

	if (!pkt)
		return NULL;
	/* Release: done with the slot; pairs with the producer's acquire. */
	txp_store_release(&b->slot[b->consumer], NULL);
	b->consumer = b->consumer + 1 == b->size ? 0 : b->consumer + 1;
	stat_bump(&b->consumed);
	return pkt;
}

static struct txp_pkt *bands_consume(struct pfifo_nolock *p)
{
	struct txp_pkt *pkt = NULL;

	for (unsigned i = 0; i < PFIFO_BANDS && !pkt; i++)
		pkt = band_consume(&p->band[i]);
	return pkt;
}

/*
 * pfifo_fast_dequeue, lockless: a packet put back first, then band 0 before
 * band 1 before band 2.  From 5.13 on, an empty look with a "not empty" bit
 * set (a producer that missed the seqlock since) clears the bits and looks
 * once more, after a full barrier: a producer that sets MISSED after the
 * clear is seen by run_end, one that set it before has its packet seen by
 * the second look.  Caller holds the seqlock.
 */
static struct txp_pkt *pfifo_nolock_dequeue(struct txp_qdisc *q)
{
	struct pfifo_nolock *p = pfifo(q);
	unsigned long non_empty = txp__qdisc_non_empty_bits(q);
	struct txp_pkt *pkt = p->requeued;

	txp_assert_held(&p->nl.seqlock);
	if (pkt) {
		p->requeued = pkt->next;
		p->nrequeued--;
		pkt->next = NULL;
		return pkt;
	}
	pkt = bands_consume(p);
	if (pkt || q->ops->nolock < TXP_NOLOCK_MISSED ||
	    !(txp_load_relaxed(&p->nl.state) & non_empty))
		return pkt;
	txp_fetch_and_relaxed(&p->nl.state, ~non_empty);	/* clear_bit() */
	/* smp_mb__after_atomic(): the clear before the second look. */
	txp_smp_mb__after_atomic();
	return bands_consume(p);
}

/* Back at the head: caller holds the seqlock. */
static void pfifo_nolock_requeue(struct txp_qdisc *q, struct txp_pkt *pkt)
{
	struct pfifo_nolock *p = pfifo(q);

	txp_assert_held(&p->nl.seqlock);
	pkt->next = p->requeued;
	p->requeued = pkt;
	p->nrequeued++;
}

/* What the bands and the requeue list hold: caller holds the seqlock. */
static unsigned pfifo_nolock_backlog(struct txp_qdisc *q)
{
	struct pfifo_nolock *p = pfifo(q);
	uint64_t n = p->nrequeued;

	txp_assert_held(&p->nl.seqlock);
	for (unsigned i = 0; i < PFIFO_BANDS; i++)
		n += txp_counter_read(&p->band[i].produced) - txp_counter_read(&p->band[i].consumed);
	return (unsigned)n;
}

#define PFIFO_NOLOCK_OPS(name, id_, rev)				\
	const struct txp_qdisc_ops name = {				\
		.id = id_,						\
		.priv_size = sizeof(struct pfifo_nolock),		\
		.nolock = rev,						\
		.init = pfifo_nolock_init,				\
		.destroy = pfifo_nolock_destroy,			\
		.enqueue = pfifo_nolock_enqueue,			\
		.dequeue = pfifo_nolock_dequeue,			\
		.requeue = pfifo_nolock_requeue,			\
		.backlog = pfifo_nolock_backlog,			\
	}

PFIFO_NOLOCK_OPS(txp_pfifo_nolock_trylock_ops, "nolock-5.1", TXP_NOLOCK_TRYLOCK);
PFIFO_NOLOCK_OPS(txp_pfifo_nolock_missed_ops, "nolock-5.13", TXP_NOLOCK_MISSED);
PFIFO_NOLOCK_OPS(txp_pfifo_nolock_barrier_ops, "nolock-5.19", TXP_NOLOCK_BARRIER);
PFIFO_NOLOCK_OPS(txp_pfifo_nolock_ops, "nolock", TXP_NOLOCK_DRAINING);
