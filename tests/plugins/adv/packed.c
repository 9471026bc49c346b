/*
 * packed.c - READ_ONCE/WRITE_ONCE of a misaligned field of a __packed
 * descriptor (bytes 5 to 8: across two 8-byte words), written by
 * start_xmit and read by the poll: both marked, no data race.  The seam
 * asks for naturally aligned objects (txpath/sync.h); what does check
 * do with one that is not?  The poll logs a BUG on a torn value (one
 * that start_xmit never wrote: its halves from two writes).
 */
#include "txpath/linux.h"

struct probe {
	struct __attribute__((packed)) {
		u8 pad[5];
		u32 v;
	} d __attribute__((aligned(8)));
};

static void probe_xmit(struct probe *p, u32 seq)
{
	WRITE_ONCE(p->d.v, seq * 0x01010101u);
}

static void probe_poll(struct probe *p)
{
	u32 v = READ_ONCE(p->d.v);

	if (v % 0x01010101u)
		printk(KERN_ERR "BUG! packed: torn value %#x\n", v);
}

#define ADV_NAME "adv-packed"
#include "adv_plugin.h"
