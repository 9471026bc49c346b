/*
 * plain.c - the checked code's own loads and stores (check build only).
 *
 * The check build's library and the plugins it checks are compiled with
 * ThreadSanitizer's instrumentation (CMakeLists.txt, txpath config
 * --cflags): before each load and store the code calls
 * __tsan_readN/__tsan_writeN (its atomics __tsan_atomicN_*, its volatile
 * accesses __tsan_volatile_*), and these are the calls
 * (plugin/tsan_abi.h), served here instead of by libtsan.  Only the explored
 * contexts' accesses count: the controller's (set-up, tear-down) and a
 * free run's return at once.
 *
 * An access that is not one of the seam's operations is no scheduling
 * point; it reads and writes memory as it stands, and keeps what the
 * memory model asks of one word (coherence): before it, its context's
 * buffered stores up to the newest to the same bytes land, in program
 * order (allowed under tso and arm), so that a load reads its own newest
 * store and a store is not overwritten by an older one; under arm, it
 * reads or overwrites the newest write of a word whose writes arm.c
 * keeps, so that the context never reads an older one after it.
 *
 * A plain store is not held back behind the context's buffered stores
 * to other words: another context can tell when it became visible only
 * by reading it unordered with it, a data race, which race.c reports in
 * that same execution.  For race-free code this is the model's behaviour
 * exactly; draining the buffer at every plain store (tso's order taken
 * literally) would lose store buffering to every statistic and local.
 * A plain store wakes contexts that wait on what it changed, once it is
 * made (rt_plain_settle()).  Every access is told to the data-race
 * detector (race.c), atomics with their order.
 *
 * What the C library orders or reuses, which the instrumentation does not
 * see, is told to race.c here too: pthread_once() orders its caller after
 * the call that ran the routine, and free() forgets the accesses of what
 * it frees (its next owner's are new ones).
 *
 * Only where the check build is instrumented (TXP_CHECK_PLAIN; not under
 * the sanitizers, which own these calls and free()).
 */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>

#include "check/runtime/rt.h"
#include "plugin/tsan_abi.h"
#include "sync/sync.h"

void rt_plain_settle_slow(struct rt_ctx *c)
{
	const volatile void *addr = c->plain_wrote;

	c->plain_wrote = NULL;
	if (rt.mm == RT_ARM)
		rt_arm_landed(c, addr);
	for (int i = 0; i < rt.n; i++)
		if (rt.ctx[i].state == SC_SPIN || rt.ctx[i].state == SC_IDLE) {
			rt_wake_readers(addr, c);
			break;
		}
}

#ifdef TXP_CHECK_PLAIN
static bool (*point_at)(const void *pc);
#endif

#ifdef TXP_CHECK_PLAIN
static unsigned objects;	/* instrumented objects whose constructors ran */
#endif

unsigned rt_plain_objects(void)
{
#ifdef TXP_CHECK_PLAIN
	return objects;
#else
	return 0;
#endif
}

bool rt_plain_seen(void)
{
#ifdef TXP_CHECK_PLAIN
	return true;
#else
	return false;
#endif
}

void rt_plain_points(bool (*chosen)(const void *pc))
{
#ifdef TXP_CHECK_PLAIN
	point_at = chosen;
#else
	(void)chosen;
#endif
}

void txp_rt_data_race(bool enter)
{
	if (!rt.me || rt.freerun)
		return;
	if (enter)
		rt.me->racy++;
	else if (rt.me->racy)
		rt.me->racy--;
}

#ifdef TXP_CHECK_PLAIN

/* The TXP_LOCAL variables (sync.h): per context, switched by the runtime
 * (ctx.c), so never shared. */
extern char __start_txp_local_vars[], __stop_txp_local_vars[];

static bool context_local(uintptr_t a)
{
	return a - (uintptr_t)__start_txp_local_vars <
	       (uintptr_t)(__stop_txp_local_vars - __start_txp_local_vars);
}

/* Is a c's alone: its own stack or its per-CPU variables? */
static bool private_to(const struct rt_ctx *c, uintptr_t a)
{
	return a - (uintptr_t)c->stack_lo < (uintptr_t)(c->stack_hi - c->stack_lo) ||
	       context_local(a);
}

/* An access of the running context c (not the controller's). */
static void access(struct rt_ctx *c, const volatile void *addr, size_t size, unsigned flags,
		   const void *pc)
{
	uintptr_t a = (uintptr_t)addr;

	rt_plain_settle(c);
	/* Its buffered stores up to the newest to these bytes land
	 * (coherence). */
	if (c->nbuf)
		rt_land_meeting(c, addr, size);
	/* arm: it reads or overwrites the newest write (coherence). */
	if (rt.mm == RT_ARM)
		rt_arm_landed(c, addr);
	/* Its own stack, its per-CPU variables, and (data_race()) what is
	 * meant to race: nothing for the race detector, as KCSAN. */
	if (private_to(c, a) || c->racy)
		return;
	rt_race_access(c->id, addr, size, flags, pc);
}

/* The calls of the instrumented code, each with its caller's address.
 * Early out when no explored context runs. */
#define RUNNING() (txp_unlikely(rt.me != NULL) && rt_thread && !rt.freerun)

static void plain(const volatile void *addr, size_t size, unsigned flags, const void *pc)
{
	if (!RUNNING())
		return;
	/* No other context sees what is the running one's alone: no point.
	 * (Its stack, besides, is rewritten by what the instrumentation
	 * does not see, calls' return addresses: noted as read, a word of
	 * it would seem to change under a polling loop that waits.) */
	if (point_at && point_at(pc) && !private_to(rt.me, (uintptr_t)addr))
		txp_rt_point(flags & RACE_WRITE ? TXP_OP_STORE : TXP_OP_LOAD, addr, size);
	access(rt.me, addr, size, flags, pc);
	if (flags & RACE_WRITE)
		rt.me->plain_wrote = addr;
}

/* An atomic access of size bytes at a, by the running context: what it
 * reads and writes (load, store) and its order; tsan_abi.h does it. */
static void atomic(const volatile void *addr, size_t size, bool load, bool store, int mo,
		   const void *pc)
{
	if (!RUNNING())
		return;
	access(rt.me, addr, size, (store ? RACE_WRITE : 0) | RACE_MARKED, pc);
	rt_race_sync(rt.me->id, addr, load, store, mo);
}

/* The seam's fences are its scheduling points (port.c orders them); a
 * fence of code outside the seam orders as one. */
static void fence(int mo)
{
	if (RUNNING())
		rt_race_fence(rt.me->id, mo != __ATOMIC_RELEASE, mo != __ATOMIC_ACQUIRE);
}

/* An instrumented object's constructor (the library's own, a plugin's
 * as it is loaded): counted, so that a plugin built without the
 * instrumentation can be told (txp_explore_plain_objects()). */
static void init(void)
{
	objects++;
}

_Static_assert(RACE_WRITE == TXP_TSAN_WRITE && RACE_MARKED == TXP_TSAN_MARKED,
	       "the race detector's flags are the ABI's");

TXP_TSAN_ABI(plain, atomic, fence, init)

/* -- the C library's -------------------------------------------------------- */

int pthread_once(pthread_once_t *once, void (*routine)(void))
{
	static int (*real)(pthread_once_t *, void (*)(void));
	int err;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_once");
	err = real(once, routine);
	if (RUNNING())
		rt_race_sync(rt.me->id, once, true, true, __ATOMIC_ACQ_REL);
	return err;
}

void __libc_free(void *p);

void free(void *p)
{
	if (p && RUNNING())
		rt_race_forget(p, malloc_usable_size(p));
	__libc_free(p);
}

#endif /* TXP_CHECK_PLAIN */
