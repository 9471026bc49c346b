/*
 * arm.c - the arm memory model (check build only): stores land out of order
 * where nothing holds them back, and a load may read an older write.
 */
#include <string.h>

#include "check/runtime/rt.h"

/*
 * What each location held: its newest writes, in the order they reached
 * memory, each with the time it did (a clock that ticks at every write
 * landing), and per context the newest of them it has read or written
 * (coherence: it never reads an older one after).  A write is current
 * from its time to the next one's.  A load of context c may read any
 * kept write not older than the one c last saw there and still current
 * at or after c's floor (its last acquire, barrier or read-modify-write).
 * Tables are per execution (by generation); past ARM_LOCS/2 locations,
 * or with ARM_HIST writes kept, or for a location whose bytes are
 * accessed as another too (mixed sizes), older writes are out of reach:
 * fewer behaviours, never more.
 */
#define ARM_LOCS 1024		/* a power of two */
#define ARM_HIST 4

struct arm_loc {
	const volatile void *addr;
	size_t size;
	unsigned gen;
	bool mixed;			/* bytes of it accessed as another location
					 * too: its newest write alone is read */
	unsigned n;			/* writes kept, oldest first */
	uint64_t val[ARM_HIST];
	uint32_t ts[ARM_HIST];
	uint32_t seen[RT_MAX_CTX];
};

static struct {
	unsigned gen, n;
	uint32_t clock;
	struct arm_loc loc[ARM_LOCS];
	uint16_t used[ARM_LOCS / 2];	/* the n locations' slots, in the order made */
	/* Bit t of kept: a write kept landed at time t (> 0); per word of
	 * it, how many before it (rt_arm_key()'s). */
	uint64_t *kept;
	uint32_t *below;
	unsigned cap;			/* words of each */
} M;

void rt_arm_reset(void)
{
	if (M.kept)
		memset(M.kept, 0, (M.clock / 64 + 1) * sizeof(*M.kept));
	M.gen++;
	M.n = 0;
	M.clock = 0;
}

uint32_t rt_arm_clock(void)
{
	return M.clock;
}

/* Time t is a kept write's (on), or no longer is. */
static void arm_keep(uint32_t t, bool on)
{
	if (t / 64 >= M.cap) {
		unsigned old = M.cap, cap = M.cap;

		M.kept = rt_grow(M.kept, &cap, sizeof(*M.kept));
		M.below = rt_grow(M.below, &M.cap, sizeof(*M.below));
		memset(&M.kept[old], 0, (M.cap - old) * sizeof(*M.kept));
	}
	if (on)
		M.kept[t / 64] |= 1ull << (t % 64);
	else
		M.kept[t / 64] &= ~(1ull << (t % 64));
}

static void arm_append(struct arm_loc *l, uint64_t v)
{
	if (l->n == ARM_HIST) {
		if (l->ts[0])
			arm_keep(l->ts[0], false);
		memmove(&l->val[0], &l->val[1], (ARM_HIST - 1) * sizeof(l->val[0]));
		memmove(&l->ts[0], &l->ts[1], (ARM_HIST - 1) * sizeof(l->ts[0]));
		l->n--;
	}
	l->val[l->n] = v;
	l->ts[l->n++] = ++M.clock;
	arm_keep(M.clock, true);
}

/* New location l and those made before it that share bytes with it are
 * mixed: a history of one does not hold the other's writes, so an older
 * write read from it could be older than what was read of the other
 * (coherence, per byte).  Fewer behaviours, never more. */
static void arm_overlaps(struct arm_loc *l)
{
	uintptr_t a = (uintptr_t)l->addr;

	for (unsigned i = 0; i < M.n; i++) {
		struct arm_loc *o = &M.loc[M.used[i]];
		uintptr_t b = (uintptr_t)o->addr;

		if (b < a + l->size && a < b + o->size)
			l->mixed = o->mixed = true;
	}
}

/* addr's history (size: 0 to find it only), made on first use from
 * memory; memory written other than through the seam is its newest
 * write.  Its writer is the context `by` when it is known (a plain store
 * settled: rt_arm_landed()), else one every context has seen: set-up by
 * the controller, or a store the model never saw (libc's memset, a
 * plugin built without the instrumentation), whose writer may be the
 * very context about to read (coherence: never an older write after its
 * own).  NULL past the table's limit. */
static struct arm_loc *arm_loc(const volatile void *addr, size_t size, const struct rt_ctx *by)
{
	uint64_t h = (uint64_t)(uintptr_t)addr * 0x9e3779b97f4a7c15ull, v;

	for (unsigned i = (unsigned)(h >> 54), k = 0; k < ARM_LOCS; k++, i++) {
		struct arm_loc *l = &M.loc[i % ARM_LOCS];

		if (l->gen == M.gen && l->addr == addr) {
			l->mixed |= size && size != l->size;
			v = rt_raw_load(addr, l->size);
			if (l->val[l->n - 1] != v) {
				arm_append(l, v);
				for (int c = 0; c < RT_MAX_CTX; c++)
					if (!by || c == by->id)
						l->seen[c] = l->ts[l->n - 1];
			}
			return l;
		}
		if (l->gen != M.gen) {
			if (!size || M.n >= ARM_LOCS / 2)
				return NULL;
			*l = (struct arm_loc){ .addr = addr, .size = size, .gen = M.gen, .n = 1,
					       .val = { rt_raw_load(addr, size) } };
			arm_overlaps(l);
			M.used[M.n++] = (uint16_t)(l - M.loc);
			return l;
		}
	}
	return NULL;
}

/* Before a write of addr lands: its history keeps what it overwrites. */
void rt_arm_before_write(const volatile void *addr, size_t size)
{
	if (rt.mm == RT_ARM && !rt.freerun)
		arm_loc(addr, size, NULL);
}

/* A write of c (NULL: the controller) reached addr: the newest write,
 * which its writer has seen. */
void rt_arm_landed(const struct rt_ctx *c, const volatile void *addr)
{
	struct arm_loc *l;

	if (rt.mm != RT_ARM || rt.freerun)
		return;
	l = arm_loc(addr, 0, c);
	if (l && c)
		l->seen[c->id] = l->ts[l->n - 1];
}

/* May store k of c land now?  Not past an older store to any of its
 * bytes (coherence), nor past an older store before a write barrier, nor, a
 * release, past any older store. */
static bool arm_landable(const struct rt_ctx *c, int k)
{
	if (k == 0)
		return true;
	if (c->buf[k].release || c->buf[k].epoch != c->buf[0].epoch)
		return false;
	for (int j = 0; j < k; j++)
		if (rt_buf_meets(c, j, c->buf[k].addr, c->buf[k].size))
			return false;
	return true;
}

/* Which of c's stores lands, by the plan (RT_BR_STORE): its index. */
int rt_arm_pick_store(struct rt_ctx *c)
{
	int idx[RT_BUF], n = 0;

	for (int k = 0; k < c->nbuf; k++)
		if (arm_landable(c, k))
			idx[n++] = k;
	return n > 1 ? idx[rt_model_branch(RT_BR_STORE, (unsigned)n - 1, c->id, NULL)] : 0;
}

static uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* An acquire read-modify-write of addr by c reads its newest write: as an
 * acquire load, later loads read nothing older than what was current
 * then (its write may still land later for them, as on ARMv8).  Past the
 * table's limit, nothing older than now: fewer behaviours, never more. */
static void arm_acquire_newest(struct rt_ctx *c, const volatile void *addr, size_t size)
{
	struct arm_loc *l = arm_loc(addr, size, NULL);

	c->floor = max32(c->floor, l ? l->ts[l->n - 1] : M.clock);
}

/* What operation op of c orders, under arm, as it is about to run. */
void rt_arm_order(struct rt_ctx *c, enum txp_rt_op op, const volatile void *addr, size_t size)
{
	switch (op) {
	case TXP_OP_RMW:
	case TXP_OP_FENCE:
	case TXP_OP_ORDER:
		rt_drain(c);
		c->floor = M.clock;
		break;
	case TXP_OP_RMW_RELAXED:
		rt_land_meeting(c, addr, size);
		break;
	case TXP_OP_RMW_ACQUIRE:
		rt_land_meeting(c, addr, size);
		arm_acquire_newest(c, addr, size);
		break;
	case TXP_OP_RMW_RELEASE:
		rt_drain(c);
		break;
	case TXP_OP_RMB:
		c->floor = max32(c->floor, c->lastread);
		break;
	case TXP_OP_WMB:
		c->wepoch++;
		break;
	case TXP_OP_LOAD:
	case TXP_OP_STORE:
		break;
	}
	/* A read-modify-write reads, and so keeps, what it overwrites. */
	if (rt_op_rmw(op))
		rt_arm_before_write(addr, size);
}

/* c's load of addr (not its own buffered store): which write it reads,
 * by the plan; true and *v when an older one than memory's. */
bool rt_arm_load(struct rt_ctx *c, const volatile void *addr, size_t size, bool acquire,
		 const char *what, uint64_t *v)
{
	struct arm_loc *l = arm_loc(addr, size, NULL);
	int idx[ARM_HIST], n = 0, i;
	unsigned alt;

	if (!l)
		return false;
	for (i = (int)l->n - 1; i >= 0 && l->ts[i] >= l->seen[c->id]; i--) {
		if (i < (int)l->n - 1 && l->ts[i + 1] <= c->floor)
			break;
		idx[n++] = i;
	}
	if (l->mixed)
		n = 1;	/* the newest alone (idx[0]) */
	alt = n > 1 ? rt_model_branch(RT_BR_VALUE, (unsigned)n - 1, c->id, addr) : 0;
	if (rt_tracing())
		trace_choice(alt);
	i = idx[alt];
	l->seen[c->id] = l->ts[i];
	/* Read as of the earliest time it could have been: later loads
	 * ordered after this one (acquire, smp_rmb) may read no earlier. */
	c->lastread = max32(c->lastread, max32(c->floor, l->ts[i]));
	if (acquire)
		c->floor = max32(c->floor, l->ts[i]);
	if (!alt)
		return false;
	rt_event(c->id, "load reads an older value of", rt_target(what), NULL);
	/* What it read may change without a write: it must not wait on it. */
	c->iter.dirty = c->spin.dirty = true;
	*v = l->val[i];
	return true;
}

/*
 * The model's state, for the reduction's name of a state (rt_arm_key()).
 * The trace names what every context did and read (the writes a load
 * read are its choices: trace_choice()) and so memory and the buffers'
 * stores; not when, on the one clock, writes landed and barriers took
 * their floor, which decides what a load may still read.  The futures
 * depend on the times only through their order: a load compares a
 * kept write's time with what its context saw there (coherence) and with
 * its floor, a floor or last read becomes the later of two times, or the
 * clock, and every new write comes after all.  So the times are named by
 * rank among the kept writes' (the first write of each location, at time
 * 0, is before all): a write by its rank, a floor or last read by how
 * many writes are not after it, what a context saw of a location by how
 * many of its writes are before it; a buffered store's epoch by the write
 * barriers since.  Each part is hashed and summed, so the order of the
 * table does not matter; every part names its location or context.  A
 * location with one write kept is left out: it holds what the trace
 * says memory held when it was made, and every context may read it.
 */
/* How many kept writes landed at a time after 0 and not after x. */
static uint32_t arm_rank(uint32_t x)
{
	uint64_t word = M.kept[x / 64];

	if (x % 64 != 63)
		word &= (2ull << (x % 64)) - 1;
	return M.below[x / 64] + (uint32_t)__builtin_popcountll(word);
}

/* One part of the name, its words folded into h (each step a bijection
 * of h), added into *k. */
static void arm_add(struct trace_key *k, uint64_t h)
{
	h = trace_mix(h);
	k->a += h;
	k->b += trace_mix(h ^ 0x6a09e667f3bcc909ull);
}

static uint64_t fold(uint64_t h, uint64_t x)
{
	return (h ^ x) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
}

/* Location l: where it is, what it held and when, what each context saw. */
static uint64_t arm_loc_name(const struct arm_loc *l)
{
	uint64_t h = fold((uint64_t)(uintptr_t)l->addr, (uint64_t)l->size << 56 | l->n);

	for (unsigned i = 0; i < l->n; i++)
		h = fold(fold(h, l->val[i]), arm_rank(l->ts[i]));
	for (int c = 0; c < rt.n; c++) {
		unsigned before = 0;

		while (before < l->n && l->ts[before] < l->seen[c])
			before++;
		h = fold(h, before);
	}
	return h;
}

/* Context c: its floor, its last read, its buffered stores. */
static uint64_t arm_ctx_name(const struct rt_ctx *c)
{
	uint64_t h = fold(0xbb67ae8584caa73bull, (uint64_t)c->id << 32 | (uint64_t)c->nbuf);

	h = fold(fold(h, arm_rank(c->floor)), arm_rank(c->lastread));
	for (int k = 0; k < c->nbuf; k++) {
		const struct store *s = &c->buf[k];

		h = fold(fold(h, (uint64_t)(uintptr_t)s->addr), s->v);
		h = fold(h, (uint64_t)s->size << 33 | (uint64_t)s->release << 32 |
			    (c->wepoch - s->epoch));
	}
	return h;
}

struct trace_key rt_arm_key(void)
{
	struct trace_key k = { trace_mix(M.n), 0, -1 };

	if (!M.kept)
		arm_keep(0, false);	/* the tables made: no write has landed yet */
	for (uint32_t w = 0, n = 0; w <= M.clock / 64; w++) {
		M.below[w] = n;
		n += (uint32_t)__builtin_popcountll(M.kept[w]);
	}
	for (unsigned u = 0; u < M.n; u++)
		if (M.loc[M.used[u]].n > 1)
			arm_add(&k, arm_loc_name(&M.loc[M.used[u]]));
	for (int c = 0; c < rt.n; c++)
		arm_add(&k, arm_ctx_name(&rt.ctx[c]));
	return k;
}

bool txp_rt_cas_fails(const volatile void *addr, bool would_succeed, const char *what)
{
	bool fails;

	if (!rt.me || rt.freerun || rt.mm != RT_ARM || !would_succeed)
		return false;
	fails = rt_model_branch(RT_BR_VALUE, 1, rt.me->id, addr);
	if (rt_tracing())
		trace_choice(fails);
	if (!fails)
		return false;
	rt_event(rt.me->id, "compare-exchange fails spuriously:", rt_target(what), NULL);
	return true;
}
