/*
 * test_bql.c - byte queue limits under a line rate, with real threads:
 * without them the producers, faster than the line, keep the ring full;
 * with them the ring holds about what the line needs between two
 * completions, at the same rate, and nothing is lost either way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "run/run.h"

#define RING 256
#define LINE_RATE 20000	/* packets a second: far below what two producers make, even on a loaded machine */

static void bql_run(bool bql, unsigned queues, struct txp_run_result *res)
{
	struct txp_run_cfg cfg;
	char err[256];

	txp_run_cfg_init(&cfg);
	cfg.lock = TXP_LOCK_CORE;
	cfg.personality = txp_sim_personality("modern");
	cfg.threads = 2;
	cfg.queues = queues;
	cfg.bql = bql;
	cfg.ring = RING;
	cfg.line_rate = LINE_RATE;
	cfg.packets = 0;
	cfg.seconds = 0.3;
	if (txp_run(&cfg, res, err, sizeof(err)) != 0)
		fail_msg("txp_run: %s", err);
	assert_true(res->accounted);
	assert_int_equal(res->lost, 0);
	assert_int_equal(res->duplicated, 0);
	assert_int_equal(res->dropped, 0);
	assert_false(res->stalled);
}

/*
 * Without BQL the ring is the queue: it sits nearly full.  With BQL the
 * stack stops the queue at the limit, which settles near what the line
 * needs between two completions (two completion batches here): the ring
 * holds a fraction of that, at the same line rate.  The queue stops for
 * BQL, not for room.  The bytes in flight stay under the limit but for
 * one batch: a batch's packets all but the last are queued without the
 * stop test (xmit_more), and the limit only grows within a run shorter
 * than BQL's hold time, so the final limit is the largest it was.  (The
 * median, not the max: a sample is two reads, and a sampler preempted
 * between them may count a packet posted and retired meanwhile.)
 */
static void test_bql_keeps_the_ring_short(void **state)
{
	struct txp_run_result off, on;
	struct txp_run_cfg cfg;

	(void)state;
	txp_run_cfg_init(&cfg);
	bql_run(false, 1, &off);
	assert_true(off.ring_descs.median >= RING / 2);
	/* Frames of one descriptor: bytes are descriptors times the size,
	 * but for what moved between the sampler's two reads. */
	assert_true(off.ring_bytes.median * 2 >= off.ring_descs.median * cfg.size &&
		    off.ring_bytes.median <= off.ring_descs.median * cfg.size * 2);
	bql_run(true, 1, &on);
	assert_true(on.ring_bytes.median * 2 <= off.ring_bytes.median);
	assert_true(on.queue_bql[0].enabled);
	assert_true(on.queue_bql[0].limit > 0);
	assert_true(on.queue_bql[0].limit < RING * 64);
	assert_true(on.ring_bytes.median <= on.queue_bql[0].limit + cfg.bulk * cfg.size);
	assert_true(on.ring_wait_us * 2 <= off.ring_wait_us);
	assert_int_equal(on.dev.stops, on.dev.wakes);
}

/* Each queue keeps limits of its own, and both carry traffic. */
static void test_bql_per_queue(void **state)
{
	struct txp_run_result res;

	(void)state;
	bql_run(true, 2, &res);
	assert_int_equal(res.queues, 2);
	for (unsigned q = 0; q < 2; q++) {
		assert_true(res.queue_stats[q].transmitted > 0);
		assert_true(res.queue_bql[q].limit > 0);
	}
	assert_int_equal(res.queue_stats[0].transmitted + res.queue_stats[1].transmitted,
			 res.dev.transmitted);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bql_keeps_the_ring_short),
		cmocka_unit_test(test_bql_per_queue),
	};

	return txp_test_main(argc, argv, tests);
}
