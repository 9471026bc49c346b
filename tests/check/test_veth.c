/*
 * test_veth.c - veth's qdisc backpressure (Linux 6.16) and its lost
 * wakeup on ARM64 (CVE-2025-68232), through the schedule explorer on the
 * real code (check build; the personalities are src/drivers/sim/veth.c).
 *
 * The scenario: the core's xmit lock, one runner per queue (the modern
 * qdisc's), 2 producers x 2 packets into the smallest ring (3), whose
 * consumer is the peer's NAPI poll.  6.16's producer stops the queue and
 * tests the consumer-side emptiness; its consumer tests "stopped" in its
 * receive loop with no barrier after consuming: a stall under arm, one
 * preemption away, and nothing under sc or tso (where the poll's locked
 * accounting orders the consuming before the test).  The fix (the
 * producer stops and kicks NAPI, the consumer wakes once per poll after
 * smp_rmb) is proved under all three.  make test proves to bound 2;
 * make prove (scripts/prove.sh) to bound 3.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "checkutil.h"
#include "check/explore.h"

/* ThreadSanitizer makes each fresh context cost a millisecond: bound 2
 * (a quarter of a million schedules under arm) would take minutes a case
 * there, so it proves to bound 1, and so does AddressSanitizer (a minute
 * of its make test at 2); the plain build proves them at 2. */
#if TXP_TEST_TSAN || TXP_TEST_ASAN
#define PROOF_BOUND 1
#else
#define PROOF_BOUND 2
#endif

/* The producer that stops the queue in the stall found (contexts: the
 * completion, then CPU 1 and CPU 2). */
#define PRODUCER_CTX 2

enum model { SC, TSO, ARM };

static const char *const model_name[] = { "sc", "tso", "arm" };

static void veth_cfg(struct txp_explore_cfg *cfg, const char *personality, enum model mm,
		     unsigned bound)
{
	txp_explore_cfg_init(cfg);
	cfg->lock = TXP_LOCK_CORE;
	cfg->runner = TXP_RUNNER_EXCLUSIVE;
	cfg->personality = txp_sim_personality(personality);
	assert_non_null(cfg->personality);
	cfg->tso = mm == TSO;
	cfg->arm = mm == ARM;
	cfg->bound = bound;
}

/* Does column col of res's diagram show text? */
static bool saw_in(const struct txp_explore_result *res, int col, const char *text)
{
	for (unsigned i = 0; i < res->nevents; i++)
		if ((col < 0 || res->events[i].column == col) && strstr(res->events[i].text, text))
			return true;
	return false;
}

static int column_of(const struct txp_explore_result *res, const char *name)
{
	for (int c = 0; c < res->ncolumns; c++)
		if (strstr(res->columns[c], name))
			return c;
	fail_msg("no column %s", name);
	return -1;
}

/* 6.16 under arm: a stall with the queue stopped, the ring empty (nothing
 * in flight), one preemption away; the producer stopped the queue after
 * the consumer reclaimed the ring, and nobody woke it.  Replayed exactly. */
static void test_2025_stall_arm(void **state)
{
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;

	(void)state;
	veth_cfg(&cfg, "veth-6.16", ARM, 1);
	explore(&cfg, &res);
	if (!res.found)
		fail_msg("veth-6.16 under arm: no violation in %llu schedules",
			 (unsigned long long)res.schedules);
	assert_string_equal(res.kind, "stall");
	assert_int_equal(res.preemptions, 1);
	assert_non_null(strstr(res.detail, "0 in the driver's ring, queue stopped, no context left"));
	assert_true(saw_in(&res, column_of(&res, "IRQ"), "reclaim descriptors"));
	assert_true(saw_in(&res, column_of(&res, "CPU 2"), "ring full, netif_tx_stop_queue()"));
	assert_false(saw_in(&res, -1, "netif_wake_queue()"));
	txp_test_expect_replay(&cfg, &res);
	txp_explore_result_free(&res);
}

/* 6.16 under sc and tso: no violation within the bound. */
static void expect_2025_clean(enum model mm)
{
	struct txp_explore_cfg cfg;

	veth_cfg(&cfg, "veth-6.16", mm, PROOF_BOUND);
	expect_proved(&cfg, model_name[mm], false);
}

static void test_2025_clean_sc(void **state)
{
	(void)state;
	expect_2025_clean(SC);
}

static void test_2025_clean_tso(void **state)
{
	(void)state;
	expect_2025_clean(TSO);
}

/* The fix, proved under each model. */
static void expect_fix_proved(enum model mm)
{
	struct txp_explore_cfg cfg;

	veth_cfg(&cfg, "veth", mm, PROOF_BOUND);
	expect_proved(&cfg, model_name[mm], false);
}

static void test_fix_proved_sc(void **state)
{
	(void)state;
	expect_fix_proved(SC);
}

static void test_fix_proved_tso(void **state)
{
	(void)state;
	expect_fix_proved(TSO);
}

static void test_fix_proved_arm(void **state)
{
	(void)state;
	expect_fix_proved(ARM);
}

/*
 * Not a vacuous proof: under arm, the second producer run early at each
 * branch point in turn does, somewhere, find the ring full and stop the
 * queue, and the consumer (NAPI) wakes it: nothing is found.
 */
static void test_fix_consumer_wakes_stopped(void **state)
{
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	char sched[32], err[256];
	bool seen = false;

	(void)state;
	veth_cfg(&cfg, "veth", ARM, 1);
	cfg.replay = sched;
	for (unsigned i = 0; i < 200 && !seen; i++) {
		snprintf(sched, sizeof(sched), "%u:%d", i, PRODUCER_CTX);
		if (txp_explore_run(&cfg, &res, err, sizeof(err)) == -EINVAL)
			continue;	/* the producer cannot run there */
		seen = saw_in(&res, -1, "ring full, netif_tx_stop_queue()") &&
		       saw_in(&res, column_of(&res, "IRQ"), "netif_wake_queue()");
		if (seen)
			assert_false(res.found);
		txp_explore_result_free(&res);
	}
	assert_true(seen);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2025_stall_arm),
		cmocka_unit_test(test_2025_clean_sc),
		cmocka_unit_test(test_2025_clean_tso),
		cmocka_unit_test(test_fix_proved_sc),
		cmocka_unit_test(test_fix_proved_tso),
		cmocka_unit_test(test_fix_proved_arm),
		cmocka_unit_test(test_fix_consumer_wakes_stopped),
	};

	return txp_test_main(argc, argv, tests);
}
