/*
 * port.h - what a check runtime provides to the seam (check build only).
 *
 * In the check build (-DTXP_CHECK) every operation of the seam (sync.h)
 * is a scheduling point: before it, the seam asks the runtime whether the
 * calling context goes on or another runs first; a store may wait in the
 * context's store buffer (memory models tso and arm) and a load may read
 * from it, or (arm) read an older write.  These are the calls the seam
 * makes; it names no implementer.  Whoever links the check build provides
 * them (txpath's is the explorer's runtime, src/check/runtime/), as nng's
 * platform.h is provided per platform.
 *
 * Every call is made by the context whose operation it is.  Outside the
 * runtime's contexts (set-up and tear-down, run by the thread that owns
 * the runtime) the memory calls let the operation go to memory, and
 * txp_rt_thread_start() starts a context of the runtime (or fails with
 * EPERM when no exploration is under way).
 */
#ifndef TXP_SYNC_PORT_H
#define TXP_SYNC_PORT_H

#ifdef TXP_CHECK

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct txp_thread;

/* What an operation does to memory: what the runtime must order. */
enum txp_rt_op {
	TXP_OP_LOAD,		/* reads addr */
	TXP_OP_STORE,		/* writes addr; may sit in a store buffer (tso, arm) */
	TXP_OP_RMW,		/* reads and writes addr; drains the store buffer
				 * and orders later loads (a full barrier) */
	TXP_OP_FENCE,		/* drains the store buffer, orders later loads */
	TXP_OP_ORDER,		/* smp_mb__{before,after}_atomic: the fence an
				 * unordered read-modify-write (TXP_OP_RMW_RELAXED)
				 * lacks; under sc and tso nothing (the locked
				 * instruction is one), under arm a full barrier
				 * (arm64's dmb), as TXP_OP_FENCE */
	TXP_OP_RMW_RELAXED,	/* reads and writes addr, as TXP_OP_RMW; drains under
				 * tso (a locked instruction), orders nothing else
				 * under arm */
	TXP_OP_RMW_ACQUIRE,	/* as TXP_OP_RMW_RELAXED; under arm later loads
				 * after it too */
	TXP_OP_RMW_RELEASE,	/* as TXP_OP_RMW_RELAXED; under arm earlier stores
				 * land before it */
	TXP_OP_RMB,		/* smp_rmb: footprint as TXP_OP_ORDER; under arm,
				 * later loads after earlier ones */
	TXP_OP_WMB,		/* smp_wmb: footprint as TXP_OP_ORDER; under arm,
				 * later stores land after earlier ones */
};

/* -- scheduling points and the memory model ---------------------------- */

/* Before an operation on size bytes at addr: maybe let another context
 * run first. */
void txp_rt_point(enum txp_rt_op op, const volatile void *addr, size_t size);
/* After a write reached memory: wake contexts that spin reading addr. */
void txp_rt_wrote(const volatile void *addr);
/* The calling context's newest buffered store to addr (tso, arm). */
bool txp_rt_forward(const volatile void *addr, size_t size, uint64_t *v);
/* The value a load of addr reads, if not memory's: the calling context's
 * newest buffered store to it (tso, arm), or (arm) an older write of addr
 * the runtime chose.  acquire: the load is one.  what: addr as written. */
bool txp_rt_load(const volatile void *addr, size_t size, bool acquire, const char *what,
		 uint64_t *v);
/* Buffer a store (tso, arm); false when it must go to memory now.
 * release: the store is one. */
bool txp_rt_buffer(volatile void *addr, size_t size, uint64_t v, bool release,
		   const char *what);
/* Memory model arm: does this weak compare-exchange of addr, which would
 * succeed (would_succeed), fail spuriously?  The runtime decides. */
bool txp_rt_cas_fails(const volatile void *addr, bool would_succeed, const char *what);

/* -- waiting ----------------------------------------------------------- */

/* A context waiting for a lock: run others until what it read changes. */
void txp_rt_spin(void);
/* A polling context with nothing to do: run others until it may. */
void txp_rt_idle(void);

/* -- contexts ---------------------------------------------------------- */

/* Start fn(arg) as a context of the runtime (name: for its diagrams);
 * 0, or an errno value. */
int txp_rt_thread_start(struct txp_thread *t, const char *name, void *(*fn)(void *), void *arg);
/* Wait until t's context has ended. */
void txp_rt_thread_join(struct txp_thread *t);

/* -- bookkeeping the runtime checks -------------------------------------- */

/* The calling context's accesses from now on are left out of race
 * detection (enter: a data_race() begins), until every one has ended. */
void txp_rt_data_race(bool enter);

/* The single-writer counter at addr (what: as written) is written by the
 * calling context (txp_counter_add). */
void txp_rt_counter(const volatile void *addr, const char *what);

#endif /* TXP_CHECK */

#endif /* TXP_SYNC_PORT_H */
