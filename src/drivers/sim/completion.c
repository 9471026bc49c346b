/*
 * completion.c - the simulated NIC's completion context: its "interrupt".
 *
 * One thread per device.  Each pass retires up to `batch` packets (fewer
 * when a line rate is set), wakes the queue above the wake threshold,
 * puts the retired packets on the wire, then runs the queues that were
 * scheduled, as net_tx_action() would on the way out of the interrupt.
 */
#include "sim.h"
#include "txpath/ctx.h"

#define SIM_IDLE_SPINS 32
#define SIM_MAX_NAP_NS 1000000u	/* so that stopping never waits long */

/* Take what serialises retiring against start_xmit's stop; returns the
 * saved interrupt state for comp_unlock(). */
static unsigned long comp_lock(struct txp_sim *sim)
{
	unsigned long flags = 0;

	switch (sim->p->completion) {
	case TXP_SIM_COMP_OWN_LOCK:
		flags = txp_local_irq_save();
		txp_spin_lock(&sim->tx_lock);
		break;
	case TXP_SIM_COMP_XMIT_LOCK_IRQ:
		txp_netif_tx_lock_irq(sim->txq);
		break;
	case TXP_SIM_COMP_BARRIER:
		break;
	}
	return flags;
}

static void comp_unlock(struct txp_sim *sim, unsigned long flags)
{
	switch (sim->p->completion) {
	case TXP_SIM_COMP_OWN_LOCK:
		txp_spin_unlock(&sim->tx_lock);
		txp_local_irq_restore(flags);
		break;
	case TXP_SIM_COMP_XMIT_LOCK_IRQ:
		txp_netif_tx_unlock_irq(sim->txq);
		break;
	case TXP_SIM_COMP_BARRIER:
		break;
	}
}

/* Is the queue stopped with room for it again?  (cons: as just retired.) */
static bool sim_wants_wake(struct txp_sim *sim, uint64_t cons)
{
	return txp_netif_queue_stopped(sim->txq) &&
	       sim_avail(sim, txp_load_acquire(&sim->prod), cons) > sim->wake_thresh;
}

/*
 * The lockless personalities wake from "softirq" context, after the
 * interrupt, as NAPI poll does.  The barrier pairs with the one between
 * the stop and the recheck in sim_maybe_stop().  The test is made again
 * under the xmit lock: start_xmit's recheck wakes too, so a wake decided
 * here on a view of the ring that start_xmit has since filled and stopped
 * again would wake a full ring.
 */
static void sim_wake_softirq(struct txp_sim *sim, uint64_t cons)
{
	txp_smp_mb();
	if (!txp_netif_queue_stopped(sim->txq)) {
		txp_trace("queue awake: nothing to wake");
		return;
	}
	if (sim_avail(sim, txp_load_acquire(&sim->prod), cons) <= sim->wake_thresh)
		return;
	txp_netif_tx_lock(sim->txq);
	if (sim_wants_wake(sim, txp_load_acquire(&sim->cons)))
		txp_netif_wake_queue(sim->txq);
	txp_netif_tx_unlock(sim->txq);
}

/*
 * Retire up to budget packets onto *done (a list through pkt->next) and
 * wake the queue if it is stopped and room is back.  Returns the count.
 * Like a NIC, which interrupts only when it has completed descriptors,
 * a pass that finds none does nothing: a wake that is missed is missed.
 */
static unsigned sim_reap(struct txp_sim *sim, unsigned budget, struct txp_pkt **done)
{
	struct txp_pkt **tail = done;
	unsigned long flags;
	uint64_t cons, prod;
	unsigned n = 0;

	*done = NULL;
	cons = txp_load_relaxed(&sim->cons);
	if (cons == txp_load_acquire(&sim->prod))
		return 0;

	txp_irq_enter();
	flags = comp_lock(sim);
	/* Acquire: pairs with the release of prod in sim_post(). */
	prod = txp_load_acquire(&sim->prod);
	while (cons < prod && n < budget) {
		struct sim_desc *d = &sim->ring[cons % sim->size];

		if (!d->pkt) {
			txp_counter_add_shared(&sim->ring_errors, 1);
		} else if (d->pkt != SIM_FRAG) {
			*tail = d->pkt;
			tail = &d->pkt->next;
			n++;
		}
		d->pkt = NULL;
		cons++;
	}
	*tail = NULL;
	txp_trace("reclaim descriptors");
	/* Release: clean slots before the index; pairs with the acquire of
	 * cons in sim_start_xmit(). */
	txp_store_release(&sim->cons, cons);
	if (sim->p->completion != TXP_SIM_COMP_BARRIER && sim_wants_wake(sim, cons))
		txp_netif_wake_queue(sim->txq);
	comp_unlock(sim, flags);
	txp_irq_exit();
	if (sim->p->completion == TXP_SIM_COMP_BARRIER)
		sim_wake_softirq(sim, cons);
	return n;
}

/* How many packets the line rate allows now (budget when unlimited). */
static unsigned sim_line_budget(struct txp_sim *sim, uint64_t t0, uint64_t sent)
{
	uint64_t allowed;

	if (!sim->line_rate)
		return sim->batch;
	allowed = (uint64_t)((double)(txp_now_ns() - t0) * (double)sim->line_rate / 1e9);
	if (allowed <= sent)
		return 0;
	return allowed - sent < sim->batch ? (unsigned)(allowed - sent) : sim->batch;
}

static void *sim_completion_main(void *arg)
{
	struct txp_sim *sim = arg;
	uint64_t t0 = txp_now_ns(), sent = 0;
	unsigned idle = 0;

	txp_ctx_attach();
	while (txp_load_acquire(&sim->running)) {
		unsigned budget = sim_line_budget(sim, t0, sent), n;
		struct txp_pkt *done, *next;

		if (budget == 0) {
			uint64_t gap = 1000000000u / sim->line_rate;

			txp_sleep_ns(gap < SIM_MAX_NAP_NS ? gap : SIM_MAX_NAP_NS);
			continue;
		}
		n = sim_reap(sim, budget, &done);
		for (; done; done = next) {
			next = done->next;
			wire_record(&sim->wire, done->flow, done->seq);
			txp_pkt_complete(sim->dev, done);
		}
		sent += n;
		txp_net_tx_action(sim->dev);
		if (n) {
			idle = 0;
		} else {
			/* An idle line does not bank credit for a later burst. */
			if (sim->line_rate)
				sent += sim_line_budget(sim, t0, sent);
			if (++idle < SIM_IDLE_SPINS)
				txp_cpu_relax();
			else
				txp_thread_yield();
		}
	}
	txp_ctx_detach();
	return NULL;
}

int sim_completion_start(struct txp_sim *sim)
{
	atomic_init(&sim->running, true);
	return -txp_thread_start_named(&sim->thread, "IRQ", sim_completion_main, sim);
}

void sim_completion_stop(struct txp_sim *sim)
{
	/* Release: pairs with the acquire in the loop above. */
	txp_store_release(&sim->running, false);
	txp_thread_join(&sim->thread);
}
