/*
 * self_lock.c - a 2004 LLTX driver carelessly converted to a core-locked
 * one (as rc2-naive is): its start_xmit still takes the lock that
 * serialises it, now the core's xmit lock, which its caller already
 * holds.  On a real machine it spins forever; txpath check's lock
 * validator reports the recursion, naming self_start_xmit, and lets the
 * nested hold pass.
 */
#include <stdlib.h>

#include "txpath/linux.h"

#define SELF_RING 8

struct self {
	struct sk_buff *tx_buffers[SELF_RING];
	u32 tx_prod, tx_cons;	/* under the xmit lock */
};

static void self_stop(struct net_device *dev)
{
	struct self *sp = netdev_priv(dev);

	for (; sp->tx_cons != sp->tx_prod; sp->tx_cons++)
		dev_kfree_skb(sp->tx_buffers[sp->tx_cons % SELF_RING]);
}

static netdev_tx_t self_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct self *sp = netdev_priv(dev);

	netif_tx_lock(dev);	/* the caller holds it already */
	if (sp->tx_prod - sp->tx_cons == SELF_RING) {
		netif_stop_queue(dev);
		netif_tx_unlock(dev);
		return NETDEV_TX_BUSY;
	}
	sp->tx_buffers[sp->tx_prod++ % SELF_RING] = skb;
	netif_tx_unlock(dev);
	return NETDEV_TX_OK;
}

static int self_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct self *sp = netdev_priv(dev);
	int done = 0;

	netif_tx_lock(dev);
	for (; sp->tx_cons != sp->tx_prod && done < budget; done++)
		dev_kfree_skb(sp->tx_buffers[sp->tx_cons++ % SELF_RING]);
	if (done && netif_queue_stopped(dev))
		netif_wake_queue(dev);
	netif_tx_unlock(dev);
	return done;
}

static struct txp_plugin self = {
	TXP_PLUGIN_INIT,
	.name = "self-lock",
	.summary = "core-locked, and takes the xmit lock its caller holds",
	.lock = TXP_LOCK_CORE,
	.priv_size = sizeof(struct self),
	.ring = SELF_RING,
	.stop = self_stop,
	.start_xmit = self_start_xmit,
	.poll = self_poll,
};
TXP_PLUGIN(self)
