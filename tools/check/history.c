/*
 * history.c - `txpath demo --history`: the bug class of the seeds (a
 * transmit path that assumed an order nothing enforced) through time,
 * one row per chapter, 2004-2025.  Each row is a scenario in txpath
 * check's options; its verdicts under sc, tso and arm, and so the memory
 * model it needs, are computed now, by the explorer on the real code,
 * never written down.  Built only into
 * txpath-check (`txpath demo --history` runs it).
 */
#include <string.h>

#include "../cli.h"
#include "../signals.h"
#include "check/explore.h"

static const char history_help[] =
"usage: txpath demo --history [--json]\n"
"\n"
"The bug class of the seeds through time: each row a chapter (its year,\n"
"what changed) and a scenario, explored by txpath check on the real code\n"
"under the memory models sc, tso and arm, every schedule with at most the\n"
"row's bound of preemptions (2, or 3), the same bound under each model;\n"
"for the stop helper's missing barrier, where the bound proves it, 20000\n"
"random schedules more past the bound.  A verdict is \"found KIND,\n"
"N preemptions\" (the first violation; \"random\": by the random\n"
"schedules) or \"proven\" (none within the bound).  \"needs\" is the memory model the row's bug needs:\n"
"the first of sc, tso, arm (each weaker than the one before) under which\n"
"it is found, or \"-\" when it is proven under all three.  \"race\" is the\n"
"first under which the seeds' race was reached, start_xmit running on a\n"
"stopped queue, whether or not a property broke (the silenced row: proven,\n"
"the race reached); \"no\" when it was unreachable under all three, \"?\"\n"
"when every search that missed it stopped at a bug first.  Rows whose era\n"
"or personality this build lacks are left out.  Below the table, each\n"
"row's scenario as txpath check options, to run or replay it.\n"
"\n"
"  --json                  a JSON array, one object per row\n"
"  -h, --help              this help\n"
"\n"
"Exit status: 0 when every row was explored, 1 when one could not be, 2\n"
"on bad usage, 130 or 143 when interrupted (the rows so far are printed).\n";

/* veth's scenario (test_veth.c): the modern qdisc's one runner, the
 * core's xmit lock, 2 producers x 2 packets into a ring of 3. */
#define VETH(p) "--personality " p " --lock core --runner exclusive"

/* A chapter: when, what, and its scenario as txpath check's options
 * (without --memory-model or --bound).  One line each.  runs: where the
 * bounded search proves the row under a model, so many random schedules
 * more (--random --seed 1), for a bug whose preemptions are past the
 * bound; 0: none. */
struct history_row {
	const char *year, *what, *check;
	unsigned bound;
	unsigned runs;
};

static const struct history_row history[] = {
	{ "2004", "NETIF_F_LLTX: tg3's false BUG (Roland Dreier)", "--era 2.6.9", 2, 0 },
	{ "2004", "the message silenced, the race kept", "--era silence", 2, 0 },
	{ "2005", "2.6.11-rc2: the xmit lock guards the driver", "--era 2.6.11-rc2", 2, 0 },
	{ "2005", "2.6.11: Miller's rule, full and stopped is BUSY", "--era 2.6.11", 2, 0 },
	{ "2006", "2.6.18: one context runs a queue", "--era 2.6.18", 2, 0 },
	{ "2006", "tg3 leaves LLTX: wake tested again under the lock", "--era 2.6.18 --personality locked --lock core --producers 1 --packets 5", 2, 0 },
	{ "2021", "lockless qdisc as merged: a packet stranded", "--era 5.1-nolock", 2, 0 },
	{ "2021", "the MISSED bit, no barrier after the unlock", "--era 5.13-missed", 2, 0 },
	{ "2022", "the barrier between unlock and MISSED test", "--era 5.19-barrier", 2, 0 },
	{ "2023", "6.3's stop/wake helpers, with BQL", "--personality modern --lock core --producers 1 --packets 3", 3, 0 },
	{ "2023", "the same, the stop helper's barrier left out", "--personality modern-nomb --lock core --producers 1 --packets 3", 3, 20000 },
	{ "2024", "the watchdog against BQL: XOFF before trans_start", "--era 6.x --queues 1 --personality modern-2023 --producers 1 --packets 2 --watchdog", 2, 0 },
	{ "2024", "the fix: trans_start before XOFF, barriers", "--era 6.x --queues 1 --personality modern --producers 1 --packets 2 --watchdog", 2, 0 },
	{ "2025", "6.18: DRAINING, quota sets MISSED", "--era 6.18-draining", 2, 0 },
	{ "2025", "veth: a lost wakeup on ARM64 (CVE-2025-68232)", VETH("veth-6.16"), 2, 0 },
	{ "2025", "the fix: stop and kick NAPI, wake after smp_rmb()", VETH("veth"), 2, 0 },
};

#define HISTORY_ROWS (sizeof(history) / sizeof(history[0]))
#define ROW_ARGS 32

/* row's options as an argv (argv[0] "check") in buf; their count. */
static int row_argv(const struct history_row *row, char *buf, size_t len, char **argv)
{
	int argc = 0;

	snprintf(buf, len, "%s", row->check);
	argv[argc++] = "check";
	for (char *t = strtok(buf, " "); t && argc < ROW_ARGS - 4; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	return argc;
}

/* Has this build the era and the personality the row names? */
static bool row_exists(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--era") && !txp_era_lookup(argv[i + 1]))
			return false;
		if (!strcmp(argv[i], "--personality") && !txp_sim_personality(argv[i + 1]))
			return false;
	}
	return true;
}

/* The memory models, from the strongest. */
enum model { MODEL_SC, MODEL_TSO, MODEL_ARM, MODELS };

static const char *const model_name[MODELS] = { "sc", "tso", "arm" };

/* One row's outcome under one memory model. */
struct verdict {
	bool found, complete, race;
	bool sampled;		/* found by the random schedules past the bound */
	const char *kind;
	unsigned preemptions;
	uint64_t schedules;
	double seconds;
};

/* One search of cfg into v, its schedules and time added to v's. */
static int search(const struct txp_explore_cfg *cfg, struct verdict *v)
{
	struct txp_explore_result res;
	char err[256];
	int rc = txp_explore_run(cfg, &res, err, sizeof(err));

	if (rc != 0) {
		fprintf(stderr, "txpath demo --history: %s\n", err);
		return rc;
	}
	*v = (struct verdict){ res.found, res.complete, v->race || res.xmit_on_stopped_reachable,
			       false, res.kind, res.preemptions, v->schedules + res.schedules,
			       v->seconds + res.seconds };
	txp_explore_result_free(&res);
	return 0;
}

/* The row under model mm: its bounded search, then its random schedules
 * if it has them and the bound found nothing. */
static int explore(const struct history_row *row, struct txp_explore_cfg *cfg, enum model mm,
		   struct verdict *v)
{
	struct txp_explore_cfg random;
	int rc;

	memset(v, 0, sizeof(*v));
	cfg->tso = mm == MODEL_TSO;
	cfg->arm = mm == MODEL_ARM;
	rc = search(cfg, v);
	if (rc || v->found || !v->complete || !row->runs)
		return rc;
	random = *cfg;
	random.strategy = TXP_EXPLORE_RANDOM;
	random.runs = row->runs;
	random.seed = 1;
	rc = search(&random, v);
	if (!rc) {
		v->sampled = v->found;
		v->complete = !v->found;	/* proven within the bound all the same */
	}
	return rc;
}

/* The memory model the row's bug needs: the first under which it is
 * found; NULL when proven under all. */
static const char *model_needed(const struct verdict v[MODELS])
{
	for (int mm = 0; mm < MODELS; mm++)
		if (v[mm].found)
			return model_name[mm];
	return NULL;
}

/* The first memory model under which the race was reached; "no" when
 * every search was complete without it, "?" when one stopped early. */
static const char *race_text(const struct verdict v[MODELS])
{
	bool complete = true;

	for (int mm = 0; mm < MODELS; mm++) {
		if (v[mm].race)
			return model_name[mm];
		complete &= v[mm].complete && !v[mm].found;
	}
	return complete ? "no" : "?";
}

static const char *verdict_text(const struct verdict *v, char *buf, size_t len)
{
	if (v->sampled)
		snprintf(buf, len, "found %s, random, %u preemptions", v->kind, v->preemptions);
	else if (v->found)
		snprintf(buf, len, "found %s, %u preemption%s", v->kind, v->preemptions,
			 v->preemptions == 1 ? "" : "s");
	else
		snprintf(buf, len, "%s", v->complete ? "proven" : "interrupted");
	return buf;
}

static const char *row_name(const struct txp_explore_cfg *cfg, char *buf, size_t len)
{
	if (cfg->era)
		snprintf(buf, len, "%s / %s", cfg->era, cfg->personality->name);
	else
		snprintf(buf, len, "%s", cfg->personality->name);
	return buf;
}

static void print_header(void)
{
	printf("txpath demo --history: the same bug class, 2004-2025; each verdict computed now by "
	       "txpath check\n(every schedule with at most `bound` preemptions, under sc, tso and "
	       "arm; needs: the first\nof them under which the bug is found; race: the first under which "
	       "start_xmit ran on a stopped queue)\n\n");
	printf("%-4s  %-24s  %-50s  %5s  %-33s  %-33s  %-33s  %-5s  %-4s  %9s  %7s\n", "year",
	       "era / driver", "what", "bound", "sc", "tso", "arm", "needs", "race", "schedules",
	       "seconds");
}

static void print_row(const struct history_row *row, const struct txp_explore_cfg *cfg,
		      const struct verdict v[MODELS])
{
	char name[64], text[MODELS][48];
	const char *needs = model_needed(v);
	uint64_t schedules = 0;
	double seconds = 0;

	for (int mm = 0; mm < MODELS; mm++) {
		verdict_text(&v[mm], text[mm], sizeof(text[mm]));
		schedules += v[mm].schedules;
		seconds += v[mm].seconds;
	}
	printf("%-4s  %-24s  %-50s  %5u  %-33s  %-33s  %-33s  %-5s  %-4s  %9llu  %7.2f\n",
	       row->year, row_name(cfg, name, sizeof(name)), row->what, row->bound, text[MODEL_SC],
	       text[MODEL_TSO], text[MODEL_ARM], needs ? needs : "-", race_text(v),
	       (unsigned long long)schedules, seconds);
}

static void json_verdict(struct json *j, const char *key, const struct verdict *v)
{
	json_obj_begin(j, key);
	json_str(j, "violation", v->found ? v->kind : NULL);
	if (v->found)
		json_u64(j, "preemptions", v->preemptions);
	json_bool(j, "random", v->sampled);
	json_bool(j, "complete", v->complete);
	json_bool(j, "xmit_on_stopped_reachable", v->race);
	json_u64(j, "schedules", v->schedules);
	json_dbl(j, "seconds", v->seconds);
	json_obj_end(j);
}

static void json_row(struct json *j, const struct history_row *row,
		     const struct txp_explore_cfg *cfg, const struct verdict v[MODELS])
{
	json_obj_begin(j, NULL);
	json_str(j, "year", row->year);
	json_str(j, "era", cfg->era);
	json_str(j, "personality", cfg->personality->name);
	json_str(j, "what", row->what);
	json_str(j, "check", row->check);
	json_u64(j, "bound", row->bound);
	for (int mm = 0; mm < MODELS; mm++)
		json_verdict(j, model_name[mm], &v[mm]);
	json_str(j, "memory_model_needed", model_needed(v));
	json_str(j, "race", race_text(v));
	json_obj_end(j);
}

/* The options: --history itself, --json, --help.  False when --help
 * was asked (and printed). */
static bool parse(int argc, char **argv, bool *json)
{
	static const struct option opts[] = {
		{ "history", no_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmdline cl;
	int c;

	*json = false;
	cmdline_init(&cl, "demo", opts);
	while ((c = cmdline_next(&cl, argc, argv)) != -1) {
		if (c == 'h') {
			fputs(history_help, stdout);
			return false;
		}
		*json |= c == 'j';
	}
	return true;
}

int demo_history(int argc, char **argv)
{
	unsigned shown[HISTORY_ROWS], nshown = 0;
	struct json j;
	bool json;
	int rc = 0;

	if (!parse(argc, argv, &json))
		return 0;
	const struct txp_run_stop *stop = signals_catch();

	if (json) {
		json_init(&j, stdout);
		json_arr_begin(&j, NULL);
	} else {
		print_header();
	}
	for (unsigned i = 0; i < HISTORY_ROWS && !rc && !signals_caught(); i++) {
		char buf[512], *args[ROW_ARGS];
		int n = row_argv(&history[i], buf, sizeof(buf), args);
		struct txp_explore_cfg cfg;
		struct verdict v[MODELS];

		if (!row_exists(n, args))
			continue;
		check_cfg_parse(n, args, &cfg);
		cfg.bound = history[i].bound;
		cfg.stop = stop;
		for (int mm = 0; mm < MODELS && !rc; mm++)
			rc = explore(&history[i], &cfg, (enum model)mm, &v[mm]);
		if (rc)
			break;
		if (json)
			json_row(&j, &history[i], &cfg, v);
		else
			print_row(&history[i], &cfg, v);
		shown[nshown++] = i;
		if (!flush_stdout())
			return 1;
	}
	if (json) {
		json_arr_end(&j);
		json_finish(&j);
	} else {
		printf("\nEach row as txpath check options (add --memory-model sc|tso|arm --bound N):\n");
		for (unsigned k = 0; k < nshown; k++)
			printf("  %s  %s\n", history[shown[k]].year, history[shown[k]].check);
	}
	return signals_status(rc ? 1 : 0);
}
