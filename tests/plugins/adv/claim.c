/*
 * claim.c - an LLTX driver with no lock at all: each start_xmit claims a
 * descriptor by reading the producer index and writing it back plus one,
 * then publishes the packet in the slot it claimed; the poll takes every
 * published slot (xchg).  Two CPUs that read the same index claim the same
 * slot, and the second packet overwrites the first, which is never freed:
 * lost.  The claim is not atomic whatever the accesses are (READ_ONCE and
 * WRITE_ONCE, volatile, C11 relaxed atomics): a bug the explorer finds by
 * preempting a CPU between its load and its store.  -DCLAIM_RMW claims
 * with a read-modify-write (txp_atomic_fetch_add), -DCLAIM_C11_RMW with
 * __atomic_fetch_add: correct.
 */
#include "txpath/linux.h"

#define RING 4

struct drv {
	u32 prod __attribute__((aligned(8)));
	struct sk_buff *slot[RING];
};

#if defined(CLAIM_ONCE)
#define CLAIM(tp) ({ u32 p_ = READ_ONCE(tp->prod); WRITE_ONCE(tp->prod, p_ + 1); p_; })
#elif defined(CLAIM_PLAIN)
#define CLAIM(tp) ({ u32 p_ = tp->prod; tp->prod = p_ + 1; p_; })
#elif defined(CLAIM_VOLATILE)
#define CLAIM(tp) ({ u32 p_ = *(volatile u32 *)&tp->prod; *(volatile u32 *)&tp->prod = p_ + 1; p_; })
#elif defined(CLAIM_C11)
#define CLAIM(tp) ({ u32 p_ = __atomic_load_n(&tp->prod, __ATOMIC_RELAXED); \
		     __atomic_store_n(&tp->prod, p_ + 1, __ATOMIC_RELAXED); p_; })
#elif defined(CLAIM_RMW)
#define CLAIM(tp) ((u32)txp_atomic_fetch_add(&tp->prod, sizeof(tp->prod), 1, TXP_RELAXED))
#elif defined(CLAIM_C11_RMW)
#define CLAIM(tp) __atomic_fetch_add(&tp->prod, 1, __ATOMIC_RELAXED)
#else
#error "pick a variant: -DCLAIM_..."
#endif

static int drv_open(struct net_device *dev)
{
	(void)dev;
	return 0;
}

static void drv_stop(struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);

	for (int i = 0; i < RING; i++)
		if (tp->slot[i])
			dev_kfree_skb(tp->slot[i]);
}

static netdev_tx_t drv_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct drv *tp = netdev_priv(dev);
	u32 at = CLAIM(tp);

	smp_store_release(&tp->slot[at % RING], skb);
	return NETDEV_TX_OK;
}

static int drv_poll(struct napi_struct *napi, int budget)
{
	struct drv *tp = netdev_priv(napi->dev);
	int done = 0;

	for (int i = 0; i < RING && done < budget; i++) {
		struct sk_buff *skb = READ_ONCE(tp->slot[i]);

		if (!skb)
			continue;
		skb = (struct sk_buff *)(uintptr_t)txp_atomic_xchg(&tp->slot[i], sizeof(skb), 0, TXP_SEQ_CST);
		if (skb) {
			dev_kfree_skb(skb);
			done++;
		}
	}
	return done;
}

static struct txp_plugin drv = {
	TXP_PLUGIN_INIT,
	.name = "adv-claim",
	.summary = "LLTX, descriptors claimed by a load and a store",
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
