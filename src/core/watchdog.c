/*
 * watchdog.c - the TX watchdog (dev_watchdog, net/sched/sch_generic.c):
 * a queue that stays stopped is reported, and its driver resets it.
 */
#include "core.h"

/*
 * Freeze every queue (netif_freeze_queues): take each xmit lock, so no
 * start_xmit is under way in core mode, and set FROZEN, so none starts
 * (qdisc_restart tests it).  In LLTX mode the core holds no xmit lock
 * around start_xmit, so a call already under way may still finish, as on
 * Linux.
 */
static void freeze_queues(struct txp_dev *dev)
{
	for (unsigned i = 0; i < dev->num_tx_queues; i++) {
		struct txp_txq *txq = &dev->txqs[i];
		/* An irq-safe xmit lock (2.6.11-rc2) is taken with irqs off. */
		unsigned long flags = dev->xmit_irqsafe ? txp_local_irq_save() : 0;

		/* Under the xmit lock: a start_xmit under way finishes first,
		 * and the next holder's check in txp__send_batch() sees the
		 * bit (the lock's release and acquire order them). */
		txp_spin_lock(&txq->xmit_lock);
		txp_store_release(&txq->frozen, 1);
		txp_spin_unlock(&txq->xmit_lock);
		if (dev->xmit_irqsafe)
			txp_local_irq_restore(flags);
	}
}

/* Unfreeze and reschedule every queue (netif_unfreeze_queues). */
static void unfreeze_queues(struct txp_dev *dev)
{
	for (unsigned i = 0; i < dev->num_tx_queues; i++) {
		struct txp_txq *txq = &dev->txqs[i];

		/* clear_bit(), unordered: the release below orders it before
		 * the schedule, so the run below sees the queue thawed. */
		txp_fetch_and_relaxed(&txq->frozen, 0);
		/* Release: pairs with the exchange in txp_net_tx_action_txq(). */
		txp_store_release(&txq->sched, 1);
	}
	txp_net_tx_action(dev);
}

/*
 * How long txq has been stopped, in ns, or 0 if it runs.  The order of
 * the 2024 fix: the bits first, a full barrier, then trans_start.  Before
 * it (trans_after_xmit) trans_start was read first and the bits after,
 * with no barrier: with the stamp after start_xmit too, a queue that
 * stops after a long idle shows the idle's trans_start, timed out at once.
 */
static uint64_t stopped_for(struct txp_txq *txq, uint64_t now)
{
	uint64_t since;

	if (txq->dev->trans_after_xmit) {
		since = txp_load_relaxed(&txq->trans_start);
		txp_event("dev_watchdog: trans_start read");
		if (!txp_netif_xmit_stopped(txq))
			return 0;
		txp_event("dev_watchdog: queue stopped");
	} else {
		if (!txp_netif_xmit_stopped(txq))
			return 0;
		txp_event("dev_watchdog: queue stopped");
		/* Pairs with the release of the XOFF bit after trans_start is
		 * written (txp__trans_update(), xmit.h): seeing the bit, we see
		 * the time of that stop, not an older one. */
		txp_smp_mb();
		since = txp_load_relaxed(&txq->trans_start);
		txp_event("dev_watchdog: trans_start read");
	}
	return now > since ? now - since : 0;
}

void txp_dev_trans_start_after_xmit(struct txp_dev *dev)
{
	dev->trans_after_xmit = true;
}

int txp_dev_watchdog(struct txp_dev *dev)
{
	uint64_t now, late = 0;
	unsigned i;

	if (!dev->watchdog_timeo_ns || !txp_load_acquire(&dev->up))
		return -1;
	now = txp__dev_clock(dev);
	for (i = 0; i < dev->num_tx_queues; i++) {
		late = stopped_for(&dev->txqs[i], now);
		if (late > dev->watchdog_timeo_ns)
			break;
	}
	if (i == dev->num_tx_queues)
		return -1;
	txp__stat_add(&dev->txqs[i], txp_ctx_self(), TXP__ST_TX_TIMEOUTS, 1);
	txp_event("NETDEV WATCHDOG");
	txp__dev_log(dev, "NETDEV WATCHDOG: %s (%s): transmit queue %u timed out %llu ms",
		     dev->name, dev->ops->name, i, (unsigned long long)(late / 1000000));
	freeze_queues(dev);
	dev->ops->tx_timeout(dev, i);
	unfreeze_queues(dev);
	return (int)i;
}
