/*
 * sim.h - the simulated NIC's private state.
 */
#ifndef TXP_SIM_PRIV_H
#define TXP_SIM_PRIV_H

#include "fault.h"
#include "sync/sync.h"
#include "txpath/sim.h"
#include "wire.h"

/* One descriptor.  pkt is set on a packet's last descriptor; the others
 * carry SIM_FRAG so an empty slot is told from a fragment. */
struct sim_desc {
	struct txp_pkt *pkt;
};
#define SIM_FRAG ((struct txp_pkt *)1)

/*
 * One transmit queue's NIC: a ring and the completion context (interrupt)
 * that retires it, as a multi-queue NIC has a ring and an MSI-X vector
 * per queue.  The device's priv is queue 0's; its siblings hang off it.
 */
struct txp_sim {
	/* Read-only while the device is up. */
	const struct txp_sim_personality *p;
	struct txp_sim **queues;	/* [nq]; queues[i]->txq is queue i */
	unsigned nq;
	struct txp_dev *dev;
	struct txp_txq *txq;
	struct sim_desc *ring;
	unsigned size;			/* descriptors */
	unsigned stop_thresh;		/* stop when avail <= this after posting */
	unsigned wake_thresh;		/* wake when avail > this */
	uint64_t line_rate;
	unsigned batch;

	/* Producer side: written under tx_lock (LLTX) or the xmit lock. */
	/* Descriptors announced to the NIC, ever: the doorbell (the tail
	 * register the driver writes); the NIC sends nothing past it. */
	txp_cacheline_aligned _Atomic uint64_t prod;
	/* Posted past prod with xmit_more, not announced yet: the driver's
	 * own count, never the NIC's.  Not a scheduling point (relaxed
	 * atomics outside the seam), so that the explorer can read it. */
	_Atomic unsigned pending;
	struct txp_spinlock tx_lock;		/* the driver's own (tp->tx_lock) */
	_Atomic uint64_t ring_full_awake, ring_full_stopped;
	/* Bytes posted, ever: shared adds, as a racing personality may post
	 * from two contexts at once (counted as ring_errors). */
	_Atomic uint64_t bytes_posted;

	/* Completion side. */
	txp_cacheline_aligned _Atomic uint64_t cons;	/* descriptors retired, ever */
	_Atomic uint64_t bytes_retired;	/* bytes of the packets retired or flushed, ever */
	atomic_bool running;
	struct txp_thread thread;
	_Atomic uint64_t ring_errors;
	struct txp_wire wire;
	struct sim_faults fault;	/* what goes wrong, if anything (fault.h) */
	/* veth (veth.c): NAPI scheduled (rx_notify_masked), and polls run. */
	_Atomic unsigned napi;
	_Atomic uint64_t napi_polls;
	_Atomic uint64_t ring_resets;	/* tx_timeout's, one writer (the watchdog) */
};

/* The driver's count of descriptors posted, ever: announced or not. */
static inline uint64_t sim_posted(struct txp_sim *sim, uint64_t announced)
{
	return announced + atomic_load_explicit(&sim->pending, memory_order_relaxed);
}

/* Ring the doorbell: every descriptor posted, up to posted, is the NIC's
 * to send.  Release: the descriptors before the index; pairs with the
 * acquire of prod in txp__sim_reap(). */
static inline void sim_doorbell(struct txp_sim *sim, uint64_t posted)
{
	atomic_store_explicit(&sim->pending, 0, memory_order_relaxed);
	txp_store_release(&sim->prod, posted);
}

/* Free descriptors, given a producer and a consumer count. */
static inline unsigned sim_avail(const struct txp_sim *sim, uint64_t prod, uint64_t cons)
{
	return sim->size - (unsigned)(prod - cons);
}

/* The personalities defined in files of their own. */
extern const struct txp_sim_personality txp__sim_modern_2023;	/* modern_2023.c */
/* What was taken off a ring, by how each packet ended (enum
 * sim_desc_status), and what the NIC never went through (a reset's):
 * lists through pkt->next, handed back by txp__sim_deliver() with no
 * lock held. */
#define SIM_UNSENT SIM_DESC_NR
struct sim_retired {
	struct txp_pkt *list[SIM_DESC_NR + 1];
	struct txp_pkt **tail[SIM_DESC_NR + 1];
};

static inline void sim_retired_init(struct sim_retired *r)
{
	for (int s = 0; s <= SIM_UNSENT; s++)
		r->tail[s] = &r->list[s];
}

/* s: an enum sim_desc_status, or SIM_UNSENT. */
static inline void sim_retired_add(struct sim_retired *r, int s, struct txp_pkt *pkt)
{
	*r->tail[s] = pkt;
	r->tail[s] = &pkt->next;
}

static inline void sim_retired_end(struct sim_retired *r)
{
	for (int s = 0; s <= SIM_UNSENT; s++)
		*r->tail[s] = NULL;
}

/* The completion context (completion.c). */
int txp__sim_completion_start(struct txp_sim *sim);
void txp__sim_completion_stop(struct txp_sim *sim);
/* Retire up to budget packets before limit onto r (completion context). */
unsigned txp__sim_reap(struct txp_sim *sim, unsigned budget, uint64_t limit,
		       struct sim_retired *r);
/* Hand back what r holds: the sent onto the wire and completed, the
 * others dropped as the NIC left them, the unsent as `unsent`.  No lock
 * held (a drop frees). */
void txp__sim_deliver(struct txp_sim *sim, struct sim_retired *r, enum txp_drop_reason unsent);

/* veth's backpressure (veth.c).  A post done: kick NAPI.  Producer side,
 * under the xmit lock. */
void txp__sim_veth_kick(struct txp_sim *sim);
/* The ring full at entry (prod: posted so far): stop, and as the
 * personality does; BUSY.  Producer side, under the xmit lock. */
enum txp_tx txp__sim_veth_full(struct txp_sim *sim, uint64_t prod);
/* One NAPI poll, if scheduled: retired onto r, their count.  The
 * completion context. */
unsigned txp__sim_veth_poll(struct txp_sim *sim, unsigned budget, struct sim_retired *r);

#endif
