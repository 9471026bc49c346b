/*
 * sb.c - store buffering, once: start_xmit (its first packet) stores x
 * then loads y; the poll (its first call) stores y then loads x.  With a
 * full barrier between each side's store and load, at least one of them
 * sees the other's store; both seeing 0 is logged as a BUG.  The results
 * meet through a fully ordered read-modify-write (txp_atomic_fetch_add,
 * TXP_SEQ_CST): whoever comes second compares.  One -D picks the side's
 * store, barrier and load (README.md).
 */
#include "txpath/linux.h"

struct probe {
	u32 x __attribute__((aligned(8)));
	u32 y __attribute__((aligned(8)));
	unsigned long bits;
	u32 r1 __attribute__((aligned(8)));	/* what each side read, + 1 */
	u32 r2 __attribute__((aligned(8)));
	u32 done __attribute__((aligned(8)));
	u32 poll_did __attribute__((aligned(8)));	/* the poll's own */
	u32 own __attribute__((aligned(8)));	/* start_xmit's own */
};

#if defined(SB_NONE)		/* 0/0 under tso and arm */
#define X_STORE(p) WRITE_ONCE(p->x, 1)
#define X_BAR do { } while (0)
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR do { } while (0)
#define Y_LOAD(p) READ_ONCE(p->x)
#elif defined(SB_MB)		/* correct */
#define X_STORE(p) WRITE_ONCE(p->x, 1)
#define X_BAR smp_mb()
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR smp_mb()
#define Y_LOAD(p) READ_ONCE(p->x)
#elif defined(SB_SETBIT_NOMB)	/* 0/0 under arm only: set_bit is a locked insn on x86 */
#define X_STORE(p) set_bit(0, &p->bits)
#define X_BAR do { } while (0)
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR smp_mb()
#define Y_LOAD(p) (u32)test_bit(0, &p->bits)
#elif defined(SB_SETBIT_MB)	/* correct */
#define X_STORE(p) set_bit(0, &p->bits)
#define X_BAR smp_mb__after_atomic()
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR smp_mb()
#define Y_LOAD(p) (u32)test_bit(0, &p->bits)
#elif defined(SB_SYNC)		/* correct: __sync_synchronize() is mfence / dmb ish */
#define X_STORE(p) WRITE_ONCE(p->x, 1)
#define X_BAR __sync_synchronize()
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR __sync_synchronize()
#define Y_LOAD(p) READ_ONCE(p->x)
#elif defined(SB_C11_FENCE)	/* correct: seq_cst fences (C11 7.17.4) */
#define X_STORE(p) WRITE_ONCE(p->x, 1)
#define X_BAR __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define Y_LOAD(p) READ_ONCE(p->x)
#elif defined(SB_ONE_MB_X)	/* 0/0 under tso and arm: smp_mb() on the poll's side only */
#define X_STORE(p) WRITE_ONCE(p->x, 1)
#define X_BAR do { } while (0)
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR smp_mb()
#define Y_LOAD(p) READ_ONCE(p->x)
#elif defined(SB_ONE_MB)	/* 0/0 under tso and arm: smp_mb() on one side only */
#define X_STORE(p) WRITE_ONCE(p->x, 1)
#define X_BAR smp_mb()
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR do { } while (0)
#define Y_LOAD(p) READ_ONCE(p->x)
#elif defined(SB_READBACK)	/* as SB_ONE_MB, and start_xmit reads its own x back
				 * plainly (its sole writer may): 0/0 under tso and arm */
#define X_STORE(p) (WRITE_ONCE(p->x, 1), p->own = p->x)
#define X_BAR do { } while (0)
#define X_LOAD(p) READ_ONCE(p->y)
#define Y_STORE(p) WRITE_ONCE(p->y, 1)
#define Y_BAR smp_mb()
#define Y_LOAD(p) READ_ONCE(p->x)
#else
#error "pick a variant: -DSB_..."
#endif

static void finish(struct probe *p)
{
	if (txp_atomic_fetch_add(&p->done, sizeof(p->done), 1, TXP_SEQ_CST) == 1 &&
	    READ_ONCE(p->r1) == 1 && READ_ONCE(p->r2) == 1)
		printk(KERN_ERR "BUG! sb: both sides read 0\n");
}

static void probe_xmit(struct probe *p, u32 seq)
{
	u32 r;

	if (seq != 1)
		return;
	X_STORE(p);
	X_BAR;
	r = X_LOAD(p);
	WRITE_ONCE(p->r1, r + 1);
	finish(p);
}

static void probe_poll(struct probe *p)
{
	u32 r;

	if (p->poll_did)
		return;
	p->poll_did = 1;
	Y_STORE(p);
	Y_BAR;
	r = Y_LOAD(p);
	WRITE_ONCE(p->r2, r + 1);
	finish(p);
}

#define ADV_NAME "adv-sb"
#include "adv_plugin.h"
