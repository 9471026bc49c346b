/*
 * plain_index.c - a driver whose ring indices are plain fields under its
 * own lock (LLTX), for tests/cli/plain_access.sh: the explorer sees plain
 * accesses and reports a data race on one.
 *
 * start_xmit posts a packet and advances tx_prod under tx_lock; the
 * completion retires up to tx_prod under the same lock.  -DAFTER_UNLOCK
 * writes tx_prod just after the unlock, the classic slip: the completion
 * reads it under the lock, unordered with that write, a data race the
 * first schedule shows.  -DSTATS_RACE: the completion reads a statistic
 * start_xmit keeps under the lock, without the lock, a hint: a data race;
 * with -DSTATS_MARKED too, read through data_race(): meant, not reported;
 * with -DSTATS_VOLATILE instead, written and read through a volatile
 * pointer (ACCESS_ONCE, what READ_ONCE and WRITE_ONCE are in the kernel):
 * both marked, not reported either.  -DBIG_TOUCH: start_xmit first writes
 * 64 KiB of its own, more than the race detector keeps in an execution
 * (txpath check warns that races were not looked for past it).
 */
#include <stdlib.h>

#include "txpath/linux.h"

struct drv {
	spinlock_t tx_lock;
	struct sk_buff **tx_buffers;
	u32 ring;
	u32 tx_prod, tx_cons;	/* plain: under tx_lock */
	u32 tx_packets;		/* plain: written under tx_lock */
	u32 early_polls;	/* plain: the completion's own */
};

/* A statistic: polls that came before anything was posted, by the count
 * of posts read without the lock (its exact value does not matter). */
static void count_early_poll(struct drv *tp)
{
#if defined(STATS_MARKED)
	tp->early_polls += data_race(tp->tx_packets) == 0;
#elif defined(STATS_VOLATILE)
	tp->early_polls += *(volatile u32 *)&tp->tx_packets == 0;
#elif defined(STATS_RACE)
	tp->early_polls += tp->tx_packets == 0;
#else
	(void)tp;
#endif
}

#ifdef BIG_TOUCH
u8 scratch[65536];	/* not static: its stores stay */

/* Plain stores over all of it, each one seen (not memset: libc's are not). */
static void touch_much(void)
{
	for (size_t i = 0; i < sizeof(scratch); i += 8)
		scratch[i] = (u8)i;
}
#else
static void touch_much(void)
{
}
#endif

static u32 tx_avail(const struct drv *tp)
{
	return tp->ring - (tp->tx_prod - tp->tx_cons);
}

static int drv_open(struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	spin_lock_init(&tp->tx_lock);
	tp->ring = txp_plugin_ring(dev);
	tp->tx_buffers = calloc(tp->ring, sizeof(*tp->tx_buffers));
	return tp->tx_buffers ? 0 : -12;	/* -ENOMEM */
}

static void drv_stop(struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	for (; tp->tx_cons != tp->tx_prod; tp->tx_cons++)
		dev_kfree_skb(tp->tx_buffers[tp->tx_cons % tp->ring]);
	free(tp->tx_buffers);
}

static netdev_tx_t drv_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);
	u32 entry;

	touch_much();
	spin_lock(&tp->tx_lock);
	if (tx_avail(tp) == 0) {
		netif_stop_queue(dev);
		spin_unlock(&tp->tx_lock);
		return NETDEV_TX_BUSY;
	}
	entry = tp->tx_prod;
	tp->tx_buffers[entry % tp->ring] = skb;
#ifdef STATS_VOLATILE
	*(volatile u32 *)&tp->tx_packets = tp->tx_packets + 1;
#else
	tp->tx_packets++;
#endif
#ifdef AFTER_UNLOCK
	spin_unlock(&tp->tx_lock);
	tp->tx_prod = entry + 1;
#else
	tp->tx_prod = entry + 1;
	spin_unlock(&tp->tx_lock);
#endif
	return NETDEV_TX_OK;
}

static int drv_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct drv *tp = netdev_priv(dev);
	int done = 0;

	count_early_poll(tp);
	spin_lock(&tp->tx_lock);
	while (tp->tx_cons != tp->tx_prod && done < budget) {
		struct sk_buff **slot = &tp->tx_buffers[tp->tx_cons % tp->ring];

		dev_kfree_skb(*slot);
		*slot = NULL;
		tp->tx_cons++;
		done++;
	}
	if (netif_queue_stopped(dev) && tx_avail(tp) > 0)
		netif_wake_queue(dev);
	spin_unlock(&tp->tx_lock);
	return done;
}

static struct txp_plugin drv = {
	TXP_PLUGIN_INIT,
	.name = "plain-index",
	.summary = "LLTX, plain ring indices under its own lock",
	.lock = TXP_LOCK_LLTX,
	.priv_size = sizeof(struct drv),
	.ring = 2,
	.max_frags = 0,
	.open = drv_open,
	.stop = drv_stop,
	.start_xmit = drv_start_xmit,
	.poll = drv_poll,
};
TXP_PLUGIN(drv)
