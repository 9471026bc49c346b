/*
 * baselines.c - what a user would write instead of txpath, driving the
 * same null driver:
 *  - mutex: a pthread mutex around "queue the packet and call the driver",
 *    taken once per packet;
 *  - mutex-burst: the same mutex taken once around a whole burst, as
 *    txpath takes its root lock once per txp_xmit_burst();
 *  - ckring: a Concurrency Kit multi-producer ring (a slot per packet: it
 *    has no burst enqueue) drained by one dedicated transmit thread;
 *  - rte_ring: DPDK's multi-producer ring, a burst's slots reserved at
 *    once (rte_ring_mp_enqueue_burst), drained by one transmit thread;
 *    only when built with DPDK (TXP_HAVE_RTE_RING).
 * The producers take bursts of cfg->burst from their pools, as txpath's
 * do; whoever calls the driver rings its doorbell (xmit_more clear) at
 * least every cfg->bulk packets, as qdisc_restart's bulk dequeue does.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ck_ring.h>
#ifdef TXP_HAVE_RTE_RING
#include <rte_ring.h>
#endif

#include "bench.h"
/* The library's own seam, private, on purpose: a baseline waits with the
 * library's back-off (txp_spin_wait) and its inline atomics, so that what
 * the table compares is the designs (a lock, a ring, txpath's path), not
 * their primitives.  Built without TXP_CHECK: plain C11 atomics. */
#include "sync/sync.h"
#include "txpath/ctx.h"
#include "run/run.h"

#define RING_SIZE 4096		/* slots of either ring, a power of two */

/* The null driver behind a device that only lends it a queue and counts
 * its completions; the core's path is never entered. */
struct base {
	struct txp_dev *dev;
	struct txp_txq *txq;
	const struct txp_driver_ops *ops;
	void *priv;
	const struct txp_run_driver *drv;
	unsigned bulk;			/* packets per doorbell, at most */

	/* mutex, mutex-burst: a FIFO under the lock. */
	txp_cacheline_aligned pthread_mutex_t lock;
	struct txp_pkt *head, *tail;

	/* ckring. */
	txp_cacheline_aligned ck_ring_t ring;
	ck_ring_buffer_t *slots;
#ifdef TXP_HAVE_RTE_RING
	struct rte_ring *rte;		/* rte_ring: in memory of ours, no EAL */
#endif
	atomic_bool producers_done;
};

/* Hand pkts[0..n) to the driver, the doorbell rung on the last and after
 * every bulk packets. */
static void base_send(struct base *b, struct txp_pkt **pkts, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		pkts[i]->xmit_more = i + 1 < n && (i + 1) % b->bulk;
		b->ops->start_xmit(pkts[i], b->txq);
	}
}

/* -- mutex, mutex-burst ------------------------------------------------------- */

/* Under b->lock: queue pkts[0..n) on the FIFO, then send what it holds. */
static void fifo_queue_send(struct base *b, struct txp_pkt **pkts, unsigned n)
{
	struct txp_pkt *out[BENCH_BURST_MAX];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		pkts[i]->next = NULL;
		if (b->tail)
			b->tail->next = pkts[i];
		else
			b->head = pkts[i];
		b->tail = pkts[i];
	}
	for (; b->head; k++) {
		out[k] = b->head;
		b->head = b->head->next;
	}
	b->tail = NULL;
	base_send(b, out, k);
}

/* The lock once per packet (burst: false) or once per burst. */
static void mutex_produce(struct bench_worker *w, bool burst)
{
	struct base *b = w->arg;

	while (!bench_stopped(w)) {
		struct txp_pkt *pkts[BENCH_BURST_MAX];
		unsigned n = bench_next_burst(w, pkts);
		unsigned step = burst ? n : 1;

		w->sent += n;
		for (unsigned i = 0; i < n; i += step) {
			pthread_mutex_lock(&b->lock);
			fifo_queue_send(b, pkts + i, step);
			pthread_mutex_unlock(&b->lock);
		}
	}
}

static void mutex_loop(struct bench_worker *w)
{
	mutex_produce(w, false);
}

static void mutex_burst_loop(struct bench_worker *w)
{
	mutex_produce(w, true);
}

/* -- the rings ------------------------------------------------------------------ */

/* A ring's two ends: put takes some of pkts[0..n) (how many: 0 when it is
 * full), take gives at most max. */
struct ring_ops {
	unsigned (*put)(struct base *b, struct txp_pkt **pkts, unsigned n);
	unsigned (*take)(struct base *b, struct txp_pkt **pkts, unsigned max);
};

static unsigned ckring_put(struct base *b, struct txp_pkt **pkts, unsigned n)
{
	unsigned i = 0;

	while (i < n && ck_ring_enqueue_mpsc(&b->ring, b->slots, pkts[i]))
		i++;
	return i;
}

static unsigned ckring_take(struct base *b, struct txp_pkt **pkts, unsigned max)
{
	unsigned n = 0;

	while (n < max && ck_ring_dequeue_mpsc(&b->ring, b->slots, &pkts[n]))
		n++;
	return n;
}

static const struct ring_ops ckring_ops = { ckring_put, ckring_take };

#ifdef TXP_HAVE_RTE_RING
static unsigned rte_put(struct base *b, struct txp_pkt **pkts, unsigned n)
{
	return rte_ring_mp_enqueue_burst(b->rte, (void **)pkts, n, NULL);
}

static unsigned rte_take(struct base *b, struct txp_pkt **pkts, unsigned max)
{
	return rte_ring_sc_dequeue_burst(b->rte, (void **)pkts, max, NULL);
}

static const struct ring_ops rte_ops = { rte_put, rte_take };
#endif

/* A producer: each burst into the ring, waiting while it is full. */
static void ring_produce(struct bench_worker *w, const struct ring_ops *ops)
{
	struct base *b = w->arg;
	unsigned spins = 0;

	while (!bench_stopped(w)) {
		struct txp_pkt *pkts[BENCH_BURST_MAX];
		unsigned n = bench_next_burst(w, pkts), i = 0;

		while (i < n) {
			unsigned put = ops->put(b, pkts + i, n - i);

			i += put;
			if (put || i == n)
				continue;
			if (bench_stopped(w)) {
				/* Never handed over: home again, not counted. */
				while (i < n)
					txp_pkt_free(pkts[i++]);
				return;
			}
			txp_spin_wait(&spins);
		}
		w->sent += n;
	}
}

static void ckring_loop(struct bench_worker *w)
{
	ring_produce(w, &ckring_ops);
}

#ifdef TXP_HAVE_RTE_RING
static void rte_ring_loop(struct bench_worker *w)
{
	ring_produce(w, &rte_ops);
}
#endif

/* The transmit thread: takes up to bulk packets off the ring and sends
 * them, until the producers are done and the ring is empty. */
struct ring_tx {
	struct base *b;
	const struct ring_ops *ops;
};

static void *ring_tx_main(void *arg)
{
	const struct ring_tx *tx = arg;
	struct base *b = tx->b;
	unsigned spins = 0;

	txp_ctx_attach();
	for (;;) {
		struct txp_pkt *pkts[BENCH_BURST_MAX];
		/* Acquire: pairs with the release in bench_case_baseline(),
		 * after the producers were joined: all they enqueued is in. */
		bool last = txp_load_acquire(&b->producers_done);
		unsigned n = tx->ops->take(b, pkts, b->bulk);

		base_send(b, pkts, n);
		if (!n) {
			if (last)
				break;
			txp_spin_wait(&spins);
		}
	}
	txp_ctx_detach();
	return NULL;
}

/* -- the cases' table ------------------------------------------------------------ */

static const struct baseline {
	enum bench_kind kind;
	void (*loop)(struct bench_worker *w);
	const struct ring_ops *ring;	/* NULL: no transmit thread */
} baselines[] = {
	{ BENCH_MUTEX, mutex_loop, NULL },
	{ BENCH_MUTEX_BURST, mutex_burst_loop, NULL },
	{ BENCH_CKRING, ckring_loop, &ckring_ops },
#ifdef TXP_HAVE_RTE_RING
	{ BENCH_RTE_RING, rte_ring_loop, &rte_ops },
#endif
};

static const struct baseline *baseline_of(enum bench_kind kind)
{
	for (size_t i = 0; i < sizeof(baselines) / sizeof(baselines[0]); i++)
		if (baselines[i].kind == kind)
			return &baselines[i];
	return NULL;
}

bool bench_baseline_built(enum bench_kind kind)
{
	return baseline_of(kind) != NULL;
}

/* -- the case ----------------------------------------------------------------- */

static uint64_t base_transmitted(void *arg)
{
	struct base *b = arg;
	struct txp_dev_stats st;

	txp_dev_get_stats(b->dev, &st);
	return st.transmitted;
}

#ifdef TXP_HAVE_RTE_RING
/* The rte_ring in memory of ours: rte_ring_init needs no EAL.  Many
 * producers, one consumer. */
static int rte_create(struct base *b)
{
	ssize_t size = rte_ring_get_memsize(RING_SIZE);

	if (size < 0)
		return -1;
	b->rte = aligned_alloc(RTE_CACHE_LINE_SIZE,
			       ((size_t)size + RTE_CACHE_LINE_SIZE - 1) & ~(size_t)(RTE_CACHE_LINE_SIZE - 1));
	return b->rte ? rte_ring_init(b->rte, "bench", RING_SIZE, RING_F_SC_DEQ) : -1;
}

static void rte_destroy(struct base *b)
{
	free(b->rte);
}
#else
static int rte_create(struct base *b)
{
	(void)b;
	return 0;
}

static void rte_destroy(struct base *b)
{
	(void)b;
}
#endif

static void base_destroy(struct base *b)
{
	txp_run_dev_destroy(b->drv, b->dev, b->priv);
	pthread_mutex_destroy(&b->lock);
	free(b->slots);
	rte_destroy(b);
	free(b);
}

/* The driver's ops, kept for base_send(): the device is made with them
 * as they are. */
static const struct txp_driver_ops *base_keep_ops(const struct txp_driver_ops *ops, void *arg)
{
	struct base *b = arg;

	return b->ops = ops;
}

static struct base *base_create(const struct bench_cfg *cfg, const struct bench_row *row,
				char *err, size_t errlen)
{
	struct base *b = aligned_alloc(TXP_CACHELINE, sizeof(*b));
	const struct txp_dev_cfg dcfg = { .name = "base" };
	struct txp_run_dev_watch watch = { .ops = base_keep_ops, .arg = b };
	struct txp_run_cfg rcfg;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(b, 0, sizeof(*b));
	b->bulk = cfg->bulk;
	txp_run_cfg_init(&rcfg);
	rcfg.threads = row->threads;
	rcfg.driver = b->drv = txp_run_driver(row->driver);
	if (!b->drv ||
	    txp_run_dev_create(&rcfg, &dcfg, &watch, &b->dev, &b->priv, err, errlen) != 0) {
		free(b);
		return NULL;
	}
	b->txq = txp_dev_txq(b->dev, 0);
	pthread_mutex_init(&b->lock, NULL);
	b->slots = calloc(RING_SIZE, sizeof(*b->slots));
	ck_ring_init(&b->ring, RING_SIZE);
	atomic_init(&b->producers_done, false);
	if (!b->slots || rte_create(b) != 0) {
		base_destroy(b);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return b;
}

int bench_case_baseline(const struct bench_cfg *cfg, const struct bench_row *row,
			struct bench_result *res, char *err, size_t errlen)
{
	const struct baseline *base = baseline_of(row->kind);
	struct bench_worker w[TXP_MAX_CTX];
	struct txp_dev_stats st;
	struct ring_tx tx;
	uint64_t sent = 0;
	pthread_t tx_thread;
	struct base *b;
	int rc;

	if (!base) {
		snprintf(err, errlen, "%s: not in this build", row->config);
		return -1;
	}
	if (!(b = base_create(cfg, row, err, errlen)))
		return -1;
	memset(w, 0, sizeof(w));
	for (unsigned i = 0; i < row->threads; i++) {
		w[i].loop = base->loop;
		w[i].arg = b;
		w[i].burst = cfg->burst;
	}
	tx = (struct ring_tx){ .b = b, .ops = base->ring };
	if (base->ring && pthread_create(&tx_thread, NULL, ring_tx_main, &tx) != 0) {
		base_destroy(b);
		snprintf(err, errlen, "cannot start the transmit thread");
		return -1;
	}
	rc = bench_window(w, row->threads, cfg, base_transmitted, b, res, err, errlen);
	if (base->ring) {
		/* Release: the producers' enqueues (ordered by the joins in
		 * bench_window()) before "done". */
		txp_store_release(&b->producers_done, true);
		pthread_join(tx_thread, NULL);
	}
	txp_dev_close(b->dev);
	txp_dev_get_stats(b->dev, &st);
	for (unsigned i = 0; i < row->threads; i++)
		sent += w[i].sent;
	res->accounted = st.transmitted == sent && bench_pools_destroy(w, row->threads);
	base_destroy(b);
	return rc;
}
