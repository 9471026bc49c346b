/*
 * dql.h - dynamic queue limits, the algorithm behind Byte Queue Limits
 * (Linux's include/linux/dynamic_queue_limits.h, lib/dynamic_queue_limits.c;
 * DESIGN.md §8).
 *
 * A queue (a device's transmit ring) takes objects (bytes) up to a limit;
 * a completion process retires them later.  The limit is kept as small as
 * it can be without starving the queue:
 *  - starved (over the limit with nothing left in flight, or over the limit
 *    in the previous interval and all of that interval completed): the
 *    limit grows by what completed beyond the previous queued count plus
 *    the previous excess;
 *  - busy the whole interval: the lowest slack (what was queued beyond what
 *    was needed) is tracked, and once the hold time has passed since the
 *    last change the limit shrinks by it;
 *  - always clamped to [min_limit, max_limit].
 * Counts are unsigned and wrap: every comparison is of differences, so a
 * queue may run past UINT_MAX bytes forever.
 *
 * Synchronization: none inside.  txp_dql_queued() has one writer at a time
 * (the queue's xmit lock, or the driver's own); txp_dql_completed() has one
 * writer at a time too (the completion context); the two may run at once.
 * What one side reads of the other's (num_queued, adj_limit, last_obj_cnt,
 * limit) goes through the seam's relaxed loads and stores, so the schedule
 * explorer sees each.  No barrier here: the caller places them, as
 * netdev_tx_sent_queue (after setting the stack's XOFF bit) and
 * netdev_tx_completed_queue (smp_mb after txp_dql_completed, "else the
 * queue could stay stopped forever") do.
 *
 * From Linux 6.x: txp_dql_completed reads num_queued once, "all the previous
 * interval completed" includes completed == prev_num_queued, an oversized
 * txp_dql_queued is refused (WARN_ON_ONCE there), last_obj_cnt is read and
 * written once (it crosses sides), and a reset puts the limit at min_limit.
 * Not here: the stall detector of Linux 6.9 (stall_thrs, the history bitmap
 * in dql_queued, dql_check_stall); txpath's watchdog covers stalled queues.
 */
#ifndef TXP_DQL_H
#define TXP_DQL_H

#include <limits.h>
#include <stdint.h>

#include "sync/sync.h"

/* The largest count one txp_dql_queued() takes (DQL_MAX_OBJECT). */
#define TXP_DQL_MAX_OBJECT (UINT_MAX / 16)
/* The largest limit (DQL_MAX_LIMIT): limit + one object stays below half
 * the counter space, so differences of counts keep their sign. */
#define TXP_DQL_MAX_LIMIT ((UINT_MAX / 2) - TXP_DQL_MAX_OBJECT)
/* The hold time Linux's drivers get (HZ: one second). */
#define TXP_DQL_HOLD_TIME_NS 1000000000ull

struct txp_dql {
	/* The queued side's line: written by txp_dql_queued (adj_limit by
	 * the completion side, but read on every transmit, so here). */
	_Atomic unsigned num_queued;		/* total ever queued */
	_Atomic unsigned adj_limit;		/* limit + num_completed */
	_Atomic unsigned last_obj_cnt;		/* count of the last queuing */
	_Atomic uint64_t queued_refused;	/* txp_dql_queued calls over TXP_DQL_MAX_OBJECT */

	/* The completion side's lines: written by txp_dql_completed only. */
	txp_cacheline_aligned _Atomic unsigned limit;	/* current limit */
	unsigned num_completed;			/* total ever completed */
	unsigned prev_ovlimit;			/* over the limit by, last interval */
	unsigned prev_num_queued;		/* num_queued at the last completion */
	unsigned prev_last_obj_cnt;		/* last_obj_cnt then */
	unsigned lowest_slack;			/* lowest slack since slack_start_time */
	uint64_t slack_start_time;		/* ns: when slack began to be tracked */
	_Atomic uint64_t completed_refused;	/* completed bytes beyond what was in flight */

	/* Configuration: the completion side reads it. */
	unsigned max_limit;
	unsigned min_limit;
	uint64_t slack_hold_time;		/* ns: how long slack is measured */
};

/* Set up: limits [0, TXP_DQL_MAX_LIMIT], slack held hold_time_ns, refused
 * counts zero, then txp_dql_reset().  Before either side runs. */
void txp_dql_init(struct txp_dql *dql, uint64_t hold_time_ns);

/* Forget what was queued and completed: nothing in flight, the limit at
 * min_limit, slack tracked from now.  The configuration and the refused
 * counts stay.  Neither side may run meanwhile (the queue is stopped or
 * frozen, as for netdev_tx_reset_queue). */
void txp_dql_reset(struct txp_dql *dql);

/* The limit's bounds; each takes effect at the next completion, as the
 * sysfs knobs do.  -EINVAL (nothing changed) if the value is over
 * TXP_DQL_MAX_LIMIT or would put min_limit above max_limit.  Not
 * concurrently with txp_dql_completed. */
int txp_dql_set_min_limit(struct txp_dql *dql, unsigned min_limit);
int txp_dql_set_max_limit(struct txp_dql *dql, unsigned max_limit);

/* Record count objects queued; the caller checked txp_dql_avail() first.
 * A count over TXP_DQL_MAX_OBJECT is refused, as Linux 6.x refuses it:
 * nothing recorded, queued_refused counted.  The queued side only. */
static inline void txp_dql_queued(struct txp_dql *dql, unsigned count)
{
	if (txp_unlikely(count > TXP_DQL_MAX_OBJECT)) {
		txp_counter_inc_shared(&dql->queued_refused);
		return;
	}
	txp_store_relaxed(&dql->last_obj_cnt, count);
	txp_store_relaxed(&dql->num_queued, txp_load_relaxed(&dql->num_queued) + count);
}

/* How many objects may still be queued; below 0: over the limit.  Either
 * side. */
static inline int txp_dql_avail(const struct txp_dql *dql)
{
	return (int)(txp_load_relaxed(&dql->adj_limit) - txp_load_relaxed(&dql->num_queued));
}

/* txp_dql_completed's now_ns: read the clock if, and only when, the
 * recomputation needs the time (as Linux reads jiffies). */
#define TXP_DQL_NOW UINT64_MAX

/* Record count objects completed at now_ns, and recompute the limit.  More
 * than is in flight (Linux: BUG_ON) completes what is in flight, and the
 * excess is counted in completed_refused: the queue drains rather than
 * stays stopped on a driver's miscount.  The completion side only. */
void txp_dql_completed(struct txp_dql *dql, unsigned count, uint64_t now_ns);

/* The current limit.  Either side, and any reader. */
static inline unsigned txp_dql_limit(const struct txp_dql *dql)
{
	return txp_load_relaxed(&dql->limit);
}

/* Objects queued and not yet completed.  The completion side only. */
static inline unsigned txp_dql_inflight(const struct txp_dql *dql)
{
	return txp_load_relaxed(&dql->num_queued) - dql->num_completed;
}

#endif /* TXP_DQL_H */
