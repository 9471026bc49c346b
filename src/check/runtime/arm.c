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
	uint32_t seen[RT_MAX_CTX];
};

static struct {
	unsigned gen, n;
	uint32_t clock;
	struct arm_loc loc[ARM_LOCS];
} M;

void rt_arm_reset(void)
{
	M.gen++;
	M.n = 0;
	M.clock = 0;
}

uint32_t rt_arm_clock(void)
{
	return M.clock;
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
			v = rt_raw_load(addr, l->size);
			if (l->val[l->n - 1] != v)
				arm_append(l, v);
			return l;
		}
		if (l->gen != M.gen) {
			if (!size || M.n >= ARM_LOCS / 2)
				return NULL;
			*l = (struct arm_loc){ .addr = addr, .size = size, .gen = M.gen, .n = 1,
					       .val = { rt_raw_load(addr, size) } };
			M.n++;
			return l;
		}
	}
	return NULL;
}

/* Before a write of addr lands: its history keeps what it overwrites. */
void rt_arm_before_write(const volatile void *addr, size_t size)
{
	if (rt.mm == RT_ARM && !rt.freerun)
		arm_loc(addr, size);
}

/* A write of c (NULL: the controller) reached addr: the newest write,
 * which its writer has seen. */
void rt_arm_landed(const struct rt_ctx *c, const volatile void *addr)
{
	struct arm_loc *l;

	if (rt.mm != RT_ARM || rt.freerun)
		return;
	l = arm_loc(addr, 0);
	if (l && c)
		l->seen[c->id] = l->ts[l->n - 1];
}

/* May store k of c land now?  Not past an older store to its location
 * (coherence), nor past an older store before a write barrier, nor, a
 * release, past any older store. */
static bool arm_landable(const struct rt_ctx *c, int k)
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

/* Which of c's stores lands, by the plan (RT_BR_STORE): its index. */
int rt_arm_pick_store(struct rt_ctx *c)
{
	int idx[RT_BUF], n = 0;

	for (int k = 0; k < c->nbuf; k++)
		if (arm_landable(c, k))
			idx[n++] = k;
	return n > 1 ? idx[rt_model_branch(RT_BR_STORE, (unsigned)n - 1, c->id, NULL)] : 0;
}

/* c's stores land up to and including its last one to addr. */
static void arm_flush_to(struct rt_ctx *c, const volatile void *addr)
{
	int last = -1;

	for (int k = 0; k < c->nbuf; k++)
		if (c->buf[k].addr == addr)
			last = k;
	while (last-- >= 0)
		rt_flush_one(c);
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
	struct arm_loc *l = arm_loc(addr, size);

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
		arm_flush_to(c, addr);
		break;
	case TXP_OP_RMW_ACQUIRE:
		arm_flush_to(c, addr);
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
	alt = n > 1 ? rt_model_branch(RT_BR_VALUE, (unsigned)n - 1, c->id, addr) : 0;
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

bool txp_rt_cas_fails(const volatile void *addr, bool would_succeed, const char *what)
{
	if (!rt.me || rt.freerun || rt.mm != RT_ARM || !would_succeed)
		return false;
	if (!rt_model_branch(RT_BR_VALUE, 1, rt.me->id, addr))
		return false;
	rt_event(rt.me->id, "compare-exchange fails spuriously:", rt_target(what), NULL);
	return true;
}
