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
#include <pcap/pcap.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "txpath/net.h"

#define RECV_BLOCK (1u << 20)	/* ring block: 1 MiB */
#define RECV_BLOCKS 128u	/* 128 MiB of ring: a long burst of small frames */
#define RECV_MAX_FLOWS 4096u

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
"  --dev IFNAME            the interface to listen on\n"
"  --file PATH             read a pcap file instead (txpath run --driver pcap)\n"
"  --seconds S             stop after S seconds\n"
"  --packets N             stop once N of txpath's frames arrived\n"
"                          (neither: until interrupted)\n"
"  --json                  print one JSON object instead of the report\n"
"  -h, --help              this help\n"
"\n"
"It prints 'listening on IFNAME' on stderr once it is ready.\n"
"Exit status: 0 when nothing was lost, duplicated or bad and the socket dropped\n"
"nothing (and, with --packets, all N arrived; reordering is reported, not an\n"
"error: LLTX reorders), 1 otherwise or when it could not listen, 2 on bad usage.\n";

struct flow {
	uint64_t *seen;		/* bitmap of sequence numbers */
	uint64_t words;		/* of seen */
	uint64_t received, duplicated, reordered;
	uint64_t max_seq;
	bool any;
};

struct recv {
	struct flow *flows;
	uint64_t frames, alien, bad, received, duplicated, reordered;
	uint64_t socket_drops;
	double seconds;
};

static volatile sig_atomic_t recv_stop;

static void on_signal(int sig)
{
	(void)sig;
	recv_stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Record (flow, seq); false when out of memory. */
static bool flow_record(struct recv *rv, uint32_t id, uint64_t seq)
{
	struct flow *f = &rv->flows[id];
	uint64_t w = seq / 64, bit = UINT64_C(1) << (seq % 64);

	if (w >= f->words) {
		uint64_t n = f->words ? f->words : 1024;
		uint64_t *p;

		while (n <= w)
			n *= 2;
		p = realloc(f->seen, n * sizeof(*p));
		if (!p)
			return false;
		memset(p + f->words, 0, (n - f->words) * sizeof(*p));
		f->seen = p;
		f->words = n;
	}
	if (f->seen[w] & bit) {
		f->duplicated++;
		rv->duplicated++;
		return true;
	}
	f->seen[w] |= bit;
	f->received++;
	rv->received++;
	if (f->any && seq < f->max_seq) {
		f->reordered++;
		rv->reordered++;
	}
	if (!f->any || seq > f->max_seq)
		f->max_seq = seq;
	f->any = true;
	return true;
}

static uint64_t flow_lost(const struct flow *f)
{
	return f->any ? f->max_seq + 1 - f->received : 0;
}

static void recv_frame(struct recv *rv, const unsigned char *data, unsigned len)
{
	uint32_t id, magic;
	uint64_t seq;

	rv->frames++;
	if (txp_frame_parse(data, len, &id, &seq)) {
		if (id >= RECV_MAX_FLOWS || !flow_record(rv, id, seq))
			rv->bad++;
		return;
	}
	/* Not a valid frame of ours: damaged (it has our magic word where
	 * ours do), or someone else's. */
	magic = len >= 46 ? (uint32_t)data[42] << 24 | (uint32_t)data[43] << 16 |
				    (uint32_t)data[44] << 8 | data[45] : 0;
	if (len >= 46 && data[12] == 0x08 && data[13] == 0x00 && magic == TXP_FRAME_MAGIC)
		rv->bad++;
	else
		rv->alien++;
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
			recv_frame(rv, (unsigned char *)h + h->tp_mac, h->tp_snaplen);
		h = (void *)((unsigned char *)h + h->tp_next_offset);
	}
	/* Release: done with the block before handing it back; pairs with
	 * the kernel's read of the status (it checks for TP_STATUS_KERNEL). */
	__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
}

static void recv_loop(struct recv *rv, int fd, void *map, double seconds, uint64_t packets)
{
	double t0 = now_s(), deadline = seconds > 0 ? t0 + seconds : 0;
	unsigned cur = 0;

	while (!recv_stop) {
		struct tpacket_block_desc *b =
			(void *)((unsigned char *)map + (size_t)cur * RECV_BLOCK);
		double now;

		if (__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER) {
			recv_block(rv, b);
			cur = (cur + 1) % RECV_BLOCKS;
		} else {
			struct pollfd p = { .fd = fd, .events = POLLIN | POLLERR };

			poll(&p, 1, 20);
		}
		if (packets && rv->received + rv->duplicated >= packets)
			break;
		now = now_s();
		if (deadline && now >= deadline)
			break;
	}
	rv->seconds = now_s() - t0;
}

/* Read every frame of a pcap file; 0, or -1 and a message. */
static int recv_file(struct recv *rv, const char *path, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const unsigned char *data;
	double t0 = now_s();
	pcap_t *p = pcap_open_offline(path, perr);
	int rc;

	if (!p) {
		snprintf(err, errlen, "%s: %.200s", path, perr);
		return -1;
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		if (h->caplen < h->len)
			rv->bad++;	/* truncated: not the frame that was sent */
		else
			recv_frame(rv, data, h->caplen);
	}
	if (rc == PCAP_ERROR)
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(p));
	pcap_close(p);
	rv->seconds = now_s() - t0;
	return rc == PCAP_ERROR ? -1 : 0;
}

static void recv_report_text(const struct recv *rv, const char *ifname)
{
	uint64_t lost = 0;
	unsigned nflows = 0;

	for (unsigned i = 0; i < RECV_MAX_FLOWS; i++)
		if (rv->flows[i].any) {
			lost += flow_lost(&rv->flows[i]);
			nflows++;
		}
	printf("txpath recv: %s, %.3f s\n", ifname, rv->seconds);
	printf("  frames %llu: txpath's %llu, others %llu, bad %llu, socket drops %llu\n",
	       (unsigned long long)rv->frames,
	       (unsigned long long)(rv->received + rv->duplicated),
	       (unsigned long long)rv->alien, (unsigned long long)rv->bad,
	       (unsigned long long)rv->socket_drops);
	printf("  %u flows: received %llu, lost %llu, duplicated %llu, reordered %llu\n", nflows,
	       (unsigned long long)rv->received, (unsigned long long)lost,
	       (unsigned long long)rv->duplicated, (unsigned long long)rv->reordered);
	for (unsigned i = 0; i < RECV_MAX_FLOWS; i++) {
		const struct flow *f = &rv->flows[i];

		if (f->any)
			printf("    flow %u: received %llu, lost %llu, duplicated %llu, reordered %llu, last seq %llu\n",
			       i, (unsigned long long)f->received,
			       (unsigned long long)flow_lost(f),
			       (unsigned long long)f->duplicated,
			       (unsigned long long)f->reordered, (unsigned long long)f->max_seq);
	}
}

static void recv_report_json(const struct recv *rv, const char *ifname)
{
	struct json j;
	uint64_t lost = 0;

	for (unsigned i = 0; i < RECV_MAX_FLOWS; i++)
		lost += flow_lost(&rv->flows[i]);
	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "dev", ifname);
	json_dbl(&j, "seconds", rv->seconds);
	json_u64(&j, "frames", rv->frames);
	json_u64(&j, "alien", rv->alien);
	json_u64(&j, "bad", rv->bad);
	json_u64(&j, "socket_drops", rv->socket_drops);
	json_u64(&j, "received", rv->received);
	json_u64(&j, "lost", lost);
	json_u64(&j, "duplicated", rv->duplicated);
	json_u64(&j, "reordered", rv->reordered);
	json_arr_begin(&j, "flows");
	for (unsigned i = 0; i < RECV_MAX_FLOWS; i++) {
		const struct flow *f = &rv->flows[i];

		if (!f->any)
			continue;
		json_obj_begin(&j, NULL);
		json_u64(&j, "flow", i);
		json_u64(&j, "received", f->received);
		json_u64(&j, "lost", flow_lost(f));
		json_u64(&j, "duplicated", f->duplicated);
		json_u64(&j, "reordered", f->reordered);
		json_u64(&j, "last_seq", f->max_seq);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
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
	double seconds = 0;
	uint64_t packets = 0, lost = 0;
	bool json = false;
	struct recv rv;
	struct tpacket_stats_v3 ps;
	socklen_t pslen = sizeof(ps);
	void *map = NULL;
	char err[256];
	int c, fd;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_DEV:
			ifname = optarg;
			break;
		case OPT_FILE:
			file = optarg;
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
		case ':':
			usage_error("recv", "%s needs a value", argv[optind - 1]);
		default:
			usage_error("recv", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("recv", "unexpected argument '%s'", argv[optind]);
	if (!ifname == !file)
		usage_error("recv", "give the interface to listen on (--dev IFNAME) or a pcap file (--file PATH)");

	memset(&rv, 0, sizeof(rv));
	rv.flows = calloc(RECV_MAX_FLOWS, sizeof(*rv.flows));
	if (!rv.flows) {
		fprintf(stderr, "txpath recv: out of memory\n");
		return 1;
	}
	if (file) {
		ifname = file;
		fd = recv_file(&rv, file, err, sizeof(err));
	} else {
		fd = recv_open(ifname, &map, err, sizeof(err));
	}
	if (fd < 0) {
		fprintf(stderr, "txpath recv: %s\n", err);
		free(rv.flows);
		return 1;
	}
	if (!file) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		fprintf(stderr, "txpath recv: listening on %s\n", ifname);
		fflush(stderr);
		recv_loop(&rv, fd, map, seconds, packets);
		if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &ps, &pslen) == 0)
			rv.socket_drops = ps.tp_drops;
		munmap(map, (size_t)RECV_BLOCK * RECV_BLOCKS);
		close(fd);
	}

	if (json)
		recv_report_json(&rv, ifname);
	else
		recv_report_text(&rv, ifname);
	for (unsigned i = 0; i < RECV_MAX_FLOWS; i++) {
		lost += flow_lost(&rv.flows[i]);
		free(rv.flows[i].seen);
	}
	free(rv.flows);
	return lost || rv.duplicated || rv.bad || rv.socket_drops ||
	       (packets && rv.received < packets) ? 1 : 0;
}
