/*
 * report.c - a run's result as text, as JSON, and as a one-line verdict.
 */
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "signals.h"
#include "txpath/validator.h"

/* The personality belongs to the simulated NIC; a real driver has none. */
static const char *personality_name(const struct txp_run_cfg *cfg)
{
	return strcmp(cfg->driver->name, "sim") ? NULL : cfg->personality->name;
}

/* Every packet accounted for, none lost or duplicated, the ring sane. */
const char *defer_shown(enum txp_defer defer)
{
	return defer == TXP_DEFER_DRAIN ? " with defer list (drainer)" :
	       defer == TXP_DEFER_LINUX ? " with defer list" : "";
}

const char *busylock_shown(bool busylock, enum txp_runner runner,
			   const struct txp_qdisc_ops *qdisc, enum txp_defer defer)
{
	return busylock && txp_dev_busylock_applies(runner, qdisc, defer) ? " with busylock" : "";
}

static bool run_accounted(const struct txp_run_result *r)
{
	return r->accounted && r->lost == 0 && r->duplicated == 0 && r->drv.ring_errors == 0;
}

bool run_ok(const struct txp_run_result *r)
{
	return !r->stalled && !r->wedged && run_accounted(r);
}

bool run_stall_is_the_era(const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	enum txp_nolock_rev rev = cfg->qdisc->nolock;

	return r->stalled && (rev == TXP_NOLOCK_TRYLOCK || rev == TXP_NOLOCK_MISSED) &&
	       run_accounted(r);
}

/*
 * Can the LLTX race happen at all under these knobs?  In LLTX mode only
 * the driver's own lock serialises start_xmit, so two contexts can be
 * inside it at once unless the core lets one at a time reach it: the
 * exclusive runner does, for the contexts running the qdisc; a device
 * with no qdisc (noqueue) has none to run, and every producer calls
 * start_xmit itself, as on Linux.  `txpath check --lock lltx --runner
 * exclusive` shows the race reachable with --qdisc noqueue, not without.
 */
static bool race_possible(const struct txp_run_cfg *cfg)
{
	bool no_qdisc = cfg->qdisc && !cfg->qdisc->enqueue;

	return cfg->lock == TXP_LOCK_LLTX && (cfg->runner == TXP_RUNNER_CONCURRENT || no_qdisc);
}

/* What the lock validator said, after the verdict; nothing when it was off. */
static void append_hazards(const struct txp_run_result *r, char *buf, size_t len)
{
	size_t used = strlen(buf);

	if (!r->validated || used >= len)
		return;
	if (r->hazards)
		snprintf(buf + used, len - used, "; %u lock hazard%s", r->hazards,
			 r->hazards == 1 ? "" : "s");
	else
		snprintf(buf + used, len - used, "; no lock hazard");
}

const char *run_verdict(const struct txp_run_cfg *cfg, const struct txp_run_result *r,
			char *buf, size_t len)
{
	unsigned long long races = r->dev.xmit_on_stopped, bugs = r->dev.bug_logs;

	if (run_stall_is_the_era(cfg, r))
		snprintf(buf, len, "stalled: %s stranded a packet, as it did in Linux",
			 cfg->qdisc->id);
	else if (!run_ok(r))
		snprintf(buf, len, "BROKEN: %s%llu lost, %llu duplicated",
			 r->stalled ? "stalled, " : "", (unsigned long long)r->lost,
			 (unsigned long long)r->duplicated);
	else if (!race_possible(cfg) && races)
		snprintf(buf, len, "UNEXPECTED: race seen %llu times", races);
	else if (!race_possible(cfg))
		snprintf(buf, len, bugs ? "race impossible; real BUG logged %llu times"
				       : "race impossible", bugs);
	else if (bugs)
		snprintf(buf, len, "false BUG alarms: %llu", bugs);
	else if (!races)
		snprintf(buf, len, "race possible, not seen in this run");
	else if (cfg->personality->ring_full == TXP_SIM_FULL_SILENT)
		snprintf(buf, len, "race happened %llu times, silenced", races);
	else
		snprintf(buf, len, "race happened %llu times, harmless", races);
	append_hazards(r, buf, len);
	return buf;
}

/* "faults": injected per kind, and the seed that makes them again. */
static void faults_json(struct json *j, const struct txp_run_cfg *cfg,
			const struct txp_run_result *r)
{
	json_obj_begin(j, "faults");
	for (int k = 0; k < TXP_FAULT_NR; k++)
		json_u64(j, txp_fault_name(k), r->faults[k]);
	if (txp_fault_any(&cfg->faults))
		json_u64(j, "seed", cfg->faults.seed);
	json_obj_end(j);
}

/* "stall": the stuck queue, or null. */
static void stall_json(struct json *j, const struct txp_run_result *r)
{
	if (!r->stalled) {
		json_str(j, "stall", NULL);
		return;
	}
	json_obj_begin(j, "stall");
	json_str(j, "device", r->stall.dev);
	json_u64(j, "queue", r->stall.queue);
	json_bool(j, "stopped", r->stall.stopped);
	json_u64(j, "in_ring", r->stall.in_ring);
	json_u64(j, "in_qdisc", r->stall.in_qdisc);
	json_obj_end(j);
}

/* A device's or a queue's counters, every one, under the same names. */
static void dev_stats_json(struct json *j, const struct txp_dev_stats *st)
{
	json_u64(j, "submitted", st->submitted);
	json_u64(j, "transmitted", st->transmitted);
	json_obj_begin(j, "dropped");
	for (int i = 0; i < TXP_DROP_NR; i++)
		json_u64(j, txp_drop_reason_name(i), st->dropped[i]);
	json_obj_end(j);
	json_u64(j, "xmit_calls", st->xmit_calls);
	json_u64(j, "xmit_on_stopped", st->xmit_on_stopped);
	json_u64(j, "bug_logs", st->bug_logs);
	json_u64(j, "tx_busy", st->tx_busy);
	json_u64(j, "tx_locked", st->tx_locked);
	json_u64(j, "collisions", st->collisions);
	json_u64(j, "requeues", st->requeues);
	json_u64(j, "stops", st->stops);
	json_u64(j, "wakes", st->wakes);
	json_u64(j, "tx_timeouts", st->tx_timeouts);
}

/* A sampled quantity: {"min", "median", "max", "mean"}. */
static void sampled_json(struct json *j, const char *name, const struct txp_run_sampled *v)
{
	json_obj_begin(j, name);
	json_u64(j, "min", v->min);
	json_u64(j, "median", v->median);
	json_u64(j, "max", v->max);
	json_dbl(j, "mean", v->mean);
	json_obj_end(j);
}

/* Queues, BQL and the watchdog, as JSON: per queue and in all. */
static void queues_json(struct json *j, const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	json_u64(j, "queues", r->queues);
	json_bool(j, "bql", cfg->bql);
	json_u64(j, "watchdog_ms", cfg->watchdog_ms);
	json_obj_begin(j, "ring_in_flight");
	sampled_json(j, "descriptors", &r->ring_descs);
	sampled_json(j, "bytes", &r->ring_bytes);
	json_dbl(j, "wait_us", r->ring_wait_us);
	json_obj_end(j);
	json_arr_begin(j, "per_queue");
	for (unsigned q = 0; q < r->queues; q++) {
		json_obj_begin(j, NULL);
		json_u64(j, "queue", q);
		dev_stats_json(j, &r->queue_stats[q]);
		json_u64(j, "bql_limit", r->queue_bql[q].limit);
		json_u64(j, "bql_inflight", r->queue_bql[q].inflight);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The same as text: a line for the queues, one for BQL if on. */
static void queues_text(FILE *f, const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	if (r->queues > 1) {
		fprintf(f, "  %u queues, transmitted per queue:", r->queues);
		for (unsigned q = 0; q < r->queues; q++)
			fprintf(f, " %llu", (unsigned long long)r->queue_stats[q].transmitted);
		fputc('\n', f);
	}
	if (r->ring_descs.max)
		fprintf(f, "  in the rings: min/median/max %llu/%llu/%llu bytes (mean %.0f; descriptors "
			   "%llu/%llu/%llu), a byte waited ~%.1f us (Little's law: mean / rate out)\n",
			(unsigned long long)r->ring_bytes.min, (unsigned long long)r->ring_bytes.median,
			(unsigned long long)r->ring_bytes.max, r->ring_bytes.mean,
			(unsigned long long)r->ring_descs.min, (unsigned long long)r->ring_descs.median,
			(unsigned long long)r->ring_descs.max, r->ring_wait_us);
	if (cfg->bql) {
		fprintf(f, "  BQL: final limit per queue (bytes):");
		for (unsigned q = 0; q < r->queues; q++)
			fprintf(f, " %u", r->queue_bql[q].limit);
		fputc('\n', f);
	}
	if (cfg->watchdog_ms)
		fprintf(f, "  watchdog (%u ms): %llu transmit timeouts\n", cfg->watchdog_ms,
			(unsigned long long)r->dev.tx_timeouts);
}

void report_json(struct json *j, const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	char verdict[128];

	json_obj_begin(j, NULL);
	json_str(j, "era", cfg->era);
	json_str(j, "lock", txp_lock_mode_name(cfg->lock));
	json_str(j, "runner", txp_runner_name(cfg->runner));
	json_str(j, "driver", cfg->driver->name);
	json_str(j, "personality", personality_name(cfg));
	json_str(j, "qdisc", cfg->qdisc->id);
	json_bool(j, "defer", cfg->defer != TXP_DEFER_OFF);
	json_bool(j, "defer_drainer", cfg->defer == TXP_DEFER_DRAIN);
	json_bool(j, "busylock", *busylock_shown(cfg->busylock, cfg->runner, cfg->qdisc, cfg->defer));
	json_u64(j, "threads", cfg->threads);
	json_u64(j, "ring", cfg->ring);
	json_u64(j, "frags_min", cfg->frags_min);
	json_u64(j, "frags_max", cfg->frags_max);
	json_u64(j, "burst", cfg->burst);
	json_u64(j, "bulk", cfg->bulk);
	dev_stats_json(j, &r->dev);
	json_u64(j, "lost", r->lost);
	json_u64(j, "duplicated", r->duplicated);
	json_u64(j, "reordered", r->drv.wire.reordered);
	json_u64(j, "ring_full_awake", r->drv.ring_full_awake);
	json_u64(j, "ring_full_stopped", r->drv.ring_full_stopped);
	json_u64(j, "ring_errors", r->drv.ring_errors);
	json_u64(j, "device_busy", r->drv.device_busy);
	json_str(j, "died", r->drv.link_down ? r->drv.died : NULL);
	json_dbl(j, "seconds", r->seconds);
	json_dbl(j, "mpps", r->mpps);
	json_bool(j, "stalled", r->stalled);
	json_bool(j, "wedged", r->wedged);	/* a thread never came back */
	stall_json(j, r);
	faults_json(j, cfg, r);
	queues_json(j, cfg, r);
	json_str(j, "interrupted", r->interrupted ? signals_name(r->interrupted) : NULL);
	json_bool(j, "accounted", r->accounted);
	json_bool(j, "validated", r->validated);
	json_arr_begin(j, "hazards");
	for (unsigned i = 0; r->validated && i < r->hazards; i++) {
		enum txp_hazard kind;
		const char *msg = txp_validator_report(i, &kind);

		json_obj_begin(j, NULL);
		json_str(j, "kind", txp_hazard_name(kind));
		json_str(j, "message", msg);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_str(j, "verdict", run_verdict(cfg, r, verdict, sizeof(verdict)));
	json_obj_end(j);
}

/* One line: each fault asked for and how often it was injected. */
static void faults_text(FILE *f, const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	const char *sep = "";

	if (!txp_fault_any(&cfg->faults))
		return;
	fprintf(f, "  faults injected (--seed %llu):", (unsigned long long)cfg->faults.seed);
	for (int k = 0; k < TXP_FAULT_NR; k++) {
		if (!cfg->faults.kind[k].on)
			continue;
		fprintf(f, "%s %s %llu", sep, txp_fault_name(k), (unsigned long long)r->faults[k]);
		sep = ",";
	}
	fputc('\n', f);
}

void report_text(FILE *f, const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	const struct txp_dev_stats *st = &r->dev;
	const char *personality = personality_name(cfg);
	char verdict[128];

	fprintf(f, "txpath run: era %s, lock %s, runner %s, driver %s%s%s, qdisc %s%s%s\n",
		cfg->era ? cfg->era : "(custom)", txp_lock_mode_name(cfg->lock),
		txp_runner_name(cfg->runner), cfg->driver->name, personality ? "/" : "",
		personality ? personality : "", cfg->qdisc->id, defer_shown(cfg->defer),
		busylock_shown(cfg->busylock, cfg->runner, cfg->qdisc, cfg->defer));
	fprintf(f, "  %u threads, ring %u, frags %u-%u, %.3f s, %.2f Mpps\n",
		cfg->threads, cfg->ring, cfg->frags_min, cfg->frags_max, r->seconds, r->mpps);
	fprintf(f, "  submitted %llu = transmitted %llu + dropped %llu%s\n",
		(unsigned long long)st->submitted, (unsigned long long)st->transmitted,
		(unsigned long long)r->dropped, r->accounted ? "" : "  MISMATCH");
	for (int i = 0; i < TXP_DROP_NR; i++)
		if (st->dropped[i])
			fprintf(f, "    dropped %-13s %llu\n", txp_drop_reason_name(i),
				(unsigned long long)st->dropped[i]);
	if (r->drv.wire_measured)
		fprintf(f, "  on the wire: lost %llu, duplicated %llu, reordered %llu\n",
			(unsigned long long)r->lost, (unsigned long long)r->duplicated,
			(unsigned long long)r->drv.wire.reordered);
	else
		fprintf(f, "  no wire watched here (on a real link txpath recv checks the far end); unaccounted %llu\n",
			(unsigned long long)r->lost);
	fprintf(f, "  start_xmit calls %llu, on a stopped queue %llu, BUG logs %llu\n",
		(unsigned long long)st->xmit_calls, (unsigned long long)st->xmit_on_stopped,
		(unsigned long long)st->bug_logs);
	fprintf(f, "  busy %llu, locked %llu, collisions %llu, requeues %llu, stops %llu, wakes %llu\n",
		(unsigned long long)st->tx_busy, (unsigned long long)st->tx_locked,
		(unsigned long long)st->collisions, (unsigned long long)st->requeues,
		(unsigned long long)st->stops, (unsigned long long)st->wakes);
	fprintf(f, "  ring full at entry: queue awake %llu, queue stopped %llu\n",
		(unsigned long long)r->drv.ring_full_awake,
		(unsigned long long)r->drv.ring_full_stopped);
	fprintf(f, "  device busy (backpressure) %llu, ring errors (impossible states) %llu\n",
		(unsigned long long)r->drv.device_busy, (unsigned long long)r->drv.ring_errors);
	if (r->drv.link_down && cfg->packets)
		fprintf(f, "  DEVICE DIED: %s; the producers stopped: %llu of %llu packets never submitted\n",
			r->drv.died, (unsigned long long)(cfg->packets - st->submitted),
			(unsigned long long)cfg->packets);
	else if (r->drv.link_down)
		fprintf(f, "  DEVICE DIED: %s; the producers stopped\n", r->drv.died);
	if (r->validated)
		fprintf(f, "  lock validator: %u report%s\n", r->hazards, r->hazards == 1 ? "" : "s");
	for (unsigned i = 0; r->validated && i < r->hazards; i++) {
		enum txp_hazard kind;
		const char *msg = txp_validator_report(i, &kind);

		fprintf(f, "    %s: %s\n", txp_hazard_name(kind), msg);
	}
	faults_text(f, cfg, r);
	queues_text(f, cfg, r);
	if (r->stalled)
		fprintf(f, "  STALLED: nothing moved for %g s on %s queue %u (%s, %llu packets past the qdisc (in the ring or a runner's batch), %llu queued in it); what was left was dropped as dev-down\n",
			cfg->stall_seconds, r->stall.dev, r->stall.queue,
			r->stall.stopped ? "stopped" : "awake",
			(unsigned long long)r->stall.in_ring, (unsigned long long)r->stall.in_qdisc);
	if (r->interrupted)
		fprintf(f, "  interrupted by %s: producers stopped; what had not gone out %d s later was dropped as interrupted\n",
			signals_name(r->interrupted), TXP_RUN_DRAIN_SECONDS);
	fprintf(f, "  verdict: %s\n", run_verdict(cfg, r, verdict, sizeof(verdict)));
}

void report_wedged_exit(const char *cmd, const struct txp_run_result *r, int status)
{
	fprintf(stderr, "txpath %s: a thread of the run never came back (a driver op that does "
		"not return, or a lock never released): the device was left as it was, what it "
		"held counted dropped as %s\n", cmd,
		r->interrupted && !r->stalled ? "interrupted" : "dev-down");
	fflush(stdout);
	fflush(stderr);
	_exit(status);
}
