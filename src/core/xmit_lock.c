/*
 * xmit_lock.c - the xmit lock (netif_tx_lock) for drivers: taken from a
 * completion path, with "interrupts off" or without, and made irq-safe
 * for a driver that takes it from its interrupt (2.6.11-rc2), so that the
 * core takes it with interrupts saved and off too.  The core's own takes
 * around start_xmit are inline, in xmit.h.
 */
#include "core.h"

void txp_netif_tx_lock_irq_at(struct txp_txq *txq, const char *site)
{
	txp_local_irq_disable_at(site);
	txp_spin_lock_at(&txq->xmit_lock, site);
}

void txp_netif_tx_unlock_irq_at(struct txp_txq *txq, const char *site)
{
	txp_spin_unlock_at(&txq->xmit_lock, site);
	txp_local_irq_enable_at(site);
}

void txp_netif_tx_lock_at(struct txp_txq *txq, const char *site)
{
	txp_spin_lock_at(&txq->xmit_lock, site);
}

void txp_netif_tx_unlock_at(struct txp_txq *txq, const char *site)
{
	txp_spin_unlock_at(&txq->xmit_lock, site);
}

void txp_dev_xmit_lock_irqsafe(struct txp_dev *dev)
{
	dev->xmit_irqsafe = true;
	for (unsigned i = 0; i < dev->num_tx_queues; i++)
		txp_lock_irqsafe(&dev->txqs[i].xmit_lock);
}
