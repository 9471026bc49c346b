/*
 * policy.h - the search's policies: how a plan chooses past its prefix
 * (struct rt_policy, runtime.h), one file each (check build only).
 *
 *   random.c   uniformly among a branch's actions
 *   pct.c      probabilistic concurrency testing, counted in preemptions
 *   replay.c   the choices of a schedule string, where they were made
 *
 * The bounded search (dfs.c) needs no policy: its plans are prefixes, and
 * the default beyond.  Each policy is a struct that embeds its interface
 * first; its state is the execution's, started afresh by its begin().
 */
#ifndef TXP_CHECK_POLICY_H
#define TXP_CHECK_POLICY_H

#include "check/runtime/runtime.h"

struct policy_random {
	struct rt_policy p;
	uint64_t seed, rng;
};

void policy_random_init(struct policy_random *r, uint64_t seed);

/* PCT: the steps (increasing) at which the running context is preempted. */
struct policy_pct {
	struct rt_policy p;
	uint64_t seed, rng;
	const unsigned *change;
	unsigned nchange, next;
	bool pending;		/* a change point came: switch at the next branch */
};

void policy_pct_init(struct policy_pct *pct, uint64_t seed, const unsigned *change,
		     unsigned nchange);

/* A choice to replay: at branch point index, action (a context that
 * runs, or RT_FLUSH + a context whose store lands). */
struct replay_choice {
	uint32_t index;
	int8_t action;
};

/* Replay: the choices, by increasing branch index. */
struct policy_replay {
	struct rt_policy p;
	const struct replay_choice *choices;
	unsigned n, next;
	int refused;
};

void policy_replay_init(struct policy_replay *r, const struct replay_choice *choices,
			unsigned n);
/* After the execution: how many choices had their branch point come, and
 * the first that named an action not possible there (-1: none). */
unsigned policy_replay_reached(const struct policy_replay *r);
int policy_replay_refused(const struct policy_replay *r);

#endif
