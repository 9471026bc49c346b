/*
 * explore.c - the schedule explorer's API (explore.h; check build
 * only): a configuration checked, the strategy it names run, its result.
 *
 * The layers below: the scenario and the judge of one execution
 * (scenario.c, judge.c, result.c, oracle.c, timer.c), the strategies
 * (strategy.c) over the search's policies and tree (search/), all on the
 * runtime under the seam (runtime/).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/judge.h"
#include "check/scenario.h"
#include "check/strategy.h"
#include "check/explore.h"

_Static_assert(RT_MAX_CTX == TXP_EXPLORE_MAX_CTX,
	       "the runtime has a context for each the API counts");

void txp_explore_cfg_init(struct txp_explore_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->lock = TXP_LOCK_LLTX;
	cfg->runner = TXP_RUNNER_CONCURRENT;
	cfg->personality = txp_sim_personality("tg3-2005");
	cfg->producers = 2;
	cfg->packets = 2;
	cfg->pools = true;
	cfg->batch = 32;
	cfg->strategy = TXP_EXPLORE_BOUND;
	cfg->bound = 2;
	cfg->depth = 3;
	cfg->runs = 1000;
	cfg->seed = 1;
}

int txp_explore_plain_objects(void)
{
	return rt_plain_seen() ? (int)rt_plain_objects() : -1;
}

bool txp_explore_cfg_valid(const struct txp_explore_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->producers < 1 || cfg->producers > RT_MAX_CTX - 2) {
		snprintf(err, errlen, "producers must be 1..%d", RT_MAX_CTX - 2);
		return false;
	}
	if (cfg->plain_point && !rt_plain_seen()) {
		snprintf(err, errlen, "plain accesses as points: this check build does not see "
			 "plain accesses (a sanitizer's)");
		return false;
	}
	if (cfg->packets < 1 || cfg->packets > 64) {
		snprintf(err, errlen, "packets must be 1..64 per producer");
		return false;
	}
	if (cfg->frags_min > cfg->frags_max || cfg->frags_max > TXP_MAX_FRAGS) {
		snprintf(err, errlen, "fragments must be MIN-MAX with 0 <= MIN <= MAX <= %d",
			 TXP_MAX_FRAGS);
		return false;
	}
	if (cfg->reduce && cfg->strategy != TXP_EXPLORE_BOUND && !cfg->replay) {
		snprintf(err, errlen, "the reduction is for the bounded search (--bound)");
		return false;
	}
	if (cfg->reduce_without & ~(TXP_EXPLORE_REDUCE_NO_ASLEEP | TXP_EXPLORE_REDUCE_NO_SYMMETRY)) {
		snprintf(err, errlen, "unknown parts of the reduction to leave out: %#x",
			 cfg->reduce_without);
		return false;
	}
	if (cfg->reduce_without && !cfg->reduce) {
		snprintf(err, errlen, "leaving parts of the reduction out needs the reduction (--reduce)");
		return false;
	}
	if (cfg->split && (cfg->strategy != TXP_EXPLORE_BOUND || cfg->replay)) {
		snprintf(err, errlen, "a part of the search (shards, jobs) is for the bounded search "
			 "(--bound)");
		return false;
	}
	if (cfg->strategy == TXP_EXPLORE_PCT && (cfg->depth < 1 || cfg->depth > 64)) {
		snprintf(err, errlen, "PCT depth must be 1..64");
		return false;
	}
	/* A plugin's own check judges its bulk. */
	if (!cfg->driver && cfg->bulk > TXP_DEV_BULK_MAX) {
		snprintf(err, errlen, "bulk must be 1..%d packets", TXP_DEV_BULK_MAX);
		return false;
	}
	return scenario_fits(cfg, err, errlen);
}

/* -- a driver that crashes or exits --------------------------------------------- */

/*
 * A plugin driver's crash (a fault signal in one of its contexts), or its
 * call of exit() from one, ends the program: the explorer's contexts
 * share its one thread, so nothing survives it.  Before it ends (a crash:
 * on an alternate stack) the schedule that led there is written out (the
 * diagram so far, and the string that --replay runs again), best effort:
 * the heap may be what broke.  Exit 1, a violation found.
 *
 * The report allocates (the schedule, the events).  When the heap is
 * what broke, glibc may abort inside free() holding its arena's lock,
 * and the crash's handler then never gets through its report: the
 * monitor's thread (on an arena of its own) writes it instead once the
 * explorer has been quiet for a second with a crash under way (crashing).
 * One of the two writes it (ending_written); the other gives it
 * ENDING_WAIT_S, then ends the program with a line.
 */
#define ENDING_WAIT_S 5
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static bool crash_caught;
/* Both seq_cst, and nothing is published through either: crashing is the
 * crash handler's word to the monitor's thread (its value alone is read),
 * ending_written the claim of the one thread that writes the ending. */
static _Atomic int crashing;		/* the crash's signal, 0 before one */
static atomic_bool ending_written;

/* The search under way (txp_explore_run()), for its endings. */
static const struct txp_explore_cfg *ending_cfg;

/* An ending's result: the counts and flags of the search it ended, as
 * its result would have said them, with the schedule that ended it (a
 * replay's: that one alone). */
static void ending_counts(struct txp_explore_result *res)
{
	const struct txp_explore_result *u = explore_underway();

	res->schedules = 1;
	if (u) {
		res->schedules += u->schedules;
		res->reduced = u->reduced;
		res->symmetric = u->symmetric;
		res->reduce_dropped = u->reduce_dropped;
		res->xmit_on_stopped_reachable = u->xmit_on_stopped_reachable;
		res->queue_stopped = u->queue_stopped;
		res->races_unkept = u->races_unkept;
	}
	res->interrupted = ending_cfg && ending_cfg->stop && txp_run_interrupted(ending_cfg->stop);
}

/* The other thread is writing the ending: ENDING_WAIT_S for it to end
 * the program, else a line (async-signal-safe: it may be the heap that
 * holds it up) and the exit. */
static _Noreturn void ending_wait(int status)
{
	static const char line[] = "txpath check: the driver's ending was not reported "
				   "(its report did not finish: the heap broken?)\n";

	sleep(ENDING_WAIT_S);
	(void)!write(STDERR_FILENO, line, sizeof(line) - 1);
	_exit(status);
}

static _Noreturn void report_ending(const char *kind, const char *what, int status)
{
	const struct txp_explore_split *split = ending_cfg ? ending_cfg->split : NULL;
	struct txp_explore_result res = { 0 };
	struct outcome o = { .kind = kind };

	snprintf(o.detail, sizeof(o.detail), "%s", what);
	result_violation(&res, &o);
	ending_counts(&res);
	if (atomic_exchange(&ending_written, true))
		ending_wait(status);
	/* A part's: its split reports it, in order with the others'. */
	if (split && split->ending && res.schedule)
		split->ending(explore_judged_piece(), &res, split->arg);
	fflush(stdout);
	if (ending_cfg && ending_cfg->ending_report) {
		ending_cfg->ending_report(&res, ending_cfg->ending_arg);
		fflush(stdout);
		_exit(status);
	}
	printf("VIOLATION %s after %u preemptions: %s\n\n", kind, res.preemptions, what);
	txp_explore_diagram(stdout, &res);
	printf("\nschedule: %s\nreplay: the same command with --replay %s\n",
	       res.schedule ? res.schedule : "?", res.schedule ? res.schedule : "?");
	fflush(stdout);
	_exit(status);
}

static void on_crash(int sig)
{
	char what[96];

	atomic_store(&crashing, sig);
	snprintf(what, sizeof(what), "the driver crashed (%s)", strsignal(sig));
	report_ending("crash", what, 1);
}

/* exit() called by a context under exploration (its driver's op): the
 * controller's own exit is the program's. */
static void on_exit_in_context(void)
{
	if (rt_current() >= 0)
		report_ending("exit", "the driver called exit() in the context drawn last", 1);
}

static void crash_catch(void)
{
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_handler = on_crash, .sa_flags = SA_ONSTACK | SA_RESETHAND };

	crash_caught = true;
	sigaltstack(&ss, NULL);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
	atexit(on_exit_in_context);
}

/* -- a context that never reaches a scheduling point ---------------------------- */

/* A stop asked, or a crash whose report is under way (the monitor then
 * looks after a second of quiet, not quiet_ns). */
static bool monitor_asked(void *arg)
{
	const struct txp_explore_cfg *cfg = arg;

	return atomic_load(&crashing) || (cfg->stop && txp_run_interrupted(cfg->stop));
}

/* From the monitor's thread, the explorer's stuck in the loop (or in its
 * crash's report): it reads the explorer's last state, which that thread
 * will never write again. */
static _Noreturn void monitor_stuck(void *arg, bool asked, double seconds)
{
	const struct txp_explore_cfg *cfg = arg;
	int sig = atomic_load(&crashing);
	char what[200];

	if (sig) {
		snprintf(what, sizeof(what), "the driver crashed (%s); its report, stuck %.1f s "
			 "(the heap broken?), written by the monitor", strsignal(sig), seconds);
		report_ending("crash", what, 1);
	}
	snprintf(what, sizeof(what), "the context drawn last ran %.1f s without reaching a "
		 "scheduling point (a lock, an atomic, a barrier): a loop on plain memory, which "
		 "nothing preempts%s", seconds, asked ? "; a stop was asked" : "");
	report_ending("livelock", what, asked ? 128 + txp_run_interrupted(cfg->stop) : 1);
}

int txp_explore_run(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		  char *err, size_t errlen)
{
	struct outcome o;
	struct rt_monitor mon;
	uint64_t t0 = txp_now_ns();
	bool monitored;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!txp_explore_cfg_valid(cfg, err, errlen))
		return -EINVAL;
	if (cfg->driver && !crash_caught)
		crash_catch();
	mon = (struct rt_monitor){
		.quiet_ns = (uint64_t)((cfg->spin_seconds > 0 ? cfg->spin_seconds
							   : TXP_EXPLORE_SPIN_SECONDS) * 1e9),
		.asked = monitor_asked,
		.stuck = monitor_stuck,
		.arg = (void *)cfg,
	};
	monitored = rt_monitor_start(&mon) == 0;
	ending_cfg = cfg;
	if (cfg->replay)
		rc = explore_replay(cfg, res, &o, err, errlen);
	else if (cfg->strategy == TXP_EXPLORE_BOUND)
		rc = explore_bound(cfg, res, &o, err, errlen);
	else
		rc = explore_sampled(cfg, res, &o, err, errlen);
	if (monitored)
		rt_monitor_stop(&mon);
	ending_cfg = NULL;
	res->seconds = (double)(txp_now_ns() - t0) / 1e9;
	return rc;
}

void txp_explore_result_free(struct txp_explore_result *res)
{
	free(res->schedule);
	free(res->events);
	free(res->pieces);
	res->schedule = NULL;
	res->events = NULL;
	res->pieces = NULL;
}
