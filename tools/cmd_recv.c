/*
 * cmd_recv.c - `txpath recv`: count txpath's frames arriving on an
 * interface and check each flow's sequence numbers: received, lost,
 * duplicated, reordered.  An independent checker of what `txpath run`
 * sent, for tests and for people.
 *
 * A PACKET_RX_RING (TPACKET_V3) large enough that a burst waits in the
 * ring instead of being dropped; the kernel's own drop count of the
 * socket is reported, so loss at the receiver is told from loss on the
 * wire.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "recv_count.h"
#include "signals.h"

#define RECV_BLOCK (1u << 20)	/* ring block: 1 MiB */
#define RECV_BLOCKS 128u	/* 128 MiB of ring: a long burst of small frames */

static const char recv_help[] =
"usage: txpath recv --dev IFNAME [--seconds S] [--packets N] [--json]\n"
"       txpath recv --file PATH [--json]\n"
"\n"
"Counts txpath's frames (Ethernet/IPv4/UDP carrying a flow id and a sequence\n"
"number) arriving on IFNAME and checks each flow's sequence: received, lost\n"
"(gaps below the highest number seen), duplicated, reordered.  Frames of\n"
"others are counted apart; frames that look like txpath's but fail their\n"
"checksums or pattern are counted as bad.\n"
"\n"
"Each flow is checked in a window of the last 2^22 numbers (four times the\n"
"largest reordering a txpath sender makes); a frame older than that, or more\n"
"than that ahead without a second one near it (a stray), is counted as out of\n"
"window instead.  At most 256 flows are followed; further flows' frames are\n"
"counted as untracked.\n"
"\n"
"  --dev IFNAME            the interface to listen on\n"
"  --file PATH             read a pcap file instead (txpath run --driver pcap)\n"
"  --seconds S             stop after S seconds\n"
"  --packets N             stop once N of txpath's frames arrived\n"
"                          (neither: until interrupted)\n"
"  --json                  print one JSON object instead of the report\n"
"  -h, --help              this help\n"
"\n"
"It prints 'listening on IFNAME' on stderr once it is ready.\n"
"Exit status: 0 when nothing was lost, duplicated, bad, out of window or\n"
"untracked and the socket dropped nothing (and, with --packets, all N arrived;\n"
"reordering is reported, not an error: LLTX reorders), 1 otherwise or when it\n"
"could not listen, or when the interface went down or away (it stops, reports\n"
"what arrived until then and says so on stderr), 2 on bad usage; 130 (SIGINT)\n"
"or 143 (SIGTERM) when interrupted, after the report of what arrived until\n"
"then (a second signal ends it at once).\n";
/* The figures the help gives. */
_Static_assert(FLOWS_WINDOW == 1u << 22 && FLOWS_MAX == 256, "recv_help says 2^22 and 256");

struct recv {
	struct recv_count count;
	uint64_t socket_drops;
	double seconds;
	int link_err;		/* the socket's error when the interface went away, else 0 */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Open the socket and its ring; -1 and a message on failure. */
static int recv_open(const char *ifname, void **map, char *err, size_t errlen)
{
	int version = TPACKET_V3, fd;
	struct tpacket_req3 req;
	struct sockaddr_ll sll;
	unsigned ifindex = if_nametoindex(ifname);

	if (!ifindex) {
		snprintf(err, errlen, "%s: no such interface", ifname);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0) {
		if (errno == EPERM || errno == EACCES)
			snprintf(err, errlen, "%s: permission denied (run as root or with CAP_NET_RAW)",
				 ifname);
		else
			snprintf(err, errlen, "%s: AF_PACKET socket: %s", ifname, strerror(errno));
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.tp_block_size = RECV_BLOCK;
	req.tp_block_nr = RECV_BLOCKS;
	req.tp_frame_size = 2048;
	req.tp_frame_nr = RECV_BLOCK / 2048 * RECV_BLOCKS;
	req.tp_retire_blk_tov = 10;	/* ms: hand over a block that sits half full */
	if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) != 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) != 0) {
		snprintf(err, errlen, "%s: PACKET_RX_RING: %s", ifname, strerror(errno));
		close(fd);
		return -1;
	}
	*map = mmap(NULL, (size_t)RECV_BLOCK * RECV_BLOCKS, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)ifindex;
	if (*map == MAP_FAILED || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		snprintf(err, errlen, "%s: cannot listen: %s", ifname, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Walk one block the kernel handed over, then give it back. */
static void recv_block(struct recv *rv, struct tpacket_block_desc *b)
{
	struct tpacket3_hdr *h = (void *)((unsigned char *)b + b->hdr.bh1.offset_to_first_pkt);

	for (unsigned i = 0; i < b->hdr.bh1.num_pkts; i++) {
		const struct sockaddr_ll *sll = (const void *)((unsigned char *)h +
			TPACKET_ALIGN(sizeof(struct tpacket3_hdr)));

		/* Frames this host sent out of the interface are not arrivals. */
		if (sll->sll_pkttype != PACKET_OUTGOING)
			recv_count_frame(&rv->count, (unsigned char *)h + h->tp_mac,
					 h->tp_snaplen);
		h = (void *)((unsigned char *)h + h->tp_next_offset);
	}
	/* Release: done with the block before handing it back; pairs with
	 * the kernel's read of the status (it checks for TP_STATUS_KERNEL). */
	__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
}

/* The socket's pending error (cleared by reading it) if it says the
 * interface went down or away (the kernel unhooks the socket then), else 0. */
static int recv_link_error(int fd)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
		return 0;
	return e == ENETDOWN || e == ENODEV || e == ENXIO ? e : 0;
}

/* Count until a signal, the deadline, the packets asked for, or the
 * interface going down or away (rv->link_err). */
static void recv_loop(struct recv *rv, int fd, void *map, double seconds, uint64_t packets)
{
	double t0 = now_s(), deadline = seconds > 0 ? t0 + seconds : 0;
	unsigned cur = 0;

	while (!signals_caught()) {
		struct tpacket_block_desc *b =
			(void *)((unsigned char *)map + (size_t)cur * RECV_BLOCK);
		double now;

		if (__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER) {
			recv_block(rv, b);
			cur = (cur + 1) % RECV_BLOCKS;
		} else {
			struct pollfd p = { .fd = fd, .events = POLLIN | POLLERR };

			if (poll(&p, 1, 20) > 0 && (p.revents & POLLERR) &&
			    (rv->link_err = recv_link_error(fd)) != 0)
				break;
		}
		if (packets && recv_count_ours(&rv->count) >= packets)
			break;
		now = now_s();
		if (deadline && now >= deadline)
			break;
	}
	rv->seconds = now_s() - t0;
}

static void recv_report_text(const struct recv *rv, const char *ifname)
{
	const struct flows *fl = rv->count.flows;
	struct flow_stats sum, st;

	flows_sum(fl, &sum);
	printf("txpath recv: %s, %.3f s\n", ifname, rv->seconds);
	if (signals_caught())
		printf("  interrupted by %s: what arrived until then\n", signals_name(signals_caught()));
	printf("  frames %llu: txpath's %llu, others %llu, bad %llu, socket drops %llu\n",
	       (unsigned long long)rv->count.frames, (unsigned long long)recv_count_ours(&rv->count),
	       (unsigned long long)rv->count.alien, (unsigned long long)rv->count.bad,
	       (unsigned long long)rv->socket_drops);
	printf("  %u flows: received %llu, lost %llu, duplicated %llu, reordered %llu\n",
	       flows_count(fl), (unsigned long long)sum.received, (unsigned long long)sum.lost,
	       (unsigned long long)sum.duplicated, (unsigned long long)sum.reordered);
	printf("  out of window %llu (too old %llu, too far ahead %llu), untracked flows' frames %llu\n",
	       (unsigned long long)(sum.too_old + sum.too_far), (unsigned long long)sum.too_old,
	       (unsigned long long)sum.too_far, (unsigned long long)flows_untracked(fl));
	for (unsigned i = 0; i < flows_count(fl); i++) {
		flows_get(fl, i, &st);
		printf("    flow %u: received %llu, lost %llu, duplicated %llu, reordered %llu, "
		       "out of window %llu, last seq %llu\n",
		       st.id, (unsigned long long)st.received, (unsigned long long)st.lost,
		       (unsigned long long)st.duplicated, (unsigned long long)st.reordered,
		       (unsigned long long)(st.too_old + st.too_far),
		       (unsigned long long)st.last_seq);
	}
}

/* The counts of one flow, or of all (sum). */
static void json_flow_counts(struct json *j, const struct flow_stats *st)
{
	json_u64(j, "received", st->received);
	json_u64(j, "lost", st->lost);
	json_u64(j, "duplicated", st->duplicated);
	json_u64(j, "reordered", st->reordered);
	json_u64(j, "out_of_window", st->too_old + st->too_far);
	json_u64(j, "too_old", st->too_old);
	json_u64(j, "too_far_ahead", st->too_far);
}

static void recv_report_json(const struct recv *rv, const char *ifname)
{
	const struct flows *fl = rv->count.flows;
	struct flow_stats sum, st;
	struct json j;

	flows_sum(fl, &sum);
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "dev", ifname);
	json_dbl(&j, "seconds", rv->seconds);
	json_str(&j, "interrupted", signals_caught() ? signals_name(signals_caught()) : NULL);
	json_u64(&j, "frames", rv->count.frames);
	json_u64(&j, "alien", rv->count.alien);
	json_u64(&j, "bad", rv->count.bad);
	json_u64(&j, "socket_drops", rv->socket_drops);
	json_flow_counts(&j, &sum);
	json_u64(&j, "untracked", flows_untracked(fl));
	json_arr_begin(&j, "flows");
	for (unsigned i = 0; i < flows_count(fl); i++) {
		flows_get(fl, i, &st);
		json_obj_begin(&j, NULL);
		json_u64(&j, "flow", st.id);
		json_flow_counts(&j, &st);
		json_u64(&j, "last_seq", st.last_seq);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

/* Listen on ifname until stopped; 0, or -1 and a message. */
static int recv_dev(struct recv *rv, const char *ifname, double seconds, uint64_t packets,
		    char *err, size_t errlen)
{
	struct tpacket_stats_v3 ps;
	socklen_t pslen = sizeof(ps);
	void *map = NULL;
	int fd = recv_open(ifname, &map, err, errlen);

	if (fd < 0)
		return -1;
	fprintf(stderr, "txpath recv: listening on %s\n", ifname);
	fflush(stderr);
	recv_loop(rv, fd, map, seconds, packets);
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &ps, &pslen) == 0)
		rv->socket_drops = ps.tp_drops;
	munmap(map, (size_t)RECV_BLOCK * RECV_BLOCKS);
	close(fd);
	return 0;
}

/* The line for an interface that went down or away under recv. */
static void recv_say_link(const struct recv *rv, const char *ifname)
{
	if (!if_nametoindex(ifname))
		fprintf(stderr, "txpath recv: %s: the interface went away while listening (%s)\n",
			ifname, strerror(rv->link_err));
	else
		fprintf(stderr, "txpath recv: %s: the link went down while listening (%s)\n",
			ifname, strerror(rv->link_err));
}

/* 0 when every frame of txpath's was counted once, in the window, and all
 * that were asked for came. */
static int recv_status(const struct recv *rv, uint64_t packets)
{
	struct flow_stats sum;

	flows_sum(rv->count.flows, &sum);
	return sum.lost || sum.duplicated || sum.too_old || sum.too_far ||
	       flows_untracked(rv->count.flows) || rv->count.bad || rv->socket_drops ||
	       rv->link_err || (packets && sum.received < packets) ? 1 : 0;
}

enum { OPT_DEV = 1000, OPT_FILE, OPT_SECONDS, OPT_PACKETS, OPT_JSON, OPT_HELP };

int cmd_recv(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, OPT_DEV },
		{ "file", required_argument, NULL, OPT_FILE },
		{ "seconds", required_argument, NULL, OPT_SECONDS },
		{ "packets", required_argument, NULL, OPT_PACKETS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifname = NULL, *file = NULL;
	double seconds = 0, t0;
	uint64_t packets = 0;
	bool json = false;
	struct cmdline cl;
	struct recv rv;
	char err[256];
	int c, r;

	cmdline_init(&cl, "recv", opts);
	while ((c = cmdline_next(&cl, argc, argv)) != -1) {
		switch (c) {
		case OPT_DEV:
			ifname = parse_name("recv", "--dev", optarg, "an interface name");
			break;
		case OPT_FILE:
			file = parse_name("recv", "--file", optarg, "a path");
			break;
		case OPT_SECONDS:
			seconds = parse_seconds("recv", "--seconds", optarg);
			break;
		case OPT_PACKETS:
			packets = parse_u64("recv", "--packets", optarg, 1, UINT64_C(1) << 40);
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
		case OPT_HELP:
			fputs(recv_help, stdout);
			return 0;
		}
	}
	if (!ifname == !file)
		usage_error("recv", "give the interface to listen on (--dev IFNAME) or a pcap file (--file PATH)");

	memset(&rv, 0, sizeof(rv));
	rv.count.flows = flows_new(FLOWS_WINDOW, FLOWS_MAX);
	if (!rv.count.flows) {
		fprintf(stderr, "txpath recv: out of memory\n");
		return 1;
	}
	signals_catch();
	if (file) {
		ifname = file;
		t0 = now_s();
		r = recv_count_pcap_file(&rv.count, file, err, sizeof(err));
		rv.seconds = now_s() - t0;
	} else {
		r = recv_dev(&rv, ifname, seconds, packets, err, sizeof(err));
	}
	if (r < 0) {
		fprintf(stderr, "txpath recv: %s\n", err);
		flows_free(rv.count.flows);
		return 1;
	}
	if (json)
		recv_report_json(&rv, ifname);
	else
		recv_report_text(&rv, ifname);
	if (rv.link_err)
		recv_say_link(&rv, ifname);
	r = recv_status(&rv, packets);
	flows_free(rv.count.flows);
	return signals_status(r);
}
