/*
 * xmit.h - what the files of the transmit path share: the stamp of
 * trans_start, netif_schedule(), calling the driver, the core's takes of
 * the xmit lock, and the run of a root-locked qdisc as far as the entry
 * points inline it; then each file's functions for the others.
 *
 * Locks, outermost first: the busylock (a device's knob: producers that
 * find the queue running, 2.6.36 to 6.17), the root lock
 * (dev->queue_lock), then the xmit lock (dev->xmit_lock), then whatever
 * the driver takes.  qdisc_restart()
 * takes the xmit lock by trylock while holding the root lock, then drops
 * the root lock around start_xmit; in LLTX mode it takes no xmit lock at
 * all, which is the window of the race (DESIGN.md §3).
 *
 * Inline here is what a packet passes through once or more, so that each
 * entry point still compiles into one function.  Only src/core/ includes
 * this; the structures are core.h's.
 */
#ifndef TXP_CORE_XMIT_H
#define TXP_CORE_XMIT_H

#include "core.h"

/* -- trans_start, the watchdog's clock -------------------------------- */

/*
 * Note when the queue stops, for the watchdog: before either XOFF bit is
 * set (the order of Linux's 2024 fix "net: fix races in
 * netdev_tx_sent_queue()/dev_watchdog()"), so a watchdog that sees the
 * bit, then a full barrier, then reads trans_start, reads this stop's
 * time and not an old one.  The bit's store is a release: pairs with the
 * barrier in txp_dev_watchdog().
 */
static inline void txp__trans_update(struct txp_txq *txq)
{
	if (txq->dev->watchdog_timeo_ns && !txq->dev->trans_after_xmit) {
		txp_store_relaxed(&txq->trans_start, txp__dev_clock(txq->dev));
		txp_event("trans_start = jiffies");
		/* smp_mb__before_atomic(): trans_start before the XOFF bit the
		 * caller sets next; pairs with the watchdog's smp_mb(). */
		txp_smp_mb__before_atomic();
	}
}

/* The order before the fix (txq_trans_update() in netdev_start_xmit()):
 * stamped once start_xmit returned OK, after whatever XOFF bit it set. */
static inline void txp__trans_update_after_xmit(struct txp_txq *txq, enum txp_tx rc)
{
	if (txp_unlikely(txq->dev->trans_after_xmit) && rc == TXP_TX_OK && txq->dev->watchdog_timeo_ns) {
		txp_store_relaxed(&txq->trans_start, txp__dev_clock(txq->dev));
		txp_event("txq_trans_update(): trans_start = jiffies");
	}
}

/* -- netif_schedule --------------------------------------------------- */

/* netif_schedule(): ask for the queue to be run again soon. */
static inline void txp__netif_schedule(struct txp_txq *txq)
{
	/* Release: pairs with the exchange in txp_net_tx_action_txq(). */
	txp_store_release(&txq->sched, 1);
}

/* -- calling the driver ----------------------------------------------- */

/*
 * What a caller of start_xmit has seen of the queue's stops: the stop
 * generation, and its own stop count (the stops it made itself).  Taken
 * before the caller checks "stopped"; txp__call_start_xmit() moves it
 * past the call, so a batch reads each word once per packet.
 */
struct txp__xmit_watch {
	uint64_t gen, own;
};

static inline void txp__xmit_watch(struct txp_txq *txq, int self, struct txp__xmit_watch *w)
{
	w->gen = txp_stat_load_acquire(&txq->stop_gen);
	w->own = txp__stat_own(txq, self, TXP__ST_STOPS);
}

/*
 * Call start_xmit, counting whether another context stopped the queue
 * between the caller's stopped check and the driver's return: start_xmit
 * then ran on a stopped queue.  That is, the stop generation grew by more
 * than this context's own stops.  The caller counts the call itself.
 * Inlined: it runs once per packet.
 */
static inline __attribute__((always_inline)) enum txp_tx
txp__call_start_xmit(struct txp_txq *txq, struct txp_pkt *pkt, int self,
		     struct txp__xmit_watch *w)
{
	struct txp_dev *dev = txq->dev;
	struct txp__xmit_watch was = *w;
	enum txp_tx rc;

	txp_event("call hard_start_xmit");
	rc = dev->ops->start_xmit(pkt, txq);
	txp__trans_update_after_xmit(txq, rc);
	txp__xmit_watch(txq, self, w);
	if (txp_unlikely(w->gen - was.gen != w->own - was.own))
		txp__stat_add(txq, self, TXP__ST_XMIT_ON_STOPPED, 1);
	if (txp_unlikely(rc != TXP_TX_OK)) {
		if (rc == TXP_TX_BUSY)
			txp__stat_add(txq, self, TXP__ST_TX_BUSY, 1);
		else if (rc == TXP_TX_LOCKED)
			txp__stat_add(txq, self, TXP__ST_TX_LOCKED, 1);
	}
	return rc;
}

/*
 * The core's takes of the xmit lock.  Their names are the lock's sites,
 * which the validator and the diagrams print ("taken in xmit_lock_try"),
 * so they keep them.
 */

/* The xmit lock, taken with interrupts saved and off when the driver
 * uses it from its completion path (2.6.11-rc2: spin_lock_irqsave). */
static inline __attribute__((always_inline)) bool xmit_lock_try(struct txp_txq *txq, int self)
{
	unsigned long flags = 0;

	if (txq->dev->xmit_irqsafe)
		flags = txp_local_irq_save();
	if (!txp_spin_trylock_as(&txq->xmit_lock, self)) {
		if (txq->dev->xmit_irqsafe)
			txp_local_irq_restore(flags);
		return false;
	}
	txq->xmit_irq_flags = flags;	/* the holder's alone */
	return true;
}

/* The same, spinning. */
static inline void xmit_lock_take(struct txp_txq *txq)
{
	unsigned long flags = 0;

	if (txq->dev->xmit_irqsafe)
		flags = txp_local_irq_save();
	txp_spin_lock(&txq->xmit_lock);
	txq->xmit_irq_flags = flags;
}

static inline __attribute__((always_inline)) void xmit_lock_release(struct txp_txq *txq)
{
	unsigned long flags = txq->xmit_irq_flags;

	/* Pairs with the trylock in xmit_lock_try(). */
	txp_spin_unlock(&txq->xmit_lock);
	if (txq->dev->xmit_irqsafe)
		txp_local_irq_restore(flags);
}

/*
 * Send pkts[0..n) in order, each after checking that the queue is awake,
 * all but the last with xmit_more set.  Caller holds whatever serialises
 * start_xmit (the xmit lock in core mode, nothing in LLTX mode), not the
 * root lock.  Returns how many the driver took; *rc is the result of the
 * first one it did not take (TXP_TX_BUSY too when the queue was found
 * stopped).
 */
static inline __attribute__((always_inline)) unsigned
txp__send_batch(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self,
		enum txp_tx *rc)
{
	unsigned i, calls = 0;
	struct txp__xmit_watch w;

	*rc = TXP_TX_OK;
	txp__xmit_watch(txq, self, &w);
	for (i = 0; i < n; i++) {
		/* The whole batch waits for BQL and the watchdog's freeze, as
		 * sch_direct_xmit() does; within it, only the driver's stop. */
		if (i ? txp__txq_stopped(txq) : txp__txq_frozen_or_stopped(txq)) {
			*rc = TXP_TX_BUSY;
			break;
		}
		pkts[i]->xmit_more = i + 1 < n;
		calls++;
		*rc = txp__call_start_xmit(txq, pkts[i], self, &w);
		if (*rc != TXP_TX_OK)
			break;
	}
	txp__stat_add(txq, self, TXP__ST_XMIT_CALLS, calls);
	if (calls)
		txp__check_hook(txp__xmit_left, txq);
	return i;
}

/* -- the exclusive runner's flag, and the qdisc busylock -------------- */

/* Is the queue being run (exclusive runner)?  Caller holds the root lock,
 * which orders the flag: a relaxed access, no scheduling point. */
static inline bool __txp_running(struct txp_txq *txq)
{
	return atomic_load_explicit(&txq->running, memory_order_relaxed);
}

/* Mark the queue run, or no longer.  Caller holds the root lock. */
static inline void __txp_set_running(struct txp_txq *txq, bool on)
{
	atomic_store_explicit(&txq->running, on, memory_order_relaxed);
}

/*
 * The qdisc busylock (Linux 2.6.36 to 6.17, __dev_xmit_skb()): must a
 * producer, about to take the root lock, take the busylock first?  Yes
 * if the device has it and the queue is being run (read without the
 * root lock, as qdisc_is_running() reads it: a scheduling point in the
 * check build), so that the producers that contend queue on it and the
 * runner, coming back for the root lock after each batch, finds at most
 * one of them there.  The caller then takes it (out of line: its lock
 * site is its name) and holds it until __txp_qdisc_run() lets it go, once
 * the caller runs the queue itself, or else txp__busylock_release() after
 * the root lock.  A context that holds it already (start_xmit sending on
 * its own queue from the bypass, which keeps it, as Linux's does, while
 * its first batch goes out) does not wait for itself: not Linux's, which
 * would spin there for good; the packet is queued for the run under way.
 */
static inline __attribute__((always_inline)) bool txp__busylock_wanted(struct txp_txq *txq,
								       int self)
{
	return txq->dev->busylock && txp_load_relaxed(&txq->running) &&
	       txp_spin_owner(&txq->busylock) != self;
}

/* Let the busylock go if the caller still holds it (*busy); NULL: the
 * caller never takes it (net_tx_action, the defer list). */
static inline void txp__busylock_release(struct txp_txq *txq, bool *busy)
{
	if (busy && txp_unlikely(*busy)) {
		txp_spin_unlock(&txq->busylock);
		*busy = false;
	}
}

/* -- the run of a root-locked qdisc (xmit_run.c) ---------------------- */

/* dev_requeue_skb(): pkts[0..n) back at the head of the qdisc, in order,
 * counted.  The caller holds what serialises the qdisc's dequeue (the root
 * lock, or a lockless qdisc's seqlock) and says how the queue runs again. */
void txp__requeue_batch(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self);

/* __txp_requeue: put pkts[0..n) back and schedule the queue.  Caller holds
 * the root lock.  Returns 1: stop running. */
int __txp_requeue(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self);

/*
 * __txp_xmit_batch: send pkts[0..n), taken off the qdisc (or bypassing
 * it).  Caller holds the root lock and, in core mode, the xmit lock; the
 * root lock is dropped around start_xmit and held again on return, the
 * xmit lock is released.
 * Returns < 0: all of it sent, go on.  Returns >= 0: stop; the backlog
 * left (what could not be sent was requeued, in order, and the queue
 * scheduled).
 */
static inline __attribute__((always_inline)) int
__txp_xmit_batch(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	struct txp_dev *dev = txq->dev;
	bool core = dev->lock == TXP_LOCK_CORE;
	enum txp_tx rc;
	unsigned sent;

	txp_assert_held(&txq->root_lock);
	if (core)
		txp_assert_held(&txq->xmit_lock);
	txp_spin_unlock(&txq->root_lock);
	sent = txp__send_batch(txq, pkts, n, self, &rc);
	if (core)
		xmit_lock_release(txq);
	txp_spin_lock_as(&txq->root_lock, self);
	if (sent == n)
		return -1;
	/* TXP_TX_BUSY, or the queue was stopped: requeue.  TXP_TX_LOCKED
	 * (LLTX: the driver's own lock was busy) is a collision too. */
	if (rc == TXP_TX_LOCKED && !core)
		txp__stat_add(txq, self, TXP__ST_COLLISIONS, 1);
	return __txp_requeue(txq, pkts + sent, n - sent, self);
}

/*
 * __txp_qdisc_restart: take a batch off the qdisc (one packet, as 2.6.x,
 * unless the device has a bulk size) and send it.  Caller holds the root
 * lock.  Returns as __txp_xmit_batch(); a packet dropped as a dead loop
 * counts as sent.
 */
int __txp_qdisc_restart(struct txp_txq *txq, int self);

/*
 * __txp_qdisc_run: drain the queue while it is awake, starting with
 * pkts[0..n) if given (a bypass batch, see __txp_try_bypass()).  Caller
 * holds the root lock, and the busylock if *busy (busy NULL: it never
 * takes it), which is let go before the queue is drained: the runner
 * does not keep the other producers waiting.  The exclusive runner lets
 * one context in at a time; the others leave their packets to it (a
 * bypass batch is only given by the context allowed in).
 */
static inline __attribute__((always_inline)) void
__txp_qdisc_run(struct txp_txq *txq, int self, struct txp_pkt **pkts, unsigned n, bool *busy)
{
	bool exclusive = txq->dev->runner == TXP_RUNNER_EXCLUSIVE;
	int rc = -1;

	txp_assert_held(&txq->root_lock);
	if (exclusive) {
		/* A bypass batch is already taken (and in core mode its xmit
		 * lock held): it must go through __txp_xmit_batch(), which
		 * requeues what a stopped queue cannot take. */
		if (!n && (__txp_running(txq) || txp__txq_frozen_or_stopped(txq)))
			return;
		__txp_set_running(txq, true);
	}
	if (n)
		rc = __txp_xmit_batch(txq, pkts, n, self);
	/* The busylock is kept through a bypass batch, and let go if the
	 * queue is to be drained (sch_direct_xmit() returned true). */
	if (rc < 0)
		txp__busylock_release(txq, busy);
	/* An empty qdisc has nothing to restart (it would return 0). */
	while (rc < 0 && txq->qdisc->qlen && !txp__txq_frozen_or_stopped(txq))
		rc = __txp_qdisc_restart(txq, self);
	if (exclusive)
		__txp_set_running(txq, false);
}

/*
 * __txp_try_bypass: may a burst skip the qdisc?  Caller holds the root
 * lock.  When the qdisc is empty, nobody else runs it, the queue is awake
 * and the whole burst would be the next batch anyway (fits the bulk size
 * and the band's limit, all of one band), enqueueing and dequeueing it is
 * work with no effect: Linux 2.6.32's TCQ_F_CAN_BYPASS.  Same packets,
 * same order, same drops.  In core mode the xmit lock must be had at
 * once; true means it is held.
 */
static inline __attribute__((always_inline)) bool
__txp_try_bypass(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	struct txp_dev *dev = txq->dev;
	struct txp_qdisc *q = txq->qdisc;

	txp_assert_held(&txq->root_lock);
	if (q->qlen || n > dev->bulk || n > dev->txqueuelen || q->ops != &txp_pfifo_fast_ops ||
	    txp__txq_frozen_or_stopped(txq) || (dev->runner == TXP_RUNNER_EXCLUSIVE && __txp_running(txq)))
		return false;
	for (unsigned i = 1; i < n; i++)
		if (pkts[i]->priority != pkts[0]->priority &&
		    txp_pfifo_fast_band(pkts[i]->priority) != txp_pfifo_fast_band(pkts[0]->priority))
			return false;
	if (dev->lock == TXP_LOCK_CORE && !xmit_lock_try(txq, self))
		return false;	/* the usual path counts the collision */
	txp_event("qdisc_restart");
	return true;
}

/* -- the lockless qdisc (xmit_nolock.c) ------------------------------- */

/* __dev_xmit_skb for a TCQ_F_NOLOCK qdisc: enqueue without the root lock
 * (or bypass the empty qdisc) and run it if this context may.  keep:
 * txp_xmit_burst_try()'s contract (stop at the first packet refused, the
 * rest the caller's; counts what it took as submitted); else the caller
 * counted all n and what is refused is dropped.  Returns how many were
 * queued or sent. */
unsigned txp__xmit_nolock(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self,
			  bool keep);
/* net_tx_action for a scheduled lockless queue. */
void txp__nolock_tx_action(struct txp_txq *txq);

/* -- the defer list (xmit_defer.c) ------------------------------------ */

/* 6.18's __dev_xmit_skb for a locked qdisc with a defer list, or txpath's
 * drainer (enum txp_defer): push pkts[0..n) (counted submitted by the
 * caller); the context that found the list empty (the drainer's: without
 * a drainer) takes the root lock and queues everything on it.
 * Returns n: the packets are the queue's (what the qdisc then refuses is
 * dropped as qdisc-limit, by whoever drains). */
unsigned txp__xmit_defer(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self);
/*
 * Is the drainer's list empty with nobody draining it (txq->defer_head
 * NULL: no packet, no DRAINER bit)?  Then a producer that has the root
 * lock at once may go the way of a queue without a list: whatever it
 * pushed before was taken and queued under the root lock before the list
 * was left so (its own push, or something later, is what it reads), and
 * a producer that finds the lock held goes on to txp__xmit_defer(),
 * which reads the list again.
 */
static inline bool txp__defer_idle(struct txp_txq *txq)
{
	return txp_load_relaxed(&txq->defer_head) == NULL;
}
/* net_tx_action's part of the drainer's list (TXP_DEFER_DRAIN): a list
 * let go of (not empty, nobody draining it) is taken on and drained.
 * Caller holds the root lock.  Returns what the qdisc refused, a list the
 * caller drops once the lock is released. */
struct txp_pkt *txp__defer_tx_action(struct txp_txq *txq, int self);
/*
 * txp_xmit_burst_try() on a queue with a defer list: it cannot push (a
 * packet pushed is the queue's, and what try does not take stays the
 * caller's), so it takes the root lock; first it queues what the list
 * holds, oldest first, as a drainer would, so that no packet the caller
 * pushed before is overtaken by the ones it tries now.  The list
 * is taken as it stands, its drainer bit left (its drainer, waiting for
 * the lock, finds it emptied).  Caller holds the root lock.  Returns what
 * the qdisc refused, a list the caller drops once the lock is released.
 */
struct txp_pkt *txp__defer_take(struct txp_txq *txq);
/* At close: what is left on the defer list (a drainer let it go, and no
 * net_tx_action took it on since), dropped as dev-down. */
void txp__defer_purge(struct txp_txq *txq, int self);

#endif
