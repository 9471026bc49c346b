/*
 * xmit_nolock.c - the transmit path of a lockless qdisc (TCQ_F_NOLOCK,
 * Linux 4.16+): __dev_xmit_skb's lockless branch, qdisc_run_begin and
 * qdisc_run_end on the qdisc's seqlock, __qdisc_run and qdisc_restart
 * without a root lock, and net_tx_action for such a queue.
 *
 * Producers enqueue without any lock of the core's (the qdisc's bands are
 * multi-producer rings, src/qdisc/pfifo_nolock.c), then try to become the
 * queue's one runner by a trylock of the seqlock.  The runner dequeues,
 * sends under the xmit lock and releases the seqlock when the queue is
 * empty or stopped.  A producer whose trylock fails leaves its packet to
 * the runner; what keeps that packet from being stranded is the history
 * the qdisc kind follows (enum txp_nolock_rev, txpath/qdisc.h):
 *
 *   5.1   nothing: a runner that already found the qdisc empty releases
 *         the seqlock and nobody sends the packet (the 2021 stuck packet);
 *   5.13  the producer sets MISSED and tries once more; the runner, after
 *         its unlock, reschedules the queue if MISSED is set;
 *   5.19  2022's two barriers: test_and_set_bit(MISSED), so the test is
 *         ordered after the enqueue, and a full barrier between run_end's
 *         unlock (a release store, which a later load may pass) and its
 *         test of MISSED;
 *   6.18  test_and_set_bit(MISSED); a stopped queue clears MISSED and sets
 *         DRAINING; running out of quota sets MISSED; the empty-qdisc
 *         bypass, by the state bits.
 */
#include "xmit.h"
#include "qdisc/nolock.h"

/* Packets __qdisc_run() sends before it gives the CPU back (dev_tx_weight). */
#define TXP_NOLOCK_QUOTA 64
/* Times net_tx_action runs a queue that rescheduled itself before leaving
 * the rest for later (__do_softirq's MAX_SOFTIRQ_RESTART). */
#define TXP_NOLOCK_RESTARTS 10

static inline enum txp_nolock_rev rev_of(const struct txp_txq *txq)
{
	return txq->qdisc->ops->nolock;
}

static inline bool missed(struct txp_qdisc_nolock *nl)
{
	return (txp_load_relaxed(&nl->state) & TXP_QDISC_MISSED) != 0;
}

/* nolock_qdisc_is_empty(): no "not empty" bit set. */
static inline bool nolock_is_empty(struct txp_txq *txq, struct txp_qdisc_nolock *nl)
{
	return !(txp_load_relaxed(&nl->state) & txp__qdisc_non_empty_bits(txq->qdisc));
}

/*
 * qdisc_run_begin(): may this context run the queue?  True: it holds the
 * seqlock until nolock_run_end().  False: another runs it, and (from 5.13
 * on) will see MISSED, set here before the second trylock, once it lets
 * go.  The set is a read-modify-write: a full barrier, ordering the
 * second trylock after it; pairs with the barrier in nolock_run_end() and
 * with the one after the clear in the qdisc's dequeue.  5.13's set is
 * set_bit() and smp_mb__after_atomic() (the barrier came with the fix's
 * own follow-up, 89837eb4, in 5.13): ordered after it, not before.
 */
static bool nolock_run_begin(struct txp_txq *txq, struct txp_qdisc_nolock *nl)
{
	if (txp_spin_trylock(&nl->seqlock))
		return true;
	txp_event("qdisc_run_begin: seqlock busy");
	switch (rev_of(txq)) {
	case TXP_NOLOCK_NONE:
	case TXP_NOLOCK_TRYLOCK:
		return false;
	case TXP_NOLOCK_MISSED:
		/* Set already: another producer is retrying for us all.  A
		 * plain load, which the enqueue's stores may not yet be
		 * visible before (a failed trylock orders nothing). */
		if (missed(nl))
			return false;
		txp_fetch_or_relaxed(&nl->state, TXP_QDISC_MISSED);
		txp_smp_mb__after_atomic();
		break;
	case TXP_NOLOCK_BARRIER:
	case TXP_NOLOCK_DRAINING:
		/* test_and_set_bit(): a full barrier before the test too, so
		 * the runner that clears MISSED sees the enqueue (2022, "net:
		 * sched: fixed barrier to prevent skbuff sticking in qdisc
		 * backlog"). */
		if (txp_fetch_or(&nl->state, TXP_QDISC_MISSED) & TXP_QDISC_MISSED)
			return false;
		break;
	}
	txp_event("qdisc_run_begin: MISSED, trylock again");
	return txp_spin_trylock(&nl->seqlock);
}

/*
 * qdisc_run_end(): release the seqlock; from 5.13 on, reschedule the queue
 * if a producer missed it meanwhile.  The unlock is a release store: until
 * 5.19 nothing kept the test of MISSED, a later load, from being satisfied
 * before the unlock is visible, so a producer could fail its second
 * trylock and set MISSED after the test.  The barrier pairs with the
 * read-modify-write that sets MISSED in nolock_run_begin().
 */
static void nolock_run_end(struct txp_txq *txq, struct txp_qdisc_nolock *nl)
{
	enum txp_nolock_rev rev = rev_of(txq);

	txp_spin_unlock(&nl->seqlock);
	if (rev < TXP_NOLOCK_MISSED)
		return;
	if (rev >= TXP_NOLOCK_BARRIER)
		txp_smp_mb();
	if (missed(nl)) {
		txp_event("qdisc_run_end: MISSED, reschedule");
		txp__netif_schedule(txq);
	}
}

/*
 * qdisc_maybe_clear_missed() (6.18): the queue is stopped, so rescheduling
 * it on MISSED would only spin; its wake will schedule it.  Clear MISSED,
 * then, after a full barrier, look again: awake now (a wake came between)
 * sets MISSED back, still stopped sets DRAINING (not empty, for the
 * bypass).  Caller holds the seqlock.
 */
static void nolock_maybe_clear_missed(struct txp_txq *txq, struct txp_qdisc_nolock *nl)
{
	txp_assert_held(&nl->seqlock);
	txp_fetch_and_relaxed(&nl->state, ~TXP_QDISC_MISSED);	/* clear_bit() */
	/* smp_mb__after_atomic(): the clear before the second look. */
	txp_smp_mb__after_atomic();
	txp_fetch_or_relaxed(&nl->state, txp__txq_frozen_or_stopped(txq) ? TXP_QDISC_DRAINING
								  : TXP_QDISC_MISSED);
}

/* Put pkts[0..n) back, in order: 6.18 sets MISSED (run_end reschedules),
 * the older ones schedule the queue.  Caller holds the seqlock. */
static void nolock_requeue(struct txp_txq *txq, struct txp_qdisc_nolock *nl,
			   struct txp_pkt **pkts, unsigned n, int self)
{
	txp_assert_held(&nl->seqlock);
	txp__requeue_batch(txq, pkts, n, self);
	if (rev_of(txq) >= TXP_NOLOCK_DRAINING)
		txp_fetch_or_relaxed(&nl->state, TXP_QDISC_MISSED);	/* set_bit() */
	else
		txp__netif_schedule(txq);
}

/*
 * sch_direct_xmit() without a root lock: send pkts[0..n) under the xmit
 * lock (core mode; nobody but the seqlock's holder and the watchdog takes
 * it, so it is taken spinning, as HARD_TX_LOCK does); what the driver did
 * not take is requeued.  True when all of it was sent.  Caller holds the
 * seqlock.
 */
static bool nolock_xmit(struct txp_txq *txq, struct txp_qdisc_nolock *nl, struct txp_pkt **pkts,
			unsigned n, int self)
{
	bool core = txq->dev->lock == TXP_LOCK_CORE;
	enum txp_tx rc;
	unsigned sent;

	txp_assert_held(&nl->seqlock);
	if (core)
		xmit_lock_take(txq);
	sent = txp__send_batch(txq, pkts, n, self, &rc);
	if (core)
		xmit_lock_release(txq);
	if (sent == n)
		return true;
	if (rc == TXP_TX_LOCKED && !core)
		txp__stat_add(txq, self, TXP__ST_COLLISIONS, 1);
	nolock_requeue(txq, nl, pkts + sent, n - sent, self);
	return false;
}

/* qdisc_restart(): a batch off the qdisc, sent.  Packets sent, 0: stop.
 * Caller holds the seqlock. */
static unsigned nolock_restart(struct txp_txq *txq, struct txp_qdisc_nolock *nl, int self)
{
	struct txp_qdisc *q = txq->qdisc;
	struct txp_pkt *pkts[TXP_DEV_BULK_MAX];
	unsigned n = 0;

	txp_assert_held(&nl->seqlock);
	/* dequeue_skb() on a queue of its own (TCQ_F_ONETXQUEUE). */
	if (txp__txq_frozen_or_stopped(txq)) {
		if (rev_of(txq) >= TXP_NOLOCK_DRAINING)
			nolock_maybe_clear_missed(txq, nl);
		return 0;
	}
	while (n < txq->dev->bulk && (pkts[n] = q->ops->dequeue(q)) != NULL)
		n++;
	if (!n) {
		txp_event("qdisc_restart: qdisc empty");	/* the 2021 race's window */
		return 0;
	}
	txp_event("qdisc_restart");
	return nolock_xmit(txq, nl, pkts, n, self) ? n : 0;
}

/* __qdisc_run(): restart until the qdisc is empty, the queue stops, or the
 * quota is spent (then 6.18 sets MISSED, the older ones reschedule).
 * Caller holds the seqlock. */
static void __nolock_run(struct txp_txq *txq, struct txp_qdisc_nolock *nl, int self)
{
	int quota = TXP_NOLOCK_QUOTA;
	unsigned sent;

	txp_assert_held(&nl->seqlock);
	while ((sent = nolock_restart(txq, nl, self)) != 0) {
		quota -= (int)sent;
		if (quota > 0)
			continue;
		if (rev_of(txq) >= TXP_NOLOCK_DRAINING)
			txp_fetch_or_relaxed(&nl->state, TXP_QDISC_MISSED);	/* set_bit() */
		else
			txp__netif_schedule(txq);
		break;
	}
}

/* qdisc_run(). */
static void nolock_qdisc_run(struct txp_txq *txq, struct txp_qdisc_nolock *nl, int self)
{
	if (!nolock_run_begin(txq, nl))
		return;
	__nolock_run(txq, nl, self);
	nolock_run_end(txq, nl);
}

/* Would pkts[0..n) be the next batch of an empty qdisc: within the bulk
 * size and the band's limit, all of one band, the queue awake? */
static bool bypass_fits(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n)
{
	struct txp_dev *dev = txq->dev;

	if (n > dev->bulk || n > dev->txqueuelen || txp__txq_frozen_or_stopped(txq))
		return false;
	for (unsigned i = 1; i < n; i++)
		if (txp_pfifo_fast_band(pkts[i]->priority) != txp_pfifo_fast_band(pkts[0]->priority))
			return false;
	return true;
}

/* Enqueue what fits of pkts[0..n): keep stops at the first refusal (the
 * rest the caller's), else what is refused is dropped.  Returns how many
 * the qdisc took. */
static unsigned nolock_enqueue(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self,
			       bool keep)
{
	struct txp_qdisc *q = txq->qdisc;
	unsigned taken = 0;

	for (unsigned i = 0; i < n; i++) {
		if (q->ops->enqueue(q, pkts[i]) == TXP_XMIT_OK) {
			taken++;
		} else if (keep) {
			break;
		} else {
			txp__drop(txq, self, pkts[i], TXP_DROP_QDISC_LIMIT);
		}
	}
	if (keep)
		txp__stat_add(txq, self, TXP__ST_SUBMITTED, taken);
	return taken;
}

unsigned txp__xmit_nolock(struct txp_txq *txq, struct txp_pkt **pkts, unsigned n, int self,
			  bool keep)
{
	struct txp_qdisc_nolock *nl = txp__qdisc_nolock(txq->qdisc);
	bool running = false;
	unsigned taken;

	/* 6.18: an empty qdisc nobody runs is bypassed (TCQ_F_CAN_BYPASS). */
	if (rev_of(txq) >= TXP_NOLOCK_DRAINING && bypass_fits(txq, pkts, n) &&
	    nolock_is_empty(txq, nl) && nolock_run_begin(txq, nl)) {
		running = true;
		/* Again under the seqlock: a requeue may have come between. */
		if (nolock_is_empty(txq, nl)) {
			if (keep)
				txp__stat_add(txq, self, TXP__ST_SUBMITTED, n);
			txp_event("qdisc bypass");
			if (nolock_xmit(txq, nl, pkts, n, self) && !nolock_is_empty(txq, nl))
				__nolock_run(txq, nl, self);
			nolock_run_end(txq, nl);
			return n;
		}
	}
	taken = nolock_enqueue(txq, pkts, n, self, keep);
	if (running) {
		__nolock_run(txq, nl, self);
		nolock_run_end(txq, nl);
	} else {
		nolock_qdisc_run(txq, nl, self);
	}
	return taken;
}

/*
 * net_tx_action for a lockless queue just unscheduled.  A run that
 * reschedules the queue (MISSED, quota) is the softirq raised again: run
 * it again here, up to TXP_NOLOCK_RESTARTS times, then leave it scheduled.
 * A stopped queue is not run (6.18's reason to clear MISSED, done here for
 * every history): its wake schedules it again.
 */
void txp__nolock_tx_action(struct txp_txq *txq)
{
	struct txp_qdisc_nolock *nl = txp__qdisc_nolock(txq->qdisc);
	int self = txp_ctx_self();
	unsigned restarts = 0;

	do {
		if (txp__txq_frozen_or_stopped(txq))
			return;
		nolock_qdisc_run(txq, nl, self);
	/* The exchange's acquire pairs with the release in
	 * txp__netif_schedule(), as in txp_net_tx_action_txq(). */
	} while (++restarts < TXP_NOLOCK_RESTARTS && txp_load_relaxed(&txq->sched) &&
		 txp_xchg(&txq->sched, 0));
}

void txp__qdisc_lock(struct txp_txq *txq)
{
	struct txp_qdisc_nolock *nl = txp__qdisc_nolock(txq->qdisc);

	txp_spin_lock(nl ? &nl->seqlock : &txq->root_lock);
}

void txp__qdisc_unlock(struct txp_txq *txq)
{
	struct txp_qdisc_nolock *nl = txp__qdisc_nolock(txq->qdisc);

	txp_spin_unlock(nl ? &nl->seqlock : &txq->root_lock);
}
