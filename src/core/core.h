/*
 * core.h - the networking layer's private structures.
 *
 * Only src/core/ includes this.  Drivers see include/txpath/driver.h.
 */
#ifndef TXP_CORE_H
#define TXP_CORE_H

#include "dql.h"
#include "sync/sync.h"
#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/qdisc.h"

/* One per-context counter slot per device (kernel per-cpu stats). */
enum txp__stat {
	TXP__ST_SUBMITTED,
	TXP__ST_TRANSMITTED,
	TXP__ST_DROPPED,			/* TXP_DROP_NR slots */
	TXP__ST_XMIT_CALLS = TXP__ST_DROPPED + TXP_DROP_NR,
	TXP__ST_XMIT_ON_STOPPED,
	TXP__ST_TX_BUSY,
	TXP__ST_TX_LOCKED,
	TXP__ST_COLLISIONS,
	TXP__ST_REQUEUES,
	TXP__ST_STOPS,
	TXP__ST_WAKES,
	TXP__ST_BUG_LOGS,
	TXP__ST_TX_TIMEOUTS,
	TXP__ST_BQL_STOPS,
	TXP__ST_NR,
};

#ifdef TXP_CHECK
/* The check build: told of every packet's free (after its destructor) by
 * whoever follows packets (the explorer's oracle, so that a second free
 * is told, not a crash); true: pkt was noted and its memory is kept (the
 * oracle's own packets, and a pool's packet freed again, which must not
 * go home twice).  NULL: every packet goes back. */
extern bool (*txp__pkt_keep)(struct txp_pkt *pkt);
/* The check build: told of every drop as it is counted, before the free
 * (the oracle checks the reason's precondition: dead-loop only by the
 * holder of the xmit lock, ...).  NULL: nobody. */
extern void (*txp__drop_seen)(struct txp_txq *txq, struct txp_pkt *pkt,
			      enum txp_drop_reason r);
/* The check build: told when the calling context leaves the driver of
 * txq after a batch of start_xmit calls (the last packet had xmit_more
 * clear, or the batch was cut short), so that the oracle can see the
 * doorbell rung.  NULL: nobody. */
extern void (*txp__xmit_left)(struct txp_txq *txq);
#define txp__check_hook(fn, ...) ((fn) ? (fn)(__VA_ARGS__) : (void)0)
#else
#define txp__check_hook(fn, ...) ((void)0)
#endif

/* Written only by its context (txp_counter_add), summed by readers. */
struct txp__pcpu_stats {
	txp_cacheline_aligned _Atomic uint64_t c[TXP__ST_NR];
};


/*
 * A transmit queue (struct netdev_queue).  Its lines, by who writes them:
 *  - the first line: read-only after creation, shared clean by all;
 *  - the root-lock line: every producer, for enqueue and dequeue (the
 *    qdisc's state, in an allocation of its own, moves along with it);
 *  - the flow-control line: stop (in start_xmit, or BQL's sent side) and
 *    wake (completion), read by every qdisc_restart();
 *  - the xmit-lock line: the context calling start_xmit in core mode,
 *    with trans_start (written by whoever stops the queue, read by the
 *    watchdog);
 *  - BQL's two lines (dql.h: the sent side, the completion side);
 *  - each context's counters for this queue, on lines of their own.
 * So the completion context writes only the flow-control line and its
 * own counters, and a producer waiting for the root lock does not disturb
 * the line of the context that holds the xmit lock, nor the reverse.
 */
struct txp_txq {
	/* Read-only after creation. */
	struct txp_dev *dev;
	struct txp_qdisc *qdisc;
	unsigned index;

	/* The root lock (qdisc_lock()) and what it guards. */
	txp_cacheline_aligned struct txp_spinlock root_lock;
	/* Exclusive runner: someone is in qdisc_run.  Written and read under
	 * the root lock, and read without it by a producer deciding whether
	 * to take the busylock (qdisc_is_running()): an atomic word, its
	 * accesses relaxed (xmit.h). */
	atomic_bool running;
	/* 6.18's defer_list (txp_dev_cfg.defer): packets pushed by the
	 * producers that found it non-empty, newest first, for the one that
	 * found it empty, who holds or waits for the root lock.  Every
	 * producer's compare-and-swap: a line of its own. */
	txp_cacheline_aligned _Atomic(struct txp_pkt *) defer_head;
	/* The qdisc busylock (txp_dev_cfg.busylock): the producers that found
	 * the queue running, one at a time, before the root lock.  Only
	 * they write it: a line of its own, as Linux's. */
	txp_cacheline_aligned struct txp_spinlock busylock;

	/* Flow control: the state bits of struct netdev_queue, a word each,
	 * so that setting one is a plain store (as a driver's stop is in
	 * 2.6) and clearing one a full-barrier exchange (test_and_clear_bit). */
	txp_cacheline_aligned atomic_uint stopped;	/* __QUEUE_STATE_DRV_XOFF */
	atomic_uint stack_xoff;	/* __QUEUE_STATE_STACK_XOFF: BQL's limit reached */
	atomic_uint frozen;	/* __QUEUE_STATE_FROZEN: the watchdog's reset */
	atomic_uint sched;	/* netif_schedule() pending */
	_Atomic uint64_t stop_gen;	/* counts stops: was the queue stopped under a caller? */

	/* The xmit lock (_xmit_lock), which records its owner. */
	txp_cacheline_aligned struct txp_spinlock xmit_lock;
	unsigned long xmit_irq_flags;	/* the holder's saved irq state */
	/* When the queue last stopped or sent (ns): the watchdog's clock.
	 * Written before either XOFF bit is set (the 2024 order), or after
	 * start_xmit returns (trans_after_xmit: the order before it). */
	_Atomic uint64_t trans_start;

	struct txp_dql dql;	/* byte queue limits (dql.h) */

	struct txp__pcpu_stats pcpu[TXP__CTX_IDS];	/* by context id (sync.h) */
};

/* The driver's stop bit (netif_tx_queue_stopped), for the core's hot path. */
static inline bool txp__txq_stopped(const struct txp_txq *txq)
{
	return txp_load_relaxed((atomic_uint *)&txq->stopped) != 0;
}


struct txp__ratelimit {
	struct txp_spinlock lock;
	uint64_t window_start;	/* ns */
	unsigned printed;	/* in this window */
	unsigned suppressed;
};

/*
 * A device.  The first line is read-mostly (up changes twice in a life);
 * the queue follows on lines of its own; the log's rate limit is written
 * only when a line is logged, so it has a line of its own too, away from
 * the xmit lock; each context's counters are on lines of their own, so
 * producers and the completion context count without sharing a line.
 */
struct txp_dev {
	char name[16];
	enum txp_lock_mode lock;
	enum txp_runner runner;
	unsigned bulk;		/* packets per qdisc_restart(), 1..TXP_DEV_BULK_MAX */
	bool xmit_irqsafe;	/* take the xmit lock with irqs off (2.6.11-rc2) */
	unsigned txqueuelen;	/* the qdisc's limit per band */
	const struct txp_driver_ops *ops;
	void *priv;
	FILE *log;
	atomic_bool up;
	bool bql;		/* byte queue limits on the queues */
	enum txp_defer defer;	/* a locked qdisc's producers push onto defer_head */
	bool busylock;		/* producers that find the queue running take txq->busylock */
	unsigned num_tx_queues;	/* 1..TXP_DEV_MAX_QUEUES */
	struct txp_txq *txqs;	/* [num_tx_queues], each cache-line aligned */
	uint64_t watchdog_timeo_ns;	/* 0: no watchdog */
	uint64_t (*watchdog_clock)(void);	/* trans_start's time base */
	/* Linux before the 2024 fix: trans_start stamped when start_xmit
	 * returns OK, not before an XOFF bit is set; the watchdog reads it
	 * before the bits (txp_dev_trans_start_after_xmit). */
	bool trans_after_xmit;
	/* The first BUG line logged, kept by bug.c (under its lock), or NULL. */
	const char *bug_line;
	/* XPS: the queue each context sends on, or -1 (then the flow hash).
	 * Written by txp_dev_set_xps(), read by every pick. */
	txp_cacheline_aligned _Atomic int16_t xps[TXP__CTX_IDS];
	txp_cacheline_aligned struct txp__ratelimit ratelimit;
};

/* Note a BUG line of dev's (bug.c): returns "BUG! what", kept for the
 * life of the process; the device's first one is remembered. */
const char *txp__bug_note(struct txp_dev *dev, const char *what);

/* The watchdog's time, in ns. */
static inline uint64_t txp__dev_clock(const struct txp_dev *dev)
{
	return dev->watchdog_clock ? dev->watchdog_clock() : txp_now_ns();
}

/* Stopped by BQL?  Only a device with BQL has the bit to read. */
static inline bool txp__txq_stack_xoff(const struct txp_txq *txq)
{
	return txq->dev->bql && txp_load_relaxed((atomic_uint *)&txq->stack_xoff);
}

/* netif_xmit_frozen_or_stopped(): may qdisc_restart() not send on it?
 * The bits of features a device lacks are not read, so the old eras'
 * schedules have no more steps than before. */
static inline bool txp__txq_frozen_or_stopped(const struct txp_txq *txq)
{
	return txp__txq_stopped(txq) || txp__txq_stack_xoff(txq) ||
	       (txq->dev->watchdog_timeo_ns && txp_load_relaxed((atomic_uint *)&txq->frozen));
}

/* Count on the calling context's slot of txq.  Single writer: no atomic RMW. */
static inline void txp__stat_add(struct txp_txq *txq, int self, enum txp__stat s, uint64_t v)
{
	txp_counter_add(&txq->pcpu[self].c[s], v);
}

static inline uint64_t txp__stat_own(const struct txp_txq *txq, int self, enum txp__stat s)
{
	return txp_counter_read((_Atomic uint64_t *)&txq->pcpu[self].c[s]);
}

/* The queue a packet was sent on (skb_get_tx_queue). */
static inline struct txp_txq *txp__pkt_txq(struct txp_dev *dev, const struct txp_pkt *pkt)
{
	return &dev->txqs[pkt->queue_mapping < dev->num_tx_queues ? pkt->queue_mapping : 0];
}

/* printk(KERN_*) through net_ratelimit(). */
void txp__dev_log(struct txp_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Drop pkt with a reason, counted on the calling context's slot of txq. */
void txp__drop(struct txp_txq *txq, int self, struct txp_pkt *pkt, enum txp_drop_reason r);
/* The same for a list linked by next (one walk to count, one to free). */
void txp__drop_list(struct txp_txq *txq, int self, struct txp_pkt *list, enum txp_drop_reason r);

/* Lock what guards txq's qdisc for a reader that is not its runner: the
 * root lock, or a lockless qdisc's seqlock (spinning); xmit_nolock.c. */
void txp__qdisc_lock(struct txp_txq *txq);
void txp__qdisc_unlock(struct txp_txq *txq);

#endif
