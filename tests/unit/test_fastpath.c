/*
 * test_fastpath.c - the fast path: packet pools (with frees from other
 * threads), txp_xmit_burst, bulk dequeue with xmit_more, the qdisc bypass,
 * and the null driver through txp_run().
 *
 * Threads synchronise through C11 atomics and joins only; cmocka asserts
 * are made from the test's main thread.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/qdisc.h"
#include "run/run.h"

/* -- pools ----------------------------------------------------------------- */

static void test_pool_capacity_is_a_send_buffer(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(4);
	struct txp_pkt *p[6];

	(void)state;
	assert_non_null(pool);
	assert_int_equal(txp_pkt_pool_alloc_bulk(pool, p, 6), 4);
	assert_null(txp_pkt_pool_alloc(pool));
	for (int i = 0; i < 4; i++) {
		assert_ptr_equal(p[i]->pool, pool);
		assert_int_equal(p[i]->seq, 0);
		assert_null(p[i]->destructor);
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(p[i], p[j]);
	}
	/* Out: the pool refuses to go. */
	assert_false(txp_pkt_pool_destroy(pool));
	p[0]->seq = 77;
	txp_pkt_free(p[0]);
	p[4] = txp_pkt_pool_alloc(pool);
	assert_non_null(p[4]);
	assert_int_equal(p[4]->seq, 0);		/* zeroed again */
	assert_null(txp_pkt_pool_alloc(pool));
	for (int i = 1; i < 5; i++)
		txp_pkt_free(p[i]);
	assert_true(txp_pkt_pool_destroy(pool));
}

static void test_pool_unbounded_grows(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(0);
	struct txp_pkt *list = NULL;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		struct txp_pkt *p = txp_pkt_pool_alloc(pool);

		assert_non_null(p);
		p->next = list;
		list = p;
	}
	txp_pkt_free_list(list);
	assert_true(txp_pkt_pool_destroy(pool));
}

static atomic_uint destructed;

static void count_destructor(struct txp_pkt *pkt)
{
	(void)pkt;
	atomic_fetch_add(&destructed, 1);
}

/* A list mixing two pools and the heap, in runs and alone: every packet
 * goes home, each destructor runs once. */
static void test_free_list_mixed(void **state)
{
	struct txp_pkt_pool *a = txp_pkt_pool_create(8), *b = txp_pkt_pool_create(8);
	/* pool of each packet in list order: a a b heap a b b heap */
	const char *kinds = "aabhabbh";
	struct txp_pkt *list = NULL, **tail = &list;

	(void)state;
	atomic_store(&destructed, 0);
	for (const char *k = kinds; *k; k++) {
		struct txp_pkt *p = *k == 'a' ? txp_pkt_pool_alloc(a) :
				    *k == 'b' ? txp_pkt_pool_alloc(b) : txp_pkt_alloc();

		assert_non_null(p);
		p->destructor = count_destructor;
		*tail = p;
		tail = &p->next;
	}
	*tail = NULL;
	txp_pkt_free_list(list);
	assert_int_equal(atomic_load(&destructed), strlen(kinds));
	assert_true(txp_pkt_pool_destroy(a));
	assert_true(txp_pkt_pool_destroy(b));
}

/* Cross-thread frees: the owner takes packets back while two other
 * threads free its packets, one at a time and as lists.  Nothing lost,
 * nothing twice (TSan watches the hand-over). */
#define XFREE_CAP 256
#define XFREE_ROUNDS (TXP_TEST_TSAN ? 20 : 200)

struct freer {
	struct txp_pkt **pkts;
	unsigned n;
	bool as_list;
};

static void *freer_main(void *arg)
{
	struct freer *f = arg;

	if (f->as_list) {
		for (unsigned i = 0; i + 1 < f->n; i++)
			f->pkts[i]->next = f->pkts[i + 1];
		f->pkts[f->n - 1]->next = NULL;
		txp_pkt_free_list(f->pkts[0]);
	} else {
		for (unsigned i = 0; i < f->n; i++)
			txp_pkt_free(f->pkts[i]);
	}
	return NULL;
}

static void test_pool_cross_thread_frees(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(XFREE_CAP);
	struct txp_pkt *pkts[XFREE_CAP];

	(void)state;
	for (int round = 0; round < XFREE_ROUNDS; round++) {
		struct freer f[2] = {
			{ pkts, XFREE_CAP / 2, round & 1 },
			{ pkts + XFREE_CAP / 2, XFREE_CAP / 2, !(round & 1) },
		};
		pthread_t t[2];
		unsigned got = 0;

		assert_int_equal(txp_pkt_pool_alloc_bulk(pool, pkts, XFREE_CAP), XFREE_CAP);
		for (int i = 0; i < XFREE_CAP; i++)
			pkts[i]->seq = (uint64_t)i;
		assert_int_equal(pthread_create(&t[0], NULL, freer_main, &f[0]), 0);
		assert_int_equal(pthread_create(&t[1], NULL, freer_main, &f[1]), 0);
		/* Take them back as they come home, racing the frees; keep
		 * them in a second array (pkts is the freers'). */
		{
			struct txp_pkt *back[XFREE_CAP];

			while (got < XFREE_CAP)
				got += txp_pkt_pool_alloc_bulk(pool, back + got, XFREE_CAP - got);
			pthread_join(t[0], NULL);
			pthread_join(t[1], NULL);
			for (int i = 0; i < XFREE_CAP; i++)
				for (int j = 0; j < i; j += 17)
					assert_ptr_not_equal(back[i], back[j]);
			for (int i = 0; i < XFREE_CAP; i++)
				txp_pkt_free(back[i]);
		}
	}
	assert_true(txp_pkt_pool_destroy(pool));
}

/* -- the path, against a recording driver ------------------------------------ */

#define REC_MAX 256

struct rec {
	struct txp_dev *dev;
	unsigned busy_at;	/* call number (1-based) that stops and returns BUSY; 0 none */
	unsigned calls;
	uint64_t seq[REC_MAX];
	uint8_t more[REC_MAX];
	unsigned doorbells;
};

static enum txp_tx rec_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct rec *r = txp_dev_priv(txp_txq_dev(txq));
	unsigned call = ++r->calls;

	if (call == r->busy_at) {
		txp_netif_stop_queue(txq);
		r->doorbells++;		/* stopping: ring for what is posted */
		return TXP_TX_BUSY;
	}
	assert_true(call <= REC_MAX);
	r->seq[call - 1] = pkt->seq;
	r->more[call - 1] = pkt->xmit_more;
	if (!pkt->xmit_more)
		r->doorbells++;
	txp_pkt_complete(r->dev, pkt);
	return TXP_TX_OK;
}

static const struct txp_driver_ops rec_ops = {
	.name = "rec",
	.start_xmit = rec_start_xmit,
};

static struct txp_dev *rec_dev(struct rec *r, enum txp_lock_mode lock, unsigned bulk,
			       unsigned txqueuelen)
{
	struct txp_dev_cfg cfg = {
		.name = "rec0", .lock = lock, .ops = &rec_ops, .priv = r,
		.bulk = bulk, .txqueuelen = txqueuelen,
	};
	char err[128];

	memset(r, 0, sizeof(*r));
	r->dev = txp_dev_create(&cfg, err, sizeof(err));
	assert_non_null(r->dev);
	assert_int_equal(txp_dev_open(r->dev), 0);
	return r->dev;
}

static void make_burst(struct txp_pkt_pool *pool, struct txp_pkt **pkts, unsigned n, uint64_t seq0)
{
	assert_int_equal(txp_pkt_pool_alloc_bulk(pool, pkts, n), n);
	for (unsigned i = 0; i < n; i++)
		pkts[i]->seq = seq0 + i;
}

static void close_and_check(struct txp_dev *dev, struct txp_pkt_pool *pool)
{
	txp_dev_close(dev);
	txp_test_assert_accounted(dev);
	txp_dev_destroy(dev);
	assert_true(txp_pkt_pool_destroy(pool));
}

/* A burst of 8 with bulk 8: one batch, xmit_more on all but the last,
 * one doorbell, in order; with bulk 1 (2.6.x), no xmit_more at all. */
static void test_burst_bulk_xmit_more(void **state)
{
	static const enum txp_lock_mode locks[] = { TXP_LOCK_CORE, TXP_LOCK_LLTX };

	(void)state;
	for (int l = 0; l < 2; l++) {
		for (unsigned bulk = 1; bulk <= 8; bulk += 7) {
			struct txp_pkt_pool *pool = txp_pkt_pool_create(0);
			struct txp_pkt *pkts[8];
			struct rec r;
			struct txp_dev *dev = rec_dev(&r, locks[l], bulk, 0);
			struct txp_dev_stats st;

			make_burst(pool, pkts, 8, 100);
			assert_int_equal(txp_xmit_burst(dev, pkts, 8), 8);
			assert_int_equal(r.calls, 8);
			for (unsigned i = 0; i < 8; i++) {
				assert_int_equal(r.seq[i], 100 + i);
				assert_int_equal(r.more[i], bulk == 8 && i < 7);
			}
			assert_int_equal(r.doorbells, bulk == 8 ? 1 : 8);
			txp_dev_get_stats(dev, &st);
			assert_int_equal(st.submitted, 8);
			assert_int_equal(st.transmitted, 8);
			assert_int_equal(st.xmit_calls, 8);
			close_and_check(dev, pool);
		}
	}
}

/* An empty burst is nothing at all: in core mode it leaves the xmit lock
 * free, so the next packet goes straight to the driver. */
static void test_empty_burst(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(0);
	struct txp_pkt *pkts[1];
	struct rec r;
	struct txp_dev *dev = rec_dev(&r, TXP_LOCK_CORE, 8, 0);
	struct txp_dev_stats st;

	(void)state;
	assert_int_equal(txp_xmit_burst(dev, pkts, 0), 0);
	make_burst(pool, pkts, 1, 5);
	assert_int_equal(txp_xmit_burst(dev, pkts, 1), 1);
	assert_int_equal(r.calls, 1);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.submitted, 1);
	assert_int_equal(st.collisions, 0);
	close_and_check(dev, pool);
}

/* BUSY in the middle of a batch: the rest goes back in order, and goes
 * out in order once the queue is woken. */
static void test_busy_mid_batch_requeues_in_order(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(0);
	struct txp_pkt *pkts[8];
	struct rec r;
	struct txp_dev *dev = rec_dev(&r, TXP_LOCK_CORE, 8, 0);
	struct txp_dev_stats st;

	(void)state;
	r.busy_at = 3;
	make_burst(pool, pkts, 8, 0);
	assert_int_equal(txp_xmit_burst(dev, pkts, 8), 8);
	assert_int_equal(r.calls, 3);
	assert_int_equal(txp_dev_backlog(dev), 6);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.transmitted, 2);
	assert_int_equal(st.requeues, 6);
	assert_int_equal(st.tx_busy, 1);
	assert_int_equal(st.xmit_calls, 3);
	txp_netif_wake_queue(txp_dev_txq(dev, 0));
	txp_net_tx_action(dev);
	assert_int_equal(txp_dev_backlog(dev), 0);
	/* seq 0 1 sent, call 3 was the BUSY one, then 2..7 in order. */
	assert_int_equal(r.calls, 9);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(r.seq[i], i);
	for (unsigned i = 3; i < 9; i++)
		assert_int_equal(r.seq[i], i - 1);
	assert_int_equal(r.more[8], 0);
	close_and_check(dev, pool);
}

/* A stopped queue: a burst is queued up to the band's limit, the rest
 * dropped with its reason, and the device going down drops the queue. */
static void test_burst_over_limit_drops(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(0);
	struct txp_pkt *pkts[10];
	struct rec r;
	struct txp_dev *dev = rec_dev(&r, TXP_LOCK_LLTX, 4, 4);
	struct txp_dev_stats st;

	(void)state;
	txp_netif_stop_queue(txp_dev_txq(dev, 0));
	make_burst(pool, pkts, 10, 0);
	assert_int_equal(txp_xmit_burst(dev, pkts, 10), 4);
	assert_int_equal(r.calls, 0);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.dropped[TXP_DROP_QDISC_LIMIT], 6);
	txp_dev_close(dev);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.dropped[TXP_DROP_DEV_DOWN], 4);
	txp_test_assert_accounted(dev);
	txp_dev_destroy(dev);
	assert_true(txp_pkt_pool_destroy(pool));
}

/*
 * txp_xmit_burst_try: on a stopped queue the burst is taken up to the
 * band's limit and the rest stays the caller's, uncounted, untouched, to
 * send again once the queue drains; nothing is dropped.  A device that is
 * down takes nothing.
 */
static void test_burst_try_keeps_the_rest(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(0);
	struct txp_pkt *pkts[10];
	struct rec r;
	struct txp_dev *dev = rec_dev(&r, TXP_LOCK_CORE, 4, 4);
	struct txp_dev_stats st;

	(void)state;
	txp_netif_stop_queue(txp_dev_txq(dev, 0));
	make_burst(pool, pkts, 10, 0);
	assert_int_equal(txp_xmit_burst_try(dev, pkts, 10), 4);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.submitted, 4);
	assert_int_equal(st.dropped[TXP_DROP_QDISC_LIMIT], 0);
	for (unsigned i = 4; i < 10; i++)
		assert_int_equal(pkts[i]->seq, i);
	/* Woken, the queue drains; the rest goes as it fits (a band of 4
	 * at a time, drained by each call), in order. */
	txp_netif_wake_queue(txp_dev_txq(dev, 0));
	txp_net_tx_action(dev);
	assert_int_equal(txp_xmit_burst_try(dev, pkts + 4, 6), 4);
	assert_int_equal(txp_xmit_burst_try(dev, pkts + 8, 2), 2);
	assert_int_equal(txp_dev_backlog(dev), 0);
	assert_int_equal(r.calls, 10);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(r.seq[i], i);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.submitted, 10);
	assert_int_equal(st.transmitted, 10);
	txp_dev_close(dev);
	make_burst(pool, pkts, 2, 10);
	assert_int_equal(txp_xmit_burst_try(dev, pkts, 2), 0);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.submitted, 10);
	txp_pkt_free(pkts[0]);
	txp_pkt_free(pkts[1]);
	txp_test_assert_accounted(dev);
	txp_dev_destroy(dev);
	assert_true(txp_pkt_pool_destroy(pool));
}

/* On a device without a queue, what the driver refuses stays the caller's. */
static void test_burst_try_noqueue(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(0);
	struct txp_dev_cfg cfg = {
		.name = "rec0", .lock = TXP_LOCK_CORE, .ops = &rec_ops, .qdisc = &txp_noqueue_ops,
	};
	struct txp_pkt *pkts[6];
	struct txp_dev_stats st;
	char err[128];
	struct rec r;

	(void)state;
	memset(&r, 0, sizeof(r));
	cfg.priv = &r;
	r.dev = txp_dev_create(&cfg, err, sizeof(err));
	assert_non_null(r.dev);
	assert_int_equal(txp_dev_open(r.dev), 0);
	r.busy_at = 3;
	make_burst(pool, pkts, 6, 0);
	assert_int_equal(txp_xmit_burst_try(r.dev, pkts, 6), 2);
	txp_dev_get_stats(r.dev, &st);
	assert_int_equal(st.submitted, 2);
	assert_int_equal(st.dropped[TXP_DROP_VIRTUAL_BUSY], 0);
	for (unsigned i = 2; i < 6; i++)
		txp_pkt_free(pkts[i]);
	close_and_check(r.dev, pool);
}

/* Packets of two bands in one burst cannot bypass the qdisc: band 0 goes
 * first, whatever the order they came in. */
static void test_burst_mixed_bands_keeps_priority(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(0);
	struct txp_pkt *pkts[4];
	struct rec r;
	struct txp_dev *dev = rec_dev(&r, TXP_LOCK_CORE, 8, 0);

	(void)state;
	make_burst(pool, pkts, 4, 0);
	pkts[0]->priority = 1;	/* band 2 */
	pkts[1]->priority = 1;
	pkts[2]->priority = 6;	/* band 0 */
	pkts[3]->priority = 6;
	assert_int_equal(txp_pfifo_fast_band(1), 2);
	assert_int_equal(txp_pfifo_fast_band(6), 0);
	assert_int_equal(txp_xmit_burst(dev, pkts, 4), 4);
	assert_int_equal(r.calls, 4);
	assert_int_equal(r.seq[0], 2);
	assert_int_equal(r.seq[1], 3);
	assert_int_equal(r.seq[2], 0);
	assert_int_equal(r.seq[3], 1);
	close_and_check(dev, pool);
}

/* -- the null driver, through the workload ----------------------------------- */

/* Run cfg; it must finish, with every packet submitted and accounted. */
static void run_accounted(const struct txp_run_cfg *cfg, struct txp_run_result *res)
{
	char err[256];

	assert_int_equal(txp_run(cfg, res, err, sizeof(err)), 0);
	assert_false(res->stalled);
	assert_true(res->accounted);
	assert_int_equal(res->dev.submitted, cfg->packets);
	assert_int_equal(res->lost, 0);
}

static void run_null(enum txp_lock_mode lock, enum txp_runner runner, unsigned threads,
		     unsigned sndbuf)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;

	txp_run_cfg_init(&cfg);
	cfg.driver = txp_run_driver("null");
	assert_non_null(cfg.driver);
	cfg.lock = lock;
	cfg.runner = runner;
	cfg.threads = threads;
	cfg.sndbuf = sndbuf;
	cfg.packets = TXP_TEST_TSAN ? 20000 : 200000;
	run_accounted(&cfg, &res);
	assert_false(res.drv.wire_measured);
	/* Within their send buffers the producers never fill the qdisc;
	 * without one (sndbuf 0) they may, and the excess is dropped with
	 * its reason. */
	if (sndbuf && sndbuf * threads < cfg.txqueuelen)
		assert_int_equal(res.dev.transmitted, cfg.packets);
	assert_int_equal(res.dev.transmitted + res.dev.dropped[TXP_DROP_QDISC_LIMIT],
			 cfg.packets);
}

static void test_null_driver_runs(void **state)
{
	(void)state;
	run_null(TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, 2, 256);
	run_null(TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, 3, 256);
	run_null(TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, 2, 0);
	run_null(TXP_LOCK_LLTX, TXP_RUNNER_EXCLUSIVE, 2, 1);	/* one packet in flight */
}

/* The simulated NIC at full speed: pools drain through its completion
 * context (frees from another thread), the wire sees each packet once. */
static void test_sim_with_pools(void **state)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;

	(void)state;
	txp_run_cfg_init(&cfg);
	cfg.threads = 2;
	cfg.sndbuf = 64;
	cfg.packets = TXP_TEST_TSAN ? 20000 : 200000;
	run_accounted(&cfg, &res);
	txp_test_assert_run_clean(&res);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_capacity_is_a_send_buffer),
		cmocka_unit_test(test_pool_unbounded_grows),
		cmocka_unit_test(test_free_list_mixed),
		cmocka_unit_test(test_pool_cross_thread_frees),
		cmocka_unit_test(test_burst_bulk_xmit_more),
		cmocka_unit_test(test_empty_burst),
		cmocka_unit_test(test_busy_mid_batch_requeues_in_order),
		cmocka_unit_test(test_burst_over_limit_drops),
		cmocka_unit_test(test_burst_try_keeps_the_rest),
		cmocka_unit_test(test_burst_try_noqueue),
		cmocka_unit_test(test_burst_mixed_bands_keeps_priority),
		cmocka_unit_test(test_null_driver_runs),
		cmocka_unit_test(test_sim_with_pools),
	};

	return txp_test_main(argc, argv, tests);
}
