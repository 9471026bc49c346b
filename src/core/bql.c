/*
 * bql.c - byte queue limits on a transmit queue (netdev_tx_sent_queue(),
 * netdev_tx_completed_queue(), Linux 3.3): the stack's XOFF bit, set when
 * the bytes in flight pass the limit and cleared when completions bring
 * them back under it, and the completion half of the lockless stop/wake
 * helpers (txpath/driver.h).  The limit itself is dql.c's.
 */
#include "xmit.h"

/* netdev_tx_sent_queue() on a device with BQL. */
static inline void bql_sent(struct txp_txq *txq, unsigned bytes)
{
	txp_dql_queued(&txq->dql, bytes);
	if (txp_likely(txp_dql_avail(&txq->dql) >= 0))
		return;
	/* trans_start, then set_bit() (unordered) after the watchdog's
	 * barrier (txp__trans_update()). */
	txp__trans_update(txq);
	txp_fetch_or_relaxed(&txq->stack_xoff, 1);
	txp_event("BQL limit: STACK_XOFF set");
	txp__stat_add(txq, txp_ctx_self(), TXP__ST_BQL_STOPS, 1);
	/* smp_mb__after_atomic(): the stop is visible before the recheck
	 * below reads the completion side.  Pairs with the barrier in
	 * bql_completed(): one of the two sees the other,
	 * so the queue cannot stay stopped with nothing in flight. */
	txp_smp_mb__after_atomic();
	if (txp_unlikely(txp_dql_avail(&txq->dql) >= 0))
		txp_fetch_and_relaxed(&txq->stack_xoff, 0);	/* clear_bit() */
}

void txp_netdev_tx_sent_queue(struct txp_txq *txq, unsigned bytes)
{
	if (txq->dev->bql)
		bql_sent(txq, bytes);
}

bool txp_netdev_tx_sent_queue_more(struct txp_txq *txq, unsigned bytes, bool xmit_more)
{
	if (xmit_more) {
		if (txq->dev->bql)
			txp_dql_queued(&txq->dql, bytes);
		return txp__txq_stopped(txq);
	}
	if (txq->dev->bql)
		bql_sent(txq, bytes);
	return true;
}

/*
 * Does the calling context hold txq's xmit lock in core mode?  Then no
 * start_xmit runs on txq meanwhile, so neither BQL's sent side nor a
 * driver's stop: a completion made there (a driver completing within
 * start_xmit, as the null driver does) is ordered with them by the lock.
 */
static inline bool xmit_lock_mine(const struct txp_txq *txq)
{
	return txq->dev->lock == TXP_LOCK_CORE &&
	       txp__spin_owner_raw(&txq->xmit_lock) == txp_ctx_self();
}

/* netdev_tx_completed_queue() on a device with BQL, its barrier only if
 * mb (else the caller holds the xmit lock: xmit_lock_mine()). */
static inline void bql_completed(struct txp_txq *txq, unsigned bytes, bool mb)
{
	txp_dql_completed(&txq->dql, bytes, TXP_DQL_NOW);
	/* Without this barrier the queue could stay stopped for good: the
	 * completion must be visible before XOFF is tested, as the sent
	 * side's stop is before it rechecks.  Pairs with the barrier in
	 * bql_sent(); the stop/wake helpers rely on it
	 * (txp_netif_txq_completed_wake). */
	if (mb)
		txp_smp_mb();
	if (txp_dql_avail(&txq->dql) < 0)
		return;
	/* Tested before it is cleared, so a queue that runs costs no locked
	 * exchange, nor its flow-control line's ownership.  A stop this load
	 * misses is one whose recheck, after its own barrier, sees this
	 * completion and restarts the queue itself. */
	if (txp_load_relaxed(&txq->stack_xoff) && txp_xchg(&txq->stack_xoff, 0))
		txp__netif_schedule(txq);
}

void txp_netdev_tx_completed_queue(struct txp_txq *txq, unsigned pkts, unsigned bytes)
{
	(void)pkts;
	if (txp_likely(bytes) && txq->dev->bql)
		bql_completed(txq, bytes, !xmit_lock_mine(txq));
}

void txp_netdev_tx_reset_queue(struct txp_txq *txq)
{
	txp_fetch_and_relaxed(&txq->stack_xoff, 0);	/* clear_bit() */
	txp_dql_reset(&txq->dql);
}

/* netdev_txq_completed_mb(): BQL's completion and its barrier, or without
 * BQL the barrier alone. */
void txp_netdev_txq_completed_mb(struct txp_txq *txq, unsigned pkts, unsigned bytes)
{
	(void)pkts;
	if (!bytes)
		return;
	if (txq->dev->bql)
		bql_completed(txq, bytes, true);
	else
		txp_smp_mb();
}
