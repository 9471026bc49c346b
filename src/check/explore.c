/*
 * explore.c - the schedule explorer: scenarios, strategies, replay.
 *
 * A scenario is built afresh for every schedule: a simulated NIC and its
 * device, its completion context ("IRQ"), and the producer contexts
 * ("CPU 1", ...), each sending a few packets.  The scheduler (sched.c)
 * runs them until nobody can go on; then the properties are checked.
 *
 * The bounded search is iterative context bounding: stateless depth-first
 * search over the branch points of the executions, allowing at most k
 * preemptions (switching away from a context that could have gone on, or
 * flushing a store early), for k = 0, 1, ... bound.  With the reduction
 * (cfg->reduce), each branch point is named by the execution's trace so far
 * (trace.h); a point whose trace was explored in full with at least as
 * many preemptions left and the same context running (or nobody), or with
 * one more left and any, is not explored again (visited.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/oracle.h"
#include "check/runtime/runtime.h"
#include "check/timer.h"
#include "check/runtime/trace.h"
#include "check/search/policy.h"
#include "check/search/rng.h"
#include "check/search/visited.h"
#include "txpath/validator.h"
#include "txpath/ctx.h"
#include "txpath/explore.h"
#include "txpath/run.h"

#define DEFAULT_MAX_STEPS 200000

struct scenario {
	const struct txp_check_cfg *cfg;
	const struct txp_run_driver *driver;	/* the simulated NIC, or cfg->driver */
	void *drv_priv;		/* its state */
	struct txp_dev *dev;
	unsigned next_flow;
};

/* What a scenario's wire and ring saw. */
struct wire_seen {
	uint64_t unique, duplicates, ring_errors;
};

struct outcome {
	enum rt_end end;
	const char *kind;	/* NULL: no violation */
	char detail[400];
	bool xmit_on_stopped;
	bool recheck;		/* run again, the oracle precise */
};

struct producer_arg {
	struct scenario *sc;
	uint32_t flow;
};

static struct producer_arg producer_args[RT_MAX_CTX];
static char validator_msg[400];
static unsigned validator_reports;

static void on_report(enum txp_hazard h, const char *msg, void *arg)
{
	(void)arg;
	if (!validator_reports++)
		snprintf(validator_msg, sizeof(validator_msg), "%s: %s", txp_hazard_name(h), msg);
}

/* The producer's packets, in bursts of the device's bulk size (one at a
 * time through txp_dev_queue_xmit when it is 1), so that a bulk device
 * sees whole batches: bypassed, or enqueued and dequeued together. */
static void *producer_main(void *arg)
{
	struct producer_arg *pa = arg;
	const struct txp_check_cfg *cfg = pa->sc->cfg;
	unsigned span = cfg->frags_max - cfg->frags_min + 1, bulk = cfg->bulk ? cfg->bulk : 1;
	struct txp_pkt *burst[TXP_DEV_BULK_MAX];

	txp_ctx_attach();
	/* XPS: producer i sends on queue i mod the queues.  Set here, for
	 * the context slot this fiber got (which one depends on the order
	 * earlier executions left them in; the default map would follow). */
	txp_dev_set_xps(pa->sc->dev, (unsigned)txp_ctx_self(),
			(int)(pa->flow % txp_dev_num_tx_queues(pa->sc->dev)));
	for (unsigned k = 0; k < cfg->packets;) {
		unsigned n = 0;

		for (; n < bulk && k < cfg->packets; n++, k++) {
			struct txp_pkt *pkt = oracle_pkt(pa->flow, k);

			pkt->flow = pa->flow;
			pkt->seq = k;
			pkt->len = 64;
			pkt->nr_frags = (uint16_t)(cfg->frags_min + (pa->flow + k) % span);
			burst[n] = pkt;
		}
		if (n == 1)
			txp_dev_queue_xmit(pa->sc->dev, burst[0]);
		else
			txp_xmit_burst(pa->sc->dev, burst, n);
	}
	txp_ctx_detach();
	return NULL;
}

static unsigned ring_size(const struct txp_check_cfg *cfg)
{
	return cfg->ring ? cfg->ring : txp_sim_min_ring(cfg->frags_max);
}

/* The workload's knobs for the scenario's driver: cfg->driver, or the
 * simulated NIC with cfg's personality.  The validator is always on. */
static struct txp_run_cfg driver_cfg(const struct txp_check_cfg *cfg)
{
	return (struct txp_run_cfg){
		.driver = cfg->driver ? cfg->driver : txp_run_driver("sim"),
		.personality = cfg->personality,
		.lock = cfg->lock,
		.runner = cfg->runner,
		.qdisc = cfg->qdisc,
		.threads = cfg->producers,
		.ring = cfg->driver ? cfg->ring : ring_size(cfg),
		.frags_min = cfg->frags_min,
		.frags_max = cfg->frags_max,
		.batch = cfg->batch,
		.bulk = cfg->bulk,
		.queues = cfg->queues,
		.bql = cfg->bql,
		.defer = cfg->defer,
		.validate = true,
	};
}

/* Does cfg fit the scenario's driver (its check, as txpath run's)?  False
 * and a message if not. */
static bool driver_fits(const struct txp_check_cfg *cfg, char *err, size_t errlen)
{
	struct txp_run_cfg rcfg = driver_cfg(cfg);

	return rcfg.driver->check(&rcfg, err, errlen);
}

/* The oracle's watch on the device: the driver's ops (cfg->ops in place
 * of the simulated NIC's) wrapped, ... */
static const struct txp_driver_ops *scenario_watch_ops(const struct txp_driver_ops *ops, void *arg)
{
	const struct txp_check_cfg *cfg = ((const struct scenario *)arg)->cfg;

	return oracle_begin(!cfg->driver && cfg->ops ? cfg->ops : ops, cfg->packets);
}

/* ... and its queues' stopped flags, before it opens. */
static void scenario_watch_dev(struct txp_dev *dev, void *arg)
{
	(void)arg;
	oracle_watch(dev);
}

static void scenario_wire(const struct scenario *sc, struct wire_seen *w)
{
	struct txp_run_drv_stats ds;

	sc->driver->stats(sc->drv_priv, &ds);
	*w = (struct wire_seen){ ds.wire_unique, ds.wire_duplicates, ds.ring_errors };
}

static void scenario_free(struct scenario *sc)
{
	txp_run_dev_destroy(sc->driver, sc->dev, sc->drv_priv);
}

static bool told_apart;	/* this search found the producers not alike (explore_bound()) */

/*
 * Do the producers differ in nothing but their ids?  They send as many
 * packets, with one fragment count, on one queue (else producer i sends
 * on queue i), to the simulated NIC (a plugin may tell packets of one
 * producer from another's; cfg->ops must not); 2 to TRACE_SYM_MAX of
 * them.  The reduction then names
 * a state and its images under a permutation of them alike
 * (trace_symmetric()).
 */
static bool producers_alike(const struct txp_check_cfg *cfg)
{
	return cfg->reduce && !(cfg->reduce_without & TXP_CHECK_REDUCE_NO_SYMMETRY) &&
	       cfg->producers >= 2 && cfg->producers <= TRACE_SYM_MAX && cfg->queues <= 1 &&
	       cfg->frags_min == cfg->frags_max && !cfg->driver && !told_apart;
}

static int scenario_setup(struct scenario *sc, const struct txp_check_cfg *cfg,
			  char *err, size_t errlen)
{
	int ids[RT_MAX_CTX];
	struct txp_run_cfg rcfg = driver_cfg(cfg);
	struct txp_dev_cfg dcfg = txp_run_dev_cfg(&rcfg);
	const struct txp_run_dev_watch watch = {
		.ops = scenario_watch_ops, .made = scenario_watch_dev, .arg = sc,
	};

	memset(sc, 0, sizeof(*sc));
	sc->cfg = cfg;
	sc->driver = rcfg.driver;
	dcfg.name = cfg->driver ? "eth0" : "sim0";
	timer_dev_cfg(&dcfg, cfg->watchdog);
	if (txp_run_dev_create(&rcfg, &dcfg, &watch, &sc->dev, &sc->drv_priv, err, errlen) != 0)
		return -1;
	for (unsigned i = 0; i < cfg->producers; i++) {
		char name[16];

		producer_args[i] = (struct producer_arg){ sc, i };
		snprintf(name, sizeof(name), "CPU %u", i + 1);
		ids[i] = rt_spawn(name, producer_main, &producer_args[i]);
		if (ids[i] < 0) {
			snprintf(err, errlen, "cannot start producer contexts");
			return -1;
		}
	}
	trace_symmetric(ids, producers_alike(cfg) ? cfg->producers : 0);
	if (cfg->watchdog && timer_start(sc->dev) != 0) {
		snprintf(err, errlen, "cannot start the watchdog's context: too many contexts");
		return -1;
	}
	return 0;
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
static enum rt_mm memory_model(const struct txp_check_cfg *cfg)
{
	return cfg->arm ? RT_ARM : cfg->tso ? RT_TSO : RT_SC;
}

/* The core's count of start_xmit on a stopped queue against the
 * oracle's, and against what the era claims.  Under tso and arm the count
 * may lag the flag (the stop generation still in a store buffer when the
 * flag has landed): compared under sc only. */
static bool judge_xmit_on_stopped(const struct txp_check_cfg *cfg, uint64_t counted,
				  struct outcome *o)
{
	unsigned seen = oracle_xmit_on_stopped();

	if (memory_model(cfg) == RT_SC && seen > counted) {
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
	const struct txp_check_cfg *cfg = sc->cfg;
	struct txp_dev_stats st;
	struct wire_seen ss;
	struct oracle_verdict pv;
	uint64_t done, backlog;

	if (execution_cut()) {
		rt_release();
		txp_dev_close(sc->dev);
		return;
	}
	txp_dev_get_stats(sc->dev, &st);
	done = st.transmitted + txp_dev_stats_dropped(&st);
	backlog = txp_dev_backlog(sc->dev);
	o->xmit_on_stopped = st.xmit_on_stopped > 0 || oracle_xmit_on_stopped() > 0;
	rt_release();
	txp_dev_close(sc->dev);
	scenario_wire(sc, &ss);
	oracle_judge_packets(cfg->producers, cfg->packets, ss.duplicates, &pv);
	if (validator_reports) {
		o->kind = "validator";
		snprintf(o->detail, sizeof(o->detail), "%s", validator_msg);
	} else if (rt_counter_conflict(o->detail, sizeof(o->detail))) {
		o->kind = "counter";
	} else if (st.bug_logs) {
		o->kind = "bug-log";
		snprintf(o->detail, sizeof(o->detail), "BUG! Tx Ring full when queue awake! (%llu times)",
			 (unsigned long long)st.bug_logs);
	} else if (pv.recheck) {
		o->recheck = true;
	} else if (pv.kind) {
		o->kind = pv.kind;
		snprintf(o->detail, sizeof(o->detail), "%s", pv.detail);
	} else if (done < st.submitted) {
		o->kind = "stall";
		snprintf(o->detail, sizeof(o->detail),
			 "%llu packets queued, queue %s, nothing in flight: nothing will ever wake it",
			 (unsigned long long)backlog, any_queue_stopped(sc->dev) ? "stopped" : "awake");
	} else if (judge_xmit_on_stopped(cfg, st.xmit_on_stopped, o)) {
		return;
	} else if (ss.unique + txp_dev_stats_dropped(&st) < st.submitted || ss.ring_errors) {
		o->kind = "lost";
		snprintf(o->detail, sizeof(o->detail), "%llu packets never reached the wire, %llu ring errors",
			 (unsigned long long)(st.submitted - ss.unique - txp_dev_stats_dropped(&st)),
			 (unsigned long long)ss.ring_errors);
	}
}

static int exec_plan(const struct txp_check_cfg *cfg, const struct rt_plan *plan,
		     struct outcome *o, char *err, size_t errlen);

/* One execution under plan; once more, the same (a plan decides it all),
 * when the packet oracle must be precise to name what it found. */
static int exec_one(const struct txp_check_cfg *cfg, const struct rt_plan *plan,
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

static int exec_plan(const struct txp_check_cfg *cfg, const struct rt_plan *plan,
		     struct outcome *o, char *err, size_t errlen)
{
	struct scenario sc;
	int rc;

	memset(o, 0, sizeof(*o));
	validator_reports = 0;
	txp_validator_enable(true);
	txp_validator_on_report(on_report, NULL);
	rt_begin(plan, memory_model(cfg), cfg->max_steps ? cfg->max_steps : DEFAULT_MAX_STEPS);
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

/* -- schedules as strings ------------------------------------------------ */

static int default_action(const struct rt_branch *b)
{
	return b->cur >= 0 ? b->cur : __builtin_ctz(b->enabled);
}

/* The schedule string of an execution: the branches that left the default. */
static char *schedule_string(const struct rt_branch *b, unsigned n)
{
	struct txp_check_choice *c = malloc((n ? n : 1) * sizeof(*c));
	unsigned k = 0;
	char *s;

	if (!c)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		if (b[i].chosen == default_action(&b[i]))
			continue;
		c[k].index = i;
		c[k].flush = b[i].chosen >= RT_FLUSH;
		c[k].ctx = (uint8_t)(c[k].flush ? b[i].chosen - RT_FLUSH : b[i].chosen);
		k++;
	}
	s = txp_check_schedule_format(c, k);
	free(c);
	return s;
}

/* -- results ----------------------------------------------------------------- */

static void fill_violation(struct txp_check_result *res, const struct outcome *o)
{
	unsigned nbr, nev;
	const struct rt_branch *b = rt_branches(&nbr);
	const struct rt_event *ev = rt_events(&nev);
	int col[RT_MAX_CTX], ncol = 0, irq = -1;

	res->found = true;
	res->kind = o->kind;
	snprintf(res->detail, sizeof(res->detail), "%s", o->detail);
	res->preemptions = rt_preemptions();
	res->schedule = schedule_string(b, nbr);
	/* Columns: the producers in order, the completion context last. */
	for (int i = 0; i < rt_nctx(); i++) {
		if (!strcmp(rt_ctx_name(i), "IRQ")) {
			irq = i;
			continue;
		}
		col[i] = ncol;
		snprintf(res->columns[ncol++], sizeof(res->columns[0]), "%s", rt_ctx_name(i));
	}
	if (irq >= 0) {
		col[irq] = ncol;
		snprintf(res->columns[ncol++], sizeof(res->columns[0]), "IRQ (completion)");
	}
	res->ncolumns = ncol;
	res->events = calloc(nev ? nev : 1, sizeof(*res->events));
	if (!res->events)
		return;
	for (unsigned i = 0; i < nev; i++) {
		struct txp_check_event *e = &res->events[res->nevents++];

		e->column = col[ev[i].ctx];
		if (ev[i].site && ev[i].arg)
			snprintf(e->text, sizeof(e->text), "%s: %s(%s)", ev[i].site, ev[i].what, ev[i].arg);
		else if (ev[i].site)
			snprintf(e->text, sizeof(e->text), "%s: %s", ev[i].site, ev[i].what);
		else if (ev[i].arg)
			snprintf(e->text, sizeof(e->text), "%s %s", ev[i].what, ev[i].arg);
		else
			snprintf(e->text, sizeof(e->text), "%s", ev[i].what);
		/* A BUG line is the violation, as a false NETDEV WATCHDOG
		 * is: the rest is aftermath. */
		if ((!strcmp(o->kind, "bug-log") && !strncmp(ev[i].what, "BUG!", 4)) ||
		    (!strcmp(o->kind, "false-timeout") && !strcmp(ev[i].what, "NETDEV WATCHDOG")))
			break;
	}
}

/* -- strategies ------------------------------------------------------------- */

struct dfs {
	int8_t *path;		/* actions along the current path */
	uint32_t *tried;	/* per branch: actions tried (bit per action) */
	uint16_t *enabled;	/* per branch, to catch nondeterminism */
	/* With the reduction, per branch: the step each context tried there
	 * took (n TRACE_FP_UNKNOWN: not known). */
	struct trace_fp (*fp)[RT_MAX_CTX];
	unsigned len, cap;
	unsigned cut;		/* the last execution's first explored state */
	unsigned bound;		/* this round's */
};

static int dfs_reserve(struct dfs *d, unsigned n)
{
	if (n <= d->cap)
		return 0;
	while (d->cap < n)
		d->cap = d->cap ? d->cap * 2 : 1024;
	d->path = realloc(d->path, d->cap);
	d->tried = realloc(d->tried, d->cap * sizeof(*d->tried));
	d->enabled = realloc(d->enabled, d->cap * sizeof(*d->enabled));
	d->fp = realloc(d->fp, d->cap * sizeof(*d->fp));
	return d->path && d->tried && d->enabled && d->fp ? 0 : -1;
}

static unsigned action_bit(int a)
{
	return a >= RT_FLUSH ? 1u << (a - RT_FLUSH + RT_MAX_CTX) : 1u << a;
}

/* A branch's actions, as bits of action_bit(). */
static uint32_t actions(const struct rt_branch *b)
{
	return b->enabled | (uint32_t)b->flushable << RT_MAX_CTX;
}

/* Was the state at b explored in full already, with as much left to spend? */
static bool explored(const struct rt_branch *b, unsigned bound)
{
	return b->kind == RT_BR_RUN && b->preempt <= bound &&
	       visited_covers(b->key_a, b->key_b, b->key_cur, bound - b->preempt);
}

/* The plan's explored(): arg is the search. */
static bool plan_explored(const struct rt_branch *b, void *arg)
{
	return explored(b, ((const struct dfs *)arg)->bound);
}

static void plan_named(const struct rt_branch *b, void *arg)
{
	(void)arg;
	visited_prefetch(b->key_a);
}

/* The plan's expect(): at branch i of the prefix, the steps the contexts
 * tried there before took are what they would take from there again. */
static void plan_expect(unsigned i, void *arg)
{
	const struct dfs *d = arg;

	for (int c = 0; c < RT_MAX_CTX; c++)
		if ((d->tried[i] & action_bit(c)) && c != d->path[i])
			trace_expect(c, &d->fp[i][c]);
}

/* The footprints of the last execution's steps, from the branch the prefix
 * ended at (whose other tries are kept) to the cut. */
static void dfs_record_fp(struct dfs *d, const struct rt_branch *b, unsigned forced)
{
	for (unsigned i = forced ? forced - 1 : 0; i < d->cut; i++) {
		if (i >= forced)
			for (int c = 0; c < RT_MAX_CTX; c++)
				d->fp[i][c].n = TRACE_FP_UNKNOWN;
		if (b[i].chosen < RT_FLUSH)
			d->fp[i][b[i].chosen] = *rt_branch_fp(i);
	}
}

/* Record the branches of the last execution beyond the forced prefix; with
 * the reduction, from the first explored state on (the execution's cut),
 * nothing is left to try: the tail was the default, explored there too;
 * nor is what a branch found asleep (its step leads to a state explored). */
static int dfs_record(struct dfs *d, unsigned forced, bool reduce, struct txp_check_result *res)
{
	unsigned n;
	const struct rt_branch *b = rt_branches(&n);

	if (dfs_reserve(d, n) != 0)
		return -1;
	d->cut = rt_cut();
	if (d->cut < n)
		res->pruned++;
	for (unsigned i = 0; i < n; i++) {
		if (i < forced && d->enabled[i] != b[i].enabled)
			return -2;	/* the same choices led elsewhere */
		if (i >= forced) {
			uint32_t asleep = i < d->cut ? b[i].asleep & ~action_bit(b[i].chosen) : 0;

			d->tried[i] = i >= d->cut ? actions(&b[i]) : action_bit(b[i].chosen) | asleep;
			res->asleep += (unsigned)__builtin_popcount(asleep);
			d->enabled[i] = b[i].enabled;
		}
		d->path[i] = b[i].chosen;
	}
	if (reduce)
		dfs_record_fp(d, b, forced);
	d->len = n;
	return 0;
}

/* Deepest branch with an untried action within the bound: make it the
 * end of the next prefix.  False when the search is complete.  Actions
 * are tried in action_bit() order: runs by context id, then flushes. */
static bool dfs_next(struct dfs *d, unsigned bound, bool reduce, unsigned *prefix_len)
{
	unsigned n;
	const struct rt_branch *b = rt_branches(&n);

	(void)n;
	for (unsigned i = d->len; i-- > 0;) {
		uint32_t left = actions(&b[i]) & ~d->tried[i];
		int bit, a;

		/* At the bound only what costs no preemption: going on, or any
		 * context when the running one cannot. */
		if (b[i].preempt >= bound)
			left &= b[i].cur >= 0 ? action_bit(b[i].cur) : b[i].enabled;
		if (!left) {
			/* Below it all is explored: so is its state (past
			 * the cut, untraced, known already). */
			if (reduce && b[i].kind == RT_BR_RUN && i < d->cut)
				visited_add(b[i].key_a, b[i].key_b, b[i].key_cur, bound - b[i].preempt);
			continue;
		}
		bit = __builtin_ctz(left);
		a = bit < RT_MAX_CTX ? bit : RT_FLUSH + bit - RT_MAX_CTX;
		d->tried[i] |= 1u << bit;
		d->path[i] = (int8_t)a;
		*prefix_len = i + 1;
		return true;
	}
	return false;
}

/* Asked to stop?  Polled between schedules; remembered in res. */
static bool stop_asked(const struct txp_check_cfg *cfg, struct txp_check_result *res)
{
	if (cfg->stop && txp_run_interrupted(cfg->stop))
		res->interrupted = true;
	return res->interrupted;
}

/* One schedule, counted and judged: a negative errno on error, 1 on a
 * violation (res filled), 2 when asked to stop before it, 0 to go on. */
static int run_schedule(const struct txp_check_cfg *cfg, const struct rt_plan *plan,
			struct txp_check_result *res, struct outcome *o, char *err, size_t errlen)
{
	if (stop_asked(cfg, res))
		return 2;
	if (exec_one(cfg, plan, o, err, errlen) != 0)
		return -EPROTO;
	res->schedules++;
	res->xmit_on_stopped_reachable |= o->xmit_on_stopped;
	if (!o->kind)
		return 0;
	fill_violation(res, o);
	return 1;
}

/* The search from bound 0 again, nothing known explored. */
static void dfs_restart(struct dfs *d, struct txp_check_result *res, unsigned *k,
			unsigned *prefix)
{
	visited_clear();
	*k = 0;
	*prefix = 0;
	res->bound_reached = 0;
	d->bound = 0;
	d->len = 0;
}

/*
 * The bounded search.  With the reduction, a fair switch (sched.c's
 * starved()) breaks what the trace's name assumes, that a state's future
 * depends on the trace alone (it depends on steps counted since each
 * context ran): the search then starts again without it.  Symmetry too
 * starts again without itself when a default of the scheduler told the
 * producers apart.
 */
static int explore_bound(const struct txp_check_cfg *cfg, struct txp_check_result *res,
			 struct outcome *o, char *err, size_t errlen)
{
	struct dfs d = { 0 };
	bool reduce = cfg->reduce;
	int rc = 0;

	told_apart = false;
	res->reduced = reduce;
	res->symmetric = producers_alike(cfg);
	visited_clear();
	for (unsigned k = 0; k <= cfg->bound && rc == 0; k++) {
		unsigned prefix = 0;

		res->bound_reached = k;
		d.len = 0;
		d.bound = k;
		for (;;) {
			struct rt_plan plan = { .prefix = d.path, .nprefix = prefix,
						   .trace = reduce,
						   .explored = reduce ? plan_explored : NULL,
						   .named = plan_named,
						   .expect = cfg->reduce_without & TXP_CHECK_REDUCE_NO_ASLEEP
								     ? NULL : plan_expect,
						   .explored_arg = &d };

			rc = run_schedule(cfg, &plan, res, o, err, errlen);
			if (rc)
				break;
			if (reduce && rt_fair_switches()) {
				reduce = res->reduced = res->symmetric = false;
				res->reduce_dropped = true;
				dfs_restart(&d, res, &k, &prefix);
				continue;
			}
			/* The scheduler's default chose between producers by
			 * their ids: a state and its mirror image may have
			 * futures unlike each other. */
			if (res->symmetric && rt_told_apart()) {
				told_apart = true;
				res->symmetric = false;
				dfs_restart(&d, res, &k, &prefix);
				continue;
			}
			rc = dfs_record(&d, prefix, reduce, res);
			if (rc) {
				snprintf(err, errlen, rc == -2 ? "internal error: an execution did not repeat"
							       : "out of memory");
				rc = rc == -2 ? -EPROTO : -ENOMEM;
				break;
			}
			if (cfg->progress && res->schedules % 256 == 0)
				cfg->progress(res->schedules, k, cfg->progress_arg);
			if (!dfs_next(&d, k, reduce, &prefix))
				break;
		}
	}
	res->complete = rc == 0;
	res->states = visited_count();
	res->states_full = visited_full();
	visited_clear();
	free(d.path);
	free(d.tried);
	free(d.enabled);
	free(d.fp);
	return rc < 0 ? rc : 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

static int explore_sampled(const struct txp_check_cfg *cfg, struct txp_check_result *res,
			   struct outcome *o, char *err, size_t errlen)
{
	uint64_t seed = cfg->seed;
	unsigned steps = 0, change[64];
	int rc = 0;

	if (cfg->strategy == TXP_CHECK_PCT) {
		/* One default run to learn how many steps a schedule takes. */
		struct rt_plan plan = { 0 };

		if (exec_one(cfg, &plan, o, err, errlen) != 0)
			return -EPROTO;
		steps = rt_steps() ? rt_steps() : 1;
	}
	for (uint64_t run = 0; run < cfg->runs && rc == 0; run++) {
		struct policy_pct pct;
		struct policy_random random;
		struct rt_plan plan = { 0 };
		unsigned depth = cfg->depth < 64 ? cfg->depth : 64;
		uint64_t draws = rng_split(&seed) | 1;

		if (cfg->strategy == TXP_CHECK_PCT) {
			/* Depth D: D change points, so D preemptions. */
			for (unsigned i = 0; i < depth; i++)
				change[i] = 1 + (unsigned)(rng_split(&seed) % steps);
			qsort(change, depth, sizeof(change[0]), cmp_unsigned);
			policy_pct_init(&pct, draws, change, depth);
			plan.policy = &pct.p;
		} else {
			policy_random_init(&random, draws);
			plan.policy = &random.p;
		}
		rc = run_schedule(cfg, &plan, res, o, err, errlen);
		if (rc)
			break;
		if (cfg->progress && res->schedules % 256 == 0)
			cfg->progress(res->schedules, 0, cfg->progress_arg);
	}
	res->complete = false;
	return rc < 0 ? rc : 0;
}

/* The contexts that could run (or flush a store) at branch b, for a
 * message: "1 (CPU 1), 2 (CPU 2)". */
static const char *able_list(const struct rt_branch *b, bool flush, char *buf, size_t len)
{
	unsigned mask = flush ? b->flushable : b->enabled;
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < RT_MAX_CTX && used < len; i++)
		if (mask & (1u << i))
			used += (size_t)snprintf(buf + used, len - used, "%s%s%d (%s)", used ? ", " : "",
						 flush ? "f" : "", i, rt_ctx_name(i));
	return used ? buf : "none";
}

/* Did the replayed execution take every choice, where it was given?
 * -EINVAL and a message naming the first pair that did not fit. */
static int replay_fit(const struct policy_replay *r, const struct txp_check_choice *c, unsigned n,
		      char *err, size_t errlen)
{
	unsigned nbr, reached = policy_replay_reached(r);
	const struct rt_branch *b = rt_branches(&nbr);
	int bad = policy_replay_refused(r);
	char able[160];

	if (bad >= 0) {
		const struct txp_check_choice *x = &c[bad];

		snprintf(err, errlen, "schedule pair %d '%u:%s%u': context %u %s at branch point %u (%s: %s)",
			 bad + 1, x->index, x->flush ? "f" : "", x->ctx, x->ctx,
			 x->flush ? "has no store waiting" : "cannot run", x->index,
			 x->flush ? "stores waiting" : "can run",
			 able_list(&b[x->index], x->flush, able, sizeof(able)));
		return -EINVAL;
	}
	if (reached < n) {
		const struct txp_check_choice *x = &c[reached];

		snprintf(err, errlen,
			 "schedule pair %u '%u:%s%u': no branch point %u, this schedule has %u (0..%u)",
			 reached + 1, x->index, x->flush ? "f" : "", x->ctx, x->index, nbr,
			 nbr ? nbr - 1 : 0);
		return -EINVAL;
	}
	return 0;
}

static int explore_replay(const struct txp_check_cfg *cfg, struct txp_check_result *res,
			  struct outcome *o, char *err, size_t errlen)
{
	struct txp_check_choice *c;
	unsigned n;
	int rc = txp_check_schedule_parse(cfg->replay, &c, &n, err, errlen);

	if (rc)
		return rc;
	{
		struct policy_replay replay;
		struct rt_plan plan = { .policy = &replay.p };

		policy_replay_init(&replay, c, n);
		rc = exec_one(cfg, &plan, o, err, errlen) != 0 ? -EPROTO
							       : replay_fit(&replay, c, n, err, errlen);
	}
	free(c);
	if (rc)
		return rc;
	res->schedules = 1;
	res->xmit_on_stopped_reachable = o->xmit_on_stopped;
	stop_asked(cfg, res);
	if (o->kind) {
		fill_violation(res, o);
	} else {
		/* No violation: the diagram of the schedule all the same. */
		struct outcome none = { .kind = "none" };

		fill_violation(res, &none);
		res->found = false;
	}
	return 0;
}

/* -- the API ------------------------------------------------------------------ */

void txp_check_cfg_init(struct txp_check_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->lock = TXP_LOCK_LLTX;
	cfg->runner = TXP_RUNNER_CONCURRENT;
	cfg->personality = txp_sim_personality("tg3-2005");
	cfg->producers = 2;
	cfg->packets = 2;
	cfg->batch = 32;
	cfg->strategy = TXP_CHECK_BOUND;
	cfg->bound = 2;
	cfg->depth = 3;
	cfg->runs = 1000;
	cfg->seed = 1;
}

bool txp_check_cfg_valid(const struct txp_check_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->producers < 1 || cfg->producers > RT_MAX_CTX - 2) {
		snprintf(err, errlen, "producers must be 1..%d", RT_MAX_CTX - 2);
		return false;
	}
	if (cfg->packets < 1 || cfg->packets > 64) {
		snprintf(err, errlen, "packets must be 1..64 per producer");
		return false;
	}
	if (cfg->frags_min > cfg->frags_max || cfg->frags_max > TXP_MAX_FRAGS) {
		snprintf(err, errlen, "fragments must be MIN-MAX with 0 <= MIN <= MAX <= %d",
			 TXP_MAX_FRAGS);
		return false;
	}
	if (cfg->reduce && cfg->strategy != TXP_CHECK_BOUND && !cfg->replay) {
		snprintf(err, errlen, "the reduction is for the bounded search (--bound)");
		return false;
	}
	if (cfg->reduce_without & ~(TXP_CHECK_REDUCE_NO_ASLEEP | TXP_CHECK_REDUCE_NO_SYMMETRY)) {
		snprintf(err, errlen, "unknown parts of the reduction to leave out: %#x",
			 cfg->reduce_without);
		return false;
	}
	if (cfg->reduce_without && !cfg->reduce) {
		snprintf(err, errlen, "leaving parts of the reduction out needs the reduction (--reduce)");
		return false;
	}
	if (cfg->reduce && cfg->arm) {
		snprintf(err, errlen, "the reduction works under sc and tso, not arm "
			 "(whose loads see landings in the order of one clock)");
		return false;
	}
	if (cfg->strategy == TXP_CHECK_PCT && (cfg->depth < 1 || cfg->depth > 64)) {
		snprintf(err, errlen, "PCT depth must be 1..64");
		return false;
	}
	if (cfg->driver)
		return driver_fits(cfg, err, errlen);
	if (cfg->bulk > TXP_DEV_BULK_MAX) {
		snprintf(err, errlen, "bulk must be 1..%d packets", TXP_DEV_BULK_MAX);
		return false;
	}
	return driver_fits(cfg, err, errlen);
}

/* -- a driver that crashes ------------------------------------------------------ */

/*
 * A plugin driver's crash (a fault signal in one of its contexts) ends
 * the program: the explorer's contexts share its one thread, so nothing
 * survives it.  Before it ends, on an alternate stack, the schedule that
 * led there is written out (the diagram so far, and the string that
 * --replay runs again), best effort: the heap may be what broke.  Exit 1,
 * a violation found.
 */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static bool crash_caught;

static void on_crash(int sig)
{
	struct txp_check_result res = { 0 };
	struct outcome o = { .kind = "crash" };

	snprintf(o.detail, sizeof(o.detail), "driver crashed: %s", strsignal(sig));
	fill_violation(&res, &o);
	fflush(stdout);
	printf("VIOLATION crash after %u preemptions: the driver crashed (%s)\n\n", res.preemptions,
	       strsignal(sig));
	txp_check_diagram(stdout, &res);
	printf("\nschedule: %s\nreplay: the same command with --replay %s\n",
	       res.schedule ? res.schedule : "?", res.schedule ? res.schedule : "?");
	fflush(stdout);
	_exit(1);
}

static void crash_catch(void)
{
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_handler = on_crash, .sa_flags = SA_ONSTACK | SA_RESETHAND };

	crash_caught = true;
	sigaltstack(&ss, NULL);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
}

int txp_check_run(const struct txp_check_cfg *cfg, struct txp_check_result *res,
		  char *err, size_t errlen)
{
	struct outcome o;
	uint64_t t0 = txp_now_ns();
	int rc;

	memset(res, 0, sizeof(*res));
	if (!txp_check_cfg_valid(cfg, err, errlen))
		return -EINVAL;
	if (cfg->driver && !crash_caught)
		crash_catch();
	if (cfg->replay)
		rc = explore_replay(cfg, res, &o, err, errlen);
	else if (cfg->strategy == TXP_CHECK_BOUND)
		rc = explore_bound(cfg, res, &o, err, errlen);
	else
		rc = explore_sampled(cfg, res, &o, err, errlen);
	res->seconds = (double)(txp_now_ns() - t0) / 1e9;
	return rc;
}

void txp_check_result_free(struct txp_check_result *res)
{
	free(res->schedule);
	free(res->events);
	res->schedule = NULL;
	res->events = NULL;
}
