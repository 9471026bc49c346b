/*
 * noqueue.c - no queue at all, for software devices.
 *
 * There is no enqueue: txp_dev_queue_xmit() calls the driver directly and
 * drops what it cannot take ("Virtual device asks to queue packet!").
 * The other ops exist so a queue can treat every qdisc alike: they hold
 * nothing.
 */
#include <stddef.h>

#include "txpath/qdisc.h"

static int noqueue_init(struct txp_qdisc *q, unsigned limit)
{
	(void)q;
	(void)limit;
	return 0;
}

static struct txp_pkt *noqueue_dequeue(struct txp_qdisc *q)
{
	(void)q;
	return NULL;
}

const struct txp_qdisc_ops txp_noqueue_ops = {
	.id = "noqueue",
	.priv_size = 0,
	.init = noqueue_init,
	.enqueue = NULL,
	.dequeue = noqueue_dequeue,
	.requeue = NULL,
};
