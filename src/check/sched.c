/*
 * sched.c - the explorer's deterministic scheduler (check build only).
 *
 * One mutex and one condition variable hand a baton between real
 * threads; only the holder runs library code, so an execution is a pure
 * function of the choices made at its branch points.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/sched.h"

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
	pthread_t th;
	bool joined;
	enum sctx_state state;
	struct readset iter, spin;
	struct store buf[SCHED_BUF];
	int nbuf;
	void *(*fn)(void *);
	void *arg;
	bool doomed;		/* end the thread when it next waits */
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool armed, stopped, freerun, tso;
	int current;		/* baton holder, -1: the controller */
	int n;
	struct sctx ctx[SCHED_MAX_CTX];
	enum sched_end end;
	int stuck;
	unsigned steps, max_steps, preemptions;
	const struct sched_plan *plan;
	uint64_t rng;
	int prio[SCHED_MAX_CTX];
	unsigned next_change;
	struct sched_branch *br;
	unsigned nbr, brcap;
	struct sched_event *ev;
	unsigned nev, evcap;
} S = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .current = -1 };

static _Thread_local struct sctx *me;

/* One condition variable per context, so that handing the baton over
 * wakes only the new holder (S.cv is the controller's). */
static pthread_cond_t ctx_cv[SCHED_MAX_CTX];
static pthread_once_t ctx_cv_once = PTHREAD_ONCE_INIT;

static void ctx_cv_init(void)
{
	for (int i = 0; i < SCHED_MAX_CTX; i++)
		pthread_cond_init(&ctx_cv[i], NULL);
}

/* Everybody must look at the state again.  mu held. */
static void wake_all(void)
{
	pthread_cond_broadcast(&S.cv);
	for (int i = 0; i < S.n; i++)
		pthread_cond_signal(&ctx_cv[i]);
}

/* -- small helpers ------------------------------------------------------ */

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

/* A write by writer reached memory: whoever else read addr must look
 * again (a context's own writes never wake it: a spinning context waits
 * for somebody else).  mu held. */
static bool readset_hit(struct readset *rs, const volatile void *addr)
{
	bool hit = rs->all;

	for (int r = 0; !hit && r < rs->n; r++)
		hit = rs->r[r].addr == addr;
	rs->dirty |= hit;
	return hit;
}

static void wake_readers(const volatile void *addr, const struct sctx *writer)
{
	for (int i = 0; i < S.n; i++) {
		struct sctx *c = &S.ctx[i];
		bool in_iter, in_spin;

		if (c == writer || c->state == SC_DONE)
			continue;
		in_iter = readset_hit(&c->iter, addr);
		in_spin = readset_hit(&c->spin, addr);
		if ((c->state == SC_SPIN && in_spin) || (c->state == SC_IDLE && in_iter))
			c->state = SC_RUNNABLE;
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

static void flush_one(struct sctx *c)
{
	struct store s = c->buf[0];

	memmove(&c->buf[0], &c->buf[1], (size_t)(c->nbuf - 1) * sizeof(c->buf[0]));
	c->nbuf--;
	raw_store(s.addr, s.size, s.v);
	wake_readers(s.addr, c);
}

static void drain(struct sctx *c)
{
	while (c->nbuf)
		flush_one(c);
}

static void event(int ctx, const char *what, const char *arg)
{
	if (S.nev == S.evcap)
		S.ev = grow(S.ev, &S.evcap, sizeof(*S.ev));
	S.ev[S.nev++] = (struct sched_event){ ctx, what, arg };
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

static int pct_choice(const struct sched_branch *b)
{
	int best = -1;

	for (int i = 0; i < SCHED_MAX_CTX; i++)
		if ((b->enabled & (1u << i)) && (best < 0 || S.prio[i] > S.prio[best]))
			best = i;
	return best;
}

/* The plan's action at branch number index.  mu held. */
static int choose(const struct sched_branch *b, unsigned index)
{
	const struct sched_plan *p = S.plan;
	int a = -1;

	if (index < p->nprefix)
		a = p->prefix[index];
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
	wake_all();
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

/* Wait for the baton (or the end of scheduling).  mu held. */
static void wait_baton(void)
{
	while (S.current != me->id && !S.freerun && !me->doomed)
		pthread_cond_wait(&ctx_cv[me->id], &S.mu);
	if (me->doomed) {
		me->state = SC_DONE;
		pthread_mutex_unlock(&S.mu);
		pthread_exit(NULL);
	}
}

/*
 * Pass the baton to whoever the plan picks (me too, if it can go on),
 * flushing buffered stores where the plan says so.  mu held.  Returns
 * when me holds the baton again, at once for the controller or a
 * context that has ended.
 */
static void reschedule(bool wait)
{
	for (;;) {
		unsigned enabled = 0, flushable = 0, nact;
		struct sched_branch b;

		for (int i = 0; i < S.n; i++) {
			if (S.ctx[i].state == SC_RUNNABLE)
				enabled |= 1u << i;
			if (S.ctx[i].nbuf)
				flushable |= 1u << i;
		}
		if (!enabled) {
			if (flushable) {
				flush_one(&S.ctx[lowest(flushable)]);
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
		nact = (unsigned)(__builtin_popcount(enabled) + __builtin_popcount(flushable));
		if (nact == 1) {
			S.current = lowest(enabled);
			break;
		}
		b.chosen = (int8_t)choose(&b, S.nbr);
		if (S.nbr == S.brcap)
			S.br = grow(S.br, &S.brcap, sizeof(*S.br));
		S.br[S.nbr++] = b;
		if (b.chosen >= SCHED_FLUSH || (b.cur >= 0 && b.chosen != b.cur))
			S.preemptions++;
		if (b.chosen >= SCHED_FLUSH) {
			flush_one(&S.ctx[b.chosen - SCHED_FLUSH]);
			continue;
		}
		S.current = b.chosen;
		break;
	}
	if (S.current >= 0 && (!me || S.current != me->id))
		pthread_cond_signal(&ctx_cv[S.current]);
	if (wait && me)
		wait_baton();
}

/* -- the seam's hooks ------------------------------------------------------ */

void txp_check_point(enum txp_check_op op, const volatile void *addr, size_t size)
{
	if (!me)
		return;
	pthread_mutex_lock(&S.mu);
	if (S.freerun) {
		pthread_mutex_unlock(&S.mu);
		return;
	}
	if (op == TXP_OP_LOAD || op == TXP_OP_RMW)
		note_read(me, addr, size);
	if (++S.steps > S.max_steps) {
		stop(SCHED_STEP_LIMIT);
		wait_baton();
	} else {
		if (S.plan->kind == PLAN_PCT && S.next_change < S.plan->nchange &&
		    S.steps >= S.plan->change[S.next_change])
			S.prio[me->id] = (int)S.next_change++;
		reschedule(true);
	}
	if (op == TXP_OP_RMW || op == TXP_OP_FENCE)
		drain(me);
	pthread_mutex_unlock(&S.mu);
}

void txp_check_wrote(const volatile void *addr)
{
	pthread_mutex_lock(&S.mu);
	wake_readers(addr, me);
	pthread_mutex_unlock(&S.mu);
}

bool txp_check_forward(const volatile void *addr, size_t size, uint64_t *v)
{
	bool hit = false;

	(void)size;
	if (!me)
		return false;
	pthread_mutex_lock(&S.mu);
	for (int i = me->nbuf - 1; i >= 0 && !hit; i--)
		if (me->buf[i].addr == addr) {
			*v = me->buf[i].v;
			hit = true;
		}
	pthread_mutex_unlock(&S.mu);
	return hit;
}

bool txp_check_buffer(volatile void *addr, size_t size, uint64_t v)
{
	bool buffered = false;

	if (!me)
		return false;
	pthread_mutex_lock(&S.mu);
	if (S.tso && !S.freerun) {
		if (me->nbuf == SCHED_BUF)
			flush_one(me);
		me->buf[me->nbuf++] = (struct store){ addr, size, v };
		buffered = true;
	}
	pthread_mutex_unlock(&S.mu);
	return buffered;
}

/* Nothing to do until something read changes: let the others run. */
static void wait_for_change(enum sctx_state why)
{
	if (!me) {
		sched_yield();
		return;
	}
	pthread_mutex_lock(&S.mu);
	if (S.freerun) {
		pthread_mutex_unlock(&S.mu);
		sched_yield();
		return;
	}
	if (!reads_changed(me, why == SC_IDLE ? &me->iter : &me->spin)) {
		me->state = why;
		reschedule(true);
	}
	forget(&me->spin);
	if (why == SC_IDLE)
		forget(&me->iter);
	pthread_mutex_unlock(&S.mu);
}

void txp_check_spin(void)
{
	wait_for_change(SC_SPIN);
}

void txp_check_idle(void)
{
	wait_for_change(SC_IDLE);
}

void txp_trace(const char *what)
{
	txp_trace_lock(what, NULL);
}

void txp_trace_lock(const char *what, const char *name)
{
	if (!me)
		return;
	pthread_mutex_lock(&S.mu);
	if (!S.freerun)
		event(me->id, what, name);
	pthread_mutex_unlock(&S.mu);
}

/* -- contexts ------------------------------------------------------------ */

static void ctx_exit(void)
{
	pthread_mutex_lock(&S.mu);
	drain(me);
	me->state = SC_DONE;
	wake_readers(&me->state, me);
	if (!S.freerun && !S.stopped)
		reschedule(false);
	pthread_mutex_unlock(&S.mu);
}

static void *trampoline(void *arg)
{
	me = arg;
	pthread_mutex_lock(&S.mu);
	wait_baton();
	pthread_mutex_unlock(&S.mu);
	me->fn(me->arg);
	ctx_exit();
	return NULL;
}

static int spawn(pthread_t *th, const char *name, void *(*fn)(void *), void *arg)
{
	struct sctx *c;
	int rc;

	pthread_mutex_lock(&S.mu);
	if (S.n == SCHED_MAX_CTX) {
		pthread_mutex_unlock(&S.mu);
		return -1;
	}
	c = &S.ctx[S.n];
	memset(c, 0, sizeof(*c));
	c->id = S.n;
	if (name)
		snprintf(c->name, sizeof(c->name), "%s", name);
	else
		snprintf(c->name, sizeof(c->name), "thread %d", S.n);
	c->fn = fn;
	c->arg = arg;
	c->state = SC_RUNNABLE;
	S.prio[c->id] = S.plan ? S.plan->prio[c->id] : 0;
	S.n++;
	pthread_mutex_unlock(&S.mu);
	rc = pthread_create(&c->th, NULL, trampoline, c);
	if (rc == 0)
		*th = c->th;
	return rc;
}

int txp_check_thread_start(struct txp_thread *t, const char *name, void *(*fn)(void *), void *arg)
{
	pthread_t th;
	bool armed;
	int rc;

	pthread_mutex_lock(&S.mu);
	armed = S.armed && !S.freerun;
	pthread_mutex_unlock(&S.mu);
	rc = armed ? spawn(&th, name, fn, arg) : pthread_create(&th, NULL, fn, arg);
	if (rc == 0)
		t->handle = (unsigned long)th;
	return rc;
}

static struct sctx *ctx_of(pthread_t th)
{
	for (int i = 0; i < S.n; i++)
		if (pthread_equal(S.ctx[i].th, th))
			return &S.ctx[i];
	return NULL;
}

void txp_check_thread_join(struct txp_thread *t)
{
	pthread_t th = (pthread_t)t->handle;
	struct sctx *c;

	pthread_mutex_lock(&S.mu);
	c = ctx_of(th);
	/* A scheduled context joining another waits for it as for a lock. */
	while (me && c && c->state != SC_DONE && !S.freerun) {
		note_read(me, &c->state, sizeof(c->state));
		me->state = SC_SPIN;
		reschedule(true);
		forget(&me->spin);
	}
	if (c)
		c->joined = true;
	pthread_mutex_unlock(&S.mu);
	pthread_join(th, NULL);
}

int sched_spawn(const char *name, void *(*fn)(void *), void *arg)
{
	pthread_t th;

	return spawn(&th, name, fn, arg);
}

/* -- the controller's side ---------------------------------------------------- */

void sched_begin(const struct sched_plan *plan, bool tso, unsigned max_steps)
{
	pthread_once(&ctx_cv_once, ctx_cv_init);
	pthread_mutex_lock(&S.mu);
	S.armed = true;
	S.stopped = S.freerun = false;
	S.tso = tso;
	S.current = -1;
	S.n = 0;
	S.stuck = -1;
	S.steps = S.preemptions = 0;
	S.max_steps = max_steps;
	S.plan = plan;
	S.rng = plan->rng;
	S.next_change = 0;
	S.nbr = S.nev = 0;
	pthread_mutex_unlock(&S.mu);
}

enum sched_end sched_run(void)
{
	enum sched_end end;

	pthread_mutex_lock(&S.mu);
	reschedule(false);
	while (!S.stopped)
		pthread_cond_wait(&S.cv, &S.mu);
	for (int i = 0; i < S.n; i++)
		drain(&S.ctx[i]);
	end = S.end;
	pthread_mutex_unlock(&S.mu);
	return end;
}

void sched_release(void)
{
	pthread_mutex_lock(&S.mu);
	S.freerun = true;
	if (S.end != SCHED_QUIESCENT)
		for (int i = 0; i < S.n; i++)
			if (S.ctx[i].state != SC_DONE)
				S.ctx[i].doomed = true;
	wake_all();
	pthread_mutex_unlock(&S.mu);
}

void sched_finish(void)
{
	pthread_mutex_lock(&S.mu);
	for (int i = 0; i < S.n; i++) {
		struct sctx *c = &S.ctx[i];

		if (c->joined)
			continue;
		c->joined = true;
		pthread_mutex_unlock(&S.mu);
		pthread_join(c->th, NULL);
		pthread_mutex_lock(&S.mu);
	}
	S.armed = false;
	pthread_mutex_unlock(&S.mu);
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
