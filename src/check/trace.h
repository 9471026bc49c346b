/*
 * trace.h - the explorer's execution as a Mazurkiewicz trace, fingerprinted
 * (check build only).
 *
 * An execution is a sequence of steps, each one actor's: a context from one
 * scheduling point to its next, or (tso) one buffered store landing, the
 * actor of context i's landings being SCHED_FLUSH + i.  Two steps are
 * dependent when they are one actor's, or touch one location and one of
 * them writes it; sequences that order every dependent pair alike are one
 * trace, and (for code whose shared state goes through the seam) leave the
 * same state.  The fingerprint names the trace: the sum of a hash of each
 * step's vector clock (how many steps of each actor happen before it,
 * itself included), the same for every order of the trace.  It lets the
 * bounded search skip a state it has already explored (explore.c).
 *
 * Steps record what they touch as they run; trace_step_end() closes the
 * running actor's step.  An access the trace cannot place (a table full,
 * a read of "anything written") makes its step dependent with every other
 * step, before and after: fewer traces merge, never a wrong one.
 */
#ifndef TXP_CHECK_TRACE_H
#define TXP_CHECK_TRACE_H

#include <stdbool.h>
#include <stdint.h>

struct trace_key {
	uint64_t a, b;
};

/* A new execution: no steps yet. */
void trace_reset(void);
/* The running step reads, writes addr. */
void trace_read(const volatile void *addr);
void trace_write(const volatile void *addr);
/* The running step is dependent with every step. */
void trace_all(void);
/* actor's step (0..2 * SCHED_MAX_CTX - 1) ends with what it recorded. */
void trace_step_end(int actor);
/* The fingerprint of the steps ended so far. */
struct trace_key trace_key(void);

#endif
