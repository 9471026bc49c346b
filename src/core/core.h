/*
 * core.h - the networking layer's private structures.
 *
 * Only src/core/ includes this.  Drivers see include/txpath/driver.h.
 */
#ifndef TXP_CORE_H
#define TXP_CORE_H

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
	TXP__ST_NR,
};

/* Written only by its context (txp_counter_add), summed by readers. */
struct txp__pcpu_stats {
	txp_cacheline_aligned _Atomic uint64_t c[TXP__ST_NR];
};


/*
 * A transmit queue.  Four cache lines, by who writes them:
 *  - the first line: read-only after creation, shared clean by all;
 *  - the root-lock line: every producer, for enqueue and dequeue (the
 *    qdisc's state, in an allocation of its own, moves along with it);
 *  - the flow-control line: stop (in start_xmit) and wake (completion),
 *    read by every qdisc_restart();
 *  - the xmit-lock line: the context calling start_xmit in core mode.
 * So the completion context writes only the flow-control line, and a
 * producer waiting for the root lock does not disturb the line of the
 * context that holds the xmit lock, nor the reverse.
 */
struct txp_txq {
	/* Read-only after creation. */
	struct txp_dev *dev;
	struct txp_qdisc *qdisc;

	/* The root lock (dev->queue_lock) and what it guards. */
	txp_cacheline_aligned struct txp_spinlock root_lock;
	bool running;		/* exclusive runner: someone is in qdisc_run */

	/* Flow control. */
	txp_cacheline_aligned atomic_uint stopped;	/* __LINK_STATE_XOFF */
	atomic_uint sched;	/* netif_schedule() pending */
	_Atomic uint64_t stop_gen;	/* counts stops: was the queue stopped under a caller? */

	/* The xmit lock (dev->xmit_lock), which records its owner. */
	txp_cacheline_aligned struct txp_spinlock xmit_lock;
	unsigned long xmit_irq_flags;	/* the holder's saved irq state */
};

/* txp_netif_queue_stopped(), inline for the core's own hot path. */
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
	struct txp_txq txq;	/* one queue for now; see txp_dev_txq() */
	txp_cacheline_aligned struct txp__ratelimit ratelimit;
	struct txp__pcpu_stats pcpu[TXP_MAX_CTX];
};

/* Count on the calling context's slot.  Single writer: no atomic RMW. */
static inline void txp__stat_add(struct txp_dev *dev, int self, enum txp__stat s, uint64_t v)
{
	txp_counter_add(&dev->pcpu[self].c[s], v);
}

static inline uint64_t txp__stat_own(const struct txp_dev *dev, int self, enum txp__stat s)
{
	return txp_counter_read((_Atomic uint64_t *)&dev->pcpu[self].c[s]);
}

/* printk(KERN_*) through net_ratelimit(). */
void txp__dev_log(struct txp_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Drop pkt with a reason, counted on the calling context. */
void txp__drop(struct txp_dev *dev, int self, struct txp_pkt *pkt, enum txp_drop_reason r);

#endif
