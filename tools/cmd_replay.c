/*
 * cmd_replay.c - `txpath replay`: a pcap capture's frames sent as captured
 * through txpath's path (the qdisc, the xmit lock, a real driver), from
 * several producer threads at once.  Each flow (5-tuple) is pinned to one
 * producer, which sends its frames in capture order on a device that keeps
 * each producer's order (the core xmit lock, one runner per queue), so
 * every flow arrives in its order.  Frames go out as they are in memory:
 * a packet's head points at the captured bytes (no copy by the producer).
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "cli.h"
#include "parse.h"
#include "replay_pace.h"
#include "signals.h"
#include "txpath/netdrv.h"

#define REPLAY_SNDBUF 256	/* each producer's packets in flight */
#define REPLAY_DRAIN_NS 10000000000ull	/* the end waits this long for the device */
#define REPLAY_MAX_THREADS 64

static const char replay_help[] =
"usage: txpath replay FILE.pcap --dev IFNAME [options]\n"
"\n"
"Sends the Ethernet frames of a pcap capture out of IFNAME, as captured,\n"
"through txpath's transmit path from --threads producers.  Each flow (IPv4\n"
"5-tuple; other frames by their Ethernet addresses) stays on one producer,\n"
"so its frames leave in capture order.  At the end every frame is reported\n"
"transmitted or dropped with a named reason.\n"
"\n"
"  --dev IFNAME            the interface to send on\n"
"  --driver NAME           afpacket (default), afxdp or tap\n"
"  --threads N             producers, 1..64 (default 1)\n"
"  --loop K                send the capture K times (default 1)\n"
"  --pps R                 R frames per second in all\n"
"  --mbps R                R megabits per second in all\n"
"  --multiplier X          the capture's own timing, X times faster (default 1;\n"
"                          a frame captured before the one ahead follows it)\n"
"  --topspeed              as fast as the device takes them\n"
"                          (at most one of these four; R and X 0.001 to 1e9)\n"
"  --rewrite-src-mac MAC   set every frame's Ethernet source (unicast)\n"
"  --rewrite-dst-mac MAC   set every frame's Ethernet destination\n"
"  --rewrite-src-ip IP     set every IPv4 source, 198.18.0.0/15\n"
"  --rewrite-dst-ip IP     set every IPv4 destination, 198.18.0.0/15\n"
"                          (IPv4 under up to two VLAN tags too; the IPv4, TCP\n"
"                          and UDP checksums follow)\n"
"  --ring N                the driver's TX ring slots (default 512)\n"
"  --json                  print one JSON object instead of the report\n"
"  -h, --help              this help\n"
"\n"
"Records of zero bytes are skipped and counted.  The queue holds every frame\n"
"the producers have in flight (256 each): none is dropped for want of room.\n"
"\n"
"Exit status: 0 when every frame was transmitted, 1 when some were dropped or\n"
"the capture or the device could not be used (unreadable file, a link type\n"
"other than Ethernet, frames longer than the device takes, a schedule of\n"
"more than 100 years) or its link went down mid-replay (the producers stop,\n"
"the cause is named), 2 on bad usage; 130 (SIGINT) or 143 (SIGTERM) when\n"
"interrupted, after the report.\n";

enum {
	OPT_DEV = 1000, OPT_DRIVER, OPT_THREADS, OPT_LOOP, OPT_PPS, OPT_MBPS, OPT_MULT,
	OPT_TOPSPEED, OPT_RW_SMAC, OPT_RW_DMAC, OPT_RW_SIP, OPT_RW_DIP, OPT_RING, OPT_JSON,
	OPT_HELP,
};

static const struct option replay_opts[] = {
	{ "dev", required_argument, NULL, OPT_DEV },
	{ "driver", required_argument, NULL, OPT_DRIVER },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "loop", required_argument, NULL, OPT_LOOP },
	{ "pps", required_argument, NULL, OPT_PPS },
	{ "mbps", required_argument, NULL, OPT_MBPS },
	{ "multiplier", required_argument, NULL, OPT_MULT },
	{ "topspeed", no_argument, NULL, OPT_TOPSPEED },
	{ "rewrite-src-mac", required_argument, NULL, OPT_RW_SMAC },
	{ "rewrite-dst-mac", required_argument, NULL, OPT_RW_DMAC },
	{ "rewrite-src-ip", required_argument, NULL, OPT_RW_SIP },
	{ "rewrite-dst-ip", required_argument, NULL, OPT_RW_DIP },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct replay_cfg {
	const char *file, *ifname, *driver;
	unsigned threads, ring;
	uint64_t loops;
	enum replay_pace pace;
	double rate;		/* pps, Mbps or the multiplier */
	struct cap_rewrite rw;
	bool json;
};

struct replay;

struct producer {
	struct replay *rp;
	unsigned id;
	pthread_t thread;
	struct txp_pkt_pool *pool;
	uint64_t bytes;		/* of the frames it submitted */
	const char *error;
};

struct replay {
	const struct replay_cfg *cfg;
	struct capture cap;
	uint64_t *at;		/* frame i's offset from the start of a pass, ns */
	uint64_t loop_ns;	/* one pass of the capture */
	struct txp_dev *dev;
	uint64_t t0;
	const struct txp_run_stop *stop;
	struct producer prod[REPLAY_MAX_THREADS];
};

/* -- the command line ------------------------------------------------------- */

static double parse_rate(const char *opt, const char *s)
{
	char msg[PARSE_MSG_LEN];
	double v;

	if (!parse_str_double(opt, s, REPLAY_RATE_MIN, REPLAY_RATE_MAX, &v, msg, sizeof(msg)))
		usage_error("replay", "%s", msg);
	return v;
}

/* A MAC address; a source must be unicast (the group bit clear). */
static void parse_mac(const char *opt, const char *s, uint8_t mac[6], bool *set, bool source)
{
	char msg[PARSE_MSG_LEN];

	if (!(source ? parse_str_src_mac(opt, s, mac, msg, sizeof(msg)) :
		       parse_str_mac(opt, s, mac, msg, sizeof(msg))))
		usage_error("replay", "%s", msg);
	*set = true;
}

static void parse_ip(const char *opt, const char *s, uint32_t *ip, bool *set)
{
	char msg[PARSE_MSG_LEN];

	if (!parse_str_bench_ip(opt, s, ip, msg, sizeof(msg)))
		usage_error("replay", "%s", msg);
	*set = true;
}

static void set_pace(struct replay_cfg *c, const struct cmdline *cl, enum replay_pace p,
		     double rate)
{
	int given = cmdline_given(cl, OPT_PPS) + cmdline_given(cl, OPT_MBPS) +
		    cmdline_given(cl, OPT_MULT) + cmdline_given(cl, OPT_TOPSPEED);

	if (given > 1)
		usage_error("replay", "give at most one of --pps, --mbps, --multiplier, --topspeed");
	c->pace = p;
	c->rate = rate;
}

static void replay_option(struct replay_cfg *c, const struct cmdline *cl, int opt, const char *arg)
{
	switch (opt) {
	case OPT_DEV: c->ifname = parse_name("replay", "--dev", arg, "an interface name"); break;
	case OPT_DRIVER:
		if (strcmp(arg, "afpacket") && strcmp(arg, "afxdp") && strcmp(arg, "tap"))
			usage_error("replay", "--driver must be afpacket, afxdp or tap, got '%s'", arg);
		c->driver = arg;
		break;
	case OPT_THREADS:
		c->threads = (unsigned)parse_u64("replay", "--threads", arg, 1, REPLAY_MAX_THREADS);
		break;
	case OPT_LOOP: c->loops = parse_u64("replay", "--loop", arg, 1, 1000000); break;
	case OPT_RING: c->ring = (unsigned)parse_u64("replay", "--ring", arg, 2, 65536); break;
	case OPT_PPS: set_pace(c, cl, PACE_PPS, parse_rate("--pps", arg)); break;
	case OPT_MBPS: set_pace(c, cl, PACE_MBPS, parse_rate("--mbps", arg)); break;
	case OPT_MULT: set_pace(c, cl, PACE_CAPTURE, parse_rate("--multiplier", arg)); break;
	case OPT_TOPSPEED: set_pace(c, cl, PACE_TOP, 0); break;
	case OPT_RW_SMAC:
		parse_mac("--rewrite-src-mac", arg, c->rw.smac, &c->rw.src_mac, true);
		break;
	case OPT_RW_DMAC:
		parse_mac("--rewrite-dst-mac", arg, c->rw.dmac, &c->rw.dst_mac, false);
		break;
	case OPT_RW_SIP: parse_ip("--rewrite-src-ip", arg, &c->rw.sip, &c->rw.src_ip); break;
	case OPT_RW_DIP: parse_ip("--rewrite-dst-ip", arg, &c->rw.dip, &c->rw.dst_ip); break;
	case OPT_JSON: c->json = true; break;
	default: break;
	}
}

/* Parse argv (FILE first); returns 1 when --help was printed. */
static int replay_parse(struct replay_cfg *c, int argc, char **argv)
{
	struct cmdline cl;
	int opt;

	*c = (struct replay_cfg){ .driver = "afpacket", .threads = 1, .loops = 1, .ring = 512,
				  .pace = PACE_CAPTURE, .rate = 1 };
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(replay_help, stdout);
		return 1;
	}
	if (argc < 2 || argv[1][0] == '-')
		usage_error("replay", "give the capture first: txpath replay FILE.pcap --dev IFNAME");
	c->file = argv[1];
	cmdline_init(&cl, "replay", replay_opts);
	while ((opt = cmdline_next(&cl, argc - 1, argv + 1)) != -1) {
		if (opt == 'h' || opt == OPT_HELP) {
			fputs(replay_help, stdout);
			return 1;
		}
		replay_option(c, &cl, opt, optarg);
	}
	if (!c->ifname)
		usage_error("replay", "give the interface to send on: --dev IFNAME");
	return 0;
}

/* -- the timing ---------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

/* Must the producers stop: a signal asked, or the device died (its link
 * went down: every later frame would be dropped)? */
static bool stopping(const struct replay *rp)
{
	return (rp->stop && txp_run_interrupted(rp->stop)) || txp_netdrv_dead(rp->dev);
}

/* Wait until ns after the start (no wait at top speed): sleep, 10 ms at
 * most at a time, then spin the last 20 us.  False if the producers must
 * stop. */
static bool wait_until(const struct replay *rp, uint64_t ns)
{
	uint64_t when = rp->t0 + ns, now;

	if (rp->cfg->pace == PACE_TOP)
		return !stopping(rp);
	while ((now = now_ns()) + 50000 < when) {
		if (stopping(rp))
			return false;
		sleep_ns(when - now - 20000 < 10000000 ? when - now - 20000 : 10000000);
	}
	while (now_ns() < when)
		;
	return !stopping(rp);
}

/* -- the producers --------------------------------------------------------------- */

/* A packet for frame f, its head the captured bytes; NULL if the run is
 * stopping. */
static struct txp_pkt *replay_packet(struct producer *p, const struct cap_frame *f, uint64_t seq)
{
	struct txp_pkt *pkt;

	while (!(pkt = txp_pkt_pool_alloc(p->pool))) {
		if (stopping(p->rp))
			return NULL;
		sched_yield();	/* every packet in flight: the send buffer is full */
	}
	txp_pkt_attach_head(pkt, f->data, f->len, 0, f->len);
	pkt->flow = f->flow;
	pkt->seq = seq;
	return pkt;
}

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	struct replay *rp = p->rp;
	unsigned n = rp->cfg->threads;
	uint64_t seq = 0;

	txp_ctx_attach();
	p->pool = txp_pkt_pool_create(REPLAY_SNDBUF);
	if (!p->pool)
		p->error = "out of memory for packets";
	for (uint64_t l = 0; p->pool && l < rp->cfg->loops; l++) {
		for (size_t i = 0; i < rp->cap.n; i++) {
			const struct cap_frame *f = &rp->cap.frame[i];
			struct txp_pkt *pkt;

			if (f->flow % n != p->id)
				continue;
			if (!wait_until(rp, l * rp->loop_ns + rp->at[i]))
				goto out;
			pkt = replay_packet(p, f, seq++);
			if (!pkt)
				goto out;
			p->bytes += f->len;
			txp_dev_queue_xmit(rp->dev, pkt);
		}
	}
out:
	txp_ctx_detach();
	return NULL;
}

/* -- the device and the report ---------------------------------------------------- */

static struct txp_dev *replay_device(const struct replay *rp, char *err, size_t errlen)
{
	const struct replay_cfg *c = rp->cfg;
	/* The core xmit lock and one runner per queue: each producer's
	 * packets leave in the order it sent them.  The qdisc holds every
	 * packet the producers can have in flight at once (REPLAY_SNDBUF
	 * each): none is dropped for want of room (qdisc-limit). */
	const struct txp_netdrv_cfg base = {
		.dev = { .name = c->ifname, .lock = TXP_LOCK_CORE, .runner = TXP_RUNNER_EXCLUSIVE,
			 .txqueuelen = c->threads * REPLAY_SNDBUF },
		.ring = c->ring,
		.max_len = rp->cap.max_len < TXP_FRAME_MIN_LEN ? TXP_FRAME_MIN_LEN : rp->cap.max_len,
	};

	if (!strcmp(c->driver, "afxdp"))
		return txp_afxdp_create(&(struct txp_afxdp_cfg){ .base = base, .ifname = c->ifname },
					err, errlen);
	if (!strcmp(c->driver, "tap"))
		return txp_tap_create(&(struct txp_tap_cfg){ .base = base, .ifname = c->ifname }, err,
				      errlen);
	return txp_afpacket_create(&(struct txp_afpacket_cfg){ .base = base, .ifname = c->ifname },
				   err, errlen);
}

/* Wait until every frame submitted is transmitted or dropped (at most
 * REPLAY_DRAIN_NS). */
static void replay_drain(struct replay *rp)
{
	uint64_t until = now_ns() + REPLAY_DRAIN_NS;
	struct txp_dev_stats st;

	for (;;) {
		txp_dev_get_stats(rp->dev, &st);
		if (txp_dev_stats_accounted(&st) || now_ns() >= until)
			return;
		sleep_ns(1000000);
	}
}

struct replay_result {
	struct txp_dev_stats st;
	uint64_t bytes, dropped, frames, expected;
	double seconds;
	char died[128];			/* the device's cause of death; "" if it lived */
	enum txp_drop_reason died_drop;	/* what it dropped as it died */
	int interrupted;		/* the signal that stopped the producers, 0 if none */
};

/* Why the producers stopped before the end (the device died, a signal),
 * with how far they went; nothing if they did not. */
static void replay_report_stop(const struct replay_result *r)
{
	if (r->died[0])
		printf("  DEVICE DIED: %s; the producers stopped: %llu of the %llu frames were sent\n",
		       r->died, (unsigned long long)r->frames, (unsigned long long)r->expected);
	else if (r->interrupted)
		printf("  interrupted by %s: %llu of the %llu frames were sent\n",
		       signals_name(r->interrupted), (unsigned long long)r->frames,
		       (unsigned long long)r->expected);
}

static void replay_report_text(const struct replay *rp, const struct replay_result *r)
{
	const struct replay_cfg *c = rp->cfg;

	printf("txpath replay: %s onto %s (%s), %u threads, %llu loops\n", c->file, c->ifname,
	       c->driver, c->threads, (unsigned long long)c->loops);
	printf("  frames %llu (%llu bytes) in %.3f s: %.0f pps, %.1f Mbps\n",
	       (unsigned long long)r->frames, (unsigned long long)r->bytes, r->seconds,
	       r->seconds > 0 ? (double)r->st.transmitted / r->seconds : 0,
	       r->seconds > 0 ? (double)r->bytes * 8 / r->seconds / 1e6 : 0);
	printf("  transmitted %llu, dropped %llu", (unsigned long long)r->st.transmitted,
	       (unsigned long long)r->dropped);
	for (int d = 0; d < TXP_DROP_NR; d++)
		if (r->st.dropped[d])
			printf(", %s %llu", txp_drop_reason_name(d),
			       (unsigned long long)r->st.dropped[d]);
	printf("\n");
	replay_report_stop(r);
	if (rp->cap.truncated)
		printf("  %llu frames were captured truncated: sent as captured\n",
		       (unsigned long long)rp->cap.truncated);
	if (rp->cap.empty)
		printf("  %llu records of zero bytes in the capture: skipped\n",
		       (unsigned long long)rp->cap.empty);
}

static void replay_report_json(const struct replay *rp, const struct replay_result *r)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "file", rp->cfg->file);
	json_str(&j, "dev", rp->cfg->ifname);
	json_str(&j, "driver", rp->cfg->driver);
	json_u64(&j, "threads", rp->cfg->threads);
	json_u64(&j, "loops", rp->cfg->loops);
	json_u64(&j, "frames", r->frames);
	json_u64(&j, "frames_expected", r->expected);
	json_u64(&j, "frames_in_capture", rp->cap.n);
	json_u64(&j, "bytes", r->bytes);
	json_dbl(&j, "seconds", r->seconds);
	json_dbl(&j, "pps", r->seconds > 0 ? (double)r->st.transmitted / r->seconds : 0);
	json_dbl(&j, "mbps", r->seconds > 0 ? (double)r->bytes * 8 / r->seconds / 1e6 : 0);
	json_u64(&j, "transmitted", r->st.transmitted);
	json_u64(&j, "truncated", rp->cap.truncated);
	json_u64(&j, "empty_records", rp->cap.empty);
	json_obj_begin(&j, "dropped");
	for (int d = 0; d < TXP_DROP_NR; d++)
		json_u64(&j, txp_drop_reason_name(d), r->st.dropped[d]);
	json_obj_end(&j);
	json_str(&j, "died", r->died[0] ? r->died : NULL);
	json_str(&j, "interrupted", r->interrupted ? signals_name(r->interrupted) : NULL);
	json_obj_end(&j);
	json_finish(&j);
}

/* A device that died mid-replay, named on stderr with what it dropped
 * (as run's is); false if it lived. */
static bool replay_report_died(const struct replay *rp, const struct replay_result *r)
{
	if (!r->died[0])
		return false;
	if (r->died_drop == TXP_DROP_DEV_DOWN)
		fprintf(stderr, "txpath replay: %s: link went down mid-replay: %llu frames dropped "
			"as dev-down, %llu as tx-error, %llu not sent\n", rp->cfg->ifname,
			(unsigned long long)r->st.dropped[TXP_DROP_DEV_DOWN],
			(unsigned long long)r->st.dropped[TXP_DROP_TX_ERROR],
			(unsigned long long)(r->expected - r->frames));
	else
		fprintf(stderr, "txpath replay: %s: %s; %llu frames dropped as %s, %llu not sent\n",
			rp->cfg->ifname, r->died, (unsigned long long)r->st.dropped[r->died_drop],
			txp_drop_reason_name(r->died_drop),
			(unsigned long long)(r->expected - r->frames));
	return true;
}

/* The device's end: closed (every frame accounted), its counters and
 * cause of death into r, freed. */
static void replay_close(struct replay *rp, struct replay_result *r)
{
	const char *died = txp_netdrv_dead(rp->dev);
	struct txp_netdrv_stats ns;

	snprintf(r->died, sizeof(r->died), "%s", died ? died : "");
	txp_dev_close(rp->dev);
	txp_dev_get_stats(rp->dev, &r->st);
	txp_netdrv_get_stats(rp->dev, &ns);
	r->died_drop = ns.died_drop;
	txp_netdrv_destroy(rp->dev);
}

/* Send the capture; the result into r.  0, or -1 and a message. */
static int replay_send(struct replay *rp, struct replay_result *r, char *err, size_t errlen)
{
	unsigned started = 0;

	rp->dev = replay_device(rp, err, errlen);
	if (!rp->dev)
		return -1;
	rp->t0 = now_ns();
	for (; started < rp->cfg->threads; started++) {
		rp->prod[started] = (struct producer){ .rp = rp, .id = started };
		if (pthread_create(&rp->prod[started].thread, NULL, producer_main,
				   &rp->prod[started]))
			break;
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(rp->prod[i].thread, NULL);
	replay_drain(rp);
	r->seconds = (double)(now_ns() - rp->t0) / 1e9;
	replay_close(rp, r);
	for (unsigned i = 0; i < started; i++) {
		txp_pkt_pool_destroy(rp->prod[i].pool);
		r->bytes += rp->prod[i].bytes;
	}
	r->dropped = txp_dev_stats_dropped(&r->st);
	r->frames = r->st.submitted;
	r->expected = rp->cap.n * rp->cfg->loops;
	r->interrupted = signals_caught();
	if (started < rp->cfg->threads || (started && rp->prod[0].error)) {
		snprintf(err, errlen, "cannot start the producers");
		return -1;
	}
	return 0;
}

/* The capture in memory, rewritten, and its schedule.  0, or -1 and a
 * message. */
static int replay_prepare(struct replay *rp, char *err, size_t errlen)
{
	const struct replay_cfg *c = rp->cfg;

	if (capture_load(&rp->cap, c->file, err, errlen) != 0)
		return -1;
	capture_rewrite(&rp->cap, &c->rw);
	rp->at = calloc(rp->cap.n, sizeof(*rp->at));
	if (!rp->at) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return replay_schedule(&rp->cap, c->pace, c->rate, c->loops, rp->at, &rp->loop_ns, err,
			       errlen);
}

int cmd_replay(int argc, char **argv)
{
	struct replay_cfg cfg;
	struct replay_result res = { 0 };
	static struct replay rp;
	char err[256];
	int rc;

	if (replay_parse(&cfg, argc, argv))
		return 0;
	rp.cfg = &cfg;
	if (replay_prepare(&rp, err, sizeof(err)) != 0) {
		fprintf(stderr, "txpath replay: %s\n", err);
		free(rp.at);
		capture_free(&rp.cap);
		return 1;
	}
	rp.stop = signals_catch();
	rc = replay_send(&rp, &res, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "txpath replay: %s\n", err);
	else if (cfg.json)
		replay_report_json(&rp, &res);
	else
		replay_report_text(&rp, &res);
	free(rp.at);
	capture_free(&rp.cap);
	if (rc != 0 || replay_report_died(&rp, &res))
		return signals_status(1);
	return signals_status(res.dropped || res.frames != res.expected ? 1 : 0);
}
