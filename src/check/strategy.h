/*
 * strategy.h - the explorer's strategies (check build only; strategy.c):
 * each fills res, and o with the violation found; 0, or a negative errno
 * and a message.
 */
#ifndef TXP_CHECK_STRATEGY_H
#define TXP_CHECK_STRATEGY_H

#include <stddef.h>

#include "check/judge.h"
#include "check/explore.h"

/* Every schedule within cfg->bound preemptions (cfg->reduce: reduced). */
int explore_bound(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		  struct outcome *o, char *err, size_t errlen);
/* cfg->runs schedules drawn by PCT or at random. */
int explore_sampled(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		    struct outcome *o, char *err, size_t errlen);
/* In a part of the bounded search (cfg->split): the piece whose schedule
 * runs now, judged by this part, or NULL (a schedule walked for the tree,
 * or none). */
const struct txp_explore_piece *explore_judged_piece(void);
/* The result of the search whose schedule runs now, as it stands (its
 * schedules without that one, its flags), for a report of an ending in
 * it (explore.c); NULL outside a counted schedule (a replay's). */
const struct txp_explore_result *explore_underway(void);
/* The schedule string cfg->replay, exactly; refused where it does not fit. */
int explore_replay(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		   struct outcome *o, char *err, size_t errlen);

#endif
