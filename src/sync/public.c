/*
 * public.c - the public seam's atomics and barriers (txpath/sync.h), out
 * of line.
 *
 * Written once over the library's own inline operations (sync.h), so
 * that this file compiled into libtxpath gives plain C11 atomics and
 * compiled into libtxpath_check gives the check runtime's scheduling points,
 * under the same symbols.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sync.h"

/* The object at p as an atomic of type T (the seam's objects need not be
 * declared _Atomic: same size, same representation). */
#define AT(T, p) ((_Atomic T *)(uintptr_t)(p))

static _Noreturn void bad_size(size_t size)
{
	fprintf(stderr, "txpath: an atomic operation on %zu bytes: 1, 2, 4 or 8 only\n", size);
	abort();
}

/* Run STMT(T) for the unsigned type T of size bytes. */
#define BY_SIZE(size, STMT)				\
	switch (size) {					\
	case 1: STMT(uint8_t);				\
	case 2: STMT(uint16_t);				\
	case 4: STMT(uint32_t);				\
	case 8: STMT(uint64_t);				\
	default: bad_size(size);			\
	}

/*
 * ThreadSanitizer sees the order of an atomic operation, not a fence's
 * (smp_rmb, smp_wmb, dma_rmb: atomic_thread_fence).  A plugin pairing
 * WRITE_ONCE after smp_wmb() with smp_load_acquire() (r8169's cur_tx, read
 * by the NIC's kick from another context than the poster's) would be
 * reported racing on what the fence orders.  Under it, the public relaxed
 * operations are taken as acquire (a load), release (a store), or both (a
 * read-modify-write): stronger, so no outcome is added, and the
 * happens-before the kernel's fences make is seen.  Not in the check
 * build: there the memory model is the explorer's, and it sees fences.
 */
#if defined(TXP_TSAN) && !defined(TXP_CHECK)
static enum txp_order seen_by_tsan(enum txp_order o, enum txp_order relaxed_as)
{
	return o == TXP_RELAXED ? relaxed_as : o;
}
#else
#define seen_by_tsan(o, relaxed_as) (o)
#endif

#ifdef TXP_CHECK
#define load_as(a, mo) txp__check_load(a, mo)
#else
#define load_as(a, mo) atomic_load_explicit((a), (mo))
#endif

uint64_t txp_atomic_load(const volatile void *p, size_t size, enum txp_order o)
{
	o = seen_by_tsan(o, TXP_ACQUIRE);
	memory_order mo = o == TXP_RELAXED ? memory_order_relaxed
			: o == TXP_ACQUIRE ? memory_order_acquire : memory_order_seq_cst;

#define LOAD(T) return load_as(AT(T, p), mo)
	BY_SIZE(size, LOAD)
#undef LOAD
}

#ifdef TXP_CHECK
/* As txp_store_relaxed/_release, with the target named as the caller
 * wrote it. */
#define store_as(a, v, mo, what) txp__check_store_as(a, v, mo, what)
#else
#define store_as(a, v, mo, what) atomic_store_explicit((a), (v), (mo))
#endif

void txp_atomic_store_named(volatile void *p, size_t size, uint64_t v, enum txp_order o,
		       const char *what)
{
	(void)what;
	o = seen_by_tsan(o, TXP_RELEASE);
#define STORE(T) do {							\
		store_as(AT(T, p), (T)v, o == TXP_RELAXED ? memory_order_relaxed \
			 : memory_order_release, what);			\
		/* seq_cst: ordered before later loads too. */	\
		if (o != TXP_RELAXED && o != TXP_RELEASE)		\
			txp_smp_mb();					\
		return;							\
	} while (0)
	BY_SIZE(size, STORE)
#undef STORE
}

/* The read-modify-writes, with the kernel's orders: TXP_RELAXED unordered
 * (atomic_inc(), set_bit(); under tso a locked instruction all the same),
 * TXP_ACQUIRE and TXP_RELEASE as their _acquire and _release forms, any
 * other order fully ordered (the value-returning atomics, xchg()).
 * RMW(name, fn): the public function name over the C11 operation fn. */
static memory_order rmw_order(enum txp_order o)
{
	o = seen_by_tsan(o, TXP_ACQ_REL);
	return o == TXP_RELAXED ? memory_order_relaxed
	     : o == TXP_ACQUIRE ? memory_order_acquire
	     : o == TXP_RELEASE ? memory_order_release : memory_order_acq_rel;
}

/* txp__rmw with its order a constant, as the check build asks. */
#define RMW_ORDERED(fn, a, v, o)					\
	switch (rmw_order(o)) {						\
	case memory_order_relaxed: return txp__rmw(fn, a, v, memory_order_relaxed); \
	case memory_order_acquire: return txp__rmw(fn, a, v, memory_order_acquire); \
	case memory_order_release: return txp__rmw(fn, a, v, memory_order_release); \
	default: return txp__rmw(fn, a, v, memory_order_acq_rel);	\
	}
#define RMW_CASE(T, fn) RMW_ORDERED(fn, AT(T, p), (T)v, o)
#define RMW(name, fn)							\
	uint64_t name(volatile void *p, size_t size, uint64_t v, enum txp_order o) \
	{								\
		switch (size) {						\
		case 1: RMW_CASE(uint8_t, fn);				\
		case 2: RMW_CASE(uint16_t, fn);				\
		case 4: RMW_CASE(uint32_t, fn);				\
		case 8: RMW_CASE(uint64_t, fn);				\
		default: bad_size(size);				\
		}							\
	}

RMW(txp_atomic_xchg, atomic_exchange_explicit)
RMW(txp_atomic_fetch_add, atomic_fetch_add_explicit)
RMW(txp_atomic_fetch_or, atomic_fetch_or_explicit)
RMW(txp_atomic_fetch_and, atomic_fetch_and_explicit)

bool txp_atomic_cmpxchg(volatile void *p, size_t size, uint64_t *expected, uint64_t desired,
			enum txp_order o)
{
	(void)o;
#define CAS(T) do {							\
		T e = (T)*expected;					\
		bool ok;						\
		/* Strong: a weak failure with *p == e is retried. */	\
		while (!(ok = txp_cas(AT(T, p), &e, (T)desired)) && e == (T)*expected) \
			;						\
		*expected = e;						\
		return ok;						\
	} while (0)
	BY_SIZE(size, CAS)
#undef CAS
}

/* -- bits ------------------------------------------------------------------ */

#define BITS_PER_LONG (8 * sizeof(unsigned long))
#define BIT_WORD(nr, addr) ((addr) + (nr) / BITS_PER_LONG)
#define BIT_MASK(nr) (1ul << ((nr) % BITS_PER_LONG))

void txp_set_bit(unsigned nr, volatile unsigned long *addr)
{
	txp_atomic_fetch_or(BIT_WORD(nr, addr), sizeof(long), BIT_MASK(nr), TXP_RELAXED);
}

void txp_clear_bit(unsigned nr, volatile unsigned long *addr)
{
	txp_atomic_fetch_and(BIT_WORD(nr, addr), sizeof(long), ~BIT_MASK(nr), TXP_RELAXED);
}

bool txp_test_bit(unsigned nr, const volatile unsigned long *addr)
{
	return txp_atomic_load(BIT_WORD(nr, addr), sizeof(long), TXP_RELAXED) & BIT_MASK(nr);
}

bool txp_test_and_set_bit(unsigned nr, volatile unsigned long *addr)
{
	return txp_atomic_fetch_or(BIT_WORD(nr, addr), sizeof(long), BIT_MASK(nr), TXP_ACQ_REL) &
	       BIT_MASK(nr);
}

bool txp_test_and_clear_bit(unsigned nr, volatile unsigned long *addr)
{
	return txp_atomic_fetch_and(BIT_WORD(nr, addr), sizeof(long), ~BIT_MASK(nr), TXP_ACQ_REL) &
	       BIT_MASK(nr);
}

/* -- intended races -------------------------------------------------------- */

void txp_data_race_begin(void)
{
#ifdef TXP_CHECK
	txp_rt_data_race(true);
#endif
}

void txp_data_race_end(void)
{
#ifdef TXP_CHECK
	txp_rt_data_race(false);
#endif
}

/* -- barriers ------------------------------------------------------------------ */

void txp_mb(void)
{
	txp_smp_mb();
}

#ifdef TXP_CHECK
/* Under sc and tso loads are not reordered with loads, nor stores with
 * stores: a scheduling point that drains nothing; under arm smp_rmb and
 * smp_wmb order what they name (port.h). */
#define order_point(op) txp_rt_point((op), NULL, 0)
#else
#define order_point(op) ((void)0)
#endif

void txp_rmb(void)
{
	order_point(TXP_OP_RMB);
	atomic_thread_fence(memory_order_acquire);
}

void txp_wmb(void)
{
	order_point(TXP_OP_WMB);
	atomic_thread_fence(memory_order_release);
}

void txp_mb_after_atomic(void)
{
	txp_smp_mb__after_atomic();
}

void txp_mb_before_atomic(void)
{
	txp_smp_mb__before_atomic();
}

void txp_relax(void)
{
	txp_cpu_relax();
}
