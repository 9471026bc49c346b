/*
 * nolock.h - what a lockless qdisc (TCQ_F_NOLOCK) shares with the core's
 * lockless run path (src/core/xmit_nolock.c): its seqlock and its state
 * bits, first in its private state, as struct Qdisc has them.
 */
#ifndef TXP_QDISC_NOLOCK_H
#define TXP_QDISC_NOLOCK_H

#include "sync/sync.h"
#include "txpath/qdisc.h"

/* The state bits (struct Qdisc's state). */
#define TXP_QDISC_MISSED   1ul	/* __QDISC_STATE_MISSED: a run was asked for and not had */
#define TXP_QDISC_DRAINING 2ul	/* __QDISC_STATE_DRAINING: found stopped, not empty */

struct txp_qdisc_nolock {
	/* Held by the one context running the qdisc (qdisc->seqlock). */
	struct txp_spinlock seqlock;
	/* TXP_QDISC_* bits, set and cleared with read-modify-writes (set_bit,
	 * clear_bit), tested with loads (test_bit): through the seam. */
	atomic_ulong state;
};

/* q's lockless state, or NULL when q runs under the root lock. */
static inline struct txp_qdisc_nolock *txp__qdisc_nolock(struct txp_qdisc *q)
{
	return q->ops->nolock ? (struct txp_qdisc_nolock *)(void *)q->priv : NULL;
}

/* The bits that say "not empty" to the bypass and to dequeue's second
 * look (QDISC_STATE_NON_EMPTY; DRAINING only in the 6.18 kind here, as
 * the 5.19 kind is 5.13's protocol with the 2022 barriers alone). */
static inline unsigned long txp__qdisc_non_empty_bits(const struct txp_qdisc *q)
{
	return q->ops->nolock >= TXP_NOLOCK_DRAINING ? TXP_QDISC_MISSED | TXP_QDISC_DRAINING
						     : TXP_QDISC_MISSED;
}

#endif
