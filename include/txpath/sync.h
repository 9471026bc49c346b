/*
 * txpath/sync.h - the public concurrency seam: what a driver synchronises
 * with.
 *
 * Spin locks, "interrupts" off and on, atomics with explicit orders,
 * barriers, once-reads and once-writes, cpu_relax.  Every operation here
 * is an out-of-line function that both libraries provide under the same
 * symbol: libtxpath as a plain C11 operation, libtxpath_check (the binary
 * behind `txpath check`) as a scheduling point of the schedule explorer
 * followed by that operation, with the store buffer of the memory model
 * tso in between.  So a driver is compiled once, against this header
 * alone, and whichever program loads it decides which it runs under.
 * Inside the library the hot paths use inline versions of the same
 * operations (src/sync/sync.h); a call here costs a function call more
 * (docs/checking-your-driver.md has the figure).
 *
 * What the explorer schedules around is what goes through here: a shared
 * field that is read or written outside the lock that guards it is read
 * and written with these operations (READ_ONCE, smp_load_acquire, ... in
 * txpath/linux.h).  A plain access is seen too, where the code is built
 * for it (txpath config --cflags): through the memory model, and
 * by the data-race detector, which reports it when it races.
 *
 * From C++ (17 or later) the header is the same API: the lock's two
 * atomic ints are std::atomic<int> there, which has the size, alignment
 * and lock-free representation of C11's atomic_int (both checked below),
 * so that a struct txp_spinlock has one layout in both languages.
 */
#ifndef TXPATH_SYNC_H
#define TXPATH_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#include <atomic>
/* The atomic int of struct txp_spinlock, as each language spells it. */
typedef std::atomic<int> txp_atomic_int;
static_assert(sizeof(txp_atomic_int) == sizeof(int) && alignof(txp_atomic_int) == alignof(int) &&
	      ATOMIC_INT_LOCK_FREE == 2, "std::atomic<int> is laid out as a plain int");
extern "C" {
#else
#include <stdatomic.h>
typedef atomic_int txp_atomic_int;
_Static_assert(sizeof(txp_atomic_int) == sizeof(int) && _Alignof(txp_atomic_int) == _Alignof(int) &&
	       ATOMIC_INT_LOCK_FREE == 2, "atomic_int is laid out as a plain int");
#endif

/* -- spin locks ------------------------------------------------------------ */

/* A test-and-test-and-set lock that records the context holding it.  The
 * site arguments (the caller's function, given by the macros) are what
 * the lock validator and the diagrams name. */
struct txp_spinlock {
	txp_atomic_int locked;
	txp_atomic_int owner;	/* context id of the holder, -1 if none */
	const char *name;	/* its lock class: "queue lock", "&tp->tx_lock" */
};

/* Unlocked, of class name (kept, not copied).  A name that starts with
 * '&' (the lock as written, which spin_lock_init gives) is drawn in the
 * kernel's words, "spin_lock(&tp->tx_lock)", with the caller's function. */
void txp_spin_init(struct txp_spinlock *l, const char *name);
/* Acquire (pairs with the release in unlock); trylock: false if held. */
bool txp_spin_trylock_at(struct txp_spinlock *l, const char *site);
void txp_spin_lock_at(struct txp_spinlock *l, const char *site);
void txp_spin_unlock_at(struct txp_spinlock *l, const char *site);
/* The same with "interrupts" off: _irq turns them off then on again,
 * _irqsave saves and restores them (nesting). */
void txp_spin_lock_irq_at(struct txp_spinlock *l, const char *site);
void txp_spin_unlock_irq_at(struct txp_spinlock *l, const char *site);
unsigned long txp_spin_lock_irqsave_at(struct txp_spinlock *l, const char *site);
bool txp_spin_trylock_irqsave_at(struct txp_spinlock *l, unsigned long *flags, const char *site);
void txp_spin_unlock_irqrestore_at(struct txp_spinlock *l, unsigned long flags, const char *site);
#define txp_spin_trylock(l)              txp_spin_trylock_at((l), __func__)
#define txp_spin_lock(l)                 txp_spin_lock_at((l), __func__)
#define txp_spin_unlock(l)               txp_spin_unlock_at((l), __func__)
#define txp_spin_lock_irq(l)             txp_spin_lock_irq_at((l), __func__)
#define txp_spin_unlock_irq(l)           txp_spin_unlock_irq_at((l), __func__)
#define txp_spin_lock_irqsave(l)         txp_spin_lock_irqsave_at((l), __func__)
#define txp_spin_trylock_irqsave(l, fp)  txp_spin_trylock_irqsave_at((l), (fp), __func__)
#define txp_spin_unlock_irqrestore(l, f) txp_spin_unlock_irqrestore_at((l), (f), __func__)
/* Owner as last recorded; exact only for the holder asking about itself. */
int txp_spin_owner(const struct txp_spinlock *l);
bool txp_spin_is_locked(const struct txp_spinlock *l);

/* -- "interrupts" ------------------------------------------------------------ */

/* Each context has an "interrupts off" flag, as a CPU does: nothing is
 * masked in user space, the lock validator checks the rules.  disable
 * and enable set and clear it, save and restore nest. */
bool txp_irqs_disabled(void);
bool txp_in_irq(void);
void txp_local_irq_disable_at(const char *site);
void txp_local_irq_enable_at(const char *site);
unsigned long txp_local_irq_save_at(const char *site);
void txp_local_irq_restore_at(unsigned long flags, const char *site);
#define txp_local_irq_disable()     txp_local_irq_disable_at(__func__)
#define txp_local_irq_enable()      txp_local_irq_enable_at(__func__)
#define txp_local_irq_save()        txp_local_irq_save_at(__func__)
#define txp_local_irq_restore(f)    txp_local_irq_restore_at((f), __func__)

/* -- atomics ------------------------------------------------------------------- */

enum txp_order {
	TXP_RELAXED,
	TXP_ACQUIRE,	/* loads, and the read of a read-modify-write */
	TXP_RELEASE,	/* stores, and the write of a read-modify-write */
	TXP_ACQ_REL,	/* read-modify-writes */
	TXP_SEQ_CST,
};

/*
 * On the naturally aligned object of size bytes (1, 2, 4 or 8) at p,
 * which need not be declared _Atomic: values travel as uint64_t.  A
 * load with TXP_RELEASE (or a store with TXP_ACQUIRE) is taken as
 * TXP_SEQ_CST.  cmpxchg: true and *p = desired if *p was *expected, else
 * false and *expected = *p (strong: no spurious failure).
 */
uint64_t txp_atomic_load(const volatile void *p, size_t size, enum txp_order o);
/* what: the target as written ("&tp->tx_cons"), for the diagrams of the
 * memory model tso, which draw a store when it reaches memory. */
void txp_atomic_store_named(volatile void *p, size_t size, uint64_t v, enum txp_order o,
		       const char *what);
#define txp_atomic_store(p, size, v, o) txp_atomic_store_named((p), (size), (v), (o), #p)
uint64_t txp_atomic_xchg(volatile void *p, size_t size, uint64_t v, enum txp_order o);
bool txp_atomic_cmpxchg(volatile void *p, size_t size, uint64_t *expected, uint64_t desired,
			enum txp_order o);
/* The value before.  TXP_RELAXED: unordered, as the kernel's atomic_inc()
 * (under the memory model tso a locked instruction, a full barrier, as on
 * x86; under arm ordered by nothing but txp_mb_before/after_atomic());
 * TXP_ACQUIRE, TXP_RELEASE: the kernel's _acquire and _release forms
 * (under tso full barriers all the same); TXP_ACQ_REL, TXP_SEQ_CST: fully
 * ordered, as its value-returning atomics (atomic_inc_return(), xchg()).
 * cmpxchg is fully ordered whatever o. */
uint64_t txp_atomic_fetch_add(volatile void *p, size_t size, uint64_t v, enum txp_order o);
uint64_t txp_atomic_fetch_or(volatile void *p, size_t size, uint64_t v, enum txp_order o);
uint64_t txp_atomic_fetch_and(volatile void *p, size_t size, uint64_t v, enum txp_order o);

/* Bit nr of the unsigned long array at addr, with the kernel's orders:
 * set_bit and clear_bit unordered (relaxed read-modify-writes, above),
 * test_bit a relaxed load, the test_and_ forms fully ordered. */
void txp_set_bit(unsigned nr, volatile unsigned long *addr);
void txp_clear_bit(unsigned nr, volatile unsigned long *addr);
bool txp_test_bit(unsigned nr, const volatile unsigned long *addr);
bool txp_test_and_set_bit(unsigned nr, volatile unsigned long *addr);
bool txp_test_and_clear_bit(unsigned nr, volatile unsigned long *addr);

/* Type-generic forms on an lvalue x of integer or pointer type. */
#define TXP_ATOMIC_LOAD(x, o) \
	((__typeof__(x))(uintptr_t)txp_atomic_load(&(x), sizeof(x), (o)))
#define TXP_ATOMIC_STORE(x, v, o) \
	txp_atomic_store_named(&(x), sizeof(x), (uint64_t)(uintptr_t)(v), (o), #x)
#define TXP_READ_ONCE(x)         TXP_ATOMIC_LOAD(x, TXP_RELAXED)
#define TXP_WRITE_ONCE(x, v)     TXP_ATOMIC_STORE(x, v, TXP_RELAXED)
#define TXP_LOAD_ACQUIRE(x)      TXP_ATOMIC_LOAD(x, TXP_ACQUIRE)
#define TXP_STORE_RELEASE(x, v)  TXP_ATOMIC_STORE(x, v, TXP_RELEASE)

/* -- barriers ------------------------------------------------------------------ */

/* Full (smp_mb: orders earlier stores before later loads), read
 * (smp_rmb), write (smp_wmb), and the full barrier an unordered
 * read-modify-write (set_bit, a TXP_RELAXED one) lacks, after or before
 * it (smp_mb__after_atomic, smp_mb__before_atomic): on x86 and under the
 * memory models sc and tso only the compiler's (the locked instruction
 * is one), on arm64 and under arm a full barrier. */
void txp_mb(void);
void txp_rmb(void);
void txp_wmb(void);
void txp_mb_after_atomic(void);
void txp_mb_before_atomic(void);
/* A busy-wait loop's pause (cpu_relax); in the check build, the context
 * waits until something it read changes. */
void txp_relax(void);

/* Between begin and end, the calling context's accesses are meant to
 * race (data_race() in txpath/linux.h): the check's data-race detector
 * leaves them out.  They nest; nothing in the normal library. */
void txp_data_race_begin(void);
void txp_data_race_end(void);

/* -- events -------------------------------------------------------------------- */

/* An event of the caller's own for the explorer's diagram, drawn as
 * "site: event" (both kept, not copied); nothing in the normal library. */
void txp_event_at(const char *event, const char *site);

#ifdef __cplusplus
}
#endif

#endif
