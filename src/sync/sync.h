/*
 * sync.h - the one concurrency seam of txpath.
 *
 * Every shared-memory synchronisation of the library goes through here:
 * spin locks that record their owner, atomics with named orderings,
 * threads, and the per-context "interrupts off" flag.  Nothing else in
 * src/ includes <stdatomic.h> or <pthread.h> for synchronisation, so a
 * check build can turn each operation below into a scheduling point
 * (DESIGN.md §6).  In the normal build they are plain C11 atomics.
 */
#ifndef TXP_SYNC_H
#define TXP_SYNC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "txpath/ctx.h"

#define TXP_CACHELINE 64
#define txp_cacheline_aligned _Alignas(TXP_CACHELINE)

#define txp_likely(x)   __builtin_expect(!!(x), 1)
#define txp_unlikely(x) __builtin_expect(!!(x), 0)

/* -- atomics --------------------------------------------------------- */

#define txp_load_relaxed(p)      atomic_load_explicit((p), memory_order_relaxed)
#define txp_load_acquire(p)      atomic_load_explicit((p), memory_order_acquire)
#define txp_store_relaxed(p, v)  atomic_store_explicit((p), (v), memory_order_relaxed)
#define txp_store_release(p, v)  atomic_store_explicit((p), (v), memory_order_release)
#define txp_xchg(p, v)           atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define txp_fetch_add(p, v)      atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define txp_fetch_or(p, v)       atomic_fetch_or_explicit((p), (v), memory_order_acq_rel)
#define txp_fetch_and(p, v)      atomic_fetch_and_explicit((p), (v), memory_order_acq_rel)
#define txp_cas(p, expp, v)                                                \
	atomic_compare_exchange_weak_explicit((p), (expp), (v),            \
					      memory_order_acq_rel,        \
					      memory_order_relaxed)
/* Full barrier: smp_mb().  Orders earlier stores before later loads.
 * TSan does not model fences: there, a seq_cst read-modify-write of one
 * shared word stands in, which orders the same way and which TSan sees. */
#if defined(__SANITIZE_THREAD__)
#define TXP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TXP_TSAN 1
#endif
#endif
#ifdef TXP_TSAN
extern _Atomic unsigned txp__mb_word;
#define txp_smp_mb() ((void)atomic_fetch_add_explicit(&txp__mb_word, 0, memory_order_seq_cst))
#else
#define txp_smp_mb()             atomic_thread_fence(memory_order_seq_cst)
#endif

/*
 * Counters: statistics, never synchronisation, so never scheduling points
 * in the check build.  txp_counter_add is for a single-writer counter:
 * only the owning context adds, anyone may read; a relaxed load+store
 * pair, not a locked read-modify-write, so free on the hot path and still
 * data-race-free for readers.  txp_counter_inc_shared is for a counter
 * several contexts may bump.
 */
#define txp_counter_read(p) atomic_load_explicit((p), memory_order_relaxed)
#define txp_counter_add(p, v) \
	atomic_store_explicit((p), txp_counter_read(p) + (v), memory_order_relaxed)
#define txp_counter_inc_shared(p) \
	((void)atomic_fetch_add_explicit((p), 1, memory_order_relaxed))

static inline void txp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Spin politely: pause a while, then give the CPU away (a holder may be
 * preempted: user space has no "interrupts off" to stop that). */
void txp_spin_wait(unsigned *spins);

/* -- spin lock with owner -------------------------------------------- */

#define TXP_NO_OWNER (-1)

/* A test-and-test-and-set lock that records the context holding it, as
 * dev->xmit_lock and dev->xmit_lock_owner do in Linux 2.6. */
struct txp_spinlock {
	atomic_int locked;
	atomic_int owner;	/* context id of the holder, TXP_NO_OWNER */
	const char *name;	/* its lock class, as the seeds name it: "queue lock" */
};

void txp_spin_init(struct txp_spinlock *l, const char *name);
/* Acquire, recording txp_ctx_self() as owner: pairs with txp_spin_unlock()'s
 * release. */
bool txp_spin_trylock(struct txp_spinlock *l);
void txp_spin_lock(struct txp_spinlock *l);
void txp_spin_unlock(struct txp_spinlock *l);
/* Owner as last recorded; exact only for the holder asking about itself. */
int txp_spin_owner(const struct txp_spinlock *l);
bool txp_spin_is_locked(const struct txp_spinlock *l);

/* -- contexts --------------------------------------------------------- */

/*
 * A context is the user-space stand-in for a CPU: a thread that registered
 * (explicitly with txp_ctx_attach(), or lazily on first use).  Its small
 * integer id indexes per-context counters and is what locks record as
 * their owner.  Each context also carries the "interrupts off" flag that
 * local_irq_save() would set on a real CPU.
 */
int txp__ctx_attach_slow(void);
extern _Thread_local int txp__ctx_id;	/* 0: not attached, else id + 1 */

/* The calling context's id, attaching the thread if needed. */
static inline int txp_ctx_self(void)
{
	int id = txp__ctx_id;

	return txp_likely(id) ? id - 1 : txp__ctx_attach_slow();
}

/* "Interrupts off" depth of the calling context (validator state only:
 * nothing is masked in user space). */
bool txp_irqs_disabled(void);
void txp_local_irq_disable(void);
void txp_local_irq_enable(void);

/* -- trace ---------------------------------------------------------- */

/*
 * A high-level event in the words of the seeds ("qdisc_restart", "queue
 * packet to HW"), for the schedule explorer's diagrams.  Nothing at all
 * outside the check build.
 */
#ifdef TXP_CHECK
void txp_trace(const char *event);
#else
#define txp_trace(event) ((void)0)
#endif

/* -- threads ---------------------------------------------------------- */

struct txp_thread {
	unsigned long handle;	/* pthread_t */
};

int txp_thread_start(struct txp_thread *t, void *(*fn)(void *), void *arg);
void txp_thread_join(struct txp_thread *t);
void txp_thread_yield(void);

/* -- time ------------------------------------------------------------- */

uint64_t txp_now_ns(void);
void txp_sleep_ns(uint64_t ns);

#endif /* TXP_SYNC_H */
