/*
 * trace.c - the execution as a Mazurkiewicz trace, fingerprinted (check
 * build only).  See trace.h.
 *
 * Vector clocks, as a race detector keeps them: each location has the clock
 * of its last write and the join of the reads since; a step's clock joins
 * its actor's previous step, the last write of every location it touches
 * and, for a location it writes, the reads since.  A step dependent with
 * everything joins every actor's last clock and becomes a floor every
 * later step joins.
 */
#include "check/trace.h"

#include <string.h>

#include "check/sched.h"

#define ACTORS (2 * SCHED_MAX_CTX)
#define LOCS 1024		/* a power of two; half may be used */
#define ACCESSES 64		/* recorded per step; past it, dependent with all */

struct vc {
	uint32_t c[ACTORS];
};

struct loc {
	const volatile void *addr;
	unsigned gen;
	struct vc wrote, read;	/* the last write; the reads since */
};

struct access {
	struct loc *loc;
	bool write;
};

static struct {
	unsigned gen, nlocs;
	struct loc loc[LOCS];
	struct vc last[ACTORS];	/* each actor's last step */
	struct vc floor;	/* the last step dependent with all */
	struct access acc[ACCESSES];
	unsigned nacc;
	bool all;		/* the running step */
	int hi;			/* clock entries in use: 0..hi-1 */
	uint64_t sum_a, sum_b;
} T;

/* Clock entry of an actor: a context and its landings side by side, so
 * that the entries in use are the first few. */
static int entry(int actor)
{
	return actor < SCHED_FLUSH ? 2 * actor : 2 * (actor - SCHED_FLUSH) + 1;
}

static void join(struct vc *to, const struct vc *from)
{
	for (int i = 0; i < T.hi; i++)
		to->c[i] = to->c[i] > from->c[i] ? to->c[i] : from->c[i];
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* The linear maps of trace_step_end(): odd weights, drawn once. */
static uint64_t weight[2][ACTORS];

void trace_reset(void)
{
	if (!weight[0][0]) {
		uint64_t x = 0;

		for (int w = 0; w < 2; w++)
			for (int i = 0; i < ACTORS; i++)
				weight[w][i] = mix(x += 0x9e3779b97f4a7c15ull) | 1;
	}
	T.gen++;
	T.nlocs = 0;
	memset(T.last, 0, sizeof(T.last));
	memset(&T.floor, 0, sizeof(T.floor));
	T.nacc = 0;
	T.all = false;
	T.hi = 0;
	T.sum_a = T.sum_b = 0;
}

/* addr's entry, made on first use; NULL past the table's half. */
static struct loc *loc_of(const volatile void *addr)
{
	uint64_t h = mix((uint64_t)(uintptr_t)addr);

	for (unsigned i = (unsigned)h, k = 0; k < LOCS; k++, i++) {
		struct loc *l = &T.loc[i % LOCS];

		if (l->gen == T.gen && l->addr == addr)
			return l;
		if (l->gen != T.gen) {
			if (T.nlocs >= LOCS / 2)
				return NULL;
			memset(l, 0, sizeof(*l));
			l->addr = addr;
			l->gen = T.gen;
			T.nlocs++;
			return l;
		}
	}
	return NULL;
}

static void record(const volatile void *addr, bool write)
{
	struct loc *l = loc_of(addr);

	if (!l || T.nacc == ACCESSES) {
		T.all = true;
		return;
	}
	T.acc[T.nacc++] = (struct access){ l, write };
}

void trace_read(const volatile void *addr)
{
	record(addr, false);
}

void trace_write(const volatile void *addr)
{
	record(addr, true);
}

void trace_all(void)
{
	T.all = true;
}

void trace_step_end(int actor)
{
	int e = entry(actor);
	struct vc v;

	if (e >= T.hi)
		T.hi = e + 1;
	v = T.last[e];
	uint64_t ha = 0x243f6a8885a308d3ull + (uint64_t)actor, hb = 0x13198a2e03707344ull ^ (uint64_t)actor;

	v.c[e]++;
	join(&v, &T.floor);
	for (unsigned i = 0; i < T.nacc; i++) {
		join(&v, &T.acc[i].loc->wrote);
		if (T.acc[i].write)
			join(&v, &T.acc[i].loc->read);
	}
	if (T.all) {
		for (int i = 0; i < T.hi; i++)
			join(&v, &T.last[i]);
		T.floor = v;
	}
	for (unsigned i = 0; i < T.nacc; i++) {
		struct loc *l = T.acc[i].loc;

		if (T.acc[i].write) {
			l->wrote = v;
			memset(&l->read, 0, sizeof(l->read));
		} else {
			join(&l->read, &v);
		}
	}
	T.last[e] = v;
	T.nacc = 0;
	T.all = false;
	/* The step's name: its actor and its clock, the clock taken to two
	 * words by two random linear maps, each mixed.  Summed, so the order
	 * of independent steps does not matter. */
	for (int i = 0; i < T.hi; i++) {
		ha += v.c[i] * weight[0][i];
		hb += v.c[i] * weight[1][i];
	}
	T.sum_a += mix(ha);
	T.sum_b += mix(hb ^ 0x9e3779b97f4a7c15ull);
}

struct trace_key trace_key(void)
{
	return (struct trace_key){ T.sum_a, T.sum_b };
}
