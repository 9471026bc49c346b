/*
 * host.h - a plugin driver inside txpath: the loaded plugin (host.c runs
 * its device, load.c loads it and makes it a driver of the workload).
 */
#ifndef TXP_PLUGIN_HOST_H
#define TXP_PLUGIN_HOST_H

#include <stdio.h>

#include "sync/sync.h"
#include "txpath/nic.h"
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

/* The NIC a plugin programs (txpath/nic.h): nic.c's. */
struct plugin_nic {
	_Alignas(8) unsigned char regs[TXP_NIC_REGS];	/* the register window */
	const struct txp_nic_tx_ops *ops;	/* NULL: no ring registered */
	unsigned char *ring;
	unsigned count, tail_reg;
	/* A kicked ring's (txp_nic_tx_ring_kick): the driver's count of what
	 * it posted, what the last kick announced (a seam word) and what the
	 * NIC took (completion only), both free-running; posted NULL: the
	 * tail register announces. */
	unsigned (*posted)(struct txp_dev *dev);
	unsigned announced, taken;
	unsigned head;			/* the next descriptor it reads; completion only */
	int (*irq)(int irq, void *arg);	/* the driver's handler, or NULL */
	void *irq_arg;
	struct txp_napi *napi;		/* netif_napi_add()'s, or NULL */
	int (*poll)(struct txp_napi *napi, int budget);	/* NULL: the plugin's op */
	unsigned long scheduled;	/* NAPI scheduled: a seam atomic */
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
	struct plugin_nic nic;
};

/* Fill h->ops and h->name from h->p. */
void plugin_host_ops(struct plugin_host *h);
/* A device's state: ring descriptors, poll's budget, flows the wire
 * tracks; NULL when out of memory. */
struct plugin_dev *plugin_dev_create(const struct plugin_host *h, unsigned ring, unsigned budget,
				     unsigned flows, FILE *log);
void plugin_dev_destroy(struct plugin_dev *pd);
/* The plugin's device that is up, or NULL. */
struct plugin_dev *plugin_up(void);

/* The NIC's turn (nic.c), in the completion context, once a ring is
 * registered: consume what the doorbell announced, mark it done, raise
 * the interrupt.  The packets completed. */
unsigned plugin_nic_run(struct plugin_dev *pd);
/* Is the NAPI context added scheduled? */
bool plugin_nic_napi_scheduled(struct plugin_dev *pd);
/* The xmit_more of the packet the calling context hands to start_xmit. */
void plugin_nic_xmit_more(bool more);

/* A host call with no device up (load.c): call ("printk", "netdev_priv()"),
 * from the plugin's function site (NULL: not known), logging line (NULL:
 * none).  From an entry point being called, the first is kept for the
 * loader's refusal; otherwise said on stderr. */
void plugin_call_nodev(const char *call, const char *site, const char *line);

#endif
