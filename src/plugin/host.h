/*
 * host.h - a plugin driver inside txpath: the loaded plugin (host.c runs
 * its device, load.c loads it and makes it a driver of the workload).
 */
#ifndef TXP_PLUGIN_HOST_H
#define TXP_PLUGIN_HOST_H

#include <stdio.h>

#include "sync/sync.h"
#include "txpath/plugin.h"
#include "run/run.h"
#include "txpath/sim.h"

/* One loaded plugin; never unloaded. */
struct plugin_host {
	const struct txp_plugin *p;
	char name[64];			/* p->name, copied: a crash handler reads
					 * it, and the plugin's memory may be what
					 * the crash corrupted */
	struct txp_driver_ops ops;	/* the device's: the plugin's, wrapped */
	struct txp_run_driver drv;	/* the workload's view */
	struct plugin_host *next;	/* the one loaded before */
};

/* One device of it: the txpath device's priv. */
struct plugin_dev {
	const struct plugin_host *h;
	struct txp_dev *dev;
	void *drv;			/* netdev_priv() */
	unsigned ring, budget;
	FILE *log;			/* printk lines without BUG; NULL: none */
	struct txp_napi napi;
	atomic_bool running;		/* the completion context goes on */
	struct txp_thread thread;
	bool stopping;			/* in stop: frees are dev-down */
	struct txp_pkt *sent_later;	/* dev_kfree_skb_irq in poll; completion only */
	struct txp_pkt *_Atomic drop_later;	/* ... elsewhere: a lock-free stack */
	struct txp_wire *wire;		/* what poll sent */
};

/* Fill h->ops and h->name from h->p. */
void plugin_host_ops(struct plugin_host *h);
/* A device's state: ring descriptors, poll's budget, flows the wire
 * tracks; NULL when out of memory. */
struct plugin_dev *plugin_dev_create(const struct plugin_host *h, unsigned ring, unsigned budget,
				     unsigned flows, FILE *log);
void plugin_dev_destroy(struct plugin_dev *pd);
/* A host call with no device up (load.c): call ("printk", "netdev_priv()"),
 * from the plugin's function site (NULL: not known), logging line (NULL:
 * none).  From an entry point being called, the first is kept for the
 * loader's refusal; otherwise said on stderr. */
void plugin_call_nodev(const char *call, const char *site, const char *line);

#endif
