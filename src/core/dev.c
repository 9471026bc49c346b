/*
 * dev.c - devices: creation, up/down, counters and the kernel log.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "xmit.h"
#include "no_cfg.h"

#define TXP_DEFAULT_TXQUEUELEN 1000

/* net_ratelimit(): at most this many lines per window. */
#define TXP_LOG_BURST 10
#define TXP_LOG_WINDOW_NS 5000000000ull

/* BQL's slack hold time (Linux: HZ). */
#define TXP_DQL_HOLD_NS 1000000000ull

static bool txq_init(struct txp_dev *dev, unsigned i, const struct txp_qdisc_ops *qops)
{
	struct txp_txq *txq = &dev->txqs[i];

	txq->dev = dev;
	txq->index = i;
	txq->qdisc = txp_qdisc_create(qops, dev->txqueuelen);
	if (!txq->qdisc)
		return false;
	txp_spin_init(&txq->root_lock, "queue lock");
	txp_spin_init(&txq->xmit_lock, "xmit lock");
	txp_spin_init(&txq->busylock, "busylock");
	atomic_init(&txq->running, false);
	atomic_init(&txq->stopped, 0);
	atomic_init(&txq->stack_xoff, 0);
	atomic_init(&txq->frozen, 0);
	atomic_init(&txq->stop_gen, 0);
	atomic_init(&txq->sched, 0);
	atomic_init(&txq->trans_start, 0);
	atomic_init(&txq->defer_head, NULL);
	txp_dql_init(&txq->dql, TXP_DQL_HOLD_NS);
	return true;
}

static void txqs_destroy(struct txp_dev *dev)
{
	for (unsigned i = 0; i < dev->num_tx_queues; i++)
		txp_qdisc_destroy(dev->txqs[i].qdisc);
	free(dev->txqs);
}

/* Is cfg one a device can be made of?  False and why in err if not. */
static bool cfg_valid(const struct txp_dev_cfg *cfg, char *err, size_t errlen)
{
	const struct txp_qdisc_ops *qops = cfg ? cfg->qdisc : NULL;

	if (!cfg)
		return txp__no_cfg("device", err, errlen);
	if (!cfg->ops || !cfg->ops->start_xmit) {
		snprintf(err, errlen, "device needs a driver with a start_xmit op");
		return false;
	}
	if (cfg->lock != TXP_LOCK_CORE && cfg->lock != TXP_LOCK_LLTX) {
		snprintf(err, errlen, "lock mode %d is neither TXP_LOCK_CORE nor TXP_LOCK_LLTX",
			 (int)cfg->lock);
		return false;
	}
	if (cfg->runner != TXP_RUNNER_CONCURRENT && cfg->runner != TXP_RUNNER_EXCLUSIVE) {
		snprintf(err, errlen, "runner %d is neither TXP_RUNNER_CONCURRENT nor TXP_RUNNER_EXCLUSIVE",
			 (int)cfg->runner);
		return false;
	}
	if (qops && (!qops->init || (qops->enqueue && (!qops->dequeue || !qops->requeue)))) {
		snprintf(err, errlen, "qdisc %s lacks an op (init, and dequeue and requeue with enqueue)",
			 qops->id ? qops->id : "(unnamed)");
		return false;
	}
	if (cfg->num_tx_queues > TXP_DEV_MAX_QUEUES) {
		snprintf(err, errlen, "%u transmit queues asked, at most %u", cfg->num_tx_queues,
			 TXP_DEV_MAX_QUEUES);
		return false;
	}
	return true;
}

struct txp_dev *txp_dev_create(const struct txp_dev_cfg *cfg, char *err, size_t errlen)
{
	const struct txp_qdisc_ops *qops;
	unsigned limit, nq;
	struct txp_dev *dev;

	if (!cfg_valid(cfg, err, errlen))
		return NULL;
	qops = cfg->qdisc ? cfg->qdisc : &txp_pfifo_fast_ops;
	limit = cfg->txqueuelen ? cfg->txqueuelen : TXP_DEFAULT_TXQUEUELEN;
	nq = cfg->num_tx_queues ? cfg->num_tx_queues : 1;
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
	dev->bql = cfg->bql;
	dev->defer = cfg->defer;
	dev->busylock = cfg->busylock && txp_dev_busylock_applies(cfg->runner, qops, cfg->defer);
	if (cfg->ops->tx_timeout)
		dev->watchdog_timeo_ns = cfg->watchdog_timeo_ms * 1000000ull;
	dev->watchdog_clock = cfg->watchdog_clock;
	atomic_init(&dev->up, false);
	txp_spin_init(&dev->ratelimit.lock, "net_ratelimit lock");
	/* XPS: context i sends on queue i mod n. */
	for (int i = 0; i < TXP__CTX_IDS; i++)
		atomic_init(&dev->xps[i], (int16_t)(i % (int)nq));

	dev->txqs = aligned_alloc(TXP_CACHELINE, nq * sizeof(*dev->txqs));
	if (!dev->txqs) {
		free(dev);
		snprintf(err, errlen, "out of memory for %u transmit queues", nq);
		return NULL;
	}
	memset(dev->txqs, 0, nq * sizeof(*dev->txqs));
	for (unsigned i = 0; i < nq; i++) {
		dev->num_tx_queues = i;
		if (!txq_init(dev, i, qops)) {
			txqs_destroy(dev);
			free(dev);
			snprintf(err, errlen, "out of memory for qdisc");
			return NULL;
		}
	}
	dev->num_tx_queues = nq;
	return dev;
}

int txp_dev_open(struct txp_dev *dev)
{
	int rc;

	if (!dev)
		return -EINVAL;
	/* Up already: nothing to do, as dev_open() says.  Acquire: pairs
	 * with the release stores of up below and in txp_dev_close(). */
	if (txp_load_acquire(&dev->up))
		return 0;
	rc = dev->ops->open ? dev->ops->open(dev) : 0;
	if (rc == 0)
		txp_store_release(&dev->up, true);
	return rc;
}

/* Drop what txq's qdisc holds as TXP_DROP_DEV_DOWN (qdisc_reset). */
static void txq_purge(struct txp_txq *txq, int self)
{
	struct txp_pkt *pkt;

	txp__defer_purge(txq, self);
	txp__qdisc_lock(txq);
	while ((pkt = txq->qdisc->ops->dequeue(txq->qdisc)) != NULL)
		txp__drop(txq, self, pkt, TXP_DROP_DEV_DOWN);
	txp__qdisc_unlock(txq);
}

void txp_dev_close(struct txp_dev *dev)
{
	int self;

	if (!dev || !txp_load_acquire(&dev->up))
		return;
	self = txp_ctx_self();
	txp_store_release(&dev->up, false);
	if (dev->ops->stop)
		dev->ops->stop(dev);
	for (unsigned i = 0; i < dev->num_tx_queues; i++)
		txq_purge(&dev->txqs[i], self);
}

void txp_dev_destroy(struct txp_dev *dev)
{
	if (!dev)
		return;
	txp_dev_close(dev);
	txqs_destroy(dev);
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
	return index < dev->num_tx_queues ? &dev->txqs[index] : NULL;
}

unsigned txp_dev_num_tx_queues(const struct txp_dev *dev)
{
	return dev->num_tx_queues;
}

bool txp_dev_bql(const struct txp_dev *dev)
{
	return dev->bql;
}

int txp_dev_set_xps(struct txp_dev *dev, unsigned ctx, int queue)
{
	if (ctx >= TXP_MAX_CTX || queue < -1 || queue >= (int)dev->num_tx_queues)
		return -EINVAL;
	txp_store_relaxed(&dev->xps[ctx], (int16_t)queue);
	return 0;
}

unsigned txp_txq_index(const struct txp_txq *txq)
{
	return txq->index;
}

void *txp_dev_priv(const struct txp_dev *dev)
{
	return dev->priv;
}

struct txp_dev *txp_txq_dev(const struct txp_txq *txq)
{
	return txq->dev;
}

unsigned txp_txq_backlog(struct txp_txq *txq)
{
	unsigned n;

	txp__qdisc_lock(txq);
	n = txp_qdisc_backlog(txq->qdisc);
	txp__qdisc_unlock(txq);
	return n;
}

unsigned txp_dev_backlog(struct txp_dev *dev)
{
	unsigned n = 0;

	for (unsigned i = 0; i < dev->num_tx_queues; i++)
		n += txp_txq_backlog(&dev->txqs[i]);
	return n;
}

/* -- counters --------------------------------------------------------- */

/* Add the counters of context id's slot of txq to st. */
static void slot_stats_add(const struct txp_txq *txq, int id, struct txp_dev_stats *st)
{
	st->submitted += txp__stat_own(txq, id, TXP__ST_SUBMITTED);
	st->transmitted += txp__stat_own(txq, id, TXP__ST_TRANSMITTED);
	for (int r = 0; r < TXP_DROP_NR; r++)
		st->dropped[r] += txp__stat_own(txq, id, TXP__ST_DROPPED + r);
	st->xmit_calls += txp__stat_own(txq, id, TXP__ST_XMIT_CALLS);
	st->xmit_on_stopped += txp__stat_own(txq, id, TXP__ST_XMIT_ON_STOPPED);
	st->tx_busy += txp__stat_own(txq, id, TXP__ST_TX_BUSY);
	st->tx_locked += txp__stat_own(txq, id, TXP__ST_TX_LOCKED);
	st->collisions += txp__stat_own(txq, id, TXP__ST_COLLISIONS);
	st->requeues += txp__stat_own(txq, id, TXP__ST_REQUEUES);
	st->stops += txp__stat_own(txq, id, TXP__ST_STOPS);
	st->wakes += txp__stat_own(txq, id, TXP__ST_WAKES);
	st->bug_logs += txp__stat_own(txq, id, TXP__ST_BUG_LOGS);
	st->tx_timeouts += txp__stat_own(txq, id, TXP__ST_TX_TIMEOUTS);
	st->bql_stops += txp__stat_own(txq, id, TXP__ST_BQL_STOPS);
}

/* Add txq's counters to st: every context's slot that was ever used. */
static void txq_stats_add(const struct txp_txq *txq, struct txp_dev_stats *st)
{
	for (int id = txp__ctx_id_next(0); id >= 0; id = txp__ctx_id_next(id + 1))
		slot_stats_add(txq, id, st);
}

void txp_txq_get_stats(const struct txp_txq *txq, struct txp_dev_stats *st)
{
	memset(st, 0, sizeof(*st));
	txq_stats_add(txq, st);
}

void txp_dev_get_stats(const struct txp_dev *dev, struct txp_dev_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < dev->num_tx_queues; i++)
		txq_stats_add(&dev->txqs[i], st);
}

uint64_t txp_dev_stats_dropped(const struct txp_dev_stats *st)
{
	uint64_t n = 0;

	for (int r = 0; r < TXP_DROP_NR; r++)
		n += st->dropped[r];
	return n;
}

bool txp_dev_stats_accounted(const struct txp_dev_stats *st)
{
	return st->submitted == st->transmitted + txp_dev_stats_dropped(st);
}

void txp_txq_get_bql(const struct txp_txq *txq, struct txp_bql_info *bi)
{
	const struct txp_dql *dql = &txq->dql;
	unsigned limit = txp_dql_limit(dql);

	/* Any reader: num_completed is the completion side's plain word, but
	 * adj_limit - limit is the same count through the words it shares. */
	bi->enabled = txq->dev->bql;
	bi->limit = limit;
	bi->inflight = txp_load_relaxed((_Atomic unsigned *)&dql->num_queued) -
		       (txp_load_relaxed((_Atomic unsigned *)&dql->adj_limit) - limit);
}

/* -- packets leaving ------------------------------------------------- */

#ifdef TXP_CHECK
void (*txp__drop_seen)(struct txp_txq *txq, struct txp_pkt *pkt, enum txp_drop_reason r);
void (*txp__xmit_left)(struct txp_txq *txq);
#endif

void txp__drop(struct txp_txq *txq, int self, struct txp_pkt *pkt, enum txp_drop_reason r)
{
	txp__check_hook(txp__drop_seen, txq, pkt, r);
	txp__stat_add(txq, self, TXP__ST_DROPPED + r, 1);
	txp_pkt_free(pkt);
}

void txp__drop_list(struct txp_txq *txq, int self, struct txp_pkt *list, enum txp_drop_reason r)
{
	unsigned n = 0;

	for (struct txp_pkt *p = list; p; p = p->next) {
		txp__check_hook(txp__drop_seen, txq, p, r);
		n++;
	}
	txp__stat_add(txq, self, TXP__ST_DROPPED + r, n);
	txp_pkt_free_list(list);
}

void txp_pkt_drop_at(struct txp_dev *dev, struct txp_pkt *pkt, enum txp_drop_reason reason,
		     const char *site)
{
	if (!pkt)
		return;
	/* A reason that is none: the driver's, in every build (the
	 * counters have no room past TXP_DROP_NR). */
	if ((unsigned)reason >= TXP_DROP_NR)
		reason = TXP_DROP_DRIVER;
	txp_might_free(site);
	txp__drop(txp__pkt_txq(dev, pkt), txp_ctx_self(), pkt, reason);
}

void txp_pkt_complete_at(struct txp_dev *dev, struct txp_pkt *pkt, const char *site)
{
	if (!pkt)
		return;
	txp_might_free(site);
	txp__stat_add(txp__pkt_txq(dev, pkt), txp_ctx_self(), TXP__ST_TRANSMITTED, 1);
	txp_pkt_free(pkt);
}

void txp_pkt_complete_list_at(struct txp_dev *dev, struct txp_pkt *list, unsigned n,
			      const char *site)
{
	txp_might_free(site);
	if (txp_likely(list != NULL))
		txp__stat_add(txp__pkt_txq(dev, list), txp_ctx_self(), TXP__ST_TRANSMITTED, n);
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
	txp__stat_add(&dev->txqs[0], txp_ctx_self(), TXP__ST_BUG_LOGS, 1);
	txp_event(txp__bug_note(dev, what));
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
		[TXP_DROP_NO_QUEUE] = "no-queue",
		[TXP_DROP_TX_TIMEOUT] = "tx-timeout",
	};

	return (unsigned)r < TXP_DROP_NR ? names[r] : "?";
}

bool txp_dev_busylock_applies(enum txp_runner runner, const struct txp_qdisc_ops *qdisc,
			      enum txp_defer defer)
{
	if (!qdisc)
		qdisc = &txp_pfifo_fast_ops;
	/* Where Linux took it: a root-locked qdisc, one runner, no list. */
	return runner == TXP_RUNNER_EXCLUSIVE && qdisc->enqueue && !qdisc->nolock && !defer;
}

const char *txp_lock_mode_name(enum txp_lock_mode m)
{
	return m == TXP_LOCK_LLTX ? "lltx" : m == TXP_LOCK_CORE ? "core" : "?";
}

const char *txp_runner_name(enum txp_runner r)
{
	return r == TXP_RUNNER_EXCLUSIVE ? "exclusive" : r == TXP_RUNNER_CONCURRENT ? "concurrent" : "?";
}
