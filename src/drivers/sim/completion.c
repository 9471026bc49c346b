/*
 * completion.c - the simulated NIC's completion context: its "interrupt".
 *
 * One thread per queue (an interrupt vector each).  Each pass retires up to `batch` packets (fewer
 * when a line rate is set), wakes the queue above the wake threshold,
 * puts the retired packets on the wire, then runs the queues that were
 * scheduled, as net_tx_action() would on the way out of the interrupt.
 * With faults (fault.h) the NIC's sending and its interrupt are two
 * steps, so that an interrupt can be lost or late, a descriptor fail and
 * the carrier go away; without, a pass is exactly as it always was.
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
	case TXP_SIM_COMP_HELPER:
	case TXP_SIM_COMP_NAPI:
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
	case TXP_SIM_COMP_HELPER:
	case TXP_SIM_COMP_NAPI:
		break;
	}
}

/* Does the completion retire without a lock shared with start_xmit? */
static inline bool comp_lockless(const struct txp_sim *sim)
{
	return sim->p->completion != TXP_SIM_COMP_OWN_LOCK &&
	       sim->p->completion != TXP_SIM_COMP_XMIT_LOCK_IRQ;
}

/* Is the queue stopped with room for it again?  (cons: as just retired.)
 * Not while the carrier is gone (link-flap): then it stays stopped. */
static bool sim_wants_wake(struct txp_sim *sim, uint64_t cons)
{
	return !sim->fault.link_down && txp_netif_queue_stopped(sim->txq) &&
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
		txp_event("queue awake: nothing to wake");
		return;
	}
	if (sim_avail(sim, txp_load_acquire(&sim->prod), cons) <= sim->wake_thresh)
		return;
	txp_netif_tx_lock(sim->txq);
	if (sim_wants_wake(sim, txp_load_acquire(&sim->cons)))
		txp_netif_wake_queue(sim->txq);
	txp_netif_tx_unlock(sim->txq);
}

/* How the NIC finished the packet in slot i: sent, unless a fault says. */
static inline enum sim_desc_status sim_desc_status(const struct txp_sim *sim, unsigned i)
{
	return sim->fault.status ? (enum sim_desc_status)sim->fault.status[i] : SIM_DESC_SENT;
}

/* Wake, as the personality does it once descriptors were retired (cons:
 * as just retired); called with comp_lock() held, then after_unlock with
 * it released. */
static void sim_wake_locked(struct txp_sim *sim, uint64_t cons)
{
	if (!comp_lockless(sim) && sim_wants_wake(sim, cons))
		txp_netif_wake_queue(sim->txq);
}

/* After the interrupt: the lockless personalities wake here; the modern
 * one through the helper, which reports the pkts packets of `bytes` just
 * retired to BQL and uses its barrier.  Its one waker is this context. */
static void sim_wake_after_unlock(struct txp_sim *sim, uint64_t cons, unsigned pkts,
				  unsigned bytes)
{
	if (sim->p->completion == TXP_SIM_COMP_BARRIER) {
		/* A driver of Linux 3.3 reports to BQL first, then its own
		 * barrier and wake. */
		if (sim->p->bql)
			txp_netdev_tx_completed_queue(sim->txq, pkts, bytes);
		sim_wake_softirq(sim, cons);
	} else if (sim->p->completion == TXP_SIM_COMP_HELPER)
		txp_netif_txq_completed_wake_unless(
			sim->txq, pkts, bytes, sim_avail(sim, txp_load_acquire(&sim->prod), cons),
			sim->wake_thresh + 1, sim->fault.link_down);
}

/*
 * Retire up to budget packets, and no descriptor at or past limit, onto
 * r, and wake the queue if it is stopped and room is back.  Returns the
 * count.  Like a NIC, which interrupts only when it has completed
 * descriptors, a pass that finds none does nothing: a wake that is
 * missed is missed.
 */
unsigned txp__sim_reap(struct txp_sim *sim, unsigned budget, uint64_t limit,
		       struct sim_retired *r)
{
	unsigned long flags;
	uint64_t cons, prod;
	unsigned n = 0, bytes = 0;

	sim_retired_init(r);
	cons = txp_load_relaxed(&sim->cons);
	if (!budget || cons == txp_load_acquire(&sim->prod) || cons == limit)
		goto out;

	txp_irq_enter();
	flags = comp_lock(sim);
	/* Acquire: pairs with the release of prod in sim_post(). */
	prod = txp_load_acquire(&sim->prod);
	if (prod > limit)
		prod = limit;
	while (cons < prod && n < budget) {
		unsigned i = (unsigned)(cons % sim->size);
		struct sim_desc *d = &sim->ring[i];

		if (!d->pkt) {
			txp_counter_add_shared(&sim->ring_errors, 1);
		} else if (d->pkt != SIM_FRAG) {
			sim_retired_add(r, sim_desc_status(sim, i), d->pkt);
			bytes += d->pkt->len;
			n++;
		}
		d->pkt = NULL;
		cons++;
	}
	txp_event("reclaim descriptors");
	txp_counter_add_shared(&sim->bytes_retired, bytes);
	/* Release: clean slots before the index; pairs with the acquire of
	 * cons in sim_start_xmit(). */
	txp_store_release(&sim->cons, cons);
	sim_wake_locked(sim, cons);
	comp_unlock(sim, flags);
	txp_irq_exit();
	sim_wake_after_unlock(sim, cons, n, bytes);
out:
	sim_retired_end(r);
	return n;
}

void txp__sim_deliver(struct txp_sim *sim, struct sim_retired *r, enum txp_drop_reason unsent)
{
	const enum txp_drop_reason why[SIM_UNSENT + 1] = {
		[SIM_DESC_ERROR] = TXP_DROP_TX_ERROR,
		[SIM_DESC_NO_CARRIER] = TXP_DROP_DEV_DOWN,
		[SIM_UNSENT] = unsent,
	};
	struct txp_pkt *pkt, *next;

	for (pkt = r->list[SIM_DESC_SENT]; pkt; pkt = next) {
		next = pkt->next;
		txp_wire_record(&sim->wire, pkt->flow, pkt->seq);
		txp_pkt_complete(sim->dev, pkt);
	}
	for (int s = SIM_DESC_SENT + 1; s <= SIM_UNSENT; s++) {
		for (pkt = r->list[s]; pkt; pkt = next) {
			next = pkt->next;
			txp_pkt_drop(sim->dev, pkt, why[s]);
		}
	}
}

/* -- a pass with faults ------------------------------------------------------- */

/*
 * The NIC works through up to budget packets posted beyond what it has
 * finished, setting each one's status: without carrier it discards
 * them, else it sends them unless desc-error fails one, and stops where
 * link-flap takes the carrier away.  Returns the count.  With faults the
 * NIC and its interrupt are apart: what it finished waits in the ring,
 * done, until an interrupt retires it.
 */
static unsigned sim_nic_send(struct txp_sim *sim, unsigned budget, uint64_t now)
{
	struct sim_faults *f = &sim->fault;
	bool down = f->link_down;
	/* Acquire: pairs with the release of prod in sim_post(). */
	uint64_t prod = txp_load_acquire(&sim->prod);
	unsigned n = 0;

	for (; f->hw < prod && n < budget && f->link_down == down; f->hw++) {
		unsigned i = (unsigned)(f->hw % sim->size);
		struct txp_pkt *pkt = sim->ring[i].pkt;

		if (!pkt || pkt == SIM_FRAG)
			continue;
		n++;
		if (down) {
			f->status[i] = SIM_DESC_NO_CARRIER;
			continue;
		}
		f->status[i] = sim_fault_desc_error(f) ? SIM_DESC_ERROR : SIM_DESC_SENT;
		txp__sim_fault_flap(f, now);
	}
	return n;
}

/*
 * The carrier changed, as the driver's link interrupt reports it: gone,
 * stop the queue; back, wake it (the ring was emptied meanwhile).  As
 * e1000 did it (netif_carrier_off, netif_stop_queue; then
 * netif_carrier_on, netif_wake_queue).  The stop is made under what
 * serialises start_xmit's own stops: the lock the completion path takes,
 * or, for the lockless personalities, the xmit lock.
 */
static void sim_link_change(struct txp_sim *sim, enum sim_link change)
{
	uint64_t cons = txp_load_relaxed(&sim->cons);
	unsigned long flags;

	if (change == SIM_LINK_DOWN && comp_lockless(sim)) {
		txp_netif_tx_lock(sim->txq);
		txp_netif_stop_queue(sim->txq);
		txp_netif_tx_unlock(sim->txq);
		return;
	}
	txp_irq_enter();
	flags = comp_lock(sim);
	if (change == SIM_LINK_DOWN)
		txp_netif_stop_queue(sim->txq);
	else
		sim_wake_locked(sim, cons);
	comp_unlock(sim, flags);
	txp_irq_exit();
	if (change == SIM_LINK_UP && comp_lockless(sim))
		sim_wake_softirq(sim, cons);
}

/*
 * One pass with faults on.  The link first: while it is down the queue
 * is stopped, the NIC discards whatever is posted (loss of carrier) and
 * the driver retires it all at once, as dev-down, outside any lock (as
 * e1000 resets to flush its TX ring when it loses link).  Else the NIC
 * sends, and raises its interrupt only if it finished something new: lost,
 * late, or now.  A late one that is pending swallows the next ones.
 * The interrupt's handler retires everything the NIC has finished.
 * Returns the packets the NIC went through.
 */
static unsigned sim_fault_pass(struct txp_sim *sim, unsigned budget, struct sim_retired *r)
{
	struct sim_faults *f = &sim->fault;
	uint64_t now = txp_now_ns();
	enum sim_link change = txp__sim_fault_link(f, now);
	bool run_handler = false;
	unsigned n;

	if (change != SIM_LINK_SAME)
		sim_link_change(sim, change);
	if (f->link_down) {
		n = sim_nic_send(sim, UINT32_MAX, now);
		txp__sim_reap(sim, UINT32_MAX, f->hw, r);
		return n;
	}
	n = sim_nic_send(sim, budget, now);
	if (f->link_down)
		sim_link_change(sim, SIM_LINK_DOWN);
	if (f->irq_pending)
		run_handler = txp__sim_fault_irq_due(f, now);
	else if (n)
		run_handler = txp__sim_fault_irq(f, now) == SIM_IRQ_NOW;
	txp__sim_reap(sim, run_handler ? UINT32_MAX : 0, f->hw, r);
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
	if (sim->fault.on)
		txp__sim_faults_start(&sim->fault, t0, txp_load_relaxed(&sim->cons));
	while (txp_load_acquire(&sim->running)) {
		unsigned budget = sim_line_budget(sim, t0, sent), n;
		struct sim_retired r;

		if (budget == 0) {
			uint64_t gap = 1000000000u / sim->line_rate;

			txp_sleep_ns(gap < SIM_MAX_NAP_NS ? gap : SIM_MAX_NAP_NS);
			continue;
		}
		if (sim->fault.on)
			n = sim_fault_pass(sim, budget, &r);
		else if (sim->p->completion == TXP_SIM_COMP_NAPI)
			n = txp__sim_veth_poll(sim, budget, &r);
		else
			n = txp__sim_reap(sim, budget, UINT64_MAX, &r);
		/* A pass leaves the unsent in the ring: none to name. */
		txp__sim_deliver(sim, &r, TXP_DROP_DEV_DOWN);
		sent += n;
		txp_net_tx_action_txq(sim->txq);
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

int txp__sim_completion_start(struct txp_sim *sim)
{
	atomic_init(&sim->running, true);
	return -txp_thread_start_internal(&sim->thread, "IRQ", sim_completion_main, sim);
}

void txp__sim_completion_stop(struct txp_sim *sim)
{
	/* Release: pairs with the acquire in the loop above. */
	txp_store_release(&sim->running, false);
	txp_thread_join(&sim->thread);
}
