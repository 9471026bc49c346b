/*
 * test_interrupt.c - asking a run to stop (txp_run_interrupt): the flag
 * keeps the first ask, a run asked before it starts stops at once, and a
 * run asked in the middle stops its producers, drains for the bounded
 * time and drops the rest as interrupted, every packet accounted for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "testutil.h"
#include "run/run.h"

#define WAIT_SECONDS 20
#define WHY_INT 2
#define WHY_TERM 15

/* A 60 s run, one producer, no kernel log. */
static void cfg_long(struct txp_run_cfg *cfg, const struct txp_run_stop *stop)
{
	txp_run_cfg_init(cfg);
	cfg->threads = 1;
	cfg->packets = 0;
	cfg->seconds = 60;
	cfg->log = NULL;
	cfg->stop = stop;
}

static void test_flag_keeps_the_first_ask(void **state)
{
	struct txp_run_stop s = TXP_RUN_STOP_INIT;
	(void)state;

	assert_int_equal(txp_run_interrupted(&s), 0);
	assert_false(txp_run_interrupt(&s, 0));
	assert_int_equal(txp_run_interrupted(&s), 0);
	assert_true(txp_run_interrupt(&s, WHY_INT));
	assert_false(txp_run_interrupt(&s, WHY_TERM));
	assert_int_equal(txp_run_interrupted(&s), WHY_INT);
}

/* Asked before it starts: it stops at once, accounted, and says why. */
static void test_asked_before_the_run(void **state)
{
	static struct txp_run_stop stop = TXP_RUN_STOP_INIT;
	static struct txp_test_bg_run r;
	(void)state;

	txp_run_interrupt(&stop, WHY_TERM);
	cfg_long(&r.cfg, &stop);
	txp_test_run_bg(&r, WAIT_SECONDS, "an interrupted run");
	assert_int_equal(r.res.interrupted, WHY_TERM);
	txp_test_assert_run_clean(&r.res);
}

/* From the run's own progress callback, once the producer's whole send
 * buffer is out: a NIC of 100 packets a second cannot send those 256
 * within the drain time, so the rest is dropped as interrupted. */
static void interrupt_when_full(const struct txp_run_progress *p, void *arg)
{
	if (p->submitted >= 256)
		txp_run_interrupt(arg, WHY_INT);
}

static void test_asked_mid_run_drains_then_drops(void **state)
{
	static struct txp_run_stop stop = TXP_RUN_STOP_INIT;
	static struct txp_test_bg_run r;
	(void)state;

	cfg_long(&r.cfg, &stop);
	r.cfg.line_rate = 100;
	r.cfg.sndbuf = 256;
	r.cfg.progress = interrupt_when_full;
	r.cfg.progress_arg = &stop;
	txp_test_run_bg(&r, WAIT_SECONDS, "an interrupted run");
	assert_int_equal(r.res.interrupted, WHY_INT);
	txp_test_assert_run_clean(&r.res);
	assert_true(r.res.dev.transmitted > 0);
	assert_true(r.res.dev.dropped[TXP_DROP_INTERRUPTED] > 0);
	assert_int_equal(r.res.dev.dropped[TXP_DROP_DEV_DOWN], 0);
}

/* Not asked: not interrupted, and nothing dropped as interrupted. */
static void test_not_asked(void **state)
{
	static struct txp_run_stop stop = TXP_RUN_STOP_INIT;
	static struct txp_test_bg_run r;
	(void)state;

	cfg_long(&r.cfg, &stop);
	r.cfg.seconds = 0;
	r.cfg.packets = 10000;
	txp_test_run_bg(&r, WAIT_SECONDS, "an interrupted run");
	assert_int_equal(r.res.interrupted, 0);
	txp_test_assert_run_clean(&r.res);
	assert_int_equal(r.res.dev.submitted, 10000);
	assert_int_equal(r.res.dev.dropped[TXP_DROP_INTERRUPTED], 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_keeps_the_first_ask),
		cmocka_unit_test(test_asked_before_the_run),
		cmocka_unit_test(test_asked_mid_run_drains_then_drops),
		cmocka_unit_test(test_not_asked),
	};

	return txp_test_main(argc, argv, tests);
}
