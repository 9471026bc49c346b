/*
 * pfifo_fast.c - the default qdisc: three FIFO bands chosen by priority.
 *
 * Band 0 is always emptied before band 1, band 1 before band 2.  Each band
 * holds at most `limit` packets (the device's txqueuelen), as in 2.6.
 * Caller holds the root lock for every op.
 */
#include <stdint.h>

#include "txpath/dev.h"
#include "txpath/qdisc.h"

#define PFIFO_BANDS 3

struct pfifo_band {
	struct txp_pkt *head, *tail;
	unsigned len;
};

struct pfifo_fast {
	unsigned limit;
	struct pfifo_band band[PFIFO_BANDS];
};

/* TC_PRIO_* -> band, the 2.6 prio2band table. */
static const uint8_t prio2band[16] = {
	1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
};

unsigned txp_pfifo_fast_band(unsigned priority)
{
	return prio2band[priority & 15];
}

static struct pfifo_fast *pfifo(struct txp_qdisc *q)
{
	return (struct pfifo_fast *)q->priv;
}

static int pfifo_fast_init(struct txp_qdisc *q, unsigned limit)
{
	pfifo(q)->limit = limit;
	return 0;
}

static int pfifo_fast_enqueue(struct txp_qdisc *q, struct txp_pkt *pkt)
{
	struct pfifo_fast *pf = pfifo(q);
	struct pfifo_band *b = &pf->band[txp_pfifo_fast_band(pkt->priority)];

	if (b->len >= pf->limit)
		return TXP_XMIT_DROP;
	pkt->next = NULL;
	if (b->tail)
		b->tail->next = pkt;
	else
		b->head = pkt;
	b->tail = pkt;
	b->len++;
	q->qlen++;
	return TXP_XMIT_OK;
}

static struct txp_pkt *pfifo_fast_dequeue(struct txp_qdisc *q)
{
	struct pfifo_fast *pf = pfifo(q);

	for (unsigned i = 0; i < PFIFO_BANDS; i++) {
		struct pfifo_band *b = &pf->band[i];
		struct txp_pkt *pkt = b->head;

		if (!pkt)
			continue;
		b->head = pkt->next;
		if (!b->head)
			b->tail = NULL;
		b->len--;
		q->qlen--;
		pkt->next = NULL;
		return pkt;
	}
	return NULL;
}

/* Back at the head of its band; may exceed the limit by the one packet
 * that was just taken out, as in the kernel. */
static void pfifo_fast_requeue(struct txp_qdisc *q, struct txp_pkt *pkt)
{
	struct pfifo_band *b = &pfifo(q)->band[txp_pfifo_fast_band(pkt->priority)];

	pkt->next = b->head;
	b->head = pkt;
	if (!b->tail)
		b->tail = pkt;
	b->len++;
	q->qlen++;
}

const struct txp_qdisc_ops txp_pfifo_fast_ops = {
	.id = "pfifo_fast",
	.priv_size = sizeof(struct pfifo_fast),
	.init = pfifo_fast_init,
	.enqueue = pfifo_fast_enqueue,
	.dequeue = pfifo_fast_dequeue,
	.requeue = pfifo_fast_requeue,
};
