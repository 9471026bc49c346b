/*
 * test_litmus.c - the explorer's memory models against the litmus tests:
 * message passing (MP), store buffering (SB), load buffering (LB), 2+2W,
 * read-read coherence (CoRR) and a weak compare-exchange, each with and
 * without each release, acquire and barrier, written on the seam
 * (src/sync/sync.h) and run as contexts of the explorer's scheduler over
 * every schedule (no bound: the programs are tiny).  Each case asserts
 * whether its outcome is reachable under sc, tso and arm, as
 * txpath check --help says it must be.  The plain cases mix the seam's
 * operations with plain loads and stores, which the check build's
 * instrumentation shows the explorer (this file is compiled with it):
 * own-store forwarding, coherence, message passing through a plain
 * payload, each also asserting whether a data race is reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "check/runtime/runtime.h"
#include "check/search/dfs.h"
#include "check/search/visited.h"
#include "sync/sync.h"

#define MAX_STEPS 10000
#define MAX_BRANCHES 256

/* How each side orders its two accesses. */
enum order {
	RELAXED,
	RELEASE,	/* the second access a release store (writers) */
	ACQUIRE,	/* the first access an acquire load (readers) */
	WMB,		/* smp_wmb between */
	RMB,		/* smp_rmb between */
	MB,		/* smp_mb between */
	RMW,		/* the store an exchange (acq_rel) */
	RMW_RELAXED,	/* the store a relaxed fetch-add */
	RMW_RELAXED_MB,	/* the same, then smp_mb__after_atomic() */
	ACQUIRE_RMW,	/* the store a relaxed fetch-add, the load an acquire */
	AFTER_ATOMIC,	/* smp_mb__after_atomic() between, with no atomic before */
	RMW_REL,	/* the store a release fetch-add (atomic_fetch_add_release) */
	RMW_ACQ,	/* the store an acquire fetch-add */
	RMW_ACQ_LOAD,	/* the load an acquire fetch-add of 0 */
};

static _Atomic unsigned x, y, z;
static unsigned r0, r1, r2;
static unsigned payload;	/* the plain cases' plain word */
static bool raced;		/* a data race reported in some execution */

/* x by a plain load or store, as code that ignores the seam does. */
#define PLAIN_X (*(unsigned *)(uintptr_t)&x)
static enum order side[2];	/* CPU 1's, CPU 2's */

static void barrier(enum order o)
{
	if (o == WMB)
		txp_wmb();
	else if (o == RMB)
		txp_rmb();
	else if (o == MB)
		txp_smp_mb();
	else if (o == RMW_RELAXED_MB || o == AFTER_ATOMIC)
		txp_smp_mb__after_atomic();
}

static void store(_Atomic unsigned *p, unsigned v, enum order o)
{
	if (o == RELEASE)
		txp_store_release(p, v);
	else if (o == RMW)
		txp_xchg(p, v);
	else if (o == RMW_RELAXED || o == RMW_RELAXED_MB || o == ACQUIRE_RMW)
		txp_fetch_add_relaxed(p, v);	/* p is 0 before */
	else if (o == RMW_REL)
		txp__rmw(atomic_fetch_add_explicit, p, v, memory_order_release);
	else if (o == RMW_ACQ)
		txp__rmw(atomic_fetch_add_explicit, p, v, memory_order_acquire);
	else
		txp_store_relaxed(p, v);
}

static unsigned load(_Atomic unsigned *p, enum order o)
{
	if (o == RMW_ACQ_LOAD)
		return txp__rmw(atomic_fetch_add_explicit, p, 0, memory_order_acquire);
	return o == ACQUIRE || o == ACQUIRE_RMW ? txp_load_acquire(p) : txp_load_relaxed(p);
}

/* MP: CPU 1 writes the data, then the flag; CPU 2 reads the flag, then
 * the data.  Outcome: flag seen, data not. */
static void *mp_writer(void *arg)
{
	(void)arg;
	txp_store_relaxed(&x, 1);
	barrier(side[0]);
	store(&y, 1, side[0]);
	return NULL;
}

static void *mp_reader(void *arg)
{
	(void)arg;
	r0 = load(&y, side[1]);
	barrier(side[1]);
	r1 = txp_load_relaxed(&x);
	return NULL;
}

static bool mp_outcome(void)
{
	return r0 == 1 && r1 == 0;
}

/* SB: each writes its word, then reads the other's.  Outcome: both read 0. */
static void *sb_0(void *arg)
{
	(void)arg;
	store(&x, 1, side[0]);
	barrier(side[0]);
	r0 = load(&y, side[0]);
	return NULL;
}

static void *sb_1(void *arg)
{
	(void)arg;
	store(&y, 1, side[1]);
	barrier(side[1]);
	r1 = load(&x, side[1]);
	return NULL;
}

static bool sb_outcome(void)
{
	return r0 == 0 && r1 == 0;
}

/*
 * The doorbell: a driver's transmit rings it (x) behind two older stores
 * of its own (older[], a lock's release and the ring's index), then stops
 * its queue (set_bit of y) and rechecks the ring (z); the completion saw
 * the doorbell, frees the ring (z) and tests "stopped" (y).  Outcome: the
 * completion saw the doorbell and not the stop, the recheck not the
 * completion (a queue stopped for good): SB once the doorbell landed,
 * which under tso takes its two older stores landing first, early.
 */
static _Atomic unsigned older[2];

static void *db_xmit(void *arg)
{
	(void)arg;
	txp_store_relaxed(&older[0], 1);
	txp_store_relaxed(&older[1], 1);
	txp_store_relaxed(&x, 1);
	txp_fetch_or_relaxed(&y, 1);
	barrier(side[0]);
	r0 = txp_load_relaxed(&z);
	return NULL;
}

static void *db_completion(void *arg)
{
	(void)arg;
	r1 = txp_load_relaxed(&x);
	txp_store_release(&z, 1);
	barrier(side[1]);
	r2 = txp_load_relaxed(&y);
	return NULL;
}

static bool db_outcome(void)
{
	return r1 == 1 && r2 == 0 && r0 == 0;
}

/* LB: each reads the other's word, then writes its own.  Outcome: both
 * read 1. */
static void *lb_0(void *arg)
{
	(void)arg;
	r0 = load(&x, side[0]);
	barrier(side[0]);
	store(&y, 1, side[0]);
	return NULL;
}

static void *lb_1(void *arg)
{
	(void)arg;
	r1 = load(&y, side[1]);
	barrier(side[1]);
	store(&x, 1, side[1]);
	return NULL;
}

static bool lb_outcome(void)
{
	return r0 == 1 && r1 == 1;
}

/* 2+2W: each writes both words, in opposite orders.  Outcome: each
 * word ends with the first write to it (x == 1, y == 1). */
static void *w22_0(void *arg)
{
	(void)arg;
	txp_store_relaxed(&x, 1);
	barrier(side[0]);
	store(&y, 2, side[0]);
	return NULL;
}

static void *w22_1(void *arg)
{
	(void)arg;
	txp_store_relaxed(&y, 1);
	barrier(side[1]);
	store(&x, 2, side[1]);
	return NULL;
}

static bool w22_outcome(void)
{
	return atomic_load(&x) == 1 && atomic_load(&y) == 1;
}

/* CoRR: one word written twice, read twice.  Outcome: the reads see the
 * writes in the opposite order. */
static void *corr_writer(void *arg)
{
	(void)arg;
	txp_store_relaxed(&x, 1);
	txp_xchg(&x, 2u);
	return NULL;
}

static void *corr_reader(void *arg)
{
	(void)arg;
	r0 = txp_load_relaxed(&x);
	r1 = txp_load_relaxed(&x);
	return NULL;
}

static bool corr_outcome(void)
{
	return r0 == 2 && r1 == 1;
}

/* A weak compare-exchange that would succeed.  Outcome: it failed. */
static void *cas_once(void *arg)
{
	unsigned e = 0;

	(void)arg;
	r0 = txp_cas(&x, &e, 1u) ? 1 : 0;
	return NULL;
}

static void *nothing(void *arg)
{
	return arg;
}

static bool cas_outcome(void)
{
	return r0 == 0;
}

/* WW+R: two writers of x, a writer of y, and a reader of both, last.
 * Outcome: x ends 1, and the reader read x 1 and y 0, which only CPU 2's
 * write of x, then CPU 1's, then the read, before the write of y, give:
 * reachable under every model, and lost by a reduction that let the two
 * writes of x commute (either order leaves each context as far on, and
 * the search's default after them runs the write of y first).  The
 * writes are exchanges: no store waits in a buffer, the search stays
 * small under tso and arm. */
static void *ww_1(void *arg)
{
	(void)arg;
	txp_xchg(&x, 1u);
	return NULL;
}

static void *ww_2(void *arg)
{
	(void)arg;
	txp_xchg(&x, 2u);
	return NULL;
}

static void *ww_y(void *arg)
{
	(void)arg;
	txp_xchg(&y, 1u);
	return NULL;
}

static void *ww_reader(void *arg)
{
	(void)arg;
	r0 = txp_load_relaxed(&x);
	r1 = txp_load_relaxed(&y);
	return NULL;
}

static bool ww_outcome(void)
{
	return atomic_load(&x) == 1 && r0 == 1 && r1 == 0;
}

/*
 * Two cases where the bug needs a load of an older write, made for the
 * reduction under arm: the full search reaches their outcome through a
 * state that, named by less than the model's whole state, would take the
 * name of one explored before it (with the default order first) whose
 * futures never reach it.
 *
 * Early barrier: the reader's smp_mb before its message passing takes a
 * floor; where it ran before the writer's stores landed, the data's old
 * value may still be read.  Run after them (the default order), the same
 * trace (the barrier touches no word) forbids it: the floor tells them
 * apart.  A third context that does nothing keeps every point a branch.
 */
static void *early_mb_reader(void *arg)
{
	(void)arg;
	txp_smp_mb();
	r0 = txp_load_relaxed(&y);
	r1 = txp_load_relaxed(&x);
	return NULL;
}

/* Forgotten: a writer of three words, its flag y last by a release; the
 * reader reads the flag, the data x's old value, then makes x's newest
 * its own (a relaxed read-modify-write: where it saw which is
 * forgotten), then reads z's old value.  Its first old read is only in
 * what it holds (r1): the load's choice names the state. */
static void *three_writer(void *arg)
{
	(void)arg;
	txp_store_relaxed(&z, 1);
	txp_store_relaxed(&x, 1);
	txp_store_release(&y, 1);
	return NULL;
}

static void *forgetting_reader(void *arg)
{
	(void)arg;
	r0 = txp_load_relaxed(&y);
	r1 = txp_load_relaxed(&x);
	(void)txp_fetch_add_relaxed(&x, 0u);
	r2 = txp_load_relaxed(&z);
	return NULL;
}

static bool forgetting_outcome(void)
{
	return r0 == 1 && r1 == 0 && r2 == 0;
}

/* Own store: a buffered store, then a plain load of the same word.
 * Outcome: the load missed its own store. */
static void *own_store(void *arg)
{
	(void)arg;
	txp_store_relaxed(&x, 1);
	r0 = PLAIN_X;
	return NULL;
}

static bool own_outcome(void)
{
	return r0 != 1;
}

/* Coherence: a buffered store, then a plain store of the same word.
 * Outcome: the older store is the last to land. */
static void *co_plain(void *arg)
{
	(void)arg;
	txp_store_relaxed(&x, 1);
	PLAIN_X = 2;
	return NULL;
}

static bool co_outcome(void)
{
	return atomic_load(&x) == 1;
}

/* MP through a plain payload: the writer stores it plainly, then the flag
 * y; the reader reads the flag, then the payload if it is set.  Outcome:
 * flag seen, payload not. */
static void *mpp_writer(void *arg)
{
	(void)arg;
	payload = 1;
	barrier(side[0]);
	store(&y, 1, side[0]);
	return NULL;
}

static void *mpp_reader(void *arg)
{
	(void)arg;
	r0 = load(&y, side[1]);
	barrier(side[1]);
	if (r0)
		r1 = payload;
	return NULL;
}

static bool mpp_outcome(void)
{
	return r0 == 1 && r1 == 0;
}

/* Mixed sizes: a word written and read whole (4 bytes) and by its halves
 * (2 bytes; little-endian, the low half first), through the seam. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the low half first");
static union {
	_Atomic uint32_t word;
	_Atomic uint16_t half[2];
} w;

/* Own store: the word, then its low half; a load of the word.  Outcome:
 * the load missed a byte of either (before: the half forwarded as the
 * word, its high half read as 0). */
static void *own_half_word(void *arg)
{
	(void)arg;
	txp_store_relaxed(&w.word, 0x20002);
	txp_store_relaxed(&w.half[0], 1);
	r0 = txp_load_relaxed(&w.word);
	return NULL;
}

static bool own_half_word_outcome(void)
{
	return r0 != 0x20001;
}

/* Own store: the word; a load of its high half.  Outcome: the load missed
 * the store (before: no store at the half's address, memory's 0 read). */
static void *own_word_half(void *arg)
{
	(void)arg;
	txp_store_relaxed(&w.word, 0x20001);
	r0 = txp_load_relaxed(&w.half[1]);
	return NULL;
}

static bool own_word_half_outcome(void)
{
	return r0 != 2;
}

/* Coherence: the word, then its high half.  Outcome: the word landed last
 * (before, under arm: stores at different addresses landed in any order). */
static void *co_word_half(void *arg)
{
	(void)arg;
	txp_store_relaxed(&w.word, 0x20002);
	txp_store_relaxed(&w.half[1], 1);
	return NULL;
}

static bool co_word_half_outcome(void)
{
	return atomic_load(&w.word) != 0x10002;
}

/* CoRR, mixed sizes: the writer stores the word twice; the reader reads
 * its high half, the word, the high half again.  Outcome: a read older
 * than the one before it, in the bytes they share (before, under arm:
 * the word kept a history of its own, the half's bytes in it). */
static void *corr_mixed_writer(void *arg)
{
	(void)arg;
	txp_store_relaxed(&w.word, 0x20002);
	txp_store_relaxed(&w.word, 0x30003);
	return NULL;
}

static void *corr_mixed_reader(void *arg)
{
	(void)arg;
	r2 = txp_load_relaxed(&w.half[1]);
	r0 = txp_load_relaxed(&w.word);
	r1 = txp_load_relaxed(&w.half[1]);
	return NULL;
}

static bool corr_mixed_outcome(void)
{
	return (r2 == 3 && r0 != 0x30003) || (r0 >> 16 == 3 && r1 != 3) ||
	       (r2 == 2 && r0 >> 16 == 0);
}

/* Neighbours: a plain byte and a marked one in one 8-byte word (a flag
 * beside a field only its writer touches); the reader loads the flag
 * alone.  No data race: before, the detector kept the two writes as one,
 * plain, and a marked read of the flag raced with it (found in the real
 * drivers' ring: its reaping bit beside a plain field). */
static _Alignas(8) struct {
	_Atomic unsigned char flag;
	unsigned char own;
} nb;

static void *nb_writer(void *arg)
{
	(void)arg;
	nb.own = 1;
	txp_store_relaxed(&nb.flag, 1);
	return NULL;
}

static void *nb_reader(void *arg)
{
	(void)arg;
	r0 = txp_load_relaxed(&nb.flag);
	return NULL;
}

static bool never(void)
{
	return false;
}

enum race { ANY, NO_RACE, RACE };

struct litmus {
	const char *name;
	void *(*t0)(void *), *(*t1)(void *);
	bool (*outcome)(void);
	enum order o0, o1;
	bool sc, tso, arm;	/* the outcome reachable? */
	void *(*t2)(void *), *(*t3)(void *);	/* more contexts, or NULL */
	enum race race;		/* a data race in some execution? */
};

/* One execution of l under plan; its outcome. */
static bool run_once(const struct litmus *l, enum rt_mm mm, const struct rt_plan *plan)
{
	bool got;

	char race[400];

	atomic_store(&x, 0);
	atomic_store(&y, 0);
	atomic_store(&z, 0);
	atomic_store(&w.word, 0);
	atomic_store(&older[0], 0);
	atomic_store(&older[1], 0);
	payload = 0;
	r0 = r1 = r2 = 99;
	side[0] = l->o0;
	side[1] = l->o1;
	rt_begin(plan, mm, MAX_STEPS);
	assert_true(rt_spawn("CPU 1", l->t0, NULL) >= 0);
	assert_true(rt_spawn("CPU 2", l->t1, NULL) >= 0);
	if (l->t2)
		assert_true(rt_spawn("CPU 3", l->t2, NULL) >= 0);
	if (l->t3)
		assert_true(rt_spawn("CPU 4", l->t3, NULL) >= 0);
	assert_int_equal(rt_run(), RT_QUIESCENT);
	rt_release();
	rt_finish();
	got = l->outcome();
	raced |= rt_race_found(race, sizeof(race));
	return got;
}

static uint32_t bit_of(int a)
{
	return a >= RT_FLUSH ? 1u << (a - RT_FLUSH + RT_MAX_CTX) : 1u << a;
}

static uint32_t actions_of(const struct rt_branch *b)
{
	return (uint32_t)b->enabled | (uint32_t)b->flushable << RT_MAX_CTX;
}

/*
 * What a state's name promises: two states of one name have the same
 * futures.  The full search names every run branch (its trace, and the
 * arm model's state) and finds each node's futures: the ends (what each
 * context read, what memory holds, coded small) of the executions below
 * it.  Nodes of one name must have the same, or a reduction that merges
 * them would lose some.  Unbounded, a name is free of who runs (cur).
 */
#define ENDS 256	/* ends' codes */

struct named {
	uint64_t a, b;			/* the name */
	uint64_t ends[ENDS / 64];	/* bit e: end e is a future */
};

static struct {
	struct named *n;
	size_t len, cap;
	uint64_t ends[MAX_BRANCHES][ENDS / 64];	/* of each node of the path */
} N;

/* This execution's end: r0, r1, r2 (3: another value) and x, y. */
static unsigned end_code(void)
{
	unsigned r[3] = { r0, r1, r2 }, e = 0;

	for (int i = 0; i < 3; i++)
		e = e << 2 | (r[i] < 3 ? r[i] : 3);
	return e << 2 | (atomic_load(&x) == 1) << 1 | (atomic_load(&y) == 1);
}

static void named_add(const struct rt_branch *b, const uint64_t *ends)
{
	if (N.len == N.cap) {
		N.cap = N.cap ? 2 * N.cap : 4096;
		N.n = realloc(N.n, N.cap * sizeof(*N.n));
		assert_non_null(N.n);
	}
	N.n[N.len].a = b->key_a;
	N.n[N.len].b = b->key_b;
	memcpy(N.n[N.len++].ends, ends, sizeof(N.n[0].ends));
}

static int cmp_named(const void *p, const void *q)
{
	const struct named *u = p, *v = q;

	return u->a != v->a ? (u->a > v->a) - (u->a < v->a) : (u->b > v->b) - (u->b < v->b);
}

/* Every name of the search just ended has one set of futures: how many
 * states met a name again. */
static size_t names_hold(const struct litmus *l, const char *mm)
{
	size_t same = 0;

	qsort(N.n, N.len, sizeof(*N.n), cmp_named);
	for (size_t i = 1; i < N.len; i++) {
		if (N.n[i].a != N.n[i - 1].a || N.n[i].b != N.n[i - 1].b)
			continue;
		same++;
		if (memcmp(N.n[i].ends, N.n[i - 1].ends, sizeof(N.n[i].ends)))
			fail_msg("%s under %s: two states of one name, with other futures", l->name,
				 mm);
	}
	N.len = 0;
	return same;
}

/* Every schedule of l under mm, depth first over the branch points (each
 * action of each, no bound): is the outcome reachable?  With reduce, as
 * `txpath check --reduce` searches: a state whose name (the trace so far,
 * and the arm model's state) was explored in full is not again, and the
 * answers must not change.  Only a run branch names a state (the arm
 * model's own are within a step).  Unbounded, nothing is priced: every
 * state as if nobody ran (cur -1), with nothing left to spend. */
static bool reachable(const struct litmus *l, enum rt_mm mm, bool reduce, unsigned *schedules)
{
	int8_t path[MAX_BRANCHES];
	uint32_t tried[MAX_BRANCHES];
	unsigned prefix = 0, n;
	bool seen = false;

	visited_clear();
	N.len = 0;
	for (;;) {
		struct rt_plan plan = { .prefix = path, .nprefix = prefix, .trace = true };
		const struct rt_branch *b;
		bool skip = false;
		int i;

		seen |= run_once(l, mm, &plan);
		(*schedules)++;
		b = rt_branches(&n);
		assert_true(n <= MAX_BRANCHES);
		for (unsigned k = 0, e = end_code(); !reduce && k < n; k++) {
			if (k >= prefix)
				memset(N.ends[k], 0, sizeof(N.ends[k]));
			N.ends[k][e / 64] |= 1ull << (e % 64);
		}
		for (unsigned k = 0; k < n; k++) {
			skip |= reduce && k >= prefix && b[k].kind == RT_BR_RUN &&
				visited_covers(b[k].key_a, b[k].key_b, -1, 0);
			if (k >= prefix)
				tried[k] = skip ? actions_of(&b[k]) : bit_of(b[k].chosen);
			path[k] = b[k].chosen;
		}
		for (i = (int)n - 1; i >= 0; i--) {
			uint32_t left = actions_of(&b[i]) & ~tried[i];
			int bit;

			if (!left) {
				if (reduce && b[i].kind == RT_BR_RUN)
					visited_add(b[i].key_a, b[i].key_b, -1, 0);
				if (!reduce && b[i].kind == RT_BR_RUN)
					named_add(&b[i], N.ends[i]);
				continue;
			}
			bit = __builtin_ctz(left);
			tried[i] |= 1u << bit;
			path[i] = (int8_t)(bit < RT_MAX_CTX ? bit : RT_FLUSH + bit - RT_MAX_CTX);
			prefix = (unsigned)i + 1;
			break;
		}
		if (i < 0) {
			visited_clear();
			return seen;
		}
	}
}

/* Is l's outcome reachable under mm within bound preemptions, as
 * `txpath check --bound` (reduce: `--reduce`) searches? */
static bool reachable_within(const struct litmus *l, enum rt_mm mm, unsigned bound, bool reduce)
{
	struct dfs d = { 0 };
	unsigned prefix = 0;
	uint64_t pruned = 0, asleep = 0;
	bool seen = false;

	visited_clear();
	dfs_round(&d, bound);
	do {
		struct rt_plan plan = dfs_plan(&d, prefix, reduce, reduce);

		seen = run_once(l, mm, &plan);
		assert_int_equal(dfs_record(&d, prefix, reduce, &pruned, &asleep), 0);
	} while (!seen && dfs_next(&d, bound, reduce, &prefix));
	dfs_free(&d);
	visited_clear();
	return seen;
}

static void check_litmus(const struct litmus *cases, size_t ncases)
{
	static const char *const mm_names[] = { "sc", "tso", "arm" };

	/* The explorer is one thread of fibers: ThreadSanitizer has nothing to
	 * see here, and its cost per fresh context made these exhaustive
	 * searches run past five minutes (a second plain, under ASan). */
	size_t same = 0;

	if (TXP_TEST_TSAN)
		skip();
	for (size_t c = 0; c < ncases; c++) {
		const struct litmus *l = &cases[c];
		bool want[3] = { l->sc, l->tso, l->arm }, got[3];
		unsigned schedules[3] = { 0, 0, 0 };

		unsigned reduced[3] = { 0, 0, 0 };

		raced = false;
		for (int mm = RT_SC; mm <= RT_ARM; mm++) {
			got[mm] = reachable(l, (enum rt_mm)mm, false, &schedules[mm]);
			same += names_hold(l, mm_names[mm]);
		}
		if (l->race != ANY && raced != (l->race == RACE))
			fail_msg("%s: %s data race", l->name, raced ? "a" : "no");
		for (int mm = RT_SC; mm <= RT_ARM; mm++)
			if (reachable(l, (enum rt_mm)mm, true, &reduced[mm]) != got[mm])
				fail_msg("%s under %s: outcome %s with the reduction, %s without", l->name,
					 mm_names[mm], got[mm] ? "unreachable" : "reachable",
					 got[mm] ? "reachable" : "unreachable");
		printf("  %-28s sc %-3s tso %-3s arm %-3s (%u, %u, %u schedules; reduced %u, %u, %u)\n",
		       l->name, got[0] ? "yes" : "no", got[1] ? "yes" : "no", got[2] ? "yes" : "no",
		       schedules[0], schedules[1], schedules[2], reduced[0], reduced[1], reduced[2]);
		for (int mm = RT_SC; mm <= RT_ARM; mm++)
			if (got[mm] != want[mm])
				fail_msg("%s under %s: outcome %s, expected %s", l->name, mm_names[mm],
					 got[mm] ? "reachable" : "unreachable",
					 want[mm] ? "reachable" : "unreachable");
	}
	/* States met again by name: the names' check compared some. */
	printf("  %zu states met a name again, each with the same futures\n", same);
	assert_true(same > 0);
}

#define MP(name, o0, o1, sc, tso, arm) { name, mp_writer, mp_reader, mp_outcome, o0, o1, sc, tso, arm, NULL, NULL, ANY }
#define SB(name, o0, o1, sc, tso, arm) { name, sb_0, sb_1, sb_outcome, o0, o1, sc, tso, arm, NULL, NULL, ANY }
#define DB(name, o0, o1, sc, tso, arm) { name, db_xmit, db_completion, db_outcome, o0, o1, sc, tso, arm, NULL, NULL, ANY }
#define LB(name, o0, o1, sc, tso, arm) { name, lb_0, lb_1, lb_outcome, o0, o1, sc, tso, arm, NULL, NULL, ANY }

/* MP needs both sides ordered: release or smp_wmb on the writer, acquire
 * or smp_rmb on the reader. */
static void test_message_passing(void **state)
{
	static const struct litmus cases[] = {
		MP("MP relaxed", RELAXED, RELAXED, false, false, true),
		MP("MP release / relaxed", RELEASE, RELAXED, false, false, true),
		MP("MP relaxed / acquire", RELAXED, ACQUIRE, false, false, true),
		MP("MP release / acquire", RELEASE, ACQUIRE, false, false, false),
		MP("MP wmb / relaxed", WMB, RELAXED, false, false, true),
		MP("MP relaxed / rmb", RELAXED, RMB, false, false, true),
		MP("MP wmb / rmb", WMB, RMB, false, false, false),
		MP("MP release / rmb", RELEASE, RMB, false, false, false),
		MP("MP wmb / acquire", WMB, ACQUIRE, false, false, false),
		MP("MP mb / mb", MB, MB, false, false, false),
		MP("MP relaxed RMW / acquire", RMW_RELAXED, ACQUIRE, false, false, true),
		MP("MP release RMW / acquire", RMW_REL, ACQUIRE, false, false, false),
		MP("MP release RMW / relaxed", RMW_REL, RELAXED, false, false, true),
		MP("MP release / acquire RMW", RELEASE, RMW_ACQ_LOAD, false, false, false),
	};

	(void)state;
	check_litmus(cases, sizeof(cases) / sizeof(cases[0]));
}

/* SB needs a full barrier (or a read-modify-write) on both sides; release
 * and acquire do not forbid it; a relaxed read-modify-write (set_bit) does
 * on tso (a locked instruction) and not on arm, where it needs
 * smp_mb__after_atomic() (the stop of netif_txq_try_stop() against the
 * completion's smp_mb()). */
static void test_store_buffering(void **state)
{
	static const struct litmus cases[] = {
		SB("SB relaxed", RELAXED, RELAXED, false, true, true),
		SB("SB release+acquire", RELEASE, RELEASE, false, true, true),
		SB("SB mb / relaxed", MB, RELAXED, false, true, true),
		SB("SB mb / mb", MB, MB, false, false, false),
		SB("SB rmb / wmb", RMB, WMB, false, true, true),
		SB("SB xchg / xchg", RMW, RMW, false, false, false),
		SB("SB relaxed RMW both", RMW_RELAXED, RMW_RELAXED, false, false, true),
		SB("SB set_bit, acquire / mb", ACQUIRE_RMW, MB, false, false, true),
		SB("SB set_bit / mb", RMW_RELAXED, MB, false, false, true),
		SB("SB set_bit+after_atomic / mb", RMW_RELAXED_MB, MB, false, false, false),
		/* _acquire and _release forms order one way only. */
		SB("SB acquire RMW / mb", RMW_ACQ, MB, false, false, true),
		SB("SB release RMW / mb", RMW_REL, MB, false, false, true),
		/* Misused: only the compiler's barrier on x86, dmb on arm64. */
		SB("SB after_atomic alone / mb", AFTER_ATOMIC, MB, false, true, false),
	};

	(void)state;
	check_litmus(cases, sizeof(cases) / sizeof(cases[0]));
}

/* The bounded search prices a run of landings of one buffer's stores,
 * with no step between them, as one preemption: the doorbell's outcome
 * is such a run (its two older stores, then it) and a switch to the
 * completion, so within bound 2, not 1, under tso (three landings and a
 * switch, four, when each landing was one) and arm (the doorbell lands
 * first there, alone), with and without the reduction. */
static void test_landing_run(void **state)
{
	static const struct litmus db = DB("SB doorbell", RELAXED, RELAXED, false, true, true);

	(void)state;
	if (TXP_TEST_TSAN)
		skip();
	for (int reduce = 0; reduce <= 1; reduce++) {
		assert_false(reachable_within(&db, RT_SC, 3, reduce));
		assert_false(reachable_within(&db, RT_TSO, 2, reduce));
		assert_true(reachable_within(&db, RT_TSO, 3, reduce));
	}
}

/* LB: ARMv8 allows it without dependencies; an operational model only
 * reads writes already made, so it is out of reach under every model. */
static void test_load_buffering(void **state)
{
	static const struct litmus cases[] = {
		LB("LB relaxed", RELAXED, RELAXED, false, false, false),
		LB("LB acquire / release", ACQUIRE, RELEASE, false, false, false),
		LB("LB mb / mb", MB, MB, false, false, false),
	};

	(void)state;
	check_litmus(cases, sizeof(cases) / sizeof(cases[0]));
}

/* 2+2W, coherence (mixed sizes too), own stores of mixed sizes and the
 * weak compare-exchange. */
static void test_others(void **state)
{
	static const struct litmus cases[] = {
		{ "2+2W relaxed", w22_0, w22_1, w22_outcome, RELAXED, RELAXED, false, false, true, NULL, NULL, ANY },
		{ "2+2W wmb / wmb", w22_0, w22_1, w22_outcome, WMB, WMB, false, false, false, NULL, NULL, ANY },
		{ "2+2W release / release", w22_0, w22_1, w22_outcome, RELEASE, RELEASE, false, false, false, NULL, NULL, ANY },
		{ "CoRR", corr_writer, corr_reader, corr_outcome, RELAXED, RELAXED, false, false, false, NULL, NULL, ANY },
		{ "weak CAS fails spuriously", cas_once, nothing, cas_outcome, RELAXED, RELAXED,
		  false, false, true, NULL, NULL, ANY },
		{ "WW+R", ww_1, ww_2, ww_outcome, RELAXED, RELAXED, true, true, true, ww_y,
		  ww_reader, ANY },
		{ "own store, mixed sizes: the word, its half, the word read", own_half_word,
		  nothing, own_half_word_outcome, RELAXED, RELAXED, false, false, false, NULL, NULL,
		  ANY },
		{ "own store, mixed sizes: the word, its half read", own_word_half, nothing,
		  own_word_half_outcome, RELAXED, RELAXED, false, false, false, NULL, NULL, ANY },
		{ "coherence, mixed sizes: the word, then its high half", co_word_half, nothing,
		  co_word_half_outcome, RELAXED, RELAXED, false, false, false, NULL, NULL, ANY },
		{ "CoRR, mixed sizes", corr_mixed_writer, corr_mixed_reader, corr_mixed_outcome,
		  RELAXED, RELAXED, false, false, false, NULL, NULL, ANY },
	};

	(void)state;
	check_litmus(cases, sizeof(cases) / sizeof(cases[0]));
}

/* Reached under arm only by a load of an older write, through a state
 * whose name needs the model's state (early mb: the floor) or the load's
 * choice (forgotten): the reduction must reach them too. */
static void test_older_reads_reduced(void **state)
{
	static const struct litmus cases[] = {
		{ "MP release / early mb", mp_writer, early_mb_reader, mp_outcome, RELEASE, RELAXED,
		  false, false, true, nothing, NULL, ANY },
		{ "MP, an old read forgotten", three_writer, forgetting_reader, forgetting_outcome,
		  RELAXED, RELAXED, false, false, true, nothing, NULL, ANY },
	};

	(void)state;
	check_litmus(cases, sizeof(cases) / sizeof(cases[0]));
}

#define PLAIN(name, t0, t1, outcome, o0, o1, sc, tso, arm, race) \
	{ name, t0, t1, outcome, o0, o1, sc, tso, arm, NULL, NULL, race }

/* Plain accesses under the models: a plain load sees its own buffered
 * store, a plain store lands after the older ones to its word, and a
 * plain payload published by a release and read after an acquire (or
 * smp_wmb and smp_rmb) is seen, with no data race; without the order,
 * a data race.  The payload's store goes to memory before the flag's, so
 * the stale payload arm allows is out of reach (fewer behaviours: sound,
 * not complete). */
static void test_plain(void **state)
{
#ifndef TXP_CHECK_PLAIN
	/* A sanitizer build: its check build sees the seam only. */
	skip();
#endif
	static const struct litmus cases[] = {
		PLAIN("own store, plain load", own_store, nothing, own_outcome, RELAXED, RELAXED,
		      false, false, false, NO_RACE),
		PLAIN("own store, plain store", co_plain, nothing, co_outcome, RELAXED, RELAXED,
		      false, false, false, NO_RACE),
		PLAIN("MP plain payload, release / acquire", mpp_writer, mpp_reader, mpp_outcome,
		      RELEASE, ACQUIRE, false, false, false, NO_RACE),
		PLAIN("MP plain payload, wmb / rmb", mpp_writer, mpp_reader, mpp_outcome,
		      WMB, RMB, false, false, false, NO_RACE),
		PLAIN("MP plain payload, relaxed", mpp_writer, mpp_reader, mpp_outcome,
		      RELAXED, RELAXED, false, false, false, RACE),
		PLAIN("MP plain payload, release / relaxed", mpp_writer, mpp_reader, mpp_outcome,
		      RELEASE, RELAXED, false, false, false, RACE),
		PLAIN("neighbours: a plain byte beside a flag", nb_writer, nb_reader, never,
		      RELAXED, RELAXED, false, false, false, NO_RACE),
	};

	(void)state;
	check_litmus(cases, sizeof(cases) / sizeof(cases[0]));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_message_passing),
		cmocka_unit_test(test_store_buffering),
		cmocka_unit_test(test_landing_run),
		cmocka_unit_test(test_load_buffering),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_older_reads_reduced),
	};

	return txp_test_main(argc, argv, tests);
}
