/*
 * testutil.h - helpers shared by the cmocka tests: the accounting checks
 * every test ends with, and how to tell a sanitizer build; and the
 * runner every test's main() calls (../runner.h).
 *
 * Include after <cmocka.h>.  Not thread-safe: cmocka asserts may only be
 * made from the test's main thread.
 */
#ifndef TXP_TESTUTIL_H
#define TXP_TESTUTIL_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "../runner.h"
#include "txpath/dev.h"
#include "run/run.h"

/* TXP_TEST_TSAN: built with -fsanitize=thread (5-15x slower, other
 * interleavings): stress tests scale their packet counts down. */
#if defined(TXP_CHECK_PLAIN)	/* the explorer's instrumentation, not TSan */
#elif defined(__SANITIZE_THREAD__)
#define TXP_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TXP_TEST_TSAN 1
#endif
#endif
#ifndef TXP_TEST_TSAN
#define TXP_TEST_TSAN 0
#endif

/* TXP_TEST_ASAN: built with -fsanitize=address (2-5x slower). */
#if defined(__SANITIZE_ADDRESS__)
#define TXP_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TXP_TEST_ASAN 1
#endif
#endif
#ifndef TXP_TEST_ASAN
#define TXP_TEST_ASAN 0
#endif

/* A search whose point is its verdict (make test's time: the plain build
 * proves it; the sanitizer builds run the same code in smaller searches,
 * for its memory and thread safety).  ThreadSanitizer's millisecond per
 * fresh fiber context makes a search of minutes there; AddressSanitizer
 * runs one at a sixth of the speed.  In a cmocka test function. */
#define SKIP_UNDER_TSAN() do { if (TXP_TEST_TSAN) skip(); } while (0)
#define SKIP_UNDER_SANITIZERS() do { if (TXP_TEST_TSAN || TXP_TEST_ASAN) skip(); } while (0)

static inline uint64_t txp_test_dropped(const struct txp_dev_stats *st)
{
	uint64_t n = 0;

	for (int r = 0; r < TXP_DROP_NR; r++)
		n += st->dropped[r];
	return n;
}

/* DESIGN.md §4: every packet handed to the device was transmitted or
 * dropped with a reason.  Call with no packet in flight (device closed). */
static inline void txp_test_assert_accounted(const struct txp_dev *dev)
{
	struct txp_dev_stats st;

	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.submitted, st.transmitted + txp_test_dropped(&st));
}

/* What every finished txp_run() must show, whatever its knobs. */
static inline void txp_test_assert_run_clean(const struct txp_run_result *res)
{
	assert_false(res->stalled);
	assert_false(res->wedged);
	assert_true(res->accounted);
	assert_int_equal(res->dev.submitted, res->dev.transmitted + res->dropped);
	assert_int_equal(res->lost, 0);
	assert_int_equal(res->duplicated, 0);
	assert_true(res->drv.wire_measured);
	assert_int_equal(res->drv.wire.alien, 0);
	assert_int_equal(res->drv.ring_errors, 0);
	/* The wire saw each transmitted packet exactly once. */
	assert_int_equal(res->drv.wire.unique, res->dev.transmitted);
	assert_int_equal(res->drv.wire.frames, res->dev.transmitted);
}

/* A run on a thread of its own, so that a run that never returns fails
 * the test instead of hanging it.  Static storage: a stuck run is
 * abandoned, not joined. */
struct txp_test_bg_run {
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	char err[256];
	int rc;
	atomic_bool done;
};

static inline void *txp_test_bg_main(void *arg)
{
	struct txp_test_bg_run *r = arg;

	r->rc = txp_run(&r->cfg, &r->res, r->err, sizeof(r->err));
	atomic_store(&r->done, true);
	return NULL;
}

static inline double txp_test_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run r->cfg on its own thread; fail (naming what) unless it returns
 * within seconds, and returns 0. */
static inline void txp_test_run_bg(struct txp_test_bg_run *r, double seconds, const char *what)
{
	double t0 = txp_test_now_s();
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, txp_test_bg_main, r), 0);
	while (!atomic_load(&r->done)) {
		if (txp_test_now_s() - t0 > seconds)
			fail_msg("%s did not return", what);
		sched_yield();
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(r->rc, 0);
}

#endif
