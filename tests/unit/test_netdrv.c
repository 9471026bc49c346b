/*
 * test_netdrv.c - the real devices' public constructors (txpath/netdrv.h),
 * through the one that needs no privilege: pcap.  Two threads send their
 * own bytes (heads of several sizes, some with fragments) into one device;
 * the file holds exactly those frames, each flow's in its order.
 */
#include <pcap/pcap.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/ctx.h"
#include "txpath/netdrv.h"

#define PER_THREAD 500
#define THREADS 2

struct sender {
	struct txp_dev *dev;
	unsigned id;
};

/* The bytes of frame (id, i): its length, and byte k of it. */
static unsigned frame_len(unsigned id, unsigned i)
{
	return 60 + (i * 37 + id * 11) % 900;
}

static unsigned char frame_byte(unsigned id, unsigned i, unsigned k)
{
	if (k == 0)
		return (unsigned char)id;
	if (k == 1 || k == 2)
		return (unsigned char)(i >> (k == 1 ? 8 : 0));
	return (unsigned char)(k * 13 + i + id);
}

/* Every third frame: the head's first 20 bytes, then fragments of the
 * rest, in a second buffer of the pool's packet. */
static void fill(struct txp_pkt *pkt, unsigned id, unsigned i)
{
	unsigned len = frame_len(id, i);
	unsigned char *d = txp_pkt_put(pkt, len);

	for (unsigned k = 0; k < len; k++)
		d[k] = frame_byte(id, i, k);
	if (i % 3 == 0) {
		unsigned rest = len - 20, a = rest / 2;

		pkt->head_len = 20;
		pkt->len = 20;
		txp_pkt_add_frag(pkt, d + 20, a);
		txp_pkt_add_frag(pkt, d + 20 + a, rest - a);
	}
}

static void *send_main(void *arg)
{
	struct sender *s = arg;
	struct txp_pkt_pool_cfg pc = { .capacity = 64, .buf_size = 1024 };
	struct txp_pkt_pool *pool;
	unsigned i = 0;

	txp_ctx_attach();
	pool = txp_pkt_pool_create_cfg(&pc);
	while (pool && i < PER_THREAD) {
		struct txp_pkt *pkt = txp_pkt_pool_alloc(pool);

		if (!pkt) {
			sched_yield();
			continue;
		}
		pkt->flow = s->id;
		fill(pkt, s->id, i++);
		txp_dev_queue_xmit(s->dev, pkt);
	}
	/* Every packet goes home once the device is destroyed; the pool is
	 * freed by the main thread then. */
	txp_ctx_detach();
	return pool;
}

static void test_pcap_sends_the_bytes_given(void **state)
{
	char path[] = "/tmp/txp-netdrv-XXXXXX", err[256] = "", perr[PCAP_ERRBUF_SIZE];
	struct txp_pcap_cfg cfg = { .base = { .ring = 64 }, .file = path };
	struct sender s[THREADS];
	pthread_t th[THREADS];
	void *pools[THREADS];
	struct txp_dev_stats st;
	struct txp_netdrv_stats ns;
	unsigned next[THREADS] = { 0 };
	struct pcap_pkthdr *h;
	const unsigned char *data;
	pcap_t *in;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* The modern path: per-flow order is kept (LLTX and concurrent runners
	 * may reorder, as the kernels of their time did). */
	cfg.base.dev.lock = TXP_LOCK_CORE;
	cfg.base.dev.runner = TXP_RUNNER_EXCLUSIVE;
	struct txp_dev *dev = txp_pcap_create(&cfg, err, sizeof(err));
	if (!dev)
		fail_msg("%s", err);
	for (unsigned t = 0; t < THREADS; t++) {
		s[t] = (struct sender){ .dev = dev, .id = t };
		assert_int_equal(pthread_create(&th[t], NULL, send_main, &s[t]), 0);
	}
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(th[t], &pools[t]);
	for (int tries = 0; tries < 2000; tries++) {
		txp_dev_get_stats(dev, &st);
		if (st.transmitted == THREADS * PER_THREAD)
			break;
		usleep(1000);
	}
	txp_netdrv_get_stats(dev, &ns);
	assert_int_equal(ns.refused, 0);
	assert_null(txp_netdrv_dead(dev));
	assert_null(txp_netdrv_mac(dev));
	txp_netdrv_destroy(dev);
	assert_int_equal(st.transmitted, THREADS * PER_THREAD);
	for (unsigned t = 0; t < THREADS; t++)
		assert_true(txp_pkt_pool_destroy(pools[t]));

	in = pcap_open_offline(path, perr);
	assert_non_null(in);
	while (pcap_next_ex(in, &h, &data) == 1) {
		unsigned id = data[0], i;

		assert_true(id < THREADS);
		i = next[id]++;
		assert_int_equal(h->caplen, frame_len(id, i));
		for (unsigned k = 0; k < h->caplen; k++)
			if (data[k] != frame_byte(id, i, k))
				fail_msg("flow %u frame %u byte %u: %u, want %u", id, i, k, data[k],
					 frame_byte(id, i, k));
	}
	pcap_close(in);
	unlink(path);
	for (unsigned t = 0; t < THREADS; t++)
		assert_int_equal(next[t], PER_THREAD);
}

/* The constructors refuse what they cannot make, with one line. */
static void test_constructors_refuse(void **state)
{
	char err[256] = "";
	struct txp_afxdp_cfg x = { .ifname = "txp-no-such0" };
	struct txp_pcap_cfg p = { .file = "/nonexistent-dir/x.pcap" };
	int dummy = 0;

	(void)state;
	assert_null(txp_afxdp_create(&x, err, sizeof(err)));
	assert_non_null(strstr(err, "txp-no-such0"));
	assert_null(strchr(err, '\n'));
	assert_null(txp_pcap_create(&p, err, sizeof(err)));
	assert_non_null(strstr(err, "pcap"));
	p.file = "/tmp/txp-netdrv-refused.pcap";
	p.base.dev.priv = &dummy;
	assert_null(txp_pcap_create(&p, err, sizeof(err)));
	assert_non_null(strstr(err, "leave them NULL"));
	txp_netdrv_destroy(NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcap_sends_the_bytes_given),
		cmocka_unit_test(test_constructors_refuse),
	};

	return txp_test_main(argc, argv, tests);
}
