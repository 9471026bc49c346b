/*
 * test_nolock_run.c - the lockless qdisc (as of 5.19 and 6.18) and a
 * locked qdisc with 6.18's defer list, with real threads: three producers
 * on one queue, every packet accounted for, nothing lost or duplicated on
 * the wire, no stall; one at a time (the single-packet path and its
 * bypass) and in bursts.  The ThreadSanitizer build runs it for the
 * races the explorer cannot see (plain fields under their locks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "run/run.h"

static void run_ok(const struct txp_qdisc_ops *qdisc, enum txp_defer defer, unsigned burst)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	char err[256];

	txp_run_cfg_init(&cfg);
	assert_true(txp_run_cfg_era(&cfg, "6.18-draining"));
	cfg.qdisc = qdisc;
	cfg.defer = defer;
	cfg.threads = 3;
	cfg.packets = TXP_TEST_TSAN ? 20000 : 200000;
	cfg.ring = 64;
	cfg.txqueuelen = 64;
	cfg.burst = burst;
	cfg.bulk = burst;
	cfg.stall_seconds = 10;
	if (txp_run(&cfg, &res, err, sizeof(err)) != 0)
		fail_msg("txp_run: %s", err);
	assert_false(res.stalled);
	assert_true(res.accounted);
	assert_int_equal(res.lost, 0);
	assert_int_equal(res.duplicated, 0);
	assert_int_equal(res.dev.submitted, cfg.packets);
	assert_true(res.dev.transmitted > 0);
	assert_int_equal(res.dev.xmit_on_stopped, 0);
}

static void test_barrier_one_at_a_time(void **state)
{
	(void)state;
	run_ok(&txp_pfifo_nolock_barrier_ops, TXP_DEFER_OFF, 1);
}

static void test_draining_one_at_a_time(void **state)
{
	(void)state;
	run_ok(&txp_pfifo_nolock_ops, TXP_DEFER_OFF, 1);
}

static void test_draining_bursts(void **state)
{
	(void)state;
	run_ok(&txp_pfifo_nolock_ops, TXP_DEFER_OFF, 32);
}

static void test_defer_one_at_a_time(void **state)
{
	(void)state;
	run_ok(&txp_pfifo_fast_ops, TXP_DEFER_LINUX, 1);
}

static void test_defer_bursts(void **state)
{
	(void)state;
	run_ok(&txp_pfifo_fast_ops, TXP_DEFER_LINUX, 32);
}

/* txpath's drainer: the hand-off at its quota, under a ring that fills. */
static void test_drainer_one_at_a_time(void **state)
{
	(void)state;
	run_ok(&txp_pfifo_fast_ops, TXP_DEFER_DRAIN, 1);
}

static void test_drainer_bursts(void **state)
{
	(void)state;
	run_ok(&txp_pfifo_fast_ops, TXP_DEFER_DRAIN, 32);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_barrier_one_at_a_time),
		cmocka_unit_test(test_draining_one_at_a_time),
		cmocka_unit_test(test_draining_bursts),
		cmocka_unit_test(test_defer_one_at_a_time),
		cmocka_unit_test(test_defer_bursts),
		cmocka_unit_test(test_drainer_one_at_a_time),
		cmocka_unit_test(test_drainer_bursts),
	};

	return txp_test_main(argc, argv, tests);
}
