/*
 * mixed.c - mixed-size marked accesses by one context: start_xmit writes
 * one 16-bit half of a 32-bit word with WRITE_ONCE and reads the whole
 * word back with READ_ONCE.  A CPU always sees its own store (x86 and
 * arm64 forward it, or stall the load until it can), so the half read
 * back must be what was written, and the other half what it was: else a
 * BUG.  No other context touches the word.
 * -DMIX_OFFSET: the half at byte 2 (the whole word at byte 0);
 * -DMIX_SAMEADDR: the half at byte 0, the other half set to 0xaaaa at open.
 */
#include "txpath/linux.h"

struct probe {
	union {
		u32 whole;
		u16 half[2];
	} w __attribute__((aligned(8)));
};

#define PROBE_INIT(p) ((p)->w.half[0] = 0xaaaa, (p)->w.half[1] = 0xaaaa)

#if defined(MIX_OFFSET)
#define MINE 1
#elif defined(MIX_SAMEADDR)
#define MINE 0
#else
#error "pick a variant: -DMIX_..."
#endif

static void probe_xmit(struct probe *p, u32 seq)
{
	u32 v;
	u16 mine, other;

	WRITE_ONCE(p->w.half[MINE], (u16)seq);
	v = READ_ONCE(p->w.whole);
	mine = (u16)(MINE ? v >> 16 : v);
	other = (u16)(MINE ? v : v >> 16);
	if (mine != (u16)seq || other != 0xaaaa)
		printk(KERN_ERR "BUG! mixed: wrote %#x to half %d, read back the word %#x\n",
		       seq, MINE, v);
}

static void probe_poll(struct probe *p)
{
	(void)p;
}

#define ADV_NAME "adv-mixed"
#include "adv_plugin.h"
