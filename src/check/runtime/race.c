/*
 * race.c - data races (check build only): two conflicting accesses of the
 * explored contexts, at least one plain, not ordered by happens-before.
 *
 * Happens-before is kept with vector clocks, one per context: a context's
 * own component ticks at each release it makes; starting a context orders
 * what its starter did before, joining one what it did; a release (store,
 * read-modify-write) of a word passes its writer's clock to the word, an
 * acquire of the word takes it.  Relaxed accesses pass clocks through
 * fences, as the kernel's smp_wmb/smp_rmb pairs order: a relaxed store
 * passes the clock of its context's last release fence (smp_mb, smp_wmb,
 * a full read-modify-write), a relaxed load gathers the word's clock,
 * which the context's next acquire fence (smp_mb, smp_rmb) takes.  Locks
 * are the seam's exchange and release store, so they order as such.
 *
 * Every access of the explored code is kept per 8-byte granule: its last
 * write, and each context's last read, with the context's clock then and
 * the instruction's address.  An access conflicts with a kept one of
 * another context when their bytes meet, one writes, and not both are
 * marked (atomic, volatile: READ_ONCE/WRITE_ONCE, the seam's own); the
 * two race when the kept one is not ordered before it.  Marked reads are
 * checked but not kept: a plain write that follows one unordered is
 * missed in that execution (found where the write comes first).  The first race of
 * an execution is kept for the judge.  Tables are per execution (by
 * generation); what they cannot hold is not kept: races missed, never
 * made up, and said (rt_race_unkept(): txpath check warns).  Clocks
 * given to words past the table's limit go to one clock for all of them,
 * which acquires of such words take: more ordering, no false race.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <string.h>

#include "check/runtime/rt.h"

#define RACE_GRANULES 4096		/* kept per execution */
#define RACE_INDEX (1u << 13)		/* a power of two, above RACE_GRANULES */
#define RACE_SYNCS 4096			/* a power of two */
#define RACE_PROBES 32

/* Every access of the explored code takes this path: inlined whole (5 %
 * of a schedule's instructions were calls and returns). */
#define HOT static inline __attribute__((always_inline))

typedef uint32_t vclock[RT_MAX_CTX];

struct access {
	const void *pc;
	uint32_t clk;		/* its context's own component then; 0: none */
	uint8_t mask;		/* the granule's bytes it touched */
	uint8_t flags;		/* RACE_WRITE, RACE_MARKED */
	int8_t ctx;
};

/* The last plain write and the last marked one apart: kept in one slot,
 * a marked write's bytes would take a plain one's flag (or lose it). */
struct granule {
	uintptr_t g;
	struct access w, wm, r[RT_MAX_CTX];
};

/* A granule's place in the pool, by hash: the pool fills from its start
 * in each execution, so what one touches stays in few cache lines. */
struct slot {
	unsigned gen;
	unsigned at;
};

struct sync_word {
	const volatile void *addr;
	unsigned gen;
	vclock vc;
};

static struct {
	unsigned gen;
	vclock vc[RT_MAX_CTX];		/* each context's clock */
	vclock fence_rel[RT_MAX_CTX];	/* at its last release fence */
	vclock fence_acq[RT_MAX_CTX];	/* gathered by its relaxed loads */
	vclock spill;			/* the words past the table */
	bool spilled;
	struct slot index[RACE_INDEX];
	unsigned ngr;
	struct granule gr[RACE_GRANULES];
	struct sync_word sw[RACE_SYNCS];
	bool unkept;		/* an access past the table, not kept */
	bool found;
	uintptr_t addr;
	struct access first, second;
} R;

static void vc_join(vclock into, const vclock from)
{
	for (int i = 0; i < RT_MAX_CTX; i++)
		if (from[i] > into[i])
			into[i] = from[i];
}

static uint64_t hash(uintptr_t k)
{
	return (uint64_t)k * 0x9e3779b97f4a7c15ull;
}

void rt_race_reset(void)
{
	R.gen++;
	R.ngr = 0;
	R.found = R.spilled = R.unkept = false;
	memset(R.vc, 0, sizeof(R.vc));
	memset(R.fence_rel, 0, sizeof(R.fence_rel));
	memset(R.fence_acq, 0, sizeof(R.fence_acq));
	memset(R.spill, 0, sizeof(R.spill));
}

/* -- happens-before --------------------------------------------------------- */

/* Context child starts, from parent (-1: the controller, which orders
 * nothing: its set-up is not kept). */
void rt_race_spawn(int parent, int child)
{
	memset(R.vc[child], 0, sizeof(R.vc[child]));
	memset(R.fence_rel[child], 0, sizeof(R.fence_rel[child]));
	memset(R.fence_acq[child], 0, sizeof(R.fence_acq[child]));
	if (parent >= 0) {
		vc_join(R.vc[child], R.vc[parent]);
		R.vc[parent][parent]++;
	}
	R.vc[child][child]++;
}

/* joiner (-1: the controller) saw child end. */
void rt_race_join(int joiner, int child)
{
	if (joiner >= 0 && child >= 0)
		vc_join(R.vc[joiner], R.vc[child]);
}

/* addr's clock (create: a new one if none); NULL if it has none, or past
 * the table. */
static struct sync_word *sync_word(const volatile void *addr, bool create)
{
	uint64_t h = hash((uintptr_t)addr);

	for (unsigned i = (unsigned)(h >> 52), k = 0; k < RACE_PROBES; k++, i++) {
		struct sync_word *s = &R.sw[i % RACE_SYNCS];

		if (s->gen == R.gen && s->addr == addr)
			return s;
		if (s->gen != R.gen) {
			if (!create)
				return NULL;
			s->addr = addr;
			s->gen = R.gen;
			memset(s->vc, 0, sizeof(s->vc));
			return s;
		}
	}
	return NULL;
}

static void release_to(const volatile void *addr, const vclock vc)
{
	struct sync_word *s = sync_word(addr, true);

	if (s) {
		vc_join(s->vc, vc);
	} else {
		vc_join(R.spill, vc);
		R.spilled = true;
	}
}

static const uint32_t *clock_of(const volatile void *addr)
{
	struct sync_word *s = sync_word(addr, false);

	return s ? s->vc : R.spilled ? R.spill : NULL;
}

/* Context c's atomic access of addr orders as its memory order mo (the
 * C11 values, as the instrumentation passes them): load, store or both. */
void rt_race_sync(int c, const volatile void *addr, bool load, bool store, int mo)
{
	bool acquire = mo != __ATOMIC_RELAXED && mo != __ATOMIC_RELEASE;
	bool release = mo == __ATOMIC_RELEASE || mo == __ATOMIC_ACQ_REL || mo == __ATOMIC_SEQ_CST;

	if (load) {
		const uint32_t *w = clock_of(addr);

		if (w)
			vc_join(acquire ? R.vc[c] : R.fence_acq[c], w);
	}
	if (store) {
		release_to(addr, release ? R.vc[c] : R.fence_rel[c]);
		if (release)
			R.vc[c][c]++;
	}
}

/* A fence of context c: acquire (smp_rmb), release (smp_wmb) or both. */
void rt_race_fence(int c, bool acquire, bool release)
{
	if (acquire)
		vc_join(R.vc[c], R.fence_acq[c]);
	if (release) {
		memcpy(R.fence_rel[c], R.vc[c], sizeof(vclock));
		R.vc[c][c]++;
	}
}

/* -- accesses --------------------------------------------------------------- */

/* Granule g's accesses (create: new ones if none); NULL if none, or past
 * the table. */
HOT struct granule *granule(uintptr_t g, bool create)
{
	uint64_t h = hash(g);

	for (unsigned i = (unsigned)(h >> 51), k = 0; k < RACE_PROBES; k++, i++) {
		struct slot *s = &R.index[i % RACE_INDEX];
		struct granule *e;

		if (s->gen == R.gen && R.gr[s->at].g == g)
			return &R.gr[s->at];
		if (s->gen == R.gen)
			continue;
		if (!create || R.ngr == RACE_GRANULES)
			break;
		*s = (struct slot){ R.gen, R.ngr };
		e = &R.gr[R.ngr++];
		memset(e, 0, sizeof(*e));
		e->g = g;
		return e;
	}
	R.unkept |= create;
	return NULL;
}

/* Do a (kept) and b (of context c, now) race? */
HOT bool races(const struct access *a, const struct access *b, int c)
{
	return a->clk && a->ctx != c && (a->mask & b->mask) &&
	       ((a->flags | b->flags) & RACE_WRITE) &&
	       !(a->flags & b->flags & RACE_MARKED) && a->clk > R.vc[c][a->ctx];
}

static void race_found(uintptr_t addr, const struct access *a, const struct access *b)
{
	if (R.found)
		return;
	R.found = true;
	R.addr = addr;
	R.first = *a;
	R.second = *b;
	rt_event(b->ctx, "data race: this access and an unordered one of another context", NULL, NULL);
}

/* Keep b in slot a (of accesses as plain, or as marked, as b): the newer
 * of the same clock adds its bytes. */
static void keep(struct access *a, const struct access *b)
{
	if (a->clk == b->clk && a->ctx == b->ctx) {
		a->mask |= b->mask;
		a->flags |= b->flags & RACE_WRITE;
		a->pc = b->pc;
	} else {
		*a = *b;
	}
}

HOT void access_granule(int c, uintptr_t addr, uint8_t mask, unsigned flags, const void *pc)
{
	/* A marked read is checked, not kept (the statistics' sums make
	 * most of them): a plain write after it, unordered, is missed. */
	struct granule *e = granule(addr >> 3, flags != RACE_MARKED);
	struct access b = { pc, R.vc[c][c], mask, (uint8_t)flags, (int8_t)c };

	if (!e)
		return;
	if (races(&e->w, &b, c))
		race_found(addr, &e->w, &b);
	if (races(&e->wm, &b, c))
		race_found(addr, &e->wm, &b);
	if (flags & RACE_WRITE) {
		for (int i = 0; i < rt.n; i++)
			if (races(&e->r[i], &b, c))
				race_found(addr, &e->r[i], &b);
		keep(flags & RACE_MARKED ? &e->wm : &e->w, &b);
	} else if (flags == 0) {
		keep(&e->r[c], &b);
	}
}

void rt_race_access(int c, const volatile void *addr, size_t size, unsigned flags,
		    const void *pc)
{
	uintptr_t a = (uintptr_t)addr, end = a + size;

	while (a < end) {
		uintptr_t next = (a | 7) + 1;
		unsigned n = (unsigned)((next < end ? next : end) - a);

		access_granule(c, a, (uint8_t)(((1u << n) - 1) << (a & 7)), flags, pc);
		a += n;
	}
}

/* Nothing of size bytes at addr was accessed: it is new memory. */
void rt_race_forget(const volatile void *addr, size_t size)
{
	uintptr_t g = (uintptr_t)addr >> 3, end = ((uintptr_t)addr + size + 7) >> 3;

	for (; g < end && R.ngr; g++) {
		struct granule *e = granule(g, false);

		if (e)
			memset(&e->w, 0, sizeof(*e) - offsetof(struct granule, w));
	}
}

/* -- the report ----------------------------------------------------------------- */

/* Where pc is: "function (file:line)" by addr2line, else "object+offset". */
static void describe_pc(const void *pc, char *buf, size_t len)
{
	Dl_info info;
	char cmd[512], fn[160] = "", line[160] = "";
	FILE *p;

	if (!dladdr(pc, &info) || !info.dli_fname) {
		snprintf(buf, len, "%p", pc);
		return;
	}
	snprintf(cmd, sizeof(cmd), "addr2line -f -e '%s' %#" PRIxPTR " 2>/dev/null", info.dli_fname,
		 (uintptr_t)pc - 1 - (uintptr_t)info.dli_fbase);
	p = strchr(info.dli_fname, '\'') ? NULL : popen(cmd, "r");
	if (p) {
		if (!fgets(fn, sizeof(fn), p) || !fgets(line, sizeof(line), p))
			fn[0] = '\0';
		pclose(p);
	}
	fn[strcspn(fn, "\n")] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (fn[0] && strcmp(fn, "??"))
		snprintf(buf, len, "%s (%s)", fn, strrchr(line, '/') ? strrchr(line, '/') + 1 : line);
	else
		snprintf(buf, len, "%s+%#" PRIxPTR,
			 strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname,
			 (uintptr_t)pc - (uintptr_t)info.dli_fbase);
}

static void describe(const struct access *a, char *buf, size_t len)
{
	char where[400];

	describe_pc(a->pc, where, sizeof(where));
	snprintf(buf, len, "%s %s by %s in %s", a->flags & RACE_MARKED ? "a marked" : "a plain",
		 a->flags & RACE_WRITE ? "write" : "read", rt_ctx_name(a->ctx), where);
}

bool rt_race_unkept(void)
{
	return R.unkept;
}

bool rt_race_found(char *buf, size_t len)
{
	char a[600], b[600];

	if (!R.found)
		return false;
	describe(&R.first, a, sizeof(a));
	describe(&R.second, b, sizeof(b));
	snprintf(buf, len, "%s and %s, of the word at %#" PRIxPTR ", not ordered by "
		 "happens-before", a, b, R.addr & ~(uintptr_t)7);
	return true;
}
