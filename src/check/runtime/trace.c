/*
 * trace.c - the execution as a Mazurkiewicz trace, fingerprinted (check
 * build only).  See trace.h.
 *
 * Vector clocks, as a race detector keeps them: each location has the clock
 * of its last write and the join of the reads since; a step's clock joins
 * its actor's previous step, the last write of every location it touches
 * and, for a location it writes, the reads since.  A step dependent with
 * everything joins every actor's last clock and becomes a floor every
 * later step joins.  An expected step's name is computed the same way
 * from its footprint, as if it ran now, and nothing changed.
 *
 * Symmetric contexts (trace_symmetric()): the trace is summed once under
 * each permutation of them, each step's actor and clock entries permuted,
 * and its name is the least of the sums.
 */
#include "check/runtime/trace.h"

#include <string.h>

#include "check/runtime/runtime.h"

#define ACTORS (2 * RT_MAX_CTX)
#define LOCS 1024		/* a power of two; half may be used */
#define ACCESSES 64		/* recorded per step; past it, dependent with all */
#define PERMS 24		/* TRACE_SYM_MAX! */
_Static_assert(TRACE_SYM_MAX == 4, "PERMS is 4!");

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
	uint64_t choices;	/* the running step's (trace_choice()), 0: none */
	int hi;			/* clock entries in use: 0..hi-1 */
	unsigned perms;		/* Y's permutations in use (trace_symmetric()) */
	uint64_t sum_a[PERMS], sum_b[PERMS];	/* the trace's name under each of them */
	struct trace_fp expect[RT_MAX_CTX];	/* each context's next step */
	unsigned expected;	/* bit c: expect[c] is known */
} T;

/* The symmetric contexts' permutations (built once for a set of them):
 * perm k takes actor a to actor[k][a] and clock entry e to entry[k][e];
 * perm 0 is the identity, and the only one when no contexts are
 * symmetric. */
static struct {
	int ctx[TRACE_SYM_MAX];
	unsigned n, perms;
	uint8_t actor[PERMS][RT_FLUSH + RT_MAX_CTX], entry[PERMS][ACTORS];
} Y;	/* perms 0: not yet built */

/* Clock entry of an actor: a context and its landings side by side, so
 * that the entries in use are the first few. */
static int entry(int actor)
{
	return actor < RT_FLUSH ? 2 * actor : 2 * (actor - RT_FLUSH) + 1;
}

/* Perm k: the symmetric contexts' k-th permutation (in the order of
 * Heap's algorithm's successive swaps, from the identity), each context's
 * landings with it. */
static void perm_set(unsigned k, const int *to)
{
	uint8_t *actor = Y.actor[k];

	for (int c = 0; c < RT_MAX_CTX; c++) {
		actor[c] = (uint8_t)c;
		actor[RT_FLUSH + c] = (uint8_t)(RT_FLUSH + c);
	}
	for (unsigned i = 0; i < Y.n; i++) {
		actor[Y.ctx[i]] = (uint8_t)to[i];
		actor[RT_FLUSH + Y.ctx[i]] = (uint8_t)(RT_FLUSH + to[i]);
	}
	for (int c = 0; c < RT_MAX_CTX; c++) {
		Y.entry[k][entry(c)] = (uint8_t)entry(actor[c]);
		Y.entry[k][entry(RT_FLUSH + c)] = (uint8_t)entry(actor[RT_FLUSH + c]);
	}
}

/* 2..TRACE_SYM_MAX distinct contexts? */
static bool sym_valid(const int *ctx, unsigned n)
{
	if (n < 2 || n > TRACE_SYM_MAX)
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (ctx[i] < 0 || ctx[i] >= RT_MAX_CTX)
			return false;
		for (unsigned j = 0; j < i; j++)
			if (ctx[j] == ctx[i])
				return false;
	}
	return true;
}

/* Y for the contexts ctx[0..n) (0: none, the identity alone). */
static void sym_build(const int *ctx, unsigned n)
{
	int to[TRACE_SYM_MAX] = { 0 }, c[TRACE_SYM_MAX] = { 0 };

	if (Y.perms && n == Y.n && (!n || !memcmp(ctx, Y.ctx, n * sizeof(*ctx))))
		return;
	Y.n = n;
	for (unsigned i = 0; i < n; i++)
		Y.ctx[i] = to[i] = ctx[i];
	Y.perms = 0;
	perm_set(Y.perms++, to);
	/* Heap's algorithm: every permutation, one swap from the last. */
	for (unsigned i = 1; i < n;) {
		if (c[i] < (int)i) {
			int j = i % 2 ? c[i] : 0, t = to[j];

			to[j] = to[i];
			to[i] = t;
			perm_set(Y.perms++, to);
			c[i]++;
			i = 1;
		} else {
			c[i++] = 0;
		}
	}
}

void trace_symmetric(const int *ctx, unsigned n)
{
	/* Once a step has ended, its name is the identity's alone. */
	if (!sym_valid(ctx, n) || T.hi)
		n = 0;
	sym_build(ctx, n);
	T.perms = Y.perms;
}

bool trace_default_tells_apart(unsigned mask)
{
	unsigned sym = 0, other;

	if (T.perms == 1 || !(mask & (mask - 1)))
		return false;
	for (unsigned i = 0; i < Y.n; i++)
		sym |= 1u << Y.ctx[i];
	other = mask & ~sym;
	/* Another context below every symmetric one is chosen in every
	 * image; so is the whole choice when none is symmetric. */
	return (mask & sym) && !(other && __builtin_ctz(other) < __builtin_ctz(sym));
}

static void join(struct vc *to, const struct vc *from)
{
	for (int i = 0; i < T.hi; i++)
		to->c[i] = to->c[i] > from->c[i] ? to->c[i] : from->c[i];
}

/* The linear maps of trace_step_end(): odd weights, drawn once. */
static uint64_t weight[2][ACTORS];

void trace_reset(void)
{
	if (!weight[0][0]) {
		uint64_t x = 0;

		for (int w = 0; w < 2; w++)
			for (int i = 0; i < ACTORS; i++)
				weight[w][i] = trace_mix(x += 0x9e3779b97f4a7c15ull) | 1;
	}
	if (!Y.perms)
		sym_build(NULL, 0);
	T.perms = 1;
	T.gen++;
	T.nlocs = 0;
	memset(T.last, 0, sizeof(T.last));
	memset(&T.floor, 0, sizeof(T.floor));
	T.nacc = 0;
	T.all = false;
	T.choices = 0;
	T.hi = 0;
	memset(T.sum_a, 0, sizeof(T.sum_a));
	memset(T.sum_b, 0, sizeof(T.sum_b));
	T.expected = 0;
}

/* addr's entry, or the free one where it would go (NULL: none). */
static struct loc *loc_slot(const volatile void *addr)
{
	uint64_t h = trace_mix((uint64_t)(uintptr_t)addr);

	for (unsigned i = (unsigned)h, k = 0; k < LOCS; k++, i++) {
		struct loc *l = &T.loc[i % LOCS];

		if (l->gen != T.gen || l->addr == addr)
			return l;
	}
	return NULL;
}

/* addr's entry, made on first use; NULL past the table's half. */
static struct loc *loc_of(const volatile void *addr)
{
	struct loc *l = loc_slot(addr);

	if (!l || l->gen == T.gen)
		return l;
	if (T.nlocs >= LOCS / 2)
		return NULL;
	memset(l, 0, sizeof(*l));
	l->addr = addr;
	l->gen = T.gen;
	T.nlocs++;
	return l;
}

/* A location is an aligned 8 bytes: accesses of other sizes or at other
 * addresses that share bytes (a word and its half) are dependent.  The
 * seam's are naturally aligned, so each is within one; a read set's may
 * be any (wait.c records both ends). */
#define GRANULE 8

static void record(const volatile void *addr, bool write)
{
	struct loc *l = loc_of((const volatile void *)((uintptr_t)addr & ~(uintptr_t)(GRANULE - 1)));

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

void trace_choice(unsigned v)
{
	T.choices = trace_mix(T.choices + v + 0x9e3779b97f4a7c15ull);
}

/* The clock of actor e's step that touches acc[0..n): after its actor's
 * last step, the floor, what wrote each location and, for a write, the
 * reads since. */
static void step_clock(struct vc *v, int e, const struct access *acc, unsigned n)
{
	*v = T.last[e];
	v->c[e]++;
	join(v, &T.floor);
	for (unsigned i = 0; i < n; i++) {
		join(v, &acc[i].loc->wrote);
		if (acc[i].write)
			join(v, &acc[i].loc->read);
	}
}

/* A step's name under perm k: its actor and its clock, permuted, the clock
 * taken to two words by two random linear maps, each mixed with its
 * choices (0: none).  Summed into the trace's, so the order of independent
 * steps does not matter. */
static struct trace_key step_name(unsigned k, int actor, const struct vc *v, int hi,
				  uint64_t choices)
{
	const uint8_t *to = Y.entry[k];
	uint64_t a = Y.actor[k][actor];
	uint64_t ha = 0x243f6a8885a308d3ull + a, hb = 0x13198a2e03707344ull ^ a;

	for (int i = 0; i < hi; i++) {
		ha += v->c[i] * weight[0][to[i]];
		hb += v->c[i] * weight[1][to[i]];
	}
	return (struct trace_key){ trace_mix(ha ^ choices),
				   trace_mix(hb ^ 0x9e3779b97f4a7c15ull ^ trace_mix(choices)), -1 };
}

/* The trace's name, with step (actor, v) added if actor >= 0: the least
 * of its sums under the permutations; cur (-1: nobody) is carried to its
 * image under the permutation chosen. */
static struct trace_key name_of(int actor, const struct vc *v, int hi, int cur)
{
	struct trace_key best = { 0, 0, -1 };

	for (unsigned k = 0; k < T.perms; k++) {
		struct trace_key t = { T.sum_a[k], T.sum_b[k], -1 };

		if (actor >= 0) {
			struct trace_key s = step_name(k, actor, v, hi, 0);

			t.a += s.a;
			t.b += s.b;
		}
		if (!k || t.a < best.a || (t.a == best.a && t.b < best.b)) {
			best = t;
			best.cur = (int8_t)(cur >= 0 ? Y.actor[k][cur] : -1);
		}
	}
	return best;
}

/* The running step, by actor, is over: forget what it makes unknown, the
 * expected step of its context, and every one that touched what it wrote. */
static void forget_expected(int actor)
{
	T.expected &= ~(1u << (actor < RT_FLUSH ? actor : actor - RT_FLUSH));
	if (T.all)
		T.expected = 0;
	for (unsigned i = 0; i < T.nacc && T.expected; i++) {
		if (!T.acc[i].write)
			continue;
		for (unsigned m = T.expected; m; m &= m - 1) {
			const struct trace_fp *fp = &T.expect[__builtin_ctz(m)];

			for (unsigned j = 0; j < fp->n; j++)
				if (fp->addr[j] == T.acc[i].loc->addr) {
					T.expected &= ~(m & -m);
					break;
				}
		}
	}
}

void trace_step_end(int actor)
{
	int e = entry(actor);
	struct vc v;

	if (e >= T.hi)
		T.hi = e + 1;
	step_clock(&v, e, T.acc, T.nacc);
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
	if (T.expected)
		forget_expected(actor);
	T.nacc = 0;
	T.all = false;
	for (unsigned k = 0; k < T.perms; k++) {
		struct trace_key name = step_name(k, actor, &v, T.hi, T.choices);

		T.sum_a[k] += name.a;
		T.sum_b[k] += name.b;
	}
	T.choices = 0;
}

void trace_step_fp(struct trace_fp *fp)
{
	fp->n = 0;
	fp->writes = 0;
	if (T.all || T.choices) {
		fp->n = TRACE_FP_UNKNOWN;
		return;
	}
	for (unsigned i = 0; i < T.nacc; i++) {
		unsigned j = 0;

		while (j < fp->n && fp->addr[j] != T.acc[i].loc->addr)
			j++;
		if (j == fp->n) {
			if (fp->n == TRACE_FP_MAX) {
				fp->n = TRACE_FP_UNKNOWN;
				return;
			}
			fp->addr[fp->n++] = T.acc[i].loc->addr;
		}
		if (T.acc[i].write)
			fp->writes |= (uint8_t)(1u << j);
	}
}

void trace_expect(int ctx, const struct trace_fp *fp)
{
	if (fp->n == TRACE_FP_UNKNOWN) {
		T.expected &= ~(1u << ctx);
		return;
	}
	T.expect[ctx] = *fp;
	T.expected |= 1u << ctx;
}

/* The fingerprint after a step of actor with footprint fp, run now. */
static bool peek(int actor, const struct trace_fp *fp, struct trace_key *k)
{
	struct access acc[TRACE_FP_MAX];
	unsigned n = 0, fresh = 0;
	int e = entry(actor);
	struct vc v;

	if (fp->n == TRACE_FP_UNKNOWN)
		return false;
	for (unsigned i = 0; i < fp->n; i++) {
		struct loc *l = loc_slot(fp->addr[i]);

		if (!l)
			return false;
		if (l->gen != T.gen)
			fresh++;	/* first touched by the step: nothing to join */
		else
			acc[n++] = (struct access){ l, (fp->writes >> i) & 1 };
	}
	/* Where the step would find the table full, its trace is another. */
	if (fresh && T.nlocs + fresh > LOCS / 2)
		return false;
	step_clock(&v, e, acc, n);
	*k = name_of(actor, &v, e >= T.hi ? e + 1 : T.hi, -1);
	return true;
}

bool trace_expected_key(int ctx, struct trace_key *k)
{
	return (T.expected & (1u << ctx)) && peek(ctx, &T.expect[ctx], k);
}

struct trace_key trace_key(int cur)
{
	return name_of(-1, NULL, 0, cur);
}
