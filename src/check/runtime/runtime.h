/*
 * runtime.h - the explorer's runtime: what runs under the seam in the
 * check build, as the search above it sees it (check build only).
 *
 * Each context is a fiber of the calling thread, so only one runs at a
 * time: at every operation of the seam (src/sync/port.h) it asks the
 * runtime whether to go on or to let another run.  A context that spins
 * (on a lock, or idling for work) waits until another context writes what
 * it read.  What is chosen at each branch point (a point with more than
 * one possible next action) is decided by a plan: a prefix of fixed
 * choices, then its policy (src/check/search/), else the default; and
 * recorded, so that any execution can be replayed exactly.
 *
 * With the tso memory model each context's stores wait in a FIFO store
 * buffer until a fence or read-modify-write (or thread exit) drains it, or
 * the plan chooses to flush one store: a missing barrier becomes visible.
 * With arm (an approximation of ARMv8, defined in `txpath check --help`)
 * any store of the buffer that no release, write barrier or earlier store
 * to its location holds back may land first, and a load may read an older
 * write of its location, back to what coherence and the context's last
 * acquire or barrier allow.
 */
#ifndef TXP_CHECK_RUNTIME_H
#define TXP_CHECK_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/runtime/trace.h"

#include "sync/sync.h"

/* Contexts at most (explore.c asserts it is the API's TXP_EXPLORE_MAX_CTX). */
#define RT_MAX_CTX 8

/* An action: run context i (0..RT_MAX_CTX-1), or flush the oldest
 * buffered store of context i (RT_FLUSH + i).  At the arm model's own
 * branch points (RT_BR_STORE, RT_BR_VALUE) the same two forms name
 * alternatives instead: cur is the default (alternative 0), RT_FLUSH + j
 * alternative j + 1. */
#define RT_FLUSH 16

/* The memory models. */
enum rt_mm {
	RT_SC,		/* every store is seen at once */
	RT_TSO,		/* FIFO store buffers */
	RT_ARM,		/* unordered store buffers, loads of older writes */
};

/*
 * What a branch point chooses, and the footprint of its actions (what a
 * reduction of the search must treat as dependent):
 *  RT_BR_RUN    who runs next (enabled), or which context's store lands
 *                  (flushable: under tso its oldest; under arm a
 *                  RT_BR_STORE branch follows): a run's footprint is the
 *                  operation that context makes next; a flush writes the
 *                  location of the store that lands (unknown under arm
 *                  until the RT_BR_STORE after it: dependent with all).
 *  RT_BR_STORE  arm: which of context cur's landable stores lands,
 *                  oldest first (alternative 0: its oldest).  Part of the
 *                  flush before it, which paid the preemption (or
 *                  continued a run of landings that had): preempt is
 *                  that flush's.  Footprint: a write of one of cur's
 *                  buffered locations (treat as dependent with all).
 *  RT_BR_VALUE  arm: which write cur's load of addr reads (alternative
 *                  0: the newest, j: the j-th older one it may still
 *                  see), or whether its compare-exchange of addr fails
 *                  spuriously (alternative 1).  Footprint: a read of addr
 *                  by cur, as the load it belongs to.
 * An unknown kind is dependent with every action.
 */
enum rt_branch_kind {
	RT_BR_RUN,
	RT_BR_STORE,
	RT_BR_VALUE,
};

struct rt_branch {
	uint16_t enabled;	/* contexts that could run */
	uint16_t flushable;	/* contexts with buffered stores (tso, arm);
				 * alternatives 1.. (RT_BR_STORE, _VALUE) */
	int8_t cur;		/* the running context, -1 if it cannot go on */
	int8_t chosen;		/* the action taken */
	uint16_t preempt;	/* preemptions before this branch */
	/* RT_BR_RUN: the context whose store the branch before it landed,
	 * with no step since (-1: none): landing its next one too costs
	 * no preemption, a run of landings one (rt_reschedule()). */
	int8_t flushing;
	uint8_t kind;		/* enum rt_branch_kind */
	const volatile void *addr;	/* RT_BR_VALUE: the location read */
	/* RT_BR_RUN with the plan's trace: the state's name, the trace
	 * so far (trace.h); equal names, equal futures (cur prices them:
	 * key_cur is its image in the trace named, trace_key()). */
	uint64_t key_a, key_b;
	int8_t key_cur;
	/* ... and, past the prefix, the contexts whose expected step from
	 * here (trace_expect()) leads to a state plan->explored() knows:
	 * nothing there is left to try. */
	uint16_t asleep;
};

/*
 * A policy: how a plan chooses past its prefix (src/check/search/ has
 * one file each).  begin: an execution of the plan begins (rt_begin());
 * the policy starts its state afresh, so that the plan run again is the
 * same execution.  choose: the action at branch b, number index (an
 * action of b, rt_branch_action()), or -1 for the default: the running
 * context if it can go on, else the lowest id.  step: a scheduling point
 * was reached, steps so far (NULL: not asked).  The policy's own state
 * follows it in the struct that embeds it.
 */
struct rt_policy {
	void (*begin)(struct rt_policy *p);
	int (*choose)(struct rt_policy *p, const struct rt_branch *b, unsigned index);
	void (*step)(struct rt_policy *p, unsigned steps);
};

/* Branch b's actions: does it offer a, how many it offers, and its k-th
 * (runs first, then flushes; past the last, the lowest it may run). */
bool rt_branch_legal(const struct rt_branch *b, int a);
unsigned rt_branch_nactions(const struct rt_branch *b);
int rt_branch_action(const struct rt_branch *b, unsigned k);

struct rt_plan {
	const int8_t *prefix;	/* actions for the first nprefix branches */
	unsigned nprefix;
	struct rt_policy *policy;	/* past the prefix; NULL: the default */
	/* Record the trace (sc, tso): each branch point's key. */
	bool trace;
	/* With the trace: was the state at b, a branch past the prefix,
	 * explored already?  At the first that was the execution is cut
	 * (rt_cut()): its tail runs untraced, its branches not kept,
	 * nothing left to learn; the explorer does not judge its end.
	 * Asked one branch late (or at the end); named(), if set, is told
	 * of b when it is named, to begin the look-up. */
	bool (*explored)(const struct rt_branch *b, void *arg);
	void (*named)(const struct rt_branch *b, void *arg);
	/* With explored: the execution runs whole, never cut; its states
	 * are named, its steps' footprints kept and what is asleep found
	 * (rt_branch.asleep) all the same. */
	bool uncut;
	/* With the trace, at each branch of the prefix, before its choice
	 * runs: what else is known of the steps from there (trace_expect()). */
	void (*expect)(unsigned branch, void *arg);
	void *explored_arg;
};

enum rt_end {
	RT_QUIESCENT,	/* nobody can run; whoever is left idles */
	RT_DEADLOCK,		/* nobody can run; someone waits for a lock */
	RT_STEP_LIMIT,	/* too many steps: a livelock, or a runaway */
};

struct rt_event {
	int ctx;
	const char *what, *arg;	/* printed "what" or "what arg" ... */
	const char *site;	/* ... or, with a site, "site: what" or "site: what(arg)" */
};

/* Prepare an execution: contexts started from now on are scheduled. */
void rt_begin(const struct rt_plan *plan, enum rt_mm mm, unsigned max_steps);
/* Start a context of the scenario (a producer): its id, or -1 (too many). */
int rt_spawn(const char *name, void *(*fn)(void *), void *arg);
/* Run until nobody can: returns why. */
enum rt_end rt_run(void);
/* Let every context run freely to its end (the scenario then tears down);
 * contexts stuck on a lock are ended instead. */
void rt_release(void);
/* Forget the execution (all contexts have ended). */
void rt_finish(void);

/* Does this build see plain accesses (not a sanitizer's: plain.c)? */
bool rt_plain_seen(void);
/* Instrumented objects loaded so far, the library's and plugins' (each
 * constructor's call of __tsan_init); 0 where !rt_plain_seen(). */
unsigned rt_plain_objects(void);
/* From now on, the plain accesses at code addresses chosen(pc) says yes
 * to are scheduling points as well (NULL: none, the default): the
 * context may be preempted before each.  Where rt_plain_seen(). */
void rt_plain_points(bool (*chosen)(const void *pc));

/* What the last execution did. */
const struct rt_branch *rt_branches(unsigned *n);
const struct rt_event *rt_events(unsigned *n);
unsigned rt_steps(void);
unsigned rt_preemptions(void);
/* Fair switches (a starved context run unchosen) in the last execution. */
unsigned rt_fair_switches(void);
/* In the last execution, unbranched choices by context id that told the
 * trace's symmetric contexts apart (trace_default_tells_apart()): where
 * nobody could run, the lowest id's stores landed first. */
unsigned rt_told_apart(void);
/* The branch at which plan->explored() said yes, or the branch count. */
unsigned rt_cut(void);
/* With the trace: the footprint of the step chosen at branch i, from the
 * prefix's last branch to the cut (else n is TRACE_FP_UNKNOWN). */
const struct trace_fp *rt_branch_fp(unsigned i);
int rt_nctx(void);
const char *rt_ctx_name(int id);
/* Context that was waiting for a lock at a deadlock, -1 if none. */
int rt_stuck_ctx(void);
/* Did two contexts write one single-writer counter (txp_counter_add) in
 * the last execution?  If so, which and who, into buf. */
bool rt_counter_conflict(char *buf, size_t len);
/* Did the last execution race: two conflicting accesses, one plain, not
 * ordered by happens-before (race.c)?  If so, the first, into buf. */
bool rt_race_found(char *buf, size_t len);
/* Did an access of the last execution pass the detector's table, so that
 * races with it could not be seen? */
bool rt_race_unkept(void);
/*
 * The watched words, for the explorer's own ground truth (one per queue,
 * at most RT_WATCH_MAX): read(arg), run by the controller, makes one
 * load of the seam; its word is watched from then on in this execution
 * (until rt_watch_reset), its rises (0 to nonzero) counted as they
 * reach memory; returns the word's number, -1 if none or too many.
 * rt_watch_seen(): the rises the calling context had seen when it
 * last read word; rt_watch_rose_since(): did another context's rise
 * reach memory since that mark?
 */
#define RT_WATCH_MAX 8
struct rt_mark {
	unsigned rises, own;
};
void rt_watch_reset(void);
int rt_watch_probe(void (*read)(void *), void *arg);
struct rt_mark rt_watch_seen(int word);
bool rt_watch_rose_since(int word, struct rt_mark m);
/* The context exploring now, -1 for the controller or a free run. */
int rt_current(void);

/* -- the monitor (spin.c) ------------------------------------------------ */

/* A thread beside the explorer's: when no scheduling point is reached for
 * quiet_ns (a context looping on plain memory, which nothing preempts),
 * or for a second once asked(arg) says a stop was asked, it calls
 * stuck(arg, asked, seconds), which must end the program.  Time the whole
 * process was stopped (SIGSTOP) is not counted. */
struct rt_monitor {
	uint64_t quiet_ns;
	bool (*asked)(void *arg);
	void (*stuck)(void *arg, bool asked, double seconds);	/* never returns */
	void *arg;
	pthread_t thread;
	_Atomic bool on;
};
/* 0, or an errno (the thread could not start: no monitor). */
int rt_monitor_start(struct rt_monitor *m);
void rt_monitor_stop(struct rt_monitor *m);

#endif /* TXP_CHECK_RUNTIME_H */
