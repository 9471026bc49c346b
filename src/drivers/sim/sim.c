/*
 * sim.c - the simulated NIC: personalities, set-up, and start_xmit.
 *
 * The ring is a single-producer, single-consumer array of descriptors:
 * start_xmit posts (advancing prod) under whichever lock serialises it,
 * the completion context retires (advancing cons).  Flow control follows
 * the personality, exactly as the drivers of 2004-2005 did it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/no_cfg.h"
#include "drivers/ring_full.h"
#include "sim.h"

static const struct txp_sim_personality tg3_2004 = {
	.name = "tg3-2004",
	.summary = "LLTX, own tx_lock by trylock; ring full at entry: stop, log BUG, BUSY",
	.own_lock = true,
	.ring_full = TXP_SIM_FULL_LOG_BUG,
	.completion = TXP_SIM_COMP_OWN_LOCK,
};

static const struct txp_sim_personality tg3_silent = {
	.name = "tg3-silent",
	.summary = "as tg3-2004 without the message (Roland's patch, Dec 2004)",
	.own_lock = true,
	.ring_full = TXP_SIM_FULL_SILENT,
	.completion = TXP_SIM_COMP_OWN_LOCK,
};

static const struct txp_sim_personality tg3_2005 = {
	.name = "tg3-2005",
	.summary = "Miller's rule: full and stopped is a quiet BUSY; full and awake logs BUG",
	.own_lock = true,
	.ring_full = TXP_SIM_FULL_CHECK_STOPPED,
	.completion = TXP_SIM_COMP_OWN_LOCK,
};

static const struct txp_sim_personality e1000_2004 = {
	.name = "e1000-2004",
	.summary = "LLTX, own tx_lock by trylock; ring full: stop and BUSY, silently",
	.own_lock = true,
	.ring_full = TXP_SIM_FULL_SILENT,
	.completion = TXP_SIM_COMP_OWN_LOCK,
	.lenient_entry = true,
};

static const struct txp_sim_personality locked = {
	.name = "locked",
	.summary = "no LLTX: relies on the core's xmit lock; stop, barrier, recheck",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_LOG_BUG,
	.completion = TXP_SIM_COMP_BARRIER,
	.stop = TXP_SIM_STOP_RECHECK,
};

static const struct txp_sim_personality locked_bql = {
	.name = "locked-bql",
	.summary = "locked, reporting bytes to BQL (Linux 3.3's drivers): stop, barrier, recheck by hand",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_LOG_BUG,
	.completion = TXP_SIM_COMP_BARRIER,
	.stop = TXP_SIM_STOP_RECHECK,
	.bql = true,
};

static const struct txp_sim_personality rc2 = {
	.name = "rc2",
	.summary = "2.6.11-rc2: no lock of its own; completion runs under the core's xmit lock, irqs off",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_LOG_BUG,
	.completion = TXP_SIM_COMP_XMIT_LOCK_IRQ,
};

static const struct txp_sim_personality rc2_naive = {
	.name = "rc2-naive",
	.summary = "a 2004 driver carelessly converted to rc2: takes the xmit lock its caller holds, "
		   "frees with irqs off, unlocks with spin_unlock_irq",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_LOG_BUG,
	.completion = TXP_SIM_COMP_XMIT_LOCK_IRQ,
	.rc2_naive = true,
};

static const struct txp_sim_personality lost_wakeup = {
	.name = "lost-wakeup",
	.summary = "test: stops its queue without rechecking the ring; completion wakes only a stopped queue",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_LOG_BUG,
	.completion = TXP_SIM_COMP_BARRIER,
	.stop = TXP_SIM_STOP_PLAIN,
};

static const struct txp_sim_personality recheck_nomb = {
	.name = "recheck-nomb",
	.summary = "test: stop, then recheck the ring, with no full barrier in between",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_LOG_BUG,
	.completion = TXP_SIM_COMP_BARRIER,
	.stop = TXP_SIM_STOP_RECHECK_NOMB,
};

static const struct txp_sim_personality modern = {
	.name = "modern",
	.summary = "core lock, BQL, lockless stop/wake helpers (Linux 6.3+); ring full: stop, BUSY",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_SILENT,
	.completion = TXP_SIM_COMP_HELPER,
	.stop = TXP_SIM_STOP_HELPER,
	.bql = true,
};

static const struct txp_sim_personality modern_nomb = {
	.name = "modern-nomb",
	.summary = "test: modern with the stop helper's barrier left out",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_SILENT,
	.completion = TXP_SIM_COMP_HELPER,
	.stop = TXP_SIM_STOP_HELPER_NOMB,
	.bql = true,
};

static const struct txp_sim_personality veth_2025 = {
	.name = "veth-6.16",
	.summary = "veth's backpressure as in 6.16: stop, then test the consumer-side emptiness; "
		   "the consumer wakes without a barrier (lost wakeup on ARM64, CVE-2025-68232)",
	.own_lock = false,
	.completion = TXP_SIM_COMP_NAPI,
	.veth = TXP_SIM_VETH_2025,
};

static const struct txp_sim_personality veth_fixed = {
	.name = "veth",
	.summary = "veth's backpressure, fixed: stop and kick NAPI; the consumer wakes once per "
		   "poll after smp_rmb()",
	.own_lock = false,
	.completion = TXP_SIM_COMP_NAPI,
	.veth = TXP_SIM_VETH_FIXED,
};

const struct txp_sim_personality *const txp_sim_personalities[] = {
	&tg3_2004, &tg3_silent, &tg3_2005, &e1000_2004, &locked, &locked_bql, &rc2, &rc2_naive,
	&lost_wakeup, &recheck_nomb, &modern, &modern_nomb, &txp__sim_modern_2023, &veth_2025,
	&veth_fixed, NULL,
};

const struct txp_sim_personality *txp_sim_personality(const char *name)
{
	for (int i = 0; txp_sim_personalities[i]; i++)
		if (strcmp(txp_sim_personalities[i]->name, name) == 0)
			return txp_sim_personalities[i];
	return NULL;
}

/* -- set-up -------------------------------------------------------------- */

unsigned txp_sim_min_ring(unsigned max_frags)
{
	return 2 * (max_frags + 1) + 1;
}

/* Check cfg; false and a message in err if it cannot be built. */
static bool sim_cfg_ok(const struct txp_sim_cfg *cfg, char *err, size_t errlen)
{
	unsigned min;

	if (!cfg)
		return txp__no_cfg("simulated NIC", err, errlen);
	min = txp_sim_min_ring(cfg->max_frags);
	if (!cfg->personality) {
		snprintf(err, errlen, "no driver personality");
		return false;
	}
	if (cfg->max_frags > TXP_MAX_FRAGS) {
		snprintf(err, errlen, "at most %d fragments per packet", TXP_MAX_FRAGS);
		return false;
	}
	if (cfg->ring < min) {
		snprintf(err, errlen,
			 "ring of %u descriptors too small: packets of up to %u fragments need at least %u",
			 cfg->ring, cfg->max_frags, min);
		return false;
	}
	if (cfg->personality->veth && cfg->faults && txp_fault_any(cfg->faults)) {
		snprintf(err, errlen, "personality '%s' models no faults", cfg->personality->name);
		return false;
	}
	if (cfg->queues > TXP_DEV_MAX_QUEUES) {
		snprintf(err, errlen, "at most %u queues", TXP_DEV_MAX_QUEUES);
		return false;
	}
	return true;
}

static void sim_queue_free(struct txp_sim *sim)
{
	txp__sim_faults_fini(&sim->fault);
	txp__wire_fini(&sim->wire);
	free(sim->ring);
	free(sim);
}

/* Queue index's NIC: its faults' streams are its own, counted with
 * queue 0's (first; NULL for queue 0 itself). */
static struct txp_sim *sim_queue_create(const struct txp_sim_cfg *cfg, unsigned index,
					struct txp_sim *first)
{
	struct txp_sim *sim = aligned_alloc(TXP_CACHELINE, sizeof(*sim));

	if (!sim)
		return NULL;
	memset(sim, 0, sizeof(*sim));
	sim->ring = calloc(cfg->ring, sizeof(*sim->ring));
	if (!sim->ring || txp__wire_init(&sim->wire, cfg->max_flows) != 0 ||
	    txp__sim_faults_init(&sim->fault, cfg->faults, cfg->ring, index,
			    first ? first->fault.injected : NULL) != 0) {
		sim_queue_free(sim);
		return NULL;
	}
	sim->p = cfg->personality;
	sim->size = cfg->ring;
	sim->stop_thresh = cfg->max_frags + 1;
	sim->wake_thresh = cfg->ring / 4 > sim->stop_thresh ? cfg->ring / 4 : sim->stop_thresh;
	sim->line_rate = cfg->line_rate;
	sim->batch = cfg->batch ? cfg->batch : 1;
	txp_spin_init(&sim->tx_lock, "TX lock");
	return sim;
}

struct txp_sim *txp_sim_create(const struct txp_sim_cfg *cfg, char *err, size_t errlen)
{
	struct txp_sim **queues;
	unsigned nq;

	if (!sim_cfg_ok(cfg, err, errlen))
		return NULL;
	nq = cfg->queues ? cfg->queues : 1;
	queues = calloc(nq, sizeof(*queues));
	for (unsigned i = 0; queues && i < nq; i++) {
		queues[i] = sim_queue_create(cfg, i, i ? queues[0] : NULL);
		if (!queues[i]) {
			while (i-- > 0)
				sim_queue_free(queues[i]);
			free(queues);
			queues = NULL;
		}
	}
	if (!queues) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	queues[0]->queues = queues;
	queues[0]->nq = nq;
	return queues[0];
}

void txp_sim_destroy(struct txp_sim *sim)
{
	struct txp_sim **queues;
	unsigned nq;

	if (!sim)
		return;
	queues = sim->queues;
	nq = sim->nq;
	for (unsigned i = 0; i < nq; i++)
		sim_queue_free(queues[i]);
	free(queues);
}

static void sim_stats_add(struct txp_sim *sim, struct txp_sim_stats *st)
{
	uint64_t cons, prod, retired, posted;
	struct txp_wire_stats ws;

	txp_wire_get_stats(&sim->wire, &ws);
	st->wire_frames += ws.frames;
	st->wire_unique += ws.unique;
	st->wire_duplicates += ws.duplicates;
	st->wire_alien += ws.alien;
	if (ws.reordered && !st->wire_reordered)
		st->first_reorder = ws.first_reorder;
	st->wire_reordered += ws.reordered;
	st->ring_full_awake += txp_load_relaxed(&sim->ring_full_awake);
	st->ring_full_stopped += txp_load_relaxed(&sim->ring_full_stopped);
	st->ring_errors += txp_load_relaxed(&sim->ring_errors);
	st->ring_resets += txp_load_relaxed(&sim->ring_resets);
	/* Snapshots: what left read first (on x86 then never more out than
	 * in), and clamped where loads may pass each other. */
	cons = txp_load_acquire(&sim->cons);
	prod = txp_load_acquire(&sim->prod);
	st->in_flight += prod > cons ? (unsigned)(prod - cons) : 0;
	retired = txp_counter_read(&sim->bytes_retired);
	posted = txp_counter_read(&sim->bytes_posted);
	st->in_flight_bytes += posted > retired ? posted - retired : 0;
	st->bytes_retired += retired;
}

/* Faults are counted for the NIC, on queue 0's counters. */
static void sim_faults_get(struct txp_sim *sim, struct txp_sim_stats *st)
{
	for (int k = 0; k < TXP_FAULT_NR; k++)
		st->faults[k] = txp_counter_read(&sim->queues[0]->fault.injected[k]);
}

void txp_sim_get_stats(struct txp_sim *sim, struct txp_sim_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < sim->nq; i++)
		sim_stats_add(sim->queues[i], st);
	sim_faults_get(sim, st);
}

void txp_sim_get_queue_stats(struct txp_sim *sim, unsigned queue, struct txp_sim_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (queue < sim->nq)
		sim_stats_add(sim->queues[queue], st);
	sim_faults_get(sim, st);
}

unsigned txp_sim_unannounced(const struct txp_sim *sim, unsigned queue)
{
	if (queue >= sim->nq)
		return 0;
	return atomic_load_explicit(&sim->queues[queue]->pending, memory_order_relaxed);
}

/* -- ops ------------------------------------------------------------------ */

/* The NIC of txq. */
static inline struct txp_sim *sim_of(struct txp_txq *txq)
{
	struct txp_sim *sim0 = txp_dev_priv(txp_txq_dev(txq));

	return sim0->queues[txp_txq_index(txq)];
}

static int sim_open(struct txp_dev *dev)
{
	struct txp_sim *sim0 = txp_dev_priv(dev);
	unsigned i;
	int rc = 0;

	if (txp_dev_num_tx_queues(dev) != sim0->nq)
		return -EINVAL;
	if (sim0->p->completion == TXP_SIM_COMP_XMIT_LOCK_IRQ)
		txp_dev_xmit_lock_irqsafe(dev);
	if (sim0->p->trans_after_xmit)
		txp_dev_trans_start_after_xmit(dev);
	for (i = 0; i < sim0->nq && rc == 0; i++) {
		sim0->queues[i]->dev = dev;
		sim0->queues[i]->txq = txp_dev_txq(dev, i);
		rc = txp__sim_completion_start(sim0->queues[i]);
	}
	if (rc != 0)
		for (i--; i-- > 0;)
			txp__sim_completion_stop(sim0->queues[i]);
	return rc;
}

/*
 * Take what the ring still holds, from cons, onto r: what the NIC
 * finished before `done` as it finished it, the rest as unsent.  Its
 * completion context must be stopped; the caller hands r back
 * (txp__sim_deliver) once it holds no lock.
 */
static void sim_ring_take(struct txp_sim *sim, uint64_t done, struct sim_retired *r)
{
	uint64_t cons = txp_load_relaxed(&sim->cons);
	uint64_t prod = txp_load_acquire(&sim->prod), posted = sim_posted(sim, prod);

	sim_retired_init(r);
	/* What xmit_more left unannounced is the ring's too: announced
	 * here, the NIC stopped, so that both counts agree once it is empty. */
	if (posted != prod)
		sim_doorbell(sim, posted);
	for (; cons < posted; cons++) {
		unsigned i = (unsigned)(cons % sim->size);
		struct txp_pkt *pkt = sim->ring[i].pkt;

		sim->ring[i].pkt = NULL;
		if (!pkt || pkt == SIM_FRAG)
			continue;
		txp_counter_add_shared(&sim->bytes_retired, pkt->len);
		sim_retired_add(r, cons < done ? (int)sim->fault.status[i] : SIM_UNSENT, pkt);
	}
	sim_retired_end(r);
	txp_store_release(&sim->cons, cons);
}

/* Stop each completion context, then hand back what its ring holds. */
static void sim_stop(struct txp_dev *dev)
{
	struct txp_sim *sim0 = txp_dev_priv(dev);

	for (unsigned i = 0; i < sim0->nq; i++) {
		struct sim_retired r;

		txp__sim_completion_stop(sim0->queues[i]);
		sim_ring_take(sim0->queues[i], 0, &r);
		txp__sim_deliver(sim0->queues[i], &r, TXP_DROP_DEV_DOWN);
	}
}

/*
 * tx_timeout: reset the ring of a queue that stayed stopped.  Its
 * interrupt is masked (the completion context stopped) while the ring is
 * emptied: what the NIC had finished is reclaimed as it finished it, what
 * it never sent is dropped as TXP_DROP_TX_TIMEOUT, both handed back once
 * the lock is dropped (never freed with interrupts off); BQL forgets
 * them; the queue is woken and the interrupt unmasked.
 * Synchronization: the core froze every queue, so no start_xmit runs in
 * core mode; the LLTX personalities' own tx_lock is taken against theirs.
 * Context: the watchdog.
 */
static void sim_tx_timeout(struct txp_dev *dev, unsigned queue)
{
	struct txp_sim *sim0 = txp_dev_priv(dev), *sim = sim0->queues[queue];
	struct sim_retired r;
	unsigned long flags = 0;

	txp__sim_completion_stop(sim);
	if (sim->p->own_lock) {
		flags = txp_local_irq_save();
		txp_spin_lock(&sim->tx_lock);
	}
	sim_ring_take(sim, sim->fault.on ? sim->fault.hw : 0, &r);
	txp_netdev_tx_reset_queue(sim->txq);
	txp_counter_add(&sim->ring_resets, 1);
	if (sim->p->own_lock) {
		txp_spin_unlock(&sim->tx_lock);
		txp_local_irq_restore(flags);
	}
	txp__sim_deliver(sim, &r, TXP_DROP_TX_TIMEOUT);
	txp_netif_wake_queue(sim->txq);
	if (txp__sim_completion_start(sim) != 0)
		txp_dev_log_bug(dev, "tx_timeout: the completion context did not restart");
}

/* LLTX personalities: their own tx_lock, by trylock, interrupts saved
 * (spin_trylock with local_irq_save).  False: busy, irqs as they were. */
static bool sim_tx_trylock(struct txp_sim *sim, unsigned long *flags)
{
	if (!sim->p->own_lock)
		return true;
	*flags = txp_local_irq_save();
	if (txp_spin_trylock(&sim->tx_lock))
		return true;
	txp_local_irq_restore(*flags);
	return false;
}

static void sim_tx_unlock(struct txp_sim *sim, unsigned long flags)
{
	if (sim->p->own_lock) {
		txp_spin_unlock(&sim->tx_lock);
		txp_local_irq_restore(flags);
	}
}

/* No room for a packet needing `need` descriptors? */
static bool sim_ring_full(const struct txp_sim *sim, unsigned avail, unsigned need)
{
	return sim->p->lenient_entry ? avail < need : avail <= need;
}

/* The ring lacks room at entry: the personality's rule (txp__ring_full()),
 * drawn.  Called with the driver serialised; releases its own lock;
 * always BUSY. */
static enum txp_tx sim_xmit_ring_full(struct txp_sim *sim, unsigned long flags)
{
	const char *bug = txp__ring_full(sim->txq, sim->p->ring_full, &sim->ring_full_stopped,
					 &sim->ring_full_awake, true);

	sim_tx_unlock(sim, flags);
	if (bug)
		txp_dev_log_bug(sim->dev, bug);
	return TXP_TX_BUSY;
}

/* A packet dropped as bad (its pkt->xmit_more `more`): if it was the
 * last of its batch, what the batch posted is announced now, as a driver's
 * error path must (no later call will ring it).  The caller serialises
 * the driver (only a personality without an own lock defers). */
static void sim_drop_bad(struct txp_sim *sim, struct txp_pkt *pkt)
{
	bool more = pkt->xmit_more;

	txp_pkt_drop(sim->dev, pkt, TXP_DROP_DRIVER);
	if (!more && atomic_load_explicit(&sim->pending, memory_order_relaxed))
		sim_doorbell(sim, sim_posted(sim, txp_load_relaxed(&sim->prod)));
}

/* The ring is full at entry: what xmit_more left unannounced is
 * announced before BUSY, so that the NIC can make room (the core will
 * not call again until it does). */
static void sim_doorbell_if_pending(struct txp_sim *sim, uint64_t posted)
{
	if (atomic_load_explicit(&sim->pending, memory_order_relaxed))
		sim_doorbell(sim, posted);
}

/* After the stop test, what xmit_more left unannounced is announced if the
 * queue is stopped now (by the driver or by BQL): no later call may come
 * to ring it.  netif_xmit_stopped() || !netdev_xmit_more(). */
static void sim_doorbell_if_stopped(struct txp_sim *sim, uint64_t posted)
{
	if (atomic_load_explicit(&sim->pending, memory_order_relaxed) &&
	    txp_netif_xmit_stopped(sim->txq))
		sim_doorbell(sim, posted);
}

/* Post pkt's descriptors: fragments first, the packet on the last one, and
 * ring the doorbell unless xmit_more says more follow (veth has none: it
 * hands each packet over; nor have the LLTX personalities of 2004, whose
 * own lock would have to cover what they owe).  A slot still in use
 * means two producers raced: counted, never hidden. */
static void sim_post(struct txp_sim *sim, struct txp_pkt *pkt, uint64_t prod, unsigned need)
{
	/* Read before the slots are written: a producer racing this one
	 * could publish them, and the completion free the packet. */
	unsigned len = pkt->len;
	bool more = pkt->xmit_more;

	for (unsigned i = 0; i < need; i++) {
		struct sim_desc *d = &sim->ring[(prod + i) % sim->size];

		if (d->pkt)
			txp_counter_add_shared(&sim->ring_errors, 1);
		d->pkt = i + 1 == need ? pkt : SIM_FRAG;
	}
	txp_counter_add_shared(&sim->bytes_posted, len);
	/* BQL counts the bytes before the NIC can see them (a driver calls
	 * netdev_tx_sent_queue before its doorbell): else the completion
	 * could report them first, and BQL would stop the queue for bytes
	 * already gone. */
	if (sim->p->bql)
		more = !txp_netdev_tx_sent_queue_more(sim->txq, len, more);
	txp_event("queue packet to HW");
	if (more && !sim->p->veth && !sim->p->own_lock)
		atomic_fetch_add_explicit(&sim->pending, need, memory_order_relaxed);
	else
		sim_doorbell(sim, prod + need);
}

/* Free descriptors now (the helpers' get_desc). */
static inline unsigned sim_free_now(struct txp_sim *sim, uint64_t prod)
{
	return sim_avail(sim, prod, txp_load_acquire(&sim->cons));
}

/* The helper's stop with its barrier left out: right on x86, where the
 * stop (set_bit) is a locked instruction; a stall the explorer must find
 * under arm. */
static void sim_maybe_stop_nomb(struct txp_sim *sim, uint64_t prod)
{
	txp_netif_stop_queue(sim->txq);
	if (sim_free_now(sim, prod) > sim->wake_thresh)
		txp_netif_tx_start_queue(sim->txq);
}

/* After posting, with avail descriptors left: stop the queue if a
 * maximal packet might not fit, as the personality does it. */
static void sim_maybe_stop(struct txp_sim *sim, uint64_t prod, unsigned avail)
{
	if (sim->p->stop == TXP_SIM_STOP_HELPER) {
		txp_netif_txq_maybe_stop(sim->txq, sim_free_now(sim, prod), sim->stop_thresh + 1,
					 sim->wake_thresh + 1);
		return;
	}
	if (avail > sim->stop_thresh)
		return;
	if (sim->p->stop == TXP_SIM_STOP_HELPER_NOMB) {
		sim_maybe_stop_nomb(sim, prod);
		return;
	}
	txp_netif_stop_queue(sim->txq);
	txp_event("queue full, netif_stop_queue()");	/* drawn once it is done */
	if (sim->p->stop == TXP_SIM_STOP_PLAIN)
		return;
	/* Stop, then recheck: the completion context may have retired
	 * everything before it could see the stop.  The barrier pairs with
	 * the one between retiring and testing "stopped" in sim_wake_softirq(). */
	if (sim->p->stop == TXP_SIM_STOP_RECHECK)
		txp_smp_mb();
	if (sim_avail(sim, prod, txp_load_acquire(&sim->cons)) > sim->wake_thresh) {
		txp_event("recheck: room again");
		txp_netif_wake_queue(sim->txq);
	} else {
		txp_event("recheck: still full");
	}
}

/*
 * The careless rc2 conversion: takes the xmit lock its caller already
 * holds (spin_lock_irq), frees a packet it cannot map with interrupts
 * off, and leaves with spin_unlock_irq, turning interrupts on under the
 * caller's irq-safe lock.  Each is a hazard the validator names; with the
 * validator on, the nested lock passes instead of deadlocking.
 */
static enum txp_tx rc2_naive_start_xmit(struct txp_sim *sim, struct txp_pkt *pkt)
{
	unsigned need = pkt->nr_frags + 1u, avail;
	uint64_t prod;

	txp_netif_tx_lock_irq(sim->txq);
	if (pkt->nr_frags > 2) {
		/* "Cannot map more than two fragments": the error path. */
		sim_drop_bad(sim, pkt);
		txp_netif_tx_unlock_irq(sim->txq);
		return TXP_TX_OK;
	}
	prod = sim_posted(sim, txp_load_relaxed(&sim->prod));
	avail = sim_avail(sim, prod, txp_load_acquire(&sim->cons));
	if (sim_ring_full(sim, avail, need)) {
		sim_doorbell_if_pending(sim, prod);
		txp_netif_tx_unlock_irq(sim->txq);
		return sim_xmit_ring_full(sim, 0);
	}
	sim_post(sim, pkt, prod, need);
	sim_maybe_stop(sim, prod + need, avail - need);
	sim_doorbell_if_stopped(sim, prod + need);
	txp_netif_tx_unlock_irq(sim->txq);
	return TXP_TX_OK;
}

/*
 * start_xmit, as tg3_start_xmit() of 2004-2005 for every personality.
 * Synchronization: LLTX personalities trylock their own tx_lock; the
 * others rely on the caller holding the xmit lock (core mode).
 * Context: a producer, or a context running the queue.
 * Return codes: OK (posted, or dropped as too fragmented), BUSY (ring
 * full, see sim_xmit_ring_full()), LOCKED (own tx_lock busy).
 */
static enum txp_tx sim_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct txp_sim *sim = sim_of(txq);
	unsigned need = pkt->nr_frags + 1u, avail;
	unsigned long flags = 0;
	uint64_t prod;

	if (txp_unlikely(pkt->nr_frags >= sim->stop_thresh)) {
		/* More fragments than the device takes: it never fits. */
		sim_drop_bad(sim, pkt);
		return TXP_TX_OK;
	}
	if (sim->p->rc2_naive)
		return rc2_naive_start_xmit(sim, pkt);
	if (!sim_tx_trylock(sim, &flags)) {
		txp_event("TX lock busy");
		return TXP_TX_LOCKED;
	}
	prod = sim_posted(sim, txp_load_relaxed(&sim->prod));
	/* Acquire: pairs with the release of cons in sim_reap(), so retired
	 * slots are clean before they are reused. */
	avail = sim_avail(sim, prod, txp_load_acquire(&sim->cons));
	if (txp_unlikely(sim_ring_full(sim, avail, need))) {
		if (sim->p->veth)
			return txp__sim_veth_full(sim, prod);
		sim_doorbell_if_pending(sim, prod);
		return sim_xmit_ring_full(sim, flags);
	}

	sim_post(sim, pkt, prod, need);
	if (sim->p->veth) {
		txp__sim_veth_kick(sim);
	} else {
		sim_maybe_stop(sim, prod + need, avail - need);
		sim_doorbell_if_stopped(sim, prod + need);
	}
	sim_tx_unlock(sim, flags);
	return TXP_TX_OK;
}

const struct txp_driver_ops txp_sim_ops = {
	.name = "sim",
	.open = sim_open,
	.stop = sim_stop,
	.start_xmit = sim_start_xmit,
	.tx_timeout = sim_tx_timeout,
};
