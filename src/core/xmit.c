/*
 * xmit.c - the transmit path of Linux 2.6.9-2.6.11: dev_queue_xmit(),
 * qdisc_run(), qdisc_restart(), and queue flow control.
 *
 * Locks, outermost first: the root lock (dev->queue_lock), then the xmit
 * lock (dev->xmit_lock), then whatever the driver takes.  qdisc_restart()
 * takes the xmit lock by trylock while holding the root lock, then drops
 * the root lock around start_xmit; in LLTX mode it takes no xmit lock at
 * all, which is the window of the race (DESIGN.md §3).
 */
#include "core.h"

/* -- flow control ------------------------------------------------------ */

bool txp_netif_queue_stopped(const struct txp_txq *txq)
{
	return txp_load_relaxed((atomic_uint *)&txq->stopped) != 0;
}

/*
 * Like netif_stop_queue(), a plain store that implies no barrier: a driver
 * that rechecks its ring after stopping needs txp_smp_mb() in between
 * (pairs with the barrier of its completion path before it tests
 * "stopped").  The stop generation lets a caller of start_xmit tell
 * whether the queue was stopped under it; stops are serialised by the
 * driver, so check-then-store loses nothing.
 */
void txp_netif_stop_queue(struct txp_txq *txq)
{
	if (txp_netif_queue_stopped(txq))
		return;
	txp_counter_inc_shared(&txq->stop_gen);
	txp_store_release(&txq->stopped, 1);
	txp__stat_add(txq->dev, txp_ctx_self(), TXP__ST_STOPS, 1);
}

/* netif_schedule(): ask for the queue to be run again soon. */
static void netif_schedule(struct txp_txq *txq)
{
	/* Release: pairs with the exchange in txp_net_tx_action(). */
	txp_store_release(&txq->sched, 1);
}

void txp_netif_wake_queue(struct txp_txq *txq)
{
	/* A full-barrier read-modify-write, as test_and_clear_bit(): pairs
	 * with the store in txp_netif_stop_queue(). */
	if (!txp_xchg(&txq->stopped, 0))
		return;
	txp__stat_add(txq->dev, txp_ctx_self(), TXP__ST_WAKES, 1);
	txp_trace("netif_wake_queue()");
	netif_schedule(txq);
}

void txp_netif_tx_lock_irq(struct txp_txq *txq)
{
	txp_local_irq_disable();
	txp_spin_lock(&txq->xmit_lock);
}

void txp_netif_tx_unlock_irq(struct txp_txq *txq)
{
	txp_spin_unlock(&txq->xmit_lock);
	txp_local_irq_enable();
}

/* -- calling the driver ------------------------------------------------ */

/*
 * Call start_xmit, counting the call and whether another context stopped
 * the queue between the caller's stopped check (the stop generation was
 * gen just before it) and the driver's return: start_xmit then ran on a
 * stopped queue.  Stops this context made itself during the call are its
 * own stop counter's growth.
 */
static enum txp_tx call_start_xmit(struct txp_txq *txq, struct txp_pkt *pkt,
				   int self, uint64_t gen)
{
	struct txp_dev *dev = txq->dev;
	uint64_t own = txp__stat_own(dev, self, TXP__ST_STOPS);
	enum txp_tx rc;
	uint64_t stops;

	txp__stat_add(dev, self, TXP__ST_XMIT_CALLS, 1);
	txp_trace("call hard_start_xmit");
	rc = dev->ops->start_xmit(pkt, txq);
	stops = txp_counter_read(&txq->stop_gen) - gen;
	if (txp_unlikely(stops != txp__stat_own(dev, self, TXP__ST_STOPS) - own))
		txp__stat_add(dev, self, TXP__ST_XMIT_ON_STOPPED, 1);
	if (rc == TXP_TX_BUSY)
		txp__stat_add(dev, self, TXP__ST_TX_BUSY, 1);
	else if (rc == TXP_TX_LOCKED)
		txp__stat_add(dev, self, TXP__ST_TX_LOCKED, 1);
	return rc;
}

static void xmit_lock_release(struct txp_txq *txq)
{
	/* Pairs with the trylock in qdisc_restart(). */
	txp_spin_unlock(&txq->xmit_lock);
}

/* -- qdisc_restart / qdisc_run ----------------------------------------- */

/*
 * __txp_qdisc_restart: send one packet.  Caller holds the root lock; it
 * is dropped around start_xmit and held again on return.
 * Returns < 0: one packet sent (or dropped as a dead loop), go on.
 * Returns >= 0: stop; the backlog left (the packet was requeued, and the
 * queue scheduled, if it could not be sent).
 */
static int __txp_qdisc_restart(struct txp_txq *txq, int self)
{
	struct txp_dev *dev = txq->dev;
	struct txp_qdisc *q = txq->qdisc;
	bool core = dev->lock == TXP_LOCK_CORE;
	struct txp_pkt *pkt;
	enum txp_tx rc;
	uint64_t gen;

	pkt = q->ops->dequeue(q);
	if (!pkt)
		return (int)q->qlen;
	txp_trace("qdisc_restart");

	if (core && !txp_spin_trylock(&txq->xmit_lock)) {
		/* Someone holds the driver.  If it is us, start_xmit
		 * recursed into its own queue: drop, or loop forever. */
		if (txp_spin_owner(&txq->xmit_lock) == self) {
			txp__drop(dev, self, pkt, TXP_DROP_DEAD_LOOP);
			txp__dev_log(dev, "Dead loop on netdevice %s, fix it urgently!",
				     dev->name);
			return -1;
		}
		goto collision;
	}

	txp_spin_unlock(&txq->root_lock);

	gen = txp_counter_read(&txq->stop_gen);
	rc = TXP_TX_BUSY;
	if (!txp_netif_queue_stopped(txq)) {
		rc = call_start_xmit(txq, pkt, self, gen);
		if (rc == TXP_TX_OK) {
			if (core)
				xmit_lock_release(txq);
			txp_spin_lock(&txq->root_lock);
			return -1;
		}
		if (rc == TXP_TX_LOCKED && !core) {
			txp_spin_lock(&txq->root_lock);
			goto collision;
		}
	}

	/* TXP_TX_BUSY, or the queue was stopped: requeue. */
	if (core)
		xmit_lock_release(txq);
	txp_spin_lock(&txq->root_lock);
	goto requeue;

collision:
	txp__stat_add(dev, self, TXP__ST_COLLISIONS, 1);
requeue:
	q->ops->requeue(q, pkt);
	txp_trace("requeue");
	txp__stat_add(dev, self, TXP__ST_REQUEUES, 1);
	netif_schedule(txq);
	return 1;
}

/* __txp_qdisc_run: drain the queue while it is awake.  Caller holds the
 * root lock.  The exclusive runner lets one context in at a time; the
 * others leave their packets to it. */
static void __txp_qdisc_run(struct txp_txq *txq, int self)
{
	if (txq->dev->runner == TXP_RUNNER_CONCURRENT) {
		while (!txp_netif_queue_stopped(txq) && __txp_qdisc_restart(txq, self) < 0)
			;
		return;
	}
	if (txq->running || txp_netif_queue_stopped(txq))
		return;
	txq->running = true;
	while (__txp_qdisc_restart(txq, self) < 0 && !txp_netif_queue_stopped(txq))
		;
	txq->running = false;
}

/* -- entry points ------------------------------------------------------ */

/* A device without a queue: call the driver directly, under the xmit lock
 * in core mode; whatever it cannot take is dropped. */
static int noqueue_xmit(struct txp_txq *txq, struct txp_pkt *pkt, int self)
{
	struct txp_dev *dev = txq->dev;
	bool core = dev->lock == TXP_LOCK_CORE;
	uint64_t gen;

	if (core) {
		if (txp_spin_owner(&txq->xmit_lock) == self) {
			txp__drop(dev, self, pkt, TXP_DROP_DEAD_LOOP);
			txp__dev_log(dev, "Dead loop on virtual device %s, fix it urgently!",
				     dev->name);
			return TXP_XMIT_DROP;
		}
		txp_spin_lock(&txq->xmit_lock);
	}
	gen = txp_counter_read(&txq->stop_gen);
	if (!txp_netif_queue_stopped(txq) && call_start_xmit(txq, pkt, self, gen) == TXP_TX_OK) {
		if (core)
			xmit_lock_release(txq);
		return TXP_XMIT_OK;
	}
	if (core)
		xmit_lock_release(txq);
	txp__drop(dev, self, pkt, TXP_DROP_VIRTUAL_BUSY);
	txp__dev_log(dev, "Virtual device %s asks to queue packet!", dev->name);
	return TXP_XMIT_DROP;
}

int txp_dev_queue_xmit(struct txp_dev *dev, struct txp_pkt *pkt)
{
	struct txp_txq *txq = &dev->txq;
	struct txp_qdisc *q = txq->qdisc;
	int self = txp_ctx_self();
	int rc;

	txp__stat_add(dev, self, TXP__ST_SUBMITTED, 1);
	if (txp_unlikely(!txp_load_acquire(&dev->up))) {
		txp__drop(dev, self, pkt, TXP_DROP_DEV_DOWN);
		return TXP_XMIT_DROP;
	}
	if (!q->ops->enqueue)
		return noqueue_xmit(txq, pkt, self);

	txp_spin_lock(&txq->root_lock);
	rc = q->ops->enqueue(q, pkt);
	__txp_qdisc_run(txq, self);
	txp_spin_unlock(&txq->root_lock);
	if (rc != TXP_XMIT_OK)
		txp__drop(dev, self, pkt, TXP_DROP_QDISC_LIMIT);
	/* Leaving the bottom half: run what was scheduled meanwhile. */
	txp_net_tx_action(dev);
	return rc;
}

void txp_net_tx_action(struct txp_dev *dev)
{
	struct txp_txq *txq = &dev->txq;

	/* Acquire: pairs with the release in netif_schedule(). */
	if (!txp_load_relaxed(&txq->sched) || !txp_xchg(&txq->sched, 0))
		return;
	if (!txp_spin_trylock(&txq->root_lock)) {
		netif_schedule(txq);
		return;
	}
	__txp_qdisc_run(txq, txp_ctx_self());
	txp_spin_unlock(&txq->root_lock);
}
