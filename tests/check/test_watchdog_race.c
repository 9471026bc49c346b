/*
 * test_watchdog_race.c - the watchdog against BQL (Linux's 2024 fix "net:
 * fix races in netdev_tx_sent_queue()/dev_watchdog()"), in the explorer
 * with the watchdog as one more context (check build).
 *
 * The scenario: the modern driver on one queue with BQL, one producer
 * sending two packets (the first crosses BQL's limit, so the stack stops
 * the queue), on a device idle for ten timeouts when the contexts start.
 * With the old order (modern-2023: the XOFF bit set before trans_start
 * is written) the watchdog resets a queue that has just stopped: a false
 * timeout, one preemption away.  With today's order it never fires,
 * though it does see the queue stopped.
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
#include "checkutil.h"
#include "check/explore.h"

/* The fixed order's proof: bound 2 here (under a second for sc, about
 * one for tso); make prove runs bound 3.  ThreadSanitizer makes each
 * fresh context cost a millisecond: bound 1 there. */
#if TXP_TEST_TSAN
#define PROOF_BOUND 1
#else
#define PROOF_BOUND 2
#endif

/* The watchdog's context: after the completion context (0) and the
 * producer (1). */
#define WATCHDOG_CTX 2

static void watchdog_cfg(struct txp_explore_cfg *cfg, const char *personality, bool tso)
{
	txp_explore_cfg_init(cfg);
	cfg->lock = TXP_LOCK_CORE;
	cfg->runner = TXP_RUNNER_EXCLUSIVE;
	cfg->personality = txp_sim_personality(personality);
	assert_non_null(cfg->personality);
	cfg->bql = true;
	cfg->producers = 1;
	cfg->packets = 2;
	cfg->watchdog = true;
	cfg->tso = tso;
	cfg->bound = PROOF_BOUND;
}

static bool saw(const struct txp_explore_result *res, const char *text)
{
	for (unsigned i = 0; i < res->nevents; i++)
		if (strstr(res->events[i].text, text))
			return true;
	return false;
}

/* The old order: found, drawn up to the watchdog's line, and replayed. */
static void expect_false_timeout(bool tso)
{
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;

	watchdog_cfg(&cfg, "modern-2023", tso);
	cfg.bound = 1;
	explore(&cfg, &res);
	if (!res.found)
		fail_msg("modern-2023 (%s): no violation in %llu schedules", tso ? "tso" : "sc",
			 (unsigned long long)res.schedules);
	assert_string_equal(res.kind, "false-timeout");
	assert_int_equal(res.preemptions, 1);
	assert_non_null(strstr(res.detail, "stopped for 0 ms at most"));
	assert_true(saw(&res, "STACK_XOFF set"));
	assert_true(res.nevents > 0);
	assert_string_equal(res.events[res.nevents - 1].text, "NETDEV WATCHDOG");
	/* The stamp came too late: the watchdog ran before it (under tso
	 * it may have run, its store still in CPU 1's buffer). */
	if (!tso)
		assert_false(saw(&res, "txq_trans_update()"));

	txp_test_expect_replay(&cfg, &res);
	txp_explore_result_free(&res);
}

/* On two queues (6.x's default) each completion context has a column of
 * its own, and every event is drawn in a column that exists:
 * before, only the last "IRQ" got one, and the first's events were drawn
 * in whatever column its slot held (a crash, or a line of gigabytes). */
static void test_two_completions_drawn(void **state)
{
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	unsigned irq = 0;

	(void)state;
	watchdog_cfg(&cfg, "modern-2023", false);
	cfg.producers = 2;
	cfg.queues = 2;
	cfg.bound = 1;
	explore(&cfg, &res);
	assert_true(res.found);
	for (int c = 0; c < res.ncolumns; c++) {
		assert_true(res.columns[c][0] != '\0');
		irq += strstr(res.columns[c], "(completion)") != NULL;
	}
	/* One per queue, and one more for each the reset started anew. */
	assert_true(irq >= 2);
	for (int c = 1; c < res.ncolumns; c++)
		assert_string_not_equal(res.columns[c - 1], res.columns[c]);
	for (unsigned i = 0; i < res.nevents; i++)
		assert_in_range(res.events[i].column, 0, res.ncolumns - 1);
	txp_explore_result_free(&res);
}

static void test_old_order_false_timeout_sc(void **state)
{
	(void)state;
	expect_false_timeout(false);
}

static void test_old_order_false_timeout_tso(void **state)
{
	(void)state;
	expect_false_timeout(true);
}

/* The fixed order: proved within the bound. */
static void expect_fixed_proved(bool tso)
{
	struct txp_explore_cfg cfg;

	watchdog_cfg(&cfg, "modern", tso);
	expect_none(&cfg, tso ? "modern (tso)" : "modern (sc)");
}

static void test_fixed_order_proved_sc(void **state)
{
	(void)state;
	expect_fixed_proved(false);
}

static void test_fixed_order_proved_tso(void **state)
{
	(void)state;
	expect_fixed_proved(true);
}

/*
 * Not a vacuous proof: with the fixed order, the watchdog run early at
 * each branch point in turn does, somewhere, find the queue stopped and
 * read its trans_start, and resets nothing.
 */
static void test_fixed_order_watchdog_sees_stop(void **state)
{
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	char sched[32], err[256];
	bool seen = false;

	(void)state;
	watchdog_cfg(&cfg, "modern", false);
	cfg.replay = sched;
	for (unsigned i = 0; i < 200 && !seen; i++) {
		snprintf(sched, sizeof(sched), "%u:%d", i, WATCHDOG_CTX);
		if (txp_explore_run(&cfg, &res, err, sizeof(err)) == -EINVAL)
			continue;	/* the watchdog cannot run there */
		seen = saw(&res, "dev_watchdog: queue stopped");
		if (seen) {
			assert_true(saw(&res, "dev_watchdog: trans_start read"));
			assert_false(saw(&res, "NETDEV WATCHDOG"));
			assert_false(res.found);
		}
		txp_explore_result_free(&res);
	}
	assert_true(seen);
}

/* Without the watchdog, the old order is the modern driver: clean. */
static void test_old_order_clean_without_watchdog(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	watchdog_cfg(&cfg, "modern-2023", false);
	cfg.watchdog = false;
	expect_none(&cfg, "modern-2023 without the watchdog");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_completions_drawn),
		cmocka_unit_test(test_old_order_false_timeout_sc),
		cmocka_unit_test(test_old_order_false_timeout_tso),
		cmocka_unit_test(test_fixed_order_proved_sc),
		cmocka_unit_test(test_fixed_order_proved_tso),
		cmocka_unit_test(test_fixed_order_watchdog_sees_stop),
		cmocka_unit_test(test_old_order_clean_without_watchdog),
	};

	return txp_test_main(argc, argv, tests);
}
