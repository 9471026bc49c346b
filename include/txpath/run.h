/*
 * txpath/run.h - a workload: producer threads pushing packets through one
 * simulated device, with every packet accounted for at the end.
 *
 * This is what `txpath run` and `txpath demo` drive, and what the stress
 * tests assert on.
 */
#ifndef TXPATH_RUN_H
#define TXPATH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "txpath/dev.h"
#include "txpath/qdisc.h"
#include "txpath/sim.h"

/* A named combination of the knobs, one per chapter of the story. */
struct txp_era {
	const char *name;	/* "2.6.9" */
	const char *summary;
	enum txp_lock_mode lock;
	enum txp_runner runner;
	const char *personality;
};

/* NULL-name terminated, in historical order. */
extern const struct txp_era txp_eras[];
const struct txp_era *txp_era_lookup(const char *name);

struct txp_run_progress {
	double elapsed;		/* seconds */
	uint64_t target;	/* packets to submit, 0 when running for a time */
	uint64_t submitted, transmitted, dropped;
};

struct txp_run_cfg {
	const char *era;	/* label for reports; NULL when knobs were set by hand */
	enum txp_lock_mode lock;
	enum txp_runner runner;
	const struct txp_sim_personality *personality;
	const struct txp_qdisc_ops *qdisc;
	unsigned threads;	/* producers */
	uint64_t packets;	/* in all; 0 with seconds > 0 */
	double seconds;		/* run for this long instead, if > 0 */
	unsigned size;		/* bytes per packet */
	unsigned frags_min, frags_max;
	unsigned ring;		/* descriptors */
	uint64_t line_rate;	/* packets per second, 0 = unlimited */
	unsigned batch;		/* completion batch */
	unsigned txqueuelen;
	unsigned sndbuf;	/* packets a producer may have in flight, 0 = no limit */
	double stall_seconds;	/* no progress this long: give up */
	FILE *log;		/* kernel log lines, NULL for none */
	void (*progress)(const struct txp_run_progress *p, void *arg);
	void *progress_arg;
};

struct txp_run_result {
	struct txp_dev_stats dev;
	struct txp_sim_stats sim;
	uint64_t dropped;	/* all reasons */
	uint64_t lost;		/* submitted, neither on the wire nor dropped */
	uint64_t duplicated;	/* seen on the wire more than once */
	double seconds;		/* first submit until every packet was accounted */
	double mpps;		/* transmitted per second, millions */
	bool stalled;		/* nothing moved for stall_seconds; the rest was dropped as dev-down */
	bool accounted;		/* submitted == transmitted + dropped */
};

/* Defaults: era 2.6.11's knobs, one producer per CPU, 1e6 packets. */
void txp_run_cfg_init(struct txp_run_cfg *cfg);
/* Set lock, runner and personality from an era; false if unknown. */
bool txp_run_cfg_era(struct txp_run_cfg *cfg, const char *era);
/* Check the knobs together; false and a message in err if they do not fit. */
bool txp_run_cfg_check(const struct txp_run_cfg *cfg, char *err, size_t errlen);

/* Run it.  0 when it ran (see res->stalled, res->accounted), -1 and a
 * message in err when it could not be set up. */
int txp_run(const struct txp_run_cfg *cfg, struct txp_run_result *res, char *err, size_t errlen);

#endif
