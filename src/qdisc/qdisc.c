/*
 * qdisc.c - creating qdiscs and finding them by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "txpath/qdisc.h"

static const struct txp_qdisc_ops *const qdisc_kinds[] = {
	&txp_pfifo_fast_ops,
	&txp_noqueue_ops,
	&txp_pfifo_nolock_ops,
	&txp_pfifo_nolock_trylock_ops,
	&txp_pfifo_nolock_missed_ops,
	&txp_pfifo_nolock_barrier_ops,
};
#define NKINDS (sizeof(qdisc_kinds) / sizeof(qdisc_kinds[0]))

struct txp_qdisc *txp_qdisc_create(const struct txp_qdisc_ops *ops, unsigned limit)
{
	struct txp_qdisc *q;

	if (!ops || !ops->init)
		return NULL;
	q = calloc(1, sizeof(*q) + ops->priv_size);
	if (!q)
		return NULL;
	q->ops = ops;
	if (ops->init(q, limit) != 0) {
		free(q);
		return NULL;
	}
	return q;
}

void txp_qdisc_destroy(struct txp_qdisc *q)
{
	if (q && q->ops->destroy)
		q->ops->destroy(q);
	free(q);
}

unsigned txp_qdisc_backlog(struct txp_qdisc *q)
{
	return q->ops->backlog ? q->ops->backlog(q) : q->qlen;
}

const struct txp_qdisc_ops *txp_qdisc_lookup(const char *id)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (strcmp(qdisc_kinds[i]->id, id) == 0)
			return qdisc_kinds[i];
	return NULL;
}

char *txp_qdisc_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NKINDS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "",
					 qdisc_kinds[i]->id);
	return buf;
}
