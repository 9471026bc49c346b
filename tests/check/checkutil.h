/*
 * checkutil.h - what the explorer's tests share: an era's scenario, and
 * the simulated NIC's ops with a start_xmit of the test's own.
 */
#ifndef TXP_TEST_CHECKUTIL_H
#define TXP_TEST_CHECKUTIL_H

#include "txpath/explore.h"
#include "txpath/run.h"

/* cfg: the defaults, with the era's lock, runner, driver, qdisc and claim. */
static inline void txp_test_era_cfg(struct txp_check_cfg *cfg, const char *era)
{
	const struct txp_era *e = txp_era_lookup(era);

	assert_non_null(e);
	txp_check_cfg_init(cfg);
	cfg->era = e->name;
	cfg->lock = e->lock;
	cfg->runner = e->runner;
	cfg->personality = txp_sim_personality(e->personality);
	cfg->race_impossible = e->race_impossible;
	cfg->queues = e->queues;
	cfg->bql = e->bql;
	cfg->qdisc = e->qdisc ? txp_qdisc_lookup(e->qdisc) : NULL;
}

/* The simulated NIC's ops, start_xmit replaced by xmit (which may call
 * txp_sim_ops.start_xmit): a driver wrapper, for cfg.ops.  One at a time. */
static inline const struct txp_driver_ops *
txp_test_sim_ops_with(enum txp_tx (*xmit)(struct txp_pkt *pkt, struct txp_txq *txq))
{
	static struct txp_driver_ops ops;

	ops = txp_sim_ops;
	ops.start_xmit = xmit;
	return &ops;
}

#endif
