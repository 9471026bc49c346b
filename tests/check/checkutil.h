/*
 * checkutil.h - what the explorer's tests share: an era's scenario, the
 * simulated NIC's ops with a start_xmit of the test's own, and running a
 * search (explore, expect_proved).
 */
#ifndef TXP_TEST_CHECKUTIL_H
#define TXP_TEST_CHECKUTIL_H

#include "check/explore.h"
#include "run/run.h"

/* cfg: the defaults, with the era's lock, runner, driver, qdisc and claim. */
static inline void txp_test_era_cfg(struct txp_explore_cfg *cfg, const char *era)
{
	const struct txp_era *e = txp_era_lookup(era);

	assert_non_null(e);
	txp_explore_cfg_init(cfg);
	cfg->era = e->name;
	cfg->lock = e->lock;
	cfg->runner = e->runner;
	cfg->personality = txp_sim_personality(e->personality);
	cfg->race_impossible = e->race_impossible;
	cfg->queues = e->queues;
	cfg->bql = e->bql;
	cfg->busylock = e->busylock;
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

/* Explore cfg: the search must run (whatever it finds). */
static inline void explore(const struct txp_explore_cfg *cfg, struct txp_explore_result *res)
{
	char err[256] = "";

	assert_int_equal(txp_explore_run(cfg, res, err, sizeof(err)), 0);
}

/* Explore cfg into res and expect the search to end with no violation. */
static inline void expect_clean_search(const struct txp_explore_cfg *cfg, const char *what,
				       struct txp_explore_result *res)
{
	explore(cfg, res);
	if (res->found)
		fail_msg("%s: %s after %u preemptions: %s (schedule %s)", what, res->kind,
			 res->preemptions, res->detail, res->schedule);
	assert_true(res->complete);
}

/* Explore cfg and expect the search to end with no violation. */
static inline void expect_none(const struct txp_explore_cfg *cfg, const char *what)
{
	struct txp_explore_result res;

	expect_clean_search(cfg, what, &res);
	txp_explore_result_free(&res);
}

/* ... and a proof: more than one schedule, the race reachable or not as
 * said. */
static inline void expect_proved(const struct txp_explore_cfg *cfg, const char *what,
				 bool race_reachable)
{
	struct txp_explore_result res;

	expect_clean_search(cfg, what, &res);
	assert_true(res.schedules > 1);
	assert_int_equal(res.xmit_on_stopped_reachable, race_reachable);
	txp_explore_result_free(&res);
}

/* res's schedule, replayed under cfg: the same violation, drawn the same. */
static inline void txp_test_expect_replay(const struct txp_explore_cfg *cfg,
					  const struct txp_explore_result *res)
{
	struct txp_explore_cfg again = *cfg;
	struct txp_explore_result rep;
	char err[256] = "";

	again.replay = res->schedule;
	assert_int_equal(txp_explore_run(&again, &rep, err, sizeof(err)), 0);
	assert_true(rep.found);
	assert_string_equal(rep.kind, res->kind);
	assert_int_equal(rep.nevents, res->nevents);
	for (unsigned i = 0; i < res->nevents; i++)
		assert_string_equal(rep.events[i].text, res->events[i].text);
	txp_explore_result_free(&rep);
}

#endif
