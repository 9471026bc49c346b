/*
 * uaf.c - the poll reads a packet after freeing it (skb->len for its byte
 * count after dev_kfree_skb(), the use-after-free KASAN reports in the
 * kernel): -DUAF_POLL.  -DUAF_XMIT: start_xmit reads the packet after
 * handing it to the ring (the poll may have freed it by then; a bug
 * drivers have shipped, e.g. skb->len for BQL after the doorbell).
 * Neither is a data race here: the frees are ordered; the bug is the read
 * of freed memory.  One producer (xbytes is start_xmit's own only then).
 */
#include <stdlib.h>

#include "txpath/linux.h"

#define RING 4

struct drv {
	spinlock_t lock;
	struct sk_buff *slot[RING];
	u32 prod, cons;		/* under lock */
	u64 bytes;		/* the poll's own */
	u64 xbytes;		/* start_xmit's own */
};

static int drv_open(struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	spin_lock_init(&tp->lock);
	return 0;
}

static void drv_stop(struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	for (; tp->cons != tp->prod; tp->cons++)
		dev_kfree_skb(tp->slot[tp->cons % RING]);
}

static netdev_tx_t drv_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	spin_lock(&tp->lock);
	if (tp->prod - tp->cons == RING) {
		netif_stop_queue(dev);
		spin_unlock(&tp->lock);
		return NETDEV_TX_BUSY;
	}
	tp->slot[tp->prod++ % RING] = skb;
	spin_unlock(&tp->lock);
#ifdef UAF_XMIT
	tp->xbytes += skb->len;	/* the poll may have freed it */
#endif
	return NETDEV_TX_OK;
}

static int drv_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct drv *tp = netdev_priv(dev);
	int done = 0;

	spin_lock(&tp->lock);
	while (tp->cons != tp->prod && done < budget) {
		struct sk_buff *skb = tp->slot[tp->cons++ % RING];

		dev_kfree_skb(skb);
#ifdef UAF_POLL
		tp->bytes += skb->len;	/* freed */
#endif
		done++;
	}
	if (netif_queue_stopped(dev) && tp->prod - tp->cons < RING)
		netif_wake_queue(dev);
	spin_unlock(&tp->lock);
	return done;
}

static struct txp_plugin drv = {
	TXP_PLUGIN_INIT,
	.name = "adv-uaf",
	.summary = "a packet read after it is freed",
	.lock = TXP_LOCK_LLTX,
	.priv_size = sizeof(struct drv),
	.ring = RING,
	.max_frags = 0,
	.open = drv_open,
	.stop = drv_stop,
	.start_xmit = drv_start_xmit,
	.poll = drv_poll,
};
TXP_PLUGIN(drv)
