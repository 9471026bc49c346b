/*
 * txpath/explore.h - the schedule explorer (the check build's library,
 * txpath_check, only).
 *
 * It runs the real transmit path, built with every operation of the
 * concurrency seam as a scheduling point, under a deterministic scheduler:
 * a small scenario (producer contexts sending a few packets each through
 * one simulated NIC, plus its completion context), over and over, one
 * interleaving at a time.  On every schedule it checks: a driver logged
 * BUG, a packet lost or duplicated, a deadlock, a stall (packets queued,
 * queue stopped, nothing in flight: a lost wakeup), a lock-validator
 * report, a single-writer counter written by two contexts; and it notes
 * whether start_xmit ever ran on a stopped queue.
 */
#ifndef TXPATH_EXPLORE_H
#define TXPATH_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "txpath/dev.h"
#include "txpath/sim.h"

enum txp_check_strategy {
	TXP_CHECK_BOUND,	/* every schedule with at most `bound` preemptions */
	TXP_CHECK_PCT,		/* probabilistic concurrency testing, depth `depth` */
	TXP_CHECK_RANDOM,	/* a random choice at every branch */
};

struct txp_check_cfg {
	const char *era;	/* label only */
	enum txp_lock_mode lock;
	enum txp_runner runner;
	const struct txp_sim_personality *personality;
	unsigned producers;	/* producer contexts */
	unsigned packets;	/* packets each */
	unsigned ring;		/* 0: the smallest that fits */
	unsigned frags_min, frags_max;
	unsigned batch;		/* completion batch */
	bool tso;		/* store buffers: the memory model tso */
	enum txp_check_strategy strategy;
	unsigned bound;		/* TXP_CHECK_BOUND */
	unsigned depth;		/* TXP_CHECK_PCT */
	uint64_t runs, seed;	/* TXP_CHECK_PCT, TXP_CHECK_RANDOM */
	const char *replay;	/* run exactly this schedule instead */
	unsigned max_steps;	/* per schedule; 0: a default */
	void (*progress)(uint64_t schedules, unsigned bound, void *arg);
	void *progress_arg;
};

struct txp_check_event {
	int column;		/* 0..ncolumns-1 */
	char text[72];
};

struct txp_check_result {
	bool found;			/* a violation */
	const char *kind;		/* "bug-log", "lost", "duplicated", "deadlock",
					 * "stall", "validator", "livelock", "counter"
					 * (a single-writer counter written by two
					 * contexts) */
	char detail[400];
	unsigned preemptions;
	char *schedule;			/* replay string (malloc'd) */
	struct txp_check_event *events;	/* the violating schedule (malloc'd) */
	unsigned nevents;
	int ncolumns;
	char columns[8][24];		/* "CPU 1", ..., "IRQ" */
	uint64_t schedules;
	bool complete;			/* the whole bound was searched */
	bool xmit_on_stopped_reachable;
	double seconds;
};

void txp_check_cfg_init(struct txp_check_cfg *cfg);
/* Knobs that fit together?  False and a message if not. */
bool txp_check_cfg_valid(const struct txp_check_cfg *cfg, char *err, size_t errlen);
/* Explore.  0, or -1 and a message (bad replay string, internal error). */
int txp_check_run(const struct txp_check_cfg *cfg, struct txp_check_result *res,
		  char *err, size_t errlen);
void txp_check_result_free(struct txp_check_result *res);
/* The violating schedule as the two-column diagram of the 2004 email. */
void txp_check_diagram(FILE *f, const struct txp_check_result *res);

#endif
