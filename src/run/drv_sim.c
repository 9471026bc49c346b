/*
 * drv_sim.c - the workload's view of the simulated NIC.
 */
#include <stdio.h>
#include <string.h>

#include "run/run.h"

static bool sim_check(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	unsigned min_ring = txp_sim_min_ring(cfg->frags_max);

	if (cfg->ring < min_ring) {
		snprintf(err, errlen,
			 "ring of %u descriptors too small: packets of up to %u fragments need at least %u",
			 cfg->ring, cfg->frags_max, min_ring);
		return false;
	}
	if (!cfg->personality) {
		snprintf(err, errlen, "no driver personality");
		return false;
	}
	if (cfg->personality->rc2_naive && !cfg->validate) {
		snprintf(err, errlen,
			 "personality '%s' takes a lock its caller holds and would hang: run it with --validate, which reports that and lets it pass",
			 cfg->personality->name);
		return false;
	}
	if (cfg->bql && !cfg->personality->bql) {
		snprintf(err, errlen,
			 "personality '%s' predates byte queue limits (it reports no bytes): BQL on (--bql on, or an era from 3.3 on) needs one that does (modern), or --bql off",
			 cfg->personality->name);
		return false;
	}
	if (cfg->lock == TXP_LOCK_LLTX && !cfg->personality->own_lock) {
		snprintf(err, errlen,
			 "personality '%s' has no lock of its own: it needs --lock core",
			 cfg->personality->name);
		return false;
	}
	return true;
}

static int sim_create(const struct txp_run_cfg *cfg, const struct txp_driver_ops **ops,
		      void **priv, char *err, size_t errlen)
{
	struct txp_sim_cfg scfg = {
		.personality = cfg->personality,
		.ring = cfg->ring,
		.max_frags = cfg->frags_max,
		.line_rate = cfg->line_rate,
		.batch = cfg->batch,
		.max_flows = cfg->threads,
		.faults = &cfg->faults,
		.queues = cfg->queues,
	};

	*priv = txp_sim_create(&scfg, err, errlen);
	*ops = &txp_sim_ops;
	return *priv ? 0 : -1;
}

static void sim_stats(void *priv, struct txp_run_drv_stats *st)
{
	struct txp_sim_stats s;

	txp_sim_get_stats(priv, &s);
	*st = (struct txp_run_drv_stats){
		.wire_measured = true,
		.wire = s.wire,
		.ring_full_awake = s.ring_full_awake,
		.ring_full_stopped = s.ring_full_stopped,
		.ring_errors = s.ring_errors,
		.in_flight = s.in_flight,
		.in_flight_bytes = s.in_flight_bytes,
		.bytes_retired = s.bytes_retired,
	};
	memcpy(st->faults, s.faults, sizeof(st->faults));
}

static void sim_destroy(void *priv)
{
	txp_sim_destroy(priv);
}

const struct txp_run_driver txp_run_driver_sim = {
	.name = "sim",
	.summary = "the simulated NIC: a descriptor ring, a completion thread, a wire",
	.faults = true,
	.check = sim_check,
	.create = sim_create,
	.stats = sim_stats,
	.destroy = sim_destroy,
};
