/*
 * test_misuse.c - the library's API misused as its headers now say it
 * may be (issue 28, item 11): a NULL configuration, packet, pool or
 * device, an enum that is none of its values, a device opened or closed
 * twice, a packet sent after close, a packet freed into another pool or
 * twice, a frame too short: each an error code, a NULL or a defined
 * no-op, never a crash or a hang.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/driver.h"
#include "txpath/net.h"
#include "txpath/netdrv.h"
#include "txpath/qdisc.h"
#include "txpath/sim.h"

/* -- a driver that sends at once, counting its opens and stops ------------- */

static unsigned opens, stops, destructed;

static int count_open(struct txp_dev *dev)
{
	(void)dev;
	opens++;
	return 0;
}

static void count_stop(struct txp_dev *dev)
{
	(void)dev;
	stops++;
}

static enum txp_tx send_now(struct txp_pkt *pkt, struct txp_txq *txq)
{
	txp_pkt_complete(txp_txq_dev(txq), pkt);
	return TXP_TX_OK;
}

static const struct txp_driver_ops now_ops = {
	.name = "now",
	.open = count_open,
	.stop = count_stop,
	.start_xmit = send_now,
};

static void count_destructor(struct txp_pkt *pkt)
{
	(void)pkt;
	destructed++;
}

/* A heap packet whose freeing is counted in destructed. */
static struct txp_pkt *counted_pkt(void)
{
	struct txp_pkt *pkt = txp_pkt_alloc();

	assert_non_null(pkt);
	pkt->len = 64;
	pkt->destructor = count_destructor;
	return pkt;
}

static struct txp_dev *now_dev(void)
{
	struct txp_dev_cfg cfg = { .name = "now0", .ops = &now_ops };
	char err[128];
	struct txp_dev *dev = txp_dev_create(&cfg, err, sizeof(err));

	assert_non_null(dev);
	opens = stops = destructed = 0;
	return dev;
}

static struct txp_dev_stats stats_of(const struct txp_dev *dev)
{
	struct txp_dev_stats st;

	txp_dev_get_stats(dev, &st);
	return st;
}

/* -- creation ---------------------------------------------------------------------- */

/* create(NULL, err, len): NULL, and err says cfg is NULL, in the one
 * form every constructor shares. */
#define assert_refuses_null_cfg(create)						\
	do {									\
		char err_[128] = "";						\
		size_t n_;							\
										\
		assert_null(create(NULL, err_, sizeof(err_)));			\
		n_ = strlen(err_);						\
		assert_true(strncmp(err_, "no ", 3) == 0);			\
		assert_true(n_ > 28 &&						\
			    strcmp(err_ + n_ - 28, " configuration (cfg is NULL)") == 0); \
	} while (0)

/* No cfg, an enum out of range, a qdisc missing an op: NULL and why. */
static void test_create_refuses(void **state)
{
	struct txp_qdisc_ops half = txp_pfifo_fast_ops;
	struct txp_dev_cfg cfg = { .ops = &now_ops };
	char err[128];

	(void)state;
	assert_refuses_null_cfg(txp_dev_create);

	cfg.lock = (enum txp_lock_mode)7;
	assert_null(txp_dev_create(&cfg, err, sizeof(err)));
	assert_non_null(strstr(err, "lock mode 7"));
	cfg.lock = TXP_LOCK_CORE;

	cfg.runner = (enum txp_runner)-1;
	assert_null(txp_dev_create(&cfg, err, sizeof(err)));
	assert_non_null(strstr(err, "runner -1"));
	cfg.runner = TXP_RUNNER_EXCLUSIVE;

	half.dequeue = NULL;
	cfg.qdisc = &half;
	assert_null(txp_dev_create(&cfg, err, sizeof(err)));
	assert_non_null(strstr(err, "lacks an op"));
	half = txp_pfifo_fast_ops;
	half.init = NULL;
	assert_null(txp_dev_create(&cfg, err, sizeof(err)));
	assert_null(txp_qdisc_create(&half, 10));
	assert_null(txp_qdisc_create(NULL, 10));
}

/* The other constructors: no cfg, NULL and why, before any system call. */
static void test_other_creates_refuse_null(void **state)
{
	(void)state;
	assert_refuses_null_cfg(txp_sim_create);
	assert_refuses_null_cfg(txp_afpacket_create);
	assert_refuses_null_cfg(txp_afxdp_create);
	assert_refuses_null_cfg(txp_tap_create);
	assert_refuses_null_cfg(txp_pcap_create);
	assert_null(txp_pkt_pool_create_cfg(NULL));
	/* NULL to the destroyers: nothing. */
	txp_sim_destroy(NULL);
	txp_netdrv_destroy(NULL);
	txp_dev_destroy(NULL);
	assert_true(txp_pkt_pool_destroy(NULL));
}

/* The names of values that are none: "?", never a read past a table. */
static void test_enum_names(void **state)
{
	(void)state;
	assert_string_equal(txp_drop_reason_name((enum txp_drop_reason)99), "?");
	assert_string_equal(txp_lock_mode_name((enum txp_lock_mode)7), "?");
	assert_string_equal(txp_runner_name((enum txp_runner)7), "?");
	assert_string_equal(txp_lock_mode_name(TXP_LOCK_LLTX), "lltx");
	assert_string_equal(txp_runner_name(TXP_RUNNER_CONCURRENT), "concurrent");
}

/* -- up and down ----------------------------------------------------------------------- */

/* Open twice: the driver's open once, 0 both times.  Close twice: stop
 * once.  NULL: -EINVAL, and nothing. */
static void test_open_close_twice(void **state)
{
	struct txp_dev *dev = now_dev();

	(void)state;
	assert_int_equal(txp_dev_open(NULL), -EINVAL);
	txp_dev_close(NULL);
	assert_int_equal(txp_dev_open(dev), 0);
	assert_int_equal(txp_dev_open(dev), 0);
	assert_int_equal(opens, 1);
	txp_dev_close(dev);
	txp_dev_close(dev);
	assert_int_equal(stops, 1);
	/* Down, it opens again. */
	assert_int_equal(txp_dev_open(dev), 0);
	assert_int_equal(opens, 2);
	txp_dev_destroy(dev);
	assert_int_equal(stops, 2);
}

/* A packet sent to a device that is down: dropped as dev-down, counted. */
static void test_xmit_after_close(void **state)
{
	struct txp_dev *dev = now_dev();
	struct txp_dev_stats st;

	(void)state;
	assert_int_equal(txp_dev_open(dev), 0);
	txp_dev_close(dev);
	assert_int_equal(txp_dev_queue_xmit(dev, counted_pkt()), TXP_XMIT_DROP);
	st = stats_of(dev);
	assert_int_equal(st.submitted, 1);
	assert_int_equal(st.dropped[TXP_DROP_DEV_DOWN], 1);
	assert_int_equal(destructed, 1);
	txp_test_assert_accounted(dev);
	txp_dev_destroy(dev);
}

/* -- transmit arguments ------------------------------------------------------------------ */

/* A NULL packet or device: -EINVAL, nothing counted; a packet given
 * with no device is freed (the call owns it). */
static void test_xmit_null(void **state)
{
	struct txp_dev *dev = now_dev();
	struct txp_dev_stats st;

	(void)state;
	assert_int_equal(txp_dev_open(dev), 0);
	assert_int_equal(txp_dev_queue_xmit(dev, NULL), -EINVAL);
	assert_int_equal(txp_dev_queue_xmit_on(dev, 0, NULL), -EINVAL);
	assert_int_equal(txp_dev_queue_xmit(NULL, counted_pkt()), -EINVAL);
	assert_int_equal(txp_dev_queue_xmit_on(NULL, 0, counted_pkt()), -EINVAL);
	assert_int_equal(destructed, 2);
	st = stats_of(dev);
	assert_int_equal(st.submitted, 0);
	/* The device still works. */
	assert_int_equal(txp_dev_queue_xmit(dev, counted_pkt()), TXP_XMIT_OK);
	assert_int_equal(stats_of(dev).transmitted, 1);
	txp_dev_destroy(dev);
}

/* Bursts: no array (n > 0) or no device, 0; the packets freed, but by
 * txp_xmit_burst_try(), whose refused packets stay the caller's. */
static void test_burst_null(void **state)
{
	struct txp_dev *dev = now_dev();
	struct txp_pkt *pkts[2];

	(void)state;
	assert_int_equal(txp_dev_open(dev), 0);
	assert_int_equal(txp_xmit_burst(dev, NULL, 3), 0);
	assert_int_equal(txp_xmit_burst_try(dev, NULL, 3), 0);
	assert_int_equal(txp_xmit_burst_on(dev, 0, NULL, 3), 0);
	assert_int_equal(txp_xmit_burst(dev, NULL, 0), 0);
	assert_int_equal(stats_of(dev).submitted, 0);

	pkts[0] = counted_pkt();
	pkts[1] = counted_pkt();
	assert_int_equal(txp_xmit_burst_try(NULL, pkts, 2), 0);
	assert_int_equal(destructed, 0);
	assert_int_equal(txp_xmit_burst(NULL, pkts, 2), 0);
	assert_int_equal(destructed, 2);
	pkts[0] = counted_pkt();
	pkts[1] = counted_pkt();
	assert_int_equal(txp_xmit_burst_on(NULL, 0, pkts, 2), 0);
	assert_int_equal(destructed, 4);
	txp_dev_destroy(dev);
}

/* A driver's completion or drop of no packet: nothing; a drop reason
 * that is none: counted as the driver's, in every build. */
static void test_driver_frees(void **state)
{
	struct txp_dev *dev = now_dev();

	(void)state;
	txp_pkt_complete(dev, NULL);
	txp_pkt_drop(dev, NULL, TXP_DROP_DRIVER);
	txp_pkt_free(NULL);
	assert_int_equal(stats_of(dev).transmitted, 0);
	txp_pkt_drop(dev, counted_pkt(), (enum txp_drop_reason)(TXP_DROP_NR + 5));
	assert_int_equal(stats_of(dev).dropped[TXP_DROP_DRIVER], 1);
	assert_int_equal(destructed, 1);
	txp_dev_destroy(dev);
}

/* -- pools ----------------------------------------------------------------------------- */

/* No pool, no array: nothing allocated. */
static void test_pool_null(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(4);
	struct txp_pkt *pkts[2];

	(void)state;
	assert_int_equal(txp_pkt_pool_alloc_bulk(NULL, pkts, 2), 0);
	assert_null(txp_pkt_pool_alloc(NULL));
	assert_int_equal(txp_pkt_pool_alloc_bulk(pool, NULL, 2), 0);
	assert_true(txp_pkt_pool_destroy(pool));
}

/* A packet that is not the pool's, freed into it (its pool field set to
 * it), the count of packets home being right: destroy says false and
 * frees nothing; once it is out again, destroy succeeds. */
static void test_pool_foreign_packet(void **state)
{
	struct txp_pkt_pool *pool = txp_pkt_pool_create(1);
	struct txp_pkt *own, *foreign, *got;

	(void)state;
	own = txp_pkt_pool_alloc(pool);
	assert_non_null(own);
	foreign = txp_pkt_alloc();
	assert_non_null(foreign);
	foreign->pool = pool;
	txp_pkt_free(foreign);
	assert_false(txp_pkt_pool_destroy(pool));
	/* Take it back out and home to the heap; the pool's own goes home. */
	got = txp_pkt_pool_alloc(pool);
	assert_ptr_equal(got, foreign);
	got->pool = NULL;
	txp_pkt_free(got);
	txp_pkt_free(own);
	assert_true(txp_pkt_pool_destroy(pool));
}

/* Kept reachable: the pools a double free spoiled cannot be freed. */
static struct txp_pkt_pool *spoiled[2];

/* Freed twice by a thread that does not own its pool. */
static void *free_twice(void *arg)
{
	txp_pkt_free(arg);
	txp_pkt_free(arg);
	return NULL;
}

/* The guard of a call that must return: a hang fails the case, named. */
static void hang_alarm(int sig)
{
	static const char msg[] = "test_misuse: txp_pkt_pool_destroy() hung (a walk of a cycle)\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* A packet freed twice makes the pool's list a cycle: destroy says false
 * at once, it does not walk the cycle for ever.  By the owner (its own
 * list), and by another thread (the return list the owner collects). */
static void test_pool_double_free(void **state)
{
	struct txp_pkt *pkt;
	pthread_t th;

	(void)state;
	spoiled[0] = txp_pkt_pool_create(2);
	pkt = txp_pkt_pool_alloc(spoiled[0]);
	assert_non_null(pkt);
	txp_pkt_free(pkt);
	txp_pkt_free(pkt);
	assert_false(txp_pkt_pool_destroy(spoiled[0]));

	spoiled[1] = txp_pkt_pool_create(2);
	pkt = txp_pkt_pool_alloc(spoiled[1]);
	assert_non_null(pkt);
	assert_int_equal(pthread_create(&th, NULL, free_twice, pkt), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	signal(SIGALRM, hang_alarm);
	alarm(10);
	assert_false(txp_pkt_pool_destroy(spoiled[1]));
	alarm(0);
}

/* -- frames ---------------------------------------------------------------------------- */

/* A frame of 16 bytes (or past the largest, or without a buffer or
 * addresses): -EINVAL and nothing written; the template writes nothing
 * either, nor does the stamp of its 0. */
static void test_frame_too_short(void **state)
{
	unsigned char buf[TXP_FRAME_MIN_LEN];
	struct txp_frame_addr a = { 0 };
	uint32_t flow;
	uint64_t seq;

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(txp_frame_build(buf, 16, &a, 1, 2), -EINVAL);
	assert_int_equal(txp_frame_build(buf, TXP_FRAME_MAX_LEN + 1, &a, 1, 2), -EINVAL);
	assert_int_equal(txp_frame_build(NULL, sizeof(buf), &a, 1, 2), -EINVAL);
	assert_int_equal(txp_frame_build(buf, sizeof(buf), NULL, 1, 2), -EINVAL);
	/* The template refused: 0, and stamping with it writes nothing. */
	txp_frame_stamp(buf, txp_frame_template(buf, 16, &a), 1, 2);
	assert_int_equal(txp_frame_template(buf, 16, &a), 0);
	for (unsigned i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xa5);
	assert_int_equal(txp_frame_build(buf, sizeof(buf), &a, 1, 2), 0);
	assert_true(txp_frame_parse(buf, sizeof(buf), &flow, &seq));
	assert_int_equal(flow, 1);
	assert_int_equal(seq, 2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_refuses),
		cmocka_unit_test(test_other_creates_refuse_null),
		cmocka_unit_test(test_enum_names),
		cmocka_unit_test(test_open_close_twice),
		cmocka_unit_test(test_xmit_after_close),
		cmocka_unit_test(test_xmit_null),
		cmocka_unit_test(test_burst_null),
		cmocka_unit_test(test_driver_frees),
		cmocka_unit_test(test_pool_null),
		cmocka_unit_test(test_pool_foreign_packet),
		cmocka_unit_test(test_pool_double_free),
		cmocka_unit_test(test_frame_too_short),
	};

	return txp_test_main(argc, argv, tests);
}
