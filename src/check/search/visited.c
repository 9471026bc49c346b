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
 * (bit cur + 1), and its top bit set: exact for that cover, 111 bits of
 * the key compared.
 *
 * The table is a series of generations, each twice the last, from 2^16
 * entries to its most (a quarter of the machine's memory, at most 2^30,
 * shared among the processes that each have one: visited_share()), all
 * mapped at once, their pages given as touched: at half load the
 * generation in use is copied into the next (grow()), which is used from
 * then on, and its memory given back; the last fills to three quarters,
 * past which a new state is not kept (the search explores it again:
 * slower, as sound).
 *
 * The workers of one run may share the table (visited_share_table()):
 * the mapping is made in shared memory before they are forked.  Entries
 * are written without a lock, by the same code as in a table of one:
 *   - a new entry claims an empty slot by a compare-and-swap of its
 *     second word from 0 to the key with no preemptions noted (low 7 bits
 *     0: claimed, not yet published); then its first word is stored, and
 *     the second published with its count by a release store;
 *   - a reader (a look-up, or a writer probing for its key) loads the
 *     second word with acquire, pairing with that release store and with
 *     the compare-and-swaps below, so a published entry's first word is
 *     the one stored before it; a slot claimed, not yet published, is
 *     passed over as another key's;
 *   - an entry's count and running contexts only grow, by compare-and-swap
 *     of its second word (release);
 *   - one worker at a time copies a generation into the next while the
 *     others go on with it; what they add to it meanwhile may be lost
 *     (explored again, as sound).
 * Two workers that add one state at once may both claim a slot for it:
 * two entries, each true, the first found by look-ups (at worst the other
 * worker's better count unseen: a subtree explored again, as sound).
 *
 * Why the guarantees hold with a shared table: a state is added only once
 * its every future within the preemptions left was explored and judged,
 * none with a violation (dfs_next(), when its branch has no action left;
 * a violation ends the worker's search before that, explore_bound()),
 * and, for a worker that skipped pieces or ran another's lone schedule
 * for the tree only, unjudged, only below where it did neither (dfs.h's
 * partial) or once the pieces below are all done, by whoever
 * (strategy.c's deferred_add()).  So every entry, whoever wrote it, says the same
 * true thing: no violation within its count from there.  Skipping a state
 * so covered skips no violating schedule, so in each piece the first
 * violating schedule in the search's fixed order is run whichever
 * entries the worker saw (every run before it shares its path down to
 * where they part, none of it covered), and no violating schedule before
 * it exists to be found: each piece's violation, the first piece with one
 * (merge.c), and so the violation reported are the same whatever N and
 * the timing.  Only what is explored twice varies: the schedules and
 * states counted.
 */
#include "check/search/visited.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#define VISITED_MIN (1u << 16)
#define VISITED_MAX (1ull << 30)	/* 16 GiB of entries, 800 M states */
#define GENS 15			/* tables of VISITED_MIN << 0 .. 14 entries */

/* a: written once, before b publishes it; b: see above. */
struct entry {
	uint64_t a;
	_Atomic uint64_t b;
};

/* The table's state, after its generations in the same mapping (shared
 * by the workers with them). */
struct head {
	_Atomic unsigned gen;		/* the generation in use */
	atomic_bool growing;		/* a process copies it into the next */
	atomic_bool full;		/* a state was not kept at the last */
	_Atomic uint64_t n[GENS];	/* each generation's entries */
	unsigned last;			/* the last generation (the most entries) */
};

static struct {
	struct entry *base;	/* generation g at VISITED_MIN * (2^g - 1) */
	struct head *h;		/* NULL: no table */
	size_t size;		/* of the mapping */
	bool shared;		/* with the workers, mapped before they were */
	unsigned shares;	/* of the quarter of memory: one per table */
	unsigned gen;		/* the generation this process last saw */
	struct entry *e;	/* it */
	uint64_t cap;
} V;

/* The last generation: its entries a power of two, in this table's share
 * of a quarter of the memory. */
static unsigned last_gen(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t fit = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 4 /
					       (V.shares ? V.shares : 1) / sizeof(struct entry)
					     : VISITED_MIN;
	unsigned g = 0;

	while (((uint64_t)VISITED_MIN << (g + 1)) <= fit && g + 1 < GENS)
		g++;
	return g;
}

void visited_share(unsigned n)
{
	V.shares = n;
}

#define TAG_MASK 0xffffull
#define KEY_BIT (1ull << 63)	/* a claimed slot is never 0 */
#define LEFT_MAX 126u
#define LEFT_BITS 0x7full
#define LEFT(b) ((unsigned)((b) & LEFT_BITS) - 1)	/* of a published entry */
#define CURS(b) ((unsigned)((b) >> 7) & 0x1ff)

static unsigned cur_bit(int cur)
{
	return 1u << (cur + 1);
}

static uint64_t key_b(uint64_t b)
{
	return (b & ~TAG_MASK) | KEY_BIT;
}

static uint64_t tagged(uint64_t b, unsigned left, unsigned curs)
{
	return key_b(b) | (uint64_t)curs << 7 | ((left < LEFT_MAX ? left : LEFT_MAX) + 1);
}

static bool published(uint64_t b)
{
	return b & LEFT_BITS;
}

static uint64_t gen_cap(unsigned g)
{
	return (uint64_t)VISITED_MIN << g;
}

static struct entry *gen_table(unsigned g)
{
	return V.base + ((uint64_t)VISITED_MIN << g) - VISITED_MIN;
}

/* The published slot of (a, b), or NULL (*empty: the empty one where it
 * would go, NULL when the table is full of others).  *seen: its second
 * word as loaded. */
static struct entry *slot(struct entry *e, uint64_t cap, uint64_t a, uint64_t b,
			  struct entry **empty, uint64_t *seen)
{
	uint64_t key = key_b(b);

	*empty = NULL;
	for (uint64_t i = a & (cap - 1), n = 0; n < cap; i = (i + 1) & (cap - 1), n++) {
		/* Acquire: pairs with the release that published the entry
		 * (entry_put(), entry_raise()), so its a is read whole. */
		uint64_t s = atomic_load_explicit(&e[i].b, memory_order_acquire);

		if (!s) {
			*empty = &e[i];
			return NULL;
		}
		if (published(s) && (s & ~TAG_MASK) == key && e[i].a == a) {
			*seen = s;
			return &e[i];
		}
	}
	return NULL;
}

/* Claim the empty slot s for (a, b) and publish it: false if another
 * claimed it first. */
static bool entry_put(struct entry *s, uint64_t a, uint64_t b)
{
	uint64_t empty = 0;

	if (!atomic_compare_exchange_strong_explicit(&s->b, &empty, key_b(b), memory_order_relaxed,
						     memory_order_relaxed))
		return false;
	s->a = a;
	/* Release: pairs with slot()'s acquire; a is stored before. */
	atomic_store_explicit(&s->b, b, memory_order_release);
	return true;
}

/* The entry s, seen as was, noted explored with `left` and cur: its count
 * raised, or cur added at the same count (nothing if it says more). */
static void entry_raise(struct entry *s, uint64_t was, unsigned left, int cur)
{
	uint64_t want;

	do {
		if (LEFT(was) < left)
			want = tagged(was, left, cur_bit(cur));
		else if (LEFT(was) == left)
			want = tagged(was, left, CURS(was) | cur_bit(cur));
		else
			return;
		if (want == was)
			return;
		/* Release: pairs with slot()'s acquire (a is unchanged, still
		 * the one its publication made visible). */
	} while (!atomic_compare_exchange_weak_explicit(&s->b, &was, want, memory_order_release,
							memory_order_acquire));
}

/* (a, b) explored with `left` and cur, into e of cap entries (a new
 * entry only if room): 1 added, 0 there already (noted), -1 not kept
 * (not there, and no room or no empty slot). */
static int insert(struct entry *e, uint64_t cap, uint64_t a, uint64_t b, int cur, unsigned left,
		  bool room)
{
	for (;;) {
		struct entry *empty, *s;
		uint64_t seen;

		s = slot(e, cap, a, b, &empty, &seen);
		if (s) {
			entry_raise(s, seen, left, cur);
			return 0;
		}
		if (!empty || !room)
			return -1;
		if (entry_put(empty, a, tagged(b, left, cur_bit(cur))))
			return 1;
		/* Another claimed it: probe again, past it. */
	}
}

/* The generations and the head, mapped (pages are given as touched):
 * shared with the processes forked after, or this process's own.  Where
 * the kernel will not map them all (strict overcommit), fewer. */
static bool table_map(bool shared)
{
	void *p = MAP_FAILED;
	size_t entries = 0;
	unsigned last;

	for (last = last_gen() + 1; p == MAP_FAILED && last-- > 0;) {
		entries = (gen_cap(last + 1) - VISITED_MIN) * sizeof(struct entry);
		V.size = entries + sizeof(struct head);
		p = mmap(NULL, V.size, PROT_READ | PROT_WRITE,
			 (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	}
	if (p == MAP_FAILED)
		return false;
	/* Every look-up is a miss, and with 4 KiB pages a TLB miss too:
	 * huge pages where the kernel has them. */
	(void)madvise(p, entries, MADV_HUGEPAGE);
	V.base = p;
	V.h = (struct head *)((char *)p + entries);
	V.h->last = last;
	V.shared = shared;
	V.e = NULL;
	return true;
}

/* This process's view of the generation in use. */
static void view(void)
{
	/* Acquire: pairs with grow()'s release, so the entries copied into
	 * the generation are seen. */
	unsigned g = atomic_load_explicit(&V.h->gen, memory_order_acquire);

	if (V.e && g == V.gen)
		return;
	V.gen = g;
	V.e = gen_table(g);
	V.cap = gen_cap(g);
}

/*
 * Copy generation g into the next and make that the one in use: one
 * process at a time (a table shared: the others go on with g meanwhile,
 * and what they add to it once copied is lost: explored again, as
 * sound).  g's memory is given back: a process still at it reads empty
 * slots (nothing known), and what it writes there nobody reads.
 */
static void grow(unsigned g)
{
	struct entry *from = gen_table(g), *to = gen_table(g + 1);
	bool idle = false;
	uint64_t n = 0;

	/* Acquire: pairs with the release below, the last copy seen whole. */
	if (!atomic_compare_exchange_strong_explicit(&V.h->growing, &idle, true,
						     memory_order_acquire, memory_order_relaxed))
		return;
	if (atomic_load_explicit(&V.h->gen, memory_order_relaxed) == g) {
		for (uint64_t i = 0; i < gen_cap(g); i++) {
			uint64_t b = atomic_load_explicit(&from[i].b, memory_order_acquire);
			struct entry *empty;
			uint64_t seen;

			if (published(b) && !slot(to, gen_cap(g + 1), from[i].a, b, &empty, &seen) &&
			    empty && entry_put(empty, from[i].a, b))
				n++;
		}
		atomic_store_explicit(&V.h->n[g + 1], n, memory_order_relaxed);
		/* Release: pairs with view()'s acquire. */
		atomic_store_explicit(&V.h->gen, g + 1, memory_order_release);
		(void)madvise(from, gen_cap(g) * sizeof(*from), V.shared ? MADV_REMOVE : MADV_DONTNEED);
	}
	atomic_store_explicit(&V.h->growing, false, memory_order_release);
}

int visited_share_table(void)
{
	visited_clear();
	V.shares = 1;
	return table_map(true) ? 0 : -1;
}

void visited_clear(void)
{
	if (V.h)
		munmap(V.base, V.size);
	V.base = V.e = NULL;
	V.h = NULL;
	V.shared = false;
}

void visited_add(uint64_t a, uint64_t b, int cur, unsigned left)
{
	uint64_t n;
	bool last;
	int got;

	if (!V.h && !table_map(false))
		return;
	view();
	last = V.gen == V.h->last;
	/* Relaxed: the counts bound the load, and publish nothing. */
	n = atomic_load_explicit(&V.h->n[V.gen], memory_order_relaxed);
	if (!last && n >= V.cap / 2) {
		grow(V.gen);
		view();
		last = V.gen == V.h->last;
		n = atomic_load_explicit(&V.h->n[V.gen], memory_order_relaxed);
	}
	got = insert(V.e, V.cap, a, b, cur, left > LEFT_MAX ? LEFT_MAX : left, n < V.cap / 4 * 3);
	if (got > 0)
		atomic_fetch_add_explicit(&V.h->n[V.gen], 1, memory_order_relaxed);
	else if (got < 0 && last)
		atomic_store_explicit(&V.h->full, true, memory_order_relaxed);
}

void visited_prefetch(uint64_t a)
{
	if (V.e)
		__builtin_prefetch(&V.e[a & (V.cap - 1)]);
}

bool visited_covers(uint64_t a, uint64_t b, int cur, unsigned left)
{
	struct entry *empty;
	uint64_t s;

	if (!V.h)
		return false;
	view();
	if (!slot(V.e, V.cap, a, b, &empty, &s) || LEFT(s) < left)
		return false;
	return LEFT(s) > left || (CURS(s) & (cur_bit(cur) | cur_bit(-1)));
}

uint64_t visited_count(void)
{
	return V.h ? atomic_load_explicit(&V.h->n[atomic_load_explicit(&V.h->gen,
									 memory_order_relaxed)],
					  memory_order_relaxed)
		   : 0;
}

bool visited_full(void)
{
	return V.h && atomic_load_explicit(&V.h->full, memory_order_relaxed);
}
