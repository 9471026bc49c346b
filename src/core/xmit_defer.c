/*
 * xmit_defer.c - a root-locked qdisc's defer list (Linux 6.18, "net:
 * dev_queue_xmit() llist adoption").
 *
 * Under contention every producer of a locked qdisc waits for the root
 * lock, and the line of the lock moves between them once per producer.
 * With the defer list only the producer that finds the list empty takes
 * the lock; the others push their packets onto the list with one
 * compare-and-swap and return, and the first, once it has the lock, takes
 * the whole list at once (llist_del_all) and queues it, oldest first.
 * Whoever pushes after that finds the list empty again and is the next
 * to take the lock: no packet waits on a list nobody will drain.
 *
 * Unlike the kernel's there is no defer_count limit: the list holds at
 * most what the producers' pools hold, and what the qdisc then refuses is
 * dropped as qdisc-limit by the context that drains it.  A packet pushed
 * is the queue's: the caller is told it was queued (NET_XMIT_SUCCESS).
 */
#include "xmit.h"

/* llist_reverse_order(): the list oldest first. */
static struct txp_pkt *list_reverse(struct txp_pkt *p)
{
	struct txp_pkt *r = NULL;

	while (p) {
		struct txp_pkt *next = p->next;

		p->next = r;
		r = p;
		p = next;
	}
	return r;
}

/* Queue the list's packets in order and run the queue.  Caller holds the
 * root lock.  Returns what the qdisc refused, as a list. */
static struct txp_pkt *__defer_queue(struct txp_txq *txq, struct txp_pkt *list, int self)
{
	struct txp_qdisc *q = txq->qdisc;
	struct txp_pkt *refused = NULL, **tail = &refused;

	txp_assert_held(&txq->root_lock);
	while (list) {
		struct txp_pkt *next = list->next;

		if (q->ops->enqueue(q, list) != TXP_XMIT_OK) {
			*tail = list;
			tail = &list->next;
		}
		list = next;
	}
	*tail = NULL;
	__txp_qdisc_run(txq, self, NULL, 0);
	return refused;
}

unsigned txp__xmit_defer(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	struct txp_pkt *first, *head, *refused = NULL;

	/* Newest first, as the list holds them: pkts[n-1] -> ... -> pkts[0]. */
	for (unsigned i = 1; i < n; i++)
		pkts[i]->next = pkts[i - 1];
	first = txp_load_relaxed(&txq->defer_head);
	do
		pkts[0]->next = first;
	while (!txp_cas(&txq->defer_head, &first, pkts[n - 1]));	/* release: the links */
	/* Not empty: whoever made it non-empty drains it, ours too. */
	if (first)
		return n;
	txp_spin_lock(&txq->root_lock);
	/* llist_del_all; acquire: pairs with the pushers' compare-and-swap. */
	head = txp_xchg(&txq->defer_head, NULL);
	if (head == pkts[n - 1] && __txp_try_bypass(txq, pkts, n, self))
		/* Only ours, and the qdisc empty: sent as a bypass batch. */
		__txp_qdisc_run(txq, self, pkts, n);
	else
		refused = __defer_queue(txq, list_reverse(head), self);
	txp_spin_unlock(&txq->root_lock);
	if (txp_unlikely(refused != NULL))
		txp__drop_list(txq, self, refused, TXP_DROP_QDISC_LIMIT);
	return n;
}
