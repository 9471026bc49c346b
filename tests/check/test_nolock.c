/*
 * test_nolock.c - the lockless qdisc's history (TCQ_F_NOLOCK) and 6.18's
 * defer list, through the schedule explorer on the real code.
 *
 * 5.1's stranded packet is a stall under sc; 5.13's MISSED bit closes it
 * under sc and leaves one under tso (the unlock is a release store that
 * the test of MISSED, a later load, may pass); 2022's barriers (5.19) and
 * the path as in 6.18 are proved under both; so is a locked qdisc whose
 * producers defer to the first of them, and to txpath's drainer, also
 * when a producer mixes queued and tried bursts.  make test proves to bound 2 (a
 * few seconds each); make prove (scripts/prove.sh) to bound 3, where
 * each proof takes minutes.
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
#include "run/run.h"

/* ThreadSanitizer makes each fresh context cost a millisecond: bound 1
 * takes minutes a case there, so it runs the code for its thread safety
 * at bound 0; AddressSanitizer at bound 1 (bound 2 under tso, with a
 * run of landings one preemption, was 140 s of its make test); the plain
 * build proves them at 2.  Each proof with the search's reduction (its
 * verdicts are the full search's, test_reduce): under tso at bound 2, a
 * sixth of the schedules and a quarter of the time (6.x's defer list:
 * 105,685 schedules in 10 s, the full search 637,082 in 43 s); make
 * prove runs them at 3. */
#if TXP_TEST_TSAN
#define PROOF_BOUND 0
#elif TXP_TEST_ASAN
#define PROOF_BOUND 1
#else
#define PROOF_BOUND 2
#endif

static void nolock_cfg(struct txp_explore_cfg *cfg, const char *era, bool tso, unsigned bound)
{
	txp_test_era_cfg(cfg, era);
	assert_non_null(cfg->qdisc);
	assert_true(cfg->qdisc->nolock != TXP_NOLOCK_NONE);
	cfg->tso = tso;
	cfg->bound = bound;
}

/* A stall with the queue awake: packets in the qdisc, nobody to run it. */
static void expect_stranded(const char *era, bool tso, unsigned bound)
{
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;

	nolock_cfg(&cfg, era, tso, bound);
	explore(&cfg, &res);
	if (!res.found)
		fail_msg("%s under %s: no violation in %llu schedules", era, tso ? "tso" : "sc",
			 (unsigned long long)res.schedules);
	assert_string_equal(res.kind, "stall");
	assert_non_null(strstr(res.detail, "queue awake"));
	assert_true(res.preemptions <= bound);
	txp_explore_result_free(&res);
}

static void expect_nolock_proved(const char *era, bool tso)
{
	struct txp_explore_cfg cfg;

	nolock_cfg(&cfg, era, tso, PROOF_BOUND);
	cfg.reduce = true;
	expect_proved(&cfg, era, false);
}

/* 5.1: a producer's trylock fails while the runner, having found the
 * qdisc empty, is on its way out: the packet is stranded. */
static void test_trylock_strands_sc(void **state)
{
	(void)state;
	expect_stranded("5.1-nolock", false, 1);
}

/* 5.13: the MISSED bit and the second trylock close it under sc ... */
static void test_missed_clean_sc(void **state)
{
	(void)state;
	expect_nolock_proved("5.13-missed", false);
}

/* ... not under tso: run_end's test of MISSED passes its unlock, still in
 * the store buffer, and the producer's trylocks see the seqlock held. */
static void test_missed_strands_tso(void **state)
{
	(void)state;
	expect_stranded("5.13-missed", true, 1);
}

static void test_barrier_proved_sc(void **state)
{
	(void)state;
	expect_nolock_proved("5.19-barrier", false);
}

static void test_barrier_proved_tso(void **state)
{
	(void)state;
	expect_nolock_proved("5.19-barrier", true);
}

static void test_draining_proved_sc(void **state)
{
	(void)state;
	expect_nolock_proved("6.18-draining", false);
}

static void test_draining_proved_tso(void **state)
{
	(void)state;
	expect_nolock_proved("6.18-draining", true);
}

/* cfg: 6.18's defer list on a locked pfifo_fast with one queue (defer
 * TXP_DEFER_LINUX), or txpath's drainer on it (TXP_DEFER_DRAIN); its
 * name. */
static const char *defer_cfg(struct txp_explore_cfg *cfg, enum txp_defer defer)
{
	txp_test_era_cfg(cfg, "6.x");
	cfg->queues = 1;
	cfg->race_impossible = true;
	cfg->defer = defer;
	return defer == TXP_DEFER_DRAIN ? "drainer" : "defer list";
}

/* The defer list, and the drainer (whose hand-off the check build takes
 * after every take): nothing lost, no stall, under sc and tso (a packet
 * the let-go did not schedule is stranded at bound 1). */
static void expect_defer_proved(enum txp_defer defer, bool tso)
{
	struct txp_explore_cfg cfg;
	const char *name = defer_cfg(&cfg, defer);
	char what[64];

	cfg.tso = tso;
	cfg.bound = PROOF_BOUND;
	cfg.reduce = true;
	snprintf(what, sizeof(what), "6.x with the %s, %s", name, tso ? "tso" : "sc");
	expect_proved(&cfg, what, false);
}

static void test_defer_proved_sc(void **state)
{
	(void)state;
	expect_defer_proved(TXP_DEFER_LINUX, false);
}

static void test_defer_proved_tso(void **state)
{
	(void)state;
	expect_defer_proved(TXP_DEFER_LINUX, true);
}

static void test_drainer_proved_sc(void **state)
{
	(void)state;
	expect_defer_proved(TXP_DEFER_DRAIN, false);
}

static void test_drainer_proved_tso(void **state)
{
	(void)state;
	expect_defer_proved(TXP_DEFER_DRAIN, true);
}

/*
 * txp_xmit_burst_try on a queue with a defer list (--send mixed: each
 * producer's first packet queued, its second tried).  The tried packet
 * cannot be pushed (what try does not take stays the caller's), so it
 * takes the root lock; there it queues what the list holds first
 * (txp__defer_take()).  Without that, 6.18's list reorders a flow at
 * one preemption: the first pusher is preempted before the root lock,
 * the other's packet waits on the list, and its tried one overtakes it.
 * The drainer's list, at one preemption too, but with three producers:
 * a push finds the drainer's bit set only while a third holds the root
 * lock (bound 1: 3,104 schedules; bound 2, 341,994, is make prove's).
 */
static void expect_tried_in_order(enum txp_defer defer)
{
	struct txp_explore_cfg cfg;
	const char *name = defer_cfg(&cfg, defer);
	char what[64];

	cfg.send = TXP_EXPLORE_SEND_MIXED;
	cfg.reduce = true;
	cfg.bound = PROOF_BOUND;
	if (defer == TXP_DEFER_DRAIN) {
		cfg.producers = 3;
		cfg.bound = PROOF_BOUND < 1 ? PROOF_BOUND : 1;
	}
	snprintf(what, sizeof(what), "6.x with the %s, queued then tried", name);
	expect_proved(&cfg, what, false);
}

static void test_defer_tried_in_order(void **state)
{
	(void)state;
	expect_tried_in_order(TXP_DEFER_LINUX);
}

static void test_drainer_tried_in_order(void **state)
{
	(void)state;
	expect_tried_in_order(TXP_DEFER_DRAIN);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trylock_strands_sc),
		cmocka_unit_test(test_missed_clean_sc),
		cmocka_unit_test(test_missed_strands_tso),
		cmocka_unit_test(test_barrier_proved_sc),
		cmocka_unit_test(test_barrier_proved_tso),
		cmocka_unit_test(test_draining_proved_sc),
		cmocka_unit_test(test_draining_proved_tso),
		cmocka_unit_test(test_defer_proved_sc),
		cmocka_unit_test(test_defer_proved_tso),
		cmocka_unit_test(test_drainer_proved_sc),
		cmocka_unit_test(test_drainer_proved_tso),
		cmocka_unit_test(test_defer_tried_in_order),
		cmocka_unit_test(test_drainer_tried_in_order),
	};

	return txp_test_main(argc, argv, tests);
}
