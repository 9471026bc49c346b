/*
 * test_ctx.c - contexts past TXP_MAX_CTX: the library neither aborts nor
 * prints.  An explicit attach with every id taken returns -EBUSY, and
 * succeeds once an id is given back; a thread whose first call attaches
 * lazily waits in that call for an id, then goes on.  The library's own
 * threads (completion contexts) have ids of their own: they never take
 * the callers', so a run with 64 queues has ids left for its producers.
 *
 * Holder threads attach and keep their id until the test lets them go.
 * Threads synchronise through C11 atomics only; cmocka asserts are made
 * from the test's main thread.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/ctx.h"
#include "txpath/dev.h"
#include "txpath/driver.h"
#include "sync/sync.h"

struct holder {
	pthread_t tid;
	atomic_int id;		/* -2 until attached */
	atomic_bool release;	/* set by the test: detach (by exiting) */
};

static struct holder holders[TXP_MAX_CTX];

static void *hold(void *arg)
{
	struct holder *h = arg;

	atomic_store(&h->id, txp_ctx_attach());
	while (!atomic_load(&h->release))
		sched_yield();
	return NULL;	/* the id goes back at thread exit */
}

/* Every id taken by a holder; their ids all distinct. */
static void hold_all(void)
{
	bool seen[TXP_MAX_CTX] = { false };

	for (int i = 0; i < TXP_MAX_CTX; i++) {
		atomic_store(&holders[i].id, -2);
		atomic_store(&holders[i].release, false);
		assert_int_equal(pthread_create(&holders[i].tid, NULL, hold, &holders[i]), 0);
	}
	for (int i = 0; i < TXP_MAX_CTX; i++) {
		int id;

		while ((id = atomic_load(&holders[i].id)) == -2)
			sched_yield();
		assert_in_range(id, 0, TXP_MAX_CTX - 1);
		assert_false(seen[id]);
		seen[id] = true;
	}
}

static void release(int i)
{
	atomic_store(&holders[i].release, true);
	assert_int_equal(pthread_join(holders[i].tid, NULL), 0);
}

static void test_attach_past_the_limit_is_ebusy(void **state)
{
	(void)state;
	hold_all();
	assert_int_equal(txp_ctx_attach(), -EBUSY);
	assert_int_equal(txp_ctx_attach(), -EBUSY);
	release(7);
	int id = txp_ctx_attach();
	assert_int_equal(id, atomic_load(&holders[7].id));
	assert_int_equal(txp_ctx_attach(), id);	/* attached already: the same id */
	txp_ctx_detach();
	for (int i = 0; i < TXP_MAX_CTX; i++)
		if (i != 7)
			release(i);
}

/* A driver that completes every packet at once. */
static enum txp_tx done_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	txp_pkt_complete(txp_txq_dev(txq), pkt);
	return TXP_TX_OK;
}

static const struct txp_driver_ops done_ops = { .name = "done", .start_xmit = done_xmit };

static atomic_int sent;	/* the late thread's queue_xmit returned */

static void *send_one(void *arg)
{
	struct txp_pkt *pkt = txp_pkt_alloc();

	if (pkt) {
		pkt->len = 64;
		txp_dev_queue_xmit(arg, pkt);	/* attaches lazily: the 65th context */
	}
	atomic_store(&sent, pkt ? 1 : -1);
	return NULL;
}

static void test_lazy_attach_waits_for_an_id(void **state)
{
	struct txp_dev_cfg cfg = { .name = "ctx0", .lock = TXP_LOCK_CORE, .ops = &done_ops };
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	struct txp_dev_stats st;
	char err[128];
	struct txp_dev *dev = txp_dev_create(&cfg, err, sizeof(err));
	pthread_t late;

	(void)state;
	assert_non_null(dev);
	assert_int_equal(txp_dev_open(dev), 0);
	hold_all();
	atomic_store(&sent, 0);
	assert_int_equal(pthread_create(&late, NULL, send_one, dev), 0);
	nanosleep(&pause, NULL);
	assert_int_equal(atomic_load(&sent), 0);	/* still waiting for an id */
	release(TXP_MAX_CTX - 1);
	assert_int_equal(pthread_join(late, NULL), 0);
	assert_int_equal(atomic_load(&sent), 1);
	for (int i = 0; i < TXP_MAX_CTX - 1; i++)
		release(i);
	txp_dev_close(dev);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.submitted, 1);
	assert_int_equal(st.transmitted, 1);
	txp_dev_destroy(dev);
}

/* An internal thread: its id, then it waits until the test lets go. */
static atomic_int internal_ids[TXP__CTX_INTERNAL];
static atomic_bool internal_release;

static void *internal_hold(void *arg)
{
	atomic_store((atomic_int *)arg, txp_ctx_self());
	while (!atomic_load(&internal_release))
		sched_yield();
	return NULL;
}

static void test_internal_threads_have_ids_of_their_own(void **state)
{
	static struct txp_thread t[TXP__CTX_INTERNAL + 1];

	(void)state;
	txp_ctx_detach();	/* this thread's id, if a case before gave it one */
	hold_all();
	atomic_store(&internal_release, false);
	for (int i = 0; i < TXP__CTX_INTERNAL; i++) {
		atomic_store(&internal_ids[i], -2);
		assert_int_equal(txp_thread_start_internal(&t[i], NULL, internal_hold,
							   &internal_ids[i]), 0);
	}
	for (int i = 0; i < TXP__CTX_INTERNAL; i++) {
		int id;

		while ((id = atomic_load(&internal_ids[i])) == -2)
			sched_yield();
		assert_in_range(id, TXP_MAX_CTX, TXP__CTX_IDS - 1);
	}
	/* Every id of both ranges taken: no thread, no wait. */
	assert_int_equal(txp_thread_start_internal(&t[TXP__CTX_INTERNAL], NULL, internal_hold,
						   &internal_ids[0]), EBUSY);
	atomic_store(&internal_release, true);
	for (int i = 0; i < TXP__CTX_INTERNAL; i++)
		txp_thread_join(&t[i]);
	/* The callers' ids were never touched: still all held. */
	assert_int_equal(txp_ctx_attach(), -EBUSY);
	for (int i = 0; i < TXP_MAX_CTX; i++)
		release(i);
}

/* txpath run --era 6.x --queues 64: 64 completion contexts and the
 * producers; it used to hang, the producers waiting for ids for ever. */
static void test_run_with_64_queues(void **state)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	char err[256];

	(void)state;
	txp_run_cfg_init(&cfg);
	assert_true(txp_run_cfg_era(&cfg, "6.x"));
	cfg.queues = TXP_DEV_MAX_QUEUES;
	cfg.threads = 2;
	cfg.packets = 20000;
	assert_int_equal(txp_run(&cfg, &res, err, sizeof(err)), 0);
	assert_false(res.stalled);
	assert_true(res.accounted);
	assert_int_equal(res.dev.submitted, cfg.packets);
	assert_int_equal(res.dev.transmitted, cfg.packets);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_past_the_limit_is_ebusy),
		cmocka_unit_test(test_lazy_attach_waits_for_an_id),
		cmocka_unit_test(test_internal_threads_have_ids_of_their_own),
		cmocka_unit_test(test_run_with_64_queues),
	};

	return txp_test_main(argc, argv, tests);
}
