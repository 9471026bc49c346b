/*
 * test_fairness.c - the explorer is fair: a context that could run is
 * not starved for good by others that keep waking each other (check
 * build).
 *
 * The scenario: three producers of one packet each on the LLTX driver,
 * whose start_xmit is wrapped: CPU 1 and CPU 2 pass a ball to and fro
 * (each waits for it with txp_relax, so each wakes the other) until CPU 3
 * says done.  On any real machine CPU 3 gets to run and all three finish.
 * The explorer's default, after the running context waits, is the lowest
 * context that can run: CPU 1 or CPU 2, never CPU 3, and the schedule
 * used to end at the step limit as a livelock (at bound 0: a false
 * livelock on the first schedule).  Without CPU 3's word the
 * ping-pong never ends: a true livelock, still found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "checkutil.h"
#include "check/explore.h"
#include "txpath/sync.h"

/* The ball (whose turn: 1 or 2) and CPU 3's word, afresh per schedule. */
static unsigned ball, done;
static bool cpu3_says_done;

static int pingpong_open(struct txp_dev *dev)
{
	ball = 1;
	done = 0;
	return txp_sim_ops.open(dev);
}

static enum txp_tx pingpong_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	unsigned me = pkt->flow + 1;

	if (me == 3 && cpu3_says_done) {
		TXP_STORE_RELEASE(done, 1);
	} else if (me < 3) {
		while (!TXP_LOAD_ACQUIRE(done)) {
			if (TXP_LOAD_ACQUIRE(ball) == me)
				TXP_STORE_RELEASE(ball, 3 - me);
			else
				txp_relax();
		}
	}
	return txp_sim_ops.start_xmit(pkt, txq);
}

static void pingpong_cfg(struct txp_explore_cfg *cfg, struct txp_driver_ops *ops, bool ends)
{
	*ops = txp_sim_ops;
	ops->open = pingpong_open;
	ops->start_xmit = pingpong_xmit;
	cpu3_says_done = ends;
	txp_explore_cfg_init(cfg);
	cfg->ops = ops;
	cfg->producers = 3;
	cfg->packets = 1;
	/* Each starving schedule runs to half the limit: keep it small. */
	cfg->max_steps = 20000;
}

/* The default schedule (each context goes on while it can, then the
 * lowest that can run): CPU 3 runs in the end, by a fair switch, and the
 * three finish.  (The search itself branches at every switch of the
 * ping-pong, which no bound limits: this is a schedule, not a search.) */
static void test_no_starvation(void **state)
{
	struct txp_explore_cfg cfg;
	struct txp_driver_ops ops;
	struct txp_explore_result res;
	char err[256] = "";
	bool fair = false;

	(void)state;
	pingpong_cfg(&cfg, &ops, true);
	cfg.replay = "-";
	assert_int_equal(txp_explore_run(&cfg, &res, err, sizeof(err)), 0);
	if (res.found)
		fail_msg("%s: %s", res.kind, res.detail);
	for (unsigned i = 0; i < res.nevents; i++)
		if (strstr(res.events[i].text, "fair switch"))
			fair |= !strcmp(res.columns[res.events[i].column], "CPU 3");
	assert_true(fair);
	txp_explore_result_free(&res);
}

/* Nobody ends it: a livelock, whoever runs. */
static void test_true_livelock_found(void **state)
{
	struct txp_explore_cfg cfg;
	struct txp_driver_ops ops;
	struct txp_explore_result res;
	char err[256] = "";

	(void)state;
	pingpong_cfg(&cfg, &ops, false);
	cfg.bound = 0;
	assert_int_equal(txp_explore_run(&cfg, &res, err, sizeof(err)), 0);
	assert_true(res.found);
	assert_string_equal(res.kind, "livelock");
	txp_explore_result_free(&res);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_starvation),
		cmocka_unit_test(test_true_livelock_found),
	};

	return txp_test_main(argc, argv, tests);
}
