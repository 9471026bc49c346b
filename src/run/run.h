/*
 * run.h - a workload: producer threads pushing packets through one
 * device, with every packet accounted for at the end.
 *
 * This is what `txpath run` and `txpath demo` drive, and what the stress
 * tests assert on.
 */
#ifndef TXPATH_RUN_H
#define TXPATH_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "txpath/ctx.h"
#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/net.h"
#include "txpath/qdisc.h"
#include "txpath/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A named combination of the knobs, one per chapter of the story. */
struct txp_era {
	const char *name;	/* "2.6.9" */
	const char *summary;
	enum txp_lock_mode lock;
	enum txp_runner runner;
	const char *personality;
	/* Its design claims start_xmit never runs on a stopped queue (a
	 * lock, or one runner, keeps the callers apart): `txpath check`
	 * reports reaching it as a violation. */
	bool race_impossible;
	/* The modern eras' device (0: as the older eras: one queue, no BQL,
	 * the run's bulk, no watchdog). */
	unsigned queues;
	bool bql;
	unsigned bulk;
	unsigned watchdog_ms;
	/* Its qdisc kind (txp_qdisc_lookup), NULL: pfifo_fast. */
	const char *qdisc;
	/* The qdisc busylock (txp_dev_cfg.busylock): 2.6.36 to 6.17. */
	bool busylock;
};

/* NULL-name terminated, in historical order. */
extern const struct txp_era txp_eras[];
const struct txp_era *txp_era_lookup(const char *name);

struct txp_run_cfg;

/* A quantity sampled over a run: its least, median, greatest and mean
 * sample (all 0: never sampled). */
struct txp_run_sampled {
	uint64_t min, median, max;
	double mean;
};

/* What a driver saw, for the report; each driver fills what it can. */
struct txp_run_drv_stats {
	bool wire_measured;		/* the wire's counts are real ... */
	struct txp_wire_stats wire;	/* ... these, every queue's (txp_wire_stats_add()) */
	uint64_t ring_full_awake;	/* start_xmit found no room, queue awake */
	uint64_t ring_full_stopped;	/* ... queue already stopped: the race */
	uint64_t ring_errors;		/* the ring was found in an impossible state */
	uint64_t device_busy;		/* a free slot, the device's own ring busy (backpressure) */
	bool link_down;			/* the device died mid-run (real drivers) ... */
	char died[96];			/* ... of this ("link down (Network is down)") */
	enum txp_drop_reason died_drop;	/* ... what it left dropped as (dev-down, tx-error) */
	uint64_t faults[TXP_FAULT_NR];	/* faults the driver injected, per kind */
	unsigned in_flight;		/* descriptors posted, not yet retired (sim) */
	uint64_t in_flight_bytes;	/* ... their packets' bytes (sim) */
	uint64_t bytes_retired;		/* bytes that left the rings, ever (sim) */
};

/* How the workload makes a driver of a kind ("sim", "null", ...). */
struct txp_run_driver {
	const char *name;
	const char *summary;
	bool faults;		/* can inject cfg->faults (--fault) */
	/* Do cfg's knobs fit this driver?  False and a message if not. */
	bool (*check)(const struct txp_run_cfg *cfg, char *err, size_t errlen);
	/* Make one: its ops, and its private state for the device's priv. */
	int (*create)(const struct txp_run_cfg *cfg, const struct txp_driver_ops **ops,
		      void **priv, char *err, size_t errlen);
	/* Or, instead of create: make the whole device with dcfg's knobs,
	 * opened (a real driver's public constructor, txpath/netdrv.h); *priv
	 * for stats, dead and destroy, which then frees the device too. */
	struct txp_dev *(*create_dev)(const struct txp_run_cfg *cfg, const struct txp_dev_cfg *dcfg,
				      void **priv, char *err, size_t errlen);
	/* A driver that sends bytes: the addresses of the frames the workload
	 * writes into its packets, cfg's with the defaults resolved for the
	 * device made (its MAC).  NULL: the driver ignores the bytes (sim,
	 * null), and the packets carry none. */
	void (*frame_addr)(void *priv, const struct txp_run_cfg *cfg, struct txp_frame_addr *a);
	/* The pool a producer's packets come from, made in its thread, or
	 * NULL: the run's own (and then err is untouched), or an error in err.
	 * NULL op: the run's own. */
	struct txp_pkt_pool *(*pool_create)(void *priv, const struct txp_run_cfg *cfg, char *err,
					    size_t errlen);
	/* Under check: what start_xmit posted on a queue of dev and has not
	 * announced to the NIC, for the doorbell oracle (check/oracle.h).
	 * NULL: not known. */
	unsigned (*unannounced)(struct txp_dev *dev, unsigned queue);
	/* A producer's packets are all in flight: retire what the device
	 * finished on queue (negative: every queue) in the producer's
	 * context, so that they come home at once (busy polling), before
	 * it waits.  Returns how many it retired.  NULL: the producer waits
	 * for the device's own completion context. */
	unsigned (*busy_poll)(void *priv, int queue);
	/* Counters; exact once the device is closed. */
	void (*stats)(void *priv, struct txp_run_drv_stats *st);
	/* Has the device died (its link gone, a write failed)?  The cause, or
	 * NULL while it lives.  Any context, at any time.  NULL: it cannot. */
	const char *(*dead)(void *priv);
	void (*destroy)(void *priv);
};

/* NULL-terminated, and lookup by name (NULL if unknown). */
extern const struct txp_run_driver *const txp_run_drivers[];
const struct txp_run_driver *txp_run_driver(const char *name);

/* A look at the device txp_run_dev_create() makes, for a driver with
 * create (the explorer's oracle watches through it); each may be NULL. */
struct txp_run_dev_watch {
	/* The ops the device is made with, given the driver's. */
	const struct txp_driver_ops *(*ops)(const struct txp_driver_ops *ops, void *arg);
	/* The device, made and not yet open. */
	void (*made)(struct txp_dev *dev, void *arg);
	void *arg;
};

/* The device's knobs of cfg (lock, runner, qdisc, queues, ...), the
 * device named after cfg->driver; its ops and priv left to the driver. */
struct txp_dev_cfg txp_run_dev_cfg(const struct txp_run_cfg *cfg);

/*
 * The device of cfg->driver, opened: what `txpath run`, the explorer and
 * the bench run on.  cfg is checked against the driver first (its check
 * op).  dcfg: the device's knobs, its ops and priv left to the driver;
 * NULL: txp_run_dev_cfg(cfg).  watch: NULL, or see above.  0: *dev, and *priv the driver's state (for its stats, dead,
 * frame_addr, pool_create); else *dev and *priv NULL, and a negative errno
 * with a message: -EINVAL, cfg does not fit the driver (the message says
 * what); -ENODEV, the driver or its device could not be made; the open
 * op's, it did not come up.
 */
int txp_run_dev_create(const struct txp_run_cfg *cfg, const struct txp_dev_cfg *dcfg,
		       const struct txp_run_dev_watch *watch, struct txp_dev **dev, void **priv,
		       char *err, size_t errlen);
/* Undo txp_run_dev_create() of driver: the device, then the driver's
 * state.  Both NULL: nothing. */
void txp_run_dev_destroy(const struct txp_run_driver *driver, struct txp_dev *dev, void *priv);

/*
 * A driver of one's own (txpath/plugin.h): load the shared object at
 * path, set its knobs from args ("NAME=VALUE" each), and make it a
 * driver named "plugin".  NULL and a one-line message when path is not a
 * loadable shared object, has no entry point, speaks another ABI
 * version, lacks an op, or an arg does not fit.  Never unloaded.
 */
const struct txp_run_driver *txp_run_driver_plugin(const char *path, const char *const *args,
						   unsigned nargs, char *err, size_t errlen);
/*
 * The op of a plugin's driver ("open", "start_xmit", "poll", "stop") that
 * the calling thread is inside, NULL if none; *name: the driver's name
 * (struct txp_plugin.name), NULL if none.  Async-signal-safe (thread-local
 * reads): for a crash's signal handler, or an atexit hook, to say which
 * op of which driver ended the program.
 */
const char *txp_run_driver_plugin_op(const char **name);
/* The plugin behind a driver that txp_run_driver_plugin() made, else NULL. */
struct txp_plugin;
const struct txp_plugin *txp_run_driver_plugin_of(const struct txp_run_driver *d);

/*
 * Asking a run to stop before its end, e.g. on SIGINT.  The caller owns
 * the flag (static storage, so that a signal handler can reach it) and
 * hands it to runs in txp_run_cfg.stop; the library never installs a
 * signal handler.
 *
 * A run that sees the flag set stops its producers, gives what is queued
 * and in flight TXP_RUN_DRAIN_SECONDS to go out, then brings the device
 * down: what is still left is dropped as TXP_DROP_INTERRUPTED (the
 * device's close drops it as dev-down; the run, which knows why it closed
 * the device, counts those drops as interrupted in its result), so an
 * interrupted run accounts for every packet as a finished one does.  Its
 * result says interrupted = the code it was asked with.  A run started
 * with the flag already set stops at once.
 */
struct txp_run_stop {
	atomic_int why;		/* 0: not asked; else the first code asked with */
};
#define TXP_RUN_STOP_INIT { 0 }
#define TXP_RUN_DRAIN_SECONDS 1

/*
 * Ask every run watching s to stop, for the reason why (nonzero: a signal
 * number, say).  True for the first ask; later ones keep the first why.
 * Context: any: a signal handler, any thread, before, during or after a
 * run.  Async-signal-safe: one compare-and-swap on a lock-free atomic int
 * (no lock, no allocation, no system call, errno untouched).
 */
bool txp_run_interrupt(struct txp_run_stop *s, int why);
/* The why of the first ask, 0 if none.  Any context, async-signal-safe. */
int txp_run_interrupted(const struct txp_run_stop *s);

struct txp_run_progress {
	double elapsed;		/* seconds */
	uint64_t target;	/* packets to submit, 0 when running for a time */
	uint64_t submitted, transmitted, dropped;
};

struct txp_run_cfg {
	const char *era;	/* label for reports; NULL when knobs were set by hand */
	enum txp_lock_mode lock;
	enum txp_runner runner;
	const struct txp_run_driver *driver;	/* default: sim */
	const struct txp_sim_personality *personality;	/* sim only */
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
	unsigned burst;		/* packets a producer hands over at once, 1..TXP_RUN_BURST_MAX */
	unsigned bulk;		/* packets qdisc_restart() sends per batch, 1..TXP_DEV_BULK_MAX */
	unsigned queues;	/* transmit queues, 1..TXP_DEV_MAX_QUEUES */
	bool bql;		/* byte queue limits (the driver must report bytes) */
	unsigned watchdog_ms;	/* the TX watchdog's timeout; 0: no watchdog */
	enum txp_defer defer;	/* a locked qdisc's defer list (txp_dev_cfg.defer) */
	bool busylock;		/* the qdisc busylock (txp_dev_cfg.busylock) */
	/* XPS: producer i sends on queue xps[i % xps_len]; xps_len 0: on
	 * queue i mod queues; xps_off: by the flow hash instead. */
	bool xps_off;
	unsigned xps_len;
	int xps[TXP_MAX_CTX];
	double stall_seconds;	/* no progress this long: give up */
	bool validate;		/* the lock validator on (txpath/validator.h) */
	struct txp_fault_cfg faults;	/* what to inject (txpath/sim.h); none by default */
	FILE *log;		/* kernel log lines, NULL for none */
	struct txp_net_cfg net;	/* real drivers: interface, file, frame addresses */
	void (*progress)(const struct txp_run_progress *p, void *arg);
	void *progress_arg;
	const struct txp_run_stop *stop;	/* NULL: the run is not interruptible */
};

/* The queue a stalled run was stuck on, as it stood when the run gave up. */
struct txp_run_stall {
	char dev[32];		/* the device's name */
	unsigned queue;		/* its index in the device */
	bool stopped;
	uint64_t in_ring;	/* packets past the qdisc: the driver's ring, a
				 * runner's dequeued batch */
	uint64_t in_qdisc;	/* packets queued in the qdisc */
};

struct txp_run_result {
	struct txp_dev_stats dev;
	struct txp_run_drv_stats drv;
	uint64_t dropped;	/* all reasons */
	uint64_t lost;		/* submitted, neither on the wire nor dropped
				 * (without a wire: neither transmitted nor dropped) */
	uint64_t duplicated;	/* seen on the wire more than once */
	double seconds;		/* first submit until every packet was accounted */
	double mpps;		/* transmitted per second, millions */
	bool stalled;		/* nothing moved for stall_seconds; the rest was dropped as dev-down */
	struct txp_run_stall stall;	/* if stalled: where */
	uint64_t faults[TXP_FAULT_NR];	/* injected, per kind (link-flap: times down) */
	/* Per queue (queues of them); what the driver's rings held (all
	 * queues, the sim's), sampled every millisecond while the run
	 * lasted, in descriptors and in bytes; and how long a byte waited
	 * there, by Little's law: the mean bytes held over the rate at which
	 * bytes left the rings. */
	unsigned queues;
	struct txp_dev_stats queue_stats[TXP_DEV_MAX_QUEUES];
	struct txp_bql_info queue_bql[TXP_DEV_MAX_QUEUES];	/* at the end */
	struct txp_run_sampled ring_descs, ring_bytes;
	double ring_wait_us;
	int interrupted;	/* cfg->stop's why if it stopped the run (what did not drain
				 * was dropped as interrupted), else 0 */
	/* A thread of the run never came back as it ended: nothing moved for
	 * five seconds while it waited for its producers or for the device's
	 * close (a driver op that never returns, a lock never released).
	 * The device was left as it was, neither closed nor freed, and what
	 * it held is counted dropped as interrupted (an interrupted run) or
	 * dev-down (a stalled one).  Its threads still run: the caller ends
	 * the process once it has the result, without freeing anything. */
	bool wedged;
	bool accounted;		/* submitted == transmitted + dropped */
	bool validated;		/* the lock validator was on ... */
	unsigned hazards;	/* ... and made this many reports, each readable
				 * with txp_validator_report() until the next
				 * validated run */
};

#define TXP_RUN_BURST_MAX 256

/* Defaults: era 2.6.11's knobs, one producer per CPU, 1e6 packets,
 * bursts and bulk batches of 32. */
void txp_run_cfg_init(struct txp_run_cfg *cfg);
/* Set lock, runner and personality from an era; false if unknown. */
bool txp_run_cfg_era(struct txp_run_cfg *cfg, const char *era);
/* Check the knobs together; false and a message in err if they do not fit. */
bool txp_run_cfg_check(const struct txp_run_cfg *cfg, char *err, size_t errlen);

/* Run it.  0 when it ran (see res->stalled, res->accounted,
 * res->interrupted, res->wedged), -1 and a message in err when it could not
 * be set up.  It returns however its driver behaves: a run waits for its
 * threads only while something moves. */
int txp_run(const struct txp_run_cfg *cfg, struct txp_run_result *res, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
