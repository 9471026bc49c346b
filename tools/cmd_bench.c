/*
 * cmd_bench.c - `txpath bench`: the transmit path against a mutex (per
 * packet and per burst), a Concurrency Kit ring and DPDK's rte_ring, in one
 * process, every case in the same bursts; a table (or JSON), the costs of
 * LLTX and of the exclusive runner as ratios, and a chart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "cli.h"
#include "signals.h"

static const char bench_help[] =
"usage: txpath bench [options]\n"
"\n"
"Measures, one after another in this process, packets per second through\n"
"txpath (each lock mode x runner: core/concurrent, lltx/concurrent,\n"
"core/exclusive, lltx/exclusive) on the null driver and on the simulated NIC\n"
"at unlimited line rate (tg3-2005); on the null driver also a queue per\n"
"producer (core/excl/mq, 6.x: with BQL and the busylock, as --era 6.x),\n"
"core/exclusive with the qdisc busylock of 2.6.36 to 6.17 (core/excl/busy),\n"
"6.18's defer list (core/excl/defer), txpath's drainer, not Linux's\n"
"(core/excl/drain: --defer drain), the lockless qdisc (core/nolock), and\n"
"no qdisc, as software devices have it (core/noqueue, lltx/noqueue: the\n"
"driver called at once; the targets below keep them apart from the queued\n"
"paths); and baselines on the same null driver:\n"
"  mutex        a pthread mutex around \"queue the packet and call the\n"
"               driver\", taken once per packet\n"
"  mutex-burst  the same mutex taken once around a whole burst, as txpath\n"
"               takes its root lock once per txp_xmit_burst()\n"
"  ckring       a Concurrency Kit multi-producer ring (a slot per packet)\n"
"               feeding one transmit thread\n"
"  rte_ring     DPDK's multi-producer ring (a burst's slots at once) feeding\n"
"               one transmit thread; absent when built without DPDK\n"
"for 1..N producer threads.  Every producer hands over bursts of --burst\n"
"packets, and whoever calls the driver rings its doorbell at least every\n"
"--bulk packets.  Each case runs several times, interleaved with the\n"
"others; the table gives the median, nanoseconds per packet (wall clock,\n"
"all threads together), the ratio to mutex-burst (the same batching as\n"
"txpath's) at the same thread count, the spread ((max - min) / median), and\n"
"the CPU time the process used per packet (every thread, spinning\n"
"included): on a machine shared with other work the wall-clock figures move\n"
"with the CPUs it leaves, the CPU cost much less.\n"
"\n"
"  --threads N      up to N producers (default: the CPUs, here %ld)\n"
"  --reps N         runs of each case (default 5)\n"
"  --seconds S      length of one run (default 0.25)\n"
"  --burst N        packets per txp_xmit_burst() and per pool allocation,\n"
"                   1..%d (default 32), for every case alike\n"
"  --bulk N         packets qdisc_restart() sends per batch, and the baselines\n"
"                   per doorbell, 1..%d (default 32)\n"
"  --busylock on|off\n"
"                   the qdisc busylock on every txpath row that can take it\n"
"                   (a root-locked qdisc, the exclusive runner, no defer\n"
"                   list), or on none (default: core/excl/busy and 6.x only)\n"
"  --no-sim         leave out the simulated NIC\n"
"  --driver-so PATH also a driver plugin (docs/checking-your-driver.md), in\n"
"                   the configurations of its lock mode, ring 512, as driver\n"
"                   \"plugin\"; with the simulated NIC, plugin/sim ratios too:\n"
"                   examples/drivers/tg3_lltx.c -DMILLER_RULE is tg3-2005\n"
"  --driver-arg K=V[,K=V]  its knobs\n"
"  --quick          a smoke run: 2 threads at most, 1 run of 0.02 s each\n"
"                   (--threads, --reps, --seconds override it)\n"
"  --json           print {\"rows\": [...], \"ratios\": [...]} instead of the table\n"
"  --svg FILE       draw Mpps against threads, a line per configuration\n"
"  -h, --help       this help\n"
"Each option at most once: a repeat is an error, not an override.\n"
"\n"
"Exit status: 0, or 1 when a case did not account for every packet or\n"
"could not run, or the chart could not be written, 2 on bad usage; 130\n"
"(SIGINT) or 143 (SIGTERM) when interrupted: the run under way is dropped,\n"
"and the rows are printed over the runs they finished (rows that finished\n"
"none are left out; a ratio to one of those says 'not run', and is left out\n"
"of --json's ratios).\n";

enum { OPT_THREADS = 1000, OPT_REPS, OPT_SECONDS, OPT_BURST, OPT_BULK, OPT_BUSYLOCK, OPT_NO_SIM,
       OPT_QUICK, OPT_JSON, OPT_SVG, OPT_HELP };

static const struct option bench_options[] = {
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "seconds", required_argument, NULL, OPT_SECONDS },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "bulk", required_argument, NULL, OPT_BULK },
	{ "busylock", required_argument, NULL, OPT_BUSYLOCK },
	{ "no-sim", no_argument, NULL, OPT_NO_SIM },
	DRIVER_SO_OPTIONS,
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void show_progress(unsigned done, unsigned total, void *arg)
{
	(void)arg;
	fprintf(stderr, "\r\033[K  run %u/%u", done, total);
	fflush(stderr);
}

static const struct bench_row *find(const struct bench_row *rows, size_t n, const char *config,
				    const char *driver, unsigned threads)
{
	for (size_t i = 0; i < n; i++)
		if (!rows[i].skipped && rows[i].threads == threads &&
		    !strcmp(rows[i].config, config) && !strcmp(rows[i].driver, driver))
			return &rows[i];
	return NULL;
}

/* a's median over b's into *v; false when either did not run (skipped,
 * or never reached before an interruption). */
static bool ratio(const struct bench_row *rows, size_t n, const char *a, const char *b,
		  const char *driver, unsigned threads, double *v)
{
	const struct bench_row *x = find(rows, n, a, driver, threads);
	const struct bench_row *y = find(rows, n, b, driver, threads);

	if (!x || !y || y->mpps <= 0)
		return false;
	*v = x->mpps / y->mpps;
	return true;
}

/* NOT_RUN: what the table prints for a ratio whose cases did not run. */
#define NOT_RUN "not run"

/* The article's claims as ratios: what LLTX saves over the core's xmit
 * lock, and what the exclusive runner costs over the concurrent one. */
static const struct {
	const char *name, *a, *b;
} ratio_defs[] = {
	{ "lltx/core, concurrent", "lltx/concurrent", "core/concurrent" },
	{ "lltx/core, exclusive", "lltx/exclusive", "core/exclusive" },
	{ "exclusive/concurrent, core", "core/exclusive", "core/concurrent" },
	{ "exclusive/concurrent, lltx", "lltx/exclusive", "lltx/concurrent" },
	/* What a queue per producer buys: the scaling of Linux 2.6.38. */
	{ "N queues/1 queue, core excl", "core/excl/mq", "core/exclusive" },
};
#define NRATIOS (sizeof(ratio_defs) / sizeof(ratio_defs[0]))

static const char *const drivers[] = { "null", "sim" };

/* The plugin against the simulated NIC, configuration by configuration:
 * what building a driver as a plugin costs, when it is the same driver. */
static void print_plugin_ratios(const struct bench_cfg *cfg, const struct bench_row *rows, size_t n)
{
	if (!cfg->plugin || !cfg->sim)
		return;
	printf("\nthe plugin against the simulated NIC (above 1: the plugin is faster)\n");
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *p = &rows[i], *s;

		if (p->skipped || strcmp(p->driver, "plugin"))
			continue;
		s = find(rows, n, p->config, "sim", p->threads);
		if (!s || s->mpps <= 0) {
			printf("plugin/sim, %-16s %7u %7s\n", p->config, p->threads, NOT_RUN);
			continue;
		}
		printf("plugin/sim, %-16s %7u %7.2f   CPU ns/pkt %.1f vs %.1f\n", p->config, p->threads,
		       p->mpps / s->mpps, p->cpu_ns_per_packet, s->cpu_ns_per_packet);
	}
}

static void print_table(const struct bench_cfg *cfg, const struct bench_row *rows, size_t n)
{
	printf("txpath bench: %u run%s of %.3g s per case, %ld CPUs; every case in bursts of %u, "
	       "a doorbell at least every %u (bulk)\n", cfg->reps, cfg->reps > 1 ? "s" : "",
	       cfg->seconds, sysconf(_SC_NPROCESSORS_ONLN), cfg->burst, cfg->bulk);
	printf("%-16s %-6s %7s %9s %9s %14s %8s %11s\n", "config", "driver", "threads",
	       "Mpps", "ns/pkt", "vs mutex-burst", "spread", "CPU ns/pkt");
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];

		if (i && r->threads != rows[i - 1].threads)
			putchar('\n');
		if (r->skipped) {
			printf("%-16s %-6s %7u  skipped: %s\n", r->config, r->driver, r->threads, r->note);
			continue;
		}
		printf("%-16s %-6s %7u %9.2f %9.1f ", r->config, r->driver, r->threads, r->mpps,
		       r->ns_per_packet);
		/* < 0: mutex-burst did not run at this thread count. */
		if (r->ratio_vs_mutex_burst >= 0)
			printf("%13.2fx", r->ratio_vs_mutex_burst);
		else
			printf("%14s", NOT_RUN);
		printf(" %7.1f%% %11.1f%s\n", 100 * r->spread, r->cpu_ns_per_packet,
		       r->accounted ? "" : "  NOT ACCOUNTED");
	}
	printf("\ncosts as ratios of medians (above 1: the first is faster)\n");
	printf("%-28s %-6s %7s %7s\n", "ratio", "driver", "threads", "value");
	for (size_t k = 0; k < NRATIOS; k++)
		for (size_t d = 0; d < (cfg->sim ? 2 : 1); d++)
			for (unsigned t = 1; t <= cfg->max_threads; t++) {
				double v;

				printf("%-28s %-6s %7u ", ratio_defs[k].name, drivers[d], t);
				if (ratio(rows, n, ratio_defs[k].a, ratio_defs[k].b, drivers[d], t, &v))
					printf("%7.2f\n", v);
				else
					printf("%7s\n", NOT_RUN);
			}
	print_plugin_ratios(cfg, rows, n);
}

/* Is row r one of txpath's on the null driver with one queue for all its
 * producers (the "mq" and "6.x" configurations have one per producer)? */
static bool one_queue(const struct bench_row *r)
{
	return r->kind == BENCH_TXPATH && !strcmp(r->driver, "null") && r->queues <= 1;
}

/* A row with no qdisc (noqueue): nothing queued, so no queued path's
 * target; its own line. */
static bool no_qdisc(const struct bench_row *r)
{
	return r->qdisc == &txp_noqueue_ops;
}

/* The fastest txpath row on the null driver at a thread count whose
 * config starts with prefix ("" for any), on one queue or a queue per
 * producer, with a qdisc (queued) or without; NULL if none ran. */
static const struct bench_row *best_txpath(const struct bench_row *rows, size_t n, unsigned threads,
					   const char *prefix, bool shared, bool queued)
{
	const struct bench_row *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];

		if (r->skipped || r->kind != BENCH_TXPATH || r->threads != threads ||
		    strcmp(r->driver, "null") || one_queue(r) != shared || no_qdisc(r) == queued ||
		    strncmp(r->config, prefix, strlen(prefix)))
			continue;
		if (!best || r->mpps > best->mpps)
			best = r;
	}
	return best;
}

/* One line of the targets: row against mutex and mutex-burst at its
 * thread count, with the goal (NULL: none). */
static void print_target(const char *what, const struct bench_row *r, const struct bench_row *rows,
			 size_t n, const char *goal)
{
	const struct bench_row *m, *mb;

	if (!r)
		return;
	m = find(rows, n, "mutex", "null", r->threads);
	mb = find(rows, n, "mutex-burst", "null", r->threads);
	printf("  %-34s %-16s %7.2f Mpps", what, r->config, r->mpps);
	if (m && m->mpps > 0)
		printf(" %5.2fx mutex", r->mpps / m->mpps);
	if (mb && mb->mpps > 0)
		printf(" %5.2fx mutex-burst", r->mpps / mb->mpps);
	if (goal)
		printf("  (goal %s)", goal);
	printf("\n");
}

/* Issue 27's goals, as ratios within this run: one at a time (--burst 1)
 * against mutex, in bursts against mutex-burst (the same batching). */
static void print_targets(const struct bench_row *rows, size_t n, unsigned max_threads,
			  unsigned burst)
{
	const char *base = burst == 1 ? "mutex" : "mutex-burst";
	char goal[64], most[64];
	const struct bench_row *ck = find(rows, n, "ckring", "null", 2);
	const struct bench_row *rte = find(rows, n, "rte_ring", "null", 2);
	const struct bench_row *two = best_txpath(rows, n, 2, "", true, true);

	snprintf(goal, sizeof(goal), ">= 1.0x %s", base);
	snprintf(most, sizeof(most), ">= 0.8x %s", base);
	printf("\ntargets (bursts of %u: against %s)\n", burst, base);
	print_target("1 producer, best", best_txpath(rows, n, 1, "", true, true), rows, n, goal);
	print_target("1 producer, no qdisc (no goal)", best_txpath(rows, n, 1, "", true, false),
		     rows, n, NULL);
	if (max_threads < 2)
		return;
	print_target("2 producers, no qdisc (no goal)", best_txpath(rows, n, 2, "", true, false),
		     rows, n, NULL);
	print_target("2 producers, one queue, best", two, rows, n, goal);
	print_target("2 producers, one queue, core lock", best_txpath(rows, n, 2, "core/", true, true),
		     rows, n, most);
	print_target("2 producers, one queue, busylock", find(rows, n, "core/excl/busy", "null", 2),
		     rows, n, most);
	print_target("2 producers, one queue, defer list", find(rows, n, "core/excl/defer", "null", 2),
		     rows, n, most);
	print_target("2 producers, one queue, drainer", find(rows, n, "core/excl/drain", "null", 2),
		     rows, n, most);
	snprintf(goal, sizeof(goal), ">= 2.5x %s", base);
	print_target("2 producers, a queue each", best_txpath(rows, n, 2, "", false, true), rows, n, goal);
	if (two && ck && ck->mpps > 0)
		printf("  2 producers, one queue, best: %.2fx ckring\n", two->mpps / ck->mpps);
	if (two && rte && rte->mpps > 0)
		printf("  2 producers, one queue, best: %.2fx rte_ring\n", two->mpps / rte->mpps);
}

static void print_json(const struct bench_cfg *cfg, const struct bench_row *rows, size_t n)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_arr_begin(&j, "rows");
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];

		if (r->skipped)
			continue;
		json_obj_begin(&j, NULL);
		json_str(&j, "config", r->config);
		json_str(&j, "driver", r->driver);
		json_u64(&j, "threads", r->threads);
		json_dbl(&j, "mpps", r->mpps);
		json_dbl(&j, "ns_per_packet", r->ns_per_packet);
		if (r->ratio_vs_mutex_burst >= 0)
			json_dbl(&j, "ratio_vs_mutex_burst", r->ratio_vs_mutex_burst);
		else
			json_str(&j, "ratio_vs_mutex_burst", NULL);	/* mutex-burst did not run */
		json_dbl(&j, "spread", r->spread);
		json_dbl(&j, "cpu_ns_per_packet", r->cpu_ns_per_packet);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "ratios");
	for (size_t k = 0; k < NRATIOS; k++)
		for (size_t d = 0; d < (cfg->sim ? 2 : 1); d++)
			for (unsigned t = 1; t <= cfg->max_threads; t++) {
				double v;

				/* A ratio whose cases did not run is left out. */
				if (!ratio(rows, n, ratio_defs[k].a, ratio_defs[k].b, drivers[d], t, &v))
					continue;
				json_obj_begin(&j, NULL);
				json_str(&j, "ratio", ratio_defs[k].name);
				json_str(&j, "driver", drivers[d]);
				json_u64(&j, "threads", t);
				json_dbl(&j, "value", v);
				json_obj_end(&j);
			}
	json_arr_end(&j);
	json_str(&j, "interrupted", signals_caught() ? signals_name(signals_caught()) : NULL);
	json_obj_end(&j);
	json_finish(&j);
}

/* The chart into f (open on path); false, and one line on stderr, if
 * it could not all be written. */
static bool write_svg(FILE *f, const char *path, const struct bench_cfg *cfg,
		      const struct bench_row *rows, size_t n)
{
	int err;

	bench_svg(f, cfg, rows, n);
	err = close_output(f);
	if (err)
		fprintf(stderr, "txpath bench: %s: write error: %s\n", path, strerror(err));
	return !err;
}

int cmd_bench(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct bench_cfg cfg = {
		.max_threads = cpus > 0 ? (unsigned)cpus : 1,
		.reps = 5, .seconds = 0.25, .burst = 32, .bulk = 32, .sim = true, .busylock = -1,
	};
	bool json = false, quick = false, ok = true;
	const char *svg = NULL;
	struct driver_so so = { 0 };
	FILE *svg_file = NULL;
	struct bench_row *rows;
	struct cmdline cl;
	char err[256];
	size_t n = 0;
	int c;

	cmdline_init(&cl, "bench", bench_options);
	while ((c = cmdline_next(&cl, argc, argv)) != -1) {
		if (driver_so_option(&so, c, optarg))
			continue;
		switch (c) {
		case OPT_THREADS:
			cfg.max_threads = (unsigned)parse_u64("bench", "--threads", optarg, 1,
							      TXP_MAX_CTX - 2);
			break;
		case OPT_REPS:
			cfg.reps = (unsigned)parse_u64("bench", "--reps", optarg, 1, 1000);
			break;
		case OPT_SECONDS:
			cfg.seconds = parse_seconds("bench", "--seconds", optarg);
			break;
		case OPT_BURST:
			cfg.burst = (unsigned)parse_u64("bench", "--burst", optarg, 1, BENCH_BURST_MAX);
			break;
		case OPT_BULK:
			cfg.bulk = (unsigned)parse_u64("bench", "--bulk", optarg, 1, TXP_DEV_BULK_MAX);
			break;
		case OPT_BUSYLOCK:
			cfg.busylock = parse_on_off("bench", "--busylock", optarg);
			break;
		case OPT_NO_SIM:
			cfg.sim = false;
			break;
		case OPT_QUICK:
			quick = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case 'h':
		case OPT_HELP:
			printf(bench_help, cpus, BENCH_BURST_MAX, TXP_DEV_BULK_MAX);
			return 0;
		}
	}
	cfg.plugin = driver_so_load("bench", &so);
	/* --quick is a preset: --threads, --reps and --seconds override it. */
	if (quick && !cmdline_given(&cl, OPT_REPS))
		cfg.reps = 1;
	if (quick && !cmdline_given(&cl, OPT_SECONDS))
		cfg.seconds = 0.02;
	if (quick && !cmdline_given(&cl, OPT_THREADS) && cfg.max_threads > 2)
		cfg.max_threads = 2;

	/* Before the runs: a chart that cannot be written fails at once. */
	if (svg && !(svg_file = fopen(svg, "w"))) {
		fprintf(stderr, "txpath bench: cannot write %s: %s\n", svg, strerror(errno));
		return 1;
	}
	cfg.stop = signals_catch();
	rows = bench_rows(&cfg, &n);
	if (!rows || bench_run(&cfg, rows, &n, isatty(STDERR_FILENO) ? show_progress : NULL,
			       NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "\ntxpath bench: %s\n", rows ? err : "out of memory");
		if (svg_file)
			fclose(svg_file);
		bench_rows_free(rows, n);
		return 1;
	}
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	for (size_t i = 0; i < n; i++)
		ok &= rows[i].skipped || rows[i].accounted;
	if (json) {
		print_json(&cfg, rows, n);
	} else {
		print_table(&cfg, rows, n);
		print_targets(rows, n, cfg.max_threads, cfg.burst);
	}
	if (signals_caught() && !json)
		printf("\ninterrupted by %s: each row is over the runs it finished\n",
		       signals_name(signals_caught()));
	if (svg_file && !write_svg(svg_file, svg, &cfg, rows, n))
		ok = false;
	else if (svg_file && !json)
		printf("\nchart: %s\n", svg);
	bench_rows_free(rows, n);
	return signals_status(ok ? 0 : 1);
}
