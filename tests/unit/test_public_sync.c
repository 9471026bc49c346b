/*
 * test_public_sync.c - the public seam (txpath/sync.h), as a plugin calls
 * it: each atomic on each size touches exactly its object, cmpxchg is
 * strong and reports what it found, the bit operations work across words,
 * the irq lock variants nest the "interrupts off" flag as the kernel's do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/sync.h"

/* An object of each size between guards that must not change. */
struct guarded {
	uint64_t before;
	union {
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;
	} v;
	uint64_t after;
};

#define GUARD 0xa5a5a5a5a5a5a5a5ull

static void test_sizes_touch_their_object_only(void **state)
{
	static const size_t sizes[] = { 1, 2, 4, 8 };
	(void)state;

	for (size_t i = 0; i < 4; i++) {
		size_t n = sizes[i];
		uint64_t top = n == 8 ? UINT64_MAX : (1ull << (8 * n)) - 1, e;
		struct guarded g = { .before = GUARD, .after = GUARD };

		memset(&g.v, 0xff, sizeof(g.v));
		txp_atomic_store(&g.v, n, 0, TXP_RELEASE);
		assert_int_equal(txp_atomic_load(&g.v, n, TXP_ACQUIRE), 0);
		assert_int_equal(txp_atomic_fetch_add(&g.v, n, top, TXP_ACQ_REL), 0);
		assert_int_equal(txp_atomic_load(&g.v, n, TXP_RELAXED), top);
		/* Wraps within its size. */
		assert_int_equal(txp_atomic_fetch_add(&g.v, n, 2, TXP_SEQ_CST), top);
		assert_int_equal(txp_atomic_xchg(&g.v, n, 6, TXP_ACQ_REL), 1);
		assert_int_equal(txp_atomic_fetch_or(&g.v, n, 9, TXP_RELAXED), 6);
		assert_int_equal(txp_atomic_fetch_and(&g.v, n, 3, TXP_RELAXED), 15);
		e = 2;
		assert_false(txp_atomic_cmpxchg(&g.v, n, &e, 7, TXP_ACQ_REL));
		assert_int_equal(e, 3);
		assert_true(txp_atomic_cmpxchg(&g.v, n, &e, 7, TXP_ACQ_REL));
		assert_int_equal(txp_atomic_load(&g.v, n, TXP_SEQ_CST), 7);
		assert_true(g.before == GUARD && g.after == GUARD);
		if (n < 8)
			assert_int_equal(g.v.u64 >> (8 * n), UINT64_MAX >> (8 * n));
	}
}

static void test_typed_forms(void **state)
{
	struct { uint16_t idx; void *ptr; } s = { 0, NULL };
	(void)state;

	TXP_WRITE_ONCE(s.idx, 513);
	TXP_STORE_RELEASE(s.ptr, &s);
	assert_int_equal(TXP_READ_ONCE(s.idx), 513);
	assert_ptr_equal(TXP_LOAD_ACQUIRE(s.ptr), &s);
}

static void test_bits_across_words(void **state)
{
	unsigned long w[2] = { 0, 0 };
	unsigned hi = 8 * sizeof(long) + 3;
	(void)state;

	txp_set_bit(hi, w);
	assert_int_equal(w[0], 0);
	assert_true(txp_test_bit(hi, w));
	assert_false(txp_test_and_set_bit(1, w));
	assert_true(txp_test_and_set_bit(1, w));
	assert_true(txp_test_and_clear_bit(hi, w));
	assert_false(txp_test_and_clear_bit(hi, w));
	txp_clear_bit(1, w);
	assert_true(w[0] == 0 && w[1] == 0);
}

static void test_irq_variants_nest(void **state)
{
	struct txp_spinlock a, b;
	unsigned long fa, fb;
	(void)state;

	txp_spin_init(&a, "a");
	txp_spin_init(&b, "b");
	fa = txp_spin_lock_irqsave(&a);
	assert_true(txp_irqs_disabled() && txp_spin_is_locked(&a));
	assert_true(txp_spin_trylock_irqsave(&b, &fb));
	assert_false(txp_spin_trylock_irqsave(&b, &fb));
	/* A failed trylock_irqsave left the flag as it was: off. */
	assert_true(txp_irqs_disabled());
	txp_spin_unlock_irqrestore(&b, fb);
	assert_true(txp_irqs_disabled());
	txp_spin_unlock_irqrestore(&a, fa);
	assert_false(txp_irqs_disabled() || txp_spin_is_locked(&a));
	txp_spin_lock_irq(&a);
	assert_true(txp_irqs_disabled());
	txp_spin_unlock_irq(&a);
	assert_false(txp_irqs_disabled());
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_touch_their_object_only),
		cmocka_unit_test(test_typed_forms),
		cmocka_unit_test(test_bits_across_words),
		cmocka_unit_test(test_irq_variants_nest),
	};

	return txp_test_main(argc, argv, tests);
}
