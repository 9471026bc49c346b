/*
 * spin.c - the runtime's monitor (check build only): a thread beside the
 * explorer's that notices when nothing has reached a scheduling point for
 * a while.  A context that loops on plain memory (a driver's `while
 * (!ready) cpu_relax();` on a field written without the seam) is never
 * preempted: every other context waits on it, and so does a stop, which
 * the explorer takes between schedules.  The monitor tells whoever
 * started it, which ends the program.
 *
 * It counts the time between its looks, each at most SPIN_GAP_NS
 * (txp_awake_ns()): the explorer's thread, stopped with the process,
 * reached no point in that time for no fault of its own.  A context
 * blocked in a call (a driver's sleep()) still ends the search, as the
 * monitor goes on looking meanwhile.
 */
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "check/runtime/rt.h"
#include "sync/sync.h"

#define SPIN_POLL_NS 20000000L		/* the monitor looks every 20 ms */
#define SPIN_ASKED_NS 1000000000ull	/* stuck this long with a stop asked */
#define SPIN_GAP_NS 200000000ull	/* the most one look counts */

/* Beats of the explorer's thread, its only writer: one per scheduling
 * point, free run or not. */
static _Atomic uint64_t beats;	/* relaxed: a count, publishing nothing */
static uint64_t beats_mine;
/* Is a context running, not the controller?  Only a context can spin:
 * the controller's own work between schedules (the visited table grown
 * and rehashed, a result written) may take long, and is no livelock. */
static atomic_bool in_context;	/* relaxed, as beats */

void rt_beat(void)
{
	atomic_store_explicit(&beats, ++beats_mine, memory_order_relaxed);
}

void rt_beat_switch(bool to_context)
{
	atomic_store_explicit(&in_context, to_context, memory_order_relaxed);
	rt_beat();
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *monitor_main(void *arg)
{
	struct rt_monitor *m = arg;
	uint64_t last = atomic_load_explicit(&beats, memory_order_relaxed), prev = now_ns(), quiet = 0;
	const struct timespec poll = { 0, SPIN_POLL_NS };
	sigset_t none;

	/* The explorer's thread holds asynchronous signals while contexts
	 * run (ctx.c); this one takes them, so that a stop is seen even
	 * while a context never comes back. */
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);

	/* Acquire: pairs with the release in rt_monitor_stop(). */
	while (atomic_load_explicit(&m->on, memory_order_acquire)) {
		uint64_t b, gap;
		bool asked;

		nanosleep(&poll, NULL);
		gap = txp_awake_ns(&prev, now_ns(), SPIN_GAP_NS);
		b = atomic_load_explicit(&beats, memory_order_relaxed);
		if (b != last || !atomic_load_explicit(&in_context, memory_order_relaxed)) {
			last = b;
			quiet = 0;
			continue;
		}
		quiet += gap;
		asked = m->asked && m->asked(m->arg);
		if ((asked && quiet >= SPIN_ASKED_NS) || quiet >= m->quiet_ns)
			m->stuck(m->arg, asked, (double)quiet / 1e9);
	}
	return NULL;
}

int rt_monitor_start(struct rt_monitor *m)
{
	atomic_init(&m->on, true);
	return pthread_create(&m->thread, NULL, monitor_main, m);
}

void rt_monitor_stop(struct rt_monitor *m)
{
	atomic_store_explicit(&m->on, false, memory_order_release);
	pthread_join(m->thread, NULL);
}
