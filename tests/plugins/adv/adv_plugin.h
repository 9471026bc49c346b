/*
 * adv_plugin.h - the skeleton of the adversarial probes (tests/plugins/adv/):
 * a driver whose ring is plain fields under a lock of its own, and whose
 * probe (struct probe, probe_xmit(), probe_poll(), defined by the file that
 * includes this one) runs outside that lock: in start_xmit after the
 * packet is posted and the lock dropped, in the poll before it takes the
 * lock.  So the ring orders nothing between the probe's two halves but
 * what the lock's handoff orders across calls (see README.md).
 *
 * The including file defines, before including this:
 *   struct probe { ... };                 its shared state
 *   static void probe_xmit(struct probe *p, u32 seq);  seq: 1, 2, ... per packet
 *   static void probe_poll(struct probe *p);
 * and may define ADV_NAME, ADV_LOCK (TXP_LOCK_CORE or TXP_LOCK_LLTX),
 * ADV_RING.
 */
#ifndef ADV_PLUGIN_H
#define ADV_PLUGIN_H

#include <stdlib.h>

#ifndef ADV_NAME
#define ADV_NAME "adv"
#endif
#ifndef ADV_LOCK
#define ADV_LOCK TXP_LOCK_CORE
#endif
#ifndef ADV_RING
#define ADV_RING 8
#endif

struct adv {
	spinlock_t ring_lock;
	struct sk_buff *slot[64];
	u32 ring, prod, cons, seq;	/* plain: under ring_lock */
	/* Its own cache lines: nothing of the ring shares its granules. */
	struct probe p __attribute__((aligned(64)));
};

static int adv_open(struct net_device *dev)
{
	struct adv *tp = netdev_priv(dev);

	spin_lock_init(&tp->ring_lock);
	tp->ring = txp_plugin_ring(dev);
	if (tp->ring > 64)
		tp->ring = 64;
#ifdef PROBE_INIT
	PROBE_INIT(&tp->p);
#endif
	return 0;
}

static void adv_stop(struct net_device *dev)
{
	struct adv *tp = netdev_priv(dev);

	for (; tp->cons != tp->prod; tp->cons++)
		dev_kfree_skb(tp->slot[tp->cons % tp->ring]);
}

static netdev_tx_t adv_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct adv *tp = netdev_priv(dev);
	u32 seq;

	spin_lock(&tp->ring_lock);
	if (tp->prod - tp->cons == tp->ring) {
		netif_stop_queue(dev);
		spin_unlock(&tp->ring_lock);
		return NETDEV_TX_BUSY;
	}
	tp->slot[tp->prod++ % tp->ring] = skb;
	seq = ++tp->seq;
	spin_unlock(&tp->ring_lock);
	probe_xmit(&tp->p, seq);
	return NETDEV_TX_OK;
}

static int adv_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct adv *tp = netdev_priv(dev);
	int done = 0;

	probe_poll(&tp->p);
	spin_lock(&tp->ring_lock);
	while (tp->cons != tp->prod && done < budget) {
		dev_kfree_skb(tp->slot[tp->cons++ % tp->ring]);
		done++;
	}
	if (netif_queue_stopped(dev) && tp->prod - tp->cons < tp->ring)
		netif_wake_queue(dev);
	spin_unlock(&tp->ring_lock);
	return done;
}

static struct txp_plugin adv = {
	TXP_PLUGIN_INIT,
	.name = ADV_NAME,
	.summary = "an adversarial probe of txpath check (tests/plugins/adv)",
	.lock = ADV_LOCK,
	.priv_size = sizeof(struct adv),
	.ring = ADV_RING,
	.max_frags = 0,
	.open = adv_open,
	.stop = adv_stop,
	.start_xmit = adv_start_xmit,
	.poll = adv_poll,
};
TXP_PLUGIN(adv)

#endif
