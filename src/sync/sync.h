/*
 * sync.h - the one concurrency seam of txpath, as the library sees it.
 *
 * Every shared-memory synchronisation of the library goes through here:
 * spin locks that record their owner and the per-context "interrupts
 * off" flag (declared in the public txpath/sync.h, which drivers use
 * too), atomics with named orderings inline for the hot paths, threads.
 * Nothing else in src/ uses <stdatomic.h> or <pthread.h> for
 * synchronisation, so the check build (-DTXP_CHECK) turns each operation
 * below into a scheduling point of a check runtime, through the calls of
 * port.h (DESIGN.md §6).  In the normal build they are plain C11 atomics
 * and cost nothing more.
 *
 * The seam depends on nothing above it: who runs the check build's
 * contexts provides port.h; the lock validator (validator.c) and diagrams
 * observe it through the observers at the end of this file.
 */
#ifndef TXP_SYNC_H
#define TXP_SYNC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port.h"
#include "txpath/ctx.h"
#include "txpath/sync.h"

#define TXP_CACHELINE 64
#define txp_cacheline_aligned _Alignas(TXP_CACHELINE)

#define txp_likely(x)   __builtin_expect(!!(x), 1)
#define txp_unlikely(x) __builtin_expect(!!(x), 0)

/* TXP_TSAN: under ThreadSanitizer.  Not the check build's own use of its
 * instrumentation (TXP_CHECK_PLAIN: the explorer serves the calls). */
#if defined(TXP_CHECK_PLAIN)
#elif defined(__SANITIZE_THREAD__)
#define TXP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TXP_TSAN 1
#endif
#endif

/* -- per-context state ------------------------------------------------ */

/*
 * What a CPU keeps per CPU (which context it is, "interrupts off"):
 * declared txp_local, and registered with TXP_LOCAL(var) after its
 * definition.  Thread-local in the normal build.  In the check build the
 * runtime runs its contexts as fibers of one thread: each such variable
 * is listed in the section txp_locals, and the runtime switches them all
 * with the context; the variables themselves are in the section
 * txp_local_vars, so that one range tells an access of one of them.
 */
#ifdef TXP_CHECK
struct txp_local_var {
	void *addr;
	size_t size;
};
#define txp_local __attribute__((section("txp_local_vars")))
#define TXP_LOCAL(var)							\
	static const struct txp_local_var txp__local_##var			\
	__attribute__((section("txp_locals"), used, aligned(16))) = { (void *)&(var), sizeof(var) }
#else
#define txp_local _Thread_local
#define TXP_LOCAL(var) _Static_assert(1, #var)
#endif

/* -- atomics --------------------------------------------------------- */

/* A full fence in hardware: smp_mb().  TSan does not model fences:
 * there, a seq_cst read-modify-write of one shared word stands in, which
 * orders the same way and which TSan sees. */
#ifdef TXP_TSAN
extern _Atomic unsigned txp__mb_word;
#define txp__mb_hw() ((void)atomic_fetch_add_explicit(&txp__mb_word, 0, memory_order_seq_cst))
#else
#define txp__mb_hw() atomic_thread_fence(memory_order_seq_cst)
#endif

/* The fence an unordered read-modify-write (set_bit, clear_bit,
 * atomic_inc: the _relaxed forms below) lacks, smp_mb__before_atomic()
 * and smp_mb__after_atomic(): on x86 none, the locked instruction is one
 * (only the compiler is ordered); elsewhere a full fence (arm64's dmb). */
#if defined(__x86_64__) || defined(__i386__)
#define txp__mb_atomic_hw() atomic_signal_fence(memory_order_seq_cst)
#else
#define txp__mb_atomic_hw() txp__mb_hw()
#endif

#ifndef TXP_CHECK

#define txp_load_relaxed(p)      atomic_load_explicit((p), memory_order_relaxed)
#define txp_load_acquire(p)      atomic_load_explicit((p), memory_order_acquire)
#define txp_store_relaxed(p, v)  atomic_store_explicit((p), (v), memory_order_relaxed)
#define txp_store_release(p, v)  atomic_store_explicit((p), (v), memory_order_release)
#define txp_xchg(p, v)           atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define txp_fetch_add(p, v)      atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define txp_fetch_sub(p, v)      atomic_fetch_sub_explicit((p), (v), memory_order_acq_rel)
#define txp_fetch_or(p, v)       atomic_fetch_or_explicit((p), (v), memory_order_acq_rel)
#define txp_fetch_and(p, v)      atomic_fetch_and_explicit((p), (v), memory_order_acq_rel)
/* The read-modify-write fn (atomic_fetch_or_explicit, ...) of v at p
 * with the C11 order mo (a constant), as the kernel's _relaxed, _acquire
 * and _release forms. */
#define txp__rmw(fn, p, v, mo)   fn((p), (v), (mo))
#define txp_cas(p, expp, v)                                                \
	atomic_compare_exchange_weak_explicit((p), (expp), (v),            \
					      memory_order_acq_rel,        \
					      memory_order_relaxed)
/* Full barrier: smp_mb().  Orders earlier stores before later loads. */
#define txp_smp_mb()             txp__mb_hw()
/* After (or before) an unordered read-modify-write, the full barrier it
 * lacks: smp_mb__after_atomic(), smp_mb__before_atomic(). */
#define txp_smp_mb__after_atomic()  txp__mb_atomic_hw()
#define txp_smp_mb__before_atomic() txp__mb_atomic_hw()

static inline void txp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#else /* TXP_CHECK: every operation is a scheduling point */

/* The plain type of the atomic object at p (for pointers too). */
#define txp__plain_type(p) __typeof__(atomic_load_explicit((p), memory_order_relaxed))
/* p as the calling context sees it: its newest buffered store (tso),
 * else memory.  No scheduling point. */
#define txp__check_read(p, order) __extension__ ({			\
	txp__plain_type(p) v_;						\
	uint64_t b_;							\
	if (txp_rt_forward((p), sizeof(*(p)), &b_))			\
		v_ = (txp__plain_type(p))(uintptr_t)b_;			\
	else								\
		v_ = atomic_load_explicit((p), (order));		\
	v_; })
/* Store the value s (evaluated already) at p through the calling
 * context's store buffer (tso, arm); true if it went to memory at once.
 * No scheduling point.  what: p as written, for the diagrams. */
#define txp__check_write(p, s, order, what) __extension__ ({		\
	bool m_ = !txp_rt_buffer((p), sizeof(*(p)), (uint64_t)(uintptr_t)(s), \
				    (order) != memory_order_relaxed, (what)); \
	if (m_)								\
		atomic_store_explicit((p), (s), (order));		\
	m_; })
/* A load: its own buffered store, an older write (arm), or memory. */
#define txp__check_load(p, order) __extension__ ({			\
	txp__plain_type(p) v_;						\
	uint64_t b_;							\
	txp_rt_point(TXP_OP_LOAD, (p), sizeof(*(p)));		\
	if (txp_rt_load((p), sizeof(*(p)), (order) != memory_order_relaxed, #p, &b_)) \
		v_ = (txp__plain_type(p))(uintptr_t)b_;			\
	else								\
		v_ = atomic_load_explicit((p), (order));		\
	v_; })
/* The store protocol: a scheduling point, then the value s (evaluated
 * already) through the store buffer or to memory, waking whoever waits on
 * it.  what: p as written. */
#define txp__check_store_as(p, s, order, what) do {			\
	txp_rt_point(TXP_OP_STORE, (p), sizeof(*(p)));			\
	if (txp__check_write(p, s, order, what))			\
		txp_rt_wrote(p);					\
} while (0)
/* The value first: a load in it is a scheduling point of its own, before
 * the store's. */
#define txp__check_store(p, v, order) __extension__ ({			\
	txp__plain_type(p) s_ = (v);					\
	txp__check_store_as(p, s_, order, #p);				\
	(void)0; })
#define txp__check_rmw_as(op, p, expr) __extension__ ({		\
	txp_rt_point((op), (p), sizeof(*(p)));			\
	__typeof__(expr) r_ = (expr);					\
	txp_rt_wrote(p);						\
	r_; })
#define txp__check_rmw(p, expr) txp__check_rmw_as(TXP_OP_RMW, p, expr)
/* Weak, as in the shipped build: under arm it may fail spuriously (the
 * plan's choice), leaving *expp the value it found, which it then equals. */
#define txp__check_cas(p, expp, v) __extension__ ({			\
	bool ok_;							\
	txp_rt_point(TXP_OP_RMW, (p), sizeof(*(p)));			\
	if (txp_rt_cas_fails((p), atomic_load_explicit((p), memory_order_relaxed) == *(expp), #p)) { \
		*(expp) = atomic_load_explicit((p), memory_order_relaxed); \
		ok_ = false;						\
	} else {							\
		ok_ = atomic_compare_exchange_strong_explicit((p), (expp), (v), \
				memory_order_acq_rel, memory_order_relaxed); \
	}								\
	txp_rt_wrote(p);						\
	ok_; })

#define txp_load_relaxed(p)      txp__check_load(p, memory_order_relaxed)
#define txp_load_acquire(p)      txp__check_load(p, memory_order_acquire)
#define txp_store_relaxed(p, v)  txp__check_store(p, v, memory_order_relaxed)
#define txp_store_release(p, v)  txp__check_store(p, v, memory_order_release)
#define txp_xchg(p, v)           txp__check_rmw(p, atomic_exchange_explicit((p), (v), memory_order_acq_rel))
#define txp_fetch_add(p, v)      txp__check_rmw(p, atomic_fetch_add_explicit((p), (v), memory_order_acq_rel))
#define txp_fetch_sub(p, v)      txp__check_rmw(p, atomic_fetch_sub_explicit((p), (v), memory_order_acq_rel))
#define txp_fetch_or(p, v)       txp__check_rmw(p, atomic_fetch_or_explicit((p), (v), memory_order_acq_rel))
#define txp_fetch_and(p, v)      txp__check_rmw(p, atomic_fetch_and_explicit((p), (v), memory_order_acq_rel))
/* What a read-modify-write of the C11 order mo orders (port.h). */
#define txp__rmw_op(mo)							\
	((mo) == memory_order_relaxed ? TXP_OP_RMW_RELAXED :		\
	 (mo) == memory_order_acquire ? TXP_OP_RMW_ACQUIRE :		\
	 (mo) == memory_order_release ? TXP_OP_RMW_RELEASE : TXP_OP_RMW)
#define txp__rmw(fn, p, v, mo)   txp__check_rmw_as(txp__rmw_op(mo), p, fn((p), (v), (mo)))
#define txp_cas(p, expp, v)      txp__check_cas(p, expp, v)
#define txp_smp_mb() (txp_rt_point(TXP_OP_FENCE, NULL, 0), txp__mb_hw())
#define txp_smp_mb__after_atomic() (txp_rt_point(TXP_OP_ORDER, NULL, 0), txp__mb_atomic_hw())
#define txp_smp_mb__before_atomic() txp_smp_mb__after_atomic()
#define txp_cpu_relax() txp_rt_idle()

#endif /* TXP_CHECK */

/* Unordered read-modify-writes (set_bit, clear_bit, atomic_inc): order
 * nothing but their own word (on x86 a locked instruction all the same,
 * a full barrier; on ARM64 not). */
#define txp_fetch_add_relaxed(p, v) txp__rmw(atomic_fetch_add_explicit, p, v, memory_order_relaxed)
#define txp_fetch_or_relaxed(p, v)  txp__rmw(atomic_fetch_or_explicit, p, v, memory_order_relaxed)
#define txp_fetch_and_relaxed(p, v) txp__rmw(atomic_fetch_and_explicit, p, v, memory_order_relaxed)

/*
 * An ordered statistic: a value other contexts compare with the seam's own
 * stores (the stop generation, with the stopped flag), so it must become
 * visible in order with them: a release store by its single writer, an
 * acquire load.  In the check build it goes through the store buffer (tso,
 * arm), in order with its writer's other stores and read back by it (its
 * newest value, never an older one), but is never a scheduling point.
 */
#ifdef TXP_CHECK
#define txp_stat_store_release(p, v) __extension__ ({			\
	txp__plain_type(p) s_ = (v);					\
	(void)txp__check_write(p, s_, memory_order_release, #p); })
#define txp_stat_load_acquire(p) txp__check_read(p, memory_order_acquire)
#else
#define txp_stat_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define txp_stat_load_acquire(p)     atomic_load_explicit((p), memory_order_acquire)
#endif

/*
 * Counters: statistics, never synchronisation, so never scheduling points
 * in the check build.
 *
 * txp_counter_add is for a single-writer counter: one context only ever
 * adds to it (its own per-context slot, or a field that only the
 * completion context writes); anyone may read.  A relaxed load+store
 * pair, not a locked read-modify-write, so free on the hot path and still
 * data-race-free for readers; but two writers lose increments.  In the
 * check build each such counter's writer is recorded, and a second
 * context writing it is a violation the runtime reports with its
 * schedule (txp_rt_counter()).
 *
 * txp_counter_add_shared and txp_counter_inc_shared are for a counter
 * several contexts may bump (producers and the completion context, or
 * producers in turn under a lock): a relaxed atomic add, which never
 * loses an increment.
 */
#define txp_counter_read(p) atomic_load_explicit((p), memory_order_relaxed)
#ifdef TXP_CHECK
#define txp_counter_add(p, v) (txp_rt_counter((p), #p),		\
	atomic_store_explicit((p), txp_counter_read(p) + (v), memory_order_relaxed))
#else
#define txp_counter_add(p, v) \
	atomic_store_explicit((p), txp_counter_read(p) + (v), memory_order_relaxed)
#endif
#define txp_counter_add_shared(p, v) \
	((void)atomic_fetch_add_explicit((p), (v), memory_order_relaxed))
#define txp_counter_inc_shared(p) txp_counter_add_shared((p), 1)

/* Spin politely while waiting for a lock or a condition: pause a while,
 * then give the CPU away (a holder may be preempted: user space has no
 * "interrupts off" to stop that). */
void txp_spin_wait(unsigned *spins);

/* -- spin lock with owner -------------------------------------------- */

/* struct txp_spinlock and its operations are public (txpath/sync.h), as
 * dev->xmit_lock and dev->xmit_lock_owner were in Linux 2.6. */
#define TXP_NO_OWNER (-1)

/* -- contexts --------------------------------------------------------- */

/*
 * A context is the user-space stand-in for a CPU: a thread that registered
 * (explicitly with txp_ctx_attach(), or lazily on first use).  Its small
 * integer id indexes per-context counters and is what locks record as
 * their owner.
 */
int txp__ctx_attach_slow(void);
extern txp_local int txp__ctx_id;	/* 0: not attached, else id + 1 */

/*
 * Two ranges of ids, so that neither can run out for the other: the
 * callers' threads (txp_ctx_attach(): 0..TXP_MAX_CTX - 1, as txpath/ctx.h
 * promises), and the library's own threads, a device's completion
 * contexts (txp_thread_start_internal(): TXP_MAX_CTX..TXP__CTX_IDS - 1).
 * A run's producers and its device's completion contexts once shared the
 * 64 ids, and 64 queues took them all: a producer then waited for one
 * for ever, and a thread that needed one waited under a qdisc lock.
 * TXP__CTX_INTERNAL: the completion contexts of two devices of
 * TXP_DEV_MAX_QUEUES (txpath/dev.h) queues at once; a device that finds
 * none left fails to open with -EBUSY, never waits.
 */
#define TXP__CTX_INTERNAL 128
#define TXP__CTX_IDS (TXP_MAX_CTX + TXP__CTX_INTERNAL)

/* The smallest id >= from ever handed out, -1 if none: who sums
 * per-context state looks at those ids only (the others' slots are all
 * zero), for (id = txp__ctx_id_next(0); id >= 0; id = txp__ctx_id_next(id
 * + 1)).  Relaxed: an id is marked before it is handed out, so a context
 * sees its own; another's counts may be seen a moment late, as any of its
 * counts may. */
int txp__ctx_id_next(int from);

/* The calling context's id, attaching the thread if needed. */
static inline int txp_ctx_self(void)
{
	int id = txp__ctx_id;

	return txp_likely(id) ? id - 1 : txp__ctx_attach_slow();
}

/*
 * The spin lock's fast paths, inline.  spin_trylock's test and exchange
 * are the lock (sync.c's operations use them too).  In the normal build
 * the library's own txp_spin_trylock/lock/unlock take the inline path
 * while nothing observes the seam (no validator, no diagrams), and the
 * out-of-line operations of txpath/sync.h otherwise; drivers outside the
 * library always call those.  The check build calls them always: each of
 * their operations is a scheduling point already.
 */
/* The same for a caller that knows its context id (self), so that a hot
 * path that takes several locks reads its thread-local id once. */
static inline bool txp__spin_trylock_raw_as(struct txp_spinlock *l, int self)
{
	/* Test first: a failed trylock must not steal the line from the
	 * holder (nor, in the check build, wake the other spinners). */
	if (txp_load_relaxed(&l->locked))
		return false;
	/* Acquire: pairs with the release in txp__spin_unlock_raw(). */
	if (txp_xchg(&l->locked, 1))
		return false;
	/* The owner is bookkeeping, read only to compare with oneself: not
	 * a scheduling point. */
	atomic_store_explicit(&l->owner, self, memory_order_relaxed);
	return true;
}

static inline bool txp__spin_trylock_raw(struct txp_spinlock *l)
{
	return txp__spin_trylock_raw_as(l, txp_ctx_self());
}

static inline void txp__spin_unlock_raw(struct txp_spinlock *l)
{
	atomic_store_explicit(&l->owner, TXP_NO_OWNER, memory_order_relaxed);
	/* Release: pairs with the acquire in txp__spin_trylock_raw(). */
	txp_store_release(&l->locked, 0);
}

/* txp_spin_owner(), inline. */
static inline int txp__spin_owner_raw(const struct txp_spinlock *l)
{
	return atomic_load_explicit(&((struct txp_spinlock *)l)->owner, memory_order_relaxed);
}

/* Does an observer watch the seam (txp_sync_observe())?  Set and cleared
 * while no context runs: read without ordering. */
extern bool txp__sync_watched;

#ifndef TXP_CHECK
static inline bool txp__spin_trylock_inline(struct txp_spinlock *l, const char *site)
{
	if (txp_likely(!txp__sync_watched))
		return txp__spin_trylock_raw(l);
	return txp_spin_trylock_at(l, site);
}

static inline bool txp__spin_trylock_inline_as(struct txp_spinlock *l, int self,
					       const char *site)
{
	if (txp_likely(!txp__sync_watched))
		return txp__spin_trylock_raw_as(l, self);
	return txp_spin_trylock_at(l, site);
}

static inline void txp__spin_lock_inline_as(struct txp_spinlock *l, int self, const char *site)
{
	if (txp_unlikely(txp__sync_watched) || !txp__spin_trylock_raw_as(l, self))
		txp_spin_lock_at(l, site);
}

static inline void txp__spin_lock_inline(struct txp_spinlock *l, const char *site)
{
	txp__spin_lock_inline_as(l, txp_ctx_self(), site);
}

static inline void txp__spin_unlock_inline(struct txp_spinlock *l, const char *site)
{
	if (txp_likely(!txp__sync_watched))
		txp__spin_unlock_raw(l);
	else
		txp_spin_unlock_at(l, site);
}

#undef txp_spin_trylock
#undef txp_spin_lock
#undef txp_spin_unlock
#define txp_spin_trylock(l) txp__spin_trylock_inline((l), __func__)
#define txp_spin_lock(l)    txp__spin_lock_inline((l), __func__)
#define txp_spin_unlock(l)  txp__spin_unlock_inline((l), __func__)
/* txp_spin_trylock/lock by a caller whose context id is self (it must be
 * txp_ctx_self()): the id is not read again. */
#define txp_spin_trylock_as(l, self) txp__spin_trylock_inline_as((l), (self), __func__)
#define txp_spin_lock_as(l, self)    txp__spin_lock_inline_as((l), (self), __func__)
#else
#define txp_spin_trylock_as(l, self) ((void)(self), txp_spin_trylock(l))
#define txp_spin_lock_as(l, self)    ((void)(self), txp_spin_lock(l))
#endif

/*
 * A function whose contract is "caller holds l" says so in its first
 * comment line and asserts it here.  Checked where TXP_ASSERT_LOCKS is
 * defined (the sanitizer builds and the check build, where the tests
 * run), free elsewhere.  A failure names the lock and the function and
 * aborts, as assert() does: it is the library's own bug, not its caller's.
 */
#ifdef TXP_ASSERT_LOCKS
#define txp_assert_held(l) \
	((void)(txp_spin_owner(l) == txp_ctx_self() || (txp__assert_held_failed(#l, __func__), 0)))
void txp__assert_held_failed(const char *lock, const char *func) __attribute__((noreturn));
#else
#define txp_assert_held(l) ((void)0)
#endif

/* -- "interrupts" --------------------------------------------------------- */

/*
 * Each context has an "interrupts off" flag, as a CPU does; nothing is
 * masked in user space, but the lock validator checks the rules the
 * 2.6.11-rc2 design imposed.  Like the kernel's: disable/enable set and
 * clear the flag (spin_lock_irq / spin_unlock_irq), save/restore nest
 * (spin_lock_irqsave / spin_unlock_irqrestore).  irq_enter/irq_exit
 * bracket a completion handler: the context is then "in interrupt".
 */
/* Where interrupts were turned off, NULL if they are on. */
const char *txp_irqs_off_site(void);
void txp_irq_enter(void);
void txp_irq_exit(void);

/* -- events --------------------------------------------------------- */

/*
 * A high-level event in the words of the seeds ("qdisc_restart", "queue
 * packet to HW"), told to the seam's observers (a check runtime's
 * diagrams draw it).  Nothing at all outside the check build.
 */
#ifdef TXP_CHECK
#define txp_event(event) txp_event_at((event), NULL)
#else
#define txp_event(event) ((void)0)
#endif

/* -- threads ---------------------------------------------------------- */

struct txp_thread {
	unsigned long handle;	/* pthread_t */
	int ctx;		/* check build: the runtime's context, or -1 */
	/* txp_thread_start_internal(): what the thread runs, with its id. */
	void *(*fn)(void *);
	void *arg;
	int id;
};

/* Start fn(arg) in a new context (in the check build, one the runtime
 * schedules).  The name is for the diagrams: "IRQ". */
int txp_thread_start_named(struct txp_thread *t, const char *name,
			   void *(*fn)(void *), void *arg);
#define txp_thread_start(t, fn, arg) txp_thread_start_named((t), NULL, (fn), (arg))
/* The same for one of the library's own threads (a completion context):
 * it runs fn with an id of the library's range, taken here, before the
 * thread starts.  EBUSY, and no thread, when none is left. */
int txp_thread_start_internal(struct txp_thread *t, const char *name,
			      void *(*fn)(void *), void *arg);
void txp_thread_join(struct txp_thread *t);
void txp_thread_yield(void);

/* -- time ------------------------------------------------------------- */

uint64_t txp_now_ns(void);
void txp_sleep_ns(uint64_t ns);

/*
 * A watchdog's look at its clock, now (ns), the last at *last: the time
 * between them, but at most `most` (a few of its polls), and *last moved
 * on.  A look that comes much later than the poll asked is one the whole
 * process missed (stopped by SIGSTOP or a debugger, the machine asleep):
 * what it watches could not move meanwhile, and that time is not held
 * against it.
 */
static inline uint64_t txp_awake_ns(uint64_t *last, uint64_t now, uint64_t most)
{
	uint64_t gap = now - *last;

	*last = now;
	return gap < most ? gap : most;
}

/* -- observers: who watches the seam ------------------------------------ */

/*
 * An observer of lock and interrupt events, and of the annotations
 * below, called by the context that makes them.  lock_recursion: taking
 * l, which this context may hold already; true to treat it as a nested
 * hold (no spinning).  lock_release: before the unlock, true if this
 * undoes a nested hold (no real unlock).  lock_released: after a real
 * unlock's store, before any other context can run (what a diagram
 * shows).  might_free, lock_irqsafe: the annotations txp_might_free(),
 * txp_lock_irqsafe().  event: txp_event_at() (check build only).  Any
 * member may be NULL.
 *
 * Observers are asked in increasing order: the first to claim a
 * recursion or a nested release decides; lock_acquired goes in
 * decreasing order, so that an observer early in the order sees a lock
 * taken after the later ones and released before them (the validator,
 * first, judges a lock as the diagrams draw it).
 */
struct txp_sync_observer {
	int order;		/* TXP_OBSERVE_* */
	bool (*lock_recursion)(const struct txp_spinlock *l, const char *site);
	void (*lock_acquired)(const struct txp_spinlock *l, const char *site);
	bool (*lock_release)(const struct txp_spinlock *l, const char *site);
	void (*lock_released)(const struct txp_spinlock *l, const char *site);
	void (*irqs_on)(const char *site);
	void (*might_free)(const char *site);
	void (*lock_irqsafe)(const struct txp_spinlock *l);
	void (*event)(const char *what, const char *site);
	struct txp_sync_observer *next;	/* the seam's: in order */
};

/* The orders of the library's own observers; others fit between. */
#define TXP_OBSERVE_VALIDATOR 100	/* the lock validator (validator.c) */
#define TXP_OBSERVE_DIAGRAM   200	/* a check runtime's diagrams */

/* Add o (by its order; among equals, after them) or remove it.  Only
 * while no context runs; o lives until removed.  Adding one twice, or
 * removing one not added, does nothing. */
void txp_sync_observe(struct txp_sync_observer *o);
void txp_sync_unobserve(struct txp_sync_observer *o);

void txp__sync_might_free(const char *site);
void txp__sync_lock_irqsafe(const struct txp_spinlock *l);

/* -- annotations ----------------------------------------------------------- */

/* A packet may be freed here (at site): the validator reports it with
 * interrupts off.  Free while nobody observes. */
static inline void txp_might_free(const char *site)
{
	if (txp_unlikely(txp__sync_watched))
		txp__sync_might_free(site);
}

/* l will also be taken in interrupt context: an observer treats its class
 * as irq-safe from now on. */
static inline void txp_lock_irqsafe(const struct txp_spinlock *l)
{
	if (txp_unlikely(txp__sync_watched))
		txp__sync_lock_irqsafe(l);
}

#endif /* TXP_SYNC_H */
