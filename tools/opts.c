/*
 * opts.c - option parsing shared by the subcommands.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "parse.h"

void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "txpath %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see txpath %s --help)\n", cmd);
	exit(EXIT_USAGE);
}

void cmdline_init(struct cmdline *cl, const char *cmd, const struct option *opts)
{
	*cl = (struct cmdline){ .cmd = cmd, .opts = opts };
	opterr = 0;
	optind = 1;
}

bool cmdline_given(const struct cmdline *cl, int val)
{
	for (unsigned i = 0; i < cl->nseen; i++)
		if (cl->seen[i] == val)
			return true;
	return false;
}

/* The option of that name (up to its '=', if any), or NULL. */
static const struct option *option_named(const struct option *opts, const char *text)
{
	size_t len = strcspn(text, "=");

	for (const struct option *o = opts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, text, len))
			return o;
	return NULL;
}

int option_words(const char *a, const char *const *flags, const char *const *valued)
{
	if (strncmp(a, "--", 2))
		return 0;
	a += 2;
	for (const char *const *n = flags; *n; n++)
		if (!strcmp(*n, a))
			return 1;
	for (const char *const *n = valued; *n; n++) {
		size_t len = strlen(*n);

		if (!strncmp(*n, a, len) && (a[len] == '=' || !a[len]))
			return a[len] ? 1 : 2;
	}
	return 0;
}

/* An unknown option's error: one that takes no value given one says so. */
static _Noreturn void unknown_option(const struct cmdline *cl, const char *arg)
{
	const struct option *o = !strncmp(arg, "--", 2) ? option_named(cl->opts, arg + 2) : NULL;

	if (o && o->has_arg == no_argument)
		usage_error(cl->cmd, "--%s takes no value, got '%s'", o->name, arg);
	usage_error(cl->cmd, "unknown option '%s'", arg);
}

/* getopt_long takes an unambiguous prefix of a long option for it
 * (--qdisc for --qdisc-bypass): refused, as a typo or a guess would be
 * taken for another option.  The option's own argument: argv[optind - 1],
 * or the one before when its value was the next argument. */
static void refuse_abbreviation(const struct cmdline *cl, char **argv, const struct option *o)
{
	const char *arg = argv[optind - 1];

	if (o->has_arg != no_argument && optarg == arg)
		arg = argv[optind - 2];
	if (strncmp(arg, "--", 2) || option_named(cl->opts, arg + 2) != o)
		usage_error(cl->cmd, "unknown option '%.*s' (options are written in full: --%s?)",
			    (int)strcspn(arg, "="), arg, o->name);
}

int cmdline_next(struct cmdline *cl, int argc, char **argv)
{
	int idx = -1, c = getopt_long(argc, argv, ":h", cl->opts, &idx);

	if (c == -1 && optind < argc)
		usage_error(cl->cmd, "unexpected argument '%s'", argv[optind]);
	if (c == ':')
		usage_error(cl->cmd, "%s needs a value", argv[optind - 1]);
	if (c == '?')
		unknown_option(cl, argv[optind - 1]);
	if (idx < 0)
		return c;
	refuse_abbreviation(cl, argv, &cl->opts[idx]);
	if (cmdline_given(cl, c))
		usage_error(cl->cmd, "--%s given twice (each option once)", cl->opts[idx].name);
	if (cl->nseen < CMDLINE_MAX_OPTS)
		cl->seen[cl->nseen++] = c;
	return c;
}

/* A parse.c parser's verdict: on failure, its message as a usage error. */
static void parsed_or_usage_error(const char *cmd, bool ok, const char *msg)
{
	if (!ok)
		usage_error(cmd, "%s", msg);
}

uint64_t parse_u64(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char msg[PARSE_MSG_LEN];
	uint64_t v = 0;

	parsed_or_usage_error(cmd, parse_str_u64(opt, s, min, max, &v, msg, sizeof(msg)), msg);
	return v;
}

double parse_seconds(const char *cmd, const char *opt, const char *s)
{
	char msg[PARSE_MSG_LEN];
	double v = 0;

	parsed_or_usage_error(cmd, parse_str_seconds(opt, s, &v, msg, sizeof(msg)), msg);
	return v;
}

const char *parse_name(const char *cmd, const char *opt, const char *s, const char *what)
{
	char msg[PARSE_MSG_LEN];

	parsed_or_usage_error(cmd, parse_str_name(opt, s, what, msg, sizeof(msg)), msg);
	return s;
}

void parse_frags(const char *cmd, const char *s, unsigned *min, unsigned *max)
{
	char msg[PARSE_MSG_LEN];

	parsed_or_usage_error(cmd, parse_str_frags(s, min, max, msg, sizeof(msg)), msg);
}

enum {
	OPT_ERA = 256, OPT_LOCK, OPT_RUNNER, OPT_PERSONALITY, OPT_THREADS,
	OPT_PACKETS, OPT_SECONDS, OPT_SIZE, OPT_FRAGS, OPT_RING, OPT_LINE_RATE,
	OPT_BATCH, OPT_TXQUEUELEN, OPT_SNDBUF, OPT_QDISC, OPT_DRIVER,
	OPT_DEV, OPT_FILE, OPT_XDP_MODE, OPT_QUEUE, OPT_TPACKET, OPT_QDISC_BYPASS, OPT_UMEM_POOL,
	OPT_SRC_MAC, OPT_DST_MAC, OPT_SRC_IP, OPT_DST_IP, OPT_SRC_PORT, OPT_DST_PORT,
	OPT_VALIDATE, OPT_BURST, OPT_BULK, OPT_FAULT, OPT_SEED, OPT_STALL_SECONDS,
	OPT_QUEUES, OPT_BQL, OPT_XPS, OPT_WATCHDOG_MS, OPT_DEFER, OPT_BUSYLOCK,
};

const struct option run_knob_options[] = {
	{ "era", required_argument, NULL, OPT_ERA },
	{ "lock", required_argument, NULL, OPT_LOCK },
	{ "runner", required_argument, NULL, OPT_RUNNER },
	{ "personality", required_argument, NULL, OPT_PERSONALITY },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "packets", required_argument, NULL, OPT_PACKETS },
	{ "seconds", required_argument, NULL, OPT_SECONDS },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "frags", required_argument, NULL, OPT_FRAGS },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "line-rate", required_argument, NULL, OPT_LINE_RATE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "txqueuelen", required_argument, NULL, OPT_TXQUEUELEN },
	{ "sndbuf", required_argument, NULL, OPT_SNDBUF },
	{ "qdisc", required_argument, NULL, OPT_QDISC },
	{ "driver", required_argument, NULL, OPT_DRIVER },
	{ "dev", required_argument, NULL, OPT_DEV },
	{ "file", required_argument, NULL, OPT_FILE },
	{ "xdp-mode", required_argument, NULL, OPT_XDP_MODE },
	{ "queue", required_argument, NULL, OPT_QUEUE },
	{ "tpacket", required_argument, NULL, OPT_TPACKET },
	{ "qdisc-bypass", no_argument, NULL, OPT_QDISC_BYPASS },
	{ "umem-pool", no_argument, NULL, OPT_UMEM_POOL },
	{ "src-mac", required_argument, NULL, OPT_SRC_MAC },
	{ "dst-mac", required_argument, NULL, OPT_DST_MAC },
	{ "src-ip", required_argument, NULL, OPT_SRC_IP },
	{ "dst-ip", required_argument, NULL, OPT_DST_IP },
	{ "src-port", required_argument, NULL, OPT_SRC_PORT },
	{ "dst-port", required_argument, NULL, OPT_DST_PORT },
	{ "validate", no_argument, NULL, OPT_VALIDATE },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "bulk", required_argument, NULL, OPT_BULK },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "stall-seconds", required_argument, NULL, OPT_STALL_SECONDS },
	{ "queues", required_argument, NULL, OPT_QUEUES },
	{ "bql", required_argument, NULL, OPT_BQL },
	{ "xps", required_argument, NULL, OPT_XPS },
	{ "watchdog-ms", required_argument, NULL, OPT_WATCHDOG_MS },
	{ "defer", required_argument, NULL, OPT_DEFER },
	{ "busylock", required_argument, NULL, OPT_BUSYLOCK },
	{ NULL, 0, NULL, 0 },
};

const char *era_names(void)
{
	static char names[256];
	size_t len = 0;

	for (const struct txp_era *e = txp_eras; e->name && len < sizeof(names); e++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
					e == txp_eras ? "" : " ", e->name);
	return names;
}

const struct txp_qdisc_ops *parse_qdisc(const char *cmd, const char *arg)
{
	const struct txp_qdisc_ops *q = txp_qdisc_lookup(arg);
	char names[128];

	if (!q)
		usage_error(cmd, "--qdisc is one of %s, got '%s'", txp_qdisc_names(names, sizeof(names)),
			    arg);
	return q;
}

bool parse_on_off(const char *cmd, const char *opt, const char *arg)
{
	if (strcmp(arg, "on") && strcmp(arg, "off"))
		usage_error(cmd, "%s is on or off, got '%s'", opt, arg);
	return strcmp(arg, "on") == 0;
}

enum txp_defer parse_defer(const char *cmd, const char *arg)
{
	if (!strcmp(arg, "drain"))
		return TXP_DEFER_DRAIN;
	if (strcmp(arg, "on") && strcmp(arg, "off"))
		usage_error(cmd, "--defer is on, drain or off, got '%s'", arg);
	return strcmp(arg, "on") == 0 ? TXP_DEFER_LINUX : TXP_DEFER_OFF;
}

/* Knobs set on their own override the era wherever --era stands. */
static void parse_era(const struct cmdline *cl, const char *arg, struct txp_run_cfg *cfg)
{
	struct txp_run_cfg keep = *cfg;

	if (!txp_run_cfg_era(cfg, arg))
		usage_error(cl->cmd, "unknown era '%s' (%s)", arg, era_names());
	if (cmdline_given(cl, OPT_LOCK))
		cfg->lock = keep.lock;
	if (cmdline_given(cl, OPT_RUNNER))
		cfg->runner = keep.runner;
	if (cmdline_given(cl, OPT_PERSONALITY))
		cfg->personality = keep.personality;
	if (cmdline_given(cl, OPT_QDISC))
		cfg->qdisc = keep.qdisc;
	if (cmdline_given(cl, OPT_QUEUES))
		cfg->queues = keep.queues;
	if (cmdline_given(cl, OPT_BQL))
		cfg->bql = keep.bql;
	if (cmdline_given(cl, OPT_BULK))
		cfg->bulk = keep.bulk;
	if (cmdline_given(cl, OPT_WATCHDOG_MS))
		cfg->watchdog_ms = keep.watchdog_ms;
	if (cmdline_given(cl, OPT_BUSYLOCK))
		cfg->busylock = keep.busylock;
}

static void parse_personality(const char *cmd, const char *arg, struct txp_run_cfg *cfg)
{
	char names[256] = "";
	size_t len = 0;

	cfg->personality = txp_sim_personality(arg);
	if (cfg->personality)
		return;
	for (int i = 0; txp_sim_personalities[i]; i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? " " : "",
					txp_sim_personalities[i]->name);
	usage_error(cmd, "unknown personality '%s' (%s)", arg, names);
}

/* --src-mac (source: unicast only) or --dst-mac. */
static void parse_mac_opt(const char *cmd, const char *opt, const char *arg, uint8_t *mac,
			  bool *set, bool source)
{
	char msg[PARSE_MSG_LEN];

	parsed_or_usage_error(cmd, source ? parse_str_src_mac(opt, arg, mac, msg, sizeof(msg)) :
					    parse_str_mac(opt, arg, mac, msg, sizeof(msg)), msg);
	*set = true;
}

static uint32_t parse_ip_opt(const char *cmd, const char *opt, const char *arg)
{
	char msg[PARSE_MSG_LEN];
	uint32_t ip = 0;

	parsed_or_usage_error(cmd, parse_str_bench_ip(opt, arg, &ip, msg, sizeof(msg)), msg);
	return ip;
}

/* The real drivers' knobs (cfg->net).  True if opt was one of them. */
static bool parse_net_knob(const char *cmd, int opt, const char *arg, struct txp_net_cfg *nc)
{
	switch (opt) {
	case OPT_DEV:
		nc->ifname = parse_name(cmd, "--dev", arg, "an interface name");
		return true;
	case OPT_FILE:
		nc->file = parse_name(cmd, "--file", arg, "a path");
		return true;
	case OPT_XDP_MODE:
		if (strcmp(arg, "copy") && strcmp(arg, "zerocopy"))
			usage_error(cmd, "--xdp-mode is copy or zerocopy, got '%s'", arg);
		nc->xdp_mode = strcmp(arg, "copy") ? TXP_XDP_ZEROCOPY : TXP_XDP_COPY;
		return true;
	case OPT_QUEUE:
		nc->queue = (unsigned)parse_u64(cmd, "--queue", arg, 0, 4095);
		return true;
	case OPT_TPACKET:
		nc->tpacket = (unsigned)parse_u64(cmd, "--tpacket", arg, 2, 3);
		return true;
	case OPT_UMEM_POOL:
		nc->umem_pool = true;
		return true;
	case OPT_QDISC_BYPASS:
		nc->qdisc_bypass = true;
		return true;
	case OPT_SRC_MAC:
		parse_mac_opt(cmd, "--src-mac", arg, nc->addr.src_mac, &nc->addr.src_mac_set, true);
		return true;
	case OPT_DST_MAC:
		parse_mac_opt(cmd, "--dst-mac", arg, nc->addr.dst_mac, &nc->addr.dst_mac_set, false);
		return true;
	case OPT_SRC_IP:
		nc->addr.src_ip = parse_ip_opt(cmd, "--src-ip", arg);
		return true;
	case OPT_DST_IP:
		nc->addr.dst_ip = parse_ip_opt(cmd, "--dst-ip", arg);
		return true;
	case OPT_SRC_PORT:
		nc->addr.src_port = (uint16_t)parse_u64(cmd, "--src-port", arg, 1, 65535);
		return true;
	case OPT_DST_PORT:
		nc->addr.dst_port = (uint16_t)parse_u64(cmd, "--dst-port", arg, 1, 65535);
		return true;
	}
	return false;
}

/* --fault and --seed: without a seed the clock gives one, which the
 * report prints so the run can be made again. */
static void parse_fault_knob(const struct cmdline *cl, int opt, const char *arg,
			     struct txp_run_cfg *cfg)
{
	struct timespec now;
	char err[160];

	if (opt == OPT_SEED) {
		cfg->faults.seed = parse_u64(cl->cmd, "--seed", arg, 0, UINT64_MAX);
		return;
	}
	if (!txp_fault_parse(&cfg->faults, arg, err, sizeof(err)))
		usage_error(cl->cmd, "--fault: %s", err);
	if (!cmdline_given(cl, OPT_SEED) && clock_gettime(CLOCK_REALTIME, &now) == 0)
		cfg->faults.seed = (uint64_t)(now.tv_sec ^ now.tv_nsec) % 1000000;
}

/* --xps off | Q[,Q...]: producer i on queue Q number i mod the count. */
static void parse_xps(const char *cmd, const char *arg, struct txp_run_cfg *cfg)
{
	char item[32];

	cfg->xps_off = strcmp(arg, "off") == 0;
	cfg->xps_len = 0;
	if (!*arg)
		usage_error(cmd, "--xps is off or a list of queue numbers like 0,1,0,1, got ''");
	for (const char *s = arg; !cfg->xps_off && *s;) {
		size_t n = strcspn(s, ",");

		if (n == 0 || n >= sizeof(item) || strspn(s, "0123456789") < n)
			usage_error(cmd, "--xps is off or a list of queue numbers like 0,1,0,1, got '%s'",
				    arg);
		if (cfg->xps_len == TXP_MAX_CTX)
			usage_error(cmd, "--xps takes at most %d queue numbers (one per producer), got more",
				    TXP_MAX_CTX);
		memcpy(item, s, n);
		item[n] = '\0';
		cfg->xps[cfg->xps_len++] = (int)parse_u64(cmd, "--xps", item, 0, TXP_DEV_MAX_QUEUES - 1);
		s += n + (s[n] == ',');
		if (s[-1] == ',' && !*s)
			usage_error(cmd, "--xps ends with a comma: '%s'", arg);
	}
}

bool parse_run_knob(const struct cmdline *cl, int opt, const char *arg, struct txp_run_cfg *cfg)
{
	const char *cmd = cl->cmd;

	if (parse_net_knob(cmd, opt, arg, &cfg->net))
		return true;
	switch (opt) {
	case OPT_ERA:
		parse_era(cl, arg, cfg);
		return true;
	case OPT_LOCK:
		if (strcmp(arg, "core") && strcmp(arg, "lltx"))
			usage_error(cmd, "--lock is core or lltx, got '%s'", arg);
		cfg->lock = strcmp(arg, "core") ? TXP_LOCK_LLTX : TXP_LOCK_CORE;
		return true;
	case OPT_RUNNER:
		if (strcmp(arg, "concurrent") && strcmp(arg, "exclusive"))
			usage_error(cmd, "--runner is concurrent or exclusive, got '%s'", arg);
		cfg->runner = strcmp(arg, "concurrent") ? TXP_RUNNER_EXCLUSIVE : TXP_RUNNER_CONCURRENT;
		return true;
	case OPT_PERSONALITY:
		parse_personality(cmd, arg, cfg);
		return true;
	case OPT_THREADS:
		cfg->threads = (unsigned)parse_u64(cmd, "--threads", arg, 1, TXP_MAX_CTX - 2);
		return true;
	case OPT_PACKETS:
		if (cmdline_given(cl, OPT_SECONDS))
			usage_error(cmd, "--packets and --seconds: give one");
		cfg->packets = parse_u64(cmd, "--packets", arg, 1, UINT64_C(1) << 40);
		cfg->seconds = 0;
		return true;
	case OPT_SECONDS:
		if (cmdline_given(cl, OPT_PACKETS))
			usage_error(cmd, "--packets and --seconds: give one");
		cfg->seconds = parse_seconds(cmd, "--seconds", arg);
		cfg->packets = 0;
		return true;
	case OPT_SIZE:
		cfg->size = (unsigned)parse_u64(cmd, "--size", arg, 60, 65535);
		return true;
	case OPT_FRAGS:
		parse_frags(cmd, arg, &cfg->frags_min, &cfg->frags_max);
		return true;
	case OPT_RING:
		cfg->ring = (unsigned)parse_u64(cmd, "--ring", arg, 1, 1u << 20);
		return true;
	case OPT_LINE_RATE:
		cfg->line_rate = parse_u64(cmd, "--line-rate", arg, 0, 1000000000);
		return true;
	case OPT_BATCH:
		cfg->batch = (unsigned)parse_u64(cmd, "--batch", arg, 1, 4096);
		return true;
	case OPT_TXQUEUELEN:
		cfg->txqueuelen = (unsigned)parse_u64(cmd, "--txqueuelen", arg, 1, 1u << 24);
		return true;
	case OPT_SNDBUF:
		cfg->sndbuf = (unsigned)parse_u64(cmd, "--sndbuf", arg, 0, 1u << 24);
		return true;
	case OPT_VALIDATE:
		cfg->validate = true;
		return true;
	case OPT_BURST:
		cfg->burst = (unsigned)parse_u64(cmd, "--burst", arg, 1, TXP_RUN_BURST_MAX);
		return true;
	case OPT_BULK:
		cfg->bulk = (unsigned)parse_u64(cmd, "--bulk", arg, 1, TXP_DEV_BULK_MAX);
		return true;
	case OPT_FAULT:
	case OPT_SEED:
		parse_fault_knob(cl, opt, arg, cfg);
		return true;
	case OPT_STALL_SECONDS:
		cfg->stall_seconds = parse_seconds(cmd, "--stall-seconds", arg);
		return true;
	case OPT_QUEUES:
		cfg->queues = (unsigned)parse_u64(cmd, "--queues", arg, 1, TXP_DEV_MAX_QUEUES);
		return true;
	case OPT_BQL:
		cfg->bql = parse_on_off(cmd, "--bql", arg);
		return true;
	case OPT_DEFER:
		cfg->defer = parse_defer(cmd, arg);
		return true;
	case OPT_BUSYLOCK:
		cfg->busylock = parse_on_off(cmd, "--busylock", arg);
		return true;
	case OPT_XPS:
		parse_xps(cmd, arg, cfg);
		return true;
	case OPT_WATCHDOG_MS:
		cfg->watchdog_ms = (unsigned)parse_u64(cmd, "--watchdog-ms", arg, 0, 3600000);
		return true;
	case OPT_DRIVER:
		cfg->driver = txp_run_driver(arg);
		if (!cfg->driver)
			usage_error(cmd, "unknown driver '%s' (sim afpacket afxdp tap pcap)", arg);
		return true;
	case OPT_QDISC:
		cfg->qdisc = parse_qdisc(cmd, arg);
		return true;
	}
	return false;
}

/* The drivers that take frames (addresses, ports) and a ring of slots. */
#define FRAME_DRIVERS "afpacket afxdp tap pcap"

/* The knobs that mean something to some drivers only; any other knob
 * applies to every driver. */
static const struct {
	int opt;
	const char *drivers;	/* the names, space-separated */
	bool plugin;		/* for a driver plugin (run --driver-so) too */
} knob_drivers[] = {
	{ OPT_PERSONALITY, "sim", false },
	{ OPT_FAULT, "sim", false },
	{ OPT_LINE_RATE, "sim", false },
	{ OPT_BATCH, "sim", true },
	{ OPT_FRAGS, "sim " FRAME_DRIVERS, true },
	{ OPT_RING, "sim " FRAME_DRIVERS, true },
	{ OPT_QUEUES, "sim null " FRAME_DRIVERS, false },
	{ OPT_XPS, "sim null " FRAME_DRIVERS, false },
	{ OPT_BQL, "sim null " FRAME_DRIVERS, true },
	{ OPT_WATCHDOG_MS, "sim " FRAME_DRIVERS, false },
	{ OPT_DEV, "afpacket afxdp tap", false },
	{ OPT_FILE, "pcap", false },
	{ OPT_XDP_MODE, "afxdp", false },
	{ OPT_QUEUE, "afxdp", false },
	{ OPT_TPACKET, "afpacket", false },
	{ OPT_QDISC_BYPASS, "afpacket", false },
	{ OPT_UMEM_POOL, "afxdp", false },
	{ OPT_SRC_MAC, FRAME_DRIVERS, false },
	{ OPT_DST_MAC, FRAME_DRIVERS, false },
	{ OPT_SRC_IP, FRAME_DRIVERS, false },
	{ OPT_DST_IP, FRAME_DRIVERS, false },
	{ OPT_SRC_PORT, FRAME_DRIVERS, false },
	{ OPT_DST_PORT, FRAME_DRIVERS, false },
};

/* Is name a word of the space-separated list? */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *w = list; *w;) {
		size_t n = strcspn(w, " ");

		if (n == len && strncmp(w, name, len) == 0)
			return true;
		w += n + (w[n] == ' ');
	}
	return false;
}

static const char *knob_name(int opt)
{
	for (size_t i = 0; run_knob_options[i].name; i++)
		if (run_knob_options[i].val == opt)
			return run_knob_options[i].name;
	return "?";
}

void check_defer(const char *cmd, const struct txp_qdisc_ops *qdisc, enum txp_defer defer)
{
	if (!qdisc)
		qdisc = &txp_pfifo_fast_ops;
	/* noqueue calls start_xmit directly and nolock has no root lock:
	 * neither has a lock for the defer list to wait on. */
	if (defer && (!qdisc->enqueue || qdisc->nolock))
		usage_error(cmd, "--defer %s is for a root-locked qdisc (pfifo_fast): "
			    "qdisc %s has no root lock to wait for",
			    defer == TXP_DEFER_DRAIN ? "drain" : "on", qdisc->id);
}

void check_busylock(const char *cmd, const struct txp_qdisc_ops *qdisc, enum txp_runner runner,
		    enum txp_defer defer)
{
	if (!qdisc)
		qdisc = &txp_pfifo_fast_ops;
	if (!qdisc->enqueue || qdisc->nolock)
		usage_error(cmd, "--busylock on is for a root-locked qdisc (pfifo_fast): "
			    "qdisc %s has no root lock to wait for", qdisc->id);
	if (runner != TXP_RUNNER_EXCLUSIVE)
		usage_error(cmd, "--busylock on needs --runner exclusive: it is taken by a "
			    "producer that finds the queue being run");
	if (defer)
		usage_error(cmd, "--busylock on and --defer %s: 6.18's defer list replaced "
			    "the busylock", defer == TXP_DEFER_DRAIN ? "drain" : "on");
}

void check_run_knobs(const struct cmdline *cl, const struct txp_run_cfg *cfg)
{
	const char *driver = cfg->driver->name;

	if (cmdline_given(cl, OPT_SEED) && !cmdline_given(cl, OPT_FAULT))
		usage_error(cl->cmd, "--seed is the faults' seed: it needs --fault");
	check_defer(cl->cmd, cfg->qdisc, cfg->defer);
	if (cmdline_given(cl, OPT_BUSYLOCK) && cfg->busylock)
		check_busylock(cl->cmd, cfg->qdisc, cfg->runner, cfg->defer);
	for (size_t i = 0; i < sizeof(knob_drivers) / sizeof(knob_drivers[0]); i++) {
		const char *list = knob_drivers[i].drivers;

		if (cmdline_given(cl, knob_drivers[i].opt) && !in_list(list, driver) &&
		    !(knob_drivers[i].plugin && !strcmp(driver, "plugin")))
			usage_error(cl->cmd, "--%s is for driver%s %s, not %s",
				    knob_name(knob_drivers[i].opt), strchr(list, ' ') ? "s" : "",
				    list, driver);
	}
}
