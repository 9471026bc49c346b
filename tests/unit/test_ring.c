/*
 * test_ring.c - the real drivers' shared transmit ring (src/drivers/common/
 * ring.c) over a scripted device, no interface needed:
 *  - a free slot with the device's own ring busy is backpressure: counted
 *    once as device busy, no "BUG! Tx Ring full when queue awake!", no
 *    ring error, and the packet goes out once the device takes it;
 *  - a frame the device took and did not send ends dropped with the
 *    driver's reason (tx-error, driver), never as transmitted;
 *  - a device that dies mid-run ends a --packets run promptly: the
 *    producers stop, what they had submitted ends transmitted or dropped
 *    with the death's reason, and the run says why;
 *  - many queues: each queue's ring carries its own queue's packets and no
 *    other's, every one once, and reports its bytes to BQL (nothing left
 *    in flight);
 *  - tx_timeout on a device that takes nothing: what it never started on
 *    is dropped as tx-timeout and the queue runs again; what it holds is
 *    left to it, the queue stopped again, no false BUG;
 *  - a ring whose start_xmit reaps (reap_in_xmit) over a device that
 *    finishes nothing while the sender sends: the ring fills, the queue
 *    stops, the sender goes idle, and the completion context still
 *    retires every packet and wakes the queue, nothing lost;
 *  - busy polling (txp__ring_busy_poll()): on such a ring, the caller
 *    retires what the device finished in its own context, at once; on a
 *    ring whose completion context reaps, it does nothing.
 * Each in core and LLTX lock mode.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "drivers/common/ring.h"
#include "sync/sync.h"
#include "testutil.h"
#include "txpath/driver.h"
#include "run/run.h"

#define WAIT_SECONDS 20

/* The scripted device: what post and reap do, by the frame's number. */
struct script {
	atomic_uint busy_posts;		/* post refuses this many times (EBUSY) */
	atomic_bool stuck;		/* reap takes nothing (a hung device) */
	/* reap takes nothing but in thread `only` (when only_set) */
	atomic_bool only_set;
	pthread_t only;
	bool holds;			/* cancel: the device holds what it was given */
	uint64_t alien;			/* frames of another queue's flow taken */
	uint64_t fail_every;		/* reap: every Nth frame taken, not sent (0: none) */
	uint64_t die_after;		/* reap: the link goes after this many frames (0: never) */
	uint64_t taken;			/* frames reaped so far */
};

static int script_post(struct ring *r, uint64_t idx, struct txp_pkt *pkt)
{
	struct script *s = txp__ring_drv(r);
	unsigned busy = atomic_load(&s->busy_posts);

	if (busy) {
		atomic_store(&s->busy_posts, busy - 1);
		return -EBUSY;
	}
	return txp__ring_post_in_slot(r, idx, pkt);
}

/* Does the device finish frames for a reap in this context? */
static bool script_takes(struct script *s)
{
	return !atomic_load(&s->stuck) &&
	       (!atomic_load(&s->only_set) || pthread_equal(pthread_self(), s->only));
}

static int script_reap(struct ring *r, uint64_t cons, uint64_t prod)
{
	struct script *s = txp__ring_drv(r);
	uint64_t i = txp__ring_kicked(r);

	(void)cons;
	for (; i < prod && script_takes(s); i++) {
		if (s->die_after && s->taken == s->die_after)
			break;
		/* Each test packet's flow is the queue it was sent on. */
		if (txp__ring_slot_pkt(r, i) && txp__ring_slot_pkt(r, i)->flow != txp__ring_index(r))
			s->alien++;
		s->taken++;
		if (s->fail_every && s->taken % s->fail_every == 0)
			txp__ring_slot_unsent(r, i, TXP_DROP_TX_ERROR);
		else
			txp__ring_slot_sent(r, i);
	}
	txp__ring_set_kicked(r, i);
	return s->die_after && s->taken == s->die_after ? -ENETDOWN : 0;
}

/* What was not reaped was never taken, unless the device holds it. */
static bool script_cancel(struct ring *r, uint64_t idx)
{
	struct script *s = txp__ring_drv(r);

	return !s->holds && idx >= txp__ring_kicked(r);
}

static void script_release(void *drv)
{
	free(drv);
}

static const struct ring_ops script_ops = {
	.name = "script",
	.post = script_post,
	.reap = script_reap,
	.cancel = script_cancel,
	.release = script_release,
};

/* The same, reaped by start_xmit too. */
static const struct ring_ops script_xmit_ops = {
	.name = "script",
	.post = script_post,
	.reap = script_reap,
	.reap_in_xmit = true,
	.cancel = script_cancel,
	.release = script_release,
};

static const struct txp_driver_ops script_driver_ops = {
	.name = "script",
	.open = txp__ring_open,
	.stop = txp__ring_stop,
	.start_xmit = txp__ring_start_xmit,
	.tx_timeout = txp__ring_tx_timeout,
};

/* A ring of slots with ops over a device that refuses busy posts, then
 * fails every fail_every-th frame, and loses its link after die_after (0:
 * neither). */
static struct ring *script_ring_ops(const struct ring_ops *ops, unsigned slots, unsigned busy,
				    uint64_t fail_every, uint64_t die_after)
{
	struct script *s = calloc(1, sizeof(*s));
	struct ring_cfg rc = {
		.ops = ops,
		.slots = slots,
		.slot_size = 64,
		.max_len = 64,
		.ifname = "script0",
	};
	char err[128];
	struct ring *r;

	assert_non_null(s);
	atomic_init(&s->busy_posts, busy);
	s->fail_every = fail_every;
	s->die_after = die_after;
	rc.drv = s;
	r = txp__ring_create(&rc, err, sizeof(err));
	assert_non_null(r);
	return r;
}

static struct ring *script_ring(unsigned slots, unsigned busy, uint64_t fail_every,
				uint64_t die_after)
{
	return script_ring_ops(&script_ops, slots, busy, fail_every, die_after);
}

/* The device over r's rings (queue 0's r, holding the others), with
 * BQL (bql) and a watchdog of wd_ms (0: none). */
static struct txp_dev *script_dev_cfg(struct ring *r, enum txp_lock_mode lock, bool bql,
				      unsigned wd_ms)
{
	struct txp_dev_cfg dcfg = {
		.name = "script0",
		.lock = lock,
		.ops = &script_driver_ops,
		.priv = r,
		.num_tx_queues = txp__ring_queue(r, 1) ? 2 : 1,
		.bql = bql,
		.watchdog_timeo_ms = wd_ms,
	};
	char err[128];
	struct txp_dev *dev = txp_dev_create(&dcfg, err, sizeof(err));

	assert_non_null(dev);
	assert_int_equal(txp_dev_open(dev), 0);
	return dev;
}

static struct txp_dev *script_dev(struct ring *r, enum txp_lock_mode lock)
{
	return script_dev_cfg(r, lock, false, 0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bytes of every packet sent (only read). */
static unsigned char frame[64];

/* Send n packets on queue, of flow `queue`, seq from 0. */
static void send_on(struct txp_dev *dev, unsigned queue, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct txp_pkt *pkt = txp_pkt_alloc();

		assert_non_null(pkt);
		pkt->seq = i;
		pkt->flow = queue;
		assert_int_equal(txp_pkt_attach_head(pkt, frame, sizeof(frame), 0, 64), 0);
		txp_dev_queue_xmit_on(dev, queue, pkt);
	}
}

/* Wait until every packet is accounted for, close the device; its
 * counters into st. */
static void wait_and_close(struct txp_dev *dev, struct txp_dev_stats *st)
{
	double give_up = now_s() + WAIT_SECONDS;

	for (;;) {
		txp_dev_get_stats(dev, st);
		if (st->transmitted + txp_test_dropped(st) == st->submitted)
			break;
		assert_true(now_s() < give_up);
		txp_sleep_ns(1000000);
	}
	txp_dev_close(dev);
	txp_dev_get_stats(dev, st);
	assert_int_equal(st->submitted, st->transmitted + txp_test_dropped(st));
}

/* Send n packets from this thread on queue 0, then wait_and_close(). */
static void send_and_close(struct txp_dev *dev, unsigned n, struct txp_dev_stats *st)
{
	send_on(dev, 0, n);
	wait_and_close(dev, st);
	assert_int_equal(st->submitted, n);
}

/* -- the device's own ring busy --------------------------------------------- */

/* The ring's counters now. */
static struct txp__ring_stats ring_stat(struct ring *r)
{
	struct txp__ring_stats st;

	txp__ring_get_stats(r, &st);
	return st;
}

static void device_busy(enum txp_lock_mode lock)
{
	struct ring *r = script_ring(16, 3, 0, 0);
	struct txp_dev *dev = script_dev(r, lock);
	struct txp_dev_stats st;

	send_and_close(dev, 8, &st);
	/* Counted once, as what it is; no BUG, no ring error, nothing lost. */
	assert_int_equal(ring_stat(r).dev_busy, 3);
	assert_int_equal(st.bug_logs, 0);
	assert_int_equal(ring_stat(r).ring_full_awake, 0);
	assert_int_equal(ring_stat(r).ring_errors, 0);
	assert_int_equal(st.transmitted, 8);
	assert_int_equal(txp_test_dropped(&st), 0);
	txp_dev_destroy(dev);
	txp__ring_destroy(r);
}

static void test_device_busy_core(void **state)
{
	(void)state;
	device_busy(TXP_LOCK_CORE);
}

static void test_device_busy_lltx(void **state)
{
	(void)state;
	device_busy(TXP_LOCK_LLTX);
}

/* -- bytes that do not make a frame ------------------------------------------ */

/* A packet without bytes, one whose lengths do not add up and one larger
 * than the device takes are refused, dropped as driver; the ring goes on
 * with the next, and the device saw exactly the bytes of the good one. */
static void refuses_bad_bytes(enum txp_lock_mode lock)
{
	static unsigned char big[65];
	struct ring *r = script_ring(16, 0, 0, 0);
	struct txp_dev *dev = script_dev(r, lock);
	struct txp_pkt *p[4];
	struct txp_dev_stats st;

	for (int i = 0; i < 4; i++)
		assert_non_null(p[i] = txp_pkt_alloc());
	p[0]->len = 64;						/* no bytes */
	txp_pkt_attach_head(p[1], frame, sizeof(frame), 0, 60);
	p[1]->len = 64;						/* 60 of 64 */
	txp_pkt_attach_head(p[2], big, sizeof(big), 0, 65);	/* max_len is 64 */
	for (int k = 0; k < 64; k++)
		frame[k] = (unsigned char)(k ^ 0x5a);
	txp_pkt_attach_head(p[3], frame, sizeof(frame), 0, 64);
	for (int i = 0; i < 4; i++)
		txp_dev_queue_xmit(dev, p[i]);
	txp_sleep_ns(50000000);
	txp_dev_close(dev);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.dropped[TXP_DROP_DRIVER], 3);
	assert_int_equal(ring_stat(r).refused, 3);
	assert_int_equal(st.transmitted, 1);
	/* The one posted was gathered into slot 0. */
	assert_memory_equal(txp__ring_buf(r, 0), frame, 64);
	memset(frame, 0, sizeof(frame));
	txp_dev_destroy(dev);
	txp__ring_destroy(r);
}

static void test_refuses_bad_bytes_core(void **state)
{
	(void)state;
	refuses_bad_bytes(TXP_LOCK_CORE);
}

static void test_refuses_bad_bytes_lltx(void **state)
{
	(void)state;
	refuses_bad_bytes(TXP_LOCK_LLTX);
}

/* -- taken, not sent --------------------------------------------------------- */

static void unsent_dropped(enum txp_lock_mode lock)
{
	struct ring *r = script_ring(16, 0, 4, 0);
	struct txp_dev *dev = script_dev(r, lock);
	struct txp_dev_stats st;

	send_and_close(dev, 100, &st);
	/* Every 4th frame the device did not send: dropped as tx-error. */
	assert_int_equal(st.dropped[TXP_DROP_TX_ERROR], 25);
	assert_int_equal(ring_stat(r).tx_errors, 25);
	assert_int_equal(st.transmitted, 75);
	assert_int_equal(txp_test_dropped(&st), 25);
	assert_int_equal(ring_stat(r).ring_errors, 0);
	txp_dev_destroy(dev);
	txp__ring_destroy(r);
}

static void test_unsent_dropped_core(void **state)
{
	(void)state;
	unsent_dropped(TXP_LOCK_CORE);
}

static void test_unsent_dropped_lltx(void **state)
{
	(void)state;
	unsent_dropped(TXP_LOCK_LLTX);
}

/* -- many queues -------------------------------------------------------------- */

#define MQ_PACKETS 500	/* below the qdisc's limit: none dropped */

/* Two rings of 16 slots on a two-queue device, MQ_PACKETS sent on each
 * queue: each ring took exactly its queue's, and with BQL every byte
 * reported sent was reported completed (else the queue would stall on
 * the limit, and bytes stay in flight). */
static void queues_own_rings(enum txp_lock_mode lock, bool bql)
{
	struct ring *r = script_ring(16, 0, 0, 0), *r1 = script_ring(16, 0, 0, 0);
	struct txp_dev_stats st, q[2];
	struct txp_bql_info bi;
	struct txp_dev *dev;
	char err[128];

	assert_int_equal(txp__ring_add_queue(r, r1, err, sizeof(err)), 0);
	assert_ptr_equal(txp__ring_queue(r, 1), r1);
	assert_int_equal(txp__ring_index(r1), 1);
	dev = script_dev_cfg(r, lock, bql, 0);
	send_on(dev, 0, MQ_PACKETS);
	send_on(dev, 1, MQ_PACKETS);
	wait_and_close(dev, &st);
	assert_int_equal(st.transmitted, 2 * MQ_PACKETS);
	assert_int_equal(txp_test_dropped(&st), 0);
	for (unsigned i = 0; i < 2; i++) {
		struct script *s = txp__ring_drv(txp__ring_queue(r, i));

		txp_txq_get_stats(txp_dev_txq(dev, i), &q[i]);
		assert_int_equal(q[i].transmitted, MQ_PACKETS);
		assert_int_equal(s->taken, MQ_PACKETS);
		assert_int_equal(s->alien, 0);
		txp_txq_get_bql(txp_dev_txq(dev, i), &bi);
		assert_int_equal(bi.enabled, bql);
		assert_int_equal(bi.inflight, 0);
	}
	assert_int_equal(st.bug_logs, 0);
	assert_int_equal(ring_stat(r).ring_errors, 0);
	txp_dev_destroy(dev);
	txp__ring_destroy(r);
}

static void test_queues_own_rings_core(void **state)
{
	(void)state;
	queues_own_rings(TXP_LOCK_CORE, false);
}

static void test_queues_own_rings_lltx(void **state)
{
	(void)state;
	queues_own_rings(TXP_LOCK_LLTX, false);
}

static void test_queues_own_rings_bql_core(void **state)
{
	(void)state;
	queues_own_rings(TXP_LOCK_CORE, true);
}

static void test_queues_own_rings_bql_lltx(void **state)
{
	(void)state;
	queues_own_rings(TXP_LOCK_LLTX, true);
}

/* -- tx_timeout ------------------------------------------------------------------ */

#define TO_RING 8
#define TO_PACKETS 20
#define TO_WD_MS 1

/* Call the watchdog until it fires; the queue it named. */
static int watchdog_fires(struct txp_dev *dev)
{
	double give_up = now_s() + WAIT_SECONDS;
	int q;

	while ((q = txp_dev_watchdog(dev)) < 0) {
		assert_true(now_s() < give_up);
		txp_sleep_ns(TO_WD_MS * 2000000ull);
	}
	return q;
}

/* Wait until queue q is stopped with backlog packets in its qdisc. */
static void wait_stopped(struct txp_dev *dev, unsigned q, unsigned backlog)
{
	double give_up = now_s() + WAIT_SECONDS;

	while (!txp_netif_queue_stopped(txp_dev_txq(dev, q)) ||
	       txp_txq_backlog(txp_dev_txq(dev, q)) != backlog) {
		assert_true(now_s() < give_up);
		txp_sleep_ns(1000000);
	}
}

/*
 * Queue 1 of two hangs with its ring full (TO_RING) and the rest in its
 * qdisc; the watchdog fires for it.  A device that never started on what
 * it was given (holds false) has it taken back: TO_RING dropped as
 * tx-timeout, the queue woken, the next TO_RING posted (and stopped
 * again); once it works again the rest is sent.  One that holds it keeps
 * it: nothing dropped, the queue stopped again (woken, it would find its
 * ring full awake: a false BUG), and everything sent in the end.
 */
static void tx_timeout_resets(enum txp_lock_mode lock, bool holds)
{
	struct ring *r = script_ring(16, 0, 0, 0), *r1 = script_ring(TO_RING, 0, 0, 0);
	struct script *s1 = txp__ring_drv(r1);
	unsigned dropped = holds ? 0 : TO_RING;
	struct txp_dev_stats st, q1;
	struct txp_dev *dev;
	char err[128];

	assert_int_equal(txp__ring_add_queue(r, r1, err, sizeof(err)), 0);
	atomic_store(&s1->stuck, true);
	s1->holds = holds;
	dev = script_dev_cfg(r, lock, false, TO_WD_MS);
	send_on(dev, 1, TO_PACKETS);
	assert_true(txp_netif_queue_stopped(txp_dev_txq(dev, 1)));
	assert_int_equal(txp_txq_backlog(txp_dev_txq(dev, 1)), TO_PACKETS - TO_RING);
	send_on(dev, 0, 10);
	assert_int_equal(watchdog_fires(dev), 1);
	txp_txq_get_stats(txp_dev_txq(dev, 1), &q1);
	assert_int_equal(q1.tx_timeouts, 1);
	assert_int_equal(q1.dropped[TXP_DROP_TX_TIMEOUT], dropped);
	/* Woken and refilled (by whichever context runs the queue first), or
	 * left: stopped either way, the device still hung. */
	wait_stopped(dev, 1, TO_PACKETS - TO_RING - (holds ? 0 : TO_RING));
	atomic_store(&s1->stuck, false);
	wait_and_close(dev, &st);
	assert_int_equal(st.tx_timeouts, 1);
	assert_int_equal(st.dropped[TXP_DROP_TX_TIMEOUT], dropped);
	assert_int_equal(st.transmitted, 10 + TO_PACKETS - dropped);
	assert_int_equal(s1->taken, TO_PACKETS - dropped);
	assert_int_equal(st.bug_logs, 0);
	assert_int_equal(ring_stat(r).ring_full_awake, 0);
	assert_int_equal(ring_stat(r).ring_errors, 0);
	txp_dev_destroy(dev);
	txp__ring_destroy(r);
}

static void test_tx_timeout_takes_back_core(void **state)
{
	(void)state;
	tx_timeout_resets(TXP_LOCK_CORE, false);
}

static void test_tx_timeout_takes_back_lltx(void **state)
{
	(void)state;
	tx_timeout_resets(TXP_LOCK_LLTX, false);
}

static void test_tx_timeout_device_holds_core(void **state)
{
	(void)state;
	tx_timeout_resets(TXP_LOCK_CORE, true);
}

static void test_tx_timeout_device_holds_lltx(void **state)
{
	(void)state;
	tx_timeout_resets(TXP_LOCK_LLTX, true);
}

/* -- start_xmit reaps, the completion context still wakes ---------------------- */

/*
 * The device finishes nothing while the sender sends (its completions lag
 * the doorbell, so the sender's own reaps take nothing): 64 packets
 * through 16 slots fill the ring and stop the queue, the rest waiting in
 * the qdisc.  Then the device finishes them and the sender is idle: the
 * completion context, which naps while a queue runs, must still retire
 * them, wake the queue and drain the qdisc: every packet transmitted,
 * none lost, no BUG.
 */
static void xmit_reaper_idle(enum txp_lock_mode lock)
{
	struct ring *r = script_ring_ops(&script_xmit_ops, 16, 0, 0, 0);
	struct script *s = txp__ring_drv(r);
	struct txp_dev *dev = script_dev(r, lock);
	struct txp_dev_stats st;

	atomic_store(&s->stuck, true);
	send_on(dev, 0, 64);
	txp_dev_get_stats(dev, &st);
	assert_int_equal(st.stops, 1);
	assert_int_equal(st.transmitted, 0);
	atomic_store(&s->stuck, false);
	wait_and_close(dev, &st);
	assert_int_equal(st.submitted, 64);
	assert_true(st.wakes > 0);
	assert_int_equal(st.transmitted, 64);
	assert_int_equal(txp_test_dropped(&st), 0);
	assert_int_equal(st.bug_logs, 0);
	assert_int_equal(ring_stat(r).ring_full_awake, 0);
	assert_int_equal(ring_stat(r).ring_errors, 0);
	txp_dev_destroy(dev);
	txp__ring_destroy(r);
}

static void test_xmit_reaper_idle_core(void **state)
{
	(void)state;
	xmit_reaper_idle(TXP_LOCK_CORE);
}

static void test_xmit_reaper_idle_lltx(void **state)
{
	(void)state;
	xmit_reaper_idle(TXP_LOCK_LLTX);
}

/* -- a device that dies mid-run ----------------------------------------------- */

#define DIE_AFTER 5000

static bool script_check(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	return true;
}

static int script_create(const struct txp_run_cfg *cfg, const struct txp_driver_ops **ops,
			 void **priv, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	*ops = &script_driver_ops;
	*priv = script_ring(cfg->ring, 0, 0, DIE_AFTER);
	return 0;
}

static void script_stats(void *priv, struct txp_run_drv_stats *st)
{
	struct ring *r = priv;
	const char *died = txp__ring_dead_cause(r);

	*st = (struct txp_run_drv_stats){
		.ring_errors = ring_stat(r).ring_errors,
		.link_down = died != NULL,
	};
	snprintf(st->died, sizeof(st->died), "%s", died ? died : "");
}

static const char *script_dead(void *priv)
{
	return txp__ring_dead_cause(priv);
}

/* The scripted device takes bytes, as the real ones do: frames. */
static void script_frame_addr(void *priv, const struct txp_run_cfg *cfg, struct txp_frame_addr *a)
{
	(void)priv;
	*a = cfg->net.addr;
	txp_frame_addr_resolve(a, NULL);
}

static void script_destroy(void *priv)
{
	txp__ring_destroy(priv);
}

static const struct txp_run_driver script_run_driver = {
	.name = "script",
	.summary = "a scripted device whose link goes after a few thousand frames",
	.check = script_check,
	.create = script_create,
	.frame_addr = script_frame_addr,
	.stats = script_stats,
	.dead = script_dead,
	.destroy = script_destroy,
};

static void dies_mid_run(enum txp_lock_mode lock)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	char err[256] = "";

	txp_run_cfg_init(&cfg);
	cfg.driver = &script_run_driver;
	cfg.lock = lock;
	cfg.threads = 2;
	/* Far more than the device takes before it dies: the old run went on
	 * dropping every one of them as dev-down. */
	cfg.packets = 200000000;
	cfg.log = NULL;
	assert_int_equal(txp_run(&cfg, &res, err, sizeof(err)), 0);
	assert_true(res.drv.link_down);
	assert_string_equal(res.drv.died, "link down (Network is down)");
	assert_false(res.stalled);
	assert_true(res.accounted);
	/* The producers stopped: most packets were never submitted ... */
	assert_true(res.dev.submitted < cfg.packets / 2);
	/* ... and those that were ended sent (exactly what the device took)
	 * or dropped as dev-down. */
	assert_int_equal(res.dev.transmitted, DIE_AFTER);
	assert_int_equal(res.dropped, res.dev.dropped[TXP_DROP_DEV_DOWN]);
	assert_int_equal(res.dev.submitted, res.dev.transmitted + res.dropped);
	assert_int_equal(res.drv.ring_errors, 0);
}

static void test_dies_mid_run_core(void **state)
{
	(void)state;
	dies_mid_run(TXP_LOCK_CORE);
}

static void test_dies_mid_run_lltx(void **state)
{
	(void)state;
	dies_mid_run(TXP_LOCK_LLTX);
}

/* -- busy polling --------------------------------------------------------------- */

/*
 * 8 packets posted while the device finishes nothing; then it finishes
 * frames only for a reap in this thread (so the completion context
 * cannot retire them): busy polling from here retires all 8 at once on a
 * ring whose producers reap, counted transmitted when it returns (tried
 * again while the completion context happens to hold the reaping bit),
 * and none on a ring whose completion context reaps.  Then the device
 * finishes for anyone, and every packet is transmitted.
 */
static void busy_poll(enum txp_lock_mode lock, const struct ring_ops *ops, int queue)
{
	struct ring *r = script_ring_ops(ops, 16, 0, 0, 0);
	struct script *s = txp__ring_drv(r);
	struct txp_dev *dev = script_dev(r, lock);
	struct txp_dev_stats st;
	double give_up = now_s() + WAIT_SECONDS;
	unsigned n = 0;

	atomic_store(&s->stuck, true);
	send_on(dev, 0, 8);
	s->only = pthread_self();
	atomic_store(&s->only_set, true);
	atomic_store(&s->stuck, false);
	if (ops->reap_in_xmit) {
		while (n < 8 && now_s() < give_up)
			n += txp__ring_busy_poll(r, queue);
		assert_int_equal(n, 8);
		txp_dev_get_stats(dev, &st);
		assert_int_equal(st.transmitted, 8);
	} else {
		assert_int_equal(txp__ring_busy_poll(r, queue), 0);
		txp_dev_get_stats(dev, &st);
		assert_int_equal(st.transmitted, 0);
	}
	atomic_store(&s->only_set, false);
	wait_and_close(dev, &st);
	assert_int_equal(st.transmitted, 8);
	assert_int_equal(st.bug_logs, 0);
	assert_int_equal(ring_stat(r).ring_errors, 0);
	txp_dev_destroy(dev);
	txp__ring_destroy(r);
}

static void test_busy_poll_core(void **state)
{
	(void)state;
	busy_poll(TXP_LOCK_CORE, &script_xmit_ops, 0);
}

static void test_busy_poll_lltx(void **state)
{
	(void)state;
	busy_poll(TXP_LOCK_LLTX, &script_xmit_ops, -1);
}

static void test_busy_poll_not_reaping_core(void **state)
{
	(void)state;
	busy_poll(TXP_LOCK_CORE, &script_ops, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_busy_core),
		cmocka_unit_test(test_xmit_reaper_idle_core),
		cmocka_unit_test(test_xmit_reaper_idle_lltx),
		cmocka_unit_test(test_device_busy_lltx),
		cmocka_unit_test(test_refuses_bad_bytes_core),
		cmocka_unit_test(test_refuses_bad_bytes_lltx),
		cmocka_unit_test(test_unsent_dropped_core),
		cmocka_unit_test(test_unsent_dropped_lltx),
		cmocka_unit_test(test_dies_mid_run_core),
		cmocka_unit_test(test_dies_mid_run_lltx),
		cmocka_unit_test(test_queues_own_rings_core),
		cmocka_unit_test(test_queues_own_rings_lltx),
		cmocka_unit_test(test_queues_own_rings_bql_core),
		cmocka_unit_test(test_queues_own_rings_bql_lltx),
		cmocka_unit_test(test_tx_timeout_takes_back_core),
		cmocka_unit_test(test_tx_timeout_takes_back_lltx),
		cmocka_unit_test(test_tx_timeout_device_holds_core),
		cmocka_unit_test(test_tx_timeout_device_holds_lltx),
		cmocka_unit_test(test_busy_poll_core),
		cmocka_unit_test(test_busy_poll_lltx),
		cmocka_unit_test(test_busy_poll_not_reaping_core),
	};

	return txp_test_main(argc, argv, tests);
}
