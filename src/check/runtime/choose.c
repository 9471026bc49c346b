/*
 * choose.c - branch points (check build only): who runs next, or which buffered
 * store lands; the plan's prefix, then its policy, else the default; the
 * reduction's naming of each state (trace.h) and its cut.
 */
#include <limits.h>

#include "check/runtime/rt.h"

static void push_branch(const struct rt_branch *b)
{
	if (rt.nbr == rt.brcap)
		rt.br = rt_grow(rt.br, &rt.brcap, sizeof(*rt.br));
	rt.br[rt.nbr++] = *b;
}

/* With the trace, from the prefix's last branch on: the footprint of the
 * step chosen at the branch just pushed is kept as it ends (rt_reschedule()). */
static void want_fp(void)
{
	const struct rt_plan *p = rt.plan;
	unsigned i = rt.nbr - 1;

	if (!rt.tracing || !p->explored || i + 1 < p->nprefix)
		return;
	if (rt.nbr > rt.fpcap)
		rt.fp = rt_grow(rt.fp, &rt.fpcap, sizeof(*rt.fp));
	rt.fp[i].n = TRACE_FP_UNKNOWN;
	if (rt.br[i].chosen < RT_FLUSH)
		rt.want_fp = i;
}

/* -- choosing ------------------------------------------------------------- */

static int lowest(unsigned mask)
{
	return __builtin_ctz(mask);
}

bool rt_branch_legal(const struct rt_branch *b, int a)
{
	if (a >= RT_FLUSH && a < RT_FLUSH + RT_MAX_CTX)
		return b->flushable & (1u << (a - RT_FLUSH));
	return a >= 0 && a < RT_MAX_CTX && (b->enabled & (1u << a));
}

unsigned rt_branch_nactions(const struct rt_branch *b)
{
	return (unsigned)(__builtin_popcount(b->enabled) + __builtin_popcount(b->flushable));
}

int rt_branch_action(const struct rt_branch *b, unsigned k)
{
	for (int i = 0; i < RT_MAX_CTX; i++)
		if ((b->enabled & (1u << i)) && k-- == 0)
			return i;
	for (int i = 0; i < RT_MAX_CTX; i++)
		if ((b->flushable & (1u << i)) && k-- == 0)
			return RT_FLUSH + i;
	return lowest(b->enabled);
}

/* The plan's action at branch number index: its prefix, then its policy,
 * else (or where that is not an action of b) the default. */
static int choose(const struct rt_branch *b, unsigned index)
{
	const struct rt_plan *p = rt.plan;
	int a = -1;

	if (index < p->nprefix)
		a = p->prefix[index];
	else if (p->policy)
		a = p->policy->choose(p->policy, b, index);
	if (a < 0 || !rt_branch_legal(b, a))
		a = b->cur >= 0 ? b->cur : lowest(b->enabled);
	return a;
}

void rt_stop(enum rt_end end)
{
	rt.stopped = true;
	rt.end = end;
	rt.current = -1;
}

/* Why nobody can run. */
static enum rt_end why_stuck(void)
{
	for (int i = 0; i < rt.n; i++)
		if (rt.ctx[i].state == SC_SPIN) {
			rt.stuck = i;
			return RT_DEADLOCK;
		}
	return RT_QUIESCENT;
}

/* A branch point of the arm model for the running context: alternative
 * 0 (the default) or 1..nalt.  Value branches cost a preemption; store
 * picks belong to the flush before them, the branch last pushed. */
unsigned rt_model_branch(enum rt_branch_kind kind, unsigned nalt, int ctx,
			 const volatile void *addr)
{
	struct rt_branch b = {
		.flushing = -1,
		.enabled = (uint16_t)(1u << ctx),
		.flushable = (uint16_t)((1u << (nalt < RT_MAX_CTX ? nalt : RT_MAX_CTX)) - 1),
		.cur = (int8_t)ctx,
		.preempt = kind == RT_BR_STORE ? rt.br[rt.nbr - 1].preempt : (uint16_t)rt.preemptions,
		.kind = (uint8_t)kind,
		.addr = addr,
	};

	b.chosen = (int8_t)choose(&b, rt.nbr);
	push_branch(&b);
	if (b.chosen < RT_FLUSH)
		return 0;
	if (kind == RT_BR_VALUE)
		rt.preemptions++;
	return (unsigned)(b.chosen - RT_FLUSH) + 1;
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
	unsigned wait = rt.max_steps / 2;
	int who = -1;

	for (int i = 0; i < rt.n; i++)
		if ((enabled & (1u << i)) && &rt.ctx[i] != rt.me && rt.steps - rt.ctx[i].ran_at > wait &&
		    (who < 0 || rt.ctx[i].ran_at < rt.ctx[who].ran_at))
			who = i;
	return who;
}

/* A landing that is a step of its own (tso, arm): the store-buffer
 * actor's; under arm, which of the buffer's stores (k) is its choice. */
static void flush_step(struct rt_ctx *c, int k)
{
	rt_flush_at(c, k);
	if (rt.tracing && !rt.freerun) {
		if (rt.mm == RT_ARM)
			trace_choice((unsigned)k);
		trace_step_end(RT_FLUSH + c->id);
	}
}

/* The branch point's name for the search's reduction: the trace so far
 * (who is running, b->cur, prices the choices from it) and, under arm,
 * the model's state, which the trace does not tell (rt_arm_key()). */
static void branch_key(struct rt_branch *b)
{
	struct trace_key k = trace_key(b->cur);

	if (rt.mm == RT_ARM) {
		struct trace_key m = rt_arm_key();

		k.a += m.a;
		k.b += m.b;
	}
	b->key_a = k.a;
	b->key_b = k.b;
	b->key_cur = k.cur;
}

/* Was the state at the pending branch explored already?  Then the
 * execution is cut there: the trace stops, the rest being the default tail
 * of a state explored in full. */
void rt_check_pending(void)
{
	const struct rt_plan *p = rt.plan;

	if (rt.pending == UINT_MAX)
		return;
	if (!p->uncut && p->explored(&rt.br[rt.pending], p->explored_arg)) {
		rt.cut = rt.pending;
		rt.tracing = false;
	}
	rt.pending = UINT_MAX;
}

/* The contexts b may run whose expected step leads to a state explored
 * already: b->asleep.  Running another costs a preemption if the running
 * one could go on; who runs there is not known: priced as if any could.
 * None under arm: what a step does to the model's state (its loads'
 * choices, the floors it takes) is not known without running it. */
static void predict(struct rt_branch *b)
{
	const struct rt_plan *p = rt.plan;

	if (rt.mm == RT_ARM)
		return;

	for (unsigned m = b->enabled; m; m &= m - 1) {
		int c = __builtin_ctz(m);
		struct rt_branch to = { .kind = RT_BR_RUN, .cur = -1, .key_cur = -1, .flushing = -1,
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
static void name_branch(struct rt_branch *b)
{
	const struct rt_plan *p = rt.plan;

	branch_key(b);
	rt_check_pending();
	if (rt.tracing && rt.nbr >= p->nprefix && p->explored) {
		rt.pending = rt.nbr;
		if (p->named)
			p->named(b, p->explored_arg);
		predict(b);
	}
}

/*
 * Choose who runs next (the running context too, if it can go on),
 * flushing buffered stores where the plan says so.  A context that is not
 * chosen goes back to the controller, which runs the chosen one; it
 * returns when it is chosen again.
 *
 * A landing chosen early is a preemption, and so is a run of landings of
 * one context's stores with no step between them (b.flushing): one
 * interruption of the running context, however many of that buffer's
 * stores land meanwhile.  Priced one each, a store behind two older ones
 * cost three to land (a doorbell behind a lock's release and the ring's
 * index: kernel_style's KS_NO_WAKE_MB stall took four preemptions, two
 * now).  Only the price changes: the landings are still chosen one at a
 * time, so no schedule is lost and none the model forbids is added.
 */
void rt_reschedule(void)
{
	int flushing = -1;	/* the context whose store the last branch landed */

	/* Every scheduling point ends the running context's step. */
	if (rt_tracing()) {
		if (rt.want_fp != UINT_MAX) {
			trace_step_fp(&rt.fp[rt.want_fp]);
			rt.want_fp = UINT_MAX;
		}
		trace_step_end(rt.me->id);
	}
	for (;;) {
		unsigned enabled = 0, flushable = 0;
		struct rt_branch b;

		for (int i = 0; i < rt.n; i++) {
			if (rt.ctx[i].state == SC_RUNNABLE)
				enabled |= 1u << i;
			if (rt.ctx[i].nbuf)
				flushable |= 1u << i;
		}
		if (!enabled) {
			if (flushable) {
				if (rt.tracing && trace_default_tells_apart(flushable))
					rt.told_apart++;
				flush_step(&rt.ctx[lowest(flushable)], 0);
				flushing = -1;
				continue;
			}
			rt_stop(why_stuck());
			break;
		}
		b = (struct rt_branch){
			.enabled = (uint16_t)enabled,
			.flushable = (uint16_t)flushable,
			.cur = (int8_t)(rt.me && rt.me->state == SC_RUNNABLE ? rt.me->id : -1),
			.preempt = (uint16_t)rt.preemptions,
			.flushing = (int8_t)flushing,
		};
		/* A single action is no branch, nor is a fair switch. */
		if (!flushable && !(enabled & (enabled - 1))) {
			rt.current = lowest(enabled);
			break;
		}
		if ((rt.current = starved(enabled)) >= 0) {
			rt_event(rt.current, "runs, starved: fair switch", NULL, NULL);
			rt.fair++;
			break;
		}
		if (rt.tracing)
			name_branch(&b);
		/* Past the cut, the default tail of an explored state: its
		 * branches are not kept, nothing below them is left to try. */
		if (rt.cut < rt.nbr) {
			rt.current = b.cur >= 0 ? b.cur : lowest(enabled);
			break;
		}
		b.chosen = (int8_t)choose(&b, rt.nbr);
		push_branch(&b);
		if (rt.tracing && rt.nbr <= rt.plan->nprefix && rt.plan->expect)
			rt.plan->expect(rt.nbr - 1, rt.plan->explored_arg);
		want_fp();
		if (b.chosen >= RT_FLUSH ? b.chosen != RT_FLUSH + b.flushing
					 : b.cur >= 0 && b.chosen != b.cur)
			rt.preemptions++;
		if (b.chosen >= RT_FLUSH) {
			struct rt_ctx *c = &rt.ctx[b.chosen - RT_FLUSH];
			int k = rt.mm == RT_ARM ? rt_arm_pick_store(c) : 0;

			/* A choice of the plan: drawn, as the store it was. */
			rt_event(c->id, "store reaches memory:", rt_target(c->buf[k].what), NULL);
			flush_step(c, k);
			flushing = c->id;
			continue;
		}
		rt.current = b.chosen;
		break;
	}
	if (rt.me && rt.current != rt.me->id)
		rt_run_on(-1);
}

const struct rt_branch *rt_branches(unsigned *n)
{
	*n = rt.nbr;
	return rt.br;
}

unsigned rt_fair_switches(void)
{
	return rt.fair;
}

unsigned rt_told_apart(void)
{
	return rt.told_apart;
}

unsigned rt_cut(void)
{
	return rt.cut < rt.nbr ? rt.cut : rt.nbr;
}

const struct trace_fp *rt_branch_fp(unsigned i)
{
	static const struct trace_fp unknown = { .n = TRACE_FP_UNKNOWN };
	const struct rt_plan *p = rt.plan;

	return p && p->explored && i + 1 >= p->nprefix && i < rt_cut() && i < rt.fpcap ? &rt.fp[i]
											  : &unknown;
}

unsigned rt_preemptions(void)
{
	return rt.preemptions;
}
