/*
 * veth.c - the simulated NIC as veth's transmit side since Linux 6.16
 * ("veth: apply qdisc backpressure on full ptr_ring"): the ring is the
 * peer's ptr_ring, the completion context its NAPI poll, and a full ring
 * stops the queue (qdisc backpressure) instead of dropping.  Two
 * personalities (DESIGN.md §8, "A 2025 lost wakeup"; CVE-2025-68232):
 *
 *  veth-6.16  the producer stops the queue, then, with a full barrier,
 *             tests the consumer-side emptiness predicate and wakes the
 *             queue itself if the ring is empty; the consumer wakes the
 *             queue from its receive loop, with no barrier.  Between its
 *             consuming and that test the consumer makes only a relaxed
 *             read-modify-write (the poll's accounting: a locked
 *             instruction, so a full barrier, on x86; unordered on ARM64),
 *             so under arm its consuming can still be in its store buffer
 *             when it tests "stopped", and the producer's predicate reads
 *             the ring as it was: neither wakes.  Proved under sc and tso.
 *  veth       the fix (6.18): the producer only stops and kicks NAPI; the
 *             consumer wakes the queue once per poll, after NAPI's
 *             completion (its full barrier) and smp_rmb().
 *
 * NAPI is one word, rx_notify_masked: a producer that posted (or, fixed,
 * stopped) kicks it with a full barrier then a test, as
 * __veth_xdp_flush(); the consumer polls while it is set and clears it
 * when a poll ends with room left in its budget, then looks at the ring
 * again.
 */
#include <string.h>

#include "sim.h"

/* The consumer-side emptiness predicate (__ptr_ring_empty()): the ring as
 * the consumer last published it.  prod: the producer's count. */
static bool veth_ring_empty(struct txp_sim *sim, uint64_t prod)
{
	return txp_load_relaxed(&sim->cons) == prod;
}

void txp__sim_veth_kick(struct txp_sim *sim)
{
	/* smp_mb(): what was posted (or the stop) before the test; pairs
	 * with the barrier after the consumer clears it. */
	txp_smp_mb();
	if (txp_load_relaxed(&sim->napi))
		return;
	txp_store_relaxed(&sim->napi, 1);
	txp_event("napi_schedule()");
}

enum txp_tx txp__sim_veth_full(struct txp_sim *sim, uint64_t prod)
{
	txp_netif_stop_queue(sim->txq);
	txp_event("ring full, netif_tx_stop_queue()");
	if (sim->p->veth == TXP_SIM_VETH_FIXED) {
		/* The consumer alone wakes the queue: make sure it runs. */
		txp__sim_veth_kick(sim);
		return TXP_TX_BUSY;
	}
	/* smp_mb__after_atomic() after set_bit() (the stop). */
	txp_smp_mb__after_atomic();
	if (veth_ring_empty(sim, prod)) {
		txp_event("ring empty: netif_tx_wake_queue()");
		txp_netif_wake_queue(sim->txq);
	}
	return TXP_TX_BUSY;
}

/* The peer's queue stopped: wake it (the consumer just made room). */
static void veth_wake_peer(struct txp_sim *sim)
{
	if (txp_netif_queue_stopped(sim->txq))
		txp_netif_wake_queue(sim->txq);
}

unsigned txp__sim_veth_poll(struct txp_sim *sim, unsigned budget, struct sim_retired *r)
{
	unsigned n;

	if (!txp_load_relaxed(&sim->napi)) {
		memset(r, 0, sizeof(*r));	/* not scheduled: nothing retired */
		return 0;
	}
	n = txp__sim_reap(sim, budget, UINT64_MAX, r);
	/* The poll's accounting: orders nothing but itself (on ARM64). */
	txp_fetch_add_relaxed(&sim->napi_polls, 1);
	if (sim->p->veth == TXP_SIM_VETH_2025)
		veth_wake_peer(sim);	/* in the receive loop, no barrier */
	if (n < budget) {
		/* napi_complete_done(), then smp_store_mb(rx_notify_masked,
		 * false): cleared before the ring is looked at again, which
		 * pairs with the barrier of txp__sim_veth_kick(). */
		txp_store_relaxed(&sim->napi, 0);
		txp_smp_mb();
		if (!veth_ring_empty(sim, txp_load_acquire(&sim->prod)))
			txp_store_relaxed(&sim->napi, 1);
	}
	if (sim->p->veth == TXP_SIM_VETH_FIXED) {
		/* Once per poll: smp_rmb() pairs with the stop before the kick
		 * (what this poll saw of the kick, then "stopped"). */
		txp_rmb();
		veth_wake_peer(sim);
	}
	return n;
}
