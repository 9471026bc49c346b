/*
 * mt_sender.c - many threads, one AF_XDP queue: each thread sends UDP
 * datagrams of its own (mixed sizes; some scatter-gather, their payload in
 * a buffer of the thread's that the packet's destructor frees) through one
 * txpath device, and a receiver on the far end of the veth pair checks
 * every byte of every payload, and that each arrived exactly once.
 *
 * The frames are written where the NIC reads them: the threads' packets
 * come from txp_afxdp_pool_create(), whose buffers are UMEM frames, so a
 * whole frame is posted with no copy by txpath (a scatter-gather one is
 * gathered into a UMEM frame by the driver).
 *
 * It runs in a network namespace of its own (unshare(CLONE_NEWNET)), with
 * a veth pair made there (veth0 -> veth1), gone when it exits; the frames
 * are 198.18.0.1 -> 198.18.0.2 (RFC 2544's benchmarking range).  Root only
 * (exit 77 otherwise: skipped as a test).
 *
 * usage: mt_sender [THREADS [PACKETS_PER_THREAD]]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* unshare(), CLONE_NEWNET */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "txpath/ctx.h"
#include "txpath/netdrv.h"

#define MAX_THREADS 16
#define POOL_PACKETS 64		/* each thread's packets in flight */
#define HDR_LEN 42		/* Ethernet + IPv4 + UDP */
#define TAG_LEN 8		/* the payload starts with thread, seq */
#define UDP_PORT 9999

static unsigned nthreads = 4, per_thread = 5000;
static struct txp_dev *dev;
static uint8_t src_mac[6], dst_mac[6];
static unsigned char *seen[MAX_THREADS];	/* the receiver's: [seq] times */
static atomic_uint received, bad;
static atomic_bool stop_rx;

/* Thread t's datagram seq: its payload length, and payload byte k. */
static unsigned payload_len(unsigned t, unsigned seq)
{
	return TAG_LEN + 10 + (seq * 131u + t * 17u) % 1400u;
}

static unsigned char payload_byte(unsigned t, unsigned seq, unsigned k)
{
	return (unsigned char)(k * 7u + seq * 3u + t * 101u);
}

/* Thread t's datagram seq is scatter-gather: its payload after the tag
 * lives in the thread's own buffer, a fragment. */
static bool is_sg(unsigned seq)
{
	return seq % 4 == 3;
}

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Ethernet, IPv4 (checksummed) and UDP (no checksum: 0 is allowed on
 * IPv4) headers for a payload of plen bytes. */
static void write_headers(unsigned char *f, unsigned plen)
{
	unsigned char *ip = f + 14, *udp = f + 34;
	uint32_t sum = 0;

	memcpy(f, dst_mac, 6);
	memcpy(f + 6, src_mac, 6);
	put16(f + 12, ETH_P_IP);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, 20 + 8 + plen);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	put32(ip + 12, 0xc6120001);	/* 198.18.0.1 */
	put32(ip + 16, 0xc6120002);	/* 198.18.0.2 */
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 10, ~sum & 0xffff);
	put16(udp, UDP_PORT);
	put16(udp + 2, UDP_PORT);
	put16(udp + 4, 8 + plen);
	put16(udp + 6, 0);
}

/* The destructor of a scatter-gather packet: its fragment's buffer is
 * the thread's, released once the device is done with it. */
static void free_user_buffer(struct txp_pkt *pkt)
{
	free(pkt->sk);
}

/* Fill pkt (from the UMEM pool, empty) with datagram seq of thread t. */
static int build(struct txp_pkt *pkt, unsigned t, unsigned seq)
{
	unsigned plen = payload_len(t, seq), head = HDR_LEN + (is_sg(seq) ? TAG_LEN : plen);
	unsigned char *f = txp_pkt_put(pkt, head);

	if (!f)
		return -ENOSPC;
	write_headers(f, plen);
	put32(f + HDR_LEN, t);
	put32(f + HDR_LEN + 4, seq);
	if (!is_sg(seq)) {
		for (unsigned k = TAG_LEN; k < plen; k++)
			f[HDR_LEN + k] = payload_byte(t, seq, k);
		return 0;
	}
	unsigned char *mine = malloc(plen - TAG_LEN);

	if (!mine)
		return -ENOMEM;
	for (unsigned k = TAG_LEN; k < plen; k++)
		mine[k - TAG_LEN] = payload_byte(t, seq, k);
	pkt->sk = mine;
	pkt->destructor = free_user_buffer;
	return txp_pkt_add_frag(pkt, mine, plen - TAG_LEN);
}

static void *sender_main(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, seq = 0;
	char err[256];
	struct txp_pkt_pool *pool;

	txp_ctx_attach();
	pool = txp_afxdp_pool_create(dev, POOL_PACKETS, 0, err, sizeof(err));
	if (!pool) {
		fprintf(stderr, "mt_sender: thread %u: %s\n", t, err);
		exit(1);
	}
	while (seq < per_thread) {
		struct txp_pkt *pkt = txp_pkt_pool_alloc(pool);

		if (!pkt) {	/* every packet in flight: wait for completions */
			sched_yield();
			continue;
		}
		if (build(pkt, t, seq) != 0) {
			fprintf(stderr, "mt_sender: cannot build datagram %u\n", seq);
			exit(1);
		}
		txp_dev_queue_xmit(dev, pkt);
		seq++;
	}
	txp_ctx_detach();
	return pool;	/* destroyed once the device is, with every packet home */
}

/* One frame at veth1: ours (UDP to UDP_PORT) is checked byte for byte. */
static void check_frame(const unsigned char *f, unsigned len)
{
	unsigned t, seq, plen;

	if (len < HDR_LEN + TAG_LEN || f[12] != 0x08 || f[13] != 0x00 || f[23] != IPPROTO_UDP ||
	    (f[36] << 8 | f[37]) != UDP_PORT)
		return;		/* not ours (the kernel's own, say) */
	t = get32(f + HDR_LEN);
	seq = get32(f + HDR_LEN + 4);
	if (t >= nthreads || seq >= per_thread || len != HDR_LEN + payload_len(t, seq)) {
		atomic_fetch_add(&bad, 1);
		return;
	}
	plen = payload_len(t, seq);
	for (unsigned k = TAG_LEN; k < plen; k++)
		if (f[HDR_LEN + k] != payload_byte(t, seq, k)) {
			atomic_fetch_add(&bad, 1);
			return;
		}
	if (seen[t][seq]++)
		atomic_fetch_add(&bad, 1);	/* a duplicate */
	else
		atomic_fetch_add(&received, 1);
}

static void *receiver_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	unsigned char buf[2048];

	while (!atomic_load(&stop_rx)) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n > 0)
			check_frame(buf, (unsigned)n);
	}
	return NULL;
}

/* A packet socket on veth1 with a large buffer, and veth1's MAC. */
static int open_receiver(void)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)), big = 256 << 20;
	struct timeval tv = { .tv_usec = 100000 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr;

	if (fd < 0)
		return -1;
	sll.sll_ifindex = (int)if_nametoindex("veth1");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "veth1");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0 ||
	    ioctl(fd, SIOCGIFHWADDR, &ifr) != 0) {
		close(fd);
		return -1;
	}
	memcpy(dst_mac, ifr.ifr_hwaddr.sa_data, 6);
	return fd;
}

/* A namespace of this process's own, with veth0 <-> veth1 up in it;
 * veth1 runs NAPI (GRO on), whose ring pushes back on veth0. */
static int make_netns(void)
{
	if (unshare(CLONE_NEWNET) != 0)
		return -1;
	return system("ip link set lo up && ip link add veth0 type veth peer name veth1 && "
		      "ethtool -K veth1 gro on >/dev/null 2>&1; "
		      "ip link set veth0 up && ip link set veth1 up") == 0 ? 0 : -1;
}

/* Wait (at most ~10 s) until every datagram is counted sent or dropped by
 * the device, and every one sent has arrived. */
static void wait_done(unsigned total)
{
	struct txp_dev_stats st;

	for (int i = 0; i < 10000; i++) {
		txp_dev_get_stats(dev, &st);
		if (st.transmitted + st.dropped[TXP_DROP_DEV_DOWN] + st.dropped[TXP_DROP_DRIVER] ==
			    total &&
		    atomic_load(&received) >= st.transmitted)
			return;
		usleep(1000);
	}
}

int main(int argc, char **argv)
{
	struct txp_afxdp_cfg cfg = { .ifname = "veth0" };
	pthread_t th[MAX_THREADS], rx;
	void *pools[MAX_THREADS];
	struct txp_netdrv_stats ns;
	struct txp_dev_stats st;
	char err[256];
	unsigned total;
	int fd;

	if (argc > 1)
		nthreads = (unsigned)atoi(argv[1]);
	if (argc > 2)
		per_thread = (unsigned)atoi(argv[2]);
	if (nthreads < 1 || nthreads > MAX_THREADS || per_thread < 1) {
		fprintf(stderr, "usage: mt_sender [THREADS 1..%d [PACKETS_PER_THREAD]]\n",
			MAX_THREADS);
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: mt_sender needs root (a network namespace, AF_XDP)\n");
		return 77;
	}
	if (make_netns() != 0 || (fd = open_receiver()) < 0) {
		printf("SKIP: cannot make a veth pair in a namespace of its own\n");
		return 77;
	}
	cfg.base.ring = 256;
	cfg.base.dev.runner = TXP_RUNNER_EXCLUSIVE;
	cfg.pool_frames = nthreads * POOL_PACKETS;
	dev = txp_afxdp_create(&cfg, err, sizeof(err));
	if (!dev) {
		fprintf(stderr, "mt_sender: %s\n", err);
		return 1;
	}
	memcpy(src_mac, txp_netdrv_mac(dev), 6);
	for (unsigned t = 0; t < nthreads; t++)
		seen[t] = calloc(per_thread, 1);
	pthread_create(&rx, NULL, receiver_main, (void *)(intptr_t)fd);
	for (unsigned t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, sender_main, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < nthreads; t++)
		pthread_join(th[t], &pools[t]);
	total = nthreads * per_thread;
	wait_done(total);
	atomic_store(&stop_rx, true);
	pthread_join(rx, NULL);
	txp_dev_get_stats(dev, &st);
	txp_netdrv_get_stats(dev, &ns);
	txp_netdrv_destroy(dev);
	for (unsigned t = 0; t < nthreads; t++)
		txp_pkt_pool_destroy(pools[t]);
	printf("mt_sender: %u threads, %u datagrams: transmitted %llu, received %u intact, "
	       "bad %u, refused %llu, posted without a copy %llu\n",
	       nthreads, total, (unsigned long long)st.transmitted, atomic_load(&received),
	       atomic_load(&bad), (unsigned long long)ns.refused,
	       (unsigned long long)ns.in_place);
	if (atomic_load(&received) != total || atomic_load(&bad) || st.transmitted != total ||
	    ns.in_place == 0) {
		printf("FAIL: every datagram must arrive once, intact\n");
		return 1;
	}
	printf("PASS\n");
	return 0;
}
