/*
 * events.c - what the diagrams draw (check build only): the seam's events
 * and lock traffic, told by its observers, and the runtime's own.
 */
#include <string.h>

#include "check/runtime/rt.h"

/* The events of the execution, in order. */
static struct {
	struct rt_event *ev;
	unsigned nev, evcap;
} E;

void rt_event(int ctx, const char *what, const char *arg, const char *site)
{
	if (E.nev == E.evcap)
		E.ev = rt_grow(E.ev, &E.evcap, sizeof(*E.ev));
	E.ev[E.nev++] = (struct rt_event){ ctx, what, arg, site };
}

/* A target as written, without its '&', for the diagrams. */
const char *rt_target(const char *what)
{
	return what && what[0] == '&' ? what + 1 : what;
}

/* The running context's event (none in a free run). */
static void draw(const char *what, const char *arg, const char *site)
{
	if (rt.me && !rt.freerun)
		rt_event(rt.me->id, what, arg, site);
}

/* An event of the seam's (txp_event_at()): drawn in the diagram. */
static void draw_event(const char *what, const char *site)
{
	draw(what, NULL, site);
}

/*
 * Lock traffic in the seeds' words ("acquire queue lock", "drop queue
 * lock"), or, for a lock named as written ("&tp->tx_lock", as
 * spin_lock_init names it), in the kernel's, with the caller's function.
 */
static bool kernel_named(const struct txp_spinlock *l)
{
	return l->name && l->name[0] == '&';
}

static void draw_acquired(const struct txp_spinlock *l, const char *site)
{
	if (kernel_named(l))
		draw("spin_lock", l->name, site);
	else
		draw("acquire", l->name, NULL);
}

/* After the unlock's store: a context the release lets in is drawn after it. */
static void draw_released(const struct txp_spinlock *l, const char *site)
{
	if (kernel_named(l))
		draw("spin_unlock", l->name, site);
	else
		draw(l->name && !strcmp(l->name, "queue lock") ? "drop" : "release", l->name, NULL);
}

static struct txp_sync_observer diagram_observer = {
	.order = TXP_OBSERVE_DIAGRAM,
	.lock_acquired = draw_acquired,
	.lock_released = draw_released,
	.event = draw_event,
};

void rt_events_begin(void)
{
	/* Once: it stays for every later execution. */
	txp_sync_observe(&diagram_observer);
	E.nev = 0;
}

const struct rt_event *rt_events(unsigned *n)
{
	*n = E.nev;
	return E.ev;
}
