/*
 * test_dql.c - dynamic queue limits on their own (src/core/dql.c), with
 * time passed in:
 *  - avail is the limit plus what completed minus what was queued, below 0
 *    over the limit;
 *  - starvation grows the limit: over the limit with nothing left in
 *    flight; or over it in the previous interval and all of that interval
 *    completed (Linux 6.x: completed == prev_num_queued counts), with
 *    bytes still in flight;
 *  - a queue busy the whole interval shrinks by the lowest slack seen,
 *    only once the hold time has passed (strictly), then measures afresh;
 *  - the clamps hold, their setters refuse what cannot be;
 *  - a queue that keeps up keeps its limit, and an excess held by the
 *    clamp grows it at the next completion;
 *  - reset: nothing in flight, the limit at min_limit, then as fresh;
 *  - the same history started just below UINT_MAX gives the same limits;
 *  - a completion of more than is in flight completes what is, counting
 *    the excess; an object over TXP_DQL_MAX_OBJECT is refused, counted.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/dql.h"
#include "testutil.h"

#define HOLD 1000000000ull	/* the hold time of these tests: 1 s of their clock */
#define T0 5000000000ull	/* a start time of the tests' clock */

static void queue_complete(struct txp_dql *d, unsigned queued, unsigned completed, uint64_t now)
{
	txp_dql_queued(d, queued);
	txp_dql_completed(d, completed, now);
}

/* A fresh dql whose counters stand at base, reached through the API: the
 * limit held at 0 meanwhile, and a last empty interval so that nothing of
 * the climb is remembered. */
static void dql_fresh_at(struct txp_dql *d, unsigned base)
{
	txp_dql_init(d, HOLD);
	assert_int_equal(txp_dql_set_max_limit(d, 0), 0);
	for (unsigned left = base; left;) {
		unsigned c = left < TXP_DQL_MAX_OBJECT ? left : TXP_DQL_MAX_OBJECT;

		queue_complete(d, c, c, T0);
		left -= c;
	}
	queue_complete(d, 0, 0, T0);
	assert_int_equal(txp_dql_set_max_limit(d, TXP_DQL_MAX_LIMIT), 0);
	assert_int_equal(txp_load_relaxed(&d->num_queued), base);
	assert_int_equal(txp_dql_inflight(d), 0);
	assert_int_equal(txp_dql_limit(d), 0);
}

static void test_init_avail(void **state)
{
	struct txp_dql d;

	(void)state;
	txp_dql_init(&d, HOLD);
	assert_int_equal(txp_dql_limit(&d), 0);
	assert_int_equal(d.max_limit, TXP_DQL_MAX_LIMIT);
	assert_int_equal(d.min_limit, 0);
	assert_int_equal(txp_dql_avail(&d), 0);
	txp_dql_queued(&d, 100);
	assert_int_equal(txp_dql_avail(&d), -100);
	assert_int_equal(txp_dql_inflight(&d), 100);
	txp_dql_completed(&d, 100, T0);		/* starved: the limit is now 100 */
	assert_int_equal(txp_dql_avail(&d), (int)txp_dql_limit(&d));
	txp_dql_queued(&d, 30);
	assert_int_equal(txp_dql_avail(&d), (int)txp_dql_limit(&d) - 30);
}

/* Over the limit, everything completed: grows by what was queued and
 * completed in the interval. */
static void test_starved_empty_grows(void **state)
{
	struct txp_dql d;

	(void)state;
	txp_dql_init(&d, HOLD);
	queue_complete(&d, 1000, 1000, T0);
	assert_int_equal(txp_dql_limit(&d), 1000);
	assert_int_equal(txp_dql_avail(&d), 1000);
	/* Again over it (1500 > 1000) and drained: grows by the 1500. */
	queue_complete(&d, 1500, 1500, T0 + 1);
	assert_int_equal(txp_dql_limit(&d), 1000 + 1500);
	/* Under the limit and drained: not starved, no change. */
	queue_complete(&d, 200, 200, T0 + 2);
	assert_int_equal(txp_dql_limit(&d), 1000 + 1500);
}

/* Over the limit in the previous interval, and that interval all completed
 * (exactly: completed == prev_num_queued) while bytes are still in flight:
 * starved too, grows by the previous excess. */
static void test_starved_prev_interval_grows(void **state)
{
	struct txp_dql d;

	(void)state;
	txp_dql_init(&d, HOLD);
	queue_complete(&d, 1000, 1000, T0);
	assert_int_equal(txp_dql_limit(&d), 1000);
	/* 1500 in flight, 500 over; 1000 still in flight after: no change,
	 * but the excess of 500 is remembered. */
	queue_complete(&d, 1500, 500, T0 + 1);
	assert_int_equal(txp_dql_limit(&d), 1000);
	/* The rest of that interval completes (completed reaches the previous
	 * queued count exactly) while 300 more are in flight. */
	queue_complete(&d, 300, 1000, T0 + 2);
	assert_int_equal(txp_dql_inflight(&d), 300);
	assert_int_equal(txp_dql_limit(&d), 1000 + 500);
}

/* Busy intervals: limit 10000; slacks limit - 2 * completed of 4000, then
 * 9000 (at the hold time exactly: no shrink yet), then 8000 past it:
 * shrinks by the lowest, 4000, and measures afresh. */
static void test_slack_shrinks_after_hold(void **state)
{
	struct txp_dql d;
	const unsigned limit = 10000;

	(void)state;
	txp_dql_init(&d, HOLD);
	queue_complete(&d, limit, limit, T0);		/* starved at T0 */
	assert_int_equal(txp_dql_limit(&d), limit);
	queue_complete(&d, 6000, 1000, T0 + 1);		/* not busy all the interval yet */
	queue_complete(&d, 2000, 3000, T0 + 2);		/* busy: slack 4000 */
	assert_int_equal(txp_dql_limit(&d), limit);
	queue_complete(&d, 500, 500, T0 + HOLD);	/* busy: slack 9000, not after the hold */
	assert_int_equal(txp_dql_limit(&d), limit);
	queue_complete(&d, 1000, 1000, T0 + HOLD + 1);	/* busy: slack 8000, past the hold */
	assert_int_equal(txp_dql_limit(&d), limit - (limit - 2 * 3000));
	/* A new window: no second shrink before a new hold time. */
	queue_complete(&d, 1000, 1000, T0 + HOLD + 2);
	queue_complete(&d, 1000, 1000, T0 + 2 * HOLD + 1);
	assert_int_equal(txp_dql_limit(&d), limit - (limit - 2 * 3000));
	assert_true(txp_dql_inflight(&d) > 0);
}

/* A starvation restarts the slack window: the slack seen before it, and
 * its start time, are forgotten. */
static void test_starvation_restarts_slack(void **state)
{
	struct txp_dql d;
	const uint64_t t = T0 + HOLD / 2;
	unsigned grown;

	(void)state;
	txp_dql_init(&d, HOLD);
	queue_complete(&d, 10000, 10000, T0);		/* limit 10000, window from T0 */
	queue_complete(&d, 6000, 1000, T0 + 1);
	queue_complete(&d, 2000, 3000, T0 + 2);		/* busy: slack 4000 */
	queue_complete(&d, 8000, 12000, t);		/* 12000 over 10000, drained: starved */
	grown = txp_dql_limit(&d);
	assert_true(grown > 10000);
	queue_complete(&d, 12000, 1000, t + 1);
	queue_complete(&d, 1000, 1000, t + 2);		/* busy: slack grown - 2000 */
	/* Past T0 + HOLD, which would have shrunk it by 4000, but not past
	 * t + HOLD. */
	queue_complete(&d, 1000, 1000, T0 + HOLD + 1);
	assert_int_equal(txp_dql_limit(&d), grown);
	queue_complete(&d, 1000, 1000, t + HOLD + 1);	/* by the lowest slack since t */
	assert_int_equal(txp_dql_limit(&d), grown - (grown - 2 * 1000));
}

static void test_clamps_hold(void **state)
{
	struct txp_dql d;

	(void)state;
	txp_dql_init(&d, HOLD);
	assert_int_equal(txp_dql_set_max_limit(&d, 5000), 0);
	queue_complete(&d, 10000, 10000, T0);		/* would grow to 10000 */
	assert_int_equal(txp_dql_limit(&d), 5000);
	queue_complete(&d, 8000, 8000, T0 + 1);		/* and again */
	assert_int_equal(txp_dql_limit(&d), 5000);

	txp_dql_init(&d, HOLD);
	queue_complete(&d, 10000, 10000, T0);
	assert_int_equal(txp_dql_set_min_limit(&d, 8000), 0);
	queue_complete(&d, 6000, 1000, T0 + 1);
	queue_complete(&d, 2000, 3000, T0 + 2);		/* busy: slack 4000 */
	queue_complete(&d, 1000, 1000, T0 + HOLD + 1);	/* would shrink to 6000 */
	assert_int_equal(txp_dql_limit(&d), 8000);
}

/* A queue that keeps up (everything in flight completes, under the limit,
 * no excess before it): the limit stays, clamped to what the setters asked
 * since; after an interval over a limit held by the clamp, a completion
 * that would otherwise keep up grows it by that excess (starved in the
 * previous interval). */
static void test_steady_state(void **state)
{
	struct txp_dql d;

	(void)state;
	txp_dql_init(&d, HOLD);
	queue_complete(&d, 100, 100, T0);		/* starved: 100 */
	for (unsigned i = 0; i < 3; i++) {
		queue_complete(&d, 60, 60, T0 + 2 * HOLD * (i + 1));
		assert_int_equal(txp_dql_limit(&d), 100);
		assert_int_equal(txp_dql_avail(&d), 100);
		assert_int_equal(txp_dql_inflight(&d), 0);
	}
	assert_int_equal(txp_dql_set_min_limit(&d, 150), 0);
	queue_complete(&d, 60, 60, T0 + 8 * HOLD);
	assert_int_equal(txp_dql_limit(&d), 150);	/* the clamp, at this completion */
	assert_int_equal(txp_dql_avail(&d), 150);

	assert_int_equal(txp_dql_set_max_limit(&d, 150), 0);
	queue_complete(&d, 200, 200, T0 + 9 * HOLD);	/* starved, held at 150: 50 over */
	assert_int_equal(txp_dql_limit(&d), 150);
	assert_int_equal(txp_dql_set_max_limit(&d, TXP_DQL_MAX_LIMIT), 0);
	queue_complete(&d, 60, 60, T0 + 10 * HOLD);
	assert_int_equal(txp_dql_limit(&d), 150 + 60 + 50);
	queue_complete(&d, 60, 60, T0 + 11 * HOLD);	/* the excess counted once */
	assert_int_equal(txp_dql_limit(&d), 260);
}

static void test_limit_setters_refuse(void **state)
{
	struct txp_dql d;

	(void)state;
	txp_dql_init(&d, HOLD);
	assert_int_equal(txp_dql_set_max_limit(&d, TXP_DQL_MAX_LIMIT + 1), -EINVAL);
	assert_int_equal(txp_dql_set_min_limit(&d, TXP_DQL_MAX_LIMIT + 1), -EINVAL);
	assert_int_equal(d.max_limit, TXP_DQL_MAX_LIMIT);
	assert_int_equal(txp_dql_set_max_limit(&d, 100), 0);
	assert_int_equal(txp_dql_set_min_limit(&d, 101), -EINVAL);
	assert_int_equal(txp_dql_set_min_limit(&d, 100), 0);
	assert_int_equal(txp_dql_set_max_limit(&d, 99), -EINVAL);
	assert_int_equal(d.min_limit, 100);
	assert_int_equal(d.max_limit, 100);
	/* Taken at the next completion, not before. */
	assert_int_equal(txp_dql_limit(&d), 0);
	queue_complete(&d, 10, 10, T0);
	assert_int_equal(txp_dql_limit(&d), 100);
}

static void test_reset(void **state)
{
	struct txp_dql d, fresh;

	(void)state;
	txp_dql_init(&d, HOLD);
	queue_complete(&d, 10000, 10000, T0);
	queue_complete(&d, 6000, 1000, T0 + 1);
	txp_dql_queued(&d, TXP_DQL_MAX_OBJECT + 1);	/* refused, counted */
	assert_int_equal(txp_dql_set_min_limit(&d, 700), 0);
	txp_dql_reset(&d);
	assert_int_equal(txp_dql_limit(&d), 700);
	assert_int_equal(txp_dql_avail(&d), 700);
	assert_int_equal(txp_dql_inflight(&d), 0);
	assert_int_equal(txp_counter_read(&d.queued_refused), 1);
	assert_int_equal(d.min_limit, 700);
	/* Then it is a fresh one with that minimum. */
	txp_dql_init(&fresh, HOLD);
	assert_int_equal(txp_dql_set_min_limit(&fresh, 700), 0);
	txp_dql_reset(&fresh);
	queue_complete(&d, 3000, 3000, T0 + 2);
	queue_complete(&fresh, 3000, 3000, T0 + 2);
	assert_int_equal(txp_dql_limit(&d), txp_dql_limit(&fresh));
	assert_int_equal(txp_dql_avail(&d), txp_dql_avail(&fresh));
}

/* A history that grows and shrinks the limit; its limits and avails. */
#define HISTORY 8
static void history(struct txp_dql *d, unsigned limit[HISTORY], int avail[HISTORY])
{
	static const struct { unsigned q, c; uint64_t t; } step[HISTORY] = {
		{ 1000, 1000, T0 }, { 3000, 3000, T0 + 1 }, { 6000, 1000, T0 + 2 },
		{ 2000, 3000, T0 + 3 }, { 500, 500, T0 + HOLD }, { 1000, 1000, T0 + HOLD + 4 },
		{ 500, 2000, T0 + HOLD + 5 }, { 0, 2500, T0 + HOLD + 6 },
	};

	for (int i = 0; i < HISTORY; i++) {
		queue_complete(d, step[i].q, step[i].c, step[i].t);
		limit[i] = txp_dql_limit(d);
		avail[i] = txp_dql_avail(d);
	}
}

static void test_wraps_near_uint_max(void **state)
{
	static const unsigned bases[] = { UINT_MAX - 500, UINT_MAX - 4000, UINT_MAX };
	unsigned limit0[HISTORY], limit[HISTORY];
	int avail0[HISTORY], avail[HISTORY];
	struct txp_dql d;

	(void)state;
	dql_fresh_at(&d, 0);
	history(&d, limit0, avail0);
	/* The history did grow and shrink the limit. */
	assert_true(limit0[1] > limit0[0]);
	assert_true(limit0[5] < limit0[4]);
	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		dql_fresh_at(&d, bases[b]);
		history(&d, limit, avail);
		assert_true(txp_load_relaxed(&d.num_queued) < bases[b]);	/* it wrapped */
		assert_memory_equal(limit, limit0, sizeof(limit));
		assert_memory_equal(avail, avail0, sizeof(avail));
	}
}

/* More completed than in flight: what is in flight completes, the excess
 * is counted, and the limit is what completing exactly that would give. */
static void test_overcompletion_clamped(void **state)
{
	struct txp_dql d, exact;

	(void)state;
	txp_dql_init(&d, HOLD);
	txp_dql_init(&exact, HOLD);
	queue_complete(&d, 1000, 1500, T0);
	queue_complete(&exact, 1000, 1000, T0);
	assert_int_equal(txp_counter_read(&d.completed_refused), 500);
	assert_int_equal(txp_counter_read(&exact.completed_refused), 0);
	assert_int_equal(txp_dql_inflight(&d), 0);
	assert_int_equal(txp_dql_limit(&d), txp_dql_limit(&exact));
	assert_int_equal(txp_dql_avail(&d), txp_dql_avail(&exact));
	/* Nothing in flight at all: all of it is excess. */
	txp_dql_completed(&d, 7, T0 + 1);
	assert_int_equal(txp_counter_read(&d.completed_refused), 500 + 7);
	assert_int_equal(txp_dql_inflight(&d), 0);
}

static void test_oversized_object_refused(void **state)
{
	struct txp_dql d;

	(void)state;
	txp_dql_init(&d, HOLD);
	txp_dql_queued(&d, TXP_DQL_MAX_OBJECT + 1);
	assert_int_equal(txp_dql_inflight(&d), 0);
	assert_int_equal(txp_dql_avail(&d), 0);
	assert_int_equal(txp_counter_read(&d.queued_refused), 1);
	txp_dql_queued(&d, TXP_DQL_MAX_OBJECT);
	assert_int_equal(txp_dql_inflight(&d), TXP_DQL_MAX_OBJECT);
	assert_int_equal(txp_counter_read(&d.queued_refused), 1);
	txp_dql_completed(&d, TXP_DQL_MAX_OBJECT, T0);
	assert_int_equal(txp_dql_limit(&d), TXP_DQL_MAX_OBJECT);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_avail),
		cmocka_unit_test(test_starved_empty_grows),
		cmocka_unit_test(test_starved_prev_interval_grows),
		cmocka_unit_test(test_slack_shrinks_after_hold),
		cmocka_unit_test(test_starvation_restarts_slack),
		cmocka_unit_test(test_clamps_hold),
		cmocka_unit_test(test_steady_state),
		cmocka_unit_test(test_limit_setters_refuse),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_wraps_near_uint_max),
		cmocka_unit_test(test_overcompletion_clamped),
		cmocka_unit_test(test_oversized_object_refused),
	};

	return txp_test_main(argc, argv, tests);
}
