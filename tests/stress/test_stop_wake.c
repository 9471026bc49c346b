/*
 * test_stop_wake.c - flow control from outside start_xmit, under load.
 *
 * netif_stop_queue() may be called from any context (a link watcher, a
 * congestion signal: src/drivers/common/ring.c does it from its
 * completion path), as long as stops do not race each other.  Here a
 * thread, the queue's only stopper, stops and wakes it as fast as it can
 * while two producers push through a driver that takes every packet; whatever the lock mode and runner, every packet must end
 * transmitted or dropped with a reason, and none as a dead loop.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "txpath/dev.h"
#include "txpath/driver.h"

#define PRODUCERS 2
#define PKTS_EACH (TXP_TEST_TSAN ? 20000u : 300000u)

static enum txp_tx take_all_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	txp_pkt_complete(txp_txq_dev(txq), pkt);
	return TXP_TX_OK;
}

static const struct txp_driver_ops take_all_ops = {
	.name = "takeall",
	.start_xmit = take_all_xmit,
};

struct hammer {
	struct txp_dev *dev;
	atomic_bool stop;
};

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;
	struct txp_txq *txq = txp_dev_txq(h->dev, 0);

	while (!atomic_load(&h->stop)) {
		txp_netif_stop_queue(txq);
		txp_netif_wake_queue(txq);
	}
	return NULL;
}

static void *producer_main(void *arg)
{
	struct hammer *h = arg;

	for (unsigned i = 0; i < PKTS_EACH; i++) {
		struct txp_pkt *pkt = txp_pkt_alloc();

		if (!pkt)
			abort();
		pkt->seq = i;
		txp_dev_queue_xmit(h->dev, pkt);
	}
	return NULL;
}

static void stop_wake_under_load(enum txp_lock_mode lock, enum txp_runner runner)
{
	struct txp_dev_cfg cfg = {
		.name = "hammer0", .lock = lock, .runner = runner, .ops = &take_all_ops,
		.txqueuelen = 1000,
	};
	struct hammer h = { 0 };
	pthread_t ht, pt[PRODUCERS];
	struct txp_dev_stats st;
	char err[128];

	h.dev = txp_dev_create(&cfg, err, sizeof(err));
	assert_non_null(h.dev);
	assert_int_equal(txp_dev_open(h.dev), 0);
	assert_int_equal(pthread_create(&ht, NULL, hammer_main, &h), 0);
	for (int i = 0; i < PRODUCERS; i++)
		assert_int_equal(pthread_create(&pt[i], NULL, producer_main, &h), 0);
	for (int i = 0; i < PRODUCERS; i++)
		assert_int_equal(pthread_join(pt[i], NULL), 0);
	atomic_store(&h.stop, true);
	assert_int_equal(pthread_join(ht, NULL), 0);

	/* Awake and run once more: the backlog drains, nothing is left. */
	txp_netif_wake_queue(txp_dev_txq(h.dev, 0));
	txp_net_tx_action(h.dev);
	assert_int_equal(txp_dev_backlog(h.dev), 0);
	txp_dev_get_stats(h.dev, &st);
	assert_int_equal(st.submitted, (uint64_t)PRODUCERS * PKTS_EACH);
	assert_int_equal(st.dropped[TXP_DROP_DEAD_LOOP], 0);
	assert_int_equal(st.dropped[TXP_DROP_DEV_DOWN], 0);
	assert_true(st.transmitted > 0);
	txp_test_assert_accounted(h.dev);
	txp_dev_close(h.dev);
	txp_test_assert_accounted(h.dev);
	txp_dev_destroy(h.dev);
}

static void test_core_concurrent(void **state)
{
	(void)state;
	stop_wake_under_load(TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT);
}

static void test_lltx_concurrent(void **state)
{
	(void)state;
	stop_wake_under_load(TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT);
}

/*
 * Known bug with the exclusive runner (src/core/xmit.h): a stop landing
 * between __txp_try_bypass() and __txp_qdisc_run()'s "running or
 * stopped" check makes the run return without the bypass batch: its
 * packets are lost, and in core mode the xmit lock __txp_try_bypass()
 * took is never released (every later packet of that context is a
 * "dead loop").
 * (Fixed: __txp_qdisc_run() now always sends a bypass batch it is given.)
 */
static void test_core_exclusive(void **state)
{
	(void)state;
	stop_wake_under_load(TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE);
}

static void test_lltx_exclusive(void **state)
{
	(void)state;
	stop_wake_under_load(TXP_LOCK_LLTX, TXP_RUNNER_EXCLUSIVE);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_concurrent),
		cmocka_unit_test(test_lltx_concurrent),
		cmocka_unit_test(test_core_exclusive),
		cmocka_unit_test(test_lltx_exclusive),
	};

	return txp_test_main(argc, argv, tests);
}
