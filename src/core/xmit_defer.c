/*
 * xmit_defer.c - a root-locked qdisc's defer list: Linux 6.18's ("net:
 * dev_queue_xmit() llist adoption"), and txpath's drainer.
 *
 * Under contention every producer of a locked qdisc waits for the root
 * lock, and the line of the lock moves between them once per producer.
 * With 6.18's defer list (TXP_DEFER_LINUX) only the producer that finds
 * the list empty takes the lock; the others push their packets onto the
 * list with one compare-and-swap and return, and the first, once it has
 * the lock, takes the whole list at once (llist_del_all) and queues it,
 * oldest first (or what is on it by then: a tried burst, which takes the
 * root lock, takes the list first, txp__defer_take()).  Whoever pushes
 * after that finds the list empty again and is the next to take the
 * lock: no packet waits on a list nobody will drain.  With two producers
 * that is nearly every push: the list just taken is empty when the other
 * pushes.
 *
 * The drainer (TXP_DEFER_DRAIN, txpath's own): the list's head carries a
 * bit, DRAINER, set while one context has taken the list on.  A push onto
 * a list whose bit is set is one compare-and-swap and a return; a push
 * that finds it clear sets it and drains (on an empty list it sets the
 * bit alone and sends its own packets first, unpushed): under the root
 * lock it takes the whole list and leaves the bit set (one exchange),
 * queues what it took and runs the qdisc, and again, until it finds the
 * list empty and clears the bit by a compare-and-swap of the empty head
 * (a push that came between makes it fail: that list is taken too).  Having taken
 * DEFER_QUOTA packets it lets go of the list as it stands (clears the
 * bit) and schedules the queue: whoever pushes next takes it on, or
 * net_tx_action does.  So a non-empty list always has its bit set and its
 * drainer in the loop, or its bit clear and the queue scheduled.  A
 * producer that finds the list empty and its bit clear, and the root lock
 * free at once, goes as without a list (xmit.c: txp__defer_idle()): the
 * list is left alone, and whoever pushes meanwhile finds the lock held
 * and takes the list on as above.
 *
 * Unlike the kernel's there is no defer_count limit: the list holds at
 * most what the producers' pools hold, and what the qdisc then refuses is
 * dropped as qdisc-limit by the context that drains it.  A packet pushed
 * is the queue's: the caller is told it was queued (NET_XMIT_SUCCESS).
 */
#include <stdint.h>

#include "xmit.h"

/* The head's bit: a drainer has the list (packets are line-aligned, so
 * bit 0 of a packet's address is free). */
#define DRAINER ((uintptr_t)1)
/* Packets a drainer takes before it lets the list go: four of Linux's
 * dev_tx_weight (64), so that a run of bursts of 32 is one drain.  The
 * check build's scenarios push a few packets in all: there the drainer
 * lets go after its first take, so that the explorer reaches the hand-off
 * within a preemption (a let-go that did not schedule the queue strands a
 * packet at bound 1; with a quota of 2 not even at bound 2).  The loop
 * that finds the list empty is then not explored. */
#ifdef TXP_CHECK
#define DEFER_QUOTA 1u
#else
#define DEFER_QUOTA 256u
#endif

static inline struct txp_pkt *untagged(struct txp_pkt *head)
{
	return (struct txp_pkt *)((uintptr_t)head & ~DRAINER);
}

static inline struct txp_pkt *tagged(struct txp_pkt *head)
{
	return (struct txp_pkt *)((uintptr_t)head | DRAINER);
}

static inline bool has_drainer(struct txp_pkt *head)
{
	return ((uintptr_t)head & DRAINER) != 0;
}

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

/* What a drain refused: a list and its tail. */
struct refused {
	struct txp_pkt *head, **tail;
};

/* Queue the list taken (linked newest first) in the order it was
 * pushed, oldest first; what the qdisc refuses onto *out.  Caller holds
 * the root lock.  Returns how many packets were taken. */
static unsigned defer_enqueue(struct txp_txq *txq, struct txp_pkt *head, struct refused *out)
{
	struct txp_qdisc *q = txq->qdisc;
	unsigned taken = 0;

	txp_assert_held(&txq->root_lock);
	for (struct txp_pkt *p = list_reverse(head), *next; p; p = next, taken++) {
		next = p->next;
		if (q->ops->enqueue(q, p) != TXP_XMIT_OK) {
			*out->tail = p;
			out->tail = &p->next;
		}
	}
	*out->tail = NULL;
	return taken;
}

/* Is the list taken exactly pkts[n-1] -> ... -> pkts[0]?  Its address
 * alone would not do: a tried burst (txp__defer_take()) may have taken
 * and sent the caller's packets meanwhile, and the same memory come back
 * as others' packets, pushed since.  The whole list the same is the same
 * packets to send, whoever queued them. */
static bool list_is(const struct txp_pkt *head, struct txp_pkt *const *pkts, unsigned n)
{
	for (unsigned i = n; i-- > 0; head = head->next)
		if (head != pkts[i])
			return false;
	return head == NULL;
}

/*
 * Send what was taken off the list, newest first, as one batch: the
 * caller's own pkts[0..n) alone (mine, and the list is just them:
 * nothing was pushed before or after them) bypass an empty qdisc, as
 * 6.18 does for the first packet; else the list is queued
 * (defer_enqueue()) and the queue runs.  Caller holds the root lock.
 * Returns how many packets were taken.
 */
static unsigned defer_send(struct txp_txq *txq, struct txp_pkt *head, struct txp_pkt **pkts,
			   unsigned n, bool mine, int self, struct refused *out)
{
	unsigned taken;

	txp_assert_held(&txq->root_lock);
	if (mine && list_is(head, pkts, n) && __txp_try_bypass(txq, pkts, n, self)) {
		__txp_qdisc_run(txq, self, pkts, n, NULL);
		return n;
	}
	taken = defer_enqueue(txq, head, out);
	__txp_qdisc_run(txq, self, NULL, 0, NULL);
	return taken;
}

/* Let go of the list as it stands, and schedule the queue if it is not
 * empty: its next pusher, or net_tx_action, takes it on. */
static void drainer_let_go(struct txp_txq *txq)
{
	struct txp_pkt *head = txp_load_relaxed(&txq->defer_head);

	/* Release: what this drainer sent before it, for whoever takes the
	 * list on next (pairs with the compare-and-swap that tags it in
	 * txp__defer_tx_action() or txp__xmit_defer()). */
	while (!txp_cas(&txq->defer_head, &head, untagged(head)))
		;
	if (untagged(head))
		txp__netif_schedule(txq);
}

/*
 * The drainer's loop: send pkts[0..n) (n 0: none), the caller's own,
 * linked newest first and not pushed; then take the list, leaving the bit
 * set, and send it, until it is empty (then clear the bit) or the quota
 * is spent (then let go).  Caller holds the root lock and is the list's
 * drainer.
 */
static void drain(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self,
		  struct refused *out)
{
	unsigned taken = n ? defer_send(txq, pkts[n - 1], pkts, n, true, self, out) : 0;

	txp_assert_held(&txq->root_lock);
	for (;;) {
		struct txp_pkt *head;

		if (taken >= DEFER_QUOTA) {
			drainer_let_go(txq);
			return;
		}
		/* Empty: clear the bit, unless a push comes first.  A load
		 * and a compare-and-swap, so that the drainer alone takes one
		 * locked instruction here, not two. */
		head = txp_load_relaxed(&txq->defer_head);
		if (!untagged(head)) {
			/* Pairs with a pusher's compare-and-swap: it fails
			 * if a push came between, which is then taken. */
			if (txp_cas(&txq->defer_head, &head, NULL))
				return;
			continue;	/* pushed meanwhile: take that too */
		}
		/* Acquire: pairs with the pushers' compare-and-swap. */
		head = untagged(txp_xchg(&txq->defer_head, tagged(NULL)));
		taken += defer_send(txq, head, NULL, 0, false, self, out);
	}
}

struct txp_pkt *txp__defer_tx_action(struct txp_txq *txq, int self)
{
	struct txp_pkt *head = txp_load_relaxed(&txq->defer_head);
	struct refused out = { NULL, &out.head };

	txp_assert_held(&txq->root_lock);
	/* Take on a list let go of: not empty, nobody's. */
	do
		if (!head || has_drainer(head))
			return NULL;
	/* Acquire: pairs with the pushers' compare-and-swap (their links)
	 * and with drainer_let_go()'s release. */
	while (!txp_cas(&txq->defer_head, &head, tagged(head)));
	drain(txq, NULL, 0, self, &out);
	return out.head;
}

struct txp_pkt *txp__defer_take(struct txp_txq *txq)
{
	struct txp_pkt *head = txp_load_relaxed(&txq->defer_head);
	struct refused out = { NULL, &out.head };

	txp_assert_held(&txq->root_lock);
	if (!untagged(head))
		return NULL;
	/* The packets, not the bit: a drainer that set it and waits for
	 * the lock finds the list empty, or what is pushed meanwhile.
	 * Acquire: pairs with the pushers' compare-and-swap (their links). */
	while (!txp_cas(&txq->defer_head, &head,
			has_drainer(head) ? tagged(NULL) : (struct txp_pkt *)NULL))
		;
	defer_enqueue(txq, untagged(head), &out);
	return out.head;
}

unsigned txp__xmit_defer(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self)
{
	bool drainer = txq->dev->defer == TXP_DEFER_DRAIN;
	struct refused out = { NULL, &out.head };
	struct txp_pkt *first;
	bool own = false;

	/* Newest first, as the list holds them: pkts[n-1] -> ... -> pkts[0]. */
	for (unsigned i = 1; i < n; i++)
		pkts[i]->next = pkts[i - 1];
	first = txp_load_relaxed(&txq->defer_head);
	/* The drainer's, on an empty list nobody drains: take it on without
	 * pushing, and send ours first (no exchange to take them back). */
	if (drainer && !first && txp_cas(&txq->defer_head, &first, tagged(NULL))) {
		own = true;
		pkts[0]->next = NULL;
	} else {
		do
			pkts[0]->next = untagged(first);
		while (!txp_cas(&txq->defer_head, &first,	/* release: the links */
				drainer ? tagged(pkts[n - 1]) : pkts[n - 1]));
		/* 6.18: not empty, so whoever made it non-empty drains it,
		 * ours too.  The drainer's: somebody has it. */
		if (drainer ? has_drainer(first) : first != NULL)
			return n;
	}
	txp_spin_lock(&txq->root_lock);
	if (drainer)
		drain(txq, pkts, own ? n : 0, self, &out);
	else	/* llist_del_all; acquire: pairs with the pushers' compare-and-swap. */
		defer_send(txq, txp_xchg(&txq->defer_head, NULL), pkts, n, true, self, &out);
	txp_spin_unlock(&txq->root_lock);
	if (txp_unlikely(out.head != NULL))
		txp__drop_list(txq, self, out.head, TXP_DROP_QDISC_LIMIT);
	return n;
}

void txp__defer_purge(struct txp_txq *txq, int self)
{
	/* Acquire: pairs with the pushers' compare-and-swap (their links). */
	struct txp_pkt *head = untagged(txp_xchg(&txq->defer_head, NULL));

	if (head)
		txp__drop_list(txq, self, head, TXP_DROP_DEV_DOWN);
}
