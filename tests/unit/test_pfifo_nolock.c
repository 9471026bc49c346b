/*
 * test_pfifo_nolock.c - the lockless pfifo_fast on its own, one context:
 * band order, FIFO within a band across the ring's wrap, a full band's
 * refusal, requeued packets first, the backlog, dequeue's second look when
 * MISSED is set (5.13 on) and not before, and each kind's id.  Its dequeue
 * side is the seqlock holder's: the test holds the seqlock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../runner.h"
#include "qdisc/nolock.h"
#include "txpath/dev.h"
#include "txpath/pkt.h"

#define PRIO_BAND0 6
#define PRIO_BAND1 0
#define PRIO_BAND2 2

static struct txp_qdisc *create_held(const struct txp_qdisc_ops *ops, unsigned limit)
{
	struct txp_qdisc *q = txp_qdisc_create(ops, limit);

	assert_non_null(q);
	txp_spin_lock(&txp__qdisc_nolock(q)->seqlock);
	return q;
}

static void destroy_held(struct txp_qdisc *q)
{
	struct txp_pkt *pkt;

	while ((pkt = q->ops->dequeue(q)) != NULL)
		txp_pkt_free(pkt);
	txp_spin_unlock(&txp__qdisc_nolock(q)->seqlock);
	txp_qdisc_destroy(q);
}

static void enqueue_ok(struct txp_qdisc *q, uint64_t seq, uint8_t priority)
{
	struct txp_pkt *pkt = txp_pkt_alloc();

	assert_non_null(pkt);
	pkt->seq = seq;
	pkt->priority = priority;
	assert_int_equal(q->ops->enqueue(q, pkt), TXP_XMIT_OK);
}

static void dequeue_expect(struct txp_qdisc *q, uint64_t seq)
{
	struct txp_pkt *pkt = q->ops->dequeue(q);

	assert_non_null(pkt);
	assert_int_equal(pkt->seq, seq);
	txp_pkt_free(pkt);
}

static void test_band_order(void **state)
{
	struct txp_qdisc *q = create_held(&txp_pfifo_nolock_ops, 8);

	(void)state;
	enqueue_ok(q, 0, PRIO_BAND2);
	enqueue_ok(q, 1, PRIO_BAND1);
	enqueue_ok(q, 2, PRIO_BAND0);
	enqueue_ok(q, 3, PRIO_BAND1);
	assert_int_equal(txp_qdisc_backlog(q), 4);
	dequeue_expect(q, 2);
	dequeue_expect(q, 1);
	dequeue_expect(q, 3);
	dequeue_expect(q, 0);
	assert_null(q->ops->dequeue(q));
	assert_int_equal(txp_qdisc_backlog(q), 0);
	destroy_held(q);
}

/* A band of 3 slots, filled and emptied past its end many times over:
 * FIFO throughout, the fourth packet refused (and still the caller's). */
static void test_ring_wraps_and_fills(void **state)
{
	struct txp_qdisc *q = create_held(&txp_pfifo_nolock_ops, 3);
	uint64_t next_in = 0, next_out = 0;
	struct txp_pkt *extra = txp_pkt_alloc();

	(void)state;
	for (unsigned round = 0; round < 10; round++) {
		while (txp_qdisc_backlog(q) < 3)
			enqueue_ok(q, next_in++, PRIO_BAND1);
		assert_int_equal(q->ops->enqueue(q, extra), TXP_XMIT_DROP);
		for (unsigned k = 0; k < 1 + round % 3; k++)
			dequeue_expect(q, next_out++);
	}
	txp_pkt_free(extra);
	destroy_held(q);
}

static void test_requeue_first(void **state)
{
	struct txp_qdisc *q = create_held(&txp_pfifo_nolock_ops, 4);
	struct txp_pkt *a, *b;

	(void)state;
	enqueue_ok(q, 0, PRIO_BAND0);
	enqueue_ok(q, 1, PRIO_BAND0);
	enqueue_ok(q, 2, PRIO_BAND0);
	a = q->ops->dequeue(q);
	b = q->ops->dequeue(q);
	q->ops->requeue(q, b);
	q->ops->requeue(q, a);
	assert_int_equal(txp_qdisc_backlog(q), 3);
	dequeue_expect(q, 0);
	dequeue_expect(q, 1);
	dequeue_expect(q, 2);
	destroy_held(q);
}

/* An empty look with MISSED set clears it (5.13 on); 5.1 has no such bit
 * to clear and leaves the state alone. */
static void test_dequeue_clears_missed(void **state)
{
	struct txp_qdisc *q = create_held(&txp_pfifo_nolock_ops, 4);
	struct txp_qdisc *old = create_held(&txp_pfifo_nolock_trylock_ops, 4);

	(void)state;
	atomic_store(&txp__qdisc_nolock(q)->state, TXP_QDISC_MISSED | TXP_QDISC_DRAINING);
	assert_null(q->ops->dequeue(q));
	assert_int_equal(atomic_load(&txp__qdisc_nolock(q)->state), 0);
	atomic_store(&txp__qdisc_nolock(old)->state, TXP_QDISC_MISSED);
	assert_null(old->ops->dequeue(old));
	assert_int_equal(atomic_load(&txp__qdisc_nolock(old)->state), TXP_QDISC_MISSED);
	destroy_held(q);
	destroy_held(old);
}

static void test_kinds(void **state)
{
	static const char *const ids[] = { "nolock-5.1", "nolock-5.13", "nolock-5.19", "nolock" };
	static const enum txp_nolock_rev revs[] = {
		TXP_NOLOCK_TRYLOCK, TXP_NOLOCK_MISSED, TXP_NOLOCK_BARRIER, TXP_NOLOCK_DRAINING,
	};
	char names[128];

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		const struct txp_qdisc_ops *ops = txp_qdisc_lookup(ids[i]);

		assert_non_null(ops);
		assert_int_equal(ops->nolock, revs[i]);
		assert_non_null(strstr(txp_qdisc_names(names, sizeof(names)), ids[i]));
	}
	assert_int_equal(txp_pfifo_fast_ops.nolock, TXP_NOLOCK_NONE);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_band_order),
		cmocka_unit_test(test_ring_wraps_and_fills),
		cmocka_unit_test(test_requeue_first),
		cmocka_unit_test(test_dequeue_clears_missed),
		cmocka_unit_test(test_kinds),
	};

	return txp_test_main(argc, argv, tests);
}
