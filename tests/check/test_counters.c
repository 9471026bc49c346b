/*
 * test_counters.c - single-writer counters in the check build: a second
 * context writing one (txp_counter_add, a load and a store: increments
 * get lost) is a violation the explorer names, with its schedule; a
 * shared counter (txp_counter_add_shared) is not; and the counters the
 * LLTX race path bumps from several producers (the sim's ring_full_*,
 * ring_errors; the real drivers' ring, its dropped_down from producers
 * that find the device dead) are shown by the explorer never to report.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "check/runtime/runtime.h"
#include "check/search/policy.h"
#include "drivers/common/ring.h"
#include "sync/sync.h"
#include "txpath/driver.h"
#include "check/explore.h"
#include "run/run.h"

#define MAX_STEPS 100000

static _Atomic uint64_t counter;
static atomic_int arrived, expected;

/* Wait until every context of the execution is attached: two contexts
 * alive at once, not one context id handed on from the first to the
 * second (that is one writer after another, ordered). */
static void attach_all(void)
{
	txp_ctx_attach();
	txp_fetch_add(&arrived, 1);
	while (txp_load_acquire(&arrived) < atomic_load(&expected))
		txp_cpu_relax();
}

static void *add_single(void *arg)
{
	(void)arg;
	attach_all();
	txp_counter_add(&counter, 1);
	txp_counter_add(&counter, 1);
	txp_ctx_detach();
	return NULL;
}

static void *add_shared(void *arg)
{
	(void)arg;
	attach_all();
	txp_counter_add_shared(&counter, 1);
	txp_counter_add_shared(&counter, 1);
	txp_ctx_detach();
	return NULL;
}

/* Run the contexts fn (n of them) to the end under the default plan;
 * the conflict message into msg, or false. */
static bool run_contexts(void *(*fn)(void *), int n, char *msg, size_t len)
{
	struct rt_plan plan = { 0 };
	bool conflict;

	atomic_store(&counter, 0);
	atomic_store(&arrived, 0);
	atomic_store(&expected, n);
	rt_begin(&plan, RT_SC, MAX_STEPS);
	for (int i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "CPU %d", i + 1);
		assert_true(rt_spawn(name, fn, NULL) >= 0);
	}
	assert_int_equal(rt_run(), RT_QUIESCENT);
	conflict = rt_counter_conflict(msg, len);
	rt_release();
	rt_finish();
	assert_int_equal(atomic_load(&counter), 2u * (unsigned)n);
	return conflict;
}

static void test_two_writers_reported(void **state)
{
	char msg[256] = "";

	(void)state;
	assert_true(run_contexts(add_single, 2, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "single-writer counter counter written by CPU"));
	assert_non_null(strstr(msg, "CPU 1"));
	assert_non_null(strstr(msg, "CPU 2"));
}

static void test_one_writer_not_reported(void **state)
{
	char msg[256] = "";

	(void)state;
	assert_false(run_contexts(add_single, 1, msg, sizeof(msg)));
}

static void test_shared_not_reported(void **state)
{
	char msg[256] = "";

	(void)state;
	assert_false(run_contexts(add_shared, 2, msg, sizeof(msg)));
}

/* The conflict of one execution is forgotten by the next. */
static void test_forgotten_next_execution(void **state)
{
	char msg[256] = "";

	(void)state;
	assert_true(run_contexts(add_single, 2, msg, sizeof(msg)));
	assert_false(run_contexts(add_single, 1, msg, sizeof(msg)));
}

/* 2.6.11, three producers: ring full on a stopped queue, seen by several
 * producers in turn (the sim's ring_full_stopped).  Single-writer adds
 * there were reported within the first few hundred random schedules. */
static void test_sim_race_path_clean(void **state)
{
	const struct txp_era *e = txp_era_lookup("2.6.11");
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	char err[256] = "";

	(void)state;
	assert_non_null(e);
	txp_explore_cfg_init(&cfg);
	cfg.lock = e->lock;
	cfg.runner = e->runner;
	cfg.personality = txp_sim_personality(e->personality);
	cfg.producers = 3;
	cfg.packets = 3;
	cfg.strategy = TXP_EXPLORE_RANDOM;
	cfg.runs = TXP_TEST_TSAN ? 200 : 3000;
	cfg.seed = 1;
	assert_int_equal(txp_explore_run(&cfg, &res, err, sizeof(err)), 0);
	if (res.found)
		fail_msg("%s: %s (schedule %s)", res.kind, res.detail, res.schedule);
	assert_true(res.xmit_on_stopped_reachable);
	txp_explore_result_free(&res);
}

/* -- the real drivers' ring, its device dead, two LLTX producers --------- */

static int dead_post(struct ring *r, uint64_t idx, struct txp_pkt *pkt)
{
	return txp__ring_post_in_slot(r, idx, pkt);
}

/* Nothing is ever posted to a dead device; were it, it would stay. */
static int dead_reap(struct ring *r, uint64_t cons, uint64_t prod)
{
	(void)r;
	(void)cons;
	(void)prod;
	return -ENETDOWN;
}

static const struct ring_ops dead_ops = {
	.name = "dead",
	.post = dead_post,
	.reap = dead_reap,
};

static const struct txp_driver_ops dead_driver_ops = {
	.name = "dead",
	.open = txp__ring_open,
	.stop = txp__ring_stop,
	.start_xmit = txp__ring_start_xmit,
};

static struct txp_dev *dead_dev;

static void *send_two(void *arg)
{
	(void)arg;
	txp_ctx_attach();
	for (int i = 0; i < 2; i++) {
		struct txp_pkt *pkt = txp_pkt_alloc();

		if (!pkt)
			break;
		pkt->len = 64;
		txp_dev_queue_xmit(dead_dev, pkt);
	}
	txp_ctx_detach();
	return NULL;
}

/* The ring's counters now. */
static struct txp__ring_stats ring_stat(struct ring *r)
{
	struct txp__ring_stats st;

	txp__ring_get_stats(r, &st);
	return st;
}

/* One execution under a random plan: no counter conflict, every packet
 * dropped as dev-down and counted by the ring. */
static void ring_dead_once(uint64_t seed)
{
	struct policy_random random;
	struct rt_plan plan = { .policy = &random.p };
	struct ring_cfg rc = { .ops = &dead_ops, .slots = 4, .slot_size = 64, .max_len = 64 };
	struct txp_dev_cfg dcfg = { .name = "dead0", .lock = TXP_LOCK_LLTX, .ops = &dead_driver_ops };
	struct txp_dev_stats st;
	char err[128], msg[256] = "";
	struct ring *r;
	bool conflict;

	policy_random_init(&random, seed);
	rt_begin(&plan, RT_SC, MAX_STEPS);
	r = txp__ring_create(&rc, err, sizeof(err));
	assert_non_null(r);
	txp__ring_die(r, TXP_DROP_DEV_DOWN, "link down (test)");
	dcfg.priv = r;
	dead_dev = txp_dev_create(&dcfg, err, sizeof(err));
	assert_non_null(dead_dev);
	assert_int_equal(txp_dev_open(dead_dev), 0);
	assert_true(rt_spawn("CPU 1", send_two, NULL) >= 0);
	assert_true(rt_spawn("CPU 2", send_two, NULL) >= 0);
	assert_int_equal(rt_run(), RT_QUIESCENT);
	conflict = rt_counter_conflict(msg, sizeof(msg));
	rt_release();
	txp_dev_close(dead_dev);
	rt_finish();
	txp_dev_get_stats(dead_dev, &st);
	if (conflict)
		fail_msg("seed %llu: %s", (unsigned long long)seed, msg);
	assert_int_equal(st.submitted, 4);
	assert_int_equal(st.dropped[TXP_DROP_DEV_DOWN], 4);
	assert_int_equal(ring_stat(r).dropped_down, 4);
	txp_dev_destroy(dead_dev);
	txp__ring_destroy(r);
}

static void test_ring_dead_lltx_clean(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= (TXP_TEST_TSAN ? 20 : 300); seed++)
		ring_dead_once(seed);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_writers_reported),
		cmocka_unit_test(test_one_writer_not_reported),
		cmocka_unit_test(test_shared_not_reported),
		cmocka_unit_test(test_forgotten_next_execution),
		cmocka_unit_test(test_sim_race_path_clean),
		cmocka_unit_test(test_ring_dead_lltx_clean),
	};

	return txp_test_main(argc, argv, tests);
}
