/*
 * qdisc.c - creating qdiscs and finding them by name.
 */
#include <stdlib.h>
#include <string.h>

#include "txpath/qdisc.h"

static const struct txp_qdisc_ops *const qdisc_kinds[] = {
	&txp_pfifo_fast_ops,
	&txp_noqueue_ops,
};

struct txp_qdisc *txp_qdisc_create(const struct txp_qdisc_ops *ops, unsigned limit)
{
	struct txp_qdisc *q = calloc(1, sizeof(*q) + ops->priv_size);

	if (!q)
		return NULL;
	q->ops = ops;
	ops->init(q, limit);
	return q;
}

void txp_qdisc_destroy(struct txp_qdisc *q)
{
	free(q);
}

const struct txp_qdisc_ops *txp_qdisc_lookup(const char *id)
{
	for (size_t i = 0; i < sizeof(qdisc_kinds) / sizeof(qdisc_kinds[0]); i++)
		if (strcmp(qdisc_kinds[i]->id, id) == 0)
			return qdisc_kinds[i];
	return NULL;
}
