/*
 * bench.c - the cases of `txpath bench`, the harness they share, and the
 * txpath case itself.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
/* The library's own seam, private, on purpose: the harness waits as the
 * library does (txp_spin_wait) and uses its inline atomics and cache-line
 * size, so a case costs what the library's fast path costs and no call
 * more (txpath/sync.h's atomics are out of line, for plugins; it has no
 * spin wait).  Built without TXP_CHECK: plain C11 atomics. */
#include "sync/sync.h"
#include "txpath/ctx.h"
#include "txpath/plugin.h"
#include "run/run.h"

#define BENCH_STOP_POLL_NS 10000000u	/* a window looks at cfg->stop every 10 ms */

/* The window's flags, each on a line of its own: ready is written by
 * every worker once, go and stop by the main thread once each, and read
 * by every worker once per burst. */
struct bench_sync {
	txp_cacheline_aligned atomic_uint ready;
	txp_cacheline_aligned atomic_bool go;
	atomic_bool stop;
};

bool bench_stopped(const struct bench_worker *w)
{
	/* Relaxed: nothing is published with the flag; the join orders the
	 * workers' results before the main thread reads them. */
	return txp_load_relaxed(&w->sync->stop);
}

unsigned bench_next_burst(struct bench_worker *w, struct txp_pkt **pkts)
{
	unsigned spins = 0, n;

	while ((n = txp_pkt_pool_alloc_bulk(w->pool, pkts, w->burst)) == 0) {
		if (bench_stopped(w))
			return 0;
		/* All in flight: give the CPU to whoever completes them. */
		txp_spin_wait(&spins);
	}
	for (unsigned i = 0; i < n; i++) {
		pkts[i]->flow = w->idx;
		pkts[i]->seq = w->seq++;
		pkts[i]->len = 64;
	}
	return n;
}

static void *worker_main(void *arg)
{
	struct bench_worker *w = arg;
	struct txp_pkt *list = NULL;

	txp_ctx_attach();
	w->pool = txp_pkt_pool_create(BENCH_POOL_CAP);
	if (!w->pool) {
		w->error = "out of memory for packets";
	} else {
		/* Warm: every packet made now, not inside the window. */
		for (struct txp_pkt *p; (p = txp_pkt_pool_alloc(w->pool)) != NULL; list = p)
			p->next = list;
		txp_pkt_free_list(list);
	}
	/* Release: the pool before "ready"; pairs with the acquire in
	 * bench_window(). */
	txp_fetch_add(&w->sync->ready, 1);
	while (!txp_load_acquire(&w->sync->go))
		txp_thread_yield();
	if (w->pool)
		w->loop(w);
	txp_ctx_detach();
	return NULL;
}

/* CPU time used by every thread of the process so far, ns. */
static uint64_t process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Has cfg->stop asked? */
static bool bench_interrupted(const struct bench_cfg *cfg)
{
	return cfg->stop && txp_run_interrupted(cfg->stop);
}

/* Sleep ns, looking at cfg->stop every BENCH_STOP_POLL_NS; false if it asked. */
static bool window_sleep(const struct bench_cfg *cfg, uint64_t ns)
{
	uint64_t end = txp_now_ns() + ns;

	for (uint64_t now; (now = txp_now_ns()) < end;) {
		if (bench_interrupted(cfg))
			return false;
		txp_sleep_ns(end - now < BENCH_STOP_POLL_NS ? end - now : BENCH_STOP_POLL_NS);
	}
	return true;
}

int bench_window(struct bench_worker *w, unsigned n, const struct bench_cfg *cfg,
		 uint64_t (*transmitted)(void *arg), void *arg, struct bench_result *res,
		 char *err, size_t errlen)
{
	struct bench_sync *sync = aligned_alloc(TXP_CACHELINE, sizeof(*sync));
	uint64_t t0, t1, c0, c1, cpu0, cpu1;
	unsigned started = 0;

	if (!sync) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(sync, 0, sizeof(*sync));
	for (; started < n; started++) {
		pthread_t th;

		w[started].sync = sync;
		w[started].idx = started;
		if (pthread_create(&th, NULL, worker_main, &w[started]) != 0)
			break;
		w[started].thread = (unsigned long)th;
	}
	/* Acquire: pairs with each worker's fetch_add. */
	while (txp_load_acquire(&sync->ready) < started)
		txp_thread_yield();
	c0 = transmitted(arg);
	cpu0 = process_cpu_ns();
	t0 = txp_now_ns();
	/* Release: the case's set-up before the workers start. */
	txp_store_release(&sync->go, true);
	res->interrupted = !window_sleep(cfg, (uint64_t)(cfg->seconds * 1e9));
	c1 = transmitted(arg);
	cpu1 = process_cpu_ns();
	t1 = txp_now_ns();
	txp_store_relaxed(&sync->stop, true);
	for (unsigned i = 0; i < started; i++)
		pthread_join((pthread_t)w[i].thread, NULL);
	free(sync);
	if (started < n) {
		snprintf(err, errlen, "cannot start %u threads", n);
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		if (w[i].error) {
			snprintf(err, errlen, "%s", w[i].error);
			return -1;
		}
	res->mpps = (double)(c1 - c0) / ((double)(t1 - t0) / 1e9) / 1e6;
	res->cpu_ns = c1 > c0 ? (double)(cpu1 - cpu0) / (double)(c1 - c0) : 0;
	return 0;
}

bool bench_pools_destroy(struct bench_worker *w, unsigned n)
{
	bool ok = true;

	for (unsigned i = 0; i < n; i++)
		ok &= txp_pkt_pool_destroy(w[i].pool);
	return ok;
}

/* -- the txpath case ------------------------------------------------------ */

static void txpath_loop(struct bench_worker *w)
{
	struct txp_dev *dev = w->arg;
	int self = txp_ctx_attach();

	/* XPS: worker i on queue i mod the queues (a no-op with one). */
	if (self >= 0)
		txp_dev_set_xps(dev, (unsigned)self, (int)(w->idx % txp_dev_num_tx_queues(dev)));

	while (!bench_stopped(w)) {
		struct txp_pkt *pkts[BENCH_BURST_MAX];
		unsigned n = bench_next_burst(w, pkts);

		if (!n)
			break;
		w->sent += n;
		txp_xmit_burst(dev, pkts, n);
	}
}

static uint64_t dev_transmitted(void *dev)
{
	struct txp_dev_stats st;

	txp_dev_get_stats(dev, &st);
	return st.transmitted;
}

int bench_case_txpath(const struct bench_cfg *cfg, const struct bench_row *row,
		      struct bench_result *res, char *err, size_t errlen)
{
	struct bench_worker w[TXP_MAX_CTX];
	struct txp_run_cfg rcfg;
	struct txp_dev_stats st;
	struct txp_dev *dev;
	void *priv;
	int rc;

	/* The device, made as `txpath run` makes it: tg3-2005 on the sim,
	 * which takes its own lock in either mode (2.6.8's tg3 did too);
	 * with BQL, 6.x's modern, which reports its bytes. */
	txp_run_cfg_init(&rcfg);
	rcfg.driver = strcmp(row->driver, "plugin") ? txp_run_driver(row->driver) : cfg->plugin;
	rcfg.personality = txp_sim_personality(row->bql ? "modern" : "tg3-2005");
	rcfg.lock = (enum txp_lock_mode)row->lock;
	rcfg.runner = (enum txp_runner)row->runner;
	rcfg.threads = row->threads;
	rcfg.queues = row->queues ? row->queues : 1;
	rcfg.bql = row->bql;
	rcfg.bulk = cfg->bulk;
	rcfg.defer = row->defer;
	rcfg.busylock = cfg->busylock < 0 ? row->busylock : cfg->busylock;
	if (row->qdisc)
		rcfg.qdisc = row->qdisc;
	rcfg.line_rate = 0;
	if (!rcfg.driver || !txp_run_cfg_check(&rcfg, err, errlen))
		return -1;
	if (txp_run_dev_create(&rcfg, NULL, NULL, &dev, &priv, err, errlen) != 0)
		return -1;
	memset(w, 0, sizeof(w));
	for (unsigned i = 0; i < row->threads; i++) {
		w[i].loop = txpath_loop;
		w[i].arg = dev;
		w[i].burst = cfg->burst;
	}
	rc = bench_window(w, row->threads, cfg, dev_transmitted, dev, res, err, errlen);
	txp_dev_close(dev);
	txp_dev_get_stats(dev, &st);
	res->accounted = txp_dev_stats_accounted(&st);
	txp_run_dev_destroy(rcfg.driver, dev, priv);
	if (!bench_pools_destroy(w, row->threads))
		res->accounted = false;
	return rc;
}

/* -- the cases -------------------------------------------------------------- */

static const struct {
	const char *config;
	enum txp_lock_mode lock;
	enum txp_runner runner;
	bool mq;		/* a queue per producer */
	bool bql;
	bool busylock;
} txpath_configs[] = {
	{ "core/concurrent", TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, false, false, false },
	{ "lltx/concurrent", TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, false, false, false },
	{ "core/exclusive", TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, false, false, false },
	{ "lltx/exclusive", TXP_LOCK_LLTX, TXP_RUNNER_EXCLUSIVE, false, false, false },
	/* Linux 2.6.38 on: a queue per producer, each with its own locks. */
	{ "core/excl/mq", TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, true, false, false },
	/* Linux 6.x as --era 6.x runs it on the null driver: the same, with
	 * byte queue limits and the busylock (the null driver has no
	 * tx_timeout, so no watchdog). */
	{ "6.x", TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, true, true, true },
};
#define NCONFIGS (sizeof(txpath_configs) / sizeof(txpath_configs[0]))

#if defined(__SANITIZE_THREAD__)
#define BENCH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BENCH_TSAN 1
#endif
#endif

static struct bench_row *add_row(struct bench_row *r, const char *config, const char *driver,
				 enum bench_kind kind, unsigned threads)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->config, sizeof(r->config), "%s", config);
	r->driver = driver;
	r->kind = kind;
	r->threads = threads;
	return r + 1;
}

static void skip(struct bench_row *r, const char *why)
{
	r->skipped = true;
	r->note = why;
}

/* What Linux did about producers contending for one root lock, against
 * core/exclusive (one root lock, one queue) on the null driver: the
 * busylock (2.6.36 to 6.17), 6.18's locked pfifo_fast whose producers
 * defer to the one holding the lock, the same with txpath's drainer (the
 * first keeps the list until it is empty), and the lockless pfifo_fast;
 * and no qdisc at all, as software devices have it (noqueue: the driver
 * called at once, under its xmit lock or, LLTX, its own), the floor under
 * every queued path. */
#define QDISC_ROWS 6
static struct bench_row *add_qdisc_rows(struct bench_row *r, unsigned threads)
{
	static const struct {
		const char *config;
		enum txp_lock_mode lock;
	} noqueue[] = { { "core/noqueue", TXP_LOCK_CORE }, { "lltx/noqueue", TXP_LOCK_LLTX } };

	r = add_row(r, "core/excl/busy", "null", BENCH_TXPATH, threads);
	r[-1].lock = TXP_LOCK_CORE;
	r[-1].runner = TXP_RUNNER_EXCLUSIVE;
	r[-1].busylock = true;
	r = add_row(r, "core/excl/defer", "null", BENCH_TXPATH, threads);
	r[-1].lock = TXP_LOCK_CORE;
	r[-1].runner = TXP_RUNNER_EXCLUSIVE;
	r[-1].defer = TXP_DEFER_LINUX;
	r = add_row(r, "core/excl/drain", "null", BENCH_TXPATH, threads);
	r[-1].lock = TXP_LOCK_CORE;
	r[-1].runner = TXP_RUNNER_EXCLUSIVE;
	r[-1].defer = TXP_DEFER_DRAIN;
	r = add_row(r, "core/nolock", "null", BENCH_TXPATH, threads);
	r[-1].lock = TXP_LOCK_CORE;
	r[-1].runner = TXP_RUNNER_EXCLUSIVE;
	r[-1].qdisc = &txp_pfifo_nolock_ops;
	for (size_t i = 0; i < sizeof(noqueue) / sizeof(noqueue[0]); i++) {
		r = add_row(r, noqueue[i].config, "null", BENCH_TXPATH, threads);
		r[-1].lock = noqueue[i].lock;
		r[-1].runner = TXP_RUNNER_EXCLUSIVE;
		r[-1].qdisc = &txp_noqueue_ops;
	}
	return r;
}

/* Whether configuration c has a row for plugin p (none without one): those
 * of its lock mode on one queue (a plugin drives one), without BQL. */
static bool plugin_row(const struct txp_plugin *p, size_t c)
{
	return p && txpath_configs[c].lock == p->lock && !txpath_configs[c].mq &&
	       !txpath_configs[c].bql;
}

/* The plugin's rows per thread count. */
static size_t plugin_rows(const struct txp_plugin *p)
{
	size_t n = 0;

	for (size_t c = 0; c < NCONFIGS; c++)
		n += plugin_row(p, c);
	return n;
}

struct bench_row *bench_rows(const struct bench_cfg *cfg, size_t *n)
{
	const struct txp_plugin *p = txp_run_driver_plugin_of(cfg->plugin);
	size_t per = 4 + NCONFIGS * (cfg->sim ? 2 : 1) + QDISC_ROWS + plugin_rows(p);
	struct bench_row *rows = calloc(per * cfg->max_threads, sizeof(*rows)), *r = rows;

	if (!rows)
		return NULL;
	for (unsigned t = 1; t <= cfg->max_threads; t++) {
		r = add_row(r, "mutex", "null", BENCH_MUTEX, t);
		r = add_row(r, "mutex-burst", "null", BENCH_MUTEX_BURST, t);
		r = add_row(r, "ckring", "null", BENCH_CKRING, t);
#ifdef BENCH_TSAN
		skip(r - 1, "Concurrency Kit's atomics are invisible to TSan");
#endif
		r = add_row(r, "rte_ring", "null", BENCH_RTE_RING, t);
		if (!bench_baseline_built(BENCH_RTE_RING))
			skip(r - 1, "built without DPDK (libdpdk-dev: scripts/deps.sh bench)");
#ifdef BENCH_TSAN
		skip(r - 1, "DPDK's atomics are invisible to TSan");
#endif
		for (int d = 0; d < (cfg->sim ? 2 : 1); d++)
			for (size_t c = 0; c < NCONFIGS; c++) {
				r = add_row(r, txpath_configs[c].config, d ? "sim" : "null",
					    BENCH_TXPATH, t);
				r[-1].lock = txpath_configs[c].lock;
				r[-1].runner = txpath_configs[c].runner;
				r[-1].queues = txpath_configs[c].mq ? t : 1;
				r[-1].bql = txpath_configs[c].bql;
				r[-1].busylock = txpath_configs[c].busylock;
			}
		r = add_qdisc_rows(r, t);
		for (size_t c = 0; c < NCONFIGS; c++) {
			if (!plugin_row(p, c))
				continue;
			r = add_row(r, txpath_configs[c].config, "plugin", BENCH_TXPATH, t);
			r[-1].lock = txpath_configs[c].lock;
			r[-1].runner = txpath_configs[c].runner;
		}
	}
	for (size_t i = 0; i < per * cfg->max_threads; i++) {
		rows[i].samples = calloc(cfg->reps, sizeof(double));
		rows[i].cpu_samples = calloc(cfg->reps, sizeof(double));
		if (!rows[i].samples || !rows[i].cpu_samples) {
			bench_rows_free(rows, per * cfg->max_threads);
			return NULL;
		}
	}
	*n = per * cfg->max_threads;
	return rows;
}

void bench_rows_free(struct bench_row *rows, size_t n)
{
	if (!rows)
		return;
	for (size_t i = 0; i < n; i++) {
		free(rows[i].samples);
		free(rows[i].cpu_samples);
	}
	free(rows);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v. */
static double median(double *v, unsigned k)
{
	qsort(v, k, sizeof(double), cmp_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* Median, spread and ratios, once every sample is in. */
static void summarise(struct bench_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct bench_row *r = &rows[i];
		unsigned k = r->runs;

		if (r->skipped)
			continue;
		r->mpps = median(r->samples, k);
		r->cpu_ns_per_packet = median(r->cpu_samples, k);
		r->min = r->samples[0];
		r->max = r->samples[k - 1];
		r->spread = r->mpps > 0 ? (r->max - r->min) / r->mpps : 0;
		r->ns_per_packet = r->mpps > 0 ? 1e3 / r->mpps : 0;
	}
	for (size_t i = 0; i < n; i++) {
		rows[i].ratio_vs_mutex_burst = -1;
		for (size_t j = 0; j < n; j++)
			if (rows[j].kind == BENCH_MUTEX_BURST && rows[j].threads == rows[i].threads &&
			    rows[j].mpps > 0)
				rows[i].ratio_vs_mutex_burst = rows[i].mpps / rows[j].mpps;
	}
}

/* Leave out the rows that finished no run (an interruption came first),
 * freeing their samples; the others keep their order.  The count kept. */
static size_t drop_unreached(struct bench_row *rows, size_t n)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		if (!rows[i].skipped && !rows[i].runs) {
			free(rows[i].samples);
			free(rows[i].cpu_samples);
			continue;
		}
		rows[kept++] = rows[i];
	}
	return kept;
}

int bench_run(const struct bench_cfg *cfg, struct bench_row *rows, size_t *n,
	      void (*progress)(unsigned done, unsigned total, void *arg), void *arg,
	      char *err, size_t errlen)
{
	unsigned done = 0, total = 0;

	for (size_t i = 0; i < *n; i++) {
		total += rows[i].skipped ? 0 : cfg->reps;
		rows[i].accounted = true;
	}
	for (unsigned rep = 0; rep < cfg->reps && !bench_interrupted(cfg); rep++) {
		for (size_t i = 0; i < *n && !bench_interrupted(cfg); i++) {
			struct bench_row *r = &rows[i];
			struct bench_result res = { 0 };
			int rc;

			if (r->skipped)
				continue;
			rc = r->kind == BENCH_TXPATH ? bench_case_txpath(cfg, r, &res, err, errlen) :
				bench_case_baseline(cfg, r, &res, err, errlen);
			if (rc != 0)
				return -1;
			r->accounted &= res.accounted;
			if (res.interrupted)
				break;
			r->samples[r->runs] = res.mpps;
			r->cpu_samples[r->runs++] = res.cpu_ns;
			if (progress)
				progress(++done, total, arg);
		}
	}
	*n = drop_unreached(rows, *n);
	summarise(rows, *n);
	return 0;
}
