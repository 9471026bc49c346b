/*
 * bad_load_plugin.c - plugins the loader must refuse with one line (exit
 * 2) rather than crash on, one per -D switch, for
 * tests/plugins/bad_load_errors.sh:
 *   PRIV_WRAP      priv_size SIZE_MAX - 8 (rounding it up would wrap)
 *   PRIV_HUGE      priv_size 2^46
 *   PRINTK_ENTRY   the entry point calls printk
 *   FREE_ENTRY     ... dev_kfree_skb (no device to drop it on)
 *   FREE_IRQ_ENTRY ... dev_kfree_skb_irq
 *   PRIV_ENTRY     ... netdev_priv (no device to have one)
 *   KNOB_NO_NAME   a knob whose name is NULL
 *   KNOB_NO_VALUE  a knob whose value is NULL
 *   KNOB_EMPTY     a knob with min > max (10..1)
 *   ENTRY_NULL     the entry point returns NULL
 *   ENTRY_ODD      ... a misaligned pointer
 *   ENTRY_WILD     ... a pointer into no loaded object
 *   ENTRY_MMAP     ... a well-formed struct, but in memory it mapped
 * Without a switch: a driver that loads and sends everything (one packet
 * in flight at a time).  With MANY_SEGMENTS, the same driver, loadable
 * too, in an object of over 16 PT_LOAD segments, its knob's variable in
 * the last (in .bss).
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "txpath/linux.h"

struct one {
	struct sk_buff *slot;
};

#if defined(MANY_SEGMENTS)
/* 16 writable sections 64 KiB apart: a page skipped between two is a new
 * segment to the linker, so each is one, after .data, in whatever order
 * the compiler emits them; .bss follows them all, in the last segment:
 * the knob lives there, its default set by the entry point. */
#define SEG(n) static char seg##n __attribute__((section(".txp_seg" #n), aligned(65536), used)) = 1;
SEG(0) SEG(1) SEG(2) SEG(3) SEG(4) SEG(5) SEG(6) SEG(7)
SEG(8) SEG(9) SEG(10) SEG(11) SEG(12) SEG(13) SEG(14) SEG(15)
static long knob;
#else
static long knob = 5;
#endif

static void one_stop(struct net_device *dev)
{
	struct one *o = netdev_priv(dev);

	if (o->slot)
		dev_kfree_skb(o->slot);
	o->slot = NULL;
}

static netdev_tx_t one_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct one *o = netdev_priv(dev);

	/* Under the xmit lock (lock mode core), as poll is. */
	if (READ_ONCE(o->slot)) {
		netif_stop_queue(dev);
		return NETDEV_TX_BUSY;
	}
	WRITE_ONCE(o->slot, skb);
	return NETDEV_TX_OK;
}

static int one_poll(struct napi_struct *napi, int budget)
{
	struct one *o = netdev_priv(napi->dev);
	int done = 0;

	netif_tx_lock(napi->dev);
	if (o->slot && budget) {
		dev_kfree_skb(o->slot);
		WRITE_ONCE(o->slot, NULL);
		done = 1;
	}
	if (done && netif_queue_stopped(napi->dev))
		netif_wake_queue(napi->dev);
	netif_tx_unlock(napi->dev);
	return done;
}

static struct txp_plugin_knob knobs[] = {
	{ .name = "depth", .help = "a knob", .value = &knob, .min = 1, .max = 10 },
};

static struct txp_plugin one = {
	TXP_PLUGIN_INIT,
	.name = "bad_load",
	.lock = TXP_LOCK_CORE,
	.priv_size = sizeof(struct one),
	.ring = 2,
	.knobs = knobs,
	.nknobs = 1,
	.stop = one_stop,
	.start_xmit = one_start_xmit,
	.poll = one_poll,
};

/* Room for a misaligned copy of the struct, inside this object. */
static char odd[sizeof(struct txp_plugin) + 8] __attribute__((aligned(16)));

const struct txp_plugin *txp_plugin_entry(void)
{
#if defined(PRIV_WRAP)
	one.priv_size = SIZE_MAX - 8;
#elif defined(PRIV_HUGE)
	one.priv_size = (size_t)1 << 46;
#elif defined(PRINTK_ENTRY)
	printk(KERN_INFO "bad_load: hello from the entry point\n");
#elif defined(FREE_ENTRY)
	dev_kfree_skb(NULL);
#elif defined(FREE_IRQ_ENTRY)
	dev_kfree_skb_irq(NULL);
#elif defined(PRIV_ENTRY)
	if (netdev_priv(NULL))
		return NULL;
#elif defined(KNOB_NO_NAME)
	knobs[0].name = NULL;
#elif defined(KNOB_NO_VALUE)
	knobs[0].value = NULL;
#elif defined(KNOB_EMPTY)
	knobs[0].min = 10;
	knobs[0].max = 1;
#elif defined(MANY_SEGMENTS)
	knob = 5;
#elif defined(ENTRY_NULL)
	return NULL;
#elif defined(ENTRY_ODD)
	memcpy(odd + 1, &one, sizeof(one));
	return (const struct txp_plugin *)(void *)(odd + 1);
#elif defined(ENTRY_WILD)
	return (const struct txp_plugin *)(uintptr_t)0x10000;
#elif defined(ENTRY_MMAP)
	{
		/* Memory of the plugin's own, but not of its object (as the
		 * heap's is; mapped, so that no leak checker minds). */
		void *p = mmap(NULL, sizeof(one), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		memcpy(p, &one, sizeof(one));
		return p;
	}
#endif
	(void)odd;
	return &one;
}
