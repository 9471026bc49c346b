/*
 * fault.h - the simulated NIC's faults: what its completion context
 * consults, at the points where real hardware goes wrong.  start_xmit
 * never does: a NIC without carrier takes descriptors as ever and
 * discards them (as tulip's did, with a loss-of-carrier status), so the
 * driver drops them from its completion path, never under the xmit lock.
 *
 * Single writer: everything here but injected belongs to the completion
 * context; anyone reads injected.
 */
#ifndef TXP_SIM_FAULT_H
#define TXP_SIM_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "sync/sync.h"
#include "txpath/sim.h"

/* How the NIC finished a packet, in its last descriptor's status. */
enum sim_desc_status {
	SIM_DESC_SENT,		/* on the wire */
	SIM_DESC_ERROR,		/* failed: the driver drops it as tx-error */
	SIM_DESC_NO_CARRIER,	/* discarded, the link was down: dev-down */
	SIM_DESC_NR,
};

/* What the NIC does with the interrupt for the descriptors it just finished. */
enum sim_irq {
	SIM_IRQ_NOW,		/* raised: the handler runs in this pass */
	SIM_IRQ_LOST,		/* never arrives */
	SIM_IRQ_LATE,		/* arrives after the slow-irq delay */
};

/* A change of the carrier, as the driver's link interrupt reports it. */
enum sim_link {
	SIM_LINK_SAME,
	SIM_LINK_DOWN,
	SIM_LINK_UP,
};

struct sim_faults {
	/* Read-only while the device is up. */
	bool on;			/* any of the NIC's kinds is configured */
	struct txp_fault_cfg cfg;
	uint8_t *status;		/* per descriptor: enum sim_desc_status */

	/* The completion context's. */
	struct txp_fault_stream lost, slow, desc, flap;
	uint64_t hw;			/* descriptors the NIC has finished, ever */
	bool irq_pending;		/* a late interrupt is on its way ... */
	uint64_t irq_due_ns;		/* ... arriving at this time ... */
	uint64_t irq_due_passes;	/* ... and after this many more passes */
	bool link_down;			/* the carrier is gone ... */
	uint64_t link_up_at;		/* ... until this time (ns) ... */
	uint64_t link_passes;		/* ... and this many more passes */
	uint64_t link_next;		/* ns: it goes next (timed link-flap) */

	_Atomic uint64_t injected[TXP_FAULT_NR];	/* per kind; link-flap: times down */
	_Atomic uint64_t *counts;	/* where this queue counts: injected, or queue 0's */
};

/* Set up from cfg (NULL: none) for queue `queue`'s ring of `size`, its
 * streams its own (numbered by the queue), their counts in `injected`
 * (TXP_FAULT_NR of them, shared by every queue, so a kind's max holds
 * for the NIC; NULL: f's own).  -1 out of memory. */
int txp__sim_faults_init(struct sim_faults *f, const struct txp_fault_cfg *cfg, unsigned size,
		    unsigned queue, _Atomic uint64_t *injected);
void txp__sim_faults_fini(struct sim_faults *f);
/* The completion context starts at t0 (ns), with the ring retired up to
 * cons: the link up, no interrupt on its way. */
void txp__sim_faults_start(struct sim_faults *f, uint64_t t0, uint64_t cons);

/* Does the NIC fail the packet it sends now? */
static inline bool sim_fault_desc_error(struct sim_faults *f)
{
	return txp_fault_next(&f->desc);
}

/* The NIC finished descriptors at time now: its interrupt. */
enum sim_irq txp__sim_fault_irq(struct sim_faults *f, uint64_t now);
/* Has the late interrupt arrived (one more pass gone)? */
bool txp__sim_fault_irq_due(struct sim_faults *f, uint64_t now);
/* The carrier at time now, once a pass: a change, if one is due. */
enum sim_link txp__sim_fault_link(struct sim_faults *f, uint64_t now);
/* The NIC sent a packet at time now: the carrier may go with it
 * (link-flap by packets); then link_down is set. */
void txp__sim_fault_flap(struct sim_faults *f, uint64_t now);

#endif
