/*
 * xmit_lock.c - the xmit lock (netif_tx_lock) for drivers: taken from a
 * completion path, with "interrupts off" or without, and made irq-safe
 * for a driver that takes it from its interrupt (2.6.11-rc2), so that the
 * core takes it with interrupts saved and off too.  The core's own takes
 * around start_xmit are inline, in xmit.h.
 */
#include "check/validator.h"
#include "core.h"

void txp__netif_tx_lock_irq(struct txp_txq *txq, const char *site)
{
	txp__local_irq_disable(site);
	txp__spin_lock(&txq->xmit_lock, site);
}

void txp__netif_tx_unlock_irq(struct txp_txq *txq, const char *site)
{
	txp__spin_unlock(&txq->xmit_lock, site);
	txp__local_irq_enable(site);
}

void txp__netif_tx_lock(struct txp_txq *txq, const char *site)
{
	txp__spin_lock(&txq->xmit_lock, site);
}

void txp__netif_tx_unlock(struct txp_txq *txq, const char *site)
{
	txp__spin_unlock(&txq->xmit_lock, site);
}

void txp_dev_xmit_lock_irqsafe(struct txp_dev *dev)
{
	dev->xmit_irqsafe = true;
	if (txp__validating)
		for (unsigned i = 0; i < dev->num_tx_queues; i++)
			txp_validate_irqsafe(&dev->txqs[i].xmit_lock);
}
