/*
 * test_mq.c - the multi-queue core (issue 9): queues and their isolation,
 * per-queue counters, queue selection (XPS, the flow hash, the sender's
 * cached queue, the driver's select_queue), sending on a named queue,
 * byte queue limits, the lockless stop/wake helpers and the TX watchdog.
 *
 * The driver below is written against include/txpath/driver.h alone: each
 * queue has a mode (complete, hold, drop, or stop and return BUSY), and
 * start_xmit records every packet it accepts.  Every start_xmit runs on
 * the test's thread (the only threads started here just pick queues), so
 * the driver's records are plain fields.  Each test gets a fresh driver
 * (setup/teardown) and ends by closing the device and checking that every
 * packet was transmitted or dropped, and that the queues' counters add up
 * to the device's.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/ctx.h"
#include "txpath/dev.h"
#include "txpath/driver.h"

#define NQ TXP_DEV_MAX_QUEUES
#define REC_MAX 1024		/* packets recorded by start_xmit */
#define HOLD_Q 4		/* queues the driver can hold packets on */
#define HOLD_MAX 256		/* ... this many each */
#define PKT_LEN 100		/* bytes of every test packet */
#define WD_MS 20		/* the watchdog's timeout in its tests */

/* What start_xmit does with a packet on a queue. */
enum mode {
	M_COMPLETE,		/* accept and complete at once */
	M_HOLD,			/* accept and keep (the ring), see complete_held() */
	M_DROP,			/* accept and drop as TXP_DROP_DRIVER */
	M_BUSY,			/* stop the queue, return TXP_TX_BUSY */
};

struct rec {
	uint64_t seq;
	uint32_t flow;
	unsigned txq;		/* the queue start_xmit was called on */
	unsigned mapping;	/* pkt->queue_mapping then */
};

struct mdrv {
	struct txp_dev *dev;
	/* The script. */
	enum mode mode[NQ];
	bool bql;			/* report accepted bytes to BQL */
	/* What it saw. */
	unsigned calls;			/* start_xmit calls */
	unsigned naccepted;
	struct rec acc[REC_MAX];
	struct txp_pkt *held[HOLD_Q][HOLD_MAX];
	unsigned nheld[HOLD_Q];
	unsigned opens, stops;
	atomic_uint selects;		/* select_queue calls */
	/* tx_timeout: the queue it was given, the start_xmit calls made
	 * while it ran, the backlog it found after running the queues,
	 * and the result of the packet it sent on queue 0. */
	unsigned timeouts, timeout_queue, calls_in_timeout, backlog_in_timeout;
	int timeout_xmit_rc;
	FILE *log;
	char logbuf[8192];
};

static void record(struct mdrv *d, const struct txp_pkt *pkt, const struct txp_txq *txq)
{
	if (d->naccepted >= REC_MAX)
		abort();	/* a test sends a few hundred at most */
	d->acc[d->naccepted++] = (struct rec){
		.seq = pkt->seq, .flow = pkt->flow, .txq = txp_txq_index(txq),
		.mapping = pkt->queue_mapping,
	};
}

static void hold(struct mdrv *d, struct txp_pkt *pkt, unsigned q)
{
	if (q >= HOLD_Q || d->nheld[q] >= HOLD_MAX)
		abort();
	d->held[q][d->nheld[q]++] = pkt;
}

/*
 * start_xmit: as the queue's mode says.
 * Synchronization: lock mode core, so one call per queue at a time; all
 * calls run on the test thread anyway.
 * Context: the test thread (its sends, txp_net_tx_action, the watchdog).
 * Return codes: TXP_TX_BUSY in M_BUSY (the queue stopped first), else
 * TXP_TX_OK.
 */
static enum txp_tx mdrv_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct mdrv *d = txp_dev_priv(txp_txq_dev(txq));
	unsigned q = txp_txq_index(txq);

	d->calls++;
	if (d->mode[q] == M_BUSY) {
		txp_netif_stop_queue(txq);
		return TXP_TX_BUSY;
	}
	record(d, pkt, txq);
	if (d->bql)
		txp_netdev_tx_sent_queue(txq, pkt->len);
	if (d->mode[q] == M_HOLD)
		hold(d, pkt, q);
	else if (d->mode[q] == M_DROP)
		txp_pkt_drop(d->dev, pkt, TXP_DROP_DRIVER);
	else
		txp_pkt_complete(d->dev, pkt);
	return TXP_TX_OK;
}

static int mdrv_open(struct txp_dev *dev)
{
	struct mdrv *d = txp_dev_priv(dev);

	d->opens++;
	return 0;
}

/* Drop what queue q's ring holds with reason; returns the bytes. */
static unsigned drop_held(struct mdrv *d, unsigned q, enum txp_drop_reason reason)
{
	unsigned bytes = 0;

	for (unsigned i = 0; i < d->nheld[q]; i++) {
		bytes += d->held[q][i]->len;
		txp_pkt_drop(d->dev, d->held[q][i], reason);
	}
	d->nheld[q] = 0;
	return bytes;
}

/* Hand back what the rings hold, as the contract says. */
static void mdrv_stop(struct txp_dev *dev)
{
	struct mdrv *d = txp_dev_priv(dev);

	d->stops++;
	for (unsigned q = 0; q < HOLD_Q; q++)
		drop_held(d, q, TXP_DROP_DEV_DOWN);
}

/*
 * select_queue: the queue a packet names in its flow field.
 * Synchronization: none needed; it only counts, atomically.
 * Context: any producer.
 * Return codes: pkt->flow, in range or not (the test decides).
 */
static unsigned mdrv_select_queue(struct txp_dev *dev, const struct txp_pkt *pkt)
{
	struct mdrv *d = txp_dev_priv(dev);

	atomic_fetch_add(&d->selects, 1);
	return pkt->flow;
}

/*
 * tx_timeout: reset queue's ring (what it holds is dropped as
 * TXP_DROP_TX_TIMEOUT), its byte queue limits, let it take packets again
 * and wake it.  Then, to see that every queue is frozen meanwhile, run the
 * queues and send a packet on queue 0: none of it may reach start_xmit.
 * Synchronization: every queue frozen (the core's promise under test).
 * Context: the watchdog's, here the test thread.
 */
static void mdrv_tx_timeout(struct txp_dev *dev, unsigned queue)
{
	struct mdrv *d = txp_dev_priv(dev);
	struct txp_txq *txq = txp_dev_txq(dev, queue);
	unsigned calls = d->calls;
	struct txp_pkt *pkt = txp_pkt_alloc();

	d->timeouts++;
	d->timeout_queue = queue;
	if (queue < HOLD_Q)
		drop_held(d, queue, TXP_DROP_TX_TIMEOUT);
	txp_netdev_tx_reset_queue(txq);
	d->mode[queue] = M_COMPLETE;
	txp_netif_wake_queue(txq);
	txp_net_tx_action(dev);
	d->backlog_in_timeout = txp_txq_backlog(txq);
	if (!pkt)
		abort();
	pkt->seq = 900;
	pkt->len = PKT_LEN;
	d->timeout_xmit_rc = txp_dev_queue_xmit_on(dev, 0, pkt);
	d->calls_in_timeout = d->calls - calls;
}

/* The driver's ops: these four, and the optional ones given. */
#define MDRV_OPS(...)                                                        \
	{ .name = "mdrv", .open = mdrv_open, .stop = mdrv_stop,              \
	  .start_xmit = mdrv_start_xmit, __VA_ARGS__ }

static const struct txp_driver_ops mdrv_ops = MDRV_OPS();
static const struct txp_driver_ops mdrv_select_ops = MDRV_OPS(.select_queue = mdrv_select_queue);
static const struct txp_driver_ops mdrv_wd_ops = MDRV_OPS(.tx_timeout = mdrv_tx_timeout);

/* -- fixture ------------------------------------------------------------- */

static int setup(void **state)
{
	struct mdrv *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct mdrv *d = *state;

	txp_dev_destroy(d->dev);
	if (d->log)
		fclose(d->log);
	free(d);
	return 0;
}

/* A configuration of nq queues for the driver, its log in a temporary file. */
static struct txp_dev_cfg cfg_for(struct mdrv *d, unsigned nq)
{
	d->log = tmpfile();
	assert_non_null(d->log);
	return (struct txp_dev_cfg){
		.name = "tst0", .ops = &mdrv_ops, .priv = d, .num_tx_queues = nq, .log = d->log,
	};
}

static void up_cfg(struct mdrv *d, const struct txp_dev_cfg *cfg)
{
	char err[128] = "";

	d->dev = txp_dev_create(cfg, err, sizeof(err));
	assert_non_null(d->dev);
	assert_string_equal(err, "");
	assert_int_equal(txp_dev_open(d->dev), 0);
	assert_int_equal(d->opens, 1);
}

static void up(struct mdrv *d, unsigned nq)
{
	struct txp_dev_cfg cfg = cfg_for(d, nq);

	up_cfg(d, &cfg);
}

static struct txp_txq *txq(struct mdrv *d, unsigned q)
{
	struct txp_txq *t = txp_dev_txq(d->dev, q);

	assert_non_null(t);
	return t;
}

static struct txp_pkt *pkt_new(uint64_t seq, uint32_t flow)
{
	struct txp_pkt *pkt = txp_pkt_alloc();

	assert_non_null(pkt);
	pkt->seq = seq;
	pkt->flow = flow;
	pkt->len = PKT_LEN;
	return pkt;
}

static int send_on(struct mdrv *d, unsigned q, uint64_t seq)
{
	return txp_dev_queue_xmit_on(d->dev, q, pkt_new(seq, 0));
}

static struct txp_dev_stats qstats(struct mdrv *d, unsigned q)
{
	struct txp_dev_stats st;

	txp_txq_get_stats(txq(d, q), &st);
	return st;
}

static struct txp_dev_stats dstats(struct mdrv *d)
{
	struct txp_dev_stats st;

	txp_dev_get_stats(d->dev, &st);
	return st;
}

static struct txp_bql_info bql(struct mdrv *d, unsigned q)
{
	struct txp_bql_info bi;

	txp_txq_get_bql(txq(d, q), &bi);
	return bi;
}

/* The queue of the packets start_xmit accepted, in order, as seqs. */
static unsigned accepted_on(struct mdrv *d, unsigned q, uint64_t *seq, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < d->naccepted && n < max; i++)
		if (d->acc[i].txq == q)
			seq[n++] = d->acc[i].seq;
	return n;
}

static void assert_accepted_on(struct mdrv *d, unsigned q, const uint64_t *want, unsigned n)
{
	uint64_t got[REC_MAX];

	assert_int_equal(accepted_on(d, q, got, REC_MAX), n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

#define ASSERT_ACCEPTED_ON(d, q, ...)                                            \
	do {                                                                     \
		static const uint64_t seq_[] = { __VA_ARGS__ };                  \
		assert_accepted_on((d), (q), seq_, sizeof(seq_) / sizeof(seq_[0])); \
	} while (0)

/* Every counter of the device is the sum of its queues' (the struct is
 * all uint64_t: summed as an array). */
_Static_assert(sizeof(struct txp_dev_stats) % sizeof(uint64_t) == 0, "all counters");
#define NSTATS (sizeof(struct txp_dev_stats) / sizeof(uint64_t))

static void assert_queues_sum(struct mdrv *d)
{
	uint64_t sum[NSTATS] = { 0 }, one[NSTATS], dev[NSTATS];
	struct txp_dev_stats st;

	for (unsigned q = 0; q < txp_dev_num_tx_queues(d->dev); q++) {
		st = qstats(d, q);
		memcpy(one, &st, sizeof(st));
		for (size_t i = 0; i < NSTATS; i++)
			sum[i] += one[i];
	}
	st = dstats(d);
	memcpy(dev, &st, sizeof(st));
	for (size_t i = 0; i < NSTATS; i++)
		assert_int_equal(sum[i], dev[i]);
}

static unsigned held_total(struct mdrv *d)
{
	unsigned n = 0;

	for (unsigned q = 0; q < HOLD_Q; q++)
		n += d->nheld[q];
	return n;
}

/* Nothing vanished: every submitted packet was transmitted, dropped, is
 * queued, or is held by the driver. */
static void assert_conserved(struct mdrv *d)
{
	struct txp_dev_stats st = dstats(d);

	assert_int_equal(st.submitted, st.transmitted + txp_test_dropped(&st) +
				       txp_dev_backlog(d->dev) + held_total(d));
}

/* The end of every test on a device: down, then nothing unaccounted. */
static void finish(struct mdrv *d)
{
	assert_conserved(d);
	assert_queues_sum(d);
	txp_dev_close(d->dev);
	assert_int_equal(d->stops, 1);
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	txp_test_assert_accounted(d->dev);
	assert_queues_sum(d);
}

/* How many times the log holds needle so far. */
static unsigned log_count(struct mdrv *d, const char *needle)
{
	unsigned count = 0;
	size_t n;

	fflush(d->log);
	rewind(d->log);
	n = fread(d->logbuf, 1, sizeof(d->logbuf) - 1, d->log);
	d->logbuf[n] = '\0';
	for (const char *p = d->logbuf; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		count++;
	return count;
}

/* The device completes what queue q's ring holds: each packet, then BQL
 * hears of them all (netdev_tx_completed_queue). */
static void complete_held(struct mdrv *d, unsigned q)
{
	unsigned n = d->nheld[q], bytes = 0;

	for (unsigned i = 0; i < n; i++) {
		bytes += d->held[q][i]->len;
		txp_pkt_complete(d->dev, d->held[q][i]);
	}
	d->nheld[q] = 0;
	txp_netdev_tx_completed_queue(txq(d, q), n, bytes);
}

/* -- the queues ---------------------------------------------------------- */

static void test_queue_accessors(void **state)
{
	struct mdrv *d = *state;

	up(d, 4);
	assert_int_equal(txp_dev_num_tx_queues(d->dev), 4);
	for (unsigned q = 0; q < 4; q++) {
		assert_int_equal(txp_txq_index(txq(d, q)), q);
		assert_ptr_equal(txp_txq_dev(txq(d, q)), d->dev);
		for (unsigned p = 0; p < q; p++)
			assert_ptr_not_equal(txq(d, p), txq(d, q));
	}
	assert_null(txp_dev_txq(d->dev, 4));
	assert_null(txp_dev_txq(d->dev, UINT_MAX));
	finish(d);
}

/* 0 queues asked means 1; 64 is the most, and every one of them sends. */
static void test_queue_counts(void **state)
{
	struct mdrv *d = *state;
	struct txp_dev_cfg cfg = cfg_for(d, 0);
	struct txp_dev *dev;
	char err[128] = "";

	dev = txp_dev_create(&cfg, err, sizeof(err));
	assert_non_null(dev);
	assert_int_equal(txp_dev_num_tx_queues(dev), 1);
	assert_non_null(txp_dev_txq(dev, 0));
	assert_null(txp_dev_txq(dev, 1));
	txp_dev_destroy(dev);

	cfg.num_tx_queues = TXP_DEV_MAX_QUEUES + 1;
	assert_null(txp_dev_create(&cfg, err, sizeof(err)));
	assert_non_null(strstr(err, "65"));
	assert_non_null(strstr(err, "64"));
	assert_null(strchr(err, '\n'));

	cfg.num_tx_queues = TXP_DEV_MAX_QUEUES;
	up_cfg(d, &cfg);
	assert_int_equal(txp_dev_num_tx_queues(d->dev), TXP_DEV_MAX_QUEUES);
	assert_null(txp_dev_txq(d->dev, TXP_DEV_MAX_QUEUES));
	for (unsigned q = 0; q < TXP_DEV_MAX_QUEUES; q++) {
		assert_int_equal(txp_txq_index(txq(d, q)), q);
		assert_int_equal(send_on(d, q, q), TXP_XMIT_OK);
		assert_int_equal(qstats(d, q).transmitted, 1);
	}
	for (unsigned i = 0; i < TXP_DEV_MAX_QUEUES; i++) {
		assert_int_equal(d->acc[i].txq, i);
		assert_int_equal(d->acc[i].mapping, i);
	}
	finish(d);
}

/*
 * The driver stops queue `stopped` of 3: its packets wait in its qdisc,
 * the other queues' go on; woken and run, its backlog drains in order.
 */
static void isolation(struct mdrv *d, unsigned stopped)
{
	unsigned a = (stopped + 1) % 3, b = (stopped + 2) % 3;
	struct txp_dev_stats st;

	up(d, 3);
	d->mode[stopped] = M_BUSY;
	for (uint64_t s = 0; s < 5; s++)
		assert_int_equal(send_on(d, stopped, s), TXP_XMIT_OK);
	assert_true(txp_netif_queue_stopped(txq(d, stopped)));
	assert_int_equal(d->calls, 1);		/* stopped: no more tries */
	assert_int_equal(txp_txq_backlog(txq(d, stopped)), 5);

	for (uint64_t s = 100; s < 105; s++)
		assert_int_equal(send_on(d, a, s), TXP_XMIT_OK);
	assert_int_equal(send_on(d, b, 200), TXP_XMIT_OK);
	ASSERT_ACCEPTED_ON(d, a, 100, 101, 102, 103, 104);
	ASSERT_ACCEPTED_ON(d, b, 200);
	assert_int_equal(txp_txq_backlog(txq(d, stopped)), 5);
	assert_int_equal(txp_dev_backlog(d->dev), 5);
	assert_false(txp_netif_queue_stopped(txq(d, a)));

	d->mode[stopped] = M_COMPLETE;
	txp_netif_wake_queue(txq(d, stopped));
	assert_false(txp_netif_queue_stopped(txq(d, stopped)));
	assert_int_equal(txp_txq_backlog(txq(d, stopped)), 5);	/* scheduled, not run */
	txp_net_tx_action(d->dev);
	ASSERT_ACCEPTED_ON(d, stopped, 0, 1, 2, 3, 4);
	assert_int_equal(txp_dev_backlog(d->dev), 0);

	st = qstats(d, stopped);
	assert_int_equal(st.tx_busy, 1);
	assert_int_equal(st.requeues, 1);
	assert_int_equal(st.stops, 1);
	assert_int_equal(st.wakes, 1);
	assert_int_equal(st.transmitted, 5);
	st = qstats(d, a);
	assert_int_equal(st.tx_busy + st.requeues + st.stops + st.wakes, 0);
	assert_int_equal(st.transmitted, 5);
	finish(d);
}

static void test_queue_isolation(void **state)
{
	isolation(*state, 0);
}

/* The same with the last queue stopped: every queue is run, not just the first. */
static void test_queue_isolation_last(void **state)
{
	isolation(*state, 2);
}

/* Each packet's counters are its queue's: submitted where it was sent,
 * completed and dropped by the driver on the queue it carries. */
static void test_counters_per_queue(void **state)
{
	struct mdrv *d = *state;
	struct txp_dev_stats st;
	struct txp_pkt *list;

	up(d, 4);
	d->mode[1] = M_HOLD;
	d->mode[2] = M_DROP;
	for (uint64_t s = 0; s < 3; s++)
		assert_int_equal(send_on(d, 0, s), TXP_XMIT_OK);
	for (uint64_t s = 10; s < 16; s++)
		assert_int_equal(send_on(d, 1, s), TXP_XMIT_OK);
	for (uint64_t s = 20; s < 22; s++)
		assert_int_equal(send_on(d, 2, s), TXP_XMIT_OK);
	for (unsigned i = 0; i < d->naccepted; i++)
		assert_int_equal(d->acc[i].mapping, d->acc[i].txq);
	assert_int_equal(d->nheld[1], 6);

	/* The device finishes two, fails two, and two go home as a list. */
	txp_pkt_complete(d->dev, d->held[1][0]);
	txp_pkt_complete(d->dev, d->held[1][1]);
	txp_pkt_drop(d->dev, d->held[1][2], TXP_DROP_TX_ERROR);
	txp_pkt_drop(d->dev, d->held[1][3], TXP_DROP_TX_ERROR);
	list = d->held[1][4];
	list->next = d->held[1][5];
	d->held[1][5]->next = NULL;
	d->nheld[1] = 0;
	txp_pkt_complete_list(d->dev, list, 2);

	st = qstats(d, 0);
	assert_int_equal(st.submitted, 3);
	assert_int_equal(st.transmitted, 3);
	assert_int_equal(txp_test_dropped(&st), 0);
	st = qstats(d, 1);
	assert_int_equal(st.submitted, 6);
	assert_int_equal(st.transmitted, 4);
	assert_int_equal(st.dropped[TXP_DROP_TX_ERROR], 2);
	assert_int_equal(txp_test_dropped(&st), 2);
	st = qstats(d, 2);
	assert_int_equal(st.submitted, 2);
	assert_int_equal(st.transmitted, 0);
	assert_int_equal(st.dropped[TXP_DROP_DRIVER], 2);
	assert_int_equal(txp_test_dropped(&st), 2);
	st = qstats(d, 3);
	assert_int_equal(st.submitted + st.transmitted + txp_test_dropped(&st), 0);
	assert_int_equal(st.xmit_calls, 0);
	st = dstats(d);
	assert_int_equal(st.submitted, 11);
	assert_int_equal(st.xmit_calls, 11);
	assert_queues_sum(d);
	finish(d);
}

/* -- queue selection ----------------------------------------------------- */

#define XPS_THREADS 5		/* with the test thread: ids past the 4 queues */
#define XPS_FLOWS 16

/* A context that picks queues for XPS_FLOWS flows, once the test thread
 * has had its id (and maybe set its XPS entry). */
struct picker {
	struct mdrv *d;
	pthread_barrier_t *attached, *mapped;
	int id;
	unsigned picked[XPS_FLOWS];
	pthread_t thread;
};

static void pick_flows(struct txp_dev *dev, unsigned *picked)
{
	for (uint32_t f = 0; f < XPS_FLOWS; f++) {
		struct txp_pkt pkt = { .flow = f };

		picked[f] = txp_dev_pick_tx(dev, &pkt, NULL);
	}
}

static void *picker_main(void *arg)
{
	struct picker *p = arg;

	p->id = txp_ctx_attach();
	pthread_barrier_wait(p->attached);
	pthread_barrier_wait(p->mapped);
	pick_flows(p->d->dev, p->picked);
	return NULL;
}

/*
 * Start XPS_THREADS pickers, all alive at once (so their context ids are
 * distinct); between their attaching and their picking, set the XPS
 * entries of the first `remap` of them to queue 1.
 */
static void run_pickers(struct mdrv *d, struct picker *p, unsigned remap)
{
	pthread_barrier_t attached, mapped;

	assert_int_equal(pthread_barrier_init(&attached, NULL, XPS_THREADS + 1), 0);
	assert_int_equal(pthread_barrier_init(&mapped, NULL, XPS_THREADS + 1), 0);
	for (unsigned i = 0; i < XPS_THREADS; i++) {
		p[i] = (struct picker){ .d = d, .attached = &attached, .mapped = &mapped };
		assert_int_equal(pthread_create(&p[i].thread, NULL, picker_main, &p[i]), 0);
	}
	pthread_barrier_wait(&attached);
	for (unsigned i = 0; i < remap; i++)
		assert_int_equal(txp_dev_set_xps(d->dev, (unsigned)p[i].id, 1), 0);
	pthread_barrier_wait(&mapped);
	for (unsigned i = 0; i < XPS_THREADS; i++)
		assert_int_equal(pthread_join(p[i].thread, NULL), 0);
	pthread_barrier_destroy(&attached);
	pthread_barrier_destroy(&mapped);
}

/* By default context i sends every flow on queue i mod n. */
static void test_xps_default(void **state)
{
	struct mdrv *d = *state;
	struct picker p[XPS_THREADS];
	unsigned picked[XPS_FLOWS], seen[4] = { 0 };
	int self = txp_ctx_attach();

	assert_true(self >= 0);
	up(d, 4);
	pick_flows(d->dev, picked);
	for (unsigned f = 0; f < XPS_FLOWS; f++)
		assert_int_equal(picked[f], (unsigned)self % 4);
	seen[self % 4]++;
	run_pickers(d, p, 0);
	for (unsigned i = 0; i < XPS_THREADS; i++) {
		assert_true(p[i].id >= 0);
		assert_int_not_equal(p[i].id, self);
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(p[i].id, p[j].id);
		for (unsigned f = 0; f < XPS_FLOWS; f++)
			assert_int_equal(p[i].picked[f], (unsigned)p[i].id % 4);
		seen[p[i].id % 4]++;
	}
	/* Six distinct ids: at least two queues, whatever the ids. */
	assert_true((seen[0] > 0) + (seen[1] > 0) + (seen[2] > 0) + (seen[3] > 0) >= 2);

	/* What txp_dev_queue_xmit() does with it: start_xmit sees the
	 * packet on that queue, with its queue_mapping. */
	for (uint32_t f = 0; f < 4; f++)
		assert_int_equal(txp_dev_queue_xmit(d->dev, pkt_new(f, f)), TXP_XMIT_OK);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(d->acc[i].txq, (unsigned)self % 4);
		assert_int_equal(d->acc[i].mapping, (unsigned)self % 4);
	}
	finish(d);
}

/* The hash's queue for flow f with XPS off for the calling context. */
static unsigned hash_queue(struct mdrv *d, uint32_t f)
{
	struct txp_pkt pkt = { .flow = f };

	return txp_dev_pick_tx(d->dev, &pkt, NULL);
}

/* txp_dev_set_xps() is honoured, for the caller and for other contexts;
 * -1 gives the flow to the hash; what is out of range is refused. */
static void test_xps_set(void **state)
{
	struct mdrv *d = *state;
	struct picker p[XPS_THREADS];
	unsigned picked[XPS_FLOWS], hashed[XPS_FLOWS], distinct = 0;
	unsigned self = (unsigned)txp_ctx_attach();

	up(d, 4);
	assert_int_equal(txp_dev_set_xps(d->dev, self, 2), 0);
	pick_flows(d->dev, picked);
	for (unsigned f = 0; f < XPS_FLOWS; f++)
		assert_int_equal(picked[f], 2);
	assert_int_equal(txp_dev_queue_xmit(d->dev, pkt_new(0, 7)), TXP_XMIT_OK);
	assert_int_equal(d->acc[0].txq, 2);

	/* The flow hash: the same for a flow every time, not one queue for all. */
	assert_int_equal(txp_dev_set_xps(d->dev, self, -1), 0);
	pick_flows(d->dev, hashed);
	for (unsigned f = 0; f < XPS_FLOWS; f++) {
		assert_int_equal(hash_queue(d, f), hashed[f]);
		distinct += hashed[f] != hashed[0];
	}
	assert_true(distinct > 0);

	/* Refused, and the map left as it was. */
	assert_int_equal(txp_dev_set_xps(d->dev, self, 4), -EINVAL);
	assert_int_equal(txp_dev_set_xps(d->dev, self, INT32_MAX), -EINVAL);
	assert_int_equal(txp_dev_set_xps(d->dev, TXP_MAX_CTX, 0), -EINVAL);
	assert_int_equal(txp_dev_set_xps(d->dev, UINT_MAX, 0), -EINVAL);
	pick_flows(d->dev, picked);
	for (unsigned f = 0; f < XPS_FLOWS; f++)
		assert_int_equal(picked[f], hashed[f]);

	/* Other contexts' entries, set while they run: two of them are
	 * moved to queue 1, the others keep the default. */
	run_pickers(d, p, 2);
	for (unsigned i = 0; i < XPS_THREADS; i++)
		for (unsigned f = 0; f < XPS_FLOWS; f++)
			assert_int_equal(p[i].picked[f], i < 2 ? 1 : (unsigned)p[i].id % 4);
	finish(d);
}

/* Only -1 means "the flow hash": another negative queue is out of range. */
static void test_xps_refuses_negative(void **state)
{
	struct mdrv *d = *state;
	unsigned self = (unsigned)txp_ctx_attach();
	unsigned picked[XPS_FLOWS];

	up(d, 4);
	assert_int_equal(txp_dev_set_xps(d->dev, self, 3), 0);
	assert_int_equal(txp_dev_set_xps(d->dev, self, -2), -EINVAL);
	assert_int_equal(txp_dev_set_xps(d->dev, self, INT32_MIN), -EINVAL);
	pick_flows(d->dev, picked);
	for (unsigned f = 0; f < XPS_FLOWS; f++)
		assert_int_equal(picked[f], 3);
	finish(d);
}

#define HASH_FLOWS 64

/* With XPS off, 64 flows reach every one of 4 queues, each flow always
 * the same one, and txp_dev_queue_xmit() sends it there. */
static void test_flow_hash_spread(void **state)
{
	struct mdrv *d = *state;
	unsigned per_queue[4] = { 0 }, q[HASH_FLOWS];

	up(d, 4);
	assert_int_equal(txp_dev_set_xps(d->dev, (unsigned)txp_ctx_attach(), -1), 0);
	for (uint32_t f = 0; f < HASH_FLOWS; f++) {
		q[f] = hash_queue(d, f);
		assert_true(q[f] < 4);
		per_queue[q[f]]++;
	}
	for (unsigned i = 0; i < 4; i++)
		assert_true(per_queue[i] > 0);
	for (unsigned round = 0; round < 4; round++)
		for (uint32_t f = 0; f < HASH_FLOWS; f++)
			assert_int_equal(hash_queue(d, f), q[f]);
	for (uint32_t f = 0; f < HASH_FLOWS; f++)
		assert_int_equal(txp_dev_queue_xmit(d->dev, pkt_new(f, f)), TXP_XMIT_OK);
	for (unsigned i = 0; i < HASH_FLOWS; i++) {
		assert_int_equal(d->acc[i].txq, q[d->acc[i].flow]);
		assert_int_equal(d->acc[i].mapping, q[d->acc[i].flow]);
	}
	finish(d);
}

#define ORDER_FLOWS 16
#define ORDER_SEQS 8

/* A burst of interleaved flows, one of the queues stopped meanwhile, so
 * its share is sent last: each flow's packets still reach the driver in
 * order, all on one queue. */
static void test_flow_order_in_burst(void **state)
{
	struct mdrv *d = *state;
	struct txp_pkt *pkts[ORDER_FLOWS * ORDER_SEQS];
	uint64_t next[ORDER_FLOWS] = { 0 };
	unsigned flow_q[ORDER_FLOWS], n = 0, stopped_q = 0;

	up(d, 4);
	assert_int_equal(txp_dev_set_xps(d->dev, (unsigned)txp_ctx_attach(), -1), 0);
	for (uint64_t s = 0; s < ORDER_SEQS; s++)
		for (uint32_t f = 0; f < ORDER_FLOWS; f++)
			pkts[n++] = pkt_new(s, f);
	/* The queue of the first flow that is not on queue 0. */
	for (uint32_t f = 0; f < ORDER_FLOWS && !stopped_q; f++)
		stopped_q = hash_queue(d, f);
	assert_int_not_equal(stopped_q, 0);
	txp_netif_stop_queue(txq(d, stopped_q));
	assert_int_equal(txp_xmit_burst(d->dev, pkts, n), n);
	assert_true(txp_txq_backlog(txq(d, stopped_q)) >= ORDER_SEQS);
	txp_netif_wake_queue(txq(d, stopped_q));
	txp_net_tx_action(d->dev);
	assert_int_equal(d->naccepted, n);

	for (uint32_t f = 0; f < ORDER_FLOWS; f++)
		flow_q[f] = UINT_MAX;
	for (unsigned i = 0; i < d->naccepted; i++) {
		const struct rec *r = &d->acc[i];

		assert_int_equal(r->seq, next[r->flow]++);
		if (flow_q[r->flow] == UINT_MAX)
			flow_q[r->flow] = r->txq;
		assert_int_equal(r->txq, flow_q[r->flow]);
		assert_int_equal(r->mapping, r->txq);
	}
	for (uint32_t f = 0; f < ORDER_FLOWS; f++)
		assert_int_equal(next[f], ORDER_SEQS);
	finish(d);
}

/* The sender's cached queue holds while ooo_okay is 0, even after the
 * XPS map moved; ooo_okay lets the flow move, and the cache follows. */
static void test_pick_tx_cache(void **state)
{
	struct mdrv *d = *state;
	unsigned self = (unsigned)txp_ctx_attach();
	struct txp_pkt pkt = { .flow = 5 };
	int cache = -1;

	up(d, 4);
	assert_int_equal(txp_dev_set_xps(d->dev, self, 1), 0);
	assert_int_equal(txp_dev_pick_tx(d->dev, &pkt, &cache), 1);
	assert_int_equal(cache, 1);
	assert_int_equal(txp_dev_set_xps(d->dev, self, 2), 0);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(txp_dev_pick_tx(d->dev, &pkt, &cache), 1);
		assert_int_equal(cache, 1);
	}
	assert_int_equal(txp_dev_pick_tx(d->dev, &pkt, NULL), 2);	/* no cache */
	pkt.ooo_okay = 1;
	assert_int_equal(txp_dev_pick_tx(d->dev, &pkt, &cache), 2);
	assert_int_equal(cache, 2);
	pkt.ooo_okay = 0;
	assert_int_equal(txp_dev_set_xps(d->dev, self, 3), 0);
	assert_int_equal(txp_dev_pick_tx(d->dev, &pkt, &cache), 2);
	/* A cached queue the device does not have is no cache. */
	cache = 4;
	assert_int_equal(txp_dev_pick_tx(d->dev, &pkt, &cache), 3);
	assert_int_equal(cache, 3);
	finish(d);
}

/* The driver's select_queue decides, whatever XPS says; a queue past the
 * count is queue 0 and logged. */
static void test_select_queue(void **state)
{
	struct mdrv *d = *state;
	struct txp_dev_cfg cfg = cfg_for(d, 4);
	char line[96];

	cfg.ops = &mdrv_select_ops;
	up_cfg(d, &cfg);
	assert_int_equal(txp_dev_set_xps(d->dev, (unsigned)txp_ctx_attach(), 3), 0);
	for (uint32_t q = 0; q < 4; q++)
		assert_int_equal(txp_dev_queue_xmit(d->dev, pkt_new(q, q)), TXP_XMIT_OK);
	assert_int_equal(atomic_load(&d->selects), 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(d->acc[i].txq, d->acc[i].flow);
		assert_int_equal(d->acc[i].mapping, d->acc[i].flow);
	}
	assert_int_equal(log_count(d, "selects tx queue"), 0);

	assert_int_equal(txp_dev_queue_xmit(d->dev, pkt_new(4, 9)), TXP_XMIT_OK);
	assert_int_equal(d->acc[4].txq, 0);
	assert_int_equal(d->acc[4].mapping, 0);
	snprintf(line, sizeof(line), "%s selects tx queue 9, but only 4 are there\n",
		 txp_dev_name(d->dev));
	assert_int_equal(log_count(d, line), 1);
	assert_int_equal(atomic_load(&d->selects), 5);
	{
		struct txp_pkt pkt = { .flow = 2 };
		int cache = 1;

		assert_int_equal(txp_dev_pick_tx(d->dev, &pkt, &cache), 2);
	}
	finish(d);
}

/* In a burst too, select_queue is asked once per packet (a driver's
 * choice may depend on how often it is asked: a round robin), and one
 * bad choice is logged once. */
static void test_select_queue_once_per_packet_in_burst(void **state)
{
	struct mdrv *d = *state;
	struct txp_dev_cfg cfg = cfg_for(d, 4);
	static const uint32_t want[] = { 1, 1, 2, 9, 3 };
	struct txp_pkt *pkts[5];

	cfg.ops = &mdrv_select_ops;
	up_cfg(d, &cfg);
	for (unsigned i = 0; i < 5; i++)
		pkts[i] = pkt_new(i, want[i]);
	assert_int_equal(txp_xmit_burst(d->dev, pkts, 5), 5);
	assert_int_equal(d->naccepted, 5);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(d->acc[i].txq, want[i] < 4 ? want[i] : 0);
	assert_int_equal(atomic_load(&d->selects), 5);
	assert_int_equal(log_count(d, "selects tx queue 9"), 1);
	finish(d);
}

/* -- sending on a named queue ------------------------------------------- */

static atomic_uint freed;

static void count_free(struct txp_pkt *pkt)
{
	(void)pkt;
	atomic_fetch_add(&freed, 1);
}

/* A queue the device does not have: dropped as no-queue, counted, freed. */
static void test_xmit_on_bad_queue(void **state)
{
	struct mdrv *d = *state;
	struct txp_pkt *pkts[3];
	struct txp_dev_stats st;

	up(d, 2);
	atomic_store(&freed, 0);
	for (unsigned i = 0; i < 3; i++) {
		pkts[i] = pkt_new(i, 0);
		pkts[i]->destructor = count_free;
	}
	assert_int_equal(txp_dev_queue_xmit_on(d->dev, 2, pkts[0]), TXP_XMIT_DROP);
	assert_int_equal(atomic_load(&freed), 1);
	assert_int_equal(txp_xmit_burst_on(d->dev, UINT_MAX, pkts + 1, 2), 0);
	assert_int_equal(atomic_load(&freed), 3);
	assert_int_equal(d->calls, 0);
	st = dstats(d);
	assert_int_equal(st.submitted, 3);
	assert_int_equal(st.dropped[TXP_DROP_NO_QUEUE], 3);
	assert_int_equal(txp_test_dropped(&st), 3);
	assert_string_equal(txp_drop_reason_name(TXP_DROP_NO_QUEUE), "no-queue");
	assert_string_equal(txp_drop_reason_name(TXP_DROP_TX_TIMEOUT), "tx-timeout");

	/* The queues the device has take theirs. */
	assert_int_equal(send_on(d, 1, 7), TXP_XMIT_OK);
	ASSERT_ACCEPTED_ON(d, 1, 7);
	finish(d);
}

/* -- byte queue limits --------------------------------------------------- */

static void up_bql(struct mdrv *d, unsigned nq, bool on)
{
	struct txp_dev_cfg cfg = cfg_for(d, nq);

	cfg.bql = on;
	up_cfg(d, &cfg);
	d->bql = true;
}

/* Past its limit the stack stops a queue (its own XOFF, not the driver's):
 * nothing more is sent on it, the others go on; completions free it and
 * reschedule it, and the backlog drains. */
static void test_bql_stack_xoff(void **state)
{
	struct mdrv *d = *state;
	struct txp_bql_info bi;
	unsigned sent = 0, calls, rounds = 0;

	up_bql(d, 2, true);
	d->mode[0] = M_HOLD;
	bi = bql(d, 0);
	assert_true(bi.enabled);
	assert_int_equal(bi.inflight, 0);
	while (!txp_netif_xmit_stopped(txq(d, 0))) {
		assert_true(bql(d, 0).inflight <= bql(d, 0).limit);
		assert_true(sent < HOLD_MAX);
		assert_int_equal(send_on(d, 0, sent++), TXP_XMIT_OK);
	}
	bi = bql(d, 0);
	assert_int_equal(bi.inflight, sent * PKT_LEN);
	assert_true(bi.inflight > bi.limit);
	assert_false(txp_netif_queue_stopped(txq(d, 0)));	/* the stack's XOFF */
	assert_int_equal(qstats(d, 0).stops, 0);

	calls = d->calls;
	for (uint64_t s = 100; s < 103; s++)
		assert_int_equal(send_on(d, 0, s), TXP_XMIT_OK);
	txp_net_tx_action(d->dev);
	assert_int_equal(d->calls, calls);
	assert_int_equal(txp_txq_backlog(txq(d, 0)), 3);
	assert_int_equal(send_on(d, 1, 200), TXP_XMIT_OK);	/* queue 1 unaffected */
	ASSERT_ACCEPTED_ON(d, 1, 200);
	assert_int_equal(bql(d, 1).inflight, PKT_LEN);	/* counted on its own queue */
	assert_int_equal(bql(d, 0).inflight, sent * PKT_LEN);

	complete_held(d, 0);
	assert_false(txp_netif_xmit_stopped(txq(d, 0)));
	assert_int_equal(bql(d, 0).inflight, 0);
	assert_int_equal(txp_txq_backlog(txq(d, 0)), 3);	/* scheduled, not run */
	txp_net_tx_action(d->dev);
	assert_true(txp_txq_backlog(txq(d, 0)) < 3);
	/* The device goes on completing: everything goes out, in order. */
	while (txp_txq_backlog(txq(d, 0)) || d->nheld[0]) {
		assert_true(rounds++ < 10);
		assert_int_equal(bql(d, 0).inflight, d->nheld[0] * PKT_LEN);
		complete_held(d, 0);
		txp_net_tx_action(d->dev);
	}
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(d->acc[sent + 1 + i].seq, 100 + i);
	finish(d);
}

/* __netdev_tx_sent_queue: with xmit_more the bytes are only counted (no
 * XOFF, even past the limit) and the doorbell is due only on a stopped
 * queue; without, as netdev_tx_sent_queue.  Then a reset forgets it all. */
static void test_bql_xmit_more_and_reset(void **state)
{
	struct mdrv *d = *state;
	struct txp_txq *t;
	unsigned limit;

	up_bql(d, 2, true);
	t = txq(d, 1);
	limit = bql(d, 1).limit;
	assert_false(txp_netdev_tx_sent_queue_more(t, limit + PKT_LEN, true));
	assert_int_equal(bql(d, 1).inflight, limit + PKT_LEN);
	assert_false(txp_netif_xmit_stopped(t));
	txp_netif_stop_queue(t);
	assert_true(txp_netdev_tx_sent_queue_more(t, PKT_LEN, true));
	txp_netif_wake_queue(t);
	assert_int_equal(bql(d, 1).inflight, limit + 2 * PKT_LEN);
	assert_true(txp_netdev_tx_sent_queue_more(t, PKT_LEN, false));
	assert_int_equal(bql(d, 1).inflight, limit + 3 * PKT_LEN);
	assert_true(txp_netif_xmit_stopped(t));
	assert_false(txp_netif_queue_stopped(t));
	assert_int_equal(bql(d, 0).inflight, 0);	/* queue 0's own */

	txp_netdev_tx_reset_queue(t);
	assert_false(txp_netif_xmit_stopped(t));
	assert_int_equal(bql(d, 1).inflight, 0);
	assert_int_equal(send_on(d, 1, 1), TXP_XMIT_OK);
	ASSERT_ACCEPTED_ON(d, 1, 1);
	finish(d);
}

/* Without BQL the driver's calls change nothing. */
static void test_bql_off_noop(void **state)
{
	struct mdrv *d = *state;
	struct txp_txq *t;

	up_bql(d, 2, false);
	t = txq(d, 0);
	assert_false(bql(d, 0).enabled);
	txp_netdev_tx_sent_queue(t, 1u << 30);
	assert_false(txp_netif_xmit_stopped(t));
	assert_false(txp_netdev_tx_sent_queue_more(t, 1u << 30, true));
	assert_true(txp_netdev_tx_sent_queue_more(t, 1u << 30, false));
	assert_false(txp_netif_xmit_stopped(t));
	assert_int_equal(bql(d, 0).inflight, 0);
	txp_netdev_tx_completed_queue(t, 1, PKT_LEN);
	txp_netdev_tx_reset_queue(t);
	assert_int_equal(bql(d, 0).inflight, 0);
	d->mode[0] = M_HOLD;
	for (uint64_t s = 0; s < 20; s++)
		assert_int_equal(send_on(d, 0, s), TXP_XMIT_OK);
	assert_int_equal(d->nheld[0], 20);
	assert_false(txp_netif_xmit_stopped(t));
	assert_int_equal(bql(d, 0).inflight, 0);
	finish(d);
}

/* -- the lockless stop/wake helpers -------------------------------------- */

/* A get_desc whose evaluations return values[0], then values[1]; each also
 * notes whether the queue was stopped when it was evaluated. */
struct desc_probe {
	struct txp_txq *txq;
	unsigned values[2];
	unsigned evals;
	bool stopped_at[2];
};

static unsigned probe(struct desc_probe *p)
{
	unsigned i = p->evals < 2 ? p->evals : 1;

	p->stopped_at[i] = txp_netif_queue_stopped(p->txq);
	p->evals++;
	return p->values[i];
}

static void test_txq_maybe_stop(void **state)
{
	struct mdrv *d = *state;
	struct txp_txq *t;
	struct desc_probe p;

	up(d, 2);
	t = txq(d, 1);
	/* Room: left running, get_desc read once. */
	p = (struct desc_probe){ .txq = t, .values = { 4, 4 } };
	assert_int_equal(txp_netif_txq_maybe_stop(t, probe(&p), 4, 8), 1);
	assert_int_equal(p.evals, 1);
	assert_false(txp_netif_queue_stopped(t));
	assert_int_equal(qstats(d, 1).stops, 0);

	/* No room, and none appears: stopped. */
	p = (struct desc_probe){ .txq = t, .values = { 3, 7 } };
	assert_int_equal(txp_netif_txq_maybe_stop(t, probe(&p), 4, 8), 0);
	assert_int_equal(p.evals, 2);
	assert_true(p.stopped_at[1]);		/* rechecked after stopping */
	assert_true(txp_netif_queue_stopped(t));
	assert_false(txp_netif_queue_stopped(txq(d, 0)));
	assert_int_equal(qstats(d, 1).stops, 1);
	txp_netif_wake_queue(t);

	/* Room appears between the check and the recheck: restarted. */
	p = (struct desc_probe){ .txq = t, .values = { 3, 8 } };
	assert_int_equal(txp_netif_txq_maybe_stop(t, probe(&p), 4, 8), -1);
	assert_int_equal(p.evals, 2);
	assert_false(p.stopped_at[0]);
	assert_true(p.stopped_at[1]);
	assert_false(txp_netif_queue_stopped(t));
	assert_int_equal(qstats(d, 1).stops, 2);

	/* txp_netif_txq_try_stop on its own. */
	p = (struct desc_probe){ .txq = t, .values = { 9, 9 } };
	assert_int_equal(txp_netif_txq_try_stop(t, probe(&p), 8), -1);
	assert_int_equal(p.evals, 1);
	assert_true(p.stopped_at[0]);
	assert_false(txp_netif_queue_stopped(t));
	assert_int_equal(send_on(d, 1, 1), TXP_XMIT_OK);
	ASSERT_ACCEPTED_ON(d, 1, 1);
	finish(d);
}

static void test_txq_completed_wake(void **state)
{
	struct mdrv *d = *state;
	struct txp_txq *t;
	unsigned evals = 0;

	up_bql(d, 2, true);
	t = txq(d, 1);
	d->bql = false;		/* the test reports bytes itself */
	/* Counted, without the stack's XOFF (xmit_more). */
	assert_false(txp_netdev_tx_sent_queue_more(t, 4 * PKT_LEN, true));
	assert_int_equal(bql(d, 1).inflight, 4 * PKT_LEN);

	/* Nothing completed. */
	assert_int_equal(txp_netif_txq_completed_wake(t, 0, 0, 10, 4), -1);
	/* The driver stops; a completion below the threshold leaves it so. */
	txp_netif_stop_queue(t);
	assert_int_equal(send_on(d, 1, 0), TXP_XMIT_OK);
	assert_int_equal(txp_txq_backlog(t), 1);
	assert_int_equal(txp_netif_txq_completed_wake(t, 1, PKT_LEN, 3, 4), -1);
	assert_true(txp_netif_queue_stopped(t));
	assert_int_equal(bql(d, 1).inflight, 3 * PKT_LEN);	/* BQL heard it */
	/* Above it: woken, and the queue runs again. */
	assert_int_equal(txp_netif_txq_completed_wake(t, 1, PKT_LEN, (evals++, 4u), 4), 0);
	assert_int_equal(evals, 1);
	assert_false(txp_netif_queue_stopped(t));
	assert_int_equal(bql(d, 1).inflight, 2 * PKT_LEN);
	assert_int_equal(qstats(d, 1).wakes, 1);
	assert_int_equal(txp_txq_backlog(t), 1);
	txp_net_tx_action(d->dev);
	assert_int_equal(txp_txq_backlog(t), 0);
	ASSERT_ACCEPTED_ON(d, 1, 0);
	/* Running already. */
	assert_int_equal(txp_netif_txq_completed_wake(t, 2, 2 * PKT_LEN, 10, 4), 1);
	assert_int_equal(bql(d, 1).inflight, 0);
	assert_int_equal(qstats(d, 1).wakes, 1);
	finish(d);
}

/* -- the watchdog -------------------------------------------------------- */

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static double ms_since(double t)
{
	return (txp_test_now_s() - t) * 1000.0;
}

/* The number after "timed out " in the log, or -1. */
static long logged_ms(struct mdrv *d, const char *prefix)
{
	const char *p;

	log_count(d, prefix);
	p = strstr(d->logbuf, prefix);
	return p ? strtol(p + strlen(prefix), NULL, 10) : -1;
}

/*
 * Queue 1 holds two packets in its ring, then stops (BUSY) with three in
 * its qdisc, and stays stopped.  The watchdog says nothing before the
 * timeout, then reports queue 1, once, and the driver's tx_timeout runs
 * with every queue frozen; after it, the queues run again.  An idle
 * queue that stops only now is not taken as stopped since it went idle.
 */
static void test_watchdog(void **state)
{
	struct mdrv *d = *state;
	struct txp_dev_cfg cfg = cfg_for(d, 2);
	char prefix[96];
	double before_stop, after_stop, after_fire;
	int rc;
	long ms;

	cfg.ops = &mdrv_wd_ops;
	cfg.watchdog_timeo_ms = WD_MS;
	up_cfg(d, &cfg);
	sleep_ms(2 * WD_MS);	/* idle longer than the timeout */
	d->mode[1] = M_HOLD;
	assert_int_equal(send_on(d, 1, 0), TXP_XMIT_OK);
	assert_int_equal(send_on(d, 1, 1), TXP_XMIT_OK);
	d->mode[1] = M_BUSY;
	before_stop = txp_test_now_s();
	for (uint64_t s = 2; s < 5; s++)
		assert_int_equal(send_on(d, 1, s), TXP_XMIT_OK);
	after_stop = txp_test_now_s();
	assert_true(txp_netif_queue_stopped(txq(d, 1)));
	assert_int_equal(txp_txq_backlog(txq(d, 1)), 3);

	rc = txp_dev_watchdog(d->dev);
	if (ms_since(before_stop) < WD_MS)	/* looked in time: too early */
		assert_int_equal(rc, -1);
	while (rc < 0) {
		assert_true(ms_since(after_stop) < 5000.0);
		sleep_ms(2);
		rc = txp_dev_watchdog(d->dev);
	}
	after_fire = txp_test_now_s();
	/* It fired once the queue had been stopped for the timeout. */
	assert_true((after_fire - before_stop) * 1000.0 >= WD_MS);
	assert_int_equal(rc, 1);
	assert_int_equal(d->timeouts, 1);
	assert_int_equal(d->timeout_queue, 1);
	assert_int_equal(qstats(d, 1).tx_timeouts, 1);
	assert_int_equal(qstats(d, 0).tx_timeouts, 0);
	assert_int_equal(qstats(d, 1).dropped[TXP_DROP_TX_TIMEOUT], 2);

	snprintf(prefix, sizeof(prefix), "NETDEV WATCHDOG: %s (%s): transmit queue 1 timed out ",
		 txp_dev_name(d->dev), mdrv_wd_ops.name);
	assert_int_equal(log_count(d, prefix), 1);
	ms = logged_ms(d, prefix);
	assert_true(ms >= WD_MS);
	assert_true(ms <= (long)((after_fire - before_stop) * 1000.0) + 1);
	assert_non_null(strstr(strstr(d->logbuf, prefix), " ms\n"));

	/* Frozen during tx_timeout: neither the woken queue's backlog nor a
	 * new packet on queue 0 reached start_xmit. */
	assert_int_equal(d->calls_in_timeout, 0);
	assert_int_equal(d->backlog_in_timeout, 3);
	assert_int_equal(d->timeout_xmit_rc, TXP_XMIT_OK);
	/* Unfrozen and rescheduled after it. */
	assert_int_equal(txp_dev_backlog(d->dev), 0);
	ASSERT_ACCEPTED_ON(d, 1, 0, 1, 2, 3, 4);
	ASSERT_ACCEPTED_ON(d, 0, 900);
	assert_false(txp_netif_xmit_stopped(txq(d, 1)));
	assert_int_equal(txp_dev_watchdog(d->dev), -1);
	assert_int_equal(d->timeouts, 1);
	finish(d);
}

/* A queue stopped by BQL (the stack's XOFF) is watched as well. */
static void test_watchdog_bql_stop(void **state)
{
	struct mdrv *d = *state;
	struct txp_dev_cfg cfg = cfg_for(d, 2);
	unsigned sent;
	double t0;

	cfg.ops = &mdrv_wd_ops;
	cfg.watchdog_timeo_ms = WD_MS;
	cfg.bql = true;
	up_cfg(d, &cfg);
	d->bql = true;
	d->mode[0] = M_HOLD;
	t0 = txp_test_now_s();
	while (!txp_netif_xmit_stopped(txq(d, 0))) {
		assert_true(d->naccepted < HOLD_MAX);
		assert_int_equal(send_on(d, 0, d->naccepted), TXP_XMIT_OK);
	}
	assert_false(txp_netif_queue_stopped(txq(d, 0)));
	sent = d->naccepted;
	while (txp_dev_watchdog(d->dev) < 0) {
		assert_true(ms_since(t0) < 5000.0);
		sleep_ms(2);
	}
	assert_true(ms_since(t0) >= WD_MS);
	assert_int_equal(d->timeout_queue, 0);
	assert_int_equal(qstats(d, 0).tx_timeouts, 1);
	assert_int_equal(qstats(d, 0).dropped[TXP_DROP_TX_TIMEOUT], sent);
	assert_int_equal(d->nheld[0], 0);
	/* tx_timeout reset BQL: the queue sent the packet tx_timeout gave it
	 * (which the driver completed without telling BQL), and only that
	 * one is in flight. */
	assert_int_equal(d->naccepted, sent + 1);
	assert_int_equal(d->acc[sent].seq, 900);
	assert_int_equal(bql(d, 0).inflight, PKT_LEN);
	finish(d);
}

/* No tx_timeout op, no watchdog; nor on a device that is down. */
static void test_watchdog_needs_tx_timeout(void **state)
{
	struct mdrv *d = *state;
	struct txp_dev_cfg cfg = cfg_for(d, 2);
	struct txp_dev *dev;
	char err[128];

	cfg.watchdog_timeo_ms = WD_MS;
	up_cfg(d, &cfg);
	d->mode[0] = M_BUSY;
	assert_int_equal(send_on(d, 0, 0), TXP_XMIT_OK);
	assert_true(txp_netif_queue_stopped(txq(d, 0)));
	sleep_ms(2 * WD_MS);
	assert_int_equal(txp_dev_watchdog(d->dev), -1);
	assert_int_equal(dstats(d).tx_timeouts, 0);
	assert_int_equal(log_count(d, "NETDEV WATCHDOG"), 0);
	finish(d);

	cfg.ops = &mdrv_wd_ops;
	dev = txp_dev_create(&cfg, err, sizeof(err));
	assert_non_null(dev);
	txp_netif_stop_queue(txp_dev_txq(dev, 1));
	sleep_ms(2 * WD_MS);
	assert_int_equal(txp_dev_watchdog(dev), -1);	/* never opened */
	assert_int_equal(d->timeouts, 0);
	txp_dev_destroy(dev);
}

int main(int argc, char **argv)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_queue_accessors),
		T(test_queue_counts),
		T(test_queue_isolation),
		T(test_queue_isolation_last),
		T(test_counters_per_queue),
		T(test_xps_default),
		T(test_xps_set),
		T(test_xps_refuses_negative),
		T(test_flow_hash_spread),
		T(test_flow_order_in_burst),
		T(test_pick_tx_cache),
		T(test_select_queue),
		T(test_select_queue_once_per_packet_in_burst),
		T(test_xmit_on_bad_queue),
		T(test_bql_stack_xoff),
		T(test_bql_xmit_more_and_reset),
		T(test_bql_off_noop),
		T(test_txq_maybe_stop),
		T(test_txq_completed_wake),
		T(test_watchdog),
		T(test_watchdog_bql_stop),
		T(test_watchdog_needs_tx_timeout),
	};
#undef T
	return txp_test_main(argc, argv, tests);
}
