/*
 * test_qdisc.c - the queueing disciplines on their own: pfifo_fast's
 * priority bands, its per-band limit, requeue at the head, qlen, and the
 * lookup of qdisc kinds by name.
 *
 * Single-threaded: a qdisc has no locking of its own (its caller holds
 * the root lock), so the ops are called directly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../runner.h"
#include "txpath/dev.h"
#include "txpath/pkt.h"
#include "txpath/qdisc.h"

/* A priority that maps to each band (TC_PRIO_INTERACTIVE, BESTEFFORT, BULK). */
#define PRIO_BAND0 6
#define PRIO_BAND1 0
#define PRIO_BAND2 2

static struct txp_pkt *pkt_new(uint64_t seq, uint8_t priority)
{
	struct txp_pkt *pkt = txp_pkt_alloc();

	assert_non_null(pkt);
	pkt->seq = seq;
	pkt->priority = priority;
	return pkt;
}

static void enqueue_ok(struct txp_qdisc *q, struct txp_pkt *pkt)
{
	unsigned before = q->qlen;

	assert_int_equal(q->ops->enqueue(q, pkt), TXP_XMIT_OK);
	assert_int_equal(q->qlen, before + 1);
}

/* Dequeue one packet, check its sequence number and qlen, free it. */
static void dequeue_expect(struct txp_qdisc *q, uint64_t seq)
{
	unsigned before = q->qlen;
	struct txp_pkt *pkt = q->ops->dequeue(q);

	assert_non_null(pkt);
	assert_int_equal(pkt->seq, seq);
	assert_int_equal(q->qlen, before - 1);
	txp_pkt_free(pkt);
}

static void assert_empty(struct txp_qdisc *q)
{
	assert_int_equal(q->qlen, 0);
	assert_null(q->ops->dequeue(q));
	assert_int_equal(q->qlen, 0);
}

/* The 2.6 prio2band table, priority masked to 4 bits. */
static void test_prio2band(void **state)
{
	static const unsigned expect[16] = {
		1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
	};
	(void)state;

	for (unsigned prio = 0; prio < 16; prio++) {
		assert_int_equal(txp_pfifo_fast_band(prio), expect[prio]);
		assert_int_equal(txp_pfifo_fast_band(prio + 16), expect[prio]);
	}
	assert_int_equal(txp_pfifo_fast_band(PRIO_BAND0), 0);
	assert_int_equal(txp_pfifo_fast_band(PRIO_BAND1), 1);
	assert_int_equal(txp_pfifo_fast_band(PRIO_BAND2), 2);
}

/* Band 0 empties before band 1, band 1 before band 2, FIFO within each,
 * whatever order the packets came in. */
static void test_band_order(void **state)
{
	static const uint8_t prio[] = {
		PRIO_BAND2, PRIO_BAND1, PRIO_BAND0, PRIO_BAND2, 7, 4, 1, PRIO_BAND0, 9,
	};
	/* Sequence numbers are indexes into prio[]. */
	static const uint64_t expect[] = { 2, 4, 7, 1, 5, 8, 0, 3, 6 };
	struct txp_qdisc *q = txp_qdisc_create(&txp_pfifo_fast_ops, 100);
	(void)state;

	assert_non_null(q);
	assert_ptr_equal(q->ops, &txp_pfifo_fast_ops);
	assert_empty(q);
	for (unsigned i = 0; i < sizeof(prio); i++)
		enqueue_ok(q, pkt_new(i, prio[i]));
	assert_int_equal(q->qlen, sizeof(prio));
	for (unsigned i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		dequeue_expect(q, expect[i]);
	assert_empty(q);
	txp_qdisc_destroy(q);
}

/* A packet arriving in band 0 overtakes what waits in bands 1 and 2. */
static void test_band_preempts_between_dequeues(void **state)
{
	struct txp_qdisc *q = txp_qdisc_create(&txp_pfifo_fast_ops, 100);
	(void)state;

	assert_non_null(q);
	enqueue_ok(q, pkt_new(0, PRIO_BAND2));
	enqueue_ok(q, pkt_new(1, PRIO_BAND1));
	dequeue_expect(q, 1);
	enqueue_ok(q, pkt_new(2, PRIO_BAND0));
	enqueue_ok(q, pkt_new(3, PRIO_BAND1));
	dequeue_expect(q, 2);
	dequeue_expect(q, 3);
	dequeue_expect(q, 0);
	assert_empty(q);
	txp_qdisc_destroy(q);
}

/* Each band holds at most `limit` packets; the refused packet stays the
 * caller's (freeing it must not disturb the qdisc), and a full band does
 * not close the others. */
static void test_per_band_limit(void **state)
{
	const unsigned limit = 3;
	struct txp_qdisc *q = txp_qdisc_create(&txp_pfifo_fast_ops, limit);
	uint64_t seq = 0;
	(void)state;

	assert_non_null(q);
	for (unsigned i = 0; i < limit; i++)
		enqueue_ok(q, pkt_new(seq++, PRIO_BAND1));
	for (unsigned i = 0; i < 2; i++) {
		struct txp_pkt *refused = pkt_new(100 + i, PRIO_BAND1);

		assert_int_equal(q->ops->enqueue(q, refused), TXP_XMIT_DROP);
		assert_int_equal(q->qlen, limit);
		/* Still ours: ASan reports it if the qdisc kept a link. */
		txp_pkt_free(refused);
	}
	/* Another priority of the same band is refused too. */
	{
		struct txp_pkt *refused = pkt_new(200, 4);

		assert_int_equal(q->ops->enqueue(q, refused), TXP_XMIT_DROP);
		txp_pkt_free(refused);
	}
	/* Bands 0 and 2 still take `limit` each. */
	for (unsigned i = 0; i < limit; i++) {
		enqueue_ok(q, pkt_new(10 + i, PRIO_BAND0));
		enqueue_ok(q, pkt_new(20 + i, PRIO_BAND2));
	}
	assert_int_equal(q->qlen, 3 * limit);
	{
		struct txp_pkt *refused = pkt_new(300, PRIO_BAND0);

		assert_int_equal(q->ops->enqueue(q, refused), TXP_XMIT_DROP);
		txp_pkt_free(refused);
	}

	/* One out of band 1 makes room for exactly one more there. */
	dequeue_expect(q, 10);
	dequeue_expect(q, 11);
	dequeue_expect(q, 12);
	dequeue_expect(q, 0);
	enqueue_ok(q, pkt_new(3, PRIO_BAND1));
	{
		struct txp_pkt *refused = pkt_new(400, PRIO_BAND1);

		assert_int_equal(q->ops->enqueue(q, refused), TXP_XMIT_DROP);
		txp_pkt_free(refused);
	}
	for (uint64_t s = 1; s <= 3; s++)
		dequeue_expect(q, s);
	for (uint64_t s = 20; s < 20 + limit; s++)
		dequeue_expect(q, s);
	assert_empty(q);
	txp_qdisc_destroy(q);
}

/* A requeued packet is the next one out of its band, ahead of those that
 * were behind it, and the qdisc counts it again. */
static void test_requeue_at_head(void **state)
{
	struct txp_qdisc *q = txp_qdisc_create(&txp_pfifo_fast_ops, 10);
	struct txp_pkt *pkt;
	(void)state;

	assert_non_null(q);
	for (uint64_t s = 0; s < 3; s++)
		enqueue_ok(q, pkt_new(s, PRIO_BAND1));
	pkt = q->ops->dequeue(q);
	assert_non_null(pkt);
	assert_int_equal(pkt->seq, 0);
	assert_int_equal(q->qlen, 2);
	enqueue_ok(q, pkt_new(3, PRIO_BAND1));
	q->ops->requeue(q, pkt);
	assert_int_equal(q->qlen, 4);
	for (uint64_t s = 0; s < 4; s++)
		dequeue_expect(q, s);
	assert_empty(q);
	txp_qdisc_destroy(q);
}

/* Requeue into an empty band leaves a usable tail: later packets queue
 * behind it.  And a band-2 packet requeued still waits for band 0. */
static void test_requeue_empty_band_and_bands(void **state)
{
	struct txp_qdisc *q = txp_qdisc_create(&txp_pfifo_fast_ops, 10);
	struct txp_pkt *pkt;
	(void)state;

	assert_non_null(q);
	enqueue_ok(q, pkt_new(0, PRIO_BAND2));
	pkt = q->ops->dequeue(q);
	assert_non_null(pkt);
	assert_empty(q);
	q->ops->requeue(q, pkt);
	assert_int_equal(q->qlen, 1);
	enqueue_ok(q, pkt_new(1, PRIO_BAND2));
	enqueue_ok(q, pkt_new(2, PRIO_BAND0));
	dequeue_expect(q, 2);
	dequeue_expect(q, 0);
	dequeue_expect(q, 1);
	assert_empty(q);
	txp_qdisc_destroy(q);
}

/* As in the kernel, requeue may take a full band one over its limit (the
 * packet just taken out); enqueue keeps refusing until it drains. */
static void test_requeue_over_limit(void **state)
{
	struct txp_qdisc *q = txp_qdisc_create(&txp_pfifo_fast_ops, 2);
	struct txp_pkt *pkt, *refused;
	(void)state;

	assert_non_null(q);
	enqueue_ok(q, pkt_new(0, PRIO_BAND1));
	enqueue_ok(q, pkt_new(1, PRIO_BAND1));
	pkt = q->ops->dequeue(q);
	assert_non_null(pkt);
	enqueue_ok(q, pkt_new(2, PRIO_BAND1));
	q->ops->requeue(q, pkt);
	assert_int_equal(q->qlen, 3);
	refused = pkt_new(99, PRIO_BAND1);
	assert_int_equal(q->ops->enqueue(q, refused), TXP_XMIT_DROP);
	txp_pkt_free(refused);
	dequeue_expect(q, 0);
	refused = pkt_new(98, PRIO_BAND1);
	assert_int_equal(q->ops->enqueue(q, refused), TXP_XMIT_DROP);
	txp_pkt_free(refused);
	dequeue_expect(q, 1);
	enqueue_ok(q, pkt_new(3, PRIO_BAND1));
	dequeue_expect(q, 2);
	dequeue_expect(q, 3);
	assert_empty(q);
	txp_qdisc_destroy(q);
}

/* qlen is the sum over bands through any mix of operations. */
static void test_qlen_bookkeeping(void **state)
{
	static const uint8_t prio[] = { PRIO_BAND0, PRIO_BAND1, PRIO_BAND2 };
	struct txp_qdisc *q = txp_qdisc_create(&txp_pfifo_fast_ops, 1000);
	unsigned held = 0;
	uint64_t seq = 0;
	(void)state;

	assert_non_null(q);
	for (unsigned round = 0; round < 50; round++) {
		for (unsigned i = 0; i < 3 + round % 4; i++) {
			enqueue_ok(q, pkt_new(seq++, prio[(round + i) % 3]));
			held++;
		}
		for (unsigned i = 0; i < 2 + round % 3 && held; i++) {
			struct txp_pkt *pkt = q->ops->dequeue(q);

			assert_non_null(pkt);
			held--;
			assert_int_equal(q->qlen, held);
			if (i == 0) {
				q->ops->requeue(q, pkt);
				held++;
			} else {
				txp_pkt_free(pkt);
			}
			assert_int_equal(q->qlen, held);
		}
	}
	while (held) {
		txp_pkt_free(q->ops->dequeue(q));
		held--;
		assert_int_equal(q->qlen, held);
	}
	assert_empty(q);
	txp_qdisc_destroy(q);
}

static void test_lookup(void **state)
{
	(void)state;

	assert_ptr_equal(txp_qdisc_lookup("pfifo_fast"), &txp_pfifo_fast_ops);
	assert_ptr_equal(txp_qdisc_lookup("noqueue"), &txp_noqueue_ops);
	assert_string_equal(txp_pfifo_fast_ops.id, "pfifo_fast");
	assert_string_equal(txp_noqueue_ops.id, "noqueue");
	assert_null(txp_qdisc_lookup("unknown"));
	assert_null(txp_qdisc_lookup(""));
	assert_null(txp_qdisc_lookup("pfifo"));
	assert_null(txp_qdisc_lookup("PFIFO_FAST"));
	assert_null(txp_qdisc_lookup("pfifo_fast "));
}

/* noqueue holds nothing: no enqueue op (the core calls the driver
 * directly), and dequeue is always empty. */
static void test_noqueue(void **state)
{
	struct txp_qdisc *q = txp_qdisc_create(&txp_noqueue_ops, 5);
	(void)state;

	assert_non_null(q);
	assert_null(q->ops->enqueue);
	assert_empty(q);
	txp_qdisc_destroy(q);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prio2band),
		cmocka_unit_test(test_band_order),
		cmocka_unit_test(test_band_preempts_between_dequeues),
		cmocka_unit_test(test_per_band_limit),
		cmocka_unit_test(test_requeue_at_head),
		cmocka_unit_test(test_requeue_empty_band_and_bands),
		cmocka_unit_test(test_requeue_over_limit),
		cmocka_unit_test(test_qlen_bookkeeping),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_noqueue),
	};

	return txp_test_main(argc, argv, tests);
}
