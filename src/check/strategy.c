/*
 * strategy.c - the explorer's strategies (check build only): the loops
 * that run a search's plans one schedule at a time, each judged, until a
 * violation, the end of the search, or a stop: the bounded search (the
 * tree of search/dfs.c, with the reduction's restarts), the sampled ones
 * (search/pct.c, search/random.c), and a replay (search/replay.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/judge.h"
#include "check/scenario.h"
#include "check/search/dfs.h"
#include "check/search/policy.h"
#include "check/search/rng.h"
#include "check/search/visited.h"
#include "check/strategy.h"

/* Asked to stop?  Polled between schedules; remembered in res. */
static bool stop_asked(const struct txp_explore_cfg *cfg, struct txp_explore_result *res)
{
	if (cfg->stop && txp_run_interrupted(cfg->stop))
		res->interrupted = true;
	return res->interrupted;
}

/* The result counting the schedule that runs now (explore_underway()). */
static const struct txp_explore_result *counting;

const struct txp_explore_result *explore_underway(void)
{
	return counting;
}

/* One schedule, counted and judged (in piece pc too, if any): a negative
 * errno on error, 1 on a violation (res filled), 2 when asked to stop
 * before it, 0 to go on. */
static int run_schedule(const struct txp_explore_cfg *cfg, const struct rt_plan *plan,
			struct txp_explore_result *res, struct txp_explore_piece *pc,
			struct outcome *o, char *err, size_t errlen)
{
	int rc;

	if (stop_asked(cfg, res))
		return 2;
	counting = res;
	rc = judge_exec(cfg, plan, o, err, errlen);
	counting = NULL;
	if (rc != 0)
		return -EPROTO;
	res->schedules++;
	res->xmit_on_stopped_reachable |= o->xmit_on_stopped;
	res->queue_stopped |= o->stopped;
	res->races_unkept |= o->races_unkept;
	if (pc) {
		pc->schedules++;
		pc->flags |= (o->xmit_on_stopped ? TXP_EXPLORE_PIECE_XMIT_ON_STOPPED : 0) |
			     (o->stopped ? TXP_EXPLORE_PIECE_QUEUE_STOPPED : 0) |
			     (o->races_unkept ? TXP_EXPLORE_PIECE_RACES_UNKEPT : 0);
	}
	if (!o->kind)
		return 0;
	result_violation(res, o);
	return 1;
}

/* -- a part of the bounded search (cfg->split) ---------------------------------- */

/* One schedule of a piece another part explores, run only for the tree
 * it shows: uncounted, its verdict left to that part.  As run_schedule(). */
static int walk_schedule(const struct txp_explore_cfg *cfg, const struct rt_plan *plan,
			 struct txp_explore_result *res, struct outcome *o, char *err, size_t errlen)
{
	if (stop_asked(cfg, res))
		return 2;
	return judge_exec(cfg, plan, o, err, errlen) != 0 ? -EPROTO : 0;
}

/* A state above pieces, explored in full once every piece up to hi is. */
struct deferred {
	uint64_t a, b, hi;
	int cur;
	unsigned left;
};

/* Where a part's walk over the pieces is. */
struct walk {
	uint64_t piece;		/* the next piece's index */
	bool taken;		/* the current piece is this part's */
	uint64_t saved_ns;	/* the last checkpoint */
	struct deferred *q;	/* [head, n): states to add, by hi */
	size_t head, n, cap;
};

/* dfs.h's above(): the state at b waits for the pieces walked so far. */
static void defer_state(const struct rt_branch *b, unsigned left, void *arg)
{
	struct walk *w = arg;

	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 1024;
		struct deferred *q = realloc(w->q, cap * sizeof(*q));

		if (!q)
			return;	/* forgotten: explored again, as sound */
		w->q = q;
		w->cap = cap;
	}
	w->q[w->n++] = (struct deferred){ b->key_a, b->key_b, w->piece - 1, b->key_cur, left };
}

/* The states waiting whose pieces are all explored now, added: each had
 * its every future explored, none with a violation (visited.c). */
static void deferred_add(const struct txp_explore_cfg *cfg, struct walk *w)
{
	uint64_t below;

	if (w->head == w->n)
		return;
	below = cfg->split->below(cfg->split->arg);
	for (; w->head < w->n && w->q[w->head].hi < below; w->head++)
		visited_add(w->q[w->head].a, w->q[w->head].b, w->q[w->head].cur, w->q[w->head].left);
	if (w->head == w->n)
		w->head = w->n = 0;
}

/* The piece under way (this part's) explored to its end. */
static void piece_ended(const struct txp_explore_cfg *cfg, const struct txp_explore_result *res)
{
	if (cfg->split->ended)
		cfg->split->ended(&res->pieces[res->npieces - 1], cfg->split->arg);
}

/* The pieces explored to their end without a violation, to
 * cfg->checkpoint: all of res's but the one under way (unless done). */
static void checkpoint(const struct txp_explore_cfg *cfg, const struct txp_explore_result *res,
		       struct walk *w, bool done)
{
	struct txp_explore_result sofar = *res;

	w->saved_ns = txp_now_ns();
	if (!done && w->taken && sofar.npieces)
		sofar.npieces--;
	if (res->found && sofar.npieces && sofar.pieces[sofar.npieces - 1].index == res->found_piece)
		sofar.npieces--;
	sofar.found = false;
	sofar.schedules = 0;
	for (size_t i = 0; i < sofar.npieces; i++)
		sofar.schedules += sofar.pieces[i].schedules;
	cfg->checkpoint(&sofar, cfg->checkpoint_arg);
}

/* The next piece begins: asked of cfg->split, and if taken, its record
 * begun in res.  -ENOMEM, or the answer. */
static int piece_begin(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		       struct walk *w, unsigned round)
{
	uint64_t index = w->piece++;
	enum txp_explore_take t;
	struct txp_explore_piece *p;

	/* The last piece is at its end: told, and a position to save, now
	 * and then. */
	if (w->taken)
		piece_ended(cfg, res);
	if (w->n)
		deferred_add(cfg, w);
	if (cfg->checkpoint && w->taken &&
	    (double)(txp_now_ns() - w->saved_ns) / 1e9 >= cfg->checkpoint_seconds)
		checkpoint(cfg, res, w, true);
	t = cfg->split->take(index, cfg->split->arg);
	w->taken = t == TXP_EXPLORE_TAKE;
	if (!w->taken)
		return t;
	p = realloc(res->pieces, (res->npieces + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	res->pieces = p;
	p[res->npieces++] = (struct txp_explore_piece){ .index = index, .round = round };
	return t;
}

/* A violation in the piece under way, this part's. */
static void piece_found(const struct txp_explore_cfg *cfg, struct txp_explore_result *res)
{
	res->found_piece = res->pieces[res->npieces - 1].index;
	if (cfg->split->found)
		cfg->split->found(res->found_piece, cfg->split->arg);
}

/* What piece_gate() found at a piece's start. */
enum { GATE_RUN, GATE_SKIPPED, GATE_ROUND_DONE, GATE_PART_DONE };

/*
 * At a prefix that begins a piece (cfg->split): GATE_RUN its schedule
 * (the piece is this part's, or a lone schedule others branch off);
 * GATE_SKIPPED, another's or explored already, the next prefix in d; or
 * GATE_ROUND_DONE (no prefix left), GATE_PART_DONE (the split ended the
 * part), -ENOMEM.
 */
static int piece_gate(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		      struct walk *w, struct dfs *d, unsigned k, bool reduce, unsigned *prefix)
{
	int t = piece_begin(cfg, res, w, k);
	bool explored;

	if (t < 0)
		return t;
	if (t == TXP_EXPLORE_END)
		return GATE_PART_DONE;
	/* A piece of this part's under a state explored in full already
	 * (by this part, or by a worker sharing its table), or asleep, is
	 * done, none of its schedules counted: one run cuts its path there
	 * or does not take it, and no violation is in it (visited.c).  A
	 * lone schedule is run all the same, for the tree, unjudged; if
	 * another part's, its verdict is that part's, so no state on it is
	 * this part's to call explored in full. */
	explored = w->taken && reduce && dfs_piece_explored(d, *prefix);
	if (explored) {
		piece_ended(cfg, res);
		w->taken = false;
	}
	if (d->top && !w->taken && !explored)
		dfs_unjudged(d);
	if (d->top || w->taken)
		return GATE_RUN;
	dfs_skip(d, *prefix, explored);
	return dfs_next(d, k, reduce, prefix) ? GATE_SKIPPED : GATE_ROUND_DONE;
}

/* The piece whose schedule runs now, judged (explore_judged_piece()). */
static const struct txp_explore_piece *judged;

const struct txp_explore_piece *explore_judged_piece(void)
{
	return judged;
}

/* The planned schedule: as run_schedule(), but in a part of the search
 * a lone schedule others' pieces branch off (run whole: dfs.h) is judged
 * only if the part's own. */
static int run_planned(const struct txp_explore_cfg *cfg, const struct rt_plan *plan,
		       const struct walk *w, struct txp_explore_result *res,
		       struct outcome *o, char *err, size_t errlen)
{
	int rc;

	if (!cfg->split)
		return run_schedule(cfg, plan, res, NULL, o, err, errlen);
	if (!w->taken)
		return walk_schedule(cfg, plan, res, o, err, errlen);
	judged = &res->pieces[res->npieces - 1];
	rc = run_schedule(cfg, plan, res, &res->pieces[res->npieces - 1], o, err, errlen);
	judged = NULL;
	if (rc == 1)
		piece_found(cfg, res);
	return rc;
}

/*
 * Where round k is: its pieces run from the end of the default execution
 * (base branches) to its start; the piece at branch i holds about
 * (base - i)^(k-1) schedules, so those done (past the current one's
 * branch, d->first) about (base - first)^k of base^k.
 */
static void round_progress(const struct txp_explore_cfg *cfg, const struct txp_explore_result *res,
			   const struct dfs *d, unsigned k)
{
	struct txp_explore_progress p = { .schedules = res->schedules, .bound = k };
	double part = d->noff && d->off[0] < d->base ? (double)(d->base - d->off[0]) / d->base : 0;

	p.done = part;
	for (unsigned i = 1; i < k; i++)
		p.done *= part;
	cfg->progress(&p, cfg->progress_arg);
}

/* The search from bound 0 again, nothing known explored: the states
 * named before, under rules now broken, are forgotten (a table shared by
 * workers is left to those that still keep the rules: visited.h). */
static void dfs_restart(struct dfs *d, struct txp_explore_result *res, unsigned *k,
			unsigned *prefix, struct walk *w)
{
	visited_clear();
	d->above = NULL;	/* the parts' table is left */
	w->head = w->n = 0;
	w->taken = false;
	w->piece = 0;
	res->npieces = 0;
	*k = 0;
	*prefix = 0;
	res->bound_reached = 0;
	dfs_round(d, 0);
}

/*
 * The bounded search (search/dfs.c).  With the reduction, a fair switch
 * (the runtime's starved()) breaks what the trace's name assumes, that a state's future
 * depends on the trace alone (it depends on steps counted since each
 * context ran): the search then starts again without it.  Symmetry too
 * starts again without itself when a default of the scheduler told the
 * producers apart.
 *
 * A part of it (cfg->split) walks every round's pieces in order, runs
 * those it takes and skips the others (no execution: dfs_skip()), but
 * for the lone schedules other pieces branch off, which it runs whole
 * (uncut by the reduction, unjudged if not its own) to know them.
 */
int explore_bound(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		  struct outcome *o, char *err, size_t errlen)
{
	struct dfs d = { 0 };
	struct walk w = { .saved_ns = txp_now_ns() };
	bool reduce = cfg->reduce, expect = !(cfg->reduce_without & TXP_EXPLORE_REDUCE_NO_ASLEEP);
	bool ended = false;
	int rc = 0;

	scenario_tell_apart(false);
	res->reduced = reduce;
	res->symmetric = scenario_producers_alike(cfg);
	/* The table is empty (a search empties it at its end), or the one
	 * the workers share (visited_share_table()). */
	if (reduce && cfg->split && cfg->split->below) {
		d.above = defer_state;
		d.above_arg = &w;
	}
	for (unsigned k = 0; k <= cfg->bound && rc == 0; k++) {
		unsigned prefix = 0;

		res->bound_reached = k;
		dfs_round(&d, k);
		for (;;) {
			struct rt_plan plan;

			if (cfg->split && d.root) {
				int g = piece_gate(cfg, res, &w, &d, k, reduce, &prefix);

				if (g == GATE_SKIPPED)
					continue;
				if (g != GATE_RUN) {
					rc = g < 0 ? g : 0;
					ended = g == GATE_PART_DONE;
					break;
				}
			}
			d.whole = cfg->split && d.top;
			plan = dfs_plan(&d, prefix, reduce, expect);
			rc = run_planned(cfg, &plan, &w, res, o, err, errlen);
			if (rc)
				break;
			if (reduce && rt_fair_switches()) {
				reduce = res->reduced = res->symmetric = false;
				res->reduce_dropped = true;
				dfs_restart(&d, res, &k, &prefix, &w);
				continue;
			}
			/* The scheduler's default chose between producers by
			 * their ids: a state and its mirror image may have
			 * futures unlike each other. */
			if (res->symmetric && rt_told_apart()) {
				scenario_tell_apart(true);
				res->symmetric = false;
				dfs_restart(&d, res, &k, &prefix, &w);
				continue;
			}
			rc = dfs_record(&d, prefix, reduce, &res->pruned, &res->asleep);
			if (rc) {
				snprintf(err, errlen, rc == -2 ? "internal error: an execution did not repeat"
							       : "out of memory");
				rc = rc == -2 ? -EPROTO : -ENOMEM;
				break;
			}
			if (!prefix)
				d.base = d.len;	/* the default execution */
			if (cfg->progress && res->schedules % 256 == 0)
				round_progress(cfg, res, &d, k);
			if (!dfs_next(&d, k, reduce, &prefix))
				break;
		}
		if (ended) {
			rc = 0;
			break;
		}
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (cfg->split && w.taken && rc == 0)
		piece_ended(cfg, res);
	if (cfg->checkpoint && rc >= 0)
		checkpoint(cfg, res, &w, rc != 2);
	free(w.q);
	res->complete = rc == 0;
	res->states = visited_count();
	res->states_full = visited_full();
	visited_clear();
	dfs_free(&d);
	return rc < 0 ? rc : 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

int explore_sampled(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		    struct outcome *o, char *err, size_t errlen)
{
	uint64_t seed = cfg->seed;
	unsigned steps = 0, change[64];
	int rc = 0;

	if (cfg->strategy == TXP_EXPLORE_PCT) {
		/* One default run to learn how many steps a schedule takes. */
		struct rt_plan plan = { 0 };

		if (judge_exec(cfg, &plan, o, err, errlen) != 0)
			return -EPROTO;
		steps = rt_steps() ? rt_steps() : 1;
	}
	for (uint64_t run = 0; run < cfg->runs && rc == 0; run++) {
		struct policy_pct pct;
		struct policy_random draw;
		struct rt_plan plan = { 0 };
		unsigned depth = cfg->depth < 64 ? cfg->depth : 64;
		uint64_t draws = rng_split(&seed) | 1;

		if (cfg->strategy == TXP_EXPLORE_PCT) {
			/* Depth D: D change points, so D preemptions. */
			for (unsigned i = 0; i < depth; i++)
				change[i] = 1 + (unsigned)(rng_split(&seed) % steps);
			qsort(change, depth, sizeof(change[0]), cmp_unsigned);
			policy_pct_init(&pct, draws, change, depth);
			plan.policy = &pct.p;
		} else {
			policy_random_init(&draw, draws);
			plan.policy = &draw.p;
		}
		rc = run_schedule(cfg, &plan, res, NULL, o, err, errlen);
		if (rc)
			break;
		if (cfg->progress && res->schedules % 256 == 0) {
			struct txp_explore_progress p = { res->schedules, 0,
							  (double)res->schedules / (double)cfg->runs };

			cfg->progress(&p, cfg->progress_arg);
		}
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
static int replay_fit(const struct policy_replay *r, const struct txp_explore_choice *c,
		      unsigned n, char *err, size_t errlen)
{
	unsigned nbr, reached = policy_replay_reached(r);
	const struct rt_branch *b = rt_branches(&nbr);
	int bad = policy_replay_refused(r);
	char able[160];

	if (bad >= 0) {
		const struct txp_explore_choice *x = &c[bad];

		snprintf(err, errlen, "schedule pair %d '%u:%s%u': context %u %s at branch point %u (%s: %s)",
			 bad + 1, x->index, x->flush ? "f" : "", x->ctx, x->ctx,
			 x->flush ? "has no store waiting" : "cannot run", x->index,
			 x->flush ? "stores waiting" : "can run",
			 able_list(&b[x->index], x->flush, able, sizeof(able)));
		return -EINVAL;
	}
	if (reached < n) {
		const struct txp_explore_choice *x = &c[reached];

		snprintf(err, errlen,
			 "schedule pair %u '%u:%s%u': no branch point %u, this schedule has %u (0..%u)",
			 reached + 1, x->index, x->flush ? "f" : "", x->ctx, x->index, nbr,
			 nbr ? nbr - 1 : 0);
		return -EINVAL;
	}
	return 0;
}

int explore_replay(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		   struct outcome *o, char *err, size_t errlen)
{
	struct txp_explore_choice *c;
	unsigned n;
	int rc = txp_explore_schedule_parse(cfg->replay, &c, &n, err, errlen);

	if (rc)
		return rc;
	{
		struct replay_choice *picks = malloc((n ? n : 1) * sizeof(*picks));
		struct policy_replay replay;
		struct rt_plan plan = { .policy = &replay.p };

		if (!picks) {
			free(c);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		for (unsigned i = 0; i < n; i++)
			picks[i] = (struct replay_choice){
				c[i].index, (int8_t)(c[i].flush ? RT_FLUSH + c[i].ctx : c[i].ctx) };
		policy_replay_init(&replay, picks, n);
		rc = judge_exec(cfg, &plan, o, err, errlen) != 0 ? -EPROTO
							       : replay_fit(&replay, c, n, err, errlen);
		free(picks);
	}
	free(c);
	if (rc)
		return rc;
	res->schedules = 1;
	res->xmit_on_stopped_reachable = o->xmit_on_stopped;
	res->queue_stopped = o->stopped;
	res->races_unkept = o->races_unkept;
	stop_asked(cfg, res);
	if (o->kind) {
		result_violation(res, o);
	} else {
		/* No violation: the diagram of the schedule all the same. */
		struct outcome none = { .kind = "none" };

		result_violation(res, &none);
		res->found = false;
	}
	return 0;
}

