/*
 * ownlock.c - a lock of the driver's own, built from C11 atomics (an
 * exchange to take it, a release store to drop it, cpu_relax() while it
 * is held), guarding a statistic start_xmit and the poll both update.
 * Correct code: the exchange is acquire, the store release.  Inside the
 * critical section a READ_ONCE of a knob, a scheduling point, so that the
 * other side can find the lock held.  -DOL_SEAM: the same lock through
 * txpath's seam (txp_atomic_xchg / smp_store_release), the reference.
 */
#include "txpath/linux.h"

struct probe {
	u32 lock __attribute__((aligned(8)));
	u32 stat __attribute__((aligned(8)));
	u32 knob __attribute__((aligned(8)));
};

#ifdef OL_SEAM
#define TAKE(l) ((u32)txp_atomic_xchg(l, sizeof(*(l)), 1, TXP_ACQUIRE))
#define DROP(l) smp_store_release(l, 0)
#else
#define TAKE(l) __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)
#define DROP(l) __atomic_store_n(l, 0, __ATOMIC_RELEASE)
#endif

static void own_lock(struct probe *p)
{
	while (TAKE(&p->lock))
		cpu_relax();
}

static void bump(struct probe *p, u32 by)
{
	own_lock(p);
	p->stat += by + READ_ONCE(p->knob);
	DROP(&p->lock);
}

static void probe_xmit(struct probe *p, u32 seq)
{
	bump(p, seq);
}

static void probe_poll(struct probe *p)
{
	bump(p, 1);
}

#define ADV_NAME "adv-ownlock"
#include "adv_plugin.h"
