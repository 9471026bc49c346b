/*
 * doorbell.c - the explorer's record of a plugin's doorbell (doorbell.h).
 * One device at a time (a plugin's: plugin.h), its contexts serialized
 * by the explorer.
 */
#include <stddef.h>

#include "check/doorbell.h"

static struct {
	const struct txp_dev *dev;	/* the device whose ring is followed; NULL: none */
	unsigned unrung;		/* packets taken and not announced */
	const struct txp_pkt *taking;	/* start_xmit's packet, while it runs */
	bool freed, rung;		/* ... freed, or the tail written, in that call */
} B;

void check_doorbell_begin(void)
{
	B = (__typeof__(B)){ 0 };
}

void check_doorbell_ring(const struct txp_dev *dev)
{
	B.dev = dev;
	B.unrung = 0;
}

void check_doorbell_xmit(const struct txp_pkt *pkt)
{
	B.taking = pkt;
	B.freed = B.rung = false;
}

void check_doorbell_xmit_end(bool took)
{
	/* Taken, not freed, and no doorbell after it in the call: posted and
	 * unannounced. */
	if (B.dev && took && !B.freed && !B.rung)
		B.unrung++;
	B.taking = NULL;
}

void check_doorbell_freed(const struct txp_pkt *pkt)
{
	if (pkt == B.taking)
		B.freed = true;
}

void check_doorbell_rung(void)
{
	B.unrung = 0;
	B.rung = true;
}

unsigned check_doorbell_unannounced(struct txp_dev *dev, unsigned queue)
{
	return dev == B.dev && queue == 0 ? B.unrung : 0;
}
