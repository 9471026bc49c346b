/*
 * xmit.c - the transmit path's entry points: dev_queue_xmit() and the
 * burst calls, which pick each packet's queue and hand each queue its
 * packets by the path its qdisc takes (__dev_xmit_skb: a device without
 * a queue, here; the lockless qdisc, the defer list, or the root lock),
 * and net_tx_action(), which runs the queues that were scheduled.  The
 * paths, and the locks they take: xmit.h.
 */
#include <errno.h>

#include "xmit.h"

/* -- queue selection (netdev_core_pick_tx) ------------------------------- */

/* reciprocal_scale(): val onto [0, n) without a division. */
static inline unsigned reciprocal_scale(uint32_t val, unsigned n)
{
	return (unsigned)(((uint64_t)val * n) >> 32);
}

/* The flow hash of a packet (skb_get_hash): its flow id, mixed so that
 * consecutive ids spread over the queues. */
static inline uint32_t flow_hash(uint32_t flow)
{
	flow ^= flow >> 16;
	flow *= 0x7feb352du;
	flow ^= flow >> 15;
	flow *= 0x846ca68bu;
	return flow ^ (flow >> 16);
}

/* The queue for a packet that has none: XPS by sending context, else the
 * flow hash. */
static inline unsigned pick_new(struct txp_dev *dev, const struct txp_pkt *pkt, int self)
{
	int q = txp_load_relaxed(&dev->xps[self]);

	if (q >= 0 && (unsigned)q < dev->num_tx_queues)
		return (unsigned)q;
	return reciprocal_scale(flow_hash(pkt->flow), dev->num_tx_queues);
}

static inline unsigned pick_tx(struct txp_dev *dev, struct txp_pkt *pkt, int *cache, int self)
{
	unsigned n = dev->num_tx_queues, q;

	if (dev->ops->select_queue) {
		q = dev->ops->select_queue(dev, pkt);
		if (txp_unlikely(q >= n)) {
			/* netdev_cap_txqueue() */
			txp__dev_log(dev, "%s selects tx queue %u, but only %u are there",
				     dev->name, q, n);
			q = 0;
		}
		return q;
	}
	if (cache && *cache >= 0 && (unsigned)*cache < n && !pkt->ooo_okay)
		return (unsigned)*cache;
	q = pick_new(dev, pkt, self);
	if (cache)
		*cache = (int)q;
	return q;
}

unsigned txp_dev_pick_tx(struct txp_dev *dev, struct txp_pkt *pkt, int *cache)
{
	return dev->num_tx_queues == 1 ? 0 : pick_tx(dev, pkt, cache, txp_ctx_self());
}

/* -- a device without a queue (noqueue) --------------------------------- */

/* noqueue_send() results. */
enum noqueue_sent {
	NOQUEUE_DROPPED = -1,	/* a dead loop: dropped, counted */
	NOQUEUE_REFUSED = 0,	/* stopped or busy: still the caller's */
	NOQUEUE_TAKEN = 1,	/* the driver's now */
};

/* Hand pkt to the driver of a device without a queue, under the xmit lock
 * in core mode.  A recursion into its own queue is dropped as a dead loop. */
static enum noqueue_sent noqueue_send(struct txp_txq *txq, struct txp_pkt *pkt, int self)
{
	struct txp_dev *dev = txq->dev;
	bool core = dev->lock == TXP_LOCK_CORE;
	enum txp_tx rc = TXP_TX_BUSY;
	struct txp__xmit_watch w;

	if (core) {
		if (txp_spin_owner(&txq->xmit_lock) == self) {
			txp__drop(txq, self, pkt, TXP_DROP_DEAD_LOOP);
			txp__dev_log(dev, "Dead loop on virtual device %s, fix it urgently!",
				     dev->name);
			return NOQUEUE_DROPPED;
		}
		xmit_lock_take(txq);
	}
	txp__xmit_watch(txq, self, &w);
	pkt->xmit_more = 0;
	if (!txp__txq_frozen_or_stopped(txq)) {
		txp__stat_add(txq, self, TXP__ST_XMIT_CALLS, 1);
		rc = txp__call_start_xmit(txq, pkt, self, &w);
	}
	if (core)
		xmit_lock_release(txq);
	return rc == TXP_TX_OK ? NOQUEUE_TAKEN : NOQUEUE_REFUSED;
}

/* The same, dropping what the driver did not take (dev_queue_xmit on a
 * device without a queue). */
static int noqueue_xmit(struct txp_txq *txq, struct txp_pkt *pkt, int self)
{
	enum noqueue_sent sent = noqueue_send(txq, pkt, self);

	if (sent != NOQUEUE_REFUSED)
		return sent == NOQUEUE_TAKEN ? TXP_XMIT_OK : TXP_XMIT_DROP;
	txp__drop(txq, self, pkt, TXP_DROP_VIRTUAL_BUSY);
	txp__dev_log(txq->dev, "Virtual device %s asks to queue packet!", txq->dev->name);
	return TXP_XMIT_DROP;
}

/* -- onto one queue (__dev_xmit_skb) ----------------------------------- */

/*
 * xmit_try_txq()'s root-locked part: queue what fits of pkts[0..n), in
 * order, or send them by the bypass, and run the queue.  busy: the
 * caller holds the busylock (a constant where this is inlined, so that
 * the uncontended path carries none of it).  Returns how many were taken.
 */
static inline __attribute__((always_inline)) unsigned
try_locked(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self, bool busy)
{
	struct txp_qdisc *q = txq->qdisc;
	struct txp_pkt *refused = NULL;
	unsigned taken = 0;

	txp_spin_lock_as(&txq->root_lock, self);
	/* Not past the packets pushed before (txp__defer_take()). */
	if (txp_unlikely(txq->dev->defer))
		refused = txp__defer_take(txq);
	if (__txp_try_bypass(txq, pkts, n, self)) {
		txp__stat_add(txq, self, TXP__ST_SUBMITTED, n);
		__txp_qdisc_run(txq, self, pkts, n, &busy);
		taken = n;
	} else {
		while (taken < n && q->ops->enqueue(q, pkts[taken]) == TXP_XMIT_OK)
			taken++;
		/* Counted before they can leave: the lock is still held. */
		txp__stat_add(txq, self, TXP__ST_SUBMITTED, taken);
		__txp_qdisc_run(txq, self, NULL, 0, &busy);
	}
	txp_spin_unlock(&txq->root_lock);
	txp__busylock_release(txq, &busy);
	if (txp_unlikely(refused != NULL))
		txp__drop_list(txq, self, refused, TXP_DROP_QDISC_LIMIT);
	return taken;
}

/* The same after the busylock (txp__busylock_wanted()): out of line. */
static __attribute__((noinline)) unsigned try_locked_busy(struct txp_txq *txq, struct txp_pkt **pkts,
							 unsigned n, int self)
{
	txp_spin_lock_as(&txq->busylock, self);
	return try_locked(txq, pkts, n, self, true);
}

/*
 * Queue what fits of pkts[0..n) on txq, in order, and stop at the first
 * packet that does not: returns how many were taken (counted as
 * submitted, then sent or queued); the others are still the caller's,
 * not counted.  txp_xmit_burst_try()'s half of xmit_burst_txq().
 */
static inline __attribute__((always_inline)) unsigned
xmit_try_txq(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	struct txp_qdisc *q = txq->qdisc;
	unsigned taken = 0;

	if (txp_unlikely(!txp_load_acquire(&txq->dev->up)))
		return 0;
	for (unsigned i = 0; i < n; i++)
		pkts[i]->queue_mapping = (uint16_t)txq->index;
	if (!q->ops->enqueue) {
		while (taken < n && noqueue_send(txq, pkts[taken], self) != NOQUEUE_REFUSED)
			taken++;
		txp__stat_add(txq, self, TXP__ST_SUBMITTED, taken);
		return taken;
	}
	if (q->ops->nolock)
		return txp__xmit_nolock(txq, pkts, n, self, true);
	if (txp_unlikely(txp__busylock_wanted(txq, self)))
		return try_locked_busy(txq, pkts, n, self);
	return try_locked(txq, pkts, n, self, false);
}

/*
 * xmit_burst_txq()'s root-locked part, the root lock held: pkts[0..n)
 * queued, or sent by the bypass, and the queue run; the lock released,
 * and what the qdisc refused dropped.  busy: as try_locked()'s.  Returns
 * how many were queued or sent.
 */
static inline __attribute__((always_inline)) unsigned
__burst_locked(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self, bool busy)
{
	struct txp_qdisc *q = txq->qdisc;
	struct txp_pkt *refused = NULL, **tail = &refused;
	unsigned queued = 0;

	txp_assert_held(&txq->root_lock);
	if (__txp_try_bypass(txq, pkts, n, self)) {
		queued = n;
		__txp_qdisc_run(txq, self, pkts, n, &busy);
	} else {
		for (unsigned i = 0; i < n; i++) {
			if (txp_likely(q->ops->enqueue(q, pkts[i]) == TXP_XMIT_OK)) {
				queued++;
			} else {
				/* Still ours: dropped once the lock is released. */
				*tail = pkts[i];
				tail = &pkts[i]->next;
			}
		}
		*tail = NULL;
		__txp_qdisc_run(txq, self, NULL, 0, &busy);
	}
	txp_spin_unlock(&txq->root_lock);
	txp__busylock_release(txq, &busy);
	if (txp_unlikely(refused != NULL))
		txp__drop_list(txq, self, refused, TXP_DROP_QDISC_LIMIT);
	return queued;
}

/* The same, taking the root lock. */
static inline __attribute__((always_inline)) unsigned
burst_locked(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self, bool busy)
{
	txp_spin_lock_as(&txq->root_lock, self);
	return __burst_locked(txq, pkts, n, self, busy);
}

/* The same after the busylock (txp__busylock_wanted()): out of line. */
static __attribute__((noinline)) unsigned burst_locked_busy(struct txp_txq *txq, struct txp_pkt **pkts,
							   unsigned n, int self)
{
	txp_spin_lock_as(&txq->busylock, self);
	return burst_locked(txq, pkts, n, self, true);
}

/*
 * A queue with a defer list: txpath's drainer's, when nobody has it and
 * it is empty and the root lock is free, is no list at all (the caller
 * takes the root lock as without one: a producer alone pays no locked
 * instruction for the list); else the list (xmit_defer.c).  Out of line:
 * inlined, it costs the path without a list a few instructions a packet.
 */
static __attribute__((noinline)) unsigned
burst_defer(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	if (txq->dev->defer == TXP_DEFER_DRAIN && txp__defer_idle(txq) &&
	    txp_spin_trylock_as(&txq->root_lock, self))
		return __burst_locked(txq, pkts, n, self, false);
	return txp__xmit_defer(txq, pkts, n, self);
}

/*
 * Queue pkts[0..n) on txq: one root lock acquisition, then the queue runs.
 * Takes ownership of every packet; returns how many were queued or sent.
 */
static inline __attribute__((always_inline)) unsigned
xmit_burst_txq(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	struct txp_dev *dev = txq->dev;
	struct txp_qdisc *q = txq->qdisc;
	unsigned queued = 0;

	txp__stat_add(txq, self, TXP__ST_SUBMITTED, n);
	for (unsigned i = 0; i < n; i++)
		pkts[i]->queue_mapping = (uint16_t)txq->index;
	if (txp_unlikely(!txp_load_acquire(&dev->up))) {
		for (unsigned i = 0; i < n; i++)
			txp__drop(txq, self, pkts[i], TXP_DROP_DEV_DOWN);
		return 0;
	}
	if (!q->ops->enqueue) {
		for (unsigned i = 0; i < n; i++)
			queued += noqueue_xmit(txq, pkts[i], self) == TXP_XMIT_OK;
		return queued;
	}
	if (q->ops->nolock)
		return txp__xmit_nolock(txq, pkts, n, self, false);
	if (dev->defer)
		return burst_defer(txq, pkts, n, self);
	if (txp_unlikely(txp__busylock_wanted(txq, self)))
		return burst_locked_busy(txq, pkts, n, self);
	return burst_locked(txq, pkts, n, self, false);
}

/* -- net_tx_action ------------------------------------------------------ */

/* Run txq, which was scheduled (its sched word was seen set). */
static __attribute__((noinline)) void tx_action_run(struct txp_txq *txq)
{
	struct txp_pkt *refused = NULL;
	int self;

	/* Acquire: pairs with the release in txp__netif_schedule(). */
	if (!txp_xchg(&txq->sched, 0))
		return;
	if (txq->qdisc->ops->nolock) {
		txp__nolock_tx_action(txq);
		return;
	}
	if (!txp_spin_trylock(&txq->root_lock)) {
		txp__netif_schedule(txq);
		return;
	}
	self = txp_ctx_self();
	if (txq->dev->defer == TXP_DEFER_DRAIN)
		refused = txp__defer_tx_action(txq, self);
	__txp_qdisc_run(txq, self, NULL, 0, NULL);
	txp_spin_unlock(&txq->root_lock);
	if (txp_unlikely(refused != NULL))
		txp__drop_list(txq, self, refused, TXP_DROP_QDISC_LIMIT);
}

/* Inlined: every transmit looks at every queue, and mostly none is
 * scheduled. */
static inline void tx_action_txq(struct txp_txq *txq)
{
	if (txp_unlikely(txp_load_relaxed(&txq->sched)))
		tx_action_run(txq);
}

/* net_tx_action(): run every queue that was scheduled.  By pointer, not
 * by index: a queue is tens of kilobytes (its counters), a size that
 * costs a multiplication per index. */
static inline void net_tx_action(struct txp_dev *dev)
{
	for (struct txp_txq *txq = dev->txqs, *end = txq + dev->num_tx_queues; txq < end; txq++)
		tx_action_txq(txq);
}

/* -- entry points ------------------------------------------------------ */

/*
 * pkts[0..n) onto their queues: runs of packets for one queue, in order,
 * each picked once (the pick that ends a run is the next run's queue).  A
 * flow's packets all pick the same queue, so no flow is reordered.  keep:
 * txp_xmit_burst_try()'s contract, stopping at the first run not taken
 * whole, so what follows stays the caller's and in order; else every
 * packet is the core's.  Returns how many were queued or sent.  Inlined
 * into both entry points, so keep is a constant in each.
 */
static inline __attribute__((always_inline)) unsigned
xmit_runs(struct txp_dev *dev, struct txp_pkt **pkts, unsigned n, bool keep)
{
	int self = txp_ctx_self();
	unsigned done = 0, i, j, q, next, got;

	if (txp_unlikely(!n))
		return 0;
	/* One queue: one run, nothing to pick. */
	next = dev->num_tx_queues == 1 ? 0 : pick_tx(dev, pkts[0], NULL, self);
	for (i = 0; i < n; i = j) {
		q = next;
		if (dev->num_tx_queues == 1)
			j = n;
		else
			for (j = i + 1; j < n; j++)
				if ((next = pick_tx(dev, pkts[j], NULL, self)) != q)
					break;
		got = keep ? xmit_try_txq(&dev->txqs[q], pkts + i, j - i, self)
			   : xmit_burst_txq(&dev->txqs[q], pkts + i, j - i, self);
		done += got;
		if (keep && got < j - i)
			break;
	}
	/* Leaving the bottom half: run what was scheduled meanwhile. */
	net_tx_action(dev);
	return done;
}

/*
 * A call with no device or no packet array (n > 0): nothing is counted,
 * and the packets, which the caller gave away (but with keep), are
 * freed.  Every entry point checks that much, once per call, in O(1); a
 * NULL entry in pkts is the caller's bug, not looked for (that would be
 * a pass over the burst on every call).
 */
static __attribute__((noinline, cold)) unsigned xmit_refused(struct txp_pkt **pkts, unsigned n,
							    bool keep)
{
	for (unsigned i = 0; pkts && !keep && i < n; i++)
		txp_pkt_free(pkts[i]);
	return 0;
}

/* Has the call a device and a packet array?  pkts NULL with n 0 is
 * refused too: nothing to do either way. */
static inline bool xmit_args_ok(const struct txp_dev *dev, struct txp_pkt *const *pkts)
{
	return txp_likely(dev && pkts);
}

unsigned txp_xmit_burst(struct txp_dev *dev, struct txp_pkt **pkts, unsigned n)
{
	if (!xmit_args_ok(dev, pkts))
		return xmit_refused(pkts, n, false);
	return xmit_runs(dev, pkts, n, false);
}

unsigned txp_xmit_burst_try(struct txp_dev *dev, struct txp_pkt **pkts, unsigned n)
{
	if (!xmit_args_ok(dev, pkts))
		return xmit_refused(pkts, n, true);
	return xmit_runs(dev, pkts, n, true);
}

/* txp_xmit_burst_on() past its argument check (dev, pkts not NULL). */
static inline __attribute__((always_inline)) unsigned
xmit_on(struct txp_dev *dev, unsigned queue, struct txp_pkt **pkts, unsigned n)
{
	int self = txp_ctx_self();
	unsigned queued;

	if (txp_unlikely(!n))
		return 0;
	if (txp_unlikely(queue >= dev->num_tx_queues)) {
		/* Not a queue of this device: counted on queue 0. */
		txp__stat_add(&dev->txqs[0], self, TXP__ST_SUBMITTED, n);
		for (unsigned i = 0; i < n; i++)
			txp__drop(&dev->txqs[0], self, pkts[i], TXP_DROP_NO_QUEUE);
		return 0;
	}
	queued = xmit_burst_txq(&dev->txqs[queue], pkts, n, self);
	net_tx_action(dev);
	return queued;
}

unsigned txp_xmit_burst_on(struct txp_dev *dev, unsigned queue, struct txp_pkt **pkts, unsigned n)
{
	if (!xmit_args_ok(dev, pkts))
		return xmit_refused(pkts, n, false);
	return xmit_on(dev, queue, pkts, n);
}

int txp_dev_queue_xmit(struct txp_dev *dev, struct txp_pkt *pkt)
{
	if (txp_unlikely(!dev || !pkt)) {
		xmit_refused(&pkt, pkt ? 1 : 0, false);
		return -EINVAL;
	}
	/* Checked once: straight to the burst's body. */
	return xmit_runs(dev, &pkt, 1, false) ? TXP_XMIT_OK : TXP_XMIT_DROP;
}

int txp_dev_queue_xmit_on(struct txp_dev *dev, unsigned queue, struct txp_pkt *pkt)
{
	if (txp_unlikely(!dev || !pkt)) {
		xmit_refused(&pkt, pkt ? 1 : 0, false);
		return -EINVAL;
	}
	return xmit_on(dev, queue, &pkt, 1) ? TXP_XMIT_OK : TXP_XMIT_DROP;
}

void txp_net_tx_action_txq(struct txp_txq *txq)
{
	tx_action_txq(txq);
}

void txp_net_tx_action(struct txp_dev *dev)
{
	net_tx_action(dev);
}
