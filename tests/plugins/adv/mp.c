/*
 * mp.c - message passing: start_xmit writes data[seq] = seq then flag = seq;
 * the poll reads flag, then data[flag], and logs a BUG if it is not
 * flag yet.  One -D picks how each side writes, orders and reads (README.md
 * has the table of what Linux's memory model says of each).
 */
#include "txpath/linux.h"

/* data[seq] is written once, before flag = seq, and never again: the
 * reader reads data[flag], so that with the right order there is no data
 * race even on a plain payload.  flag has a granule of its own. */
struct probe {
	u32 data[16];
	u32 flag __attribute__((aligned(8)));
};

#define ONCE_R(x)     READ_ONCE(x)
#define ONCE_W(x, v)  WRITE_ONCE(x, v)
#define PLAIN_R(x)    (x)
#define PLAIN_W(x, v) ((x) = (v))
#define VOL_R(x)      (*(volatile u32 *)&(x))
#define VOL_W(x, v)   (*(volatile u32 *)&(x) = (v))
#define C11_R(x, mo)  __atomic_load_n(&(x), mo)
#define C11_W(x, v, mo) __atomic_store_n(&(x), (v), mo)
#define NOTHING       do { } while (0)

#if defined(MP_PLAIN_REL_ACQ)		/* correct */
#define W_DATA(p, v) PLAIN_W(p->data[v], v)
#define W_BAR NOTHING
#define W_FLAG(p, v) smp_store_release(&p->flag, v)
#define R_FLAG(p) smp_load_acquire(&p->flag)
#define R_BAR NOTHING
#define R_DATA(p, f) PLAIN_R(p->data[f])
#elif defined(MP_PLAIN_WMB_RMB)		/* correct */
#define W_DATA(p, v) PLAIN_W(p->data[v], v)
#define W_BAR smp_wmb()
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR smp_rmb()
#define R_DATA(p, f) PLAIN_R(p->data[f])
#elif defined(MP_PLAIN_NONE)		/* a data race on data */
#define W_DATA(p, v) PLAIN_W(p->data[v], v)
#define W_BAR NOTHING
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR NOTHING
#define R_DATA(p, f) PLAIN_R(p->data[f])
#elif defined(MP_PLAIN_WMB_ONLY)	/* a data race on data (no rmb) */
#define W_DATA(p, v) PLAIN_W(p->data[v], v)
#define W_BAR smp_wmb()
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR NOTHING
#define R_DATA(p, f) PLAIN_R(p->data[f])
#elif defined(MP_ONCE_NONE)		/* BUG under arm only */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR NOTHING
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR NOTHING
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_ONCE_WMB_ONLY)		/* BUG under arm only (reads reorder) */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR smp_wmb()
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR NOTHING
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_ONCE_RMB_ONLY)		/* BUG under arm only (writes reorder) */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR NOTHING
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR smp_rmb()
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_ONCE_WMB_RMB)		/* correct */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR smp_wmb()
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR smp_rmb()
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_ONCE_REL_ACQ)		/* correct */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR NOTHING
#define W_FLAG(p, v) smp_store_release(&p->flag, v)
#define R_FLAG(p) smp_load_acquire(&p->flag)
#define R_BAR NOTHING
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_ONCE_REL_ONLY)		/* BUG under arm only */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR NOTHING
#define W_FLAG(p, v) smp_store_release(&p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR NOTHING
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_ONCE_MB)		/* correct */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR smp_mb()
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR smp_mb()
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_VOLATILE_NONE)		/* as MP_ONCE_NONE: BUG under arm only */
#define W_DATA(p, v) VOL_W(p->data[v], v)
#define W_BAR NOTHING
#define W_FLAG(p, v) VOL_W(p->flag, v)
#define R_FLAG(p) VOL_R(p->flag)
#define R_BAR NOTHING
#define R_DATA(p, f) VOL_R(p->data[f])
#elif defined(MP_C11_RELAXED)		/* as MP_ONCE_NONE: BUG under arm only */
#define W_DATA(p, v) C11_W(p->data[v], v, __ATOMIC_RELAXED)
#define W_BAR NOTHING
#define W_FLAG(p, v) C11_W(p->flag, v, __ATOMIC_RELAXED)
#define R_FLAG(p) C11_R(p->flag, __ATOMIC_RELAXED)
#define R_BAR NOTHING
#define R_DATA(p, f) C11_R(p->data[f], __ATOMIC_RELAXED)
#elif defined(MP_C11_REL_ACQ)		/* correct */
#define W_DATA(p, v) C11_W(p->data[v], v, __ATOMIC_RELAXED)
#define W_BAR NOTHING
#define W_FLAG(p, v) C11_W(p->flag, v, __ATOMIC_RELEASE)
#define R_FLAG(p) C11_R(p->flag, __ATOMIC_ACQUIRE)
#define R_BAR NOTHING
#define R_DATA(p, f) C11_R(p->data[f], __ATOMIC_RELAXED)
#elif defined(MP_ONCE_C11_REL_ACQ)	/* correct: WRITE_ONCE data, C11 release/acquire flag */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR NOTHING
#define W_FLAG(p, v) C11_W(p->flag, v, __ATOMIC_RELEASE)
#define R_FLAG(p) C11_R(p->flag, __ATOMIC_ACQUIRE)
#define R_BAR NOTHING
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_ONCE_C11_FENCES)	/* correct: C11 release and acquire fences */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR __atomic_thread_fence(__ATOMIC_RELEASE)
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_ONCE_SYNC)		/* correct: __sync_synchronize() both sides */
#define W_DATA(p, v) ONCE_W(p->data[v], v)
#define W_BAR __sync_synchronize()
#define W_FLAG(p, v) ONCE_W(p->flag, v)
#define R_FLAG(p) ONCE_R(p->flag)
#define R_BAR __sync_synchronize()
#define R_DATA(p, f) ONCE_R(p->data[f])
#elif defined(MP_STDATOMIC_RELAXED)	/* <stdatomic.h>, relaxed: BUG under arm only */
#include <stdatomic.h>
#define W_DATA(p, v) atomic_store_explicit((_Atomic u32 *)&p->data[v], v, memory_order_relaxed)
#define W_BAR NOTHING
#define W_FLAG(p, v) atomic_store_explicit((_Atomic u32 *)&p->flag, v, memory_order_relaxed)
#define R_FLAG(p) atomic_load_explicit((_Atomic u32 *)&p->flag, memory_order_relaxed)
#define R_BAR NOTHING
#define R_DATA(p, f) atomic_load_explicit((_Atomic u32 *)&p->data[f], memory_order_relaxed)
#else
#error "pick a variant: -DMP_..."
#endif

static void probe_xmit(struct probe *p, u32 seq)
{
	if (seq >= 16)
		return;
	W_DATA(p, seq);
	W_BAR;
	W_FLAG(p, seq);
}

static void probe_poll(struct probe *p)
{
	u32 f = R_FLAG(p), d;

	if (!f || f >= 16)
		return;
	R_BAR;
	d = R_DATA(p, f);
	if (d != f)
		printk(KERN_ERR "BUG! mp: flag %u but data %u\n", f, d);
}

#define ADV_NAME "adv-mp"
#include "adv_plugin.h"
