/*
 * cmd_demo.c - `txpath demo`: the seeds' story in one table.  The same
 * workload under each era preset, one row each, with the counts that
 * matter and a verdict.
 */
#include <string.h>

#include "cli.h"
#include "txpath/check.h"

static const char demo_help[] =
"usage: txpath demo [options]\n"
"\n"
"Runs the same workload under each era preset (2.6.8, 2.6.9, silence,\n"
"2.6.11-rc2, 2.6.11, 2.6.18) and prints one row each: how often start_xmit\n"
"ran on a stopped queue (the LLTX race), how often the driver then found\n"
"its ring full, how many BUG lines it logged, whether anything was lost,\n"
"and a verdict.  The 2.6.11-rc2 design runs under the lock validator, once\n"
"with its driver and once with rc2-naive, a 2004 driver converted to it\n"
"carelessly: the hazards column counts what the validator reported (-: it\n"
"was off), and each row lists what it reported.\n"
"\n"
"The workload (change it with the same options as txpath run, except the\n"
"era, lock, runner and personality, which are the rows):\n"
"  defaults: --threads 3 --packets 2000000 --ring 32 --frags 0-3\n"
"  --validate              run every row under the lock validator\n"
"  --json                  print a JSON array of run objects\n"
"  -h, --help              this help\n"
"\n"
"Exit status: 0 when every row accounted for every packet, 1 otherwise.\n";

enum { OPT_JSON = 1000, OPT_HELP };

static void print_header(void)
{
	printf("%-11s %-5s %-11s %-11s %6s %11s %11s %10s %9s %5s %4s %7s  %s\n",
	       "era", "lock", "runner", "driver", "Mpps", "start_xmit", "on stopped",
	       "ring full", "BUG logs", "lost", "dup", "hazards", "verdict");
}

static void print_row(const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	char verdict[128], hazards[16] = "-";

	if (r->validated)
		snprintf(hazards, sizeof(hazards), "%u", r->hazards);
	printf("%-11s %-5s %-11s %-11s %6.2f %11llu %11llu %10llu %9llu %5llu %4llu %7s  %s\n",
	       cfg->era, txp_lock_mode_name(cfg->lock), txp_runner_name(cfg->runner),
	       cfg->personality->name, r->mpps, (unsigned long long)r->dev.xmit_calls,
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

		printf("%13s %s: %s\n", "", txp_hazard_name(kind), msg);
	}
}

/* One row: run cfg and print it, with what the validator reported.
 * False if it could not run or stdout failed (the demo stops); *all_ok
 * cleared if it lost a packet. */
static bool demo_row(const struct txp_run_cfg *cfg, bool json, struct json *j, bool *all_ok)
{
	struct txp_run_result r;
	char err[256];

	if (!txp_run_cfg_check(cfg, err, sizeof(err)))
		usage_error("demo", "%s", err);
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
	*all_ok &= run_ok(&r);
	return flush_stdout();
}

static bool is_row_knob(const char *name)
{
	return !strcmp(name, "era") || !strcmp(name, "lock") || !strcmp(name, "runner") ||
	       !strcmp(name, "personality");
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

int cmd_demo(int argc, char **argv)
{
	struct option opts[48];
	struct cmdline cl;
	struct txp_run_cfg base;
	bool json = false, all_ok = true;
	struct json j;
	int c;

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

	if (json) {
		json_init(&j, stdout);
		json_arr_begin(&j, NULL);
	} else {
		printf("txpath demo: %u threads, %llu packets per row, ring %u, frags %u-%u\n\n",
		       base.threads, (unsigned long long)base.packets, base.ring,
		       base.frags_min, base.frags_max);
		print_header();
	}
	for (const struct txp_era *e = txp_eras; e->name; e++) {
		struct txp_run_cfg cfg = base;
		/* The design whose hazards the validator knows. */
		bool rc2 = !strcmp(e->name, "2.6.11-rc2");

		txp_run_cfg_era(&cfg, e->name);
		cfg.validate |= rc2;
		if (!demo_row(&cfg, json, &j, &all_ok))
			return 1;
		if (rc2) {
			/* The same design, its driver converted carelessly. */
			cfg.personality = txp_sim_personality("rc2-naive");
			if (!demo_row(&cfg, json, &j, &all_ok))
				return 1;
		}
	}
	if (json) {
		json_arr_end(&j);
		json_finish(&j);
	}
	return all_ok ? 0 : 1;
}
