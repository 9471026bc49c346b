/*
 * dev.c - devices: creation, up/down, counters and the kernel log.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/validator.h"
#include "core.h"

#define TXP_DEFAULT_TXQUEUELEN 1000

/* net_ratelimit(): at most this many lines per window. */
#define TXP_LOG_BURST 10
#define TXP_LOG_WINDOW_NS 5000000000ull

struct txp_dev *txp_dev_create(const struct txp_dev_cfg *cfg, char *err, size_t errlen)
{
	const struct txp_qdisc_ops *qops = cfg->qdisc ? cfg->qdisc : &txp_pfifo_fast_ops;
	unsigned limit = cfg->txqueuelen ? cfg->txqueuelen : TXP_DEFAULT_TXQUEUELEN;
	struct txp_dev *dev;

	if (!cfg->ops || !cfg->ops->start_xmit) {
		snprintf(err, errlen, "device needs a driver with a start_xmit op");
		return NULL;
	}
	dev = aligned_alloc(TXP_CACHELINE, sizeof(*dev));
	if (!dev) {
		snprintf(err, errlen, "out of memory for device");
		return NULL;
	}
	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", cfg->name ? cfg->name : "sim0");
	dev->lock = cfg->lock;
	dev->runner = cfg->runner;
	dev->txqueuelen = limit;
	dev->bulk = cfg->bulk < 1 ? 1 : cfg->bulk > TXP_DEV_BULK_MAX ? TXP_DEV_BULK_MAX : cfg->bulk;
	dev->ops = cfg->ops;
	dev->priv = cfg->priv;
	dev->log = cfg->log;
	atomic_init(&dev->up, false);
	txp_spin_init(&dev->ratelimit.lock, "net_ratelimit lock");

	dev->txq.dev = dev;
	dev->txq.qdisc = txp_qdisc_create(qops, limit);
	if (!dev->txq.qdisc) {
		free(dev);
		snprintf(err, errlen, "out of memory for qdisc");
		return NULL;
	}
	txp_spin_init(&dev->txq.root_lock, "queue lock");
	txp_spin_init(&dev->txq.xmit_lock, "xmit lock");
	atomic_init(&dev->txq.stopped, 0);
	atomic_init(&dev->txq.stop_gen, 0);
	atomic_init(&dev->txq.sched, 0);
	return dev;
}

int txp_dev_open(struct txp_dev *dev)
{
	int rc = dev->ops->open ? dev->ops->open(dev) : 0;

	if (rc == 0)
		txp_store_release(&dev->up, true);
	return rc;
}

void txp_dev_close(struct txp_dev *dev)
{
	struct txp_txq *txq = &dev->txq;
	int self = txp_ctx_self();
	struct txp_pkt *pkt;

	if (!txp_load_acquire(&dev->up))
		return;
	txp_store_release(&dev->up, false);
	if (dev->ops->stop)
		dev->ops->stop(dev);
	txp_spin_lock(&txq->root_lock);
	while ((pkt = txq->qdisc->ops->dequeue(txq->qdisc)) != NULL)
		txp__drop(dev, self, pkt, TXP_DROP_DEV_DOWN);
	txp_spin_unlock(&txq->root_lock);
}

void txp_dev_destroy(struct txp_dev *dev)
{
	if (!dev)
		return;
	txp_dev_close(dev);
	txp_qdisc_destroy(dev->txq.qdisc);
	free(dev);
}

const char *txp_dev_name(const struct txp_dev *dev)
{
	return dev->name;
}

enum txp_lock_mode txp_dev_lock_mode(const struct txp_dev *dev)
{
	return dev->lock;
}

struct txp_txq *txp_dev_txq(struct txp_dev *dev, unsigned index)
{
	return index == 0 ? &dev->txq : NULL;
}

void *txp_dev_priv(const struct txp_dev *dev)
{
	return dev->priv;
}

struct txp_dev *txp_txq_dev(const struct txp_txq *txq)
{
	return txq->dev;
}

unsigned txp_dev_backlog(struct txp_dev *dev)
{
	unsigned n;

	txp_spin_lock(&dev->txq.root_lock);
	n = dev->txq.qdisc->qlen;
	txp_spin_unlock(&dev->txq.root_lock);
	return n;
}

/* -- counters --------------------------------------------------------- */

static uint64_t stat_sum(const struct txp_dev *dev, enum txp__stat s)
{
	uint64_t sum = 0;

	for (int i = 0; i < TXP_MAX_CTX; i++)
		sum += txp__stat_own(dev, i, s);
	return sum;
}

void txp_dev_get_stats(const struct txp_dev *dev, struct txp_dev_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->submitted = stat_sum(dev, TXP__ST_SUBMITTED);
	st->transmitted = stat_sum(dev, TXP__ST_TRANSMITTED);
	for (int r = 0; r < TXP_DROP_NR; r++)
		st->dropped[r] = stat_sum(dev, TXP__ST_DROPPED + r);
	st->xmit_calls = stat_sum(dev, TXP__ST_XMIT_CALLS);
	st->xmit_on_stopped = stat_sum(dev, TXP__ST_XMIT_ON_STOPPED);
	st->tx_busy = stat_sum(dev, TXP__ST_TX_BUSY);
	st->tx_locked = stat_sum(dev, TXP__ST_TX_LOCKED);
	st->collisions = stat_sum(dev, TXP__ST_COLLISIONS);
	st->requeues = stat_sum(dev, TXP__ST_REQUEUES);
	st->stops = stat_sum(dev, TXP__ST_STOPS);
	st->wakes = stat_sum(dev, TXP__ST_WAKES);
	st->bug_logs = stat_sum(dev, TXP__ST_BUG_LOGS);
}

/* -- packets leaving ------------------------------------------------- */

void txp__drop(struct txp_dev *dev, int self, struct txp_pkt *pkt, enum txp_drop_reason r)
{
	txp__stat_add(dev, self, TXP__ST_DROPPED + r, 1);
	txp_pkt_free(pkt);
}

/* A driver freeing with interrupts off: a hazard of the rc2 design. */
static inline void validate_free(const char *site)
{
	if (txp_unlikely(txp__validating))
		txp_validate_free(site);
}

void txp__pkt_drop(struct txp_dev *dev, struct txp_pkt *pkt, enum txp_drop_reason reason,
		   const char *site)
{
	validate_free(site);
	txp__drop(dev, txp_ctx_self(), pkt, reason);
}

void txp__pkt_complete(struct txp_dev *dev, struct txp_pkt *pkt, const char *site)
{
	validate_free(site);
	txp__stat_add(dev, txp_ctx_self(), TXP__ST_TRANSMITTED, 1);
	txp_pkt_free(pkt);
}

void txp__pkt_complete_list(struct txp_dev *dev, struct txp_pkt *list, unsigned n,
			    const char *site)
{
	validate_free(site);
	txp__stat_add(dev, txp_ctx_self(), TXP__ST_TRANSMITTED, n);
	txp_pkt_free_list(list);
}

/* -- the kernel log --------------------------------------------------- */

/* net_ratelimit(): true if a line may be printed now. */
static bool net_ratelimit(struct txp__ratelimit *rl, unsigned *suppressed)
{
	uint64_t now = txp_now_ns();
	bool ok;

	txp_spin_lock(&rl->lock);
	*suppressed = 0;
	if (now - rl->window_start >= TXP_LOG_WINDOW_NS) {
		*suppressed = rl->suppressed;
		rl->window_start = now;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	ok = rl->printed < TXP_LOG_BURST;
	if (ok)
		rl->printed++;
	else
		rl->suppressed++;
	txp_spin_unlock(&rl->lock);
	return ok;
}

void txp__dev_log(struct txp_dev *dev, const char *fmt, ...)
{
	unsigned suppressed;
	char line[256];
	va_list ap;

	if (!dev->log || !net_ratelimit(&dev->ratelimit, &suppressed))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (suppressed)
		fprintf(dev->log, "net_ratelimit: %u callbacks suppressed\n", suppressed);
	fprintf(dev->log, "%s\n", line);
}

void txp_dev_log_bug(struct txp_dev *dev, const char *what)
{
	txp__stat_add(dev, txp_ctx_self(), TXP__ST_BUG_LOGS, 1);
	txp_trace("BUG! Tx Ring full when queue awake!");
	txp__dev_log(dev, "%s: %s: BUG! %s", dev->ops->name, dev->name, what);
}

/* -- names ------------------------------------------------------------ */

const char *txp_drop_reason_name(enum txp_drop_reason r)
{
	static const char *const names[TXP_DROP_NR] = {
		[TXP_DROP_QDISC_LIMIT] = "qdisc-limit",
		[TXP_DROP_DEAD_LOOP] = "dead-loop",
		[TXP_DROP_VIRTUAL_BUSY] = "virtual-busy",
		[TXP_DROP_DEV_DOWN] = "dev-down",
		[TXP_DROP_DRIVER] = "driver",
		[TXP_DROP_TX_ERROR] = "tx-error",
		[TXP_DROP_INTERRUPTED] = "interrupted",
	};

	return (unsigned)r < TXP_DROP_NR ? names[r] : "?";
}

const char *txp_lock_mode_name(enum txp_lock_mode m)
{
	return m == TXP_LOCK_LLTX ? "lltx" : "core";
}

const char *txp_runner_name(enum txp_runner r)
{
	return r == TXP_RUNNER_EXCLUSIVE ? "exclusive" : "concurrent";
}
