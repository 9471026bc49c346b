/*
 * wait.c - what a context read, so that one that spins waits for a write
 * instead (check build only).
 */
#include "check/runtime/rt.h"

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
void rt_wake_readers(const volatile void *addr, const struct rt_ctx *writer)
{
	rt_watch_landed(addr, writer);
	for (int i = 0; i < rt.n; i++) {
		struct rt_ctx *c = &rt.ctx[i];
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
			c->ran_at = rt.steps;
		}
	}
}

void rt_forget(struct readset *rs)
{
	rs->n = 0;
	rs->all = false;
	rs->dirty = false;
}

static void readset_add(struct readset *rs, const struct rt_ctx *c,
			const volatile void *addr, size_t size)
{
	for (int r = 0; r < rs->n; r++)
		if (rs->r[r].addr == addr)
			return;
	if (rs->n < RT_READS)
		rs->r[rs->n++] = (struct readrec){ addr, size, rt_seen_value(c, addr, size) };
	else
		rs->all = true;
}

void rt_note_read(struct rt_ctx *c, const volatile void *addr, size_t size)
{
	readset_add(&c->iter, c, addr, size);
	readset_add(&c->spin, c, addr, size);
}

/* Did anything in rs change since it was read, by c's own hand included?
 * Waiting would then be wrong: c's next attempt can do something new. */
static bool reads_changed(const struct rt_ctx *c, const struct readset *rs)
{
	if (rs->dirty || rs->all)
		return rs->dirty;
	for (int r = 0; r < rs->n; r++)
		if (rt_seen_value(c, rs->r[r].addr, rs->r[r].size) != rs->r[r].value)
			return true;
	return false;
}

/* The test of a wait reads all it judges: a write of any of it orders. */
static void trace_reads(const struct readset *rs)
{
	if (rs->all)
		trace_all();
	for (int r = 0; r < rs->n; r++) {
		trace_read(rs->r[r].addr);
		trace_read((const volatile char *)rs->r[r].addr + rs->r[r].size - 1);
	}
}

/* Nothing to do until something read changes: let the others run. */
void rt_wait(enum rt_ctx_state why)
{
	rt_plain_settle(rt.me);
	if (rt.freerun) {
		if (rt.me)
			rt_run_on(-1);
		else
			rt_run_round();
		return;
	}
	if (!rt.me)
		return;
	if (rt_tracing())
		trace_reads(why == SC_IDLE ? &rt.me->iter : &rt.me->spin);
	if (!reads_changed(rt.me, why == SC_IDLE ? &rt.me->iter : &rt.me->spin)) {
		rt.me->state = why;
		rt_reschedule();
	}
	rt_forget(&rt.me->spin);
	if (why == SC_IDLE)
		rt_forget(&rt.me->iter);
}

void txp_rt_spin(void)
{
	rt_wait(SC_SPIN);
}

void txp_rt_idle(void)
{
	rt_wait(SC_IDLE);
}
