/*
 * judge.c - one execution, judged (check build only): the scenario made,
 * run by the runtime under a plan until nobody can go on, and its
 * properties checked: the validator's reports, single-writer counters,
 * BUG lines, the oracle's packets, stalls, start_xmit on a stopped queue
 * against the core's count and the era's claim, and what reached the
 * wire; a deadlock or a livelock as the runtime ended it.
 */
#include <string.h>

#include "check/dma.h"
#include "check/doorbell.h"
#include "check/judge.h"
#include "check/oracle.h"
#include "check/scenario.h"
#include "txpath/validator.h"

#define DEFAULT_MAX_STEPS 200000

static char validator_msg[400];
static unsigned validator_reports;

static void on_report(enum txp_hazard h, const char *msg, void *arg)
{
	(void)arg;
	if (!validator_reports++)
		snprintf(validator_msg, sizeof(validator_msg), "%s: %s", txp_hazard_name(h), msg);
}

/* Is a queue of dev stopped, by its driver or by BQL? */
static bool any_queue_stopped(struct txp_dev *dev)
{
	struct txp_txq *txq;

	for (unsigned i = 0; (txq = txp_dev_txq(dev, i)) != NULL; i++)
		if (txp_netif_xmit_stopped(txq))
			return true;
	return false;
}


/* The memory model cfg asks for. */
enum rt_mm judge_memory_model(const struct txp_explore_cfg *cfg)
{
	return cfg->arm ? RT_ARM : cfg->tso ? RT_TSO : RT_SC;
}

/* The core's count of start_xmit on a stopped queue against the
 * oracle's, and against what the era claims.  Under tso and arm the count
 * may lag the flag (the stop generation still in a store buffer when the
 * flag has landed): compared under sc only. */
static bool judge_xmit_on_stopped(const struct txp_explore_cfg *cfg, uint64_t counted,
				  struct outcome *o)
{
	unsigned seen = oracle_xmit_on_stopped();

	if (judge_memory_model(cfg) == RT_SC && seen > counted) {
		o->kind = "xmit-on-stopped";
		snprintf(o->detail, sizeof(o->detail),
			 "start_xmit ran %u times while another context stopped the queue under it, "
			 "the core counted %llu (xmit_on_stopped)", seen, (unsigned long long)counted);
	} else if (cfg->race_impossible && (seen || counted)) {
		o->kind = "claim";
		snprintf(o->detail, sizeof(o->detail),
			 "start_xmit ran on a stopped queue (%llu times by the core's count, %u by the "
			 "explorer's), which era %s claims impossible",
			 (unsigned long long)counted, seen, cfg->era ? cfg->era : "(custom)");
	}
	return o->kind != NULL;
}

/* Does the scenario's device promise each flow's order at the wire?  A
 * flow is one producer's.  One runner per queue (__QDISC_STATE_RUNNING,
 * 2.6.18 on) sends a queue's packets in their order; without a qdisc
 * each producer calls the driver itself.  Any number of runners make no
 * such promise, whatever the lock: an LLTX driver run by all of them
 * (2.6.9-2.6.17) takes two packets at once, and under the core's xmit
 * lock (2.6.8, 2.6.11-rc2) a runner the driver answered busy lets the
 * xmit lock go before it takes the root lock again to requeue, and
 * another runner sends the flow's next packet in between (make prove:
 * 2.6.8, 2 x 2, ring 3, three preemptions). */
static bool order_promised(const struct scenario *sc)
{
	return sc->cfg->runner == TXP_RUNNER_EXCLUSIVE || sc->cfg->qdisc == &txp_noqueue_ops;
}

/* Was the execution cut at a state explored in full (rt_cut())?  Its
 * end is one that state's search judged already, and passed. */
static bool execution_cut(void)
{
	unsigned n;

	(void)rt_branches(&n);
	return rt_cut() < n;
}

/* Properties at the end of a quiescent execution, then tear down. */
static void judge_quiescent(struct scenario *sc, struct outcome *o)
{
	const struct txp_explore_cfg *cfg = sc->cfg;
	struct txp_dev_stats st;
	struct wire_seen ss;
	struct oracle_verdict pv;
	uint64_t done, backlog;
	bool promised;
	int away;

	if (execution_cut()) {
		rt_release();
		txp_dev_close(sc->dev);
		(void)scenario_pools_home(sc);	/* judged already, where it was explored */
		return;
	}
	txp_dev_get_stats(sc->dev, &st);
	done = st.transmitted + txp_dev_stats_dropped(&st);
	backlog = txp_dev_backlog(sc->dev);
	o->xmit_on_stopped = st.xmit_on_stopped > 0 || oracle_xmit_on_stopped() > 0;
	o->stopped = st.stops + st.bql_stops > 0;
	o->races_unkept = rt_race_unkept();
	promised = order_promised(sc);
	rt_release();
	txp_dev_close(sc->dev);
	away = scenario_pools_home(sc);
	scenario_wire(sc, &ss);
	oracle_judge_packets(cfg->producers, cfg->packets, ss.duplicates, &pv);
	if (validator_reports) {
		o->kind = "validator";
		snprintf(o->detail, sizeof(o->detail), "%s", validator_msg);
	} else if (rt_counter_conflict(o->detail, sizeof(o->detail))) {
		o->kind = "counter";
	} else if (rt_race_found(o->detail, sizeof(o->detail))) {
		o->kind = "data-race";
	} else if (check_dma_verdict(&o->kind, o->detail, sizeof(o->detail))) {
		return;
	} else if (st.bug_logs) {
		o->kind = "bug-log";
		snprintf(o->detail, sizeof(o->detail), "%s (%llu times)", txp_dev_bug_line(sc->dev),
			 (unsigned long long)st.bug_logs);
	} else if (pv.recheck) {
		o->recheck = true;
	} else if (pv.kind) {
		o->kind = pv.kind;
		snprintf(o->detail, sizeof(o->detail), "%s", pv.detail);
	} else if (away >= 0) {
		o->kind = "lost";
		snprintf(o->detail, sizeof(o->detail),
			 "CPU %d's pool did not have every packet home at the end: one freed into "
			 "another pool, a packet of another freed into it, its return stack cut "
			 "(what was pushed before a push lost), or its lists corrupt (a packet on "
			 "them twice, a cycle)", away + 1);
	} else if (oracle_unjustified_drop(o->detail, sizeof(o->detail))) {
		o->kind = "unjustified-drop";
	} else if (oracle_no_doorbell(o->detail, sizeof(o->detail))) {
		o->kind = "no-doorbell";
	} else if (done < st.submitted) {
		o->kind = "stall";
		snprintf(o->detail, sizeof(o->detail),
			 "%llu packets queued, %llu in the driver's ring, queue %s, no context left "
			 "to move them: nothing will ever wake it",
			 (unsigned long long)backlog,
			 (unsigned long long)(st.submitted - done > backlog ?
					      st.submitted - done - backlog : 0),
			 any_queue_stopped(sc->dev) ? "stopped" : "awake");
	} else if (judge_xmit_on_stopped(cfg, st.xmit_on_stopped, o)) {
		return;
	} else if (ss.unique + txp_dev_stats_dropped(&st) < st.submitted || ss.ring_errors) {
		o->kind = "lost";
		snprintf(o->detail, sizeof(o->detail), "%llu packets never reached the wire, %llu ring errors",
			 (unsigned long long)(st.submitted - ss.unique - txp_dev_stats_dropped(&st)),
			 (unsigned long long)ss.ring_errors);
	} else if (promised && ss.reordered) {
		o->kind = "reordered";
		snprintf(o->detail, sizeof(o->detail),
			 "flow %u: seq %llu reached the wire before seq %llu, which CPU %u sent "
			 "first (%llu frames out of order)",
			 ss.first_reorder.flow, (unsigned long long)ss.first_reorder.ahead,
			 (unsigned long long)ss.first_reorder.behind, ss.first_reorder.flow + 1,
			 (unsigned long long)ss.reordered);
	}
}


static int exec_plan(const struct txp_explore_cfg *cfg, const struct rt_plan *plan,
		     struct outcome *o, char *err, size_t errlen)
{
	struct scenario sc;
	int rc;

	memset(o, 0, sizeof(*o));
	validator_reports = 0;
	check_dma_begin();
	check_doorbell_begin();
	txp_validator_enable(true);
	txp_validator_on_report(on_report, NULL);
	rt_begin(plan, judge_memory_model(cfg), cfg->max_steps ? cfg->max_steps : DEFAULT_MAX_STEPS);
	rt_plain_points(cfg->plain_point);
	rc = scenario_setup(&sc, cfg, err, errlen);
	if (rc == 0) {
		o->end = rt_run();
		if (o->end == RT_QUIESCENT) {
			judge_quiescent(&sc, o);
		} else {
			int stuck = rt_stuck_ctx();

			o->kind = o->end == RT_DEADLOCK ? "deadlock" : "livelock";
			if (o->end == RT_DEADLOCK)
				snprintf(o->detail, sizeof(o->detail), "%s waits for a lock nobody will release",
					 rt_ctx_name(stuck));
			else
				snprintf(o->detail, sizeof(o->detail), "no end after %u steps", rt_steps());
			if (validator_reports) {
				size_t len = strlen(o->detail);

				snprintf(o->detail + len, sizeof(o->detail) - len, "; %s", validator_msg);
			}
			rt_release();
		}
		/* The first thing to go wrong: what followed was its aftermath. */
		if (oracle_false_timeout(o->detail, sizeof(o->detail)))
			o->kind = "false-timeout";
	}
	rt_finish();
	txp_validator_on_report(NULL, NULL);
	txp_validator_enable(false);
	/* After a deadlock the stuck contexts hold locks: the device cannot
	 * be closed, and is left behind (the search stops there anyway). */
	if (rc != 0 || o->end == RT_QUIESCENT)
		scenario_free(&sc);
	return rc;
}

/* One execution under plan; once more, the same (a plan decides it all),
 * when the packet oracle must be precise to name what it found. */
int judge_exec(const struct txp_explore_cfg *cfg, const struct rt_plan *plan,
		    struct outcome *o, char *err, size_t errlen)
{
	int rc = exec_plan(cfg, plan, o, err, errlen);

	if (rc || !o->recheck)
		return rc;
	oracle_precise(true);
	rc = exec_plan(cfg, plan, o, err, errlen);
	oracle_precise(false);
	return rc;
}
