/*
 * sched.c - the explorer's deterministic scheduler (check build only).
 *
 * Every context is a fiber of the calling thread (fiber.c), so only one
 * runs at a time and an execution is a pure function of the choices made
 * at its branch points.  Control goes from a context back to the
 * controller (the thread's own stack, running sched_run()), which runs
 * the next; the per-context state of the seam (TXP_LOCAL) goes with it.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/fiber.h"
#include "check/sched.h"
#include "check/trace.h"

#define SCHED_READS 32
#define SCHED_BUF 16

enum sctx_state {
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
	struct readrec r[SCHED_READS];
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
struct sctx {
	int id;
	char name[24];
	enum sctx_state state;
	struct readset iter, spin;
	struct store buf[SCHED_BUF];
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
};

static struct {
	bool armed, stopped, freerun;
	bool tracing;		/* the plan's trace: steps recorded (trace.h) */
	unsigned fair;		/* fair switches made */
	unsigned told_apart;	/* defaults that told symmetric contexts apart */
	unsigned cut;		/* the branch found explored (sched_cut()) */
	unsigned pending;	/* the branch to ask about, UINT_MAX: none */
	enum sched_mm mm;
	int current;		/* the context to run next, -1: none */
	int n;
	struct sctx ctx[SCHED_MAX_CTX];
	enum sched_end end;
	int stuck;
	unsigned steps, max_steps, preemptions;
	const struct sched_plan *plan;
	uint64_t rng;
	unsigned next_change;
	bool pct_switch;	/* PCT: a change point came, switch at the next branch */
	unsigned next_choice;	/* PLAN_REPLAY */
	int refused;
	struct sched_branch *br;
	unsigned nbr, brcap;
	struct trace_fp *fp;	/* per branch (sched_branch_fp()) */
	unsigned fpcap;
	unsigned want_fp;	/* the branch whose step runs, UINT_MAX: none */
	struct sched_event *ev;
	unsigned nev, evcap;
} S = { .current = -1 };

/* The context running now, NULL for the controller. */
static struct sctx *me;

/*
 * The watched words (sched_watch_probe()): flags whose rises, 0 to
 * nonzero, are counted as they reach memory, by writer, and what each
 * context had seen of them when it last read the word.  One per queue.
 */
struct watched {
	const volatile void *addr;
	size_t size;
	uint64_t val;		/* in memory now */
	unsigned rises, own[SCHED_MAX_CTX];
	struct sched_mark seen[SCHED_MAX_CTX];	/* at each context's last read */
};

static struct {
	bool probing;
	unsigned n;
	struct watched w[SCHED_WATCH_MAX];
} W;

/* The watched word at addr, or NULL. */
static inline struct watched *watched_at(const volatile void *addr)
{
	for (unsigned i = 0; i < W.n; i++)
		if (W.w[i].addr == addr)
			return &W.w[i];
	return NULL;
}

/* The fibers, their stacks kept from one execution to the next. */
static struct fiber fibers[SCHED_MAX_CTX];
static struct fiber controller;
static unsigned char *controller_locals;
static size_t locals_bytes;	/* all the TXP_LOCAL variables together */

/* -- small helpers ------------------------------------------------------ */

/* Is the running context's step recorded for the trace? */
static inline bool tracing(void)
{
	return S.tracing && me && !S.freerun;
}

static void *grow(void *p, unsigned *cap, size_t elem)
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

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void raw_store(volatile void *addr, size_t size, uint64_t v)
{
	switch (size) {
	case 1: __atomic_store_n((volatile uint8_t *)addr, (uint8_t)v, __ATOMIC_SEQ_CST); break;
	case 2: __atomic_store_n((volatile uint16_t *)addr, (uint16_t)v, __ATOMIC_SEQ_CST); break;
	case 4: __atomic_store_n((volatile uint32_t *)addr, (uint32_t)v, __ATOMIC_SEQ_CST); break;
	default: __atomic_store_n((volatile uint64_t *)addr, v, __ATOMIC_SEQ_CST); break;
	}
}

static bool readset_hit(struct readset *rs, const volatile void *addr)
{
	bool hit = rs->all;

	for (int r = 0; !hit && r < rs->n; r++)
		hit = rs->r[r].addr == addr;
	rs->dirty |= hit;
	return hit;
}

/* A write by writer reached memory: whoever else read addr must look
 * again (a context's own writes never wake it: a spinning context waits
 * for somebody else). */
static void watch_landed(struct watched *w, const struct sctx *writer);

static void wake_readers(const volatile void *addr, const struct sctx *writer)
{
	struct watched *w = watched_at(addr);

	if (w)
		watch_landed(w, writer);
	for (int i = 0; i < S.n; i++) {
		struct sctx *c = &S.ctx[i];
		bool in_iter, in_spin;

		if (c->state == SC_DONE)
			continue;
		if (c == writer) {
			/* A full read set cannot tell its own reads from the
			 * rest: any write of its own may matter. */
			c->iter.dirty |= c->iter.all;
			c->spin.dirty |= c->spin.all;
			continue;
		}
		in_iter = readset_hit(&c->iter, addr);
		in_spin = readset_hit(&c->spin, addr);
		if ((c->state == SC_SPIN && in_spin) || (c->state == SC_IDLE && in_iter)) {
			c->state = SC_RUNNABLE;
			c->ran_at = S.steps;
		}
	}
}

static void forget(struct readset *rs)
{
	rs->n = 0;
	rs->all = false;
	rs->dirty = false;
}

static uint64_t raw_load(const volatile void *addr, size_t size)
{
	switch (size) {
	case 1: return __atomic_load_n((const volatile uint8_t *)addr, __ATOMIC_SEQ_CST);
	case 2: return __atomic_load_n((const volatile uint16_t *)addr, __ATOMIC_SEQ_CST);
	case 4: return __atomic_load_n((const volatile uint32_t *)addr, __ATOMIC_SEQ_CST);
	default: return __atomic_load_n((const volatile uint64_t *)addr, __ATOMIC_SEQ_CST);
	}
}

/* What c would read at addr now: its own newest buffered store, or memory. */
static uint64_t seen_value(const struct sctx *c, const volatile void *addr, size_t size)
{
	for (int i = c->nbuf - 1; i >= 0; i--)
		if (c->buf[i].addr == addr)
			return c->buf[i].v;
	return raw_load(addr, size);
}

static void readset_add(struct readset *rs, const struct sctx *c,
			const volatile void *addr, size_t size)
{
	for (int r = 0; r < rs->n; r++)
		if (rs->r[r].addr == addr)
			return;
	if (rs->n < SCHED_READS)
		rs->r[rs->n++] = (struct readrec){ addr, size, seen_value(c, addr, size) };
	else
		rs->all = true;
}

static void note_read(struct sctx *c, const volatile void *addr, size_t size)
{
	readset_add(&c->iter, c, addr, size);
	readset_add(&c->spin, c, addr, size);
}

/* Did anything in rs change since it was read, by c's own hand included?
 * Waiting would then be wrong: c's next attempt can do something new. */
static bool reads_changed(const struct sctx *c, const struct readset *rs)
{
	if (rs->dirty || rs->all)
		return rs->dirty;
	for (int r = 0; r < rs->n; r++)
		if (seen_value(c, rs->r[r].addr, rs->r[r].size) != rs->r[r].value)
			return true;
	return false;
}

static void arm_before_write(const volatile void *addr, size_t size);
static void arm_landed(const struct sctx *c, const volatile void *addr);

/* Store k of c's buffer reaches memory. */
static void flush_at(struct sctx *c, int k)
{
	struct store s = c->buf[k];

	memmove(&c->buf[k], &c->buf[k + 1], (size_t)(c->nbuf - k - 1) * sizeof(c->buf[0]));
	c->nbuf--;
	if (S.tracing && !S.freerun) {
		trace_write(s.addr);
		trace_write(c->buf);	/* the buffer: its stores and landings in order */
	}
	arm_before_write(s.addr, s.size);
	raw_store(s.addr, s.size, s.v);
	arm_landed(c, s.addr);
	wake_readers(s.addr, c);
}

static void flush_one(struct sctx *c)
{
	flush_at(c, 0);
}

static void drain(struct sctx *c)
{
	while (c->nbuf)
		flush_one(c);
}

static void event(int ctx, const char *what, const char *arg, const char *site)
{
	if (S.nev == S.evcap)
		S.ev = grow(S.ev, &S.evcap, sizeof(*S.ev));
	S.ev[S.nev++] = (struct sched_event){ ctx, what, arg, site };
}

/* A target as written, without its '&', for the diagrams. */
static const char *target(const char *what)
{
	return what && what[0] == '&' ? what + 1 : what;
}

static void push_branch(const struct sched_branch *b)
{
	if (S.nbr == S.brcap)
		S.br = grow(S.br, &S.brcap, sizeof(*S.br));
	S.br[S.nbr++] = *b;
}

/* With the trace, from the prefix's last branch on: the footprint of the
 * step chosen at the branch just pushed is kept as it ends (reschedule()). */
static void want_fp(void)
{
	const struct sched_plan *p = S.plan;
	unsigned i = S.nbr - 1;

	if (!S.tracing || !p->explored || i + 1 < p->nprefix)
		return;
	if (S.nbr > S.fpcap)
		S.fp = grow(S.fp, &S.fpcap, sizeof(*S.fp));
	S.fp[i].n = TRACE_FP_UNKNOWN;
	if (S.br[i].chosen < SCHED_FLUSH)
		S.want_fp = i;
}

/* -- choosing ------------------------------------------------------------- */

static int lowest(unsigned mask)
{
	return __builtin_ctz(mask);
}

static bool legal(int a, const struct sched_branch *b)
{
	if (a >= SCHED_FLUSH && a < SCHED_FLUSH + SCHED_MAX_CTX)
		return b->flushable & (1u << (a - SCHED_FLUSH));
	return a >= 0 && a < SCHED_MAX_CTX && (b->enabled & (1u << a));
}

/* The k-th action of a branch: runs first, then flushes. */
static int nth_action(const struct sched_branch *b, unsigned k)
{
	for (int i = 0; i < SCHED_MAX_CTX; i++)
		if ((b->enabled & (1u << i)) && k-- == 0)
			return i;
	for (int i = 0; i < SCHED_MAX_CTX; i++)
		if ((b->flushable & (1u << i)) && k-- == 0)
			return SCHED_FLUSH + i;
	return lowest(b->enabled);
}

/* A context of mask drawn at random. */
static int random_ctx(unsigned mask)
{
	unsigned k = (unsigned)(rng_next(&S.rng) % (unsigned)__builtin_popcount(mask));

	for (int i = 0; i < SCHED_MAX_CTX; i++)
		if ((mask & (1u << i)) && k-- == 0)
			return i;
	return lowest(mask);
}

/*
 * PCT counted in preemptions, as the bounded search counts them: the
 * running context goes on while it can; at each change point it is
 * preempted, for another context drawn at random; wherever it cannot go
 * on, who runs next is drawn at random (no preemption).  So a schedule
 * of depth D makes D preemptions (fewer if it ends first), each at a
 * random step.  (Classic PCT's priorities count ordering constraints
 * instead: the 1-preemption 2.6.9 bug needs the completion context both
 * ahead of CPU 1 and behind it, which no single change point gives.)
 */
static int pct_choice(const struct sched_branch *b)
{
	unsigned others = b->cur >= 0 ? b->enabled & ~(1u << b->cur) : b->enabled;

	if (b->cur >= 0 && (!S.pct_switch || !others))
		return b->cur;
	S.pct_switch = false;
	return random_ctx(others);
}

/* A replay's action at branch number index, -1 if it left it the default. */
static int replay_choice(const struct sched_branch *b, unsigned index)
{
	const struct txp_check_choice *c;
	int a;

	if (S.next_choice == S.plan->nchoices || S.plan->choices[S.next_choice].index != index)
		return -1;
	c = &S.plan->choices[S.next_choice++];
	a = c->flush ? SCHED_FLUSH + c->ctx : c->ctx;
	if (!legal(a, b) && S.refused < 0)
		S.refused = (int)(S.next_choice - 1);
	return a;
}

/* The plan's action at branch number index. */
static int choose(const struct sched_branch *b, unsigned index)
{
	const struct sched_plan *p = S.plan;
	int a = -1;

	if (index < p->nprefix)
		a = p->prefix[index];
	else if (p->kind == PLAN_REPLAY)
		a = replay_choice(b, index);
	else if (p->kind == PLAN_RANDOM)
		a = nth_action(b, (unsigned)(rng_next(&S.rng) %
					     (unsigned)(__builtin_popcount(b->enabled) +
							__builtin_popcount(b->flushable))));
	else if (p->kind == PLAN_PCT)
		a = pct_choice(b);
	if (a < 0 || !legal(a, b))
		a = b->cur >= 0 ? b->cur : lowest(b->enabled);
	return a;
}

static void stop(enum sched_end end)
{
	S.stopped = true;
	S.end = end;
	S.current = -1;
}

/* Why nobody can run. */
static enum sched_end why_stuck(void)
{
	for (int i = 0; i < S.n; i++)
		if (S.ctx[i].state == SC_SPIN) {
			S.stuck = i;
			return SCHED_DEADLOCK;
		}
	return SCHED_QUIESCENT;
}

/* -- the arm memory model ----------------------------------------------------- */

/*
 * What each location held: its newest writes, in the order they reached
 * memory, each with the time it did (a clock that ticks at every write
 * landing), and per context the newest of them it has read or written
 * (coherence: it never reads an older one after).  A write is current
 * from its time to the next one's.  A load of context c may read any
 * kept write not older than the one c last saw there and still current
 * at or after c's floor (its last acquire, barrier or read-modify-write).
 * Tables are per execution (by generation); past ARM_LOCS/2 locations,
 * or with ARM_HIST writes kept, older writes are out of reach: fewer
 * behaviours, never more.
 */
#define ARM_LOCS 1024		/* a power of two */
#define ARM_HIST 4

struct arm_loc {
	const volatile void *addr;
	size_t size;
	unsigned gen;
	unsigned n;			/* writes kept, oldest first */
	uint64_t val[ARM_HIST];
	uint32_t ts[ARM_HIST];
	uint32_t seen[SCHED_MAX_CTX];
};

static struct {
	unsigned gen, n;
	uint32_t clock;
	struct arm_loc loc[ARM_LOCS];
} M;

static void arm_reset(void)
{
	M.gen++;
	M.n = 0;
	M.clock = 0;
}

static void arm_append(struct arm_loc *l, uint64_t v)
{
	if (l->n == ARM_HIST) {
		memmove(&l->val[0], &l->val[1], (ARM_HIST - 1) * sizeof(l->val[0]));
		memmove(&l->ts[0], &l->ts[1], (ARM_HIST - 1) * sizeof(l->ts[0]));
		l->n--;
	}
	l->val[l->n] = v;
	l->ts[l->n++] = ++M.clock;
}

/* addr's history (size: 0 to find it only), made on first use from
 * memory; memory written other than through the seam (set-up, tear-down)
 * is its newest write.  NULL past the table's limit. */
static struct arm_loc *arm_loc(const volatile void *addr, size_t size)
{
	uint64_t h = (uint64_t)(uintptr_t)addr * 0x9e3779b97f4a7c15ull, v;

	for (unsigned i = (unsigned)(h >> 54), k = 0; k < ARM_LOCS; k++, i++) {
		struct arm_loc *l = &M.loc[i % ARM_LOCS];

		if (l->gen == M.gen && l->addr == addr) {
			v = raw_load(addr, l->size);
			if (l->val[l->n - 1] != v)
				arm_append(l, v);
			return l;
		}
		if (l->gen != M.gen) {
			if (!size || M.n >= ARM_LOCS / 2)
				return NULL;
			*l = (struct arm_loc){ .addr = addr, .size = size, .gen = M.gen, .n = 1,
					       .val = { raw_load(addr, size) } };
			M.n++;
			return l;
		}
	}
	return NULL;
}

/* Before a write of addr lands: its history keeps what it overwrites. */
static void arm_before_write(const volatile void *addr, size_t size)
{
	if (S.mm == SCHED_ARM && !S.freerun)
		arm_loc(addr, size);
}

/* A write of c (NULL: the controller) reached addr: the newest write,
 * which its writer has seen. */
static void arm_landed(const struct sctx *c, const volatile void *addr)
{
	struct arm_loc *l;

	if (S.mm != SCHED_ARM || S.freerun)
		return;
	l = arm_loc(addr, 0);
	if (l && c)
		l->seen[c->id] = l->ts[l->n - 1];
}

/* A branch point of the arm model for the running context: alternative
 * 0 (the default) or 1..nalt.  Value branches cost a preemption; store
 * picks belong to the flush before them. */
static unsigned arm_branch(enum sched_branch_kind kind, unsigned nalt, int ctx,
			   const volatile void *addr)
{
	struct sched_branch b = {
		.enabled = (uint16_t)(1u << ctx),
		.flushable = (uint16_t)((1u << (nalt < SCHED_MAX_CTX ? nalt : SCHED_MAX_CTX)) - 1),
		.cur = (int8_t)ctx,
		.preempt = (uint16_t)(kind == SCHED_BR_STORE ? S.preemptions - 1 : S.preemptions),
		.kind = (uint8_t)kind,
		.addr = addr,
	};

	b.chosen = (int8_t)choose(&b, S.nbr);
	push_branch(&b);
	if (b.chosen < SCHED_FLUSH)
		return 0;
	if (kind == SCHED_BR_VALUE)
		S.preemptions++;
	return (unsigned)(b.chosen - SCHED_FLUSH) + 1;
}

/* May store k of c land now?  Not past an older store to its location
 * (coherence), nor past an older store before a write barrier, nor, a
 * release, past any older store. */
static bool arm_landable(const struct sctx *c, int k)
{
	if (k == 0)
		return true;
	if (c->buf[k].release || c->buf[k].epoch != c->buf[0].epoch)
		return false;
	for (int j = 0; j < k; j++)
		if (c->buf[j].addr == c->buf[k].addr)
			return false;
	return true;
}

/* Which of c's stores lands, by the plan (SCHED_BR_STORE): its index. */
static int arm_pick_store(struct sctx *c)
{
	int idx[SCHED_BUF], n = 0;

	for (int k = 0; k < c->nbuf; k++)
		if (arm_landable(c, k))
			idx[n++] = k;
	return n > 1 ? idx[arm_branch(SCHED_BR_STORE, (unsigned)n - 1, c->id, NULL)] : 0;
}

/* c's stores land up to and including its last one to addr. */
static void arm_flush_to(struct sctx *c, const volatile void *addr)
{
	int last = -1;

	for (int k = 0; k < c->nbuf; k++)
		if (c->buf[k].addr == addr)
			last = k;
	while (last-- >= 0)
		flush_one(c);
}

static uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* What operation op of c orders, under arm, as it is about to run. */
static void arm_order(struct sctx *c, enum txp_rt_op op, const volatile void *addr, size_t size)
{
	switch (op) {
	case TXP_OP_RMW:
	case TXP_OP_FENCE:
		drain(c);
		c->floor = M.clock;
		break;
	case TXP_OP_RMW_RELAXED:
		arm_flush_to(c, addr);
		break;
	case TXP_OP_RMB:
		c->floor = max32(c->floor, c->lastread);
		break;
	case TXP_OP_WMB:
		c->wepoch++;
		break;
	case TXP_OP_LOAD:
	case TXP_OP_STORE:
	case TXP_OP_ORDER:
		break;
	}
	/* A read-modify-write reads, and so keeps, what it overwrites. */
	if (op == TXP_OP_RMW || op == TXP_OP_RMW_RELAXED)
		arm_before_write(addr, size);
}

/* c's load of addr (not its own buffered store): which write it reads,
 * by the plan; true and *v when an older one than memory's. */
static bool arm_load(struct sctx *c, const volatile void *addr, size_t size, bool acquire,
		     const char *what, uint64_t *v)
{
	struct arm_loc *l = arm_loc(addr, size);
	int idx[ARM_HIST], n = 0, i;
	unsigned alt;

	if (!l)
		return false;
	for (i = (int)l->n - 1; i >= 0 && l->ts[i] >= l->seen[c->id]; i--) {
		if (i < (int)l->n - 1 && l->ts[i + 1] <= c->floor)
			break;
		idx[n++] = i;
	}
	alt = n > 1 ? arm_branch(SCHED_BR_VALUE, (unsigned)n - 1, c->id, addr) : 0;
	i = idx[alt];
	l->seen[c->id] = l->ts[i];
	/* Read as of the earliest time it could have been: later loads
	 * ordered after this one (acquire, smp_rmb) may read no earlier. */
	c->lastread = max32(c->lastread, max32(c->floor, l->ts[i]));
	if (acquire)
		c->floor = max32(c->floor, l->ts[i]);
	if (!alt)
		return false;
	event(c->id, "load reads an older value of", target(what), NULL);
	/* What it read may change without a write: it must not wait on it. */
	c->iter.dirty = c->spin.dirty = true;
	*v = l->val[i];
	return true;
}

/* -- switching ------------------------------------------------------------ */

/* The TXP_LOCAL variables, as the linker gathered them. */
extern const struct txp_local_var __start_txp_locals[], __stop_txp_locals[];


static void locals_save(unsigned char *to)
{
	for (const struct txp_local_var *l = __start_txp_locals; l < __stop_txp_locals; l++) {
		memcpy(to, l->addr, l->size);
		to += l->size;
	}
}

static void locals_load(const unsigned char *from)
{
	for (const struct txp_local_var *l = __start_txp_locals; l < __stop_txp_locals; l++) {
		memcpy(l->addr, from, l->size);
		from += l->size;
	}
}

static unsigned char *locals_alloc(void)
{
	unsigned char *p = calloc(1, locals_bytes + 1);

	if (!p) {
		fprintf(stderr, "txpath check: out of memory\n");
		exit(1);
	}
	return p;
}

/* Switch the thread to context id (-1: the controller), its per-context
 * state with it.  Returns when somebody switches back. */
static void run_on(int id)
{
	struct sctx *from = me;

	locals_save(from ? from->locals : controller_locals);
	me = id >= 0 ? &S.ctx[id] : NULL;
	locals_load(me ? me->locals : controller_locals);
	fiber_switch(from ? &fibers[from->id] : &controller, me ? &fibers[id] : &controller,
		     from && from->state == SC_DONE);
}

/* Freerun: give every context that has not ended a turn, until it waits
 * or ends.  The controller only. */
static void run_round(void)
{
	for (int i = 0; i < S.n; i++)
		if (S.ctx[i].state != SC_DONE && !S.ctx[i].abandoned)
			run_on(i);
}

/*
 * Fairness: a context that could have run for half the step limit and
 * was never chosen (others went on, or took every switch) runs next, a
 * switch of no branch and no preemption.  Without it the schedules
 * that starve a context (one that spins writing what it reads, or two
 * that wake each other) reach the step limit and read as a livelock
 * the others' progress would have ended.  No execution of a scenario
 * comes near it (hundreds of steps; the largest, 15,000); a true
 * livelock still reaches the limit.  -1: nobody starves.
 */
static int starved(unsigned enabled)
{
	unsigned wait = S.max_steps / 2;
	int who = -1;

	for (int i = 0; i < S.n; i++)
		if ((enabled & (1u << i)) && &S.ctx[i] != me && S.steps - S.ctx[i].ran_at > wait &&
		    (who < 0 || S.ctx[i].ran_at < S.ctx[who].ran_at))
			who = i;
	return who;
}

/*
 * Choose who runs next (me too, if it can go on), flushing buffered
 * stores where the plan says so.  A context that is not chosen goes back
 * to the controller, which runs the chosen one; it returns when it is
 * chosen again.
 */
/* A landing that is a step of its own (tso): the store-buffer actor's. */
static void flush_step(struct sctx *c, int k)
{
	flush_at(c, k);
	if (S.tracing && !S.freerun)
		trace_step_end(SCHED_FLUSH + c->id);
}

/* The branch point's name for the search's reduction: the trace so far
 * (who is running, b->cur, prices the choices from it). */
static void branch_key(struct sched_branch *b)
{
	struct trace_key k = trace_key(b->cur);

	b->key_a = k.a;
	b->key_b = k.b;
	b->key_cur = k.cur;
}

/* Was the state at the pending branch explored already?  Then the
 * execution is cut there: the trace stops, the rest being the default tail
 * of a state explored in full. */
static void check_pending(void)
{
	const struct sched_plan *p = S.plan;

	if (S.pending == UINT_MAX)
		return;
	if (p->explored(&S.br[S.pending], p->explored_arg)) {
		S.cut = S.pending;
		S.tracing = false;
	}
	S.pending = UINT_MAX;
}

/* The contexts b may run whose expected step leads to a state explored
 * already: b->asleep.  Running another costs a preemption if the running
 * one could go on; who runs there is not known: priced as if any could. */
static void predict(struct sched_branch *b)
{
	const struct sched_plan *p = S.plan;

	for (unsigned m = b->enabled; m; m &= m - 1) {
		int c = __builtin_ctz(m);
		struct sched_branch to = { .kind = SCHED_BR_RUN, .cur = -1, .key_cur = -1,
					   .preempt = (uint16_t)(b->preempt + (b->cur >= 0)) };
		struct trace_key k;

		if (c == b->cur || !trace_expected_key(c, &k))
			continue;
		to.key_a = k.a;
		to.key_b = k.b;
		if (p->explored(&to, p->explored_arg))
			b->asleep |= (uint16_t)(1u << c);
	}
}

/* Name the branch point b (to be pushed); the last one's state is asked
 * about now, one branch late, so that the plan's look-up (begun by
 * plan->named()) had its memory fetched meanwhile. */
static void name_branch(struct sched_branch *b)
{
	const struct sched_plan *p = S.plan;

	branch_key(b);
	check_pending();
	if (S.tracing && S.nbr >= p->nprefix && p->explored) {
		S.pending = S.nbr;
		if (p->named)
			p->named(b, p->explored_arg);
		predict(b);
	}
}

static void reschedule(void)
{
	/* Every scheduling point ends the running context's step. */
	if (tracing()) {
		if (S.want_fp != UINT_MAX) {
			trace_step_fp(&S.fp[S.want_fp]);
			S.want_fp = UINT_MAX;
		}
		trace_step_end(me->id);
	}
	for (;;) {
		unsigned enabled = 0, flushable = 0;
		struct sched_branch b;

		for (int i = 0; i < S.n; i++) {
			if (S.ctx[i].state == SC_RUNNABLE)
				enabled |= 1u << i;
			if (S.ctx[i].nbuf)
				flushable |= 1u << i;
		}
		if (!enabled) {
			if (flushable) {
				if (S.tracing && trace_default_tells_apart(flushable))
					S.told_apart++;
				flush_step(&S.ctx[lowest(flushable)], 0);
				continue;
			}
			stop(why_stuck());
			break;
		}
		b = (struct sched_branch){
			.enabled = (uint16_t)enabled,
			.flushable = (uint16_t)flushable,
			.cur = (int8_t)(me && me->state == SC_RUNNABLE ? me->id : -1),
			.preempt = (uint16_t)S.preemptions,
		};
		/* A single action is no branch, nor is a fair switch. */
		if (!flushable && !(enabled & (enabled - 1))) {
			S.current = lowest(enabled);
			break;
		}
		if ((S.current = starved(enabled)) >= 0) {
			event(S.current, "runs, starved: fair switch", NULL, NULL);
			S.fair++;
			break;
		}
		if (S.tracing)
			name_branch(&b);
		/* Past the cut, the default tail of an explored state: its
		 * branches are not kept, nothing below them is left to try. */
		if (S.cut < S.nbr) {
			S.current = b.cur >= 0 ? b.cur : lowest(enabled);
			break;
		}
		b.chosen = (int8_t)choose(&b, S.nbr);
		push_branch(&b);
		if (S.tracing && S.nbr <= S.plan->nprefix && S.plan->expect)
			S.plan->expect(S.nbr - 1, S.plan->explored_arg);
		want_fp();
		if (b.chosen >= SCHED_FLUSH || (b.cur >= 0 && b.chosen != b.cur))
			S.preemptions++;
		if (b.chosen >= SCHED_FLUSH) {
			struct sctx *c = &S.ctx[b.chosen - SCHED_FLUSH];
			int k = S.mm == SCHED_ARM ? arm_pick_store(c) : 0;

			/* A choice of the plan: drawn, as the store it was. */
			event(c->id, "store reaches memory:", target(c->buf[k].what), NULL);
			flush_step(c, k);
			continue;
		}
		S.current = b.chosen;
		break;
	}
	if (me && S.current != me->id)
		run_on(-1);
}

/* -- the seam's hooks ------------------------------------------------------ */

void txp_rt_point(enum txp_rt_op op, const volatile void *addr, size_t size)
{
	if (txp_unlikely(W.probing) && W.n < SCHED_WATCH_MAX) {
		W.w[W.n].addr = addr;
		W.w[W.n].size = size;
		W.n++;
		W.probing = false;
	}
	if (!me || S.freerun)
		return;
	if (op == TXP_OP_LOAD || op == TXP_OP_RMW)
		note_read(me, addr, size);
	/* TXP_OP_ORDER: a point, nothing more. */
	me->ran_at = S.steps;
	if (++S.steps > S.max_steps) {
		stop(SCHED_STEP_LIMIT);
		run_on(-1);	/* never resumed: the context is abandoned */
	}
	if (S.plan->kind == PLAN_PCT && S.next_change < S.plan->nchange &&
	    S.steps >= S.plan->change[S.next_change]) {
		S.next_change++;
		S.pct_switch = true;
	}
	reschedule();
	/* The operation begins the context's next step. */
	if (tracing() && (op == TXP_OP_LOAD || op == TXP_OP_RMW || op == TXP_OP_RMW_RELAXED))
		trace_read(addr);
	if (S.mm == SCHED_ARM)
		arm_order(me, op, addr, size);
	else if (op == TXP_OP_RMW || op == TXP_OP_FENCE || op == TXP_OP_RMW_RELAXED)
		drain(me);
	/* The load follows at once: what it sees of the word is now. */
	if (op == TXP_OP_LOAD && W.n) {
		struct watched *w = watched_at(addr);

		if (w)
			w->seen[me->id] = (struct sched_mark){ w->rises, w->own[me->id] };
	}
}

void txp_rt_wrote(const volatile void *addr)
{
	if (tracing())
		trace_write(addr);
	arm_landed(me, addr);
	wake_readers(addr, me);
}

bool txp_rt_load(const volatile void *addr, size_t size, bool acquire, const char *what,
		    uint64_t *v)
{
	if (txp_rt_forward(addr, size, v))
		return true;
	if (!me || S.freerun || S.mm != SCHED_ARM)
		return false;
	return arm_load(me, addr, size, acquire, what, v);
}

bool txp_rt_cas_fails(const volatile void *addr, bool would_succeed, const char *what)
{
	if (!me || S.freerun || S.mm != SCHED_ARM || !would_succeed)
		return false;
	if (!arm_branch(SCHED_BR_VALUE, 1, me->id, addr))
		return false;
	event(me->id, "compare-exchange fails spuriously:", target(what), NULL);
	return true;
}

bool txp_rt_forward(const volatile void *addr, size_t size, uint64_t *v)
{
	(void)size;
	if (!me)
		return false;
	for (int i = me->nbuf - 1; i >= 0; i--)
		if (me->buf[i].addr == addr) {
			*v = me->buf[i].v;
			return true;
		}
	return false;
}

bool txp_rt_buffer(volatile void *addr, size_t size, uint64_t v, bool release,
		      const char *what)
{
	if (!me || S.mm == SCHED_SC || S.freerun)
		return false;
	if (me->nbuf == SCHED_BUF)
		flush_one(me);
	if (tracing())
		trace_write(me->buf);
	me->buf[me->nbuf++] = (struct store){ addr, size, v, what, release, me->wepoch };
	return true;
}

/* The test of a wait reads all it judges: a write of any of it orders. */
static void trace_reads(const struct readset *rs)
{
	if (rs->all)
		trace_all();
	for (int r = 0; r < rs->n; r++)
		trace_read(rs->r[r].addr);
}

/* Nothing to do until something read changes: let the others run. */
static void wait_for_change(enum sctx_state why)
{
	if (S.freerun) {
		if (me)
			run_on(-1);
		else
			run_round();
		return;
	}
	if (!me)
		return;
	if (tracing())
		trace_reads(why == SC_IDLE ? &me->iter : &me->spin);
	if (!reads_changed(me, why == SC_IDLE ? &me->iter : &me->spin)) {
		me->state = why;
		reschedule();
	}
	forget(&me->spin);
	if (why == SC_IDLE)
		forget(&me->iter);
}

void txp_rt_spin(void)
{
	wait_for_change(SC_SPIN);
}

void txp_rt_idle(void)
{
	wait_for_change(SC_IDLE);
}

static void trace(const char *what, const char *arg, const char *site)
{
	if (me && !S.freerun)
		event(me->id, what, arg, site);
}

/* An event of the seam's (txp_event_at()): drawn in the diagram. */
static void trace_event(const char *what, const char *site)
{
	trace(what, NULL, site);
}

/*
 * Lock traffic in the seeds' words ("acquire queue lock", "drop queue
 * lock"), or, for a lock named as written ("&tp->tx_lock", as
 * spin_lock_init names it), in the kernel's, with the caller's function.
 */
static bool kernel_named(const struct txp_spinlock *l)
{
	return l->name && l->name[0] == '&';
}

static void trace_acquired(const struct txp_spinlock *l, const char *site)
{
	if (kernel_named(l))
		trace("spin_lock", l->name, site);
	else
		trace("acquire", l->name, NULL);
}

/* After the unlock's store: a context the release lets in is drawn after it. */
static void trace_released(const struct txp_spinlock *l, const char *site)
{
	if (kernel_named(l))
		trace("spin_unlock", l->name, site);
	else
		trace(l->name && !strcmp(l->name, "queue lock") ? "drop" : "release", l->name, NULL);
}

static struct txp_sync_observer trace_observer = {
	.order = TXP_OBSERVE_DIAGRAM,
	.lock_acquired = trace_acquired,
	.lock_released = trace_released,
	.event = trace_event,
};

/* -- the watched word ------------------------------------------------------ */

static void watch_landed(struct watched *w, const struct sctx *writer)
{
	uint64_t v = raw_load(w->addr, w->size);

	if (v && !w->val) {
		w->rises++;
		if (writer)
			w->own[writer->id]++;
	}
	w->val = v;
}

void sched_watch_reset(void)
{
	memset(&W, 0, sizeof(W));
}

int sched_watch_probe(void (*read)(void *), void *arg)
{
	unsigned i = W.n;

	if (i == SCHED_WATCH_MAX)
		return -1;
	W.probing = true;
	read(arg);
	W.probing = false;
	if (W.n == i)
		return -1;
	W.w[i].val = raw_load(W.w[i].addr, W.w[i].size);
	return (int)i;
}

struct sched_mark sched_watch_seen(int word)
{
	const struct watched *w = &W.w[word];

	return me ? w->seen[me->id] : (struct sched_mark){ w->rises, 0 };
}

bool sched_watch_rose_since(int word, struct sched_mark m)
{
	const struct watched *w = &W.w[word];
	unsigned own = me ? w->own[me->id] : 0;

	/* What has landed on the word so far: a read of it. */
	if (tracing())
		trace_read(w->addr);

	return w->rises - m.rises > own - m.own;
}

int sched_current(void)
{
	return me && !S.freerun ? me->id : -1;
}

/* -- single-writer counters ------------------------------------------------ */

/*
 * Each single-writer counter (txp_counter_add) seen in an execution, with
 * the context that first wrote it: a seam context id, as the per-context
 * counters are indexed, so that an id handed on from an ended context to
 * a new one (ordered by the seam's id allocation) is the same writer.
 * Entries of older executions are stale by their generation.  The first
 * second writer of an execution is kept for the explorer.
 */
#define SCHED_COUNTERS 1024	/* a power of two */

struct counter_rec {
	const volatile void *addr;
	unsigned gen;
	int owner;		/* seam context id of the writer */
	int sched_id;		/* its scheduler context, for the message */
};

static struct {
	struct counter_rec r[SCHED_COUNTERS];
	unsigned gen, n;
	bool conflict;
	const char *what;
	int first, second;	/* scheduler contexts */
} K;

static struct counter_rec *counter_slot(const volatile void *addr)
{
	uint64_t h = (uint64_t)(uintptr_t)addr * 0x9e3779b97f4a7c15ull;

	for (unsigned i = (unsigned)(h >> 54), k = 0; k < SCHED_COUNTERS; k++, i++) {
		struct counter_rec *c = &K.r[i % SCHED_COUNTERS];

		if (c->gen != K.gen || c->addr == addr)
			return c;
	}
	return NULL;
}

void txp_rt_counter(const volatile void *addr, const char *what)
{
	struct counter_rec *c;
	int self;

	/* Only the explored part: set-up and tear-down run in the
	 * controller, ordered with every context. */
	if (!me || S.freerun || K.n >= SCHED_COUNTERS / 2)
		return;
	self = txp_ctx_self();
	c = counter_slot(addr);
	if (!c)
		return;
	if (c->gen != K.gen) {
		*c = (struct counter_rec){ addr, K.gen, self, me->id };
		K.n++;
	} else if (c->owner != self && !K.conflict) {
		K.conflict = true;
		K.what = what;
		K.first = c->sched_id;
		K.second = me->id;
	}
}

static void counters_reset(void)
{
	K.gen++;
	K.n = 0;
	K.conflict = false;
}

bool sched_counter_conflict(char *buf, size_t len)
{
	if (K.conflict)
		snprintf(buf, len, "single-writer counter %s written by %s and by %s "
			 "(txp_counter_add loses increments: use txp_counter_add_shared)",
			 K.what[0] == '&' ? K.what + 1 : K.what, sched_ctx_name(K.first),
			 sched_ctx_name(K.second));
	return K.conflict;
}

/* -- contexts ------------------------------------------------------------ */

static void ctx_exit(void)
{
	txp_ctx_detach();	/* what a thread's exit would do */
	/* Stores still buffered: others may run, and any of them land,
	 * before the exit drains them (tso, arm). */
	if (me->nbuf && !S.freerun && !S.stopped)
		reschedule();
	drain(me);
	me->state = SC_DONE;
	if (tracing())
		trace_write(&me->state);
	wake_readers(&me->state, me);
	if (!S.freerun && !S.stopped)
		reschedule();
	run_on(-1);	/* never resumed */
}

static void ctx_main(void)
{
	me->fn(me->arg);
	ctx_exit();
}

static int spawn(const char *name, void *(*fn)(void *), void *arg)
{
	struct sctx *c;

	if (S.n == SCHED_MAX_CTX)
		return -1;
	c = &S.ctx[S.n];
	if (!c->locals)
		c->locals = locals_alloc();
	memset(c->locals, 0, locals_bytes);
	if (fiber_prepare(&fibers[S.n], ctx_main) != 0)
		return -1;
	c->id = S.n;
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "thread");
	c->state = SC_RUNNABLE;
	forget(&c->iter);
	forget(&c->spin);
	c->nbuf = 0;
	/* Starting a thread orders what its starter did before. */
	c->wepoch = 0;
	c->floor = c->lastread = M.clock;
	c->fn = fn;
	c->arg = arg;
	c->abandoned = false;
	c->ran_at = S.steps;
	return S.n++;
}

/*
 * Only the explorer's contexts: outside an exploration the check build
 * has no threads, since its per-context state (TXP_LOCAL) is switched by
 * the explorer, not kept per thread.
 */
int txp_rt_thread_start(struct txp_thread *t, const char *name, void *(*fn)(void *), void *arg)
{
	int id;

	if (!S.armed || S.freerun)
		return EPERM;
	/* A context started by another: ordered with everything. */
	if (tracing())
		trace_all();
	id = spawn(name, fn, arg);
	if (id < 0)
		return EAGAIN;
	t->ctx = id;
	t->handle = 0;
	return 0;
}

void txp_rt_thread_join(struct txp_thread *t)
{
	struct sctx *c = t->ctx >= 0 && t->ctx < S.n ? &S.ctx[t->ctx] : NULL;

	/* Waiting for a context to end is waiting as for a lock. */
	for (;;) {
		if (c && tracing())
			trace_read(&c->state);
		if (!c || c->state == SC_DONE || c->abandoned)
			break;
		if (me && !S.freerun)
			note_read(me, &c->state, sizeof(c->state));
		wait_for_change(SC_SPIN);
	}
	/* Joining orders what the ended context did (it drained at exit). */
	if (me)
		me->floor = M.clock;
}

int sched_spawn(const char *name, void *(*fn)(void *), void *arg)
{
	return spawn(name, fn, arg);
}

/* -- the controller's side ---------------------------------------------------- */

#ifdef TXP_TSAN
/*
 * ThreadSanitizer delivers an asynchronous signal later, from the state of
 * the fiber it arrived on, and forgets it when that fiber is destroyed (a
 * SIGINT for `txpath check` was lost that way, now and then).  While the
 * contexts run, such signals wait: they reach the controller between
 * executions.  Those a fault raises are left alone.
 */
static sigset_t signals_before;

static void signals_hold(void)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS };
	sigset_t held;

	sigfillset(&held);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&held, faults[i]);
	pthread_sigmask(SIG_BLOCK, &held, &signals_before);
}

static void signals_release(void)
{
	pthread_sigmask(SIG_SETMASK, &signals_before, NULL);
}
#else
static void signals_hold(void)
{
}

static void signals_release(void)
{
}
#endif

void sched_begin(const struct sched_plan *plan, enum sched_mm mm, unsigned max_steps)
{
	if (!controller_locals) {
		for (const struct txp_local_var *l = __start_txp_locals; l < __stop_txp_locals; l++)
			locals_bytes += l->size;
		fiber_init_thread(&controller);
		controller_locals = locals_alloc();
		txp_sync_observe(&trace_observer);
	}
	signals_hold();
	S.armed = true;
	S.stopped = S.freerun = false;
	S.tracing = plan->trace;
	S.fair = S.told_apart = 0;
	S.cut = S.pending = S.want_fp = UINT_MAX;
	trace_reset();
	S.mm = mm;
	S.current = -1;
	S.n = 0;
	S.stuck = -1;
	S.steps = S.preemptions = 0;
	S.max_steps = max_steps;
	S.plan = plan;
	S.rng = plan->rng;
	S.next_change = 0;
	S.pct_switch = false;
	S.next_choice = 0;
	S.refused = -1;
	S.nbr = S.nev = 0;
	memset(&W, 0, sizeof(W));
	counters_reset();
	arm_reset();
}

enum sched_end sched_run(void)
{
	reschedule();
	while (!S.stopped)
		run_on(S.current);
	for (int i = 0; i < S.n; i++)
		drain(&S.ctx[i]);
	check_pending();
	return S.end;
}

/* Contexts that have not ended are never resumed: stuck ones, or ones
 * that never started; their context ids go back. */
static void abandon_unfinished(void)
{
	locals_save(controller_locals);
	for (int i = 0; i < S.n; i++)
		if (S.ctx[i].state != SC_DONE && !S.ctx[i].abandoned) {
			S.ctx[i].abandoned = true;
			locals_load(S.ctx[i].locals);
			txp_ctx_detach();
		}
	locals_load(controller_locals);
}

void sched_release(void)
{
	S.freerun = true;
	if (S.end != SCHED_QUIESCENT)
		abandon_unfinished();
}

void sched_finish(void)
{
	/* After a scenario that failed to set up, its contexts never ran:
	 * joining them must not wait. */
	abandon_unfinished();
	S.armed = false;
	signals_release();
}

const struct sched_branch *sched_branches(unsigned *n)
{
	*n = S.nbr;
	return S.br;
}

const struct sched_event *sched_events(unsigned *n)
{
	*n = S.nev;
	return S.ev;
}

unsigned sched_steps(void)
{
	return S.steps;
}

unsigned sched_fair_switches(void)
{
	return S.fair;
}

unsigned sched_told_apart(void)
{
	return S.told_apart;
}

unsigned sched_cut(void)
{
	return S.cut < S.nbr ? S.cut : S.nbr;
}

const struct trace_fp *sched_branch_fp(unsigned i)
{
	static const struct trace_fp unknown = { .n = TRACE_FP_UNKNOWN };
	const struct sched_plan *p = S.plan;

	return p && p->explored && i + 1 >= p->nprefix && i < sched_cut() && i < S.fpcap ? &S.fp[i]
											  : &unknown;
}

unsigned sched_preemptions(void)
{
	return S.preemptions;
}

int sched_nctx(void)
{
	return S.n;
}

const char *sched_ctx_name(int id)
{
	return id >= 0 && id < S.n ? S.ctx[id].name : "?";
}

int sched_stuck_ctx(void)
{
	return S.stuck;
}

unsigned sched_replay_reached(void)
{
	return S.next_choice;
}

int sched_replay_refused(void)
{
	return S.refused;
}
