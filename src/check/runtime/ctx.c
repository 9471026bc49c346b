/*
 * ctx.c - contexts as fibers of one thread (check build only): starting,
 * switching with their TXP_LOCAL state, ending; the controller's side of
 * an execution (begin, run, release, finish).
 *
 * Every context is a fiber of the calling thread (fiber.c), so only one
 * runs at a time and an execution is a pure function of the choices made
 * at its branch points.  Control goes from a context back to the
 * controller (the thread's own stack, running rt_run()), which runs
 * the next.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>

#include "check/runtime/fiber.h"
#include "check/runtime/rt.h"

struct rt rt = { .current = -1 };
_Thread_local bool rt_thread;

/* The fibers, their stacks kept from one execution to the next. */
static struct fiber fibers[RT_MAX_CTX];
static struct fiber controller;
static unsigned char *controller_locals;
static size_t locals_bytes;	/* all the TXP_LOCAL variables together */

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
void rt_run_on(int id)
{
	struct rt_ctx *from = rt.me;

	locals_save(from ? from->locals : controller_locals);
	rt.me = id >= 0 ? &rt.ctx[id] : NULL;
	locals_load(rt.me ? rt.me->locals : controller_locals);
	rt_beat_switch(rt.me != NULL);
	fiber_switch(from ? &fibers[from->id] : &controller, rt.me ? &fibers[id] : &controller,
		     from && from->state == SC_DONE);
}

/* Freerun: give every context that has not ended a turn, until it waits
 * or ends.  The controller only. */
void rt_run_round(void)
{
	for (int i = 0; i < rt.n; i++)
		if (rt.ctx[i].state != SC_DONE && !rt.ctx[i].abandoned)
			rt_run_on(i);
}

/* -- contexts ------------------------------------------------------------ */

static void ctx_exit(void)
{
	txp_ctx_detach();
	rt_plain_settle(rt.me);	/* what a thread's exit would do */
	/* Stores still buffered: others may run, and any of them land,
	 * before the exit drains them (tso, arm). */
	if (rt.me->nbuf && !rt.freerun && !rt.stopped)
		rt_reschedule();
	rt_drain(rt.me);
	rt.me->state = SC_DONE;
	if (rt_tracing())
		trace_write(&rt.me->state);
	rt_wake_readers(&rt.me->state, rt.me);
	if (!rt.freerun && !rt.stopped)
		rt_reschedule();
	rt_run_on(-1);	/* never resumed */
}

static void ctx_main(void)
{
	rt.me->fn(rt.me->arg);
	ctx_exit();
}

static int spawn(const char *name, void *(*fn)(void *), void *arg)
{
	struct rt_ctx *c;

	if (rt.n == RT_MAX_CTX)
		return -1;
	c = &rt.ctx[rt.n];
	if (!c->locals)
		c->locals = locals_alloc();
	memset(c->locals, 0, locals_bytes);
	if (fiber_prepare(&fibers[rt.n], ctx_main) != 0)
		return -1;
	c->id = rt.n;
	c->stack_lo = fibers[rt.n].stack;
	c->stack_hi = c->stack_lo + fibers[rt.n].stack_size;
	c->plain_wrote = NULL;
	c->racy = 0;
	rt_race_spawn(rt.me && !rt.freerun ? rt.me->id : -1, rt.n);
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "thread");
	c->state = SC_RUNNABLE;
	rt_forget(&c->iter);
	rt_forget(&c->spin);
	c->nbuf = 0;
	/* Starting a thread orders what its starter did before. */
	c->wepoch = 0;
	c->floor = c->lastread = rt_arm_clock();
	c->fn = fn;
	c->arg = arg;
	c->abandoned = false;
	c->ran_at = rt.steps;
	return rt.n++;
}

/*
 * Only the explorer's contexts: outside an exploration the check build
 * has no threads, since its per-context state (TXP_LOCAL) is switched by
 * the explorer, not kept per thread.
 */
int txp_rt_thread_start(struct txp_thread *t, const char *name, void *(*fn)(void *), void *arg)
{
	int id;

	if (!rt.armed || rt.freerun)
		return EPERM;
	/* A context started by another: ordered with everything. */
	if (rt_tracing())
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
	struct rt_ctx *c = t->ctx >= 0 && t->ctx < rt.n ? &rt.ctx[t->ctx] : NULL;

	/* Waiting for a context to end is waiting as for a lock. */
	for (;;) {
		if (c && rt_tracing())
			trace_read(&c->state);
		if (!c || c->state == SC_DONE || c->abandoned)
			break;
		if (rt.me && !rt.freerun)
			rt_note_read(rt.me, &c->state, sizeof(c->state));
		rt_wait(SC_SPIN);
	}
	/* Joining orders what the ended context did (it drained at exit). */
	if (rt.me) {
		rt.me->floor = rt_arm_clock();
		if (c && !rt.freerun)
			rt_race_join(rt.me->id, c->id);
	}
}

int rt_spawn(const char *name, void *(*fn)(void *), void *arg)
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

void rt_begin(const struct rt_plan *plan, enum rt_mm mm, unsigned max_steps)
{
	if (!controller_locals) {
		for (const struct txp_local_var *l = __start_txp_locals; l < __stop_txp_locals; l++)
			locals_bytes += l->size;
		fiber_init_thread(&controller);
		controller_locals = locals_alloc();
	}
	signals_hold();
	rt_thread = true;
	rt.armed = true;
	rt.stopped = rt.freerun = false;
	rt.tracing = plan->trace;
	rt.fair = rt.told_apart = 0;
	rt.cut = rt.pending = rt.want_fp = UINT_MAX;
	trace_reset();
	rt.mm = mm;
	rt.current = -1;
	rt.n = 0;
	rt.stuck = -1;
	rt.steps = rt.preemptions = 0;
	rt.max_steps = max_steps;
	rt.plan = plan;
	if (plan->policy)
		plan->policy->begin(plan->policy);
	rt.nbr = 0;
	rt_events_begin();
	rt_watch_reset();
	rt_counters_reset();
	rt_arm_reset();
	rt_race_reset();
}

enum rt_end rt_run(void)
{
	rt_reschedule();
	while (!rt.stopped)
		rt_run_on(rt.current);
	for (int i = 0; i < rt.n; i++)
		rt_drain(&rt.ctx[i]);
	rt_check_pending();
	return rt.end;
}

/* Contexts that have not ended are never resumed: stuck ones, or ones
 * that never started; their context ids go back. */
static void abandon_unfinished(void)
{
	locals_save(controller_locals);
	for (int i = 0; i < rt.n; i++)
		if (rt.ctx[i].state != SC_DONE && !rt.ctx[i].abandoned) {
			rt.ctx[i].abandoned = true;
			locals_load(rt.ctx[i].locals);
			txp_ctx_detach();
		}
	locals_load(controller_locals);
}

void rt_release(void)
{
	rt.freerun = true;
	if (rt.end != RT_QUIESCENT)
		abandon_unfinished();
}

void rt_finish(void)
{
	/* After a scenario that failed to set up, its contexts never ran:
	 * joining them must not wait. */
	abandon_unfinished();
	rt.armed = false;
	signals_release();
}

unsigned rt_steps(void)
{
	return rt.steps;
}

int rt_nctx(void)
{
	return rt.n;
}

const char *rt_ctx_name(int id)
{
	return id >= 0 && id < rt.n ? rt.ctx[id].name : "?";
}

int rt_stuck_ctx(void)
{
	return rt.stuck;
}

int rt_current(void)
{
	return rt.me && !rt.freerun ? rt.me->id : -1;
}
