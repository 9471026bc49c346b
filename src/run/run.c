/*
 * run.c - producers pushing packets through one device, and the
 * end-of-run accounting: every packet transmitted or dropped by reason.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/sync.h"
#include "txpath/validator.h"
#include "txpath/ctx.h"
#include "txpath/net.h"
#include "run/run.h"

#define RUN_POLL_NS 1000000u		/* main thread checks every 1 ms */
#define RUN_GAP_NS 100000000u		/* the most one check counts (txp_awake_ns()) */
#define RUN_PROGRESS_NS 200000000u	/* progress callback every 200 ms */
#define RUN_CLOCK_EVERY 256		/* producers read the clock this often */
#define RUN_DRAIN_NS ((uint64_t)TXP_RUN_DRAIN_SECONDS * 1000000000u)
/* A run that ends waits for its threads while something moves; nothing
 * moving this long, one of them is stuck (txp_run_result.wedged): its
 * producers, which stop within a burst once the run ends (after a stall,
 * a signal or a dead device: a normal end finds them done); its device's
 * close, which may wait on the kernel (sockets, XDP programs) with no
 * packet moving.  Long enough that a thread a loaded machine (or a
 * sanitizer) starves of the CPU is not taken for a stuck one. */
#define RUN_QUIET_NS 5000000000ull

struct producer {
	struct run *run;
	struct txp_thread thread;
	uint32_t flow;
	int queue;		/* the queue XPS sends it on; -1: by the flow hash */
	uint64_t quota;		/* packets to send; UINT64_MAX: until the deadline */
	uint64_t rng;
	const char *error;	/* set if it had to give up */
	char errbuf[128];	/* what error may point to */
	/* Its packets.  With a capacity (sndbuf) the pool is the socket's
	 * send buffer: packets out of it are in flight, and come home when
	 * they are freed, by whichever context (sock_wfree). */
	struct txp_pkt_pool *pool;
	struct txp_fault_stream alloc_fail;	/* the alloc-fail fault, if on */
	/* A driver that sends bytes: the frame every packet starts as (the
	 * template), and its UDP checksum sum before the flow/seq stamp. */
	unsigned char *tmpl;
	uint32_t csum_base;
};

struct run {
	const struct txp_run_cfg *cfg;
	struct txp_dev *dev;
	void *drv;		/* the driver's private state */
	bool bytes;		/* the driver sends the packets' bytes: frames */
	struct txp_frame_addr addr;	/* ... with these addresses */
	uint64_t deadline;	/* ns, 0 for none */
	struct producer *prod;
	unsigned started;	/* producers started */
	atomic_uint producers_done;
	/* The device stalled or died, or the run was interrupted: producers
	 * give up. */
	atomic_bool abort;
	_Atomic uint64_t alloc_failed;	/* allocations failed by the alloc-fail fault */
	struct inflight_samples *inflight;	/* [RING_DESCS], [RING_BYTES] */
	/* The first and the last sample's time and bytes retired, ever: the
	 * rate bytes left the rings while they were sampled. */
	uint64_t ring_t0, ring_t1, ring_out0, ring_out1;
	/* The device brought down by a thread of its own (the closer), so
	 * that a close stuck in the driver does not hold the run: what the
	 * close dropped on each queue, then closed_done. */
	struct txp_thread closer;
	uint64_t closed[TXP_DEV_MAX_QUEUES];
	atomic_bool closed_done;
};

/*
 * Samples of the bytes in flight, one a poll, in bounded memory: when
 * full, every other one goes and the stride doubles, so they stay evenly
 * spread over the whole run.
 */
#define RUN_SAMPLES 4096

enum { RING_DESCS, RING_BYTES, RING_SAMPLED };

struct inflight_samples {
	uint64_t v[RUN_SAMPLES];
	unsigned n, stride, tick;
};

static void samples_add(struct inflight_samples *s, uint64_t x)
{
	if (s->tick++ % s->stride)
		return;
	if (s->n == RUN_SAMPLES) {
		for (unsigned i = 0; i < RUN_SAMPLES / 2; i++)
			s->v[i] = s->v[2 * i];
		s->n = RUN_SAMPLES / 2;
		s->stride *= 2;
	}
	s->v[s->n++] = x;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void samples_summary(struct inflight_samples *s, struct txp_run_sampled *out)
{
	double sum = 0;

	if (!s->n)
		return;
	for (unsigned i = 0; i < s->n; i++)
		sum += (double)s->v[i];
	out->mean = sum / s->n;
	qsort(s->v, s->n, sizeof(s->v[0]), u64_cmp);
	out->min = s->v[0];
	out->median = s->v[s->n / 2];
	out->max = s->v[s->n - 1];
}

/* What the driver's rings hold at now: descriptors, then bytes. */
static void run_sample_rings(struct run *run, uint64_t now)
{
	struct txp_run_drv_stats ds;

	run->cfg->driver->stats(run->drv, &ds);
	samples_add(&run->inflight[RING_DESCS], ds.in_flight);
	samples_add(&run->inflight[RING_BYTES], ds.in_flight_bytes);
	if (!run->ring_t0) {
		run->ring_t0 = now;
		run->ring_out0 = ds.bytes_retired;
	}
	run->ring_t1 = now;
	run->ring_out1 = ds.bytes_retired;
}

void txp_run_cfg_init(struct txp_run_cfg *cfg)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	memset(cfg, 0, sizeof(*cfg));
	txp_run_cfg_era(cfg, "2.6.11");
	cfg->era = NULL;
	cfg->driver = txp_run_driver("sim");
	cfg->threads = cpus > 0 ? (unsigned)cpus : 1;
	cfg->packets = 1000000;
	cfg->size = 64;
	cfg->ring = 512;
	cfg->batch = 32;
	cfg->txqueuelen = 1000;
	cfg->sndbuf = 256;
	cfg->burst = 32;
	cfg->bulk = 32;
	cfg->queues = 1;
	cfg->stall_seconds = 5;
	/* The tool's errors are one line: libbpf and libxdp say nothing. */
	cfg->net.quiet_bpf_log = true;
}

bool txp_run_cfg_era(struct txp_run_cfg *cfg, const char *era)
{
	const struct txp_era *e = txp_era_lookup(era);

	if (!e)
		return false;
	cfg->era = e->name;
	cfg->lock = e->lock;
	cfg->runner = e->runner;
	cfg->personality = txp_sim_personality(e->personality);
	cfg->queues = e->queues ? e->queues : 1;
	cfg->bql = e->bql;
	if (e->bulk)
		cfg->bulk = e->bulk;
	cfg->watchdog_ms = e->watchdog_ms;
	cfg->busylock = e->busylock;
	cfg->qdisc = e->qdisc ? txp_qdisc_lookup(e->qdisc) : &txp_pfifo_fast_ops;
	return true;
}

bool txp_run_cfg_check(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->threads < 1 || cfg->threads > TXP_MAX_CTX - 2) {
		snprintf(err, errlen, "threads must be 1..%d", TXP_MAX_CTX - 2);
		return false;
	}
	if (cfg->frags_min > cfg->frags_max || cfg->frags_max > TXP_MAX_FRAGS) {
		snprintf(err, errlen, "fragments must be MIN-MAX with 0 <= MIN <= MAX <= %d",
			 TXP_MAX_FRAGS);
		return false;
	}
	if (cfg->packets == 0 && !(cfg->seconds > 0)) {
		snprintf(err, errlen, "give a packet count or a duration");
		return false;
	}
	if (cfg->size < 60 || cfg->size > 65535) {
		snprintf(err, errlen, "packet size must be 60..65535 bytes");
		return false;
	}
	if (cfg->burst < 1 || cfg->burst > TXP_RUN_BURST_MAX || cfg->bulk < 1 ||
	    cfg->bulk > TXP_DEV_BULK_MAX) {
		snprintf(err, errlen, "burst must be 1..%d and bulk 1..%d", TXP_RUN_BURST_MAX,
			 TXP_DEV_BULK_MAX);
		return false;
	}
	if (cfg->queues < 1 || cfg->queues > TXP_DEV_MAX_QUEUES) {
		snprintf(err, errlen, "queues must be 1..%d", TXP_DEV_MAX_QUEUES);
		return false;
	}
	for (unsigned i = 0; i < cfg->xps_len; i++) {
		if (cfg->xps[i] < 0 || (unsigned)cfg->xps[i] >= cfg->queues) {
			snprintf(err, errlen, "XPS maps a producer to queue %d, but the device has %u queue%s",
				 cfg->xps[i], cfg->queues, cfg->queues == 1 ? "" : "s");
			return false;
		}
	}
	if (cfg->batch < 1 || cfg->txqueuelen < 1) {
		snprintf(err, errlen, "batch and txqueuelen must be at least 1");
		return false;
	}
	if (!cfg->driver) {
		snprintf(err, errlen, "no driver");
		return false;
	}
	if (txp_fault_any(&cfg->faults) && !cfg->driver->faults) {
		snprintf(err, errlen, "--fault is for --driver sim (the simulated NIC), not %s",
			 cfg->driver->name);
		return false;
	}
	return cfg->driver->check(cfg, err, errlen);
}

/* -- stopping early -------------------------------------------------------- */

/* One lock-free int: what makes these two async-signal-safe. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "txp_run_interrupt() needs a lock-free int");

/*
 * Not the seam: a signal handler calls these, and in the check build each
 * operation of the seam is a scheduling point, which a handler must not
 * enter.  Relaxed: nothing is published with the flag; the run only
 * polls it (run_interrupted()), and stops its producers through the seam.
 */
bool txp_run_interrupt(struct txp_run_stop *s, int why)
{
	int none = 0;

	return why != 0 && atomic_compare_exchange_strong_explicit(&s->why, &none, why,
								   memory_order_relaxed,
								   memory_order_relaxed);
}

int txp_run_interrupted(const struct txp_run_stop *s)
{
	return atomic_load_explicit(&s->why, memory_order_relaxed);
}

/* -- producers -------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* The alloc-fail fault: does this allocation of n packets fail?  Then
 * they go straight home, as if they had never been had. */
static bool producer_alloc_fails(struct producer *p, struct txp_pkt **pkts, unsigned n)
{
	if (txp_likely(!p->alloc_fail.f) || !txp_fault_next(&p->alloc_fail))
		return false;
	for (unsigned i = 0; i < n; i++)
		txp_pkt_free(pkts[i]);
	return true;
}

/* The pool ran dry: the driver retires what its device finished on the
 * producer's queue in the producer's context (busy polling), if it can.
 * Did packets come home? */
static bool producer_busy_poll(struct producer *p)
{
	const struct txp_run_driver *drv = p->run->cfg->driver;

	return drv->busy_poll && drv->busy_poll(p->run->drv, p->queue) > 0;
}

/* Up to want packets from the pool; when every one is in flight, busy-poll
 * the device, else block as a socket with a full send buffer does, until
 * some come home; when the allocation fails (alloc-fail), back off and try
 * again.  0 if the run is being abandoned or memory is out. */
static unsigned producer_alloc(struct producer *p, struct txp_pkt **pkts, unsigned want)
{
	unsigned spins = 0, n;

	for (;;) {
		n = txp_pkt_pool_alloc_bulk(p->pool, pkts, want);
		if (n && !producer_alloc_fails(p, pkts, n))
			return n;
		if (!n && !p->run->cfg->sndbuf) {
			p->error = "out of memory for packets";
			return 0;
		}
		if (txp_load_relaxed(&p->run->abort))
			return 0;
		if (!n && producer_busy_poll(p))
			continue;
		txp_spin_wait(&spins);
	}
}

/* The producer's pool: the driver's if it has one for it, else packets
 * with a buffer of a frame each when the driver sends bytes, header-only
 * otherwise; and the template of its frames.  NULL, or why not. */
static const char *producer_setup(struct producer *p)
{
	const struct txp_run_cfg *cfg = p->run->cfg;
	struct txp_pkt_pool_cfg pc = { .capacity = cfg->sndbuf };

	if (p->run->bytes) {
		pc.buf_size = cfg->size;
		p->tmpl = malloc(cfg->size);
		if (!p->tmpl)
			return "out of memory for packets";
		p->csum_base = txp_frame_template(p->tmpl, cfg->size, &p->run->addr);
	}
	p->errbuf[0] = '\0';
	if (cfg->driver->pool_create)
		p->pool = cfg->driver->pool_create(p->run->drv, cfg, p->errbuf, sizeof(p->errbuf));
	if (p->errbuf[0])
		return p->errbuf;
	if (!p->pool)
		p->pool = txp_pkt_pool_create_cfg(&pc);
	return p->pool ? NULL : "out of memory for packets";
}

/* The bytes of pkt (flow, seq and nr_frags set): the template stamped
 * with its flow and seq, in its buffer; with fragments, the frame is cut
 * into nr_frags + 1 pieces of it, the head the longest. */
static void producer_frame(const struct producer *p, struct txp_pkt *pkt)
{
	unsigned len = pkt->len, piece = len / (pkt->nr_frags + 1u);

	memcpy(pkt->data, p->tmpl, len);
	txp_frame_stamp(pkt->data, p->csum_base, pkt->flow, pkt->seq);
	pkt->head_len = len - pkt->nr_frags * piece;
	pkt->data_len = len - pkt->head_len;
	pkt->protocol = htons(0x0800);	/* an IPv4 datagram (skb->protocol) */
	for (unsigned i = 0; i < pkt->nr_frags; i++)
		pkt->frags[i] = (struct txp_frag){
			.data = pkt->data + pkt->head_len + i * piece,
			.len = piece,
		};
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	const struct txp_run_cfg *cfg = p->run->cfg;
	unsigned span = cfg->frags_max - cfg->frags_min + 1;
	uint64_t seq = 0, clock_at = 0;
	bool bytes = p->run->bytes;

	txp_ctx_attach();
	/* XPS: this producer's queue (or the flow hash). */
	p->queue = cfg->xps_off ? -1 : cfg->xps_len ? cfg->xps[p->flow % cfg->xps_len]
						   : (int)(p->flow % cfg->queues);
	txp_dev_set_xps(p->run->dev, (unsigned)txp_ctx_self(), p->queue);
	p->error = producer_setup(p);
	while (p->pool && seq < p->quota) {
		struct txp_pkt *pkts[TXP_RUN_BURST_MAX];
		unsigned n = cfg->burst;

		/* Relaxed: a flag polled once a burst; the packets it stops
		 * are never submitted, so nothing pairs with it. */
		if (txp_unlikely(txp_load_relaxed(&p->run->abort)))
			break;
		if (p->run->deadline && seq >= clock_at) {
			if (txp_now_ns() >= p->run->deadline)
				break;
			clock_at = seq + RUN_CLOCK_EVERY;
		}
		if (p->quota - seq < n)
			n = (unsigned)(p->quota - seq);
		n = producer_alloc(p, pkts, n);
		if (!n)
			break;
		for (unsigned i = 0; i < n; i++) {
			pkts[i]->flow = p->flow;
			pkts[i]->seq = seq + i;
			pkts[i]->len = cfg->size;
			pkts[i]->nr_frags = (uint16_t)(cfg->frags_min +
						       (span > 1 ? xorshift(&p->rng) % span : 0));
		}
		for (unsigned i = 0; bytes && i < n; i++)
			producer_frame(p, pkts[i]);
		seq += n;
		txp_xmit_burst(p->run->dev, pkts, n);
	}
	txp_fetch_add(&p->run->producers_done, 1);
	txp_ctx_detach();
	return NULL;
}

/*
 * The watchdog's clock for a run's device (txp_dev_cfg.watchdog_clock):
 * txp_now_ns() less the time the process was stopped, as run_wait()'s
 * looks see it (txp_awake_ns()).  Stopped (SIGSTOP, ^Z), the NIC's
 * completions stop too: a queue that stood stopped meanwhile has not
 * timed out.  One clock for the process, moved by any run's looks, each
 * interval between two looks once (the exchange).  Relaxed: a clock,
 * publishing nothing.
 */
static _Atomic uint64_t awake_now, awake_look;

static void awake_tick(uint64_t now)
{
	uint64_t was = atomic_exchange_explicit(&awake_look, now, memory_order_relaxed);

	if (was && now > was)
		atomic_fetch_add_explicit(&awake_now, txp_awake_ns(&was, now, RUN_GAP_NS),
					  memory_order_relaxed);
}

static uint64_t awake_clock(void)
{
	uint64_t t = atomic_load_explicit(&awake_now, memory_order_relaxed), zero = 0;

	if (t)
		return t;
	/* From txp_now_ns() at its first use, whichever first use wins. */
	t = txp_now_ns();
	return atomic_compare_exchange_strong_explicit(&awake_now, &zero, t, memory_order_relaxed,
						       memory_order_relaxed) ? t : zero;
}

/* -- set-up and tear-down ----------------------------------------------------- */

static int run_setup(struct run *run, const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	struct txp_dev_cfg dcfg = txp_run_dev_cfg(cfg);

	memset(run, 0, sizeof(*run));
	run->cfg = cfg;
	dcfg.watchdog_clock = awake_clock;
	if (txp_run_dev_create(cfg, &dcfg, NULL, &run->dev, &run->drv, err, errlen) != 0)
		return -1;
	if (cfg->driver->frame_addr) {
		run->bytes = true;
		cfg->driver->frame_addr(run->drv, cfg, &run->addr);
	}
	run->prod = calloc(cfg->threads, sizeof(*run->prod));
	run->inflight = calloc(RING_SAMPLED, sizeof(*run->inflight));
	for (int i = 0; run->inflight && i < RING_SAMPLED; i++)
		run->inflight[i].stride = 1;
	if (!run->prod || !run->inflight) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* keep_pools: a driver freed packets twice, and their pools' lists may
 * run in circles: they are left as they are. */
static void run_teardown(struct run *run, bool keep_pools)
{
	txp_run_dev_destroy(run->cfg->driver, run->dev, run->drv);
	/* Every packet is home once the device is down; a pool that is not
	 * (a bug) is left alone rather than freed under its packets. */
	for (unsigned i = 0; run->prod && i < run->cfg->threads; i++) {
		if (!keep_pools)
			txp_pkt_pool_destroy(run->prod[i].pool);
		free(run->prod[i].tmpl);
	}
	free(run->prod);
	free(run->inflight);
}

static unsigned start_producers(struct run *run)
{
	const struct txp_run_cfg *cfg = run->cfg;
	unsigned i;

	for (i = 0; i < cfg->threads; i++) {
		struct producer *p = &run->prod[i];

		p->run = run;
		p->flow = i;
		p->rng = 0x9e3779b97f4a7c15ull * (i + 1);
		txp_fault_stream_init(&p->alloc_fail, &cfg->faults, TXP_FAULT_ALLOC_FAIL, i,
				      &run->alloc_failed);
		if (cfg->packets)
			p->quota = cfg->packets / cfg->threads + (i < cfg->packets % cfg->threads);
		else
			p->quota = UINT64_MAX;
		if (txp_thread_start(&p->thread, producer_main, p) != 0)
			break;
	}
	return i;
}

/* -- waiting for the end ------------------------------------------------------ */

/* The device died (its driver says so): the producers stop submitting, as
 * a --seconds run's do at its deadline; what was submitted ends as the
 * driver drops it.  Once. */
static void run_watch_device(struct run *run)
{
	const struct txp_run_driver *drv = run->cfg->driver;

	if (drv->dead && !txp_load_relaxed(&run->abort) && drv->dead(run->drv))
		txp_store_relaxed(&run->abort, true);
}

/* Has cfg->stop asked the run to stop?  Then the producers stop, and *why
 * says what it asked with. */
static bool run_interrupted(struct run *run, int *why)
{
	if (!run->cfg->stop || !(*why = txp_run_interrupted(run->cfg->stop)))
		return false;
	txp_store_relaxed(&run->abort, true);
	return true;
}

/* Wait until the producers are done and every packet is accounted for,
 * or nothing moves for stall_seconds, or RUN_DRAIN_NS after cfg->stop
 * asked (*interrupted: what it asked with); neither counts the time the
 * process was stopped (txp_awake_ns()).  Returns true on a stall. */
static bool run_wait(struct run *run, unsigned started, uint64_t t0, uint64_t *t_end,
		     int *interrupted)
{
	const struct txp_run_cfg *cfg = run->cfg;
	uint64_t last_look = t0, still = 0, last_report = t0, last_done = 0, drained = 0;
	bool draining = false;
	struct txp_dev_stats st;

	for (;;) {
		uint64_t now, done, awake;

		txp_sleep_ns(RUN_POLL_NS);
		now = txp_now_ns();
		awake = txp_awake_ns(&last_look, now, RUN_GAP_NS);
		still += awake;
		drained += draining ? awake : 0;
		awake_tick(now);
		run_watch_device(run);
		txp_dev_watchdog(run->dev);
		run_sample_rings(run, now);
		txp_dev_get_stats(run->dev, &st);
		done = st.transmitted + txp_dev_stats_dropped(&st);
		if (txp_load_acquire(&run->producers_done) == started &&
		    txp_dev_stats_accounted(&st)) {
			*t_end = now;
			return false;
		}
		/* More packets ended than were submitted (a driver that frees
		 * one twice, or frees it and returns BUSY) is no progress. */
		if (done != last_done && done <= st.submitted) {
			last_done = done;
			still = 0;
		}
		if ((double)still / 1e9 >= cfg->stall_seconds) {
			*t_end = now;
			txp_store_relaxed(&run->abort, true);
			return true;
		}
		if (drained >= RUN_DRAIN_NS) {
			*t_end = now;
			return false;
		}
		if (!draining && run_interrupted(run, interrupted))
			draining = true;
		if (cfg->progress && now - last_report >= RUN_PROGRESS_NS) {
			struct txp_run_progress p = {
				.elapsed = (double)(now - t0) / 1e9,
				.target = cfg->packets,
				.submitted = st.submitted,
				.transmitted = st.transmitted,
				.dropped = txp_dev_stats_dropped(&st),
			};

			last_report = now;
			cfg->progress(&p, cfg->progress_arg);
		}
	}
}

/* Where a stalled run is stuck: its first stopped queue (else queue 0),
 * and what the qdisc and what is past it (the driver's ring, a runner's
 * dequeued batch) still hold (wedged: all of it said to be past it, the
 * qdisc's locks perhaps held by the stuck thread).
 * Call with the producers ended, before the device goes down: at a stall
 * nothing moves. */
static void run_note_stall(struct run *run, struct txp_run_stall *stall, bool wedged)
{
	struct txp_dev_stats st;
	struct txp_txq *txq;
	uint64_t held;
	unsigned i;

	for (i = 0; (txq = txp_dev_txq(run->dev, i)) != NULL; i++)
		if (txp_netif_xmit_stopped(txq))
			break;
	snprintf(stall->dev, sizeof(stall->dev), "%s", txp_dev_name(run->dev));
	stall->queue = txq ? i : 0;
	stall->stopped = txq != NULL;
	stall->in_qdisc = wedged ? 0 : txp_dev_backlog(run->dev);
	txp_dev_get_stats(run->dev, &st);
	held = st.submitted - st.transmitted - txp_dev_stats_dropped(&st);
	if (held > st.submitted)	/* more ended than submitted: a driver's double free */
		held = 0;
	stall->in_ring = held > stall->in_qdisc ? held - stall->in_qdisc : 0;
}

/* Bring the device down: the driver drops what it still holds and the
 * core what is queued, both as dev-down.  closed[q]: how many that was on
 * queue q. */
static void run_close(struct run *run, uint64_t *closed)
{
	unsigned n = run->cfg->queues;
	struct txp_dev_stats st;

	for (unsigned q = 0; q < n; q++) {
		txp_txq_get_stats(txp_dev_txq(run->dev, q), &st);
		closed[q] = st.dropped[TXP_DROP_DEV_DOWN];
	}
	txp_dev_close(run->dev);
	for (unsigned q = 0; q < n; q++) {
		txp_txq_get_stats(txp_dev_txq(run->dev, q), &st);
		closed[q] = st.dropped[TXP_DROP_DEV_DOWN] - closed[q];
	}
}

/* What the close dropped (closed[q]), moved from dev-down to interrupted. */
static void closed_as_interrupted(struct txp_dev_stats *st, uint64_t closed)
{
	st->dropped[TXP_DROP_DEV_DOWN] -= closed;
	st->dropped[TXP_DROP_INTERRUPTED] += closed;
}

/* A wedged run's device was never closed (or its close never ended):
 * what it still holds is counted dropped as why, on each queue and the
 * device. */
static void held_as_dropped(struct txp_run_result *res, enum txp_drop_reason why)
{
	for (unsigned q = 0; q < res->queues; q++) {
		struct txp_dev_stats *qs = &res->queue_stats[q];
		uint64_t ended = qs->transmitted + txp_dev_stats_dropped(qs);

		if (qs->submitted > ended) {
			qs->dropped[why] += qs->submitted - ended;
			res->dev.dropped[why] += qs->submitted - ended;
		}
	}
}

/* The device's counts as the sum of the queues' snapshots (what
 * txp_dev_get_stats() adds up), so that both agree even when a wedged
 * run's threads still move packets while they are read. */
static void stats_of_queues(struct txp_dev_stats *st, const struct txp_dev_stats *qs, unsigned n)
{
	enum { WORDS = sizeof(*st) / sizeof(uint64_t) };
	_Static_assert(sizeof(struct txp_dev_stats) % sizeof(uint64_t) == 0,
		       "struct txp_dev_stats holds only uint64_t counters");
	uint64_t sum[WORDS] = { 0 };

	for (unsigned q = 0; q < n; q++) {
		uint64_t w[WORDS];

		memcpy(w, &qs[q], sizeof(w));
		for (unsigned i = 0; i < WORDS; i++)
			sum[i] += w[i];
	}
	memcpy(st, sum, sizeof(*st));
}

/* run->closed[q]: what the close dropped on queue q (unless wedged). */
static void run_report(struct run *run, struct txp_run_result *res)
{
	const uint64_t *closed = run->closed;
	struct txp_dev_stats *st = &res->dev;
	uint64_t gone;

	res->queues = run->cfg->queues;
	for (unsigned i = 0; i < res->queues; i++) {
		txp_txq_get_stats(txp_dev_txq(run->dev, i), &res->queue_stats[i]);
		txp_txq_get_bql(txp_dev_txq(run->dev, i), &res->queue_bql[i]);
	}
	stats_of_queues(st, res->queue_stats, res->queues);
	samples_summary(&run->inflight[RING_DESCS], &res->ring_descs);
	samples_summary(&run->inflight[RING_BYTES], &res->ring_bytes);
	run->cfg->driver->stats(run->drv, &res->drv);
	/* The device does not know why it was closed; the run does.  What an
	 * interrupted run's close dropped (the device neither stalled nor lost
	 * its link) was queued or in flight when the drain time ran out. */
	if (res->interrupted && !res->stalled && !res->drv.link_down && !res->wedged)
		for (unsigned q = 0; q < res->queues; q++) {
			closed_as_interrupted(&res->queue_stats[q], closed[q]);
			closed_as_interrupted(st, closed[q]);
		}
	if (res->wedged)
		held_as_dropped(res, res->interrupted && !res->stalled ? TXP_DROP_INTERRUPTED
								       : TXP_DROP_DEV_DOWN);
	res->dropped = txp_dev_stats_dropped(st);
	res->accounted = txp_dev_stats_accounted(st);
	gone = (res->drv.wire_measured ? res->drv.wire.unique : st->transmitted) + res->dropped;
	res->lost = st->submitted > gone ? st->submitted - gone : 0;
	res->duplicated = res->drv.wire.duplicates;
	memcpy(res->faults, res->drv.faults, sizeof(res->faults));
	res->faults[TXP_FAULT_ALLOC_FAIL] = txp_load_relaxed(&run->alloc_failed);
	res->mpps = res->seconds > 0 ? (double)st->transmitted / res->seconds / 1e6 : 0;
	/* Little's law over the samples' window: what the close flushed
	 * left after it. */
	res->ring_wait_us = run->ring_out1 > run->ring_out0 ?
		res->ring_bytes.mean * (double)(run->ring_t1 - run->ring_t0) / 1e3 /
			(double)(run->ring_out1 - run->ring_out0) : 0;
}

/* -- ending: no thread waited on for ever ------------------------------------- */

/* What moves while a run ends: producers finishing, packets ending (no
 * more than were submitted: a driver that frees packets twice is no
 * progress), the close finishing. */
static uint64_t run_motion(struct run *run)
{
	struct txp_dev_stats st;
	uint64_t done;

	txp_dev_get_stats(run->dev, &st);
	done = st.transmitted + txp_dev_stats_dropped(&st);
	return txp_load_acquire(&run->producers_done) + (done < st.submitted ? done : st.submitted) +
	       txp_load_acquire(&run->closed_done);
}

/* Wait until ended(run), as long as something moves; false if nothing
 * moved for quiet_ns first: a thread of the run is stuck (in the driver,
 * or waiting for a lock that a stuck one holds). */
static bool run_settle(struct run *run, bool (*ended)(struct run *run), uint64_t quiet_ns)
{
	uint64_t last = run_motion(run), since = txp_now_ns();

	while (!ended(run)) {
		uint64_t now, m;

		txp_sleep_ns(RUN_POLL_NS);
		now = txp_now_ns();
		m = run_motion(run);
		if (m != last) {
			last = m;
			since = now;
		} else if (now - since >= quiet_ns) {
			return false;
		}
	}
	return true;
}

static bool producers_ended(struct run *run)
{
	return txp_load_acquire(&run->producers_done) == run->started;
}

static bool close_ended(struct run *run)
{
	/* Acquire: pairs with the release in closer_main(): closed[]. */
	return txp_load_acquire(&run->closed_done);
}

static void *closer_main(void *arg)
{
	struct run *run = arg;

	run_close(run, run->closed);
	/* Release: closed[] before the flag; pairs with close_ended(). */
	txp_store_release(&run->closed_done, true);
	return NULL;
}

/* Bring the device down (run_close()) on a thread of its own, waiting as
 * long as something moves: false if the close got stuck (its thread is
 * left to it). */
static bool run_close_settled(struct run *run)
{
	if (txp_thread_start(&run->closer, closer_main, run) != 0) {
		closer_main(run);
		return true;
	}
	if (!run_settle(run, close_ended, RUN_QUIET_NS))
		return false;
	txp_thread_join(&run->closer);
	return true;
}

/* Did the driver end more packets than were submitted (freed some twice)? */
static bool ended_twice(const struct txp_run_result *res)
{
	return res->dev.transmitted + res->dropped > res->dev.submitted;
}

int txp_run(const struct txp_run_cfg *cfg, struct txp_run_result *res, char *err, size_t errlen)
{
	struct run *run;
	uint64_t t0, t_end;
	const char *perr = NULL;

	memset(res, 0, sizeof(*res));
	if (!txp_run_cfg_check(cfg, err, errlen))
		return -1;
	/* On the heap: a wedged run leaves it to its threads. */
	run = calloc(1, sizeof(*run));
	if (!run) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* On before the device exists: it declares its irq-safe locks. */
	if (cfg->validate)
		txp_validator_enable(true);
	if (run_setup(run, cfg, err, errlen) != 0) {
		run_teardown(run, false);
		free(run);
		if (cfg->validate)
			txp_validator_enable(false);
		return -1;
	}
	t0 = txp_now_ns();
	if (cfg->seconds > 0)
		run->deadline = t0 + (uint64_t)(cfg->seconds * 1e9);
	run->started = start_producers(run);
	res->stalled = run_wait(run, run->started, t0, &t_end, &res->interrupted);
	res->wedged = !run_settle(run, producers_ended, RUN_QUIET_NS);
	for (unsigned i = 0; i < run->started && !res->wedged; i++) {
		txp_thread_join(&run->prod[i].thread);
		if (run->prod[i].error)
			perr = run->prod[i].error;
	}
	res->seconds = (double)(t_end - t0) / 1e9;
	if (res->stalled)
		run_note_stall(run, &res->stall, res->wedged);
	if (!res->wedged)
		res->wedged = !run_close_settled(run);
	run_report(run, res);
	if (cfg->validate) {
		res->validated = true;
		res->hazards = txp_validator_count();
	}
	/* Its threads still run: the run, the device and the pools are
	 * theirs, and the validator stays on under them. */
	if (res->wedged)
		return 0;
	run_teardown(run, ended_twice(res));
	if (cfg->validate)
		txp_validator_enable(false);
	if (run->started < cfg->threads || perr) {
		snprintf(err, errlen, "%s", perr ? perr : "cannot start producer threads");
		free(run);
		return -1;
	}
	free(run);
	return 0;
}
