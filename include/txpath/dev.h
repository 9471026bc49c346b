/*
 * txpath/dev.h - devices, their transmit queues, and the transmit path.
 *
 * A device has 1..TXP_DEV_MAX_QUEUES transmit queues (Linux 2.6.27+);
 * each queue owns what the 2.6 kernel kept in struct net_device: the qdisc
 * and its root lock (dev->queue_lock), the stopped bit (__LINK_STATE_XOFF)
 * and the xmit lock with its owner (dev->xmit_lock, dev->xmit_lock_owner),
 * plus, as struct netdev_queue does today, its byte queue limits and the
 * time it last stopped (trans_start, for the watchdog).  A stopped queue
 * never blocks another.
 */
#ifndef TXPATH_DEV_H
#define TXPATH_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "txpath/pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct txp_dev;
struct txp_txq;
struct txp_driver_ops;
struct txp_qdisc_ops;

/* Who serialises start_xmit. */
enum txp_lock_mode {
	TXP_LOCK_CORE,		/* the core's xmit lock, taken by trylock */
	TXP_LOCK_LLTX,		/* NETIF_F_LLTX: the driver locks for itself */
};

/* Who may run a queue's qdisc. */
enum txp_runner {
	TXP_RUNNER_CONCURRENT,	/* any number of contexts at once (2.6.9) */
	TXP_RUNNER_EXCLUSIVE,	/* one context per queue (2.6.16: RUNNING bit) */
};

/* A root-locked qdisc's defer list (txp_dev_cfg.defer). */
enum txp_defer {
	TXP_DEFER_OFF,		/* every producer takes the root lock */
	/* Linux 6.18 ("net: dev_queue_xmit() llist adoption"): a producer
	 * that finds the list non-empty pushes onto it and returns; the one
	 * that found it empty takes the root lock and queues the list. */
	TXP_DEFER_LINUX,
	/* txpath's own, not Linux's: the list's drainer keeps it, taking
	 * what was pushed meanwhile, until it finds the list empty (or has
	 * queued a quota of packets, when it lets go and schedules the
	 * queue): every other producer pushes with one compare-and-swap and
	 * returns, and one context sends for all.  A producer that finds
	 * the list empty and nobody's and the root lock free goes as without
	 * a list: alone, it pays no locked instruction for it. */
	TXP_DEFER_DRAIN,
};

/* Why a packet was dropped; every drop has exactly one. */
enum txp_drop_reason {
	TXP_DROP_QDISC_LIMIT,	/* the qdisc band was full (txqueuelen) */
	TXP_DROP_DEAD_LOOP,	/* start_xmit recursed into its own queue */
	TXP_DROP_VIRTUAL_BUSY,	/* noqueue device returned BUSY or was stopped */
	TXP_DROP_DEV_DOWN,	/* the device closed with the packet queued */
	TXP_DROP_DRIVER,	/* the driver refused the packet (bad packet) */
	TXP_DROP_TX_ERROR,	/* the device failed to send it (descriptor error,
				 * write error, refused by the kernel) */
	TXP_DROP_INTERRUPTED,	/* the run was interrupted (a signal) with it queued */
	TXP_DROP_NO_QUEUE,	/* sent on a queue the device does not have */
	TXP_DROP_TX_TIMEOUT,	/* in the ring when the watchdog reset it (tx_timeout) */
	TXP_DROP_NR,
};

/* txp_dev_queue_xmit() results (NET_XMIT_*). */
enum txp_xmit {
	TXP_XMIT_OK = 0,
	TXP_XMIT_DROP = 1,
};

struct txp_dev_cfg {
	const char *name;			/* "eth0"; copied */
	enum txp_lock_mode lock;
	enum txp_runner runner;
	const struct txp_qdisc_ops *qdisc;	/* NULL: txp_pfifo_fast_ops */
	unsigned txqueuelen;			/* 0: 1000 */
	/* Packets qdisc_restart() takes from the qdisc per xmit lock
	 * acquisition, each but the last sent with xmit_more set (bulk
	 * dequeue, Linux 3.18).  0 or 1: one, as 2.6.x did; at most
	 * TXP_DEV_BULK_MAX. */
	unsigned bulk;
	const struct txp_driver_ops *ops;
	void *priv;				/* the driver's, see txp_dev_priv() */
	FILE *log;				/* kernel log lines; NULL: none */
	unsigned num_tx_queues;			/* 0: 1; at most TXP_DEV_MAX_QUEUES */
	bool bql;				/* byte queue limits (Linux 3.3) */
	/* The watchdog's timeout (watchdog_timeo; Linux's default is
	 * TXP_DEV_WATCHDOG_MS), if the driver has a tx_timeout op; 0: no
	 * watchdog. */
	unsigned watchdog_timeo_ms;
	/* A root-locked qdisc's defer list (enum txp_defer; true is
	 * TXP_DEFER_LINUX, 6.18's): a producer that finds another already
	 * waiting for the root lock pushes its packets onto a lock-free list
	 * and returns.  Nothing for a lockless qdisc or noqueue. */
	enum txp_defer defer;
	/* The qdisc busylock (Linux 2.6.36 to 6.17, which 6.18's defer list
	 * replaced): a producer that finds the queue being run takes a
	 * second lock before the root lock, so that producers queue on it
	 * and the runner, coming back for the root lock between batches,
	 * meets at most one of them there.  Taken as Linux took it, only by
	 * a producer of a root-locked qdisc with the exclusive runner (which
	 * says who runs the queue) and no defer list; ignored otherwise. */
	bool busylock;
	/* The watchdog's clock in ns: what trans_start is stamped with and
	 * what the watchdog compares it with.  NULL: txp_now_ns().  The
	 * explorer's scenario gives a logical one (txpath check --watchdog). */
	uint64_t (*watchdog_clock)(void);
};

#define TXP_DEV_BULK_MAX 64
#define TXP_DEV_MAX_QUEUES 64
#define TXP_DEV_WATCHDOG_MS 5000

/* Counters of one device, summed over contexts when read. */
struct txp_dev_stats {
	uint64_t submitted;	/* packets handed to txp_dev_queue_xmit() */
	uint64_t transmitted;	/* completed by the device */
	uint64_t dropped[TXP_DROP_NR];
	uint64_t xmit_calls;	/* calls of start_xmit */
	uint64_t xmit_on_stopped; /* ... that ran while another context stopped the queue */
	uint64_t tx_busy;	/* TXP_TX_BUSY returned */
	uint64_t tx_locked;	/* TXP_TX_LOCKED returned */
	uint64_t collisions;	/* xmit lock (or driver lock) busy: requeued */
	uint64_t requeues;	/* packets put back at the head of the qdisc */
	uint64_t stops;		/* awake -> stopped transitions */
	uint64_t wakes;		/* stopped -> awake transitions */
	uint64_t bug_logs;	/* driver "BUG!" log lines (counted even if not printed) */
	uint64_t tx_timeouts;	/* the watchdog found the queue stuck (trans_timeout) */
	uint64_t bql_stops;	/* BQL stopped the queue (STACK_XOFF set at its limit) */
};

/* A queue's byte queue limits, as read now. */
struct txp_bql_info {
	bool enabled;
	unsigned limit;		/* bytes the queue may have in flight */
	unsigned inflight;	/* bytes sent and not completed */
};

/*
 * Create a device; NULL and a message in err (errlen bytes) on failure:
 * cfg NULL, no driver or no start_xmit op, a lock or runner that is none
 * of its enum's, a qdisc without init (or with enqueue but without
 * dequeue or requeue), more than TXP_DEV_MAX_QUEUES queues, memory short.
 */
struct txp_dev *txp_dev_create(const struct txp_dev_cfg *cfg, char *err, size_t errlen);
/* Bring it up: the driver's open op.  0 or a negative errno; -EINVAL for
 * NULL; -EBUSY from a driver whose completion contexts find no context
 * id left (txpath/ctx.h: the library's own range, 128).  A device that is up already is left as it is: 0, and open is
 * not called again (as dev_open()).  One thread at a time opens and
 * closes a device. */
int txp_dev_open(struct txp_dev *dev);
/* Bring it down: the driver's stop op, then every queued packet is
 * dropped as TXP_DROP_DEV_DOWN.  No producer may be running.  A device
 * that is down (closed already, never opened) or NULL: nothing.  Packets
 * sent to a device that is down are dropped as TXP_DROP_DEV_DOWN. */
void txp_dev_close(struct txp_dev *dev);
/* Close it and free it (NULL: nothing).  As with free(), dev is gone:
 * any later call with it, a second destroy or a transmit included, is
 * undefined (a use after free the library cannot see). */
void txp_dev_destroy(struct txp_dev *dev);

const char *txp_dev_name(const struct txp_dev *dev);
enum txp_lock_mode txp_dev_lock_mode(const struct txp_dev *dev);
/* Queue index of dev, or NULL past the last. */
struct txp_txq *txp_dev_txq(struct txp_dev *dev, unsigned index);
unsigned txp_dev_num_tx_queues(const struct txp_dev *dev);
/* Has the device byte queue limits (txp_dev_cfg.bql)? */
bool txp_dev_bql(const struct txp_dev *dev);
unsigned txp_txq_index(const struct txp_txq *txq);
void *txp_dev_priv(const struct txp_dev *dev);

/*
 * XPS: context ctx (txp_ctx_self()) sends on queue, or by flow hash when
 * queue is -1.  The default maps context i to queue i mod the queue count.
 * Any thread, any time: a sender that caches its queue (txp_dev_pick_tx)
 * moves only when its packet says it may.  0 or -EINVAL.
 */
int txp_dev_set_xps(struct txp_dev *dev, unsigned ctx, int queue);

/*
 * The queue for pkt (netdev_core_pick_tx): the driver's select_queue op
 * if it has one; else *cache, the sender's queue for this flow
 * (sk_tx_queue_mapping; -1: none yet), unless pkt->ooo_okay lets the flow
 * move; else the XPS map of the calling context; else the flow hash of
 * pkt->flow scaled onto the queues.  Updates *cache; cache may be NULL.
 * A sender sets pkt->ooo_okay when it has nothing of the flow in flight,
 * as TCP does, so a flow is never reordered by moving.
 */
unsigned txp_dev_pick_tx(struct txp_dev *dev, struct txp_pkt *pkt, int *cache);

/*
 * Queue a packet for transmission (dev_queue_xmit).  Multi-producer safe:
 * any number of contexts may call it at once.  Takes ownership of pkt in
 * every case.  Returns TXP_XMIT_OK when queued or sent, TXP_XMIT_DROP when
 * dropped (counted with its reason); -EINVAL, nothing counted, when dev
 * or pkt is NULL (a pkt is then freed).
 */
int txp_dev_queue_xmit(struct txp_dev *dev, struct txp_pkt *pkt);
/* The same on the given queue; a queue dev does not have drops the packet
 * as TXP_DROP_NO_QUEUE. */
int txp_dev_queue_xmit_on(struct txp_dev *dev, unsigned queue, struct txp_pkt *pkt);

/*
 * Queue n packets at once: one root lock acquisition for all of them,
 * then the queue runs (with bulk dequeue, the driver sees them with
 * xmit_more).  Multi-producer safe.  Takes ownership of every packet;
 * returns how many were queued or sent, the others were dropped (counted
 * with their reason).  The order of pkts is kept within each band.
 * Every pkts[i] must be a packet: a NULL entry is undefined (not checked,
 * in any build: that would cost a pass over the burst per call).  dev
 * NULL, or pkts NULL with n > 0: 0, nothing counted, the packets freed.
 */
unsigned txp_xmit_burst(struct txp_dev *dev, struct txp_pkt **pkts, unsigned n);
/* The same on the given queue (see txp_dev_queue_xmit_on). */
unsigned txp_xmit_burst_on(struct txp_dev *dev, unsigned queue, struct txp_pkt **pkts, unsigned n);

/*
 * Backpressure instead of drops, as DPDK's rte_eth_tx_burst(): queue as
 * many of pkts[0..n) as fit, in order, and return how many; those are
 * the core's (counted as submitted).  pkts[ret..n) stay the caller's,
 * untouched and uncounted, to send again later: the first packet its
 * queue could not take ends the call (a full qdisc band, a device without
 * a queue whose driver is busy or stopped, a device that is down: 0).
 * Nothing is dropped, but a driver recursing into its own queue (a dead
 * loop, dropped and counted as taken).  Multi-producer safe.  On a queue
 * with a defer list it takes the root lock and queues what the list
 * holds first: a flow sent by this call and by txp_xmit_burst() stays in
 * order.  The same arguments as txp_xmit_burst(): dev NULL, or pkts NULL
 * with n > 0: 0, and the packets stay the caller's.
 */
unsigned txp_xmit_burst_try(struct txp_dev *dev, struct txp_pkt **pkts, unsigned n);

/* For drivers: txp_pkt_complete() for a list linked through ->next
 * (n packets, all sent on one queue: they are counted on the first one's
 * queue): counted once, freed in runs per pool.  Any context. */
#define txp_pkt_complete_list(dev, list, n) txp_pkt_complete_list_at((dev), (list), (n), __func__)
/* The same naming the site (the caller's function, for the lock validator). */
void txp_pkt_complete_list_at(struct txp_dev *dev, struct txp_pkt *list, unsigned n,
			      const char *site);

/*
 * Run the queues of dev that were scheduled (net_tx_action): each is
 * drained if its root lock can be had, else left scheduled.  Safe from any
 * context; drivers call it from their completion context after a wake.
 */
void txp_net_tx_action(struct txp_dev *dev);
/* The same for one queue: what a queue's own completion context runs
 * (its interrupt's CPU has that queue on its list, not the others). */
void txp_net_tx_action_txq(struct txp_txq *txq);

/* Packets sitting in the qdiscs of dev, or of one queue. */
unsigned txp_dev_backlog(struct txp_dev *dev);
unsigned txp_txq_backlog(struct txp_txq *txq);

/* The counters of every queue, summed; of one queue. */
void txp_dev_get_stats(const struct txp_dev *dev, struct txp_dev_stats *st);
void txp_txq_get_stats(const struct txp_txq *txq, struct txp_dev_stats *st);
/* Packets dropped, over every reason. */
uint64_t txp_dev_stats_dropped(const struct txp_dev_stats *st);
/* Every packet submitted ended transmitted or dropped with a reason:
 * submitted == transmitted + dropped.  False while one is still queued or
 * in flight (read the counters once the device is closed). */
bool txp_dev_stats_accounted(const struct txp_dev_stats *st);
void txp_txq_get_bql(const struct txp_txq *txq, struct txp_bql_info *bi);

/*
 * The TX watchdog (dev_watchdog): one pass over the queues.  A queue
 * stopped (by its driver or by BQL) for longer than the timeout since it
 * stopped is counted in tx_timeouts and logged as "NETDEV WATCHDOG: <dev>
 * (<driver>): transmit queue N timed out M ms"; every queue is frozen
 * (no start_xmit) while the driver's tx_timeout op runs, then unfrozen
 * and rescheduled.  Call it from one context (a timer thread), every
 * period you like; a no-op for a driver without tx_timeout, or when the
 * device is down.  Returns the queue that timed out, or -1.
 */
int txp_dev_watchdog(struct txp_dev *dev);
/* Does a device of this runner, qdisc (NULL: pfifo_fast) and defer list
 * take the busylock when txp_dev_cfg.busylock asks for it?  Only with
 * the exclusive runner, a root-locked qdisc and no defer list. */
bool txp_dev_busylock_applies(enum txp_runner runner, const struct txp_qdisc_ops *qdisc,
			      enum txp_defer defer);
/* The names of the enums' values ("qdisc-limit", "lltx", "exclusive");
 * "?" for a value that is none of them. */
const char *txp_drop_reason_name(enum txp_drop_reason r);
const char *txp_lock_mode_name(enum txp_lock_mode m);
const char *txp_runner_name(enum txp_runner r);

#ifdef __cplusplus
}
#endif

#endif
