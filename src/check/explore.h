/*
 * explore.h - the schedule explorer (the check build's library,
 * txpath_check, only).
 *
 * It runs the real transmit path, built with every operation of the
 * concurrency seam as a scheduling point, under a deterministic scheduler:
 * a small scenario (producer contexts sending a few packets each through
 * one simulated NIC, plus its completion context), over and over, one
 * interleaving at a time.  On every schedule it checks: a driver logged
 * BUG; each packet, followed from its allocation to its one free (lost,
 * held twice, completed twice); a deadlock, a stall (packets left in
 * the qdisc or the ring, no context left to move them: a lost wakeup), a
 * lock-validator report, a single-writer counter written by two contexts;
 * whether start_xmit ran on a stopped queue, by its own watch of the
 * stopped flag against the core's count, and against the era's claim.
 */
#ifndef TXPATH_EXPLORE_H
#define TXPATH_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "txpath/dev.h"
#include "txpath/qdisc.h"
#include "txpath/sim.h"

struct txp_run_driver;
struct txp_run_stop;	/* run/run.h */
struct txp_explore_result;
#ifdef __cplusplus
extern "C" {
#endif

/* Contexts (producers, the completion context) of a scenario at most. */
#define TXP_EXPLORE_MAX_CTX 8

/* How each producer hands its bursts to the device. */
enum txp_explore_send {
	TXP_EXPLORE_SEND_QUEUE,	/* txp_xmit_burst (txp_dev_queue_xmit, one packet) */
	TXP_EXPLORE_SEND_TRY,	/* txp_xmit_burst_try, what it leaves by txp_xmit_burst */
	TXP_EXPLORE_SEND_MIXED,	/* the two by turns, the first burst queued */
};

enum txp_explore_strategy {
	TXP_EXPLORE_BOUND,	/* every schedule with at most `bound` preemptions */
	TXP_EXPLORE_PCT,		/* probabilistic concurrency testing: `depth`
				 * preemptions at random steps, to random
				 * contexts, and random choices where the
				 * running context cannot go on */
	TXP_EXPLORE_RANDOM,	/* a random choice at every branch */
};

/* txp_explore_cfg.reduce_without: */
#define TXP_EXPLORE_REDUCE_NO_ASLEEP 1u	/* run every choice, also one whose
					 * step leads to a state explored */
#define TXP_EXPLORE_REDUCE_NO_SYMMETRY 2u	/* producers alike (one queue, as
					 * many packets, one fragment count, the
					 * simulated NIC or the explorer's ring):
					 * a state and its image
					 * under a permutation of them are two
					 * states, not one */

/* What a part explored of one piece (txp_explore_result.pieces). */
struct txp_explore_piece {
	uint64_t index;		/* in the fixed order */
	uint64_t schedules;	/* up to and with a violation found there */
	uint32_t round;		/* the bound of its round */
	uint32_t flags;		/* TXP_EXPLORE_PIECE_* */
};

#define TXP_EXPLORE_PIECE_XMIT_ON_STOPPED 1u	/* a schedule reached the race */
#define TXP_EXPLORE_PIECE_QUEUE_STOPPED 2u	/* a schedule stopped a queue */
#define TXP_EXPLORE_PIECE_RACES_UNKEPT 4u	/* a schedule's accesses passed the
						 * race detector's table */

/*
 * A part of the bounded search: a shard (--shard) or a worker (--jobs).
 * Each round's schedules (bound 0, 1, ...) fall into pieces: those whose
 * first choices that are not the default (two: search/dfs.h) are the
 * same, and each schedule with fewer alone; numbered from 0 over the
 * rounds in the search's order, they are the same whoever walks the tree.  take() is asked about each in that
 * order (again from 0 if the search starts again without its reduction,
 * when it must answer as before): explore it, skip it, or end the part
 * there.
 */
enum txp_explore_take {
	TXP_EXPLORE_SKIP,
	TXP_EXPLORE_TAKE,
	TXP_EXPLORE_END,
};

struct txp_explore_split {
	enum txp_explore_take (*take)(uint64_t piece, void *arg);
	/* A violation found in a piece taken (NULL: not told). */
	void (*found)(uint64_t piece, void *arg);
	/* A piece taken was explored to its end without a violation (NULL:
	 * not told). */
	void (*ended)(const struct txp_explore_piece *piece, void *arg);
	/* With the reduction, parts that share their table of states: every
	 * piece before the one returned was explored to its end without a
	 * violation, by one part or another (NULL: not known).  The states
	 * above pieces, explored in full by the parts together, are then
	 * added to the table (strategy.c). */
	uint64_t (*below)(void *arg);
	/* The schedule under way ended the search where it stood (a crash,
	 * exit() or a livelock, which explore.c reports), in piece (this
	 * part's, judged: its schedules and flags so far, without this one)
	 * or, NULL, in a schedule walked for the tree (another part's to
	 * judge); end, as ending_report's (its schedule, the search's
	 * flags).  Called from a signal handler, an atexit() handler or the
	 * monitor's thread, the search past saving: it ends the process, or
	 * returns and the ending is reported here as with no split (NULL:
	 * the same). */
	void (*ending)(const struct txp_explore_piece *piece, const struct txp_explore_result *end,
		       void *arg);
	void *arg;
};

/* Where a search is (txp_explore_cfg.progress). */
struct txp_explore_progress {
	uint64_t schedules;	/* so far */
	unsigned bound;		/* TXP_EXPLORE_BOUND: the bound of the round under way */
	/* The part of that round (of the runs, sampling) done: an estimate
	 * for a round, from where its pieces are (a piece's schedules grow
	 * with its distance from the end of the default execution, as the
	 * (bound - 1)th power); 0..1. */
	double done;
};

struct txp_explore_cfg {
	const char *era;	/* label only */
	enum txp_lock_mode lock;
	enum txp_runner runner;
	const struct txp_qdisc_ops *qdisc;	/* NULL: txp_pfifo_fast_ops */
	const struct txp_sim_personality *personality;
	/* NULL: the simulated NIC with personality; else this driver (a
	 * plugin, txp_run_driver_plugin(), or the explorer's own,
	 * txp_explore_driver()), made afresh for every schedule with lock,
	 * runner, ring, frags, batch and producers. */
	const struct txp_run_driver *driver;
	/* NULL: the simulated NIC's (txp_sim_ops).  Else ops whose device
	 * private data is the simulated NIC all the same (a test's wrapper
	 * around txp_sim_ops, to plant a bug the oracles must name).  Under
	 * the reduction they must treat every producer's packets alike, or
	 * set TXP_EXPLORE_REDUCE_NO_SYMMETRY. */
	const struct txp_driver_ops *ops;
	/* The era claims start_xmit never runs on a stopped queue: reaching
	 * it is a violation ("claim"). */
	bool race_impossible;
	unsigned producers;	/* producer contexts */
	unsigned packets;	/* packets each */
	unsigned ring;		/* 0: the smallest that fits */
	unsigned frags_min, frags_max;
	unsigned batch;		/* completion batch */
	unsigned queues;	/* transmit queues, a ring and an interrupt each; 0: 1 */
	bool bql;		/* byte queue limits (a personality that reports bytes) */
	unsigned bulk;		/* packets dequeued per xmit lock, each but the
				 * last with xmit_more; 0 or 1: one, as 2.6 */
	enum txp_defer defer;	/* a locked qdisc's defer list (txp_dev_cfg.defer) */
	bool busylock;		/* the qdisc busylock (txp_dev_cfg.busylock) */
	enum txp_explore_send send;
	/* Each producer's packets from a pool of its own (txp_pkt_pool),
	 * freed by whichever context ends them: the pools' return stacks are
	 * explored, and each must have every packet home at the end.  Else
	 * the oracle's own memory.  txp_explore_cfg_init(): true. */
	bool pools;
	bool tso;		/* store buffers: the memory model tso */
	/* One more context: the watchdog's timer, expiring once, on a device
	 * idle for long when the contexts start and a logical clock that
	 * stands still while they run (src/check/timer.c). */
	bool watchdog;
	bool arm;		/* the memory model arm (`txpath check --help`):
				 * store buffers that land out of order, loads of
				 * older writes; tso is then ignored */
	/* The plain accesses that are scheduling points too, by the address
	 * of their code (txpath check --plain-points); NULL: none.  Only
	 * where the check build sees plain accesses (not a sanitizer's). */
	bool (*plain_point)(const void *pc);
	enum txp_explore_strategy strategy;
	unsigned bound;		/* TXP_EXPLORE_BOUND */
	/* TXP_EXPLORE_BOUND under sc or tso: skip a state already explored in
	 * full (the same trace, the same context running, no more
	 * preemptions left); the same verdicts, fewer schedules. */
	bool reduce;
	/* Parts of the reduction left out (TXP_EXPLORE_REDUCE_NO_*), to see
	 * that each keeps the verdicts; 0: all of it. */
	unsigned reduce_without;
	unsigned depth;		/* TXP_EXPLORE_PCT */
	uint64_t runs, seed;	/* TXP_EXPLORE_PCT, TXP_EXPLORE_RANDOM */
	const char *replay;	/* run exactly this schedule instead */
	unsigned max_steps;	/* per schedule; 0: a default */
	/* A context this long without reaching a scheduling point (a loop on
	 * plain memory, which nothing preempts) ends the program as a
	 * livelock, with its schedule; 0: TXP_EXPLORE_SPIN_SECONDS. */
	double spin_seconds;
	/* Now and then (every 256 schedules), where the search is. */
	void (*progress)(const struct txp_explore_progress *p, void *arg);
	void *progress_arg;
	/* An ending (a crash, exit() or a livelock, the search past saving)
	 * reported by this in place of the text (NULL: the text); res: the
	 * violation, its schedule and diagram, the schedules this search
	 * ran up to it (that one included) and its flags (reduced,
	 * symmetric, interrupted: as its result would have said).  Called
	 * from a signal handler, an atexit() handler or the monitor's
	 * thread; the process ends when it returns. */
	void (*ending_report)(const struct txp_explore_result *res, void *arg);
	void *ending_arg;
	/* Polled between schedules (NULL: never): once it is asked
	 * (txp_run_interrupt()), the search ends there, res->interrupted. */
	const struct txp_run_stop *stop;
	/* TXP_EXPLORE_BOUND: explore this part only (NULL: all); res then
	 * lists its pieces, and the whole is txp_explore_merge()'s. */
	const struct txp_explore_split *split;
	/* With split: called at the end of a piece once checkpoint_seconds
	 * have passed since the last call (0: at each), and at the end,
	 * with sofar's pieces those explored to their end without a
	 * violation (its counts theirs): a position that a later run can
	 * take up, exploring every other piece (--checkpoint, --resume). */
	void (*checkpoint)(const struct txp_explore_result *sofar, void *arg);
	void *checkpoint_arg;
	double checkpoint_seconds;
};

#define TXP_EXPLORE_SPIN_SECONDS 10.0

struct txp_explore_event {
	int column;		/* 0..ncolumns-1 */
	char text[72];
};

struct txp_explore_result {
	bool found;			/* a violation */
	const char *kind;		/* "bug-log", "lost" (a packet never freed, or
					 * freed uncounted), "duplicated" (held twice),
					 * "double-completion", "deadlock", "stall",
					 * "validator", "livelock", "counter" (a
					 * single-writer counter written by two
					 * contexts), "xmit-on-stopped" (the core
					 * counted fewer calls on a stopped queue than
					 * the explorer saw), "claim" (the race an era
					 * claims impossible was reached),
					 * "reordered" (a flow out of order at the
					 * wire where the device promises order),
					 * "unjustified-drop" (a drop whose reason's
					 * precondition did not hold), "no-doorbell"
					 * (descriptors left unannounced to the NIC),
					 * "false-timeout" (the watchdog reset a queue
					 * stopped for less than its timeout); a plugin
					 * driver that crashes ("crash"), calls exit()
					 * ("exit") or spins without a scheduling point
					 * ("livelock", after spin_seconds) ends the
					 * program with its schedule (exit 1; 128 + the
					 * signal if a stop was asked) */
	char detail[400];
	unsigned preemptions;
	char *schedule;			/* replay string (malloc'd) */
	struct txp_explore_event *events;	/* the violating schedule (malloc'd) */
	unsigned nevents;
	int ncolumns;
	char columns[8][24];		/* "CPU 1", ..., "IRQ" */
	uint64_t schedules;
	bool complete;			/* the whole bound was searched */
	bool interrupted;		/* ended early by cfg->stop */
	unsigned bound_reached;		/* TXP_EXPLORE_BOUND: the bound searched last;
					 * every bound below it in full */
	bool xmit_on_stopped_reachable;
	bool queue_stopped;		/* some schedule stopped a queue; if none did,
					 * no stop or wake raced anything: the
					 * scenario proves little (txpath check
					 * warns) */
	bool races_unkept;		/* some schedule's accesses passed the race
					 * detector's table: races with them were
					 * not seen (txpath check warns) */
	bool reduced;			/* cfg->reduce, kept to the end */
	bool reduce_dropped;		/* ... dropped: a fair switch came, the
					 * search began again without it */
	uint64_t pruned;		/* schedules ended at an explored state */
	uint64_t asleep;		/* choices never run: their step, seen from
					 * the branch before, led to one */
	bool symmetric;			/* producers alike: a state and its images
					 * under their permutations named once */
	uint64_t states;		/* explored states named */
	bool states_full;		/* their table filled: some forgotten */
	double seconds;
	/* cfg->split: the pieces taken, in order (malloc'd), and the one
	 * the violation was found in. */
	struct txp_explore_piece *pieces;
	size_t npieces;
	uint64_t found_piece;
};

/*
 * The drivers the explorer has of its own, by name, for
 * txp_explore_cfg.driver; NULL if none is so named.  "ring": the ring of
 * the real drivers (src/drivers/common/ring.c, as afxdp runs it) against
 * a modelled kernel endpoint, a TX ring the kernel consumes and a
 * completion ring it fills, the kernel a context of its own per queue
 * (src/check/ring_kernel.c); its ring has TXP_EXPLORE_RING_SLOTS slots
 * unless cfg.ring says.
 */
const struct txp_run_driver *txp_explore_driver(const char *name);
#define TXP_EXPLORE_RING_SLOTS 2

/* Objects built with the instrumentation (txpath config --cflags) loaded
 * so far, whose plain accesses the explorer sees: a plugin loaded that
 * does not add one was built without it.  -1 where this build sees no
 * plain access (a sanitizer's). */
int txp_explore_plain_objects(void);

void txp_explore_cfg_init(struct txp_explore_cfg *cfg);
/* Knobs that fit together?  False and a message if not. */
bool txp_explore_cfg_valid(const struct txp_explore_cfg *cfg, char *err, size_t errlen);
/*
 * Explore.  0 (see res), or a negative errno and a message: -EINVAL when
 * the knobs do not fit or the replay string is malformed or does not fit
 * the scenario (an index past its last branch point, a context that
 * cannot run there), naming the offending pair; -ENOMEM; -EPROTO on an
 * internal error.
 */
int txp_explore_run(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		  char *err, size_t errlen);
void txp_explore_result_free(struct txp_explore_result *res);

/*
 * The result of the whole search from its n parts (each cfg->split's,
 * together taking every piece once), exactly as one run gives it
 * without --reduce: the violation of the first piece that has one
 * (replayed, to draw it, in a child process: fork(), so that a plugin's
 * crash ends that one), the schedules of the pieces up to it (every
 * piece without one), what they reached.  With the reduction each part
 * had its own table: the counts are the parts' sums.  0, or a negative
 * errno and a message (-EPROTO: a part lacks a piece before the
 * violation).  seconds is left to the caller.
 */
int txp_explore_merge(const struct txp_explore_cfg *cfg, const struct txp_explore_result *parts,
		      unsigned n, struct txp_explore_result *res, char *err, size_t errlen);

/*
 * The reduction's figures of n parts, each with its own table, into
 * res: reduced and symmetric if all were, the counts summed.
 */
void txp_explore_join_reduction(const struct txp_explore_result *parts, unsigned n,
				struct txp_explore_result *res);

/*
 * The n parts (each cfg->split's) as one part of the search, the pieces
 * they took together, as one process taking them would give it (a shard
 * run by workers): their pieces in order, up to the first that has a
 * violation (found_piece, UINT64_MAX: none), that violation (replayed
 * in a child, as txp_explore_merge()'s), what they reached; to merge
 * with the others' by txp_explore_merge().
 */
int txp_explore_gather(const struct txp_explore_cfg *cfg, const struct txp_explore_result *parts,
		       unsigned n, struct txp_explore_result *res, char *err, size_t errlen);

/*
 * The bounded search split among jobs worker processes (fork()ed: the
 * explorer's contexts are fibers of one thread over the runtime's
 * file-scope state, so a worker is a process), pieces handed out one at a
 * time in order as each worker asks, so none idles while pieces are
 * left; merged as txp_explore_merge() does.  The caller's cfg->stop is
 * also each worker's (a signal caught by the process is forwarded to
 * them).  0, or a negative errno and a message; a positive exit status
 * when a worker ended the program (its report printed; killed by a
 * signal, 128 + it, and the message, else "").  progress, if set, is called from this process with
 * the workers' schedules; checkpoint too, with the pieces they explored
 * to the end, from the first up to the first not.  cfg->split, if set,
 * is the caller's: the workers share out the pieces it takes.  prior, if
 * not NULL, is a part explored before (the pieces cfg->split skips),
 * merged in.  part: the result is not the whole search's but the part
 * cfg->split takes, gathered (txp_explore_gather(): a shard's); prior
 * must then be NULL.
 */
int txp_explore_jobs(const struct txp_explore_cfg *cfg, unsigned jobs,
		     const struct txp_explore_result *prior, bool part,
		     struct txp_explore_result *res, char *err, size_t errlen);

/*
 * Schedules as strings: "-" (every branch point takes its default: the
 * running context goes on, else the lowest that can run), or the branch
 * points that did not, as "INDEX:CTX" (run context CTX at branch point
 * INDEX) or "INDEX:fCTX" (let the oldest buffered store of context CTX
 * reach memory, --memory-model tso; under arm a store of CTX, the one
 * the next branch point picks), joined by ",".  At the arm model's own
 * branch points (which store lands, which write a load reads, whether a
 * compare-exchange fails spuriously) "INDEX:fJ" takes alternative J + 1
 * instead of the default.  Indices are decimal
 * without sign or leading zeros, at most UINT32_MAX, each greater than the
 * one before (so none twice); CTX is 0..TXP_EXPLORE_MAX_CTX-1.  Nothing
 * else: no spaces, no empty pairs, no trailing comma.
 */
struct txp_explore_choice {
	uint32_t index;		/* the branch point, counted from 0 */
	uint8_t ctx;		/* the context that runs, or whose store is flushed */
	bool flush;
};

/*
 * Parse a schedule string; pure (no output, no exit), for any input.
 * 0: *out holds the *n choices (free() it; NULL when *n is 0).  -EINVAL:
 * malformed, with a one-line message naming the offending pair in err
 * (its text made printable).  -ENOMEM.  Memory is proportional to the
 * string's length, never to the numbers in it.
 */
int txp_explore_schedule_parse(const char *s, struct txp_explore_choice **out, unsigned *n,
			     char *err, size_t errlen);
/* The string of n choices (malloc'd), as the parser reads it; NULL when
 * out of memory. */
char *txp_explore_schedule_format(const struct txp_explore_choice *c, unsigned n);
/* The violating schedule as the two-column diagram of the 2004 email. */
void txp_explore_diagram(FILE *f, const struct txp_explore_result *res);

#ifdef __cplusplus
}
#endif

#endif
