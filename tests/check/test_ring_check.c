/*
 * test_ring_check.c - the real drivers' ring (src/drivers/common/ring.c)
 * under the explorer: `txpath check --driver ring`, its kernel endpoint
 * modelled (src/check/ring_kernel.c).  2 producers x 2 packets into a
 * ring of 2 slots, which they fill: in LLTX the race (a producer past the
 * core's stopped test finds the ring full) is reached and harmless under
 * Miller's rule; in core mode it is not reached.  Proved to bound 1 under
 * sc, tso and arm, and one producer's 3 packets to bound 2 with the
 * reduction (the stop and wake against the reaper and the kernel);
 * under ThreadSanitizer, where each fresh context costs a millisecond, a
 * bound less.  make prove (scripts/prove.sh) takes one producer to
 * bound 3 under sc and tso (2 under arm), and 2 x 2 to bound 2 (1 under
 * arm).  The free-slot test one off is
 * tests/mutants/ring-full-off-by-one.mut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "checkutil.h"
#include "check/explore.h"

/* The sanitizer builds run the same code for its memory and thread
 * safety, not for the proof: a bound less. */
#if TXP_TEST_TSAN || TXP_TEST_ASAN
#define BOUND_LESS 1
#else
#define BOUND_LESS 0
#endif

/* 2 x 2, ring 2, at bound (a bound less under the sanitizers, down to 0). */
static void ring_cfg(struct txp_explore_cfg *cfg, enum txp_lock_mode lock, unsigned bound)
{
	txp_explore_cfg_init(cfg);
	cfg->driver = txp_explore_driver("ring");
	assert_non_null(cfg->driver);
	cfg->lock = lock;
	cfg->bound = bound > BOUND_LESS ? bound - BOUND_LESS : 0;
}

/* The ring's proof: no violation, the ring filled (a queue stopped); under
 * sc, the race reached in LLTX with two producers on a queue and a
 * preemption, never in core mode (under tso and arm, a stop waiting in a
 * store buffer takes one more). */
static void expect_ring_proved(const struct txp_explore_cfg *cfg, const char *what)
{
	struct txp_explore_result res;
	bool race = cfg->lock == TXP_LOCK_LLTX && cfg->bound >= 1 &&
		    cfg->producers > (cfg->queues ? cfg->queues : 1);

	expect_clean_search(cfg, what, &res);
	assert_true(res.schedules > 1);
	assert_true(res.queue_stopped);
	if (!cfg->tso && !cfg->arm)
		assert_int_equal(res.xmit_on_stopped_reachable, race);
	txp_explore_result_free(&res);
}

static void test_driver_named(void **state)
{
	(void)state;
	assert_non_null(txp_explore_driver("ring"));
	assert_string_equal(txp_explore_driver("ring")->name, "ring");
	assert_null(txp_explore_driver("afxdp"));
	assert_null(txp_explore_driver("sim"));
}

/* The full search at bound 1, in both lock modes. */
static void test_lltx_bound1(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	ring_cfg(&cfg, TXP_LOCK_LLTX, 1);
	expect_ring_proved(&cfg, "ring lltx sc");
}

static void test_core_bound1(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	ring_cfg(&cfg, TXP_LOCK_CORE, 1);
	expect_ring_proved(&cfg, "ring core sc");
}

/* One producer, 3 packets: it fills the ring, stops the queue and is
 * woken, against the completion context and the kernel, at bound 2 with
 * the reduction (its verdicts are the full search's). */
static void test_one_producer_reduced(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	for (int lock = TXP_LOCK_CORE; lock <= TXP_LOCK_LLTX; lock++) {
		ring_cfg(&cfg, (enum txp_lock_mode)lock, 2);
		cfg.producers = 1;
		cfg.packets = 3;
		cfg.reduce = true;
		expect_ring_proved(&cfg, "ring 1 x 3 reduced");
	}
}

/* The kernel's and the ring's indices under store buffers, and under
 * arm's reordering and older reads. */
static void test_lltx_tso(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	ring_cfg(&cfg, TXP_LOCK_LLTX, 1);
	cfg.tso = true;
	expect_ring_proved(&cfg, "ring lltx tso");
}

static void test_lltx_arm(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	ring_cfg(&cfg, TXP_LOCK_LLTX, 1);
	cfg.arm = true;
	expect_ring_proved(&cfg, "ring lltx arm");
}

/* Two queues: a ring, a completion context and a kernel each, one
 * producer of 2 packets on each; six contexts, so without preemptions
 * (bound 1 takes over ten minutes; over two under ThreadSanitizer at 0:
 * the plain and ASan builds run it). */
static void test_two_queues(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	ring_cfg(&cfg, TXP_LOCK_LLTX, 0);
	cfg.queues = 2;
	expect_ring_proved(&cfg, "ring two queues");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_named),
		cmocka_unit_test(test_lltx_bound1),
		cmocka_unit_test(test_core_bound1),
		cmocka_unit_test(test_one_producer_reduced),
		cmocka_unit_test(test_lltx_tso),
		cmocka_unit_test(test_lltx_arm),
		cmocka_unit_test(test_two_queues),
	};

	return txp_test_main(argc, argv, tests);
}
