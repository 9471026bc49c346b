/*
 * trace.h - the explorer's execution as a Mazurkiewicz trace, fingerprinted
 * (check build only).
 *
 * An execution is a sequence of steps, each one actor's: a context from one
 * scheduling point to its next, or (tso) one buffered store landing, the
 * actor of context i's landings being RT_FLUSH + i.  Two steps are
 * dependent when they are one actor's, or touch one location and one of
 * them writes it; sequences that order every dependent pair alike are one
 * trace, and (for code whose shared state goes through the seam) leave the
 * same state.  The fingerprint names the trace: the sum of a hash of each
 * step's vector clock (how many steps of each actor happen before it,
 * itself included), the same for every order of the trace.  It lets the
 * bounded search skip a state it has already explored (search/dfs.c).
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
	int8_t cur;	/* the running context's image in the trace named (-1: nobody) */
};

/* The names' mixing of a word (a 64-bit finaliser), for every part of a
 * state's name. */
static inline uint64_t trace_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* A step's footprint: the locations it touched, each once. */
#define TRACE_FP_MAX 8
#define TRACE_FP_UNKNOWN 0xff	/* n: more than that, or dependent with all */
struct trace_fp {
	uint8_t n;
	uint8_t writes;		/* bit i: addr[i] was written */
	const volatile void *addr[TRACE_FP_MAX];
};

/* A new execution: no steps yet. */
void trace_reset(void);
/* The running step reads, writes addr. */
void trace_read(const volatile void *addr);
void trace_write(const volatile void *addr);
/* The running step is dependent with every step. */
void trace_all(void);
/*
 * The running step made a choice of the memory model's (arm: which older
 * write a load reads, whether a compare-exchange fails, which buffered
 * store lands), v of them in turn.  What a step did is no longer fixed by
 * the trace's order alone: its choices are part of its name, and its
 * footprint is not one to expect from a sibling (trace_step_fp()).
 */
void trace_choice(unsigned v);
/* actor's step (0..2 * RT_MAX_CTX - 1) ends with what it recorded. */
void trace_step_end(int actor);
/* The fingerprint of the steps ended so far, with cur (-1: nobody) as
 * the running context. */
struct trace_key trace_key(int cur);

/*
 * Symmetric contexts: ctx[0..n) run the same code on like inputs and
 * nothing tells them apart but their ids (as producers of as many packets
 * each on a one-queue device).  A trace and its image under any
 * permutation of them then lead to like states, and take one name: the
 * least over the permutations; trace_key()'s cur is carried along.  For
 * this execution (trace_reset() ends it), before its first step ends (or
 * it is ignored); n < 2, or more than TRACE_SYM_MAX: none.
 */
#define TRACE_SYM_MAX 4
void trace_symmetric(const int *ctx, unsigned n);
/* Would choosing the lowest id of the contexts in mask tell symmetric
 * ones apart (its image under a permutation would choose another role)?
 * False when no contexts are symmetric in this execution. */
bool trace_default_tells_apart(unsigned mask);

/*
 * Expected steps.  A context's step is its code from one scheduling point
 * to the next, fixed by what it reads: seen once from a state, it is the
 * same from any state reached from there by steps that neither are the
 * context's (nor its landings') nor write what it reads.  That lets the
 * search name, without running it, the state a step would lead to.
 */
/* The running step's footprint so far (before its trace_step_end());
 * unknown for a step that made a choice. */
void trace_step_fp(struct trace_fp *fp);
/* ctx's next step (0..RT_MAX_CTX - 1) is fp, unless a step before it
 * says otherwise (trace_step_end() forgets it then). */
void trace_expect(int ctx, const struct trace_fp *fp);
/* The fingerprint after ctx's expected step, run now (nobody running);
 * false if its step is not known, or its name could not be told. */
bool trace_expected_key(int ctx, struct trace_key *k);

#endif
