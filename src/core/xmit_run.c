/*
 * xmit_run.c - the run of a root-locked qdisc, out of line: qdisc_restart()
 * (a batch off the qdisc, the xmit lock tried, the batch sent) and
 * dev_requeue_skb().  What every packet passes through (qdisc_run(),
 * sch_direct_xmit(), the bypass) is inline, in xmit.h.
 */
#include "xmit.h"

void txp__requeue_batch(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	struct txp_qdisc *q = txq->qdisc;

	for (unsigned i = n; i-- > 0;)
		q->ops->requeue(q, pkts[i]);
	txp_event("requeue");
	txp__stat_add(txq, self, TXP__ST_REQUEUES, n);
}

int __txp_requeue(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	txp_assert_held(&txq->root_lock);
	txp__requeue_batch(txq, pkts, n, self);
	txp__netif_schedule(txq);
	return 1;
}

int __txp_qdisc_restart(struct txp_txq *txq, int self)
{
	struct txp_dev *dev = txq->dev;
	struct txp_qdisc *q = txq->qdisc;
	struct txp_pkt *pkts[TXP_DEV_BULK_MAX];
	unsigned n = 1;

	txp_assert_held(&txq->root_lock);
	pkts[0] = q->ops->dequeue(q);
	if (!pkts[0])
		return (int)q->qlen;
	txp_event("qdisc_restart");

	if (dev->lock == TXP_LOCK_CORE && !xmit_lock_try(txq, self)) {
		/* Someone holds the driver.  If it is us, start_xmit
		 * recursed into its own queue: drop, or loop forever. */
		if (txp_spin_owner(&txq->xmit_lock) == self) {
			txp__drop(txq, self, pkts[0], TXP_DROP_DEAD_LOOP);
			txp__dev_log(dev, "Dead loop on netdevice %s, fix it urgently!",
				     dev->name);
			return -1;
		}
		txp__stat_add(txq, self, TXP__ST_COLLISIONS, 1);
		return __txp_requeue(txq, pkts, 1, self);
	}
	/* The driver is ours (or needs no lock): take the rest of a batch. */
	while (n < dev->bulk && (pkts[n] = q->ops->dequeue(q)) != NULL)
		n++;
	return __txp_xmit_batch(txq, pkts, n, self);
}
