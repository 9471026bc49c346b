/*
 * dql.c - dynamic queue limits: the completion side's recomputation of the
 * limit, reset and configuration (dql.h says what and whose).
 */
#include "core/dql.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* a - b if a is after b on the wrapping counter, else 0 (Linux: POSDIFF). */
static unsigned posdiff(unsigned a, unsigned b)
{
	return (int)(a - b) > 0 ? a - b : 0;
}

/* a is b or after it on the wrapping counter (Linux: AFTER_EQ). */
static bool after_eq(unsigned a, unsigned b)
{
	return (int)(a - b) >= 0;
}

/* What one completion sees of the interval since the last one. */
struct dql_interval {
	unsigned num_queued;		/* num_queued, read once */
	unsigned completed;		/* num_completed after this completion */
	unsigned ovlimit;		/* in flight beyond the limit, before it */
	unsigned inprogress;		/* still in flight after it */
	unsigned prev_inprogress;	/* of the previous interval's, in flight before it */
	bool all_prev_completed;	/* the previous interval's all completed */
};

static struct dql_interval dql_interval(struct txp_dql *dql, unsigned count, unsigned limit,
					unsigned num_queued)
{
	struct dql_interval iv;
	unsigned inflight;

	iv.num_queued = num_queued;
	inflight = iv.num_queued - dql->num_completed;
	if (count > inflight) {
		txp_counter_add_shared(&dql->completed_refused, count - inflight);
		count = inflight;
	}
	iv.completed = dql->num_completed + count;
	iv.ovlimit = posdiff(inflight, limit);
	iv.inprogress = iv.num_queued - iv.completed;
	iv.prev_inprogress = dql->prev_num_queued - dql->num_completed;
	iv.all_prev_completed = after_eq(iv.completed, dql->prev_num_queued);
	return iv;
}

/* now_ns, or the clock's time for TXP_DQL_NOW. */
static uint64_t dql_time(uint64_t now_ns)
{
	return now_ns == TXP_DQL_NOW ? txp_now_ns() : now_ns;
}

static void dql_restart_slack(struct txp_dql *dql, uint64_t now_ns)
{
	dql->slack_start_time = now_ns;
	dql->lowest_slack = UINT_MAX;
}

/*
 * The slack of a busy interval: the larger of the limit plus the previous
 * excess minus twice what completed (twice what completes per interval
 * bounds what the queue needs), and the part of the last queuing that was
 * not the previous excess (rounding down by it).
 */
static unsigned dql_slack(const struct txp_dql *dql, unsigned limit, unsigned completed)
{
	unsigned slack = posdiff(limit + dql->prev_ovlimit,
				 2 * (completed - dql->num_completed));
	unsigned slack_last_objs = dql->prev_ovlimit ?
		posdiff(dql->prev_last_obj_cnt, dql->prev_ovlimit) : 0;

	return slack > slack_last_objs ? slack : slack_last_objs;
}

/* The limit after this completion, before the clamp. */
static unsigned dql_new_limit(struct txp_dql *dql, const struct dql_interval *iv,
			      unsigned limit, uint64_t now_ns)
{
	if ((iv->ovlimit && !iv->inprogress) ||
	    (dql->prev_ovlimit && iv->all_prev_completed)) {
		/* Starved, or may have starved between this completion and
		 * the next queuing: grow by what was both queued and completed
		 * in the interval, plus the previous excess. */
		limit += posdiff(iv->completed, dql->prev_num_queued) + dql->prev_ovlimit;
		dql_restart_slack(dql, dql_time(now_ns));
	} else if (iv->inprogress && iv->prev_inprogress && !iv->all_prev_completed) {
		/* Busy the whole interval: the lowest slack over the hold
		 * time is what the limit may lose (no hysteresis). */
		unsigned slack = dql_slack(dql, limit, iv->completed);

		if (slack < dql->lowest_slack)
			dql->lowest_slack = slack;
		now_ns = dql_time(now_ns);
		if ((int64_t)(now_ns - (dql->slack_start_time + dql->slack_hold_time)) > 0) {
			limit = posdiff(limit, dql->lowest_slack);
			dql_restart_slack(dql, now_ns);
		}
	}
	return limit;
}

/* The end of a completion: the limit clamped, and stored if it changed;
 * what the next completion compares with kept. */
static inline void dql_close(struct txp_dql *dql, unsigned limit, unsigned new_limit,
			     unsigned ovlimit, unsigned completed, unsigned num_queued)
{
	if (new_limit < dql->min_limit)
		new_limit = dql->min_limit;
	if (new_limit > dql->max_limit)
		new_limit = dql->max_limit;
	if (new_limit != limit) {
		txp_store_relaxed(&dql->limit, new_limit);
		ovlimit = 0;	/* a new limit: the excess was measured against the old */
	}
	txp_store_relaxed(&dql->adj_limit, new_limit + completed);
	dql->prev_ovlimit = ovlimit;
	dql->prev_last_obj_cnt = txp_load_relaxed(&dql->last_obj_cnt);
	dql->num_completed = completed;
	dql->prev_num_queued = num_queued;
}

/* Any completion but the steady state's: the interval measured, the limit
 * recomputed.  Out of line, so that the steady state saves no registers
 * for it. */
static __attribute__((noinline)) void dql_completed_slow(struct txp_dql *dql, unsigned count,
							 uint64_t now_ns, unsigned limit,
							 unsigned num_queued)
{
	struct dql_interval iv = dql_interval(dql, count, limit, num_queued);

	dql_close(dql, limit, dql_new_limit(dql, &iv, limit, now_ns), iv.ovlimit, iv.completed,
		  num_queued);
}

void txp_dql_completed(struct txp_dql *dql, unsigned count, uint64_t now_ns)
{
	unsigned limit = txp_load_relaxed(&dql->limit);
	unsigned num_queued = txp_load_relaxed(&dql->num_queued);

	/* The steady state of a queue that keeps up: all in flight completes,
	 * none of it over the limit, nor any of the previous interval's.
	 * The limit then neither starved nor was busy (dql_new_limit() keeps
	 * it), and there is no excess to remember: the same result, without
	 * the interval's arithmetic.  The same loads and stores of the shared
	 * fields, in the same order. */
	if (txp_likely(num_queued - dql->num_completed == count && count <= limit &&
		       !dql->prev_ovlimit)) {
		dql_close(dql, limit, limit, 0, num_queued, num_queued);
		return;
	}
	dql_completed_slow(dql, count, now_ns, limit, num_queued);
}

void txp_dql_reset(struct txp_dql *dql)
{
	/* Linux leaves adj_limit as it was (its struct was zeroed when
	 * allocated); here it keeps its meaning, limit + num_completed, so
	 * a reset queue is a fresh one. */
	txp_store_relaxed(&dql->limit, dql->min_limit);
	txp_store_relaxed(&dql->adj_limit, dql->min_limit);
	txp_store_relaxed(&dql->num_queued, 0);
	txp_store_relaxed(&dql->last_obj_cnt, 0);
	dql->num_completed = 0;
	dql->prev_num_queued = 0;
	dql->prev_last_obj_cnt = 0;
	dql->prev_ovlimit = 0;
	dql_restart_slack(dql, txp_now_ns());
}

void txp_dql_init(struct txp_dql *dql, uint64_t hold_time_ns)
{
	memset(dql, 0, sizeof(*dql));
	dql->max_limit = TXP_DQL_MAX_LIMIT;
	dql->min_limit = 0;
	dql->slack_hold_time = hold_time_ns;
	txp_dql_reset(dql);
}

int txp_dql_set_min_limit(struct txp_dql *dql, unsigned min_limit)
{
	if (min_limit > TXP_DQL_MAX_LIMIT || min_limit > dql->max_limit)
		return -EINVAL;
	dql->min_limit = min_limit;
	return 0;
}

int txp_dql_set_max_limit(struct txp_dql *dql, unsigned max_limit)
{
	if (max_limit > TXP_DQL_MAX_LIMIT || max_limit < dql->min_limit)
		return -EINVAL;
	dql->max_limit = max_limit;
	return 0;
}
