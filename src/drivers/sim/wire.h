/*
 * wire.h - the simulated wire: records every frame sent, per flow, so
 * that loss and duplication are measured, not assumed.
 *
 * Single writer: only the completion context records.  The counters may
 * be read by anyone at any time.
 */
#ifndef TXP_SIM_WIRE_H
#define TXP_SIM_WIRE_H

#include <stdint.h>

#include "sync/sync.h"

struct wire_flow {
	uint64_t *seen;		/* bit seq: frame seq was seen */
	uint64_t words;		/* allocated length of seen */
};

struct txp_wire {
	unsigned nflows;
	struct wire_flow *flows;
	_Atomic uint64_t frames, unique, duplicates, alien;
};

int txp__wire_init(struct txp_wire *w, unsigned nflows);
void txp__wire_fini(struct txp_wire *w);
/* Record one frame.  Completion context only. */
void txp_wire_record(struct txp_wire *w, uint32_t flow, uint64_t seq);

#endif
