/*
 * rogue_plugin.c - drivers that go wrong at run time, one per -D switch,
 * for tests/cli/driver_so.sh under `txpath run`: each sends its first
 * ROGUE_AFTER packets as a good driver does, then
 *  SPIN       start_xmit spins for ever (under the xmit lock);
 *  TWICE      poll frees each packet twice (a double completion);
 *  FREE_BUSY  start_xmit frees the packet and returns NETDEV_TX_BUSY;
 *  SEGV       start_xmit stores through a wild pointer (SIGSEGV);
 *  STACK      start_xmit recurses until its thread's stack overflows
 *             (SIGSEGV, with no stack left for a handler but an
 *             alternate one);
 *  ABORT      poll calls abort() (SIGABRT);
 *  EXIT       start_xmit calls exit(3).
 * The wild pointer is not NULL: the sanitizer builds would report a NULL
 * store themselves before any signal.
 */
#include <stdint.h>
#include <stdlib.h>

#include "txpath/linux.h"

#define RING 64
#define ROGUE_AFTER 100

#ifdef SEGV
/* Where no memory is, hidden from the compiler. */
static volatile uintptr_t wild = 64;
#endif

#ifdef STACK
/* Deeper than any stack: the compiler cannot tell that it never ends. */
static volatile unsigned bottom = ~0u;

/* A kilobyte of stack per call, kept (not a tail call), and each call a
 * frame of its own (not inlined into the next): the stack pointer steps
 * onto the guard page below the stack, never over it. */
static __attribute__((noinline)) unsigned deeper(unsigned depth)
{
	volatile unsigned char frame[1024];

	frame[0] = (unsigned char)depth;
	if (depth == bottom)
		return 0;
	return deeper(depth + 1) + frame[0];
}
#endif

struct rogue {
	struct sk_buff *slot[RING];
	u32 prod, cons;		/* under the xmit lock; cons also read by poll */
	u32 sent;		/* under the xmit lock: packets taken */
};

static void rogue_stop(struct net_device *dev)
{
	struct rogue *r = netdev_priv(dev);

	for (; r->cons != r->prod; r->cons++)
		dev_kfree_skb(r->slot[r->cons % RING]);
}

/* Has the driver sent its good packets? */
static bool gone_rogue(const struct rogue *r)
{
	return r->sent >= ROGUE_AFTER;
}

static netdev_tx_t rogue_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct rogue *r = netdev_priv(dev);

	if (gone_rogue(r)) {
#if defined(SPIN)
		for (;;)
			cpu_relax();
#elif defined(FREE_BUSY)
		dev_kfree_skb(skb);
		return NETDEV_TX_BUSY;
#elif defined(SEGV)
		*(volatile int *)wild = 1;
#elif defined(STACK)
		r->sent += deeper(0);
#elif defined(EXIT)
		exit(3);
#endif
	}
	if (r->prod - READ_ONCE(r->cons) == RING) {
		netif_stop_queue(dev);
		return NETDEV_TX_BUSY;
	}
	r->slot[r->prod % RING] = skb;
	r->sent++;
	WRITE_ONCE(r->prod, r->prod + 1);
	return NETDEV_TX_OK;
}

static int rogue_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct rogue *r = netdev_priv(dev);
	int done = 0;

	netif_tx_lock(dev);
	for (; r->cons != r->prod && done < budget; done++) {
		struct sk_buff *skb = r->slot[r->cons % RING];

#if defined(ABORT)
		if (gone_rogue(r))
			abort();
#endif
		dev_kfree_skb(skb);
#if defined(TWICE)
		if (gone_rogue(r))
			dev_kfree_skb(skb);
#endif
		WRITE_ONCE(r->cons, r->cons + 1);
	}
	if (done && netif_queue_stopped(dev))
		netif_wake_queue(dev);
	netif_tx_unlock(dev);
	return done;
}

static struct txp_plugin rogue = {
	TXP_PLUGIN_INIT,
	.name = "rogue",
	.lock = TXP_LOCK_CORE,
	.priv_size = sizeof(struct rogue),
	.ring = RING,
	.stop = rogue_stop,
	.start_xmit = rogue_start_xmit,
	.poll = rogue_poll,
};
TXP_PLUGIN(rogue)
