/*
 * txpath/null.h - the null driver: accepts every packet and completes it at
 * once, in the context that sent it.  The cost of the core alone.
 */
#ifndef TXPATH_NULL_H
#define TXPATH_NULL_H

#include <stdint.h>

#include "txpath/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

struct txp_null;

struct txp_null_stats {
	uint64_t packets;	/* taken by start_xmit */
	uint64_t doorbells;	/* batches flushed: one per packet without xmit_more */
};

/* NULL when memory is short. */
struct txp_null *txp_null_create(void);
void txp_null_destroy(struct txp_null *nul);

/* The driver ops; the device's priv must be a struct txp_null. */
extern const struct txp_driver_ops txp_null_ops;

/* Exact once the device is closed; a snapshot while it runs. */
void txp_null_get_stats(struct txp_null *nul, struct txp_null_stats *st);

#ifdef __cplusplus
}
#endif

#endif
