/*
 * txpath/plugin.h - a driver of one's own, as a shared object for
 * `txpath run --driver-so` and `txpath check --driver-so`.
 *
 * The shared object defines one entry point, txp_plugin_entry (write
 * TXP_PLUGIN(the_struct) once), returning its struct txp_plugin: its
 * transmit op, its completion routine (NAPI poll), its knobs and its ring
 * geometry.  It links against nothing: the program that loads it provides
 * every txp_ symbol (txpath/sync.h, driver.h, dev.h, this file), with
 * the plain seam under `txpath run` and the explorer's under `txpath
 * check`.  Build it with `cc -shared -fPIC $(txpath config --cflags)`.
 *
 * The entry point only returns the struct: it runs before any device
 * exists, so it may not log (printk there is refused) nor call the
 * device's functions.  The loader refuses, with one line naming the
 * plugin and exit 2, a struct that is not in the plugin's shared object
 * (NULL, misaligned, on the heap, anywhere outside the object's
 * segments), of another TXP_PLUGIN_ABI or size, whose strings, knob array
 * and knob variables are not in the object or whose ops are not in its
 * code, with a priv_size over TXP_PLUGIN_PRIV_MAX, or with a knob whose
 * name is empty or holds '=' or ',', whose range is empty (min > max) or
 * whose default is outside it.
 *
 * txpath plays the NIC: every descriptor the driver posted has been sent
 * by the time its poll runs, and poll runs in a completion context of its
 * own ("IRQ": a thread under run, a fiber of the explorer under check),
 * over and over while the device is up.  The driver owns its ring in
 * ordinary memory, in its netdev_priv() area.  A driver that registers
 * its descriptor ring and its NAPI context (txpath/nic.h) has a NIC that
 * sends only what its doorbell announced, and a poll that runs only while
 * scheduled.
 */
#ifndef TXPATH_PLUGIN_H
#define TXPATH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of struct txp_plugin; a plugin of another is refused. */
#define TXP_PLUGIN_ABI 1

/* The largest netdev_priv() area: INT_MAX bytes, as the kernel's
 * kvzalloc() of a net_device allows. */
#define TXP_PLUGIN_PRIV_MAX 2147483647

/* What the completion routine is given (struct napi_struct). */
struct txp_napi {
	struct txp_dev *dev;
};

/* A knob, set by --driver-arg NAME=VALUE before open: *value in min..max
 * (min <= max; the default, *value as loaded, inside). */
struct txp_plugin_knob {
	const char *name;
	const char *help;	/* one line */
	long *value;		/* the plugin's variable, holding its default */
	long min, max;
};

struct txp_plugin {
	uint32_t abi;		/* TXP_PLUGIN_ABI */
	uint32_t size;		/* sizeof(struct txp_plugin) */
	const char *name;	/* its diagrams' and logs' driver name: "tg3" */
	const char *summary;	/* one line */
	enum txp_lock_mode lock;	/* who serialises start_xmit (LLTX: the driver) */
	size_t priv_size;	/* bytes of its netdev_priv() area, zeroed at open;
				 * at most TXP_PLUGIN_PRIV_MAX */
	unsigned ring;		/* default descriptors (--ring overrides); read it at
				 * open with txp_plugin_ring() */
	unsigned max_frags;	/* largest nr_frags it takes: longer packets are never sent */
	const struct txp_plugin_knob *knobs;	/* nknobs of them, or NULL */
	unsigned nknobs;

	/*
	 * open: set up the ring and the locks in netdev_priv(dev).
	 * Synchronization: none needed; nothing runs yet.
	 * Context: the thread bringing the device up, before the completion
	 * context starts.  Optional.
	 * Return codes: 0, or a negative errno.
	 */
	int (*open)(struct txp_dev *dev);
	/*
	 * stop: hand back every packet still in the ring (dev_kfree_skb: a
	 * packet freed outside poll is dropped as dev-down here).
	 * Synchronization: the completion context has stopped, no producer
	 * runs.  Context: the thread bringing the device down.
	 */
	void (*stop)(struct txp_dev *dev);
	/*
	 * start_xmit: ndo_start_xmit, with the contract of
	 * txp_driver_ops.start_xmit (txpath/driver.h): lock mode core, called
	 * under the queue's xmit lock; LLTX, with no lock at all.
	 * Return codes: TXP_TX_OK (the packet is the driver's), TXP_TX_BUSY
	 * (no room, still the caller's), TXP_TX_LOCKED (LLTX only, its own
	 * lock was busy).  Anything else ends the program with exit 2.
	 */
	int (*start_xmit)(struct txp_pkt *skb, struct txp_dev *dev);
	/*
	 * poll: the completion routine.  Retire what the NIC sent (all that
	 * was posted), at most budget packets, freeing each (dev_kfree_skb:
	 * transmitted), and wake the queue if it was stopped and room came
	 * back.  Context: the completion context only, as NAPI poll runs
	 * (softirq: not "in interrupt").
	 * Return codes: the packets retired, 0..budget (0: nothing to do).
	 */
	int (*poll)(struct txp_napi *napi, int budget);
};

#define TXP_PLUGIN_INIT .abi = TXP_PLUGIN_ABI, .size = sizeof(struct txp_plugin)

/* The entry point: its name, its declaration (of C linkage in C++ too,
 * as dlsym finds it) and its definition for a plugin struct p. */
#define TXP_PLUGIN_ENTRY "txp_plugin_entry"
const struct txp_plugin *txp_plugin_entry(void);
#define TXP_PLUGIN(p)							\
	const struct txp_plugin *txp_plugin_entry(void) { return &(p); }

/* For the plugin: its netdev_priv() area, its ring's descriptors. */
void *txp_plugin_priv(const struct txp_dev *dev);
unsigned txp_plugin_ring(const struct txp_dev *dev);

/*
 * Packets leaving the plugin (dev_kfree_skb and its kin, txpath/linux.h):
 * within poll, transmitted; elsewhere dropped (start_xmit's error path:
 * driver; stop: dev-down).  _deferred (dev_kfree_skb_irq, _any): freed by
 * the completion context after poll returns, so legal with interrupts
 * off.  site: the caller's function, for the lock validator.
 */
void txp_plugin_free_at(struct txp_pkt *skb, const char *site);
void txp_plugin_free_deferred_at(struct txp_pkt *skb, const char *site);
/* The kernel log (printk, netdev_err), logged as from site (the caller's
 * function): a line with "BUG" in it counts as the device's bug log
 * (txp_dev_log_bug()); fmt may start with a KERN_ level ("\001" "3"). */
void txp_plugin_printk_at(const char *site, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* net_ratelimit(): the first 10 lines of each second (always, under
 * check, which must be deterministic). */
int txp_plugin_ratelimit(void);

#ifdef __cplusplus
}
#endif

#endif
