/*
 * counters.c - single-writer counters (check build only): a second context writing
 * one is a violation.
 */
#include "check/runtime/rt.h"

/* -- single-writer counters ------------------------------------------------ */

/*
 * Each single-writer counter (txp_counter_add) seen in an execution, with
 * the context that first wrote it: a seam context id, as the per-context
 * counters are indexed, so that an id handed on from an ended context to
 * a new one (ordered by the seam's id allocation) is the same writer.
 * Entries of older executions are stale by their generation.  The first
 * second writer of an execution is kept for the explorer.
 */
#define RT_COUNTERS 1024	/* a power of two */

struct counter_rec {
	const volatile void *addr;
	unsigned gen;
	int owner;		/* seam context id of the writer */
	int rt_id;		/* its scheduler context, for the message */
};

static struct {
	struct counter_rec r[RT_COUNTERS];
	unsigned gen, n;
	bool conflict;
	const char *what;
	int first, second;	/* scheduler contexts */
} K;

static struct counter_rec *counter_slot(const volatile void *addr)
{
	uint64_t h = (uint64_t)(uintptr_t)addr * 0x9e3779b97f4a7c15ull;

	for (unsigned i = (unsigned)(h >> 54), k = 0; k < RT_COUNTERS; k++, i++) {
		struct counter_rec *c = &K.r[i % RT_COUNTERS];

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
	if (!rt.me || rt.freerun || K.n >= RT_COUNTERS / 2)
		return;
	self = txp_ctx_self();
	c = counter_slot(addr);
	if (!c)
		return;
	if (c->gen != K.gen) {
		*c = (struct counter_rec){ addr, K.gen, self, rt.me->id };
		K.n++;
	} else if (c->owner != self && !K.conflict) {
		K.conflict = true;
		K.what = what;
		K.first = c->rt_id;
		K.second = rt.me->id;
	}
}

void rt_counters_reset(void)
{
	K.gen++;
	K.n = 0;
	K.conflict = false;
}

bool rt_counter_conflict(char *buf, size_t len)
{
	if (K.conflict)
		snprintf(buf, len, "single-writer counter %s written by %s and by %s "
			 "(txp_counter_add loses increments: use txp_counter_add_shared)",
			 K.what[0] == '&' ? K.what + 1 : K.what, rt_ctx_name(K.first),
			 rt_ctx_name(K.second));
	return K.conflict;
}
