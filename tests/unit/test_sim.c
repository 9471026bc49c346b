/*
 * test_sim.c - the simulated NIC and the run engine with one producer:
 * accounting, the knob checks (ring size, personality against lock mode,
 * fragment range, packets or seconds), qdisc-limit drops under a slow
 * line, a timed run, and the sim device driven directly.
 *
 * One producer keeps a run nearly deterministic; the completion thread
 * still runs beside it.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "testutil.h"
#include "txpath/ctx.h"
#include "txpath/driver.h"
#include "run/run.h"
#include "txpath/sim.h"

#define WAIT_SECONDS 10

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void cfg_one_thread(struct txp_run_cfg *cfg, uint64_t packets)
{
	txp_run_cfg_init(cfg);
	cfg->threads = 1;
	cfg->packets = packets;
	cfg->log = NULL;
}

static void run_ok(const struct txp_run_cfg *cfg, struct txp_run_result *res)
{
	char err[256] = "";

	assert_int_equal(txp_run(cfg, res, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	txp_test_assert_run_clean(res);
}

/* cfg is refused, by the check and by txp_run alike, with a message
 * containing `needle`. */
static void assert_refused(const struct txp_run_cfg *cfg, const char *needle)
{
	struct txp_run_result res;
	char err[256] = "";

	assert_false(txp_run_cfg_check(cfg, err, sizeof(err)));
	if (!strstr(err, needle))
		fail_msg("message \"%s\" lacks \"%s\"", err, needle);
	err[0] = '\0';
	assert_int_equal(txp_run(cfg, &res, err, sizeof(err)), -1);
	if (!strstr(err, needle))
		fail_msg("txp_run message \"%s\" lacks \"%s\"", err, needle);
	assert_int_equal(res.dev.submitted, 0);
}

static void assert_accepted_cfg(const struct txp_run_cfg *cfg)
{
	char err[256] = "";

	if (!txp_run_cfg_check(cfg, err, sizeof(err)))
		fail_msg("refused: %s", err);
}

/* -- the defaults and the presets ------------------------------------ */

static void test_defaults_are_valid(void **state)
{
	struct txp_run_cfg cfg;
	(void)state;

	txp_run_cfg_init(&cfg);
	assert_accepted_cfg(&cfg);
	assert_true(cfg.threads >= 1);
	assert_non_null(cfg.personality);
	assert_ptr_equal(cfg.personality, txp_sim_personality("tg3-2005"));
	assert_int_equal(cfg.lock, TXP_LOCK_LLTX);
	assert_int_equal(cfg.runner, TXP_RUNNER_CONCURRENT);
}

static void test_eras_and_personalities_lookup(void **state)
{
	static const char *const eras[] = {
		"2.6.8", "2.6.9", "silence", "2.6.11-rc2", "2.6.11", "2.6.18",
		"2.6.38", "3.3", "3.18", "5.1-nolock", "5.13-missed", "5.19-barrier", "6.x",
		"6.18-draining",
	};
	static const char *const drivers_2004[] = {
		"tg3-2004", "tg3-silent", "tg3-2005", "e1000-2004", "locked", "rc2",
	};
	struct txp_run_cfg cfg;
	unsigned n = 0;
	(void)state;

	for (const struct txp_era *e = txp_eras; e->name; e++, n++) {
		assert_string_equal(e->name, eras[n]);
		assert_ptr_equal(txp_era_lookup(e->name), e);
		assert_non_null(txp_sim_personality(e->personality));
		txp_run_cfg_init(&cfg);
		assert_true(txp_run_cfg_era(&cfg, e->name));
		assert_string_equal(cfg.era, e->name);
		assert_int_equal(cfg.lock, e->lock);
		assert_int_equal(cfg.runner, e->runner);
		assert_ptr_equal(cfg.personality, txp_sim_personality(e->personality));
		/* Its qdisc, a kind that exists; pfifo_fast if it names none. */
		assert_non_null(cfg.qdisc);
		assert_ptr_equal(cfg.qdisc, e->qdisc ? txp_qdisc_lookup(e->qdisc) : &txp_pfifo_fast_ops);
		/* Every preset fits the simulated NIC. */
		assert_accepted_cfg(&cfg);
	}
	assert_int_equal(n, sizeof(eras) / sizeof(eras[0]));
	assert_null(txp_era_lookup("2.6.10"));
	txp_run_cfg_init(&cfg);
	assert_false(txp_run_cfg_era(&cfg, "2.4"));

	for (int i = 0; txp_sim_personalities[i]; i++)
		assert_ptr_equal(txp_sim_personality(txp_sim_personalities[i]->name),
				 txp_sim_personalities[i]);
	for (unsigned i = 0; i < sizeof(drivers_2004) / sizeof(drivers_2004[0]); i++)
		assert_non_null(txp_sim_personality(drivers_2004[i]));
	assert_null(txp_sim_personality("tg3"));
	assert_false(txp_sim_personality("locked")->own_lock);
	assert_false(txp_sim_personality("rc2")->own_lock);
	assert_true(txp_sim_personality("tg3-2004")->own_lock);
}

/* -- runs -------------------------------------------------------------- */

/* One producer through the default (2.6.11) knobs: every packet on the
 * wire once, nothing dropped, no false BUG. */
static void test_run_accounting(void **state)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	(void)state;

	cfg_one_thread(&cfg, 20000);
	run_ok(&cfg, &res);
	assert_int_equal(res.dev.submitted, 20000);
	assert_int_equal(res.dev.transmitted, 20000);
	assert_int_equal(res.dropped, 0);
	assert_int_equal(res.dev.bug_logs, 0);
	assert_int_equal(res.drv.ring_full_awake, 0);
	assert_int_equal(res.drv.wire.duplicates, 0);
	assert_true(res.seconds > 0);
	assert_true(res.mpps > 0);
}

/* Each era with one producer: all accounted; where start_xmit is
 * serialised (core lock or exclusive runner) the race cannot happen. */
static void test_run_each_era_one_thread(void **state)
{
	(void)state;

	for (const struct txp_era *e = txp_eras; e->name; e++) {
		struct txp_run_cfg cfg;
		struct txp_run_result res;

		cfg_one_thread(&cfg, 5000);
		assert_true(txp_run_cfg_era(&cfg, e->name));
		cfg.ring = 32;
		cfg.frags_max = 3;
		run_ok(&cfg, &res);
		assert_int_equal(res.dev.submitted, 5000);
		assert_int_equal(res.dev.transmitted, 5000);
		if (e->lock == TXP_LOCK_CORE || e->runner == TXP_RUNNER_EXCLUSIVE) {
			assert_int_equal(res.dev.xmit_on_stopped, 0);
			assert_int_equal(res.dev.bug_logs, 0);
		}
	}
}

/* A ring of `ring` descriptors for packets of up to frags_max fragments
 * is refused with a message naming the minimum. */
static void assert_ring_refused(unsigned frags_max, unsigned ring, unsigned min)
{
	struct txp_run_cfg cfg;
	char needle[64];

	cfg_one_thread(&cfg, 1000);
	cfg.frags_max = frags_max;
	cfg.ring = ring;
	snprintf(needle, sizeof(needle), "need at least %u", min);
	assert_refused(&cfg, needle);
}

/* The ring must hold one maximal packet above the stop reserve; a
 * smaller one is refused with a message naming the minimum, and the
 * minimum itself runs. */
static void test_ring_too_small(void **state)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	(void)state;

	assert_int_equal(txp_sim_min_ring(0), 3);
	assert_int_equal(txp_sim_min_ring(3), 9);
	assert_int_equal(txp_sim_min_ring(TXP_MAX_FRAGS), 2 * (TXP_MAX_FRAGS + 1) + 1);
	assert_ring_refused(3, 8, 9);
	assert_ring_refused(3, 0, 9);
	assert_ring_refused(0, 2, 3);
	assert_ring_refused(TXP_MAX_FRAGS, txp_sim_min_ring(TXP_MAX_FRAGS) - 1,
			    txp_sim_min_ring(TXP_MAX_FRAGS));

	/* Exactly the minimum, maximal packets only: it runs and drains. */
	cfg_one_thread(&cfg, 2000);
	cfg.frags_min = 3;
	cfg.frags_max = 3;
	cfg.ring = 9;
	run_ok(&cfg, &res);
	assert_int_equal(res.dev.transmitted, 2000);
	assert_int_equal(res.dropped, 0);
}

/* A personality without a lock of its own cannot run LLTX. */
static void test_lltx_needs_own_lock(void **state)
{
	struct txp_run_cfg cfg;
	(void)state;

	cfg_one_thread(&cfg, 1000);
	cfg.lock = TXP_LOCK_LLTX;
	cfg.personality = txp_sim_personality("locked");
	assert_refused(&cfg, "'locked'");
	assert_refused(&cfg, "core");
	cfg.personality = txp_sim_personality("rc2");
	assert_refused(&cfg, "'rc2'");
	cfg.lock = TXP_LOCK_CORE;
	assert_accepted_cfg(&cfg);
	cfg.personality = NULL;
	assert_refused(&cfg, "personality");
}

/* --frags MIN-MAX: MIN <= MAX <= TXP_MAX_FRAGS; any such range runs with
 * no packet refused by the driver. */
static void test_frags_range(void **state)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	char needle[32];
	(void)state;

	snprintf(needle, sizeof(needle), "<= %d", TXP_MAX_FRAGS);
	cfg_one_thread(&cfg, 3000);
	cfg.frags_min = 4;
	cfg.frags_max = 2;
	assert_refused(&cfg, "fragments");
	cfg.frags_min = 0;
	cfg.frags_max = TXP_MAX_FRAGS + 1;
	cfg.ring = 4096;
	assert_refused(&cfg, needle);
	cfg.frags_max = TXP_MAX_FRAGS;
	assert_accepted_cfg(&cfg);

	/* A fixed count, and a range. */
	cfg.ring = 64;
	cfg.frags_min = 5;
	cfg.frags_max = 5;
	run_ok(&cfg, &res);
	assert_int_equal(res.dev.transmitted, 3000);
	assert_int_equal(res.dev.dropped[TXP_DROP_DRIVER], 0);
	cfg.frags_min = 1;
	cfg.frags_max = TXP_MAX_FRAGS;
	run_ok(&cfg, &res);
	assert_int_equal(res.dev.transmitted, 3000);
	assert_int_equal(res.dev.dropped[TXP_DROP_DRIVER], 0);
}

static void test_other_knobs_checked(void **state)
{
	struct txp_run_cfg cfg;
	(void)state;

	cfg_one_thread(&cfg, 0);
	assert_refused(&cfg, "packet count or a duration");
	cfg.packets = 10;
	cfg.threads = 0;
	assert_refused(&cfg, "threads");
	cfg.threads = TXP_MAX_CTX;
	assert_refused(&cfg, "threads");
	cfg.threads = 1;
	cfg.size = 59;
	assert_refused(&cfg, "size");
	cfg.size = 65536;
	assert_refused(&cfg, "size");
	cfg.size = 60;
	cfg.batch = 0;
	assert_refused(&cfg, "batch");
	cfg.batch = 1;
	cfg.txqueuelen = 0;
	assert_refused(&cfg, "txqueuelen");
	cfg.txqueuelen = 1;
	cfg.driver = NULL;
	assert_refused(&cfg, "driver");
	cfg.driver = txp_run_driver("sim");
	assert_non_null(cfg.driver);
	assert_accepted_cfg(&cfg);
	assert_null(txp_run_driver("nosuch"));
}

/* No send budget, a queue of 4 a band, a slow line: the producer outruns
 * the device and the qdisc drops, every drop counted as qdisc-limit. */
static void test_qdisc_limit_drops_accounted(void **state)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	(void)state;

	cfg_one_thread(&cfg, 5000);
	cfg.sndbuf = 0;
	cfg.txqueuelen = 4;
	cfg.line_rate = 20000;
	cfg.ring = 16;
	cfg.batch = 1;
	run_ok(&cfg, &res);
	assert_int_equal(res.dev.submitted, 5000);
	assert_true(res.dev.dropped[TXP_DROP_QDISC_LIMIT] > 0);
	assert_int_equal(res.dropped, res.dev.dropped[TXP_DROP_QDISC_LIMIT]);
	assert_true(res.dev.transmitted > 0);
	assert_int_equal(res.dev.transmitted + res.dropped, 5000);
}

struct progress_seen {
	unsigned calls;
	double last_elapsed;
	uint64_t target;
};

static void on_progress(const struct txp_run_progress *p, void *arg)
{
	struct progress_seen *s = arg;

	s->calls++;
	s->last_elapsed = p->elapsed;
	s->target = p->target;
	/* The run's own counters, never ahead of what was submitted. */
	if (p->transmitted + p->dropped > p->submitted)
		s->target = UINT64_MAX;
}

/* packets = 0, seconds > 0: the run ends on time and accounts. */
static void test_timed_run(void **state)
{
	struct progress_seen seen = { 0 };
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	(void)state;

	cfg_one_thread(&cfg, 0);
	cfg.seconds = 0.3;
	cfg.progress = on_progress;
	cfg.progress_arg = &seen;
	run_ok(&cfg, &res);
	assert_true(res.dev.submitted > 0);
	assert_true(res.seconds >= 0.29);
	assert_true(res.seconds < 5);
	/* Progress every 200 ms: at least once in 300. */
	assert_true(seen.calls >= 1);
	assert_int_equal(seen.target, 0);
	assert_true(seen.last_elapsed > 0.1);
}

/* Fewer packets than producers: a producer's share is then 0, which
 * must mean "nothing to send", not "send until the deadline" (there is
 * none).  (It once meant "until the deadline", and the run never ended;
 * should that come back, the stuck run is abandoned, not joined.) */
static void test_fewer_packets_than_threads(void **state)
{
	static struct txp_test_bg_run r;
	(void)state;

	cfg_one_thread(&r.cfg, 2);
	r.cfg.threads = 3;
	txp_test_run_bg(&r, WAIT_SECONDS, "txp_run with 2 packets on 3 threads");
	txp_test_assert_run_clean(&r.res);
	assert_int_equal(r.res.dev.submitted, 2);
}

/* -- the sim device without the run engine --------------------------------- */

static void wait_drained(struct txp_dev *dev)
{
	double t0 = now_s();
	struct txp_dev_stats st;

	for (;;) {
		txp_dev_get_stats(dev, &st);
		if (st.submitted == st.transmitted + txp_test_dropped(&st))
			return;
		if (now_s() - t0 > WAIT_SECONDS)
			fail_msg("device did not drain");
		sched_yield();
	}
}

static void test_sim_create_errors(void **state)
{
	struct txp_sim_cfg scfg = {
		.personality = txp_sim_personality("tg3-2005"),
		.ring = 8, .max_frags = 3, .batch = 1, .max_flows = 1,
	};
	char err[256] = "";
	(void)state;

	assert_null(txp_sim_create(&scfg, err, sizeof(err)));
	assert_non_null(strstr(err, "at least 9"));
	scfg.ring = 64;
	scfg.max_frags = TXP_MAX_FRAGS + 1;
	assert_null(txp_sim_create(&scfg, err, sizeof(err)));
	scfg.max_frags = 3;
	scfg.personality = NULL;
	assert_null(txp_sim_create(&scfg, err, sizeof(err)));
	assert_non_null(strstr(err, "personality"));
}

/* A packet with more fragments than the device takes is dropped by the
 * driver (reason: driver); the others reach the wire. */
static void test_sim_drops_overfragmented(void **state)
{
	struct txp_sim_cfg scfg = {
		.personality = txp_sim_personality("tg3-2005"),
		.ring = 64, .max_frags = 2, .batch = 4, .max_flows = 1,
	};
	struct txp_dev_cfg dcfg = { .name = "sim9", .lock = TXP_LOCK_LLTX, .ops = &txp_sim_ops };
	struct txp_sim_stats ss;
	struct txp_dev_stats st;
	struct txp_sim *sim;
	struct txp_dev *dev;
	char err[256];
	(void)state;

	sim = txp_sim_create(&scfg, err, sizeof(err));
	assert_non_null(sim);
	dcfg.priv = sim;
	dev = txp_dev_create(&dcfg, err, sizeof(err));
	assert_non_null(dev);
	assert_int_equal(txp_dev_open(dev), 0);
	for (uint64_t s = 0; s < 6; s++) {
		struct txp_pkt *pkt = txp_pkt_alloc();

		assert_non_null(pkt);
		pkt->seq = s;
		pkt->nr_frags = (uint16_t)s;	/* 0..2 fit, 3..5 do not */
		pkt->len = 64;
		txp_dev_queue_xmit(dev, pkt);
	}
	wait_drained(dev);
	txp_dev_close(dev);
	txp_dev_get_stats(dev, &st);
	txp_sim_get_stats(sim, &ss);
	assert_int_equal(st.submitted, 6);
	assert_int_equal(st.transmitted, 3);
	assert_int_equal(st.dropped[TXP_DROP_DRIVER], 3);
	assert_int_equal(txp_test_dropped(&st), 3);
	assert_int_equal(ss.wire.unique, 3);
	assert_int_equal(ss.wire.frames, 3);
	assert_int_equal(ss.in_flight, 0);
	assert_int_equal(ss.ring_errors, 0);
	txp_test_assert_accounted(dev);
	txp_dev_destroy(dev);
	txp_sim_destroy(sim);
}

/* The public wire: what it counts, flow by flow. */
static void test_wire_counts(void **state)
{
	struct txp_wire *w = txp_wire_create(2);
	struct txp_wire_stats ws;

	(void)state;
	assert_non_null(w);
	txp_wire_record(w, 0, 0);
	txp_wire_record(w, 0, 0);	/* again: a duplicate */
	txp_wire_record(w, 0, 1000);	/* far on: the bitmap grows */
	txp_wire_record(w, 1, 0);	/* the same seq on another flow */
	txp_wire_record(w, 2, 0);	/* a flow it does not track */
	txp_wire_get_stats(w, &ws);
	assert_int_equal(ws.frames, 5);
	assert_int_equal(ws.unique, 3);
	assert_int_equal(ws.duplicates, 1);
	assert_int_equal(ws.alien, 1);
	txp_wire_destroy(w);
	txp_wire_destroy(NULL);
}

/* Wires summed (txp_wire_stats_add(), what every driver's stats use):
 * each count added, reorders too, and the first reorder is that of the
 * first wire that has one, not of a later one. */
static void test_wire_stats_add(void **state)
{
	struct txp_wire *w[3] = { txp_wire_create(2), txp_wire_create(2), txp_wire_create(2) };
	struct txp_wire_stats sum = { 0 };

	(void)state;
	for (unsigned i = 0; i < 3; i++)
		assert_non_null(w[i]);
	txp_wire_record(w[0], 0, 0);		/* in order */
	txp_wire_record(w[0], 0, 0);		/* a duplicate */
	txp_wire_record(w[1], 1, 5);
	txp_wire_record(w[1], 1, 3);		/* behind 5: the first reorder */
	txp_wire_record(w[2], 0, 9);
	txp_wire_record(w[2], 0, 7);		/* behind 9: a later wire's */
	txp_wire_record(w[2], 0, 8);		/* ... and again */
	txp_wire_record(w[2], 4, 0);		/* alien */
	for (unsigned i = 0; i < 3; i++)
		txp_wire_stats_add(&sum, w[i]);
	assert_int_equal(sum.frames, 8);
	assert_int_equal(sum.unique, 6);
	assert_int_equal(sum.duplicates, 1);
	assert_int_equal(sum.alien, 1);
	assert_int_equal(sum.reordered, 3);
	assert_int_equal(sum.first_reorder.flow, 1);
	assert_int_equal(sum.first_reorder.ahead, 5);
	assert_int_equal(sum.first_reorder.behind, 3);
	for (unsigned i = 0; i < 3; i++)
		txp_wire_destroy(w[i]);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_valid),
		cmocka_unit_test(test_eras_and_personalities_lookup),
		cmocka_unit_test(test_run_accounting),
		cmocka_unit_test(test_run_each_era_one_thread),
		cmocka_unit_test(test_ring_too_small),
		cmocka_unit_test(test_lltx_needs_own_lock),
		cmocka_unit_test(test_frags_range),
		cmocka_unit_test(test_other_knobs_checked),
		cmocka_unit_test(test_qdisc_limit_drops_accounted),
		cmocka_unit_test(test_timed_run),
		cmocka_unit_test(test_sim_create_errors),
		cmocka_unit_test(test_sim_drops_overfragmented),
		cmocka_unit_test(test_fewer_packets_than_threads),
		cmocka_unit_test(test_wire_counts),
		cmocka_unit_test(test_wire_stats_add),
	};

	return txp_test_main(argc, argv, tests);
}
