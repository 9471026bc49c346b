/*
 * test_defer_try.c - a tried burst on 6.18's defer list (TXP_DEFER_LINUX).
 *
 * txp_xmit_burst_try() cannot push (what it does not take stays the
 * caller's), so it takes the root lock and first queues what the list
 * holds (txp__defer_take()).  The producer that found the list empty,
 * and pushed, may then find when it gets the root lock a list of other
 * packets: its own were sent and freed meanwhile, and their memory handed
 * out again to a third producer, who pushed them.  Each packet must still
 * reach the driver once: the first producer may send its burst by the
 * bypass only if the list it takes is that burst, whole (before: it
 * compared the list's head with its newest packet's address, sent a
 * packet twice and lost another).
 *
 * Deterministic: a lock observer holds a producer just before the root
 * lock until the test lets it go.  The packets come from one pool, its
 * owner (the test's thread) allocating them, so that freed packets come
 * back at once.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "sync/sync.h"
#include "txpath/ctx.h"
#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/pkt.h"

#define SEQS 512

/* Which producer this thread is (0: none), and the holds on each. */
static _Thread_local int producer;
static atomic_bool hold[3], held[3];

/* Each seq's arrivals at the driver. */
static _Atomic unsigned arrived[SEQS];

static bool before_lock(const struct txp_spinlock *l, const char *site)
{
	(void)site;
	if (producer && !strcmp(l->name, "queue lock") && atomic_load(&hold[producer])) {
		atomic_store(&held[producer], true);
		while (atomic_load(&hold[producer]))
			txp_thread_yield();
	}
	return false;
}

static struct txp_sync_observer observer = { .order = 50, .lock_recursion = before_lock };

/* Synchronization: the xmit lock (core mode).  Context: any.  Return
 * codes: always TXP_TX_OK (each packet counted and completed). */
static enum txp_tx count_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	atomic_fetch_add(&arrived[pkt->seq % SEQS], 1);
	txp_pkt_complete(txp_txq_dev(txq), pkt);
	return TXP_TX_OK;
}

static const struct txp_driver_ops count_ops = { .name = "count", .start_xmit = count_xmit };

struct burst {
	struct txp_dev *dev;
	int id;
	struct txp_pkt *pkts[2];
};

static void *send_burst(void *arg)
{
	struct burst *b = arg;

	producer = b->id;
	txp_ctx_attach();
	txp_xmit_burst(b->dev, b->pkts, 2);
	txp_ctx_detach();
	return NULL;
}

static struct txp_pkt *packet(struct txp_pkt_pool *pool, unsigned seq)
{
	struct txp_pkt *p = txp_pkt_pool_alloc(pool);

	assert_non_null(p);
	p->seq = seq;
	p->len = p->head_len = 60;
	return p;
}

/* Start b's producer and wait until it waits before the root lock. */
static void start_held(struct burst *b, pthread_t *t)
{
	atomic_store(&hold[b->id], true);
	assert_int_equal(pthread_create(t, NULL, send_burst, b), 0);
	while (!atomic_load(&held[b->id]))
		txp_thread_yield();
}

static void test_tried_burst_reuse(void **state)
{
	struct txp_dev_cfg cfg = { .name = "defer-try", .lock = TXP_LOCK_CORE,
				   .runner = TXP_RUNNER_EXCLUSIVE, .ops = &count_ops,
				   .defer = TXP_DEFER_LINUX, .bulk = 4 };
	struct burst first = { .id = 1 }, third = { .id = 2 };
	struct txp_pkt_pool *pool;
	struct txp_pkt *tried;
	pthread_t t1, t3;
	char err[128];

	(void)state;
	txp_ctx_attach();
	first.dev = third.dev = txp_dev_create(&cfg, err, sizeof(err));
	assert_non_null(first.dev);
	assert_int_equal(txp_dev_open(first.dev), 0);
	pool = txp_pkt_pool_create(0);
	assert_non_null(pool);
	txp_sync_observe(&observer);

	/* The first producer pushes its burst onto the empty list, and
	 * waits before the root lock. */
	first.pkts[0] = packet(pool, 100);
	first.pkts[1] = packet(pool, 101);
	start_held(&first, &t1);
	/* A tried packet takes the list, sending the first burst; its
	 * packets come home to the pool. */
	tried = packet(pool, 300);
	assert_int_equal(txp_xmit_burst_try(first.dev, &tried, 1), 1);
	/* A third producer's burst, from the same memory, newest at the
	 * first burst's newest address, pushed: it waits too. */
	third.pkts[0] = packet(pool, 200);
	third.pkts[1] = packet(pool, 201);
	if (third.pkts[1] != first.pkts[1]) {
		struct txp_pkt *p = third.pkts[0];

		third.pkts[0] = third.pkts[1];
		third.pkts[1] = p;
		third.pkts[0]->seq = 200;
		third.pkts[1]->seq = 201;
	}
	assert_ptr_equal(third.pkts[1], first.pkts[1]);
	start_held(&third, &t3);
	/* The first producer takes the list: the third's, not its own. */
	atomic_store(&hold[1], false);
	assert_int_equal(pthread_join(t1, NULL), 0);
	atomic_store(&hold[2], false);
	assert_int_equal(pthread_join(t3, NULL), 0);

	txp_sync_unobserve(&observer);
	for (unsigned seq = 100; seq < 102; seq++)
		assert_int_equal(atomic_load(&arrived[seq]), 1);
	for (unsigned seq = 200; seq < 202; seq++)
		assert_int_equal(atomic_load(&arrived[seq]), 1);
	assert_int_equal(atomic_load(&arrived[300]), 1);
	txp_dev_close(first.dev);
	txp_test_assert_accounted(first.dev);
	txp_dev_destroy(first.dev);
	assert_true(txp_pkt_pool_destroy(pool));
	txp_ctx_detach();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tried_burst_reuse),
	};

	return txp_test_main(argc, argv, tests);
}
