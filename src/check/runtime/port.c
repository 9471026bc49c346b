/*
 * port.c - the seam's scheduling points (src/sync/port.h), served by the
 * runtime (check build only).
 */
#include "check/runtime/rt.h"

/* What op orders for happens-before (race.c): full barriers both ways. */
static void race_fence(const struct rt_ctx *c, enum txp_rt_op op)
{
	bool full = op == TXP_OP_RMW || op == TXP_OP_FENCE || op == TXP_OP_ORDER;

	if (full || op == TXP_OP_RMB || op == TXP_OP_WMB)
		rt_race_fence(c->id, op != TXP_OP_WMB, op != TXP_OP_RMB);
}

void txp_rt_point(enum txp_rt_op op, const volatile void *addr, size_t size)
{
	rt_plain_settle(rt.me);
	rt_beat();
	rt_watch_point(addr, size);
	if (!rt.me || rt.freerun)
		return;
	if (op == TXP_OP_LOAD || rt_op_rmw(op))
		rt_note_read(rt.me, addr, size);
	rt.me->ran_at = rt.steps;
	if (++rt.steps > rt.max_steps) {
		rt_stop(RT_STEP_LIMIT);
		rt_run_on(-1);	/* never resumed: the context is abandoned */
	}
	if (rt.plan->policy && rt.plan->policy->step)
		rt.plan->policy->step(rt.plan->policy, rt.steps);
	rt_reschedule();
	/* The operation begins the context's next step. */
	if (rt_tracing() && (op == TXP_OP_LOAD || rt_op_rmw(op)))
		trace_read(addr);
	race_fence(rt.me, op);
	if (rt.mm == RT_ARM)
		rt_arm_order(rt.me, op, addr, size);
	else if (op == TXP_OP_FENCE || rt_op_rmw(op))
		rt_drain(rt.me);	/* TXP_OP_ORDER: nothing under sc and tso */
	/* The load follows at once: what it sees of the word is now. */
	if (op == TXP_OP_LOAD)
		rt_watch_load(addr);
}

void txp_rt_wrote(const volatile void *addr)
{
	if (rt_tracing())
		trace_write(addr);
	rt_arm_landed(rt.me, addr);
	rt_wake_readers(addr, rt.me);
}

bool txp_rt_load(const volatile void *addr, size_t size, bool acquire, const char *what,
		 uint64_t *v)
{
	if (!txp_rt_forward(addr, size, v) &&
	    (!rt.me || rt.freerun || rt.mm != RT_ARM ||
	     !rt_arm_load(rt.me, addr, size, acquire, what, v)))
		return false;	/* memory's: the load's own (atomic) access tells race.c */
	rt_race_sync(rt.me->id, addr, true, false, acquire ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED);
	rt_race_access(rt.me->id, addr, size, RACE_MARKED, __builtin_return_address(0));
	return true;
}
