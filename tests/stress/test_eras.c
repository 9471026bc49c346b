/*
 * test_eras.c - real threads through every era preset (DESIGN.md §3).
 *
 * The race of NETIF_F_LLTX is probabilistic, so the tests that must see
 * it make it likely (a small ring, fragmented packets, more producers
 * than cores) and repeat a run up to a bound until it shows; the tests
 * that must not see it run a few times.  Every run, whatever the era,
 * must lose nothing, duplicate nothing, account for every packet, and
 * never stall.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "run/run.h"
#include "txpath/sim.h"

/* TSan runs 5-15x slower: fewer packets a run, the same number of runs. */
#define RUN_PACKETS (TXP_TEST_TSAN ? 30000u : 200000u)
#define RUN_THREADS 3		/* producers, on 2 cores */
#define RUN_RING 32
#define RUN_FRAGS_MAX 3
#define MAX_TRIES 20		/* runs to wait for the race */
#define QUIET_RUNS 3		/* runs that must show no race */

struct totals {
	unsigned runs;
	uint64_t xmit_on_stopped, bug_logs, ring_full_stopped, tx_busy;
};

static void race_cfg(struct txp_run_cfg *cfg)
{
	txp_run_cfg_init(cfg);
	cfg->threads = RUN_THREADS;
	cfg->packets = RUN_PACKETS;
	cfg->ring = RUN_RING;
	cfg->frags_min = 0;
	cfg->frags_max = RUN_FRAGS_MAX;
	cfg->log = NULL;
}

/*
 * One run, and what must hold in any era:
 *  - nothing lost, duplicated or unaccounted, no stall (testutil.h);
 *  - no ring full with the queue awake: with every personality the queue
 *    is stopped while the ring is short, so a full ring is only ever the
 *    race, never a real bug;
 *  - every stop woken again: no lost wakeup, the queue ends awake;
 *  - in LLTX mode, a BUSY on a full ring is a start_xmit that another
 *    context stopped the queue under, so the core's detector saw some;
 *  - only tg3-2004 prints its false BUG, once per full ring.
 */
static void run_checked(const struct txp_run_cfg *cfg, struct totals *t)
{
	struct txp_run_result res;
	char err[256] = "";

	if (txp_run(cfg, &res, err, sizeof(err)) != 0)
		fail_msg("%s: %s", cfg->era ? cfg->era : cfg->personality->name, err);
	txp_test_assert_run_clean(&res);
	assert_int_equal(res.dev.submitted, cfg->packets);
	assert_int_equal(res.dropped, 0);
	assert_int_equal(res.drv.ring_full_awake, 0);
	assert_int_equal(res.dev.stops, res.dev.wakes);
	assert_int_equal(res.dev.tx_busy, res.drv.ring_full_stopped);
	if (cfg->lock == TXP_LOCK_LLTX && res.drv.ring_full_stopped > 0)
		assert_true(res.dev.xmit_on_stopped > 0);
	if (cfg->personality == txp_sim_personality("tg3-2004"))
		assert_int_equal(res.dev.bug_logs, res.drv.ring_full_stopped);
	else
		assert_int_equal(res.dev.bug_logs, 0);

	t->runs++;
	t->xmit_on_stopped += res.dev.xmit_on_stopped;
	t->bug_logs += res.dev.bug_logs;
	t->ring_full_stopped += res.drv.ring_full_stopped;
	t->tx_busy += res.dev.tx_busy;
}

static void report(const char *what, const struct totals *t)
{
	print_message("%-12s runs=%u xmit_on_stopped=%llu ring_full_stopped=%llu bug_logs=%llu\n",
		      what, t->runs, (unsigned long long)t->xmit_on_stopped,
		      (unsigned long long)t->ring_full_stopped, (unsigned long long)t->bug_logs);
}

/* Run era until start_xmit was seen on a stopped queue (and, if
 * need_bug, a BUG was logged), at most MAX_TRIES times. */
static void run_until_race(const char *era, bool need_bug, struct totals *t)
{
	struct txp_run_cfg cfg;

	race_cfg(&cfg);
	assert_true(txp_run_cfg_era(&cfg, era));
	while (t->runs < MAX_TRIES) {
		run_checked(&cfg, t);
		if (t->xmit_on_stopped > 0 && (!need_bug || t->bug_logs > 0))
			break;
	}
	report(era, t);
}

/* Run era QUIET_RUNS times; the race must never show. */
static void run_quiet(const char *era)
{
	struct txp_run_cfg cfg;
	struct totals t = { 0 };

	race_cfg(&cfg);
	assert_true(txp_run_cfg_era(&cfg, era));
	for (unsigned i = 0; i < QUIET_RUNS; i++)
		run_checked(&cfg, &t);
	report(era, &t);
	assert_int_equal(t.xmit_on_stopped, 0);
	assert_int_equal(t.bug_logs, 0);
	assert_int_equal(t.ring_full_stopped, 0);
}

/* 2.6.9: LLTX and tg3's own lock; the race happens and tg3 cries BUG. */
static void test_2_6_9_races_and_logs_bug(void **state)
{
	struct totals t = { 0 };
	(void)state;

	run_until_race("2.6.9", true, &t);
	assert_true(t.xmit_on_stopped > 0);
	assert_true(t.bug_logs > 0);
}

/* Roland's patch: the same race, no message. */
static void test_silence_races_quietly(void **state)
{
	struct totals t = { 0 };
	(void)state;

	run_until_race("silence", false, &t);
	assert_true(t.xmit_on_stopped > 0);
	assert_int_equal(t.bug_logs, 0);
}

/* 2.6.11, Miller's rule: the race still happens, harmlessly, and is
 * never reported as a bug. */
static void test_2_6_11_races_harmlessly(void **state)
{
	struct totals t = { 0 };
	(void)state;

	run_until_race("2.6.11", false, &t);
	assert_true(t.xmit_on_stopped > 0);
	assert_int_equal(t.bug_logs, 0);
}

/* 2.6.8: the core's xmit lock serialises start_xmit; no race. */
static void test_2_6_8_no_race(void **state)
{
	(void)state;
	run_quiet("2.6.8");
}

/* 2.6.11-rc2: the xmit lock with irqs off guards the driver too. */
static void test_2_6_11_rc2_no_race(void **state)
{
	(void)state;
	run_quiet("2.6.11-rc2");
}

/* 2.6.18: one context runs the queue at a time; no race even in LLTX. */
static void test_2_6_18_no_race(void **state)
{
	(void)state;
	run_quiet("2.6.18");
}

/* Any driver of 2004-2005 under the core's xmit lock: no race, no BUG.
 * (Not the personalities written to fail: rc2-naive, lost-wakeup, ...) */
static void test_every_driver_core_lock_no_race(void **state)
{
	static const char *const drivers[] = {
		"tg3-2004", "tg3-silent", "tg3-2005", "e1000-2004", "locked", "rc2",
	};
	(void)state;

	for (unsigned i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		struct txp_run_cfg cfg;
		struct totals t = { 0 };

		race_cfg(&cfg);
		cfg.era = NULL;
		cfg.lock = TXP_LOCK_CORE;
		cfg.runner = TXP_RUNNER_CONCURRENT;
		cfg.personality = txp_sim_personality(drivers[i]);
		assert_non_null(cfg.personality);
		run_checked(&cfg, &t);
		report(cfg.personality->name, &t);
		assert_int_equal(t.xmit_on_stopped, 0);
		assert_int_equal(t.bug_logs, 0);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2_6_9_races_and_logs_bug),
		cmocka_unit_test(test_silence_races_quietly),
		cmocka_unit_test(test_2_6_11_races_harmlessly),
		cmocka_unit_test(test_2_6_8_no_race),
		cmocka_unit_test(test_2_6_11_rc2_no_race),
		cmocka_unit_test(test_2_6_18_no_race),
		cmocka_unit_test(test_every_driver_core_lock_no_race),
	};

	return txp_test_main(argc, argv, tests);
}
