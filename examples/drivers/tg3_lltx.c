/*
 * tg3_lltx.c - the transmit path of a 2004 LLTX driver in the kernel's
 * words, after tg3_start_xmit() and tg3_tx() of Linux 2.6.9, as a txpath
 * plugin (txpath/linux.h).
 *
 * NETIF_F_LLTX: the core calls start_xmit with no lock; the driver takes
 * its own tx_lock by trylock and answers NETDEV_TX_LOCKED when it is busy.
 * That opened the race of 2004: a context that found the lock busy
 * requeues, another stops the queue on a full ring, the completion wakes
 * it and the first comes back to a ring full again with the queue awake:
 * "BUG! Tx Ring full when queue awake!", a false alarm.
 *
 * -DMILLER_RULE builds the 2005 fix (David S. Miller): a full ring with
 * the queue already stopped is the race, harmless: a quiet BUSY.
 *
 * The NIC's doorbell (tw32_tx_mbox) is a once-write of the producer
 * index, and its status block's consumer index a once-read of it: txpath
 * plays the NIC, which has sent everything rung by the time poll runs.
 */
#include <stdlib.h>

#include "txpath/linux.h"

#define TG3_MAX_FRAGS 0		/* what this port takes: heads only */
#define TG3_DEF_RING  3		/* the smallest ring that fills up */

struct tg3 {
	spinlock_t tx_lock;	/* serialises start_xmit and tg3_tx */
	struct sk_buff **tx_buffers;	/* on the last descriptor of each packet */
	u32 ring;
	u32 tx_prod, tx_cons;	/* descriptors posted and retired, ever: under tx_lock */
	u32 tx_mbox;		/* the doorbell: tx_prod as the NIC saw it */
};

/* Free descriptors; under tx_lock. */
static u32 tx_avail(const struct tg3 *tp)
{
	return tp->ring - (tp->tx_prod - tp->tx_cons);
}

static long wake_thresh = 1;	/* wake when more than this is free */
static const struct txp_plugin_knob tg3_knobs[] = {
	{ "wake", "wake the queue when more than this many descriptors are free",
	  &wake_thresh, 1, 4096 },
};

static int tg3_open(struct net_device *dev)
{
	struct tg3 *tp = netdev_priv(dev);

	spin_lock_init(&tp->tx_lock);
	tp->ring = txp_plugin_ring(dev);
	tp->tx_buffers = calloc(tp->ring, sizeof(*tp->tx_buffers));
	return tp->tx_buffers ? 0 : -12;	/* -ENOMEM */
}

static void tg3_stop(struct net_device *dev)
{
	struct tg3 *tp = netdev_priv(dev);

	for (; tp->tx_cons != tp->tx_prod; tp->tx_cons++) {
		struct sk_buff *skb = tp->tx_buffers[tp->tx_cons % tp->ring];

		if (skb)
			dev_kfree_skb(skb);
	}
	free(tp->tx_buffers);
}

static netdev_tx_t tg3_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct tg3 *tp = netdev_priv(dev);
	unsigned long flags;
	u32 entry, need = skb_shinfo(skb)->nr_frags + 1;

	local_irq_save(flags);
	if (!spin_trylock(&tp->tx_lock)) {
		local_irq_restore(flags);
		return NETDEV_TX_LOCKED;
	}

	/* This is a hard error, log it. */
	if (unlikely(tx_avail(tp) <= need)) {
#ifdef MILLER_RULE
		/* Stopped already: the LLTX race, not a bug. */
		if (netif_queue_stopped(dev)) {
			spin_unlock_irqrestore(&tp->tx_lock, flags);
			return NETDEV_TX_BUSY;
		}
#endif
		netif_stop_queue(dev);
		spin_unlock_irqrestore(&tp->tx_lock, flags);
		printk(KERN_ERR "%s: BUG! Tx Ring full when queue awake!\n", netdev_name(dev));
		return NETDEV_TX_BUSY;
	}

	entry = tp->tx_prod;
	for (u32 i = 0; i < need; i++)
		tp->tx_buffers[(entry + i) % tp->ring] = i + 1 == need ? skb : NULL;
	tp->tx_prod = entry + need;
	/* Packets may be DMA'd now: ring the doorbell. */
	WRITE_ONCE(tp->tx_mbox, tp->tx_prod);

	if (tx_avail(tp) <= TG3_MAX_FRAGS + 1)
		netif_stop_queue(dev);
	spin_unlock_irqrestore(&tp->tx_lock, flags);
	return NETDEV_TX_OK;
}

/* tg3_tx: retire what the NIC sent, wake the queue under tx_lock. */
static int tg3_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct tg3 *tp = netdev_priv(dev);
	unsigned long flags;
	u32 hw_idx;
	int done = 0;

	/* The status block says nothing new: no interrupt.  (tx_cons is
	 * written here only.) */
	hw_idx = READ_ONCE(tp->tx_mbox);
	if (hw_idx == tp->tx_cons)
		return 0;

	spin_lock_irqsave(&tp->tx_lock, flags);
	while (tp->tx_cons != hw_idx && done < budget) {
		struct sk_buff **slot = &tp->tx_buffers[tp->tx_cons % tp->ring];

		if (*slot) {
			dev_kfree_skb_irq(*slot);
			done++;
		}
		*slot = NULL;
		tp->tx_cons++;
	}
	if (netif_queue_stopped(dev) && tx_avail(tp) > (u32)wake_thresh)
		netif_wake_queue(dev);
	spin_unlock_irqrestore(&tp->tx_lock, flags);
	return done;
}

static struct txp_plugin tg3 = {
	TXP_PLUGIN_INIT,
#ifdef MILLER_RULE
	.name = "tg3-2005",
	.summary = "LLTX tg3 with Miller's rule: full and stopped is a quiet BUSY",
#else
	.name = "tg3-2004",
	.summary = "LLTX tg3 of 2.6.9: own tx_lock by trylock; full ring: stop, BUG, BUSY",
#endif
	.lock = TXP_LOCK_LLTX,
	.priv_size = sizeof(struct tg3),
	.ring = TG3_DEF_RING,
	.max_frags = TG3_MAX_FRAGS,
	.knobs = tg3_knobs,
	.nknobs = sizeof(tg3_knobs) / sizeof(tg3_knobs[0]),
	.open = tg3_open,
	.stop = tg3_stop,
	.start_xmit = tg3_start_xmit,
	.poll = tg3_poll,
};
TXP_PLUGIN(tg3)
