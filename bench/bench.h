/*
 * bench.h - `txpath bench`: the transmit path against the baselines a
 * user would otherwise write, all in one process, one after another.
 *
 * Each case runs `threads` producer threads for a fixed time against one
 * device and counts what the device completed in that window.  Cases are
 * repeated, interleaved (every case once, then every case again), so slow
 * phases of a shared machine spread over all of them; the median is
 * reported with the spread.
 */
#ifndef TXP_BENCH_H
#define TXP_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "txpath/pkt.h"
#include "run/run.h"

/* What a case runs. */
enum bench_kind {
	BENCH_TXPATH,	/* txp_xmit_burst() through the core */
	BENCH_MUTEX,	/* a pthread mutex around "queue it, call the driver", per packet */
	BENCH_MUTEX_BURST, /* the same mutex once around a whole burst */
	BENCH_CKRING,	/* a Concurrency Kit MPSC ring, one transmit thread */
	BENCH_RTE_RING,	/* DPDK's MP ring, a burst at once, one transmit thread */
};

struct bench_cfg {
	unsigned max_threads;	/* rows for 1..max_threads producers */
	unsigned reps;		/* repetitions of each case */
	double seconds;		/* one repetition */
	unsigned burst;		/* packets per txp_xmit_burst() */
	unsigned bulk;		/* packets per qdisc_restart() */
	bool sim;		/* also the simulated NIC */
	/* The qdisc busylock on every txpath row where a device takes it
	 * (1), on none (0), or as each row has it (-1: core/excl/busy and
	 * 6.x, as --era 6.x). */
	int busylock;
	/* Also this driver plugin (txp_run_driver_plugin(), --driver-so), in
	 * the two configurations of its lock mode, as driver "plugin"; NULL:
	 * none. */
	const struct txp_run_driver *plugin;
	const struct txp_run_stop *stop;	/* asked: finish with the runs done so
						 * far (NULL: never) */
};

/* One case: its knobs, then its results. */
struct bench_row {
	char config[24];	/* "core/concurrent", "mutex", "mutex-burst", "ckring", "rte_ring" */
	const char *driver;	/* "null", "sim", "plugin" */
	enum bench_kind kind;
	int lock, runner;	/* enum txp_lock_mode, enum txp_runner (txpath only) */
	unsigned queues;	/* transmit queues (txpath only): 0 or 1, one; the
				 * "mq" configurations one per producer */
	bool bql;		/* byte queue limits (txpath only) */
	unsigned threads;
	enum txp_defer defer;	/* txpath: the root-locked qdisc's defer list */
	bool busylock;		/* txpath: the qdisc busylock (bench_cfg.busylock) */
	const struct txp_qdisc_ops *qdisc;	/* txpath: NULL, pfifo_fast */
	bool skipped;		/* not run in this build (why: note) */
	const char *note;

	double mpps;		/* median over the repetitions */
	double ns_per_packet;	/* wall-clock nanoseconds per packet: 1000 / mpps */
	double cpu_ns_per_packet; /* median CPU time of the process per packet: what
				 * it costs, whatever else the machine runs */
	double ratio_vs_mutex_burst; /* mpps / mutex-burst's mpps at the same thread
				 * count: the same batching as txpath's; < 0
				 * when mutex-burst did not run (a case that
				 * ran and moved nothing is 0, measured) */
	double spread;		/* (max - min) / median */
	double min, max;
	bool accounted;		/* every packet transmitted or dropped with a reason */
	unsigned runs;		/* repetitions finished: reps, fewer if interrupted */
	double *samples;	/* reps of them while running: Mpps */
	double *cpu_samples;	/* ... and CPU ns per packet */
};

/* The cases of cfg, in table order; NULL when out of memory. */
struct bench_row *bench_rows(const struct bench_cfg *cfg, size_t *n);
void bench_rows_free(struct bench_row *rows, size_t n);

/* Run every case reps times, interleaved; fill in the results.
 * progress (may be NULL) is called after each run.  Once cfg->stop asks,
 * the run under way is cut short and not counted, each row's results are
 * over the runs it finished, and the rows that ran none are left out (*n
 * shrinks; the others keep their order).  0, or -1 and err. */
int bench_run(const struct bench_cfg *cfg, struct bench_row *rows, size_t *n,
	      void (*progress)(unsigned done, unsigned total, void *arg), void *arg,
	      char *err, size_t errlen);

/* What one repetition of one case measured. */
struct bench_result {
	double mpps;		/* packets completed per second, millions */
	double cpu_ns;		/* CPU time of the process per packet, ns */
	bool accounted;		/* every packet transmitted or dropped with a reason */
	bool interrupted;	/* cfg->stop asked: the window was cut short */
};

/* One repetition of one case: 0, or -1 and err. */
int bench_case_txpath(const struct bench_cfg *cfg, const struct bench_row *row,
		      struct bench_result *res, char *err, size_t errlen);
int bench_case_baseline(const struct bench_cfg *cfg, const struct bench_row *row,
			struct bench_result *res, char *err, size_t errlen);
/* Is the baseline of this kind in this build (rte_ring: built with DPDK)? */
bool bench_baseline_built(enum bench_kind kind);

/* -- the harness the cases share ------------------------------------------ */

#define BENCH_BURST_MAX 256
#define TXP_BENCH_MAX_THREADS 64	/* drawn in the chart */
#define BENCH_POOL_CAP 256	/* packets a producer may have in flight */

struct bench_sync;

/* One producer thread of a case, on cache lines of its own: each writes
 * its seq and sent once per burst, and a neighbour's on the same line
 * would cost every case with two producers a line's round trip per burst. */
struct bench_worker {
	_Alignas(64) struct bench_sync *sync;
	unsigned idx;			/* 0..threads-1: its flow id */
	unsigned burst;
	void (*loop)(struct bench_worker *w);	/* produce until told to stop */
	void *arg;			/* the case's */
	struct txp_pkt_pool *pool;	/* made by the thread, destroyed by the case */
	uint64_t seq;			/* of its next packet */
	uint64_t sent;			/* packets handed over */
	const char *error;
	unsigned long thread;		/* pthread_t */
};

/* Has the window closed?  For the loops, once per burst. */
bool bench_stopped(const struct bench_worker *w);

/* The worker's next burst from its pool, flow and sequence numbers set;
 * while every packet is in flight it waits for some to come home.  0 once
 * the window has closed. */
unsigned bench_next_burst(struct bench_worker *w, struct txp_pkt **pkts);

/*
 * Start the workers, wait until each is ready (its pool made and warm),
 * open the window for cfg->seconds (less if cfg->stop asks:
 * res->interrupted), close it, join them.  transmitted() and the process's
 * CPU clock are read as the window opens and closes: res->mpps and
 * res->cpu_ns.  0, or -1 with err (a thread could not start, a pool not be
 * made).
 */
int bench_window(struct bench_worker *w, unsigned n, const struct bench_cfg *cfg,
		 uint64_t (*transmitted)(void *arg), void *arg, struct bench_result *res,
		 char *err, size_t errlen);

/* Destroy the workers' pools once every packet is home: false if one is not. */
bool bench_pools_destroy(struct bench_worker *w, unsigned n);

/* Draw throughput against threads, a line per (config, driver). */
void bench_svg(FILE *f, const struct bench_cfg *cfg, const struct bench_row *rows, size_t n);

#endif
