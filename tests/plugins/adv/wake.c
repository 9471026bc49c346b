/*
 * wake.c - a core-locked driver whose poll finds its work by one read of
 * the producer index, and idles when there is none: the completion context
 * must be woken by start_xmit's write of it.  How the poll reads it, and
 * how start_xmit writes it, is the variant; every variant is correct
 * (slots and indices all marked, or C11 atomics, release and acquire).
 *   WAKE_ONCE          smp_store_release / smp_load_acquire (the reference)
 *   WAKE_WIDE          the poll reads both indices as one 64-bit word
 *                      (cons in its low half, prod in its high half), with
 *                      READ_ONCE; start_xmit writes prod alone with
 *                      smp_store_release (and the poll uses smp_rmb())
 *   WAKE_C11           __atomic_store_n release / __atomic_load_n acquire
 *   WAKE_HINT          the poll reads prod through data_race() first, as
 *                      a hint, and takes the index with smp_load_acquire
 *                      only when the hint says there is work
 * The poll frees the slots from cons up to what it read, and publishes
 * cons; start_xmit stops the queue on a full ring and rechecks, the poll
 * wakes it (smp_mb() pairs, as modern_locked.c).
 */
#include "txpath/linux.h"

#define RING 4

struct drv {
	union {
		u64 both;
		struct {
			u32 cons;	/* low half (little-endian) */
			u32 prod;	/* high half */
		};
	} idx __attribute__((aligned(8)));
	struct sk_buff *slot[RING];
};

static u32 read_prod(struct drv *tp)
{
#if defined(WAKE_ONCE)
	return smp_load_acquire(&tp->idx.prod);
#elif defined(WAKE_WIDE)
	u64 both = READ_ONCE(tp->idx.both);

	smp_rmb();
	return (u32)(both >> 32);
#elif defined(WAKE_C11)
	return __atomic_load_n(&tp->idx.prod, __ATOMIC_ACQUIRE);
#elif defined(WAKE_HINT)
	if (data_race(tp->idx.prod) == READ_ONCE(tp->idx.cons))
		return READ_ONCE(tp->idx.cons);	/* nothing new, by the hint */
	return smp_load_acquire(&tp->idx.prod);
#else
#error "pick a variant: -DWAKE_..."
#endif
}

static void write_prod(struct drv *tp, u32 prod)
{
#if defined(WAKE_C11)
	__atomic_store_n(&tp->idx.prod, prod, __ATOMIC_RELEASE);
#else
	smp_store_release(&tp->idx.prod, prod);
#endif
}

static int drv_open(struct net_device *dev)
{
	(void)dev;
	return 0;
}

static void drv_stop(struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	for (u32 c = tp->idx.cons; c != tp->idx.prod; c++)
		dev_kfree_skb(tp->slot[c % RING]);
}

static netdev_tx_t drv_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);
	u32 prod = tp->idx.prod;	/* start_xmit's own, under the core's lock */

	if (prod - smp_load_acquire(&tp->idx.cons) >= RING) {
		netif_stop_queue(dev);
		return NETDEV_TX_BUSY;
	}
	WRITE_ONCE(tp->slot[prod % RING], skb);
	write_prod(tp, prod + 1);
	if (prod + 1 - smp_load_acquire(&tp->idx.cons) >= RING) {
		netif_stop_queue(dev);
		smp_mb();
		if (prod + 1 - smp_load_acquire(&tp->idx.cons) < RING)
			netif_wake_queue(dev);
	}
	return NETDEV_TX_OK;
}

static int drv_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct drv *tp = netdev_priv(dev);
	u32 cons = READ_ONCE(tp->idx.cons), prod = read_prod(tp);
	int done = 0;

	while (cons != prod && done < budget) {
		dev_kfree_skb(READ_ONCE(tp->slot[cons % RING]));
		cons++;
		done++;
	}
	if (!done)
		return 0;
	smp_store_release(&tp->idx.cons, cons);
	smp_mb();
	if (netif_queue_stopped(dev)) {
		netif_tx_lock(dev);
		if (netif_queue_stopped(dev) && READ_ONCE(tp->idx.prod) - cons < RING)
			netif_wake_queue(dev);
		netif_tx_unlock(dev);
	}
	return done;
}

static struct txp_plugin drv = {
	TXP_PLUGIN_INIT,
	.name = "adv-wake",
	.summary = "a poll that idles on one read of the producer index",
	.lock = TXP_LOCK_CORE,
	.priv_size = sizeof(struct drv),
	.ring = RING,
	.max_frags = 0,
	.open = drv_open,
	.stop = drv_stop,
	.start_xmit = drv_start_xmit,
	.poll = drv_poll,
};
TXP_PLUGIN(drv)
