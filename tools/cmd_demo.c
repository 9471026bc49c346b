/*
 * cmd_demo.c - `txpath demo`: the seeds' story in one table.  The same
 * workload under each era preset, one row each, with the counts that
 * matter and a verdict.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "signals.h"
#include "txpath/validator.h"

static const char demo_help[] =
"usage: txpath demo [options]\n"
"\n"
"Runs the same workload under each era preset (2.6.8, 2.6.9, silence,\n"
"2.6.11-rc2, 2.6.11, 2.6.18, 2.6.38, 3.3, 3.18, 6.x, and the lockless\n"
"qdisc's 5.1-nolock, 5.13-missed, 5.19-barrier, 6.18-draining, each with\n"
"its qdisc) and prints one row each: how often start_xmit\n"
"ran on a stopped queue (the LLTX race), how often the driver then found\n"
"its ring full, how many BUG lines it logged, whether anything was lost,\n"
"and a verdict.  The 2.6.11-rc2 design runs under the lock validator, once\n"
"with its driver and once with rc2-naive, a 2004 driver converted to it\n"
"carelessly: the hazards column counts what the validator reported (-: it\n"
"was off), and each row lists what it reported.\n"
"\n"
"An era is a lock, a runner and a driver of the simulated NIC (its\n"
"personality, the driver column).  With another --driver (null, or a real\n"
"one) only the lock and the runner are the era's: one row for each pair,\n"
"under the first era that has it (2.6.8, 2.6.9, 2.6.18), the driver column\n"
"names the driver, and no rc2 rows.  With --driver pcap every row writes a\n"
"file of its own: --file out.pcap gives out.2.6.8.pcap, out.2.6.9.pcap, ...\n"
"(so --file must name a regular file, or none yet; not -).\n"
"\n"
"The workload (change it with the same options as txpath run, except the\n"
"era, lock, runner, personality and qdisc, which are the rows):\n"
"  defaults: --threads 3 --packets 2000000 --ring 32 --frags 0-3 (sim)\n"
"  --validate              run every row under the lock validator\n"
"  --json                  print a JSON array of run objects\n"
"  --history [--json]      instead: the bug class through time, 2004-2025, one\n"
"                          row per chapter, its verdicts computed by txpath\n"
"                          check under sc and tso (see demo --history --help)\n"
"  -h, --help              this help\n"
"Each option at most once.  Every row's configuration is checked before\n"
"the first runs.\n"
"\n"
"Exit status: 0 when every row accounted for every packet, 1 otherwise\n"
"(or when a row's device died: the demo stops there), 2 on bad usage; 130\n"
"(SIGINT) or 143 (SIGTERM) when interrupted: the row under way stops as\n"
"txpath run does, and the demo ends after printing it.\n";

enum { OPT_JSON = 1000, OPT_HELP };

struct demo_row {
	struct txp_run_cfg cfg;
	char file[PATH_MAX];	/* pcap: the row's own --file */
};

static bool on_sim(const struct txp_run_cfg *cfg)
{
	return !strcmp(cfg->driver->name, "sim");
}

static void print_header(void)
{
	printf("%-13s %-5s %-11s %-11s %6s %11s %11s %10s %9s %5s %4s %7s  %s\n",
	       "era", "lock", "runner", "driver", "Mpps", "start_xmit", "on stopped",
	       "ring full", "BUG logs", "lost", "dup", "hazards", "verdict");
}

static void print_row(const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	char verdict[128], hazards[16] = "-";

	if (r->validated)
		snprintf(hazards, sizeof(hazards), "%u", r->hazards);
	printf("%-13s %-5s %-11s %-11s %6.2f %11llu %11llu %10llu %9llu %5llu %4llu %7s  %s\n",
	       cfg->era, txp_lock_mode_name(cfg->lock), txp_runner_name(cfg->runner),
	       on_sim(cfg) ? cfg->personality->name : cfg->driver->name, r->mpps,
	       (unsigned long long)r->dev.xmit_calls,
	       (unsigned long long)r->dev.xmit_on_stopped,
	       (unsigned long long)(r->drv.ring_full_awake + r->drv.ring_full_stopped),
	       (unsigned long long)r->dev.bug_logs,
	       (unsigned long long)r->lost, (unsigned long long)r->duplicated, hazards,
	       run_verdict(cfg, r, verdict, sizeof(verdict)));
}

/* The validator's reports of the row just printed, one line each. */
static void print_hazards(const struct txp_run_result *r)
{
	for (unsigned i = 0; r->validated && i < r->hazards; i++) {
		enum txp_hazard kind;
		const char *msg = txp_validator_report(i, &kind);

		printf("%15s %s: %s\n", "", txp_hazard_name(kind), msg);
	}
}

/* One row: run cfg and print it, with what the validator reported.
 * False if it could not run, its device died or stdout failed (the demo
 * stops); *all_ok cleared if it lost a packet, or stalled where its
 * era does not. */
static bool demo_row(const struct txp_run_cfg *cfg, bool json, struct json *j, bool *all_ok)
{
	struct txp_run_result r;
	char err[256];

	if (txp_run(cfg, &r, err, sizeof(err)) != 0) {
		fprintf(stderr, "txpath demo: %s: %s\n", cfg->era, err);
		return false;
	}
	if (json) {
		report_json(j, cfg, &r);
	} else {
		print_row(cfg, &r);
		print_hazards(&r);
	}
	*all_ok &= run_ok(&r) || run_stall_is_the_era(cfg, &r);
	if (r.wedged)	/* its threads still run: no next row beside them */
		report_wedged_exit("demo", &r, signals_status(1));
	return flush_stdout() && !report_dev_died("demo", cfg, &r);
}

/* file with the era before its extension: out.pcap -> out.2.6.9.pcap
 * (no extension: out -> out.2.6.9). */
static void row_file(char *dst, size_t len, const char *file, const char *era)
{
	const char *slash = strrchr(file, '/');
	const char *base = slash ? slash + 1 : file;
	const char *dot = strrchr(base, '.');

	if (!dot || dot == base)
		dot = base + strlen(base);
	if (snprintf(dst, len, "%.*s.%s%s", (int)(dot - file), file, era, dot) >= (int)len)
		usage_error("demo", "--file is too long: '%s'", file);
}

/* Each row writes a file of its own, next to the one named: standard
 * output (-, which run takes) cannot hold them (its rows would be files
 * named -.2.6.8 here), and a device or a pipe (/dev/null, /dev/full) has
 * no "next to". */
static void check_file(const char *file)
{
	struct stat st;

	if (file && !strcmp(file, "-"))
		usage_error("demo", "--file - (standard output) cannot hold a capture per row: "
			    "give a path, FILE.pcap, and each row writes FILE.<era>.pcap");
	if (file && stat(file, &st) == 0 && !S_ISREG(st.st_mode))
		usage_error("demo", "--file %s is not a regular file: each row writes a file "
			    "of its own, FILE.<era>.pcap", file);
}

/* Has a row of rows[0..n) the lock, runner and qdisc of cfg? */
static bool same_path(const struct demo_row *rows, size_t n, const struct txp_run_cfg *cfg)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].cfg.lock == cfg->lock && rows[i].cfg.runner == cfg->runner &&
		    rows[i].cfg.qdisc == cfg->qdisc)
			return true;
	return false;
}

static void add_row(struct demo_row *rows, size_t *n, const struct txp_run_cfg *cfg)
{
	struct demo_row *row = &rows[(*n)++];

	row->cfg = *cfg;
	if (cfg->net.file) {
		row_file(row->file, sizeof(row->file), cfg->net.file, cfg->era);
		row->cfg.net.file = row->file;
	}
}

/* The rows of the demo on base's workload (see the help), *n of them:
 * one per era at most, and rc2-naive.  NULL if out of memory. */
static struct demo_row *demo_rows(const struct txp_run_cfg *base, size_t *n)
{
	size_t eras = 0;
	struct demo_row *rows;

	while (txp_eras[eras].name)
		eras++;
	rows = calloc(eras + 1, sizeof(*rows));
	*n = 0;
	for (const struct txp_era *e = txp_eras; rows && e->name; e++) {
		struct txp_run_cfg cfg = *base;
		/* The design whose hazards the validator knows. */
		bool rc2 = !strcmp(e->name, "2.6.11-rc2");

		txp_run_cfg_era(&cfg, e->name);
		if (!on_sim(&cfg)) {
			/* The real drivers have one queue, no BQL and no
			 * watchdog yet: their path is the era's locks. */
			cfg.queues = 1;
			cfg.bql = false;
			cfg.watchdog_ms = 0;
			if (!same_path(rows, *n, &cfg))
				add_row(rows, n, &cfg);
			continue;
		}
		cfg.validate |= rc2;
		add_row(rows, n, &cfg);
		if (rc2) {
			/* The same design, its driver converted carelessly. */
			cfg.personality = txp_sim_personality("rc2-naive");
			add_row(rows, n, &cfg);
		}
	}
	return rows;
}

static bool is_row_knob(const char *name)
{
	return !strcmp(name, "era") || !strcmp(name, "lock") || !strcmp(name, "runner") ||
	       !strcmp(name, "personality") || !strcmp(name, "qdisc");
}

/* The run knobs minus those the rows set, plus --json and --help. */
static void demo_options(struct option *opts)
{
	size_t n = 0;

	for (size_t i = 0; run_knob_options[i].name; i++)
		if (!is_row_knob(run_knob_options[i].name))
			opts[n++] = run_knob_options[i];
	opts[n++] = (struct option){ "json", no_argument, NULL, OPT_JSON };
	opts[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	opts[n] = (struct option){ NULL, 0, NULL, 0 };
}

static void print_title(const struct txp_run_cfg *base)
{
	char files[PATH_MAX];

	printf("txpath demo: ");
	if (!on_sim(base))
		printf("driver %s, ", base->driver->name);
	printf("%u threads, %llu packets per row, ring %u", base->threads,
	       (unsigned long long)base->packets, base->ring);
	if (on_sim(base))
		printf(", frags %u-%u", base->frags_min, base->frags_max);
	if (base->net.file) {
		row_file(files, sizeof(files), base->net.file, "<era>");
		printf(", files %s", files);
	}
	printf("\n\n");
}

/* Is --history among the options? */
static bool wants_history(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--history"))
			return true;
	return false;
}

int cmd_demo(int argc, char **argv)
{
	struct option opts[48];
	struct cmdline cl;
	struct txp_run_cfg base;
	struct demo_row *rows;
	bool json = false, ok = true, ran = true;
	char err[256];
	struct json j;
	size_t nrows;
	int c;

	/* The explorer lives in the check build. */
	if (wants_history(argc, argv))
#ifdef TXP_WITH_CHECK
		return demo_history(argc, argv);
#else
		return exec_check_build(argc, argv);
#endif
	demo_options(opts);
	txp_run_cfg_init(&base);
	base.threads = 3;
	base.packets = 2000000;
	base.ring = 32;
	base.frags_min = 0;
	base.frags_max = 3;
	cmdline_init(&cl, "demo", opts);
	while ((c = cmdline_next(&cl, argc, argv)) != -1) {
		if (parse_run_knob(&cl, c, optarg, &base))
			continue;
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case 'h':
		case OPT_HELP:
			fputs(demo_help, stdout);
			return 0;
		}
	}
	check_run_knobs(&cl, &base);
	check_file(base.net.file);
	if (!on_sim(&base))
		base.frags_min = base.frags_max = 0;	/* the sim's default */
	base.stop = signals_catch();

	rows = demo_rows(&base, &nrows);
	if (!rows) {
		fprintf(stderr, "txpath demo: out of memory\n");
		return 1;
	}
	/* Every row must be able to run before anything is printed. */
	for (size_t i = 0; i < nrows; i++)
		if (!txp_run_cfg_check(&rows[i].cfg, err, sizeof(err)))
			usage_error("demo", "%s", err);

	if (json) {
		json_init(&j, stdout);
		json_arr_begin(&j, NULL);
	} else {
		print_title(&base);
		print_header();
	}
	for (size_t i = 0; i < nrows && ran && !signals_caught(); i++)
		ran = demo_row(&rows[i].cfg, json, &j, &ok);
	if (json && ran) {
		json_arr_end(&j);
		json_finish(&j);
	} else if (!json && signals_caught()) {
		printf("\ninterrupted by %s: the rows after the last one above were not run\n",
		       signals_name(signals_caught()));
	}
	free(rows);
	return signals_status(ran && ok ? 0 : 1);
}
