/*
 * pkt.c - packet allocation.
 */
#include <stdlib.h>

#include "txpath/pkt.h"

struct txp_pkt *txp_pkt_alloc(void)
{
	return calloc(1, sizeof(struct txp_pkt));
}

void txp_pkt_free(struct txp_pkt *pkt)
{
	if (pkt->destructor)
		pkt->destructor(pkt);
	free(pkt);
}
