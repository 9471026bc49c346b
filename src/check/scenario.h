/*
 * scenario.h - the explorer's scenario, made afresh for every schedule
 * (check build only; scenario.c).
 */
#ifndef TXP_CHECK_SCENARIO_H
#define TXP_CHECK_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/explore.h"
#include "run/run.h"

/* Packets per producer at most (txp_explore_cfg_valid()). */
#define SCENARIO_MAX_PACKETS 64

struct scenario {
	const struct txp_explore_cfg *cfg;
	const struct txp_run_driver *driver;	/* the simulated NIC, or cfg->driver */
	void *drv_priv;		/* its state */
	struct txp_dev *dev;
	unsigned next_flow;
	struct txp_pkt_pool *pool[RT_MAX_CTX];	/* each producer's (cfg->pools) */
};

/* What a scenario's wire and ring saw. */
struct wire_seen {
	uint64_t unique, duplicates, ring_errors;
	uint64_t reordered;			/* frames behind a later one of their flow */
	struct txp_wire_reorder first_reorder;	/* the first such */
};


/* Does cfg fit the scenario's driver (its check, as txpath run's)?  False
 * and a message if not. */
bool scenario_fits(const struct txp_explore_cfg *cfg, char *err, size_t errlen);
/* Make the scenario of cfg, its device open and its contexts started
 * (scheduled from rt_run() on); -1 and a message if it cannot be. */
int scenario_setup(struct scenario *sc, const struct txp_explore_cfg *cfg, char *err,
		   size_t errlen);
/* What its wire and ring saw (the device closed). */
void scenario_wire(const struct scenario *sc, struct wire_seen *w);
void scenario_free(struct scenario *sc);
/* With cfg->pools, the device closed: destroy the producers' pools.  The
 * first producer whose pool did not have every packet home (one freed
 * into another pool, or never; one of another's freed into it; its
 * return stack cut or its lists corrupt: txp_pkt_pool_destroy()), or -1
 * when they all did. */
int scenario_pools_home(struct scenario *sc);
/* Do the producers differ in nothing but their ids (the reduction's
 * symmetry)?  After scenario_tell_apart(true), no longer, until false. */
bool scenario_producers_alike(const struct txp_explore_cfg *cfg);
void scenario_tell_apart(bool apart);

#endif
