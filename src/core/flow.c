/*
 * flow.c - queue flow control (netif_stop_queue(), netif_wake_queue()):
 * the driver's XOFF bit, which it sets when its ring is full and its
 * completion clears; the stop generation, which tells a caller of
 * start_xmit whether the queue stopped under it; and the stop half of the
 * lockless stop/wake helpers (txpath/driver.h).  BQL's own XOFF bit is
 * bql.c's.
 */
#include "xmit.h"

bool txp_netif_queue_stopped(const struct txp_txq *txq)
{
	return txp__txq_stopped(txq);
}

bool txp_netif_xmit_stopped(const struct txp_txq *txq)
{
	return txp__txq_stopped(txq) || txp__txq_stack_xoff(txq);
}

/*
 * As netif_tx_stop_queue(): trans_start stamped (the watchdog's fix of
 * 2024; txp__trans_update()), then set_bit(), an unordered atomic
 * read-modify-write: on x86 (the memory model tso) a locked instruction,
 * so a full barrier; on arm64 (arm) ordered by nothing.  A driver that
 * rechecks its ring after stopping needs smp_mb__after_atomic() (or
 * smp_mb()) in between, pairing with the barrier of its completion path
 * before it tests "stopped".  The stop generation lets a caller of
 * start_xmit tell whether the queue was stopped under it.  Stops are
 * serialised by the driver, so check-then-set loses nothing, and the
 * generation needs no locked add.  It moves after the flag, with
 * release: a caller that reads the new generation (with acquire, in
 * txp__xmit_watch()) then sees the queue stopped, so no stop falls
 * between its two reads uncounted.
 */
void txp_netif_stop_queue(struct txp_txq *txq)
{
	if (txp_netif_queue_stopped(txq))
		return;
	txp__trans_update(txq);
	txp_fetch_or_relaxed(&txq->stopped, 1);
	txp_stat_store_release(&txq->stop_gen, txp_stat_load_acquire(&txq->stop_gen) + 1);
	txp__stat_add(txq, txp_ctx_self(), TXP__ST_STOPS, 1);
}

void txp_netif_wake_queue(struct txp_txq *txq)
{
	/* test_and_clear_bit(): a fully ordered read-modify-write; pairs
	 * with the set in txp_netif_stop_queue(). */
	if (!txp_xchg(&txq->stopped, 0))
		return;
	txp__stat_add(txq, txp_ctx_self(), TXP__ST_WAKES, 1);
	txp_event("netif_wake_queue()");
	txp__netif_schedule(txq);
}

void txp_netif_tx_start_queue(struct txp_txq *txq)
{
	/* clear_bit(), unordered, without the reschedule: the caller is
	 * start_xmit, which is about to send anyway. */
	if (txp_fetch_and_relaxed(&txq->stopped, 0))
		txp__stat_add(txq, txp_ctx_self(), TXP__ST_WAKES, 1);
}

void txp_netif_txq_stop_mb(struct txp_txq *txq)
{
	txp_netif_stop_queue(txq);
	/* smp_mb__after_atomic(): the stop before the recheck of the ring.
	 * Pairs with the barrier of txp_netif_txq_completed_wake(). */
	txp_smp_mb__after_atomic();
}
