/*
 * locks.c - a statistic start_xmit keeps under a lock of the probe's own,
 * and the poll's read of it: under the same lock (no race), without it
 * (a data race), through data_race() (meant: not reported), or with
 * WRITE_ONCE/READ_ONCE (marked: not reported), or WRITE_ONCE against a
 * plain read (one plain access: a data race), or with volatile accesses
 * (-DLK_VOLATILE: as READ_ONCE/WRITE_ONCE, marked: not reported).
 */
#include "txpath/linux.h"

struct probe {
	spinlock_t lock;
	u32 x __attribute__((aligned(8)));
	u32 inited;
};

static volatile u32 sink;

static void probe_xmit(struct probe *p, u32 seq)
{
	spin_lock(&p->lock);
#if defined(LK_ONCE) || defined(LK_ONCE_PLAIN_READ)
	WRITE_ONCE(p->x, p->x + seq);
#elif defined(LK_VOLATILE)	/* the kernel's ACCESS_ONCE(), as 2.6 drivers wrote it */
	*(volatile u32 *)&p->x = p->x + seq;
#else
	p->x += seq;
#endif
	spin_unlock(&p->lock);
}

static void probe_poll(struct probe *p)
{
#if defined(LK_LOCKED)
	spin_lock(&p->lock);
	sink = p->x;
	spin_unlock(&p->lock);
#elif defined(LK_NOLOCK) || defined(LK_ONCE_PLAIN_READ)
	sink = p->x;
#elif defined(LK_DATA_RACE)
	sink = data_race(p->x);
#elif defined(LK_ONCE)
	sink = READ_ONCE(p->x);
#elif defined(LK_VOLATILE)
	sink = *(volatile u32 *)&p->x;
#else
#error "pick a variant: -DLK_..."
#endif
}

#define PROBE_INIT(p) spin_lock_init(&(p)->lock)
#define ADV_NAME "adv-locks"
#include "adv_plugin.h"
