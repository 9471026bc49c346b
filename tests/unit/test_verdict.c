/*
 * test_verdict.c - the one-line verdict of a run (tools/report.c): which
 * knobs make the LLTX race possible.  `txpath check` proves each rule on
 * the real code (tests/check/test_explore.c, test_noqueue_race_reachable).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../runner.h"
#include "../../tools/cli.h"
#include "run/run.h"

/* The verdict of a clean run (all accounted) that saw the race races times. */
static const char *verdict(const char *era, enum txp_lock_mode lock, const struct txp_qdisc_ops *q,
			   uint64_t races, char *buf, size_t len)
{
	struct txp_run_cfg cfg;
	struct txp_run_result r;

	txp_run_cfg_init(&cfg);
	assert_true(txp_run_cfg_era(&cfg, era));
	cfg.lock = lock;
	cfg.qdisc = q;
	memset(&r, 0, sizeof(r));
	r.accounted = true;
	r.dev.xmit_on_stopped = races;
	return run_verdict(&cfg, &r, buf, len);
}

/* No qdisc: every producer calls start_xmit, the exclusive runner has
 * nothing to run, so in LLTX mode the race is possible (bug 6 of issue 8:
 * "UNEXPECTED: race seen 4 times"). */
static void test_noqueue_exclusive_lltx(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(verdict("2.6.18", TXP_LOCK_LLTX, &txp_noqueue_ops, 4, buf, sizeof(buf)),
			    "race happened 4 times, harmless");
	assert_string_equal(verdict("2.6.18", TXP_LOCK_LLTX, &txp_noqueue_ops, 0, buf, sizeof(buf)),
			    "race possible, not seen in this run");
}

/* With a qdisc the exclusive runner lets one context at a time reach
 * start_xmit: a race seen there is unexpected. */
static void test_pfifo_fast_exclusive_lltx(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(verdict("2.6.18", TXP_LOCK_LLTX, &txp_pfifo_fast_ops, 4, buf, sizeof(buf)),
			    "UNEXPECTED: race seen 4 times");
	assert_string_equal(verdict("2.6.18", TXP_LOCK_LLTX, &txp_pfifo_fast_ops, 0, buf, sizeof(buf)),
			    "race impossible");
}

/* In core mode the xmit lock serialises start_xmit, qdisc or none. */
static void test_noqueue_core(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(verdict("2.6.18", TXP_LOCK_CORE, &txp_noqueue_ops, 4, buf, sizeof(buf)),
			    "UNEXPECTED: race seen 4 times");
	assert_string_equal(verdict("2.6.8", TXP_LOCK_CORE, &txp_noqueue_ops, 0, buf, sizeof(buf)),
			    "race impossible");
}

/* The concurrent runner in LLTX mode: possible, qdisc or none. */
static void test_concurrent_lltx(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(verdict("2.6.11", TXP_LOCK_LLTX, &txp_pfifo_fast_ops, 3, buf, sizeof(buf)),
			    "race happened 3 times, harmless");
	assert_string_equal(verdict("2.6.11", TXP_LOCK_LLTX, &txp_noqueue_ops, 3, buf, sizeof(buf)),
			    "race happened 3 times, harmless");
}

/* A stall of a lockless qdisc whose history strands packets (5.1's
 * stuck packet; 5.13's missing barrier, reached by x86's store buffer)
 * is that era, not a broken run, when every packet is accounted for; of
 * any other qdisc, or with a packet lost, it is broken. */
static void test_stall_of_a_stranding_qdisc(void **state)
{
	static const struct {
		const char *era;
		bool lost, the_era;
	} cases[] = {
		{ "5.1-nolock", false, true }, { "5.13-missed", false, true },
		{ "5.19-barrier", false, false }, { "6.18-draining", false, false },
		{ "2.6.38", false, false }, { "5.13-missed", true, false },
	};
	char buf[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct txp_run_cfg cfg;
		struct txp_run_result r;

		txp_run_cfg_init(&cfg);
		assert_true(txp_run_cfg_era(&cfg, cases[i].era));
		memset(&r, 0, sizeof(r));
		r.stalled = true;
		r.accounted = true;
		r.lost = cases[i].lost;
		assert_false(run_ok(&r));
		assert_int_equal(run_stall_is_the_era(&cfg, &r), cases[i].the_era);
		run_verdict(&cfg, &r, buf, sizeof(buf));
		if (cases[i].the_era)
			assert_non_null(strstr(buf, "stranded a packet, as it did in Linux"));
		else
			assert_non_null(strstr(buf, "BROKEN: stalled"));
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noqueue_exclusive_lltx),
		cmocka_unit_test(test_pfifo_fast_exclusive_lltx),
		cmocka_unit_test(test_noqueue_core),
		cmocka_unit_test(test_concurrent_lltx),
		cmocka_unit_test(test_stall_of_a_stranding_qdisc),
	};

	return txp_test_main(argc, argv, tests);
}
