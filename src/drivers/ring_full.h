/*
 * ring_full.h - Miller's rule (2.6.11), and the rules before it: what a
 * driver's start_xmit does when it finds no room in its ring for the
 * packet.  Written once for the simulated NIC (sim/sim.c), which has all
 * three rules, one per personality, and the ring of the real drivers
 * (common/ring.c), which has Miller's.
 *
 * The queue found stopped is the LLTX race, harmless: a producer passed
 * the core's "stopped" test just before another stopped the queue, and
 * reached the ring after it.  Found awake, the driver forgot to stop it:
 * a real bug.
 */
#ifndef TXP_DRIVERS_RING_FULL_H
#define TXP_DRIVERS_RING_FULL_H

#include "sync/sync.h"
#include "txpath/driver.h"
#include "txpath/sim.h"

/*
 * The ring lacks room at entry: count it by whether txq was stopped
 * (*full_stopped, *full_awake: shared counters), and stop txq as rule
 * says: TXP_SIM_FULL_CHECK_STOPPED, Miller's, only if it was awake;
 * TXP_SIM_FULL_LOG_BUG (2004) and TXP_SIM_FULL_SILENT (Roland's patch)
 * either way.  trace: draw it in the explorer's diagrams, as the
 * simulated NIC always has (the real ring never did).
 * Synchronization: called serialised, as start_xmit (the xmit lock, or
 * the driver's own lock).
 * Returns the bug to log (txp_dev_log_bug()) once the driver's lock is
 * released, or NULL; start_xmit then returns TXP_TX_BUSY.
 */
static inline const char *txp__ring_full(struct txp_txq *txq, enum txp_sim_ring_full rule,
					 _Atomic uint64_t *full_stopped,
					 _Atomic uint64_t *full_awake, bool trace)
{
	bool stopped = txp_netif_queue_stopped(txq);
	bool log = false;

	if (trace)
		txp_event(stopped ? "queue is already full! (stopped)" : "queue is already full!");
	txp_counter_add_shared(stopped ? full_stopped : full_awake, 1);
	switch (rule) {
	case TXP_SIM_FULL_LOG_BUG:
		txp_netif_stop_queue(txq);
		log = true;
		break;
	case TXP_SIM_FULL_SILENT:
		txp_netif_stop_queue(txq);
		break;
	case TXP_SIM_FULL_CHECK_STOPPED:
		if (!stopped) {
			txp_netif_stop_queue(txq);
			log = true;
		}
		break;
	}
	return log ? "Tx Ring full when queue awake!" : NULL;
}

#endif
