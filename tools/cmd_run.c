/*
 * cmd_run.c - `txpath run`: producer threads push packets through one
 * simulated device; prints what happened, every packet accounted for.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "signals.h"
#include "txpath/netdrv.h"
#include "txpath/plugin.h"

static const char run_help[] =
"usage: txpath run [options]\n"
"\n"
"Producer threads push packets through one device on the simulated NIC.\n"
"At the end every packet is transmitted or dropped with a named reason;\n"
"the run checks that, and the wire checks for loss and duplication.\n"
"\n"
RUN_KNOB_HELP
DRIVER_SO_HELP
"  --json                  print one JSON object instead of the report\n"
"  --quiet                 do not print the kernel log lines (still counted)\n"
"  -h, --help              this help\n"
"\n"
"Exit status: 0 when every packet was accounted for, 1 when the run stalled,\n"
"lost or duplicated packets, the device could not be set up (no such\n"
"interface, interface down, no permission, XDP not supported), its link\n"
"went down mid-run or its file could not be written (the rest dropped as\n"
"dev-down or tx-error), 2 on bad usage; 130 (SIGINT) or 143 (SIGTERM) when\n"
"interrupted: the producers stop, what is queued and in flight has 1 s to go\n"
"out, the rest is dropped as interrupted, and the report is printed.  A second\n"
"signal ends it at once.  A run whose threads do not come back (a driver stuck\n"
"in an op) still ends, with its report, once nothing has moved for a few\n"
"seconds: exit 1 (or 130, 143).  A --driver-so driver that crashes, aborts or\n"
"calls exit() in an op is named with the op, on one line: exit 1.\n";

/* Live progress on a terminal, for runs longer than a second. */
static void show_progress(const struct txp_run_progress *p, void *arg)
{
	(void)arg;
	if (p->elapsed < 1.0)
		return;
	if (p->target)
		fprintf(stderr, "\r\033[K  %.1f s  submitted %llu/%llu (%.0f%%)  transmitted %llu  dropped %llu",
			p->elapsed, (unsigned long long)p->submitted,
			(unsigned long long)p->target, 100.0 * (double)p->submitted / (double)p->target,
			(unsigned long long)p->transmitted, (unsigned long long)p->dropped);
	else
		fprintf(stderr, "\r\033[K  %.1f s  submitted %llu  transmitted %llu  dropped %llu",
			p->elapsed, (unsigned long long)p->submitted,
			(unsigned long long)p->transmitted, (unsigned long long)p->dropped);
	fflush(stderr);
}

enum { OPT_JSON = 1000, OPT_QUIET, OPT_HELP };

/* Do the frames go to standard output (--driver pcap --file -)? */
static bool frames_on_stdout(const struct txp_run_cfg *cfg)
{
	return txp_pcap_file_is_stdout(cfg->net.file);
}

/* Where the report goes: standard output, unless the frames go there:
 * then standard error. */
static FILE *report_stream(const struct txp_run_cfg *cfg)
{
	return frames_on_stdout(cfg) ? stderr : stdout;
}

bool report_dev_died(const char *cmd, const struct txp_run_cfg *cfg,
		     const struct txp_run_result *r)
{
	const char *where = cfg->net.ifname ? cfg->net.ifname
			    : frames_on_stdout(cfg) ? TXP_PCAP_STDOUT_NAME : cfg->net.file;
	enum txp_drop_reason why = r->drv.died_drop;

	if (!r->drv.link_down)
		return false;
	/* The frames the device refused before the link was found down are
	 * tx-error (the kernel said only "dropped"): named too, or the count
	 * reads as if the fall met nothing. */
	if (why == TXP_DROP_DEV_DOWN)
		fprintf(stderr, "txpath %s: %s: link went down mid-run: %llu packets dropped as "
			"dev-down, %llu as tx-error\n", cmd, where,
			(unsigned long long)r->dev.dropped[why],
			(unsigned long long)r->dev.dropped[TXP_DROP_TX_ERROR]);
	else
		fprintf(stderr, "txpath %s: %s: %s; %llu packets dropped as %s\n", cmd, where,
			r->drv.died, (unsigned long long)r->dev.dropped[why],
			txp_drop_reason_name(why));
	return true;
}

/*
 * --bql on with a plugin that never fed BQL: the limit of every queue
 * still 0 after packets went out (a driver that reports its bytes
 * (netdev_tx_sent_queue) meets the limit at its first packet, and its
 * completion raises it).  A built-in personality without BQL is refused
 * before the run (drv_sim.c); a plugin's is known only by what it did.
 */
static void note_bql_unfed(const struct txp_run_cfg *cfg, const struct txp_run_result *r)
{
	const struct txp_plugin *pl = txp_run_driver_plugin_of(cfg->driver);

	if (!cfg->bql || !pl || !r->dev.transmitted)
		return;
	for (unsigned q = 0; q < r->queues; q++)
		if (r->queue_bql[q].limit)
			return;
	fprintf(stderr, "txpath run: note: --bql on, but %s reported no bytes to BQL "
		"(netdev_tx_sent_queue(), netdev_tx_completed_queue()): it limited nothing\n",
		pl->name);
}

int cmd_run(int argc, char **argv)
{
	struct option opts[48];
	struct cmdline cl;
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	bool json = false, tty = isatty(STDERR_FILENO);
	static const struct option so_options[] = { DRIVER_SO_OPTIONS };
	struct driver_so so = { 0 };
	char err[256];
	size_t n = 0;
	int c, status;

	for (; run_knob_options[n].name; n++)
		opts[n] = run_knob_options[n];
	opts[n++] = (struct option){ "json", no_argument, NULL, OPT_JSON };
	opts[n++] = (struct option){ "quiet", no_argument, NULL, OPT_QUIET };
	opts[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	opts[n++] = so_options[0];
	opts[n++] = so_options[1];
	opts[n] = (struct option){ NULL, 0, NULL, 0 };

	txp_run_cfg_init(&cfg);
	cfg.log = stderr;
	cmdline_init(&cl, "run", opts);
	while ((c = cmdline_next(&cl, argc, argv)) != -1) {
		if (parse_run_knob(&cl, c, optarg, &cfg) || driver_so_option(&so, c, optarg))
			continue;
		switch (c) {
		case OPT_JSON:
			json = true;
			break;
		case OPT_QUIET:
			cfg.log = NULL;
			break;
		case 'h':
		case OPT_HELP:
			fputs(run_help, stdout);
			return 0;
		}
	}
	driver_so_use(&cl, &cfg, &so);
	check_run_knobs(&cl, &cfg);
	if (!txp_run_cfg_check(&cfg, err, sizeof(err)))
		usage_error("run", "%s", err);
	cfg.stop = signals_catch();
	/* A reader that goes away (| head) is the file's write error, which
	 * the driver reports, not a silent death by SIGPIPE. */
	if (frames_on_stdout(&cfg))
		signal(SIGPIPE, SIG_IGN);
	if (txp_run_driver_plugin_of(cfg.driver))
		signals_catch_driver_ends();
	if (tty) {
		cfg.progress = show_progress;
		cfg.progress_arg = NULL;
	}
	if (txp_run(&cfg, &res, err, sizeof(err)) != 0) {
		fprintf(stderr, "txpath run: %s\n", err);
		return 1;
	}
	if (tty)
		fputs("\r\033[K", stderr);
	if (json) {
		struct json j;

		json_init(&j, report_stream(&cfg));
		report_json(&j, &cfg, &res);
		json_finish(&j);
	} else {
		report_text(report_stream(&cfg), &cfg, &res);
	}
	note_bql_unfed(&cfg, &res);
	status = report_dev_died("run", &cfg, &res) ? 1 : run_ok(&res) ? 0 : 1;
	if (res.wedged)		/* a driver that never came back: a failure */
		report_wedged_exit("run", &res, signals_status(1));
	return signals_status(status);
}
