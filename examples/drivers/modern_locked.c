/*
 * modern_locked.c - a core-locked driver's transmit path in the kernel's
 * words, as drivers have written it since 2.6.11 (tg3, bnx2, e1000e): no
 * lock of its own, start_xmit under the core's xmit lock, the completion
 * lockless but for the wake.
 *
 * The lost wakeup it must avoid: start_xmit stops the queue on a nearly
 * full ring while the completion retires everything and tests "stopped"
 * before the stop is visible: nothing wakes the queue again.  So
 * start_xmit stops, issues a full barrier, and rechecks the ring; the
 * completion publishes its consumer index, issues a full barrier, and
 * tests "stopped".  Each barrier pairs with the other.
 *
 * -DDRV_NO_BARRIER drops start_xmit's barrier: correct under sequential
 * consistency, a stall under tso, where the stop can wait in the store
 * buffer past the recheck's load.
 */
#include <stdlib.h>

#include "txpath/linux.h"

#define DRV_MAX_FRAGS 0		/* heads only */
#define DRV_DEF_RING  3
#define DRV_STOP_THRESH (DRV_MAX_FRAGS + 1)	/* stop when this few are free */
#define DRV_WAKE_THRESH 1	/* wake when more than this are free */

struct drv {
	struct sk_buff **tx_buffers;	/* on the last descriptor of each packet */
	u32 ring;
	u32 tx_prod;	/* written by start_xmit (under the xmit lock) */
	u32 tx_cons;	/* written by the completion */
};

static u32 tx_avail(const struct drv *tp, u32 prod, u32 cons)
{
	return tp->ring - (prod - cons);
}

static int drv_open(struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	tp->ring = txp_plugin_ring(dev);
	tp->tx_buffers = calloc(tp->ring, sizeof(*tp->tx_buffers));
	return tp->tx_buffers ? 0 : -12;	/* -ENOMEM */
}

static void drv_stop(struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	for (; tp->tx_cons != tp->tx_prod; tp->tx_cons++) {
		struct sk_buff *skb = tp->tx_buffers[tp->tx_cons % tp->ring];

		if (skb)
			dev_kfree_skb(skb);
	}
	free(tp->tx_buffers);
}

static netdev_tx_t drv_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	u32 need = skb_shinfo(skb)->nr_frags + 1, prod = tp->tx_prod;
	/* Acquire: pairs with the release in drv_poll(): retired slots are
	 * clean before they are reused. */
	u32 cons = smp_load_acquire(&tp->tx_cons);

	if (unlikely(tx_avail(tp, prod, cons) <= need)) {
		if (!netif_tx_queue_stopped(txq)) {
			netif_tx_stop_queue(txq);
			netdev_err(dev, "BUG! Tx Ring full when queue awake!\n");
		}
		return NETDEV_TX_BUSY;
	}
	for (u32 i = 0; i < need; i++)
		tp->tx_buffers[(prod + i) % tp->ring] = i + 1 == need ? skb : NULL;
	prod += need;
	/* The doorbell.  Release: the descriptors before the index; pairs
	 * with the acquire in drv_poll(). */
	smp_store_release(&tp->tx_prod, prod);

	if (unlikely(tx_avail(tp, prod, cons) <= DRV_STOP_THRESH)) {
		netif_tx_stop_queue(txq);
#ifndef DRV_NO_BARRIER
		/* The stop before the recheck of tx_cons: pairs with the
		 * smp_mb() in drv_poll(). */
		smp_mb();
#endif
		if (tx_avail(tp, prod, smp_load_acquire(&tp->tx_cons)) > DRV_WAKE_THRESH)
			netif_tx_wake_queue(txq);
	}
	return NETDEV_TX_OK;
}

static int drv_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct drv *tp = netdev_priv(dev);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	/* Acquire: pairs with the release of the doorbell. */
	u32 hw_idx = smp_load_acquire(&tp->tx_prod), cons = tp->tx_cons;
	int done = 0;

	if (hw_idx == cons)
		return 0;
	while (cons != hw_idx && done < budget) {
		struct sk_buff **slot = &tp->tx_buffers[cons % tp->ring];

		if (*slot) {
			dev_kfree_skb(*slot);
			done++;
		}
		*slot = NULL;
		cons++;
	}
	/* Release: clean slots before the index; pairs with the acquire in
	 * drv_start_xmit(). */
	smp_store_release(&tp->tx_cons, cons);
	/* tx_cons before the test of "stopped": pairs with the smp_mb() in
	 * drv_start_xmit(). */
	smp_mb();
	if (unlikely(netif_tx_queue_stopped(txq) && tx_avail(tp, hw_idx, cons) > DRV_WAKE_THRESH)) {
		/* Again under the xmit lock: start_xmit's recheck may have
		 * woken it and filled the ring since. */
		netif_tx_lock(dev);
		if (netif_tx_queue_stopped(txq) &&
		    tx_avail(tp, smp_load_acquire(&tp->tx_prod), cons) > DRV_WAKE_THRESH)
			netif_tx_wake_queue(txq);
		netif_tx_unlock(dev);
	}
	return done;
}

static struct txp_plugin drv = {
	TXP_PLUGIN_INIT,
#ifdef DRV_NO_BARRIER
	.name = "modern-locked-nomb",
	.summary = "core-locked, stop then recheck without the barrier",
#else
	.name = "modern-locked",
	.summary = "core-locked, stop -> smp_mb -> recheck; retire -> smp_mb -> test -> wake",
#endif
	.lock = TXP_LOCK_CORE,
	.priv_size = sizeof(struct drv),
	.ring = DRV_DEF_RING,
	.max_frags = DRV_MAX_FRAGS,
	.open = drv_open,
	.stop = drv_stop,
	.start_xmit = drv_start_xmit,
	.poll = drv_poll,
};
TXP_PLUGIN(drv)
