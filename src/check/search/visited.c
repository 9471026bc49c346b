/*
 * visited.c - the explored states, an open-addressed hash set (check build
 * only).  See visited.h.
 *
 * A state is its trace; the running context only prices its choices.
 * Going on costs nothing, anything else at most one preemption, so an
 * explored (trace, cur, left) covers the trace met again with any running
 * context and one less, or with cur (or nobody running: every run free)
 * and as many.  An entry is the key's two words, the second's low 16 bits
 * replaced by the most preemptions left it was explored with, plus one
 * (0: empty), and the running contexts it was explored with that many
 * (bit cur + 1): exact for that cover, 112 bits of the key compared.
 * The table doubles at half load up to its most entries (a quarter of the
 * machine's memory, at most 2^30, shared among the processes that each
 * have one: visited_share()), fills to three quarters there; past that a new state is not kept (the search explores
 * it again: slower, as sound).
 */
#include "check/search/visited.h"

#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#define VISITED_MIN (1u << 16)
#define VISITED_MAX (1ull << 30)	/* 16 GiB of entries, 800 M states */

struct entry {
	uint64_t a, b;
};

static struct {
	struct entry *e;
	uint64_t cap, n, max;
	unsigned shares;	/* of the quarter of memory: one per table */
	bool full;
} V;

/* The most entries: a power of two, in this table's share of a quarter
 * of the memory. */
static uint64_t max_entries(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t fit = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 4 /
					       (V.shares ? V.shares : 1) / sizeof(struct entry)
					     : VISITED_MIN;
	uint64_t max = VISITED_MIN;

	while (max * 2 <= fit && max < VISITED_MAX)
		max *= 2;
	return max;
}

void visited_share(unsigned n)
{
	V.shares = n;
	V.max = 0;
}

#define TAG_MASK 0xffffull
#define LEFT_MAX 126u
#define LEFT(e) ((unsigned)((e)->b & 0x7f) - 1)	/* of a full entry */
#define CURS(e) ((unsigned)((e)->b >> 7) & 0x1ff)

static unsigned cur_bit(int cur)
{
	return 1u << (cur + 1);
}

static uint64_t tagged(uint64_t b, unsigned left, unsigned curs)
{
	return (b & ~TAG_MASK) | (uint64_t)curs << 7 | ((left < LEFT_MAX ? left : LEFT_MAX) + 1);
}

/* The slot of (a, b), or the empty one where it would go. */
static struct entry *slot(struct entry *e, uint64_t cap, uint64_t a, uint64_t b)
{
	for (uint64_t i = a & (cap - 1);; i = (i + 1) & (cap - 1))
		if (!e[i].b || (e[i].a == a && (e[i].b & ~TAG_MASK) == (b & ~TAG_MASK)))
			return &e[i];
}

/* A zeroed table of cap entries, in huge pages where the kernel has them:
 * every look-up is a miss, and with 4 KiB pages a TLB miss too. */
static struct entry *table_alloc(uint64_t cap)
{
	void *p = mmap(NULL, cap * sizeof(struct entry), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, cap * sizeof(struct entry), MADV_HUGEPAGE);
	return p;
}

static void table_free(struct entry *e, uint64_t cap)
{
	if (e)
		munmap(e, cap * sizeof(*e));
}

static bool grow(void)
{
	uint64_t cap = V.cap ? V.cap * 2 : VISITED_MIN;
	struct entry *e;

	if (!V.max)
		V.max = max_entries();
	if (cap > V.max)
		return false;
	e = table_alloc(cap);
	if (!e)
		return false;
	for (uint64_t i = 0; i < V.cap; i++)
		if (V.e[i].b)
			*slot(e, cap, V.e[i].a, V.e[i].b) = V.e[i];
	table_free(V.e, V.cap);
	V.e = e;
	V.cap = cap;
	return true;
}

void visited_clear(void)
{
	table_free(V.e, V.cap);
	V.e = NULL;
	V.cap = V.n = 0;
	V.full = false;
}

void visited_add(uint64_t a, uint64_t b, int cur, unsigned left)
{
	struct entry *s;

	if (V.n >= (V.cap < V.max ? V.cap / 2 : V.cap / 4 * 3) && !grow()) {
		V.full = true;
		return;
	}
	s = slot(V.e, V.cap, a, b);
	if (left > LEFT_MAX)
		left = LEFT_MAX;
	if (!s->b) {
		V.n++;
		*s = (struct entry){ a, tagged(b, left, cur_bit(cur)) };
	} else if (LEFT(s) < left) {
		s->b = tagged(b, left, cur_bit(cur));
	} else if (LEFT(s) == left) {
		s->b = tagged(b, left, CURS(s) | cur_bit(cur));
	}
}

void visited_prefetch(uint64_t a)
{
	if (V.cap)
		__builtin_prefetch(&V.e[a & (V.cap - 1)]);
}

bool visited_covers(uint64_t a, uint64_t b, int cur, unsigned left)
{
	struct entry *s;

	if (!V.cap)
		return false;
	s = slot(V.e, V.cap, a, b);
	if (!s->b || LEFT(s) < left)
		return false;
	return LEFT(s) > left || (CURS(s) & (cur_bit(cur) | cur_bit(-1)));
}

uint64_t visited_count(void)
{
	return V.n;
}

bool visited_full(void)
{
	return V.full;
}
