/*
 * wire.h - the simulated wire's insides (txpath/sim.h has its API): the
 * simulated NIC keeps one in each queue's state, not behind a pointer.
 */
#ifndef TXP_SIM_WIRE_H
#define TXP_SIM_WIRE_H

#include <stdint.h>

#include "sync/sync.h"
#include "txpath/sim.h"

struct wire_flow {
	uint64_t *seen;		/* bit seq: frame seq was seen */
	uint64_t words;		/* allocated length of seen */
	uint64_t next;		/* one past the highest seq seen */
};

struct txp_wire {
	unsigned nflows;
	struct wire_flow *flows;
	_Atomic uint64_t frames, unique, duplicates, alien, reordered;
	struct txp_wire_reorder first;	/* the writer's; read once it stopped */
};

/* txp_wire_create() and txp_wire_destroy() of a wire in place: 0, or -1
 * when memory is short. */
int txp__wire_init(struct txp_wire *w, unsigned nflows);
void txp__wire_fini(struct txp_wire *w);

#endif
