/*
 * bad_plugin.c - plugins that break the contract, one per -D switch, for
 * tests/cli/driver_so.sh: BAD_ABI (another ABI version), NO_POLL (an op
 * missing), BAD_RETURN (start_xmit returns 7), NO_ENTRY (no entry point),
 * CRASH (start_xmit traps, as the kernel's BUG() does, when it finds the
 * ring full, which only some schedules reach; a trap and not a NULL
 * store, which the sanitizer builds would catch before any signal), EXIT
 * (start_xmit calls exit(3) when it finds the ring full), SPIN
 * (start_xmit, the ring full, waits on a plain flag nobody sets: a loop
 * without a scheduling point), HEAP (start_xmit, the ring full, breaks
 * the C library's heap as a driver's double free would, so that glibc
 * aborts inside free() holding its arena's lock), LEAK
 * (poll forgets the second packet of each flow: retires its slot, never
 * frees it), SLOW (no bug: start_xmit works 300 ms of the clock's time
 * without a scheduling point, then goes on; a livelock of a second must
 * not be reported for it, even when the process is stopped meanwhile).
 * Without a switch: a driver that drops nothing and sends everything.
 */
#include <stdlib.h>
#include <time.h>

#include "txpath/linux.h"

#define RING 4

struct bad {
	struct sk_buff *slot[RING];
	u32 prod, cons;		/* under the xmit lock; cons also read by poll */
};

static void bad_stop(struct net_device *dev)
{
	struct bad *b = netdev_priv(dev);

	for (; b->cons != b->prod; b->cons++)
		dev_kfree_skb(b->slot[b->cons % RING]);
}

#ifdef SLOW
/* 300 ms of the clock's time, no scheduling point on the way. */
static void slow_work(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000000L);
}
#endif

#ifdef HEAP
/* A chunk too big for glibc's fast bins, freed twice once its thread
 * cache for that size is full (7): the second free() finds the
 * corruption under the arena's lock, and aborts holding it. */
static void heap_break(void)
{
	void *p[9], *volatile again;

	for (int i = 0; i < 9; i++)
		p[i] = malloc(512);
	for (int i = 0; i < 7; i++)
		free(p[i]);
	again = p[7];
	free(p[7]);	/* p[8] keeps it from the top chunk */
	free(again);
	free(p[8]);
}
#endif

static netdev_tx_t bad_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct bad *b = netdev_priv(dev);

#ifdef BAD_RETURN
	(void)b;
	(void)skb;
	return 7;
#else
#ifdef SLOW
	slow_work();
#endif
	if (b->prod - READ_ONCE(b->cons) == RING) {
#ifdef CRASH
		/* The ring full: BUG(). */
		__builtin_trap();
#elif defined(EXIT)
		exit(3);
#elif defined(HEAP)
		heap_break();
#elif defined(SPIN)
		/* The ring full: wait for poll to make room, on a plain
		 * read (the bug: a loop nothing can preempt). */
		while (*(volatile u32 *)&b->cons == b->prod - RING)
			;
#endif
		netif_stop_queue(dev);
		return NETDEV_TX_BUSY;
	}
	b->slot[b->prod % RING] = skb;
	WRITE_ONCE(b->prod, b->prod + 1);
	return NETDEV_TX_OK;
#endif
}

static __attribute__((unused)) int bad_poll(struct napi_struct *napi, int budget)
{
	struct net_device *dev = napi->dev;
	struct bad *b = netdev_priv(dev);
	int done = 0;

	netif_tx_lock(dev);
	for (; b->cons != b->prod && done < budget; done++) {
		struct sk_buff *skb = b->slot[b->cons % RING];

#ifdef LEAK
		if (skb->seq != 1)
#endif
			dev_kfree_skb(skb);
		WRITE_ONCE(b->cons, b->cons + 1);
	}
	if (done && netif_queue_stopped(dev))
		netif_wake_queue(dev);
	netif_tx_unlock(dev);
	return done;
}

static __attribute__((unused)) struct txp_plugin bad = {
#ifdef BAD_ABI
	.abi = TXP_PLUGIN_ABI + 1,
	.size = sizeof(struct txp_plugin),
#else
	TXP_PLUGIN_INIT,
#endif
	.name = "bad",
	.lock = TXP_LOCK_CORE,
	.priv_size = sizeof(struct bad),
	.ring = RING,
	.stop = bad_stop,
	.start_xmit = bad_start_xmit,
#ifndef NO_POLL
	.poll = bad_poll,
#endif
};
#ifndef NO_ENTRY
TXP_PLUGIN(bad)
#endif
