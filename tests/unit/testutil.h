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

#include <stdint.h>

#include "../runner.h"
#include "txpath/dev.h"
#include "txpath/run.h"

/* TXP_TEST_TSAN: built with -fsanitize=thread (5-15x slower, other
 * interleavings): stress tests scale their packet counts down. */
#if defined(__SANITIZE_THREAD__)
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
	assert_true(res->accounted);
	assert_int_equal(res->dev.submitted, res->dev.transmitted + res->dropped);
	assert_int_equal(res->lost, 0);
	assert_int_equal(res->duplicated, 0);
	assert_true(res->drv.wire_measured);
	assert_int_equal(res->drv.wire_alien, 0);
	assert_int_equal(res->drv.ring_errors, 0);
	/* The wire saw each transmitted packet exactly once. */
	assert_int_equal(res->drv.wire_unique, res->dev.transmitted);
	assert_int_equal(res->drv.wire_frames, res->dev.transmitted);
}

#endif
