/*
 * rt.h - the runtime's own parts, shared by its files (check build only;
 * nothing outside src/check/runtime/ includes it).
 *
 *   ctx.c       contexts as fibers, switching them, the controller's side
 *   choose.c    branch points: who runs next, the plan's choice, the
 *               reduction's naming of states
 *   port.c      the seam's scheduling points (port.h)
 *   memory.c    memory and the store buffers (sc, tso)
 *   arm.c       the arm memory model: landings out of order, older reads
 *   plain.c     the checked code's own loads and stores (instrumented)
 *   race.c      data races: vector clocks, the accesses kept
 *   wait.c      read sets: a spinning context waits for a write
 *   watch.c     the watched words (the oracle's ground truth)
 *   counters.c  single-writer counters
 *   events.c    what the diagrams draw
 *   trace.c     the execution's trace, for the reduction (trace.h)
 *   fiber.c     stacks to run contexts on (fiber.h)
 *   spin.c      the monitor: nothing reached a scheduling point for long
 */
#ifndef TXP_CHECK_RT_H
#define TXP_CHECK_RT_H

#include <stdio.h>
#include <stdlib.h>

#include "check/runtime/runtime.h"

/* A scheduling point was reached (spin.c): the monitor's heartbeat. */
void rt_beat(void);
/* The thread switches to a context (true) or to the controller: a beat,
 * and the monitor counts quiet time only while a context runs. */
void rt_beat_switch(bool to_context);

#define RT_READS 32
#define RT_BUF 16

enum rt_ctx_state {
	SC_RUNNABLE,
	SC_SPIN,	/* waiting for a lock or a condition */
	SC_IDLE,	/* a polling loop with nothing to do */
	SC_DONE,
};

struct store {
	volatile void *addr;
	size_t size;
	uint64_t v;
	const char *what;	/* the store's target as written: "&txq->stopped" */
	bool release;		/* arm: lands only once every older store has */
	unsigned epoch;		/* arm: its context's write barriers before it */
};

struct readrec {
	const volatile void *addr;
	size_t size;
	uint64_t value;		/* as first read in this spin iteration */
};

/* What a context read since it last waited: if none of it changes, its
 * next attempt would do the same, so it waits for a write instead. */
struct readset {
	struct readrec r[RT_READS];
	int n;
	bool all;		/* overflowed: any write counts */
	bool dirty;		/* something in it was written since */
};

/*
 * Two read sets, because waits nest: a polling loop's iteration (idle
 * waits) may spin on a lock inside it (spin waits).  A spin wait judges
 * and forgets only what was read since the last wait of either kind; an
 * idle wait judges the whole iteration, reads before any spin included,
 * or a loop that spun halfway would forget the work it saw at its start.
 */
struct rt_ctx {
	int id;
	char name[24];
	enum rt_ctx_state state;
	struct readset iter, spin;
	struct store buf[RT_BUF];
	int nbuf;
	/* arm: write barriers so far; the time before which no later load
	 * may read (its last acquire, barrier or read-modify-write); the
	 * latest time an earlier load read at (for smp_rmb). */
	unsigned wepoch;
	uint32_t floor, lastread;
	void *(*fn)(void *);
	void *arg;
	bool abandoned;		/* stuck at a deadlock or livelock: never resumed */
	unsigned ran_at;	/* the step it last ran at, or was woken or started at */
	unsigned char *locals;	/* its TXP_LOCAL variables while switched out */
	const char *stack_lo, *stack_hi;	/* its fiber's stack */
	const volatile void *plain_wrote;	/* its last access a store here (plain.c) */
	unsigned racy;		/* data_race() depth: its accesses not raced (plain.c) */
};

struct rt {
	bool armed, stopped, freerun;
	bool tracing;		/* the plan's trace: steps recorded (trace.h) */
	unsigned fair;		/* fair switches made */
	unsigned told_apart;	/* defaults that told symmetric contexts apart */
	unsigned cut;		/* the branch found explored (rt_cut()) */
	unsigned pending;	/* the branch to ask about, UINT_MAX: none */
	enum rt_mm mm;
	int current;		/* the context to run next, -1: none */
	int n;
	struct rt_ctx ctx[RT_MAX_CTX];
	enum rt_end end;
	int stuck;
	unsigned steps, max_steps, preemptions;
	const struct rt_plan *plan;
	struct rt_branch *br;
	unsigned nbr, brcap;
	struct trace_fp *fp;	/* per branch (rt_branch_fp()) */
	unsigned fpcap;
	unsigned want_fp;	/* the branch whose step runs, UINT_MAX: none */
	struct rt_ctx *me;	/* the context running now, NULL: the controller */
};

/* The runtime: one per process, run by the thread that called
 * rt_begin() and by the fibers it switches to (ctx.c). */
extern struct rt rt;
/* That thread (and its fibers): the only one whose accesses plain.c
 * tells the runtime of (the monitor's, or the C library's own threads'
 * free(), are none of its business). */
extern _Thread_local bool rt_thread;

/* Is the running context's step recorded for the trace? */
/* Does op read and write its word (a read-modify-write of any order)? */
static inline bool rt_op_rmw(enum txp_rt_op op)
{
	return op == TXP_OP_RMW || op == TXP_OP_RMW_RELAXED || op == TXP_OP_RMW_ACQUIRE ||
	       op == TXP_OP_RMW_RELEASE;
}

static inline bool rt_tracing(void)
{
	return rt.tracing && rt.me && !rt.freerun;
}

/* p (an array of *cap elements of elem bytes) grown to hold more. */
static inline void *rt_grow(void *p, unsigned *cap, size_t elem)
{
	unsigned n = *cap ? *cap * 2 : 256;
	void *q = realloc(p, n * elem);

	if (!q) {
		fprintf(stderr, "txpath check: out of memory\n");
		exit(1);
	}
	*cap = n;
	return q;
}

/* -- ctx.c ---------------------------------------------------------------- */

/* Switch the thread to context id (-1: the controller), its per-context
 * state with it.  Returns when somebody switches back. */
void rt_run_on(int id);
/* Freerun: give every context that has not ended a turn, until it waits
 * or ends.  The controller only. */
void rt_run_round(void);

/* -- choose.c ------------------------------------------------------------- */

/* Choose who runs next (the running context too, if it can go on),
 * flushing buffered stores where the plan says so; switch if it is not
 * the running one. */
void rt_reschedule(void);
/* The execution ends (why). */
void rt_stop(enum rt_end end);
/* Was the state at the pending branch explored already?  Then cut. */
void rt_check_pending(void);
/* A branch point of a memory model's own for context ctx: alternative 0
 * (the default) or 1..nalt, by the plan. */
unsigned rt_model_branch(enum rt_branch_kind kind, unsigned nalt, int ctx,
			 const volatile void *addr);

/* -- memory.c ------------------------------------------------------------- */

uint64_t rt_raw_load(const volatile void *addr, size_t size);
void rt_raw_store(volatile void *addr, size_t size, uint64_t v);
/* What c would read of size bytes at addr now: each byte its own newest
 * buffered store's, else memory's. */
uint64_t rt_seen_value(const struct rt_ctx *c, const volatile void *addr, size_t size);
/* Does c's buffered store k meet the bytes?  Its newest that does (-1:
 * none).  Land its stores, oldest first, up to that one (coherence). */
bool rt_buf_meets(const struct rt_ctx *c, int k, const volatile void *addr, size_t size);
int rt_buf_last_meeting(const struct rt_ctx *c, const volatile void *addr, size_t size);
void rt_land_meeting(struct rt_ctx *c, const volatile void *addr, size_t size);
/* Store k of c's buffer reaches memory; its oldest; all of them. */
void rt_flush_at(struct rt_ctx *c, int k);
void rt_flush_one(struct rt_ctx *c);
void rt_drain(struct rt_ctx *c);

/* -- arm.c ---------------------------------------------------------------- */

void rt_arm_reset(void);
/* The arm model's clock: it ticks at every write landing. */
uint32_t rt_arm_clock(void);
/* Before a write of addr lands: its history keeps what it overwrites. */
void rt_arm_before_write(const volatile void *addr, size_t size);
/* A write of c (NULL: the controller) reached addr. */
void rt_arm_landed(const struct rt_ctx *c, const volatile void *addr);
/* Which of c's stores lands, by the plan: its index. */
int rt_arm_pick_store(struct rt_ctx *c);
/* What operation op of c orders, as it is about to run. */
void rt_arm_order(struct rt_ctx *c, enum txp_rt_op op, const volatile void *addr, size_t size);
/* The model's state, its times by their order: the part of a state's
 * name (choose.c) that the trace does not tell. */
struct trace_key rt_arm_key(void);
/* c's load of addr: true and *v when it reads an older write. */
bool rt_arm_load(struct rt_ctx *c, const volatile void *addr, size_t size, bool acquire,
		 const char *what, uint64_t *v);

/* -- plain.c -------------------------------------------------------------- */

void rt_plain_settle_slow(struct rt_ctx *c);
/* c's last plain store is made by now: wake whoever waits on it. */
static inline void rt_plain_settle(struct rt_ctx *c)
{
	if (c && c->plain_wrote)
		rt_plain_settle_slow(c);
}

/* -- race.c --------------------------------------------------------------- */

#define RACE_WRITE 1u
#define RACE_MARKED 2u	/* atomic or volatile: an intended race */

/* A new execution: no clocks, no accesses kept. */
void rt_race_reset(void);
/* Context child starts, from parent (-1: the controller). */
void rt_race_spawn(int parent, int child);
/* joiner (-1: the controller) saw child end. */
void rt_race_join(int joiner, int child);
/* Context c's atomic access of addr orders as memory order mo (__ATOMIC_*):
 * a load, a store, or both. */
void rt_race_sync(int c, const volatile void *addr, bool load, bool store, int mo);
/* A fence of context c: acquire (smp_rmb), release (smp_wmb) or both. */
void rt_race_fence(int c, bool acquire, bool release);
/* Nothing of size bytes at addr was accessed: new memory (free()). */
void rt_race_forget(const volatile void *addr, size_t size);
/* Context c accessed size bytes at addr (RACE_* flags) at instruction pc. */
void rt_race_access(int c, const volatile void *addr, size_t size, unsigned flags,
		    const void *pc);

/* -- wait.c --------------------------------------------------------------- */

/* A write by writer reached addr: whoever else read it looks again. */
void rt_wake_readers(const volatile void *addr, const struct rt_ctx *writer);
void rt_forget(struct readset *rs);
/* c read size bytes at addr. */
void rt_note_read(struct rt_ctx *c, const volatile void *addr, size_t size);
/* Nothing to do until something read changes: let the others run. */
void rt_wait(enum rt_ctx_state why);

/* -- watch.c -------------------------------------------------------------- */

/* The scheduling point of an operation on addr: the probe takes it. */
void rt_watch_point(const volatile void *addr, size_t size);
/* The running context is about to load addr: what it sees is now. */
void rt_watch_load(const volatile void *addr);
/* A write by writer (NULL: the controller) landed on addr. */
void rt_watch_landed(const volatile void *addr, const struct rt_ctx *writer);

/* -- counters.c ----------------------------------------------------------- */

void rt_counters_reset(void);

/* -- events.c ------------------------------------------------------------- */

/* Context ctx's event: "what", "what arg", "site: what(arg)". */
void rt_event(int ctx, const char *what, const char *arg, const char *site);
/* A target as written, without its '&'. */
const char *rt_target(const char *what);
/* A new execution: no events yet; the diagram observer installed. */
void rt_events_begin(void);

#endif
