/*
 * test_core.c - the transmit path (dev_queue_xmit, qdisc_restart, the
 * xmit lock, LLTX, noqueue, the exclusive runner) against a scripted
 * driver: start_xmit returns what the test asked for, records every call,
 * and completes or holds what it accepts.
 *
 * Each test gets a fresh driver and device (setup/teardown), and ends by
 * closing the device and checking submitted == transmitted + dropped.
 * Threads synchronise through C11 atomics only; cmocka asserts are made
 * from the test's main thread.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/qdisc.h"

#define REC_MAX 8192		/* calls and packets recorded */
#define RECURSE_SEQ 1000000	/* seq of the packet start_xmit re-submits */
#define PUSH_PKTS 2000		/* per thread in the two-producer tests */
#define WAIT_SECONDS 10		/* a flag that takes longer fails the test */

/* The scripted driver.  The script is set by the test thread, read by
 * whichever context runs start_xmit; the records are written by
 * start_xmit, each call in its own slot, and read by the test thread
 * after the calls are over (a join, or the same thread). */
struct tdrv {
	struct txp_dev *dev;
	struct txp_txq *txq;

	/* The script. */
	atomic_bool busy;		/* return BUSY */
	atomic_bool stop_on_busy;	/* ... stopping the queue first */
	atomic_uint locked_left;	/* return LOCKED this many more times */
	atomic_bool hold;		/* keep accepted packets, do not complete */
	atomic_bool recurse;		/* next call re-submits to its own device */
	atomic_bool block;		/* next call waits inside until release */
	atomic_bool stop_inside;	/* next accepting call stops the queue */
	atomic_bool entered, release;
	unsigned work;			/* busy work inside, to widen windows */

	/* What it saw. */
	atomic_uint calls;
	atomic_int inside, max_inside;
	atomic_uint naccepted;
	uint64_t called[REC_MAX];	/* seq, per call */
	uint64_t accepted[REC_MAX];	/* seq, per accepted packet, in order */
	uint32_t accepted_flow[REC_MAX];
	struct txp_pkt *held[REC_MAX];
	atomic_uint nheld;
	atomic_int recurse_rc;
	atomic_uint opens, stops;
	FILE *log;			/* the device's kernel log, if asked for */
	char logbuf[4096];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spin (politely) until *flag is set; a bounded wait, so a broken path
 * fails instead of hanging. */
static bool wait_flag(atomic_bool *flag)
{
	double deadline = now_s() + WAIT_SECONDS;

	while (!atomic_load(flag)) {
		if (now_s() > deadline)
			return false;
		sched_yield();
	}
	return true;
}

static bool take_one(atomic_uint *left)
{
	unsigned n = atomic_load(left);

	while (n && !atomic_compare_exchange_weak(left, &n, n - 1))
		;
	return n != 0;
}

static void note_inside(struct tdrv *d)
{
	int in = atomic_fetch_add(&d->inside, 1) + 1;
	int max = atomic_load(&d->max_inside);

	while (in > max && !atomic_compare_exchange_weak(&d->max_inside, &max, in))
		;
}

static void accept(struct tdrv *d, struct txp_pkt *pkt, struct txp_txq *txq)
{
	unsigned i = atomic_fetch_add(&d->naccepted, 1);

	if (i < REC_MAX) {
		d->accepted[i] = pkt->seq;
		d->accepted_flow[i] = pkt->flow;
	}
	if (atomic_exchange(&d->stop_inside, false))
		txp_netif_stop_queue(txq);
	if (atomic_load(&d->hold)) {
		unsigned h = atomic_fetch_add(&d->nheld, 1);

		if (h >= REC_MAX)
			abort();	/* a test holds a handful at most */
		d->held[h] = pkt;
	} else {
		txp_pkt_complete(d->dev, pkt);
	}
}

/*
 * start_xmit: what the script says.
 * Synchronization: whatever the device's lock mode gives; only atomics
 * and per-call slots are shared.
 * Context: any.  Blocks only when the test scripted `block`.
 * Return codes: LOCKED while locked_left, BUSY while busy, else OK.
 */
static enum txp_tx tdrv_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct tdrv *d = txp_dev_priv(txp_txq_dev(txq));
	unsigned call = atomic_fetch_add(&d->calls, 1);
	enum txp_tx rc = TXP_TX_OK;

	note_inside(d);
	if (call < REC_MAX)
		d->called[call] = pkt->seq;
	if (atomic_exchange(&d->block, false)) {
		atomic_store(&d->entered, true);
		wait_flag(&d->release);
	}
	if (atomic_exchange(&d->recurse, false)) {
		struct txp_pkt *inner = txp_pkt_alloc();

		if (inner) {
			inner->seq = RECURSE_SEQ;
			atomic_store(&d->recurse_rc, txp_dev_queue_xmit(d->dev, inner));
		}
	}
	for (volatile unsigned i = 0; i < d->work; i++)
		;
	if (take_one(&d->locked_left)) {
		rc = TXP_TX_LOCKED;
	} else if (atomic_load(&d->busy)) {
		if (atomic_load(&d->stop_on_busy))
			txp_netif_stop_queue(txq);
		rc = TXP_TX_BUSY;
	}
	atomic_fetch_sub(&d->inside, 1);
	if (rc == TXP_TX_OK)
		accept(d, pkt, txq);
	return rc;
}

static int tdrv_open(struct txp_dev *dev)
{
	struct tdrv *d = txp_dev_priv(dev);

	atomic_fetch_add(&d->opens, 1);
	return 0;
}

/* Hand back what the driver still holds, as the contract says. */
static void tdrv_stop(struct txp_dev *dev)
{
	struct tdrv *d = txp_dev_priv(dev);
	unsigned n = atomic_exchange(&d->nheld, 0);

	atomic_fetch_add(&d->stops, 1);
	for (unsigned i = 0; i < n; i++)
		txp_pkt_drop(dev, d->held[i], TXP_DROP_DEV_DOWN);
}

static const struct txp_driver_ops tdrv_ops = {
	.name = "tdrv",
	.open = tdrv_open,
	.stop = tdrv_stop,
	.start_xmit = tdrv_start_xmit,
};

/* -- fixture ----------------------------------------------------------- */

static int setup(void **state)
{
	struct tdrv *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct tdrv *d = *state;

	atomic_store(&d->release, true);
	txp_dev_destroy(d->dev);
	if (d->log)
		fclose(d->log);
	free(d);
	return 0;
}

static void dev_up_cfg(struct tdrv *d, const struct txp_dev_cfg *cfg)
{
	char err[128] = "";

	d->dev = txp_dev_create(cfg, err, sizeof(err));
	assert_non_null(d->dev);
	assert_string_equal(err, "");
	d->txq = txp_dev_txq(d->dev, 0);
	assert_non_null(d->txq);
	assert_int_equal(txp_dev_open(d->dev), 0);
	assert_int_equal(atomic_load(&d->opens), 1);
	assert_false(txp_netif_queue_stopped(d->txq));
}

static void dev_up(struct tdrv *d, enum txp_lock_mode lock, enum txp_runner runner,
		   const struct txp_qdisc_ops *qdisc)
{
	struct txp_dev_cfg cfg = {
		.name = "tst0",
		.lock = lock,
		.runner = runner,
		.qdisc = qdisc,
		.ops = &tdrv_ops,
		.priv = d,
	};

	dev_up_cfg(d, &cfg);
}

static struct txp_pkt *pkt_new(uint64_t seq, uint32_t flow, uint8_t priority)
{
	struct txp_pkt *pkt = txp_pkt_alloc();

	assert_non_null(pkt);
	pkt->seq = seq;
	pkt->flow = flow;
	pkt->priority = priority;
	pkt->len = 64;
	return pkt;
}

static int xmit(struct tdrv *d, uint64_t seq)
{
	return txp_dev_queue_xmit(d->dev, pkt_new(seq, 0, 0));
}

static struct txp_dev_stats stats(struct tdrv *d)
{
	struct txp_dev_stats st;

	txp_dev_get_stats(d->dev, &st);
	return st;
}

/* Nothing vanished: every submitted packet is transmitted, dropped,
 * queued, or held by the driver. */
static void assert_conserved(struct tdrv *d)
{
	struct txp_dev_stats st = stats(d);

	assert_int_equal(st.submitted, st.transmitted + txp_test_dropped(&st) +
				       txp_dev_backlog(d->dev) + atomic_load(&d->nheld));
}

static void assert_accepted(struct tdrv *d, const uint64_t *seq, unsigned n)
{
	assert_int_equal(atomic_load(&d->naccepted), n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(d->accepted[i], seq[i]);
}

#define ASSERT_ACCEPTED(d, ...)                                              \
	do {                                                                 \
		static const uint64_t seq_[] = { __VA_ARGS__ };              \
		assert_accepted((d), seq_, sizeof(seq_) / sizeof(seq_[0]));  \
	} while (0)

/* The end of every test: down, then nothing unaccounted. */
static void finish(struct tdrv *d)
{
	assert_conserved(d);
	txp_dev_close(d->dev);
	assert_int_equal(atomic_load(&d->stops), 1);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	txp_test_assert_accounted(d->dev);
}

/* A device whose kernel log goes to a temporary file. */
static void dev_up_logged(struct tdrv *d, const char *name, enum txp_lock_mode lock,
			  const struct txp_qdisc_ops *qdisc)
{
	struct txp_dev_cfg cfg = {
		.name = name, .lock = lock, .qdisc = qdisc, .ops = &tdrv_ops, .priv = d,
	};

	d->log = tmpfile();
	assert_non_null(d->log);
	cfg.log = d->log;
	dev_up_cfg(d, &cfg);
}

/* How many times the log holds needle so far. */
static unsigned log_count(struct tdrv *d, const char *needle)
{
	unsigned count = 0;
	size_t n;

	fflush(d->log);
	rewind(d->log);
	n = fread(d->logbuf, 1, sizeof(d->logbuf) - 1, d->log);
	d->logbuf[n] = '\0';
	for (const char *p = d->logbuf; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		count++;
	return count;
}

/* -- a producer thread ------------------------------------------------- */

struct pusher {
	struct tdrv *d;
	uint32_t flow;
	uint64_t first, count;
	int last_rc;
	pthread_t thread;
};

static void *pusher_main(void *arg)
{
	struct pusher *p = arg;

	for (uint64_t s = p->first; s < p->first + p->count; s++)
		p->last_rc = txp_dev_queue_xmit(p->d->dev, pkt_new(s, p->flow, 0));
	return NULL;
}

static void pusher_start(struct pusher *p, struct tdrv *d, uint32_t flow, uint64_t first,
			 uint64_t count)
{
	*p = (struct pusher){ .d = d, .flow = flow, .first = first, .count = count };
	assert_int_equal(pthread_create(&p->thread, NULL, pusher_main, p), 0);
}

static void pusher_join(struct pusher *p)
{
	assert_int_equal(pthread_join(p->thread, NULL), 0);
}

/* Start one packet (seq 0) on a helper thread and wait until it is
 * blocked inside start_xmit. */
static void block_one_inside(struct tdrv *d, struct pusher *p)
{
	atomic_store(&d->block, true);
	pusher_start(p, d, 0, 0, 1);
	assert_true(wait_flag(&d->entered));
}

static void release_blocked(struct tdrv *d, struct pusher *p)
{
	atomic_store(&d->release, true);
	pusher_join(p);
	assert_int_equal(p->last_rc, TXP_XMIT_OK);
}

/* -- device basics ------------------------------------------------------- */

static void test_create_errors(void **state)
{
	static const struct txp_driver_ops no_xmit = { .name = "none" };
	struct txp_dev_cfg cfg = { .name = "bad0" };
	char err[128] = "";
	(void)state;

	assert_null(txp_dev_create(&cfg, err, sizeof(err)));
	assert_true(strlen(err) > 0);
	err[0] = '\0';
	cfg.ops = &no_xmit;
	assert_null(txp_dev_create(&cfg, err, sizeof(err)));
	assert_non_null(strstr(err, "start_xmit"));
}

static int failing_open(struct txp_dev *dev)
{
	(void)dev;
	return -5;
}

/* A device that does not come up takes no packets into its queue. */
static void test_open_failure_keeps_device_down(void **state)
{
	static const struct txp_driver_ops ops = {
		.name = "fail", .open = failing_open, .start_xmit = tdrv_start_xmit,
	};
	struct tdrv *d = *state;
	struct txp_dev_cfg cfg = { .name = "fail0", .ops = &ops, .priv = d };
	char err[128];
	struct txp_dev_stats st;

	d->dev = txp_dev_create(&cfg, err, sizeof(err));
	assert_non_null(d->dev);
	assert_int_equal(txp_dev_open(d->dev), -5);
	assert_int_equal(xmit(d, 0), TXP_XMIT_DROP);
	st = stats(d);
	assert_int_equal(st.dropped[TXP_DROP_DEV_DOWN], 1);
	assert_int_equal(st.xmit_calls, 0);
	txp_test_assert_accounted(d->dev);
}

/* The dropped total is over every reason; accounted is submitted ==
 * transmitted + dropped, not more and not less. */
static void test_stats_accounted(void **state)
{
	struct txp_dev_stats st = { .submitted = 10, .transmitted = 6 };

	(void)state;
	st.dropped[TXP_DROP_QDISC_LIMIT] = 1;
	st.dropped[TXP_DROP_NR - 1] = 2;
	assert_int_equal(txp_dev_stats_dropped(&st), 3);
	assert_false(txp_dev_stats_accounted(&st));
	st.dropped[TXP_DROP_DEV_DOWN] = 1;
	assert_int_equal(txp_dev_stats_dropped(&st), 4);
	assert_true(txp_dev_stats_accounted(&st));
	st.transmitted++;
	assert_false(txp_dev_stats_accounted(&st));
}

static void test_names_and_accessors(void **state)
{
	struct tdrv *d = *state;

	dev_up(d, TXP_LOCK_LLTX, TXP_RUNNER_EXCLUSIVE, NULL);
	assert_string_equal(txp_dev_name(d->dev), "tst0");
	assert_int_equal(txp_dev_lock_mode(d->dev), TXP_LOCK_LLTX);
	assert_ptr_equal(txp_dev_priv(d->dev), d);
	assert_ptr_equal(txp_txq_dev(d->txq), d->dev);
	assert_null(txp_dev_txq(d->dev, 1));
	assert_string_equal(txp_lock_mode_name(TXP_LOCK_CORE), "core");
	assert_string_equal(txp_lock_mode_name(TXP_LOCK_LLTX), "lltx");
	assert_string_equal(txp_runner_name(TXP_RUNNER_CONCURRENT), "concurrent");
	assert_string_equal(txp_runner_name(TXP_RUNNER_EXCLUSIVE), "exclusive");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_QDISC_LIMIT), "qdisc-limit");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_DEAD_LOOP), "dead-loop");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_VIRTUAL_BUSY), "virtual-busy");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_DEV_DOWN), "dev-down");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_DRIVER), "driver");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_TX_ERROR), "tx-error");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_INTERRUPTED), "interrupted");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_NR), "?");
	finish(d);
}

/* -- the qdisc path ------------------------------------------------------ */

/* TXP_TX_OK: each packet reaches the driver at once, in order. */
static void test_tx_ok(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL);
	for (uint64_t s = 0; s < 5; s++) {
		assert_int_equal(xmit(d, s), TXP_XMIT_OK);
		st = stats(d);
		assert_int_equal(st.xmit_calls, s + 1);
		assert_int_equal(st.transmitted, s + 1);
		assert_int_equal(txp_dev_backlog(d->dev), 0);
	}
	ASSERT_ACCEPTED(d, 0, 1, 2, 3, 4);
	st = stats(d);
	assert_int_equal(st.submitted, 5);
	assert_int_equal(atomic_load(&d->calls), 5);
	assert_int_equal(st.tx_busy + st.tx_locked + st.collisions + st.requeues, 0);
	assert_int_equal(st.xmit_on_stopped, 0);
	assert_int_equal(txp_test_dropped(&st), 0);
	finish(d);
}

/* TXP_TX_BUSY: the packet stays the core's, requeued (and counted) for
 * every refusal; once the driver takes packets again it goes first. */
static void test_tx_busy_requeues(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;
	unsigned calls;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL);
	atomic_store(&d->busy, true);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);	/* queued */
	calls = atomic_load(&d->calls);
	assert_true(calls >= 1);
	for (unsigned i = 0; i < calls; i++)
		assert_int_equal(d->called[i], 0);
	st = stats(d);
	assert_int_equal(st.xmit_calls, calls);
	assert_int_equal(st.tx_busy, calls);
	assert_int_equal(st.requeues, calls);
	assert_int_equal(st.collisions, 0);
	assert_int_equal(st.transmitted, 0);
	assert_int_equal(txp_dev_backlog(d->dev), 1);
	assert_conserved(d);

	atomic_store(&d->busy, false);
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	ASSERT_ACCEPTED(d, 0, 1);
	assert_int_equal(d->called[calls], 0);
	st = stats(d);
	assert_int_equal(st.tx_busy, calls);
	assert_int_equal(st.transmitted, 2);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	finish(d);
}

/* A packet refused with BUSY goes back to the head, ahead of packets
 * that were queued behind it (not to the tail). */
static void test_busy_requeue_keeps_place(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL);
	txp_netif_stop_queue(d->txq);
	for (uint64_t s = 0; s < 3; s++)
		assert_int_equal(xmit(d, s), TXP_XMIT_OK);
	assert_int_equal(atomic_load(&d->calls), 0);

	atomic_store(&d->busy, true);
	atomic_store(&d->stop_on_busy, true);
	txp_netif_wake_queue(d->txq);
	txp_net_tx_action(d->dev);
	assert_int_equal(atomic_load(&d->calls), 1);
	assert_int_equal(d->called[0], 0);
	assert_true(txp_netif_queue_stopped(d->txq));
	assert_int_equal(txp_dev_backlog(d->dev), 3);
	/* Stopped: running the queue again calls nobody. */
	txp_net_tx_action(d->dev);
	assert_int_equal(atomic_load(&d->calls), 1);

	atomic_store(&d->busy, false);
	txp_netif_wake_queue(d->txq);
	txp_net_tx_action(d->dev);
	ASSERT_ACCEPTED(d, 0, 1, 2);
	st = stats(d);
	assert_int_equal(st.tx_busy, 1);
	assert_int_equal(st.requeues, 1);
	assert_int_equal(st.stops, 2);
	assert_int_equal(st.wakes, 2);
	assert_int_equal(st.transmitted, 3);
	finish(d);
}

/* One LOCKED answer, then OK: the packet is requeued and sent by the run
 * of the queue it scheduled; a collision is counted only in LLTX mode. */
static void tx_locked_once(struct tdrv *d, enum txp_lock_mode lock)
{
	struct txp_dev_stats st;

	dev_up(d, lock, TXP_RUNNER_CONCURRENT, NULL);
	atomic_store(&d->locked_left, 1);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);
	txp_net_tx_action(d->dev);
	ASSERT_ACCEPTED(d, 0);
	assert_int_equal(atomic_load(&d->calls), 2);
	assert_int_equal(d->called[0], 0);
	assert_int_equal(d->called[1], 0);
	st = stats(d);
	assert_int_equal(st.tx_locked, 1);
	assert_int_equal(st.collisions, lock == TXP_LOCK_LLTX ? 1 : 0);
	assert_int_equal(st.requeues, 1);
	assert_int_equal(st.tx_busy, 0);
	assert_int_equal(st.transmitted, 1);
	finish(d);
}

/* TXP_TX_LOCKED in LLTX mode (the driver's own trylock failed): a
 * collision and a requeue. */
static void test_tx_locked_lltx(void **state)
{
	tx_locked_once(*state, TXP_LOCK_LLTX);
}

/* LOCKED means something only in LLTX mode: in core mode it is a plain
 * requeue (as BUSY), no collision. */
static void test_tx_locked_core_is_requeue(void **state)
{
	tx_locked_once(*state, TXP_LOCK_CORE);
}

/* A stopped queue gets no start_xmit call; woken and run, its backlog
 * drains in order (band 0 first). */
static void test_stopped_queue_core(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL);
	txp_netif_stop_queue(d->txq);
	assert_true(txp_netif_queue_stopped(d->txq));
	for (uint64_t s = 0; s < 5; s++)
		assert_int_equal(xmit(d, s), TXP_XMIT_OK);
	/* Interactive priority: band 0, overtakes the rest. */
	assert_int_equal(txp_dev_queue_xmit(d->dev, pkt_new(5, 0, 6)), TXP_XMIT_OK);
	txp_net_tx_action(d->dev);
	assert_int_equal(atomic_load(&d->calls), 0);
	assert_int_equal(txp_dev_backlog(d->dev), 6);
	st = stats(d);
	assert_int_equal(st.xmit_calls, 0);
	assert_int_equal(st.stops, 1);
	assert_int_equal(st.wakes, 0);
	/* A second stop is no transition. */
	txp_netif_stop_queue(d->txq);
	assert_int_equal(stats(d).stops, 1);
	assert_conserved(d);

	txp_netif_wake_queue(d->txq);
	assert_false(txp_netif_queue_stopped(d->txq));
	txp_net_tx_action(d->dev);
	ASSERT_ACCEPTED(d, 5, 0, 1, 2, 3, 4);
	st = stats(d);
	assert_int_equal(st.wakes, 1);
	assert_int_equal(st.xmit_calls, 6);
	assert_int_equal(st.requeues, 0);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	/* Waking an awake queue is no transition either. */
	txp_netif_wake_queue(d->txq);
	assert_int_equal(stats(d).wakes, 1);
	finish(d);
}

/* Over txqueuelen in a band: dropped with a reason, caller told. */
static void test_qdisc_limit_drop(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_cfg cfg = {
		.name = "tst0", .ops = &tdrv_ops, .priv = d, .txqueuelen = 2,
	};
	struct txp_dev_stats st;

	dev_up_cfg(d, &cfg);
	txp_netif_stop_queue(d->txq);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	assert_int_equal(xmit(d, 2), TXP_XMIT_DROP);
	st = stats(d);
	assert_int_equal(st.dropped[TXP_DROP_QDISC_LIMIT], 1);
	assert_int_equal(txp_dev_backlog(d->dev), 2);
	txp_netif_wake_queue(d->txq);
	txp_net_tx_action(d->dev);
	ASSERT_ACCEPTED(d, 0, 1);
	finish(d);
}

/* start_xmit re-submitting to its own device (core mode): the inner
 * packet finds the xmit lock held by its own context and is dropped as a
 * dead loop, logged; nothing hangs and the outer packet goes out. */
static void test_dead_loop_core(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up_logged(d, "loop0", TXP_LOCK_CORE, NULL);
	atomic_store(&d->recurse, true);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);
	ASSERT_ACCEPTED(d, 0);
	assert_int_equal(atomic_load(&d->calls), 1);	/* the inner one never got in */
	st = stats(d);
	assert_int_equal(st.submitted, 2);
	assert_int_equal(st.transmitted, 1);
	assert_int_equal(st.dropped[TXP_DROP_DEAD_LOOP], 1);
	assert_int_equal(txp_test_dropped(&st), 1);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	assert_int_equal(log_count(d, "Dead loop on netdevice loop0, fix it urgently!\n"), 1);
	/* The device still works. */
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	ASSERT_ACCEPTED(d, 0, 1);
	finish(d);
}

/* The same on a device without a queue: the inner call is refused. */
static void test_dead_loop_noqueue(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up_logged(d, "vloop0", TXP_LOCK_CORE, &txp_noqueue_ops);
	atomic_store(&d->recurse, true);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);
	assert_int_equal(atomic_load(&d->recurse_rc), TXP_XMIT_DROP);
	ASSERT_ACCEPTED(d, 0);
	st = stats(d);
	assert_int_equal(st.dropped[TXP_DROP_DEAD_LOOP], 1);
	assert_int_equal(st.transmitted, 1);
	assert_int_equal(log_count(d, "Dead loop on virtual device vloop0, fix it urgently!\n"), 1);
	finish(d);
}

/* With the exclusive runner (2.6.16+) the inner call only queues: the
 * queue is being run, by this very context, which sends the inner packet
 * next.  No dead loop. */
static void test_recursion_exclusive_runner_queues(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, NULL);
	atomic_store(&d->recurse, true);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);
	assert_int_equal(atomic_load(&d->recurse_rc), TXP_XMIT_OK);
	ASSERT_ACCEPTED(d, 0, RECURSE_SEQ);
	assert_int_equal(atomic_load(&d->max_inside), 1);
	st = stats(d);
	assert_int_equal(st.submitted, 2);
	assert_int_equal(st.transmitted, 2);
	assert_int_equal(txp_test_dropped(&st), 0);
	finish(d);
}

/* A context that holds the xmit lock (a 2.6.11-rc2 completion path) and
 * transmits on the same queue would deadlock; the core drops instead. */
static void test_xmit_under_own_xmit_lock(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL);
	txp_netif_tx_lock_irq(d->txq);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);
	txp_netif_tx_unlock_irq(d->txq);
	st = stats(d);
	assert_int_equal(st.dropped[TXP_DROP_DEAD_LOOP], 1);
	assert_int_equal(atomic_load(&d->calls), 0);
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	ASSERT_ACCEPTED(d, 1);
	finish(d);
}

/* Core mode, another context holds the xmit lock: the packet is requeued
 * with a collision counted, and sent once the lock is free. */
static void test_collision_core_lock_held(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;
	struct pusher p;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL);
	txp_netif_tx_lock_irq(d->txq);
	pusher_start(&p, d, 0, 0, 1);
	pusher_join(&p);
	assert_int_equal(p.last_rc, TXP_XMIT_OK);
	st = stats(d);
	assert_int_equal(atomic_load(&d->calls), 0);
	assert_true(st.collisions >= 1);
	assert_int_equal(st.requeues, st.collisions);
	assert_int_equal(st.dropped[TXP_DROP_DEAD_LOOP], 0);
	assert_int_equal(txp_dev_backlog(d->dev), 1);
	txp_netif_tx_unlock_irq(d->txq);

	txp_net_tx_action(d->dev);	/* the collision scheduled the queue */
	ASSERT_ACCEPTED(d, 0);
	assert_int_equal(stats(d).transmitted, 1);
	finish(d);
}

/* Core mode, a driver busy inside start_xmit (holding the xmit lock)
 * while a second context submits: the second packet collides, is
 * requeued, and the first context sends it when its call returns. */
static void test_collision_core_driver_busy(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;
	struct pusher a;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL);
	block_one_inside(d, &a);
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	st = stats(d);
	assert_int_equal(atomic_load(&d->calls), 1);
	assert_true(st.collisions >= 1);
	assert_int_equal(st.requeues, st.collisions);
	assert_int_equal(st.transmitted, 0);
	assert_int_equal(txp_dev_backlog(d->dev), 1);

	release_blocked(d, &a);
	ASSERT_ACCEPTED(d, 0, 1);
	assert_int_equal(atomic_load(&d->max_inside), 1);
	st = stats(d);
	assert_int_equal(st.transmitted, 2);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	finish(d);
}

/* -- noqueue ---------------------------------------------------------------- */

/* No queue: OK goes straight through; BUSY or a stopped queue is a drop
 * ("Virtual device asks to queue packet!"). */
static void test_noqueue_core(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up_logged(d, "lo0", TXP_LOCK_CORE, &txp_noqueue_ops);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);
	ASSERT_ACCEPTED(d, 0);
	assert_int_equal(stats(d).transmitted, 1);

	atomic_store(&d->busy, true);
	assert_int_equal(xmit(d, 1), TXP_XMIT_DROP);
	atomic_store(&d->busy, false);
	st = stats(d);
	assert_int_equal(st.dropped[TXP_DROP_VIRTUAL_BUSY], 1);
	assert_int_equal(st.tx_busy, 1);
	assert_int_equal(st.requeues, 0);
	assert_int_equal(atomic_load(&d->calls), 2);

	txp_netif_stop_queue(d->txq);
	assert_int_equal(xmit(d, 2), TXP_XMIT_DROP);
	assert_int_equal(atomic_load(&d->calls), 2);
	assert_int_equal(stats(d).dropped[TXP_DROP_VIRTUAL_BUSY], 2);
	txp_netif_wake_queue(d->txq);
	assert_int_equal(xmit(d, 3), TXP_XMIT_OK);
	ASSERT_ACCEPTED(d, 0, 3);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	assert_int_equal(log_count(d, "Virtual device lo0 asks to queue packet!\n"), 2);
	finish(d);
}

/* LLTX without a queue: a LOCKED driver cannot be retried either. */
static void test_noqueue_lltx_locked(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up(d, TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, &txp_noqueue_ops);
	atomic_store(&d->locked_left, 1);
	assert_int_equal(xmit(d, 0), TXP_XMIT_DROP);
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	st = stats(d);
	assert_int_equal(st.tx_locked, 1);
	assert_int_equal(st.dropped[TXP_DROP_VIRTUAL_BUSY], 1);
	assert_int_equal(st.collisions, 0);
	ASSERT_ACCEPTED(d, 1);
	finish(d);
}

/* -- closing ---------------------------------------------------------------- */

/* Down with packets queued and one held by the driver: all dropped as
 * dev-down (the queued ones by the core, the held one by the driver's
 * stop op); later submissions are refused the same way. */
static void test_close_with_backlog(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;

	dev_up(d, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL);
	atomic_store(&d->hold, true);
	assert_int_equal(xmit(d, 0), TXP_XMIT_OK);
	assert_int_equal(atomic_load(&d->nheld), 1);
	txp_netif_stop_queue(d->txq);
	for (uint64_t s = 1; s <= 3; s++)
		assert_int_equal(xmit(d, s), TXP_XMIT_OK);
	assert_int_equal(txp_dev_backlog(d->dev), 3);
	assert_conserved(d);

	txp_dev_close(d->dev);
	assert_int_equal(atomic_load(&d->stops), 1);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	st = stats(d);
	assert_int_equal(st.dropped[TXP_DROP_DEV_DOWN], 4);
	assert_int_equal(st.transmitted, 0);
	assert_int_equal(xmit(d, 4), TXP_XMIT_DROP);
	st = stats(d);
	assert_int_equal(st.dropped[TXP_DROP_DEV_DOWN], 5);
	assert_int_equal(st.submitted, 5);
	ASSERT_ACCEPTED(d, 0);
	/* Closing twice is harmless: the driver is not stopped again. */
	txp_dev_close(d->dev);
	assert_int_equal(atomic_load(&d->stops), 1);
	txp_test_assert_accounted(d->dev);
}

/* -- who may be inside start_xmit ------------------------------------------- */

/* The exclusive runner: while one context is inside start_xmit, another
 * context's packet waits in the qdisc, and the running context sends it. */
static void test_exclusive_runner_second_waits(void **state)
{
	struct tdrv *d = *state;
	struct pusher a;

	dev_up(d, TXP_LOCK_LLTX, TXP_RUNNER_EXCLUSIVE, NULL);
	block_one_inside(d, &a);
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	txp_net_tx_action(d->dev);
	assert_int_equal(atomic_load(&d->calls), 1);
	assert_int_equal(txp_dev_backlog(d->dev), 1);

	release_blocked(d, &a);
	ASSERT_ACCEPTED(d, 0, 1);
	assert_int_equal(atomic_load(&d->max_inside), 1);
	assert_int_equal(stats(d).collisions, 0);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	finish(d);
}

/* The control: LLTX with the concurrent runner (2.6.9) lets the second
 * context in while the first is inside, and its packet overtakes. */
static void test_concurrent_lltx_lets_two_in(void **state)
{
	struct tdrv *d = *state;
	struct pusher a;

	dev_up(d, TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, NULL);
	block_one_inside(d, &a);
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	assert_int_equal(atomic_load(&d->calls), 2);
	assert_int_equal(atomic_load(&d->max_inside), 2);
	release_blocked(d, &a);
	ASSERT_ACCEPTED(d, 1, 0);
	finish(d);
}

/* The core's race detector: a call during which another context stopped
 * the queue is counted in xmit_on_stopped; the driver stopping the queue
 * itself is not. */
static void test_xmit_on_stopped(void **state)
{
	struct tdrv *d = *state;
	struct txp_dev_stats st;
	struct pusher a;

	dev_up(d, TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, NULL);
	block_one_inside(d, &a);
	txp_netif_stop_queue(d->txq);	/* "another CPU" stops it */
	release_blocked(d, &a);
	st = stats(d);
	assert_int_equal(st.xmit_on_stopped, 1);
	assert_int_equal(st.stops, 1);

	txp_netif_wake_queue(d->txq);
	atomic_store(&d->stop_inside, true);
	assert_int_equal(xmit(d, 1), TXP_XMIT_OK);
	assert_true(txp_netif_queue_stopped(d->txq));
	st = stats(d);
	assert_int_equal(st.stops, 2);
	assert_int_equal(st.xmit_on_stopped, 1);
	ASSERT_ACCEPTED(d, 0, 1);
	txp_netif_wake_queue(d->txq);
	finish(d);
}

/* Two producers push at once through a configuration that serialises
 * start_xmit; a driver counting concurrent entries never sees two, and
 * each flow arrives in order. */
static void push_two_serialised(struct tdrv *d, enum txp_lock_mode lock, enum txp_runner runner)
{
	/* Room for every packet: one runner may fall behind two producers. */
	struct txp_dev_cfg cfg = {
		.name = "tst0", .lock = lock, .runner = runner, .ops = &tdrv_ops, .priv = d,
		.txqueuelen = 2 * PUSH_PKTS,
	};
	uint64_t next[2] = { 0, 0 };
	struct pusher p[2];
	struct txp_dev_stats st;
	unsigned n;

	dev_up_cfg(d, &cfg);
	d->work = 200;
	pusher_start(&p[0], d, 0, 0, PUSH_PKTS);
	pusher_start(&p[1], d, 1, 0, PUSH_PKTS);
	pusher_join(&p[0]);
	pusher_join(&p[1]);

	assert_int_equal(atomic_load(&d->max_inside), 1);
	n = atomic_load(&d->naccepted);
	assert_int_equal(n, 2 * PUSH_PKTS);
	for (unsigned i = 0; i < n; i++) {
		uint32_t f = d->accepted_flow[i];

		assert_in_range(f, 0, 1);
		assert_int_equal(d->accepted[i], next[f]);
		next[f]++;
	}
	st = stats(d);
	assert_int_equal(st.submitted, 2 * PUSH_PKTS);
	assert_int_equal(st.transmitted, 2 * PUSH_PKTS);
	assert_int_equal(st.xmit_on_stopped, 0);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	finish(d);
}

static void test_exclusive_runner_lltx_one_inside(void **state)
{
	push_two_serialised(*state, TXP_LOCK_LLTX, TXP_RUNNER_EXCLUSIVE);
}

static void test_core_lock_one_inside(void **state)
{
	push_two_serialised(*state, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT);
}

static void test_exclusive_runner_core_one_inside(void **state)
{
	push_two_serialised(*state, TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE);
}

/* -- the kernel log --------------------------------------------------------- */

/* Every BUG is counted; the printed lines are rate-limited (a burst of
 * 10 per window, as net_ratelimit()). */
static void test_log_bug_ratelimited(void **state)
{
	struct tdrv *d = *state;

	dev_up_logged(d, "eth7", TXP_LOCK_CORE, NULL);
	for (int i = 0; i < 15; i++)
		txp_dev_log_bug(d->dev, "Tx Ring full when queue awake!");
	assert_int_equal(stats(d).bug_logs, 15);
	assert_int_equal(log_count(d, "tdrv: eth7: BUG! Tx Ring full when queue awake!\n"), 10);
	finish(d);
}

/* No log file: nothing printed, still counted. */
static void test_log_bug_counted_without_log(void **state)
{
	struct tdrv *d = *state;

	dev_up(d, TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, NULL);
	txp_dev_log_bug(d->dev, "x");
	assert_int_equal(stats(d).bug_logs, 1);
	finish(d);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_errors),
		T(test_open_failure_keeps_device_down),
		cmocka_unit_test(test_stats_accounted),
		T(test_names_and_accessors),
		T(test_tx_ok),
		T(test_tx_busy_requeues),
		T(test_busy_requeue_keeps_place),
		T(test_tx_locked_lltx),
		T(test_tx_locked_core_is_requeue),
		T(test_stopped_queue_core),
		T(test_qdisc_limit_drop),
		T(test_dead_loop_core),
		T(test_dead_loop_noqueue),
		T(test_recursion_exclusive_runner_queues),
		T(test_xmit_under_own_xmit_lock),
		T(test_collision_core_lock_held),
		T(test_collision_core_driver_busy),
		T(test_noqueue_core),
		T(test_noqueue_lltx_locked),
		T(test_close_with_backlog),
		T(test_exclusive_runner_second_waits),
		T(test_concurrent_lltx_lets_two_in),
		T(test_xmit_on_stopped),
		T(test_exclusive_runner_lltx_one_inside),
		T(test_core_lock_one_inside),
		T(test_exclusive_runner_core_one_inside),
		T(test_log_bug_ratelimited),
		T(test_log_bug_counted_without_log),
	};

	return txp_test_main(argc, argv, tests);
}
