/*
 * test_faults.c - every fault the simulated NIC (and the producers' pool)
 * can inject, under every era preset, with the accounting checked.
 *
 * Whatever goes wrong, nothing is lost or duplicated and every packet
 * handed to the device ends transmitted or dropped with the reason the
 * fault calls for (none, tx-error, dev-down).  A lost interrupt heals
 * while the ring still has work for the NIC; with every interrupt lost
 * the queue stays stopped with nothing else coming: the run reports a
 * stall naming the queue, and still accounts for every packet.  A hang
 * is the test's timeout.
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
#include "txpath/sim.h"

/* Sanitizers run several times slower: fewer packets, the same runs. */
#define RUN_PACKETS (TXP_TEST_TSAN ? 8000u : TXP_TEST_ASAN ? 20000u : 50000u)
#define RUN_THREADS 3
#define RUN_FRAGS_MAX 3
/* The NIC finishes at most RUN_BATCH packets a pass, far fewer than a
 * queue the full ring stopped holds: a lost interrupt leaves it work,
 * whose interrupt then retires what the lost one left.  Not so a queue
 * BQL stopped (3.3 on): its limit starts at zero, so early on it stops
 * with a packet or two in flight, and a lost interrupt for those leaves
 * nothing to raise another: the queue stays stopped, as on Linux, until
 * the TX watchdog resets it. */
#define RUN_RING 256
#define RUN_BATCH 8
#define FLAP_EVERY (RUN_PACKETS / 10)	/* packets the NIC sends between flaps */
#define FLAP_SECONDS 0.06	/* the timed link-flap's run */
#define STALL_SECONDS 0.2	/* for the run that must stall; the others keep the
				 * default, so a loaded machine is never taken for one */

static void fault_cfg(struct txp_run_cfg *cfg, const char *era, const char *spec)
{
	char err[160] = "";

	txp_run_cfg_init(cfg);
	assert_true(txp_run_cfg_era(cfg, era));
	cfg->threads = RUN_THREADS;
	cfg->packets = RUN_PACKETS;
	cfg->ring = RUN_RING;
	cfg->batch = RUN_BATCH;
	cfg->frags_max = RUN_FRAGS_MAX;
	/* The counts asserted below are of one queue's streams, and a stall
	 * is named on queue 0: the modern eras run here on one queue (their
	 * personality, BQL and bulk as they are). */
	cfg->queues = 1;
	cfg->log = NULL;
	cfg->faults.seed = 42;
	if (!txp_fault_parse(&cfg->faults, spec, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
}

/* What holds under any fault: every packet accounted, the wire saw each
 * transmitted one once, nothing lost, nothing duplicated. */
static void assert_accounted(const struct txp_run_cfg *cfg, const struct txp_run_result *res)
{
	assert_true(res->accounted);
	assert_int_equal(res->dev.submitted, res->dev.transmitted + res->dropped);
	assert_int_equal(res->lost, 0);
	assert_int_equal(res->duplicated, 0);
	assert_int_equal(res->drv.ring_errors, 0);
	assert_int_equal(res->drv.wire.alien, 0);
	assert_int_equal(res->drv.wire.unique, res->dev.transmitted);
	assert_int_equal(res->drv.wire.frames, res->dev.transmitted);
	if (cfg->packets && !res->stalled)
		assert_int_equal(res->dev.submitted, cfg->packets);
}

/* Run and check; the caller asserts what its fault must have done. */
static void run_fault(const struct txp_run_cfg *cfg, struct txp_run_result *res)
{
	char err[256] = "";

	if (txp_run(cfg, res, err, sizeof(err)) != 0)
		fail_msg("%s: %s", cfg->era, err);
	assert_accounted(cfg, res);
	print_message("%-10s submitted %llu transmitted %llu dropped %llu; injected %llu %llu %llu %llu %llu%s\n",
		      cfg->era, (unsigned long long)res->dev.submitted,
		      (unsigned long long)res->dev.transmitted, (unsigned long long)res->dropped,
		      (unsigned long long)res->faults[0], (unsigned long long)res->faults[1],
		      (unsigned long long)res->faults[2], (unsigned long long)res->faults[3],
		      (unsigned long long)res->faults[4], res->stalled ? " STALLED" : "");
}

/* Only kind k was injected. */
static void assert_only(const struct txp_run_result *res, enum txp_fault_kind k)
{
	for (int i = 0; i < TXP_FAULT_NR; i++)
		if (i != (int)k)
			assert_int_equal(res->faults[i], 0);
	assert_true(res->faults[k] > 0);
}

/* The engine itself: every=N fires on the Nth event, max=N caps it, a
 * rate fires at about that rate, and the decisions are a function of the
 * seed, the kind, the stream and the event, nothing else. */
static void test_fault_streams(void **state)
{
	struct txp_fault_cfg c = { .seed = 1 };
	struct txp_fault_stream a, b, other;
	_Atomic uint64_t na = 0, nb = 0, no = 0;
	char err[160];
	unsigned fired = 0, same = 0;
	(void)state;

	assert_true(txp_fault_parse(&c, "desc-error:every=3,max=2,lost-irq:25%", err, sizeof(err)));
	txp_fault_stream_init(&a, &c, TXP_FAULT_DESC_ERROR, 0, &na);
	for (int n = 1; n <= 12; n++)
		assert_int_equal(txp_fault_next(&a), n == 3 || n == 6);
	assert_int_equal(na, 2);

	txp_fault_stream_init(&a, &c, TXP_FAULT_LOST_IRQ, 0, &na);
	txp_fault_stream_init(&b, &c, TXP_FAULT_LOST_IRQ, 0, &nb);
	txp_fault_stream_init(&other, &c, TXP_FAULT_LOST_IRQ, 1, &no);
	for (int n = 0; n < 40000; n++) {
		bool x = txp_fault_next(&a);

		assert_int_equal(x, txp_fault_next(&b));
		fired += x;
		same += x == txp_fault_next(&other);
	}
	assert_in_range(fired, 9000, 11000);	/* 25% of 40000 */
	assert_in_range(same, 22000, 28000);	/* independent streams: 62.5% agree */

	/* Off: never fires, counts nothing. */
	txp_fault_stream_init(&a, &c, TXP_FAULT_ALLOC_FAIL, 0, &na);
	assert_false(txp_fault_next(&a));

	/* Defaults: 1% for a bare kind; link-flap every 50 ms, down 5 ms. */
	c = (struct txp_fault_cfg){ 0 };
	assert_true(txp_fault_parse(&c, "alloc-fail,link-flap", err, sizeof(err)));
	assert_int_equal(c.kind[TXP_FAULT_ALLOC_FAIL].chance, (uint64_t)(0.01 * 4294967296.0 + 0.5));
	assert_int_equal(c.kind[TXP_FAULT_LINK_FLAP].period_ns, 50000000);
	assert_int_equal(c.kind[TXP_FAULT_LINK_FLAP].delay_ns, 5000000);
	assert_false(txp_fault_parse(&c, "alloc-fail", err, sizeof(err)));
	assert_non_null(strstr(err, "given twice"));
	/* link-flap by packets and passes, or by time. */
	c = (struct txp_fault_cfg){ 0 };
	assert_true(txp_fault_parse(&c, "link-flap:every=300,down=7", err, sizeof(err)));
	assert_int_equal(c.kind[TXP_FAULT_LINK_FLAP].every, 300);
	assert_int_equal(c.kind[TXP_FAULT_LINK_FLAP].period_ns, 0);
	assert_int_equal(c.kind[TXP_FAULT_LINK_FLAP].delay_passes, 7);
	assert_int_equal(c.kind[TXP_FAULT_LINK_FLAP].delay_ns, 0);
	c = (struct txp_fault_cfg){ 0 };
	assert_true(txp_fault_parse(&c, "link-flap:every=2ms,down=100us", err, sizeof(err)));
	assert_int_equal(c.kind[TXP_FAULT_LINK_FLAP].period_ns, 2000000);
	assert_int_equal(c.kind[TXP_FAULT_LINK_FLAP].delay_ns, 100000);
}

/* One case: a fault spec, how its runs differ from the defaults, and
 * what the fault must have done in each. */
struct fault_case {
	const char *spec;
	double seconds;		/* > 0: run for this long instead of RUN_PACKETS */
	double stall_seconds;	/* > 0: the run must stall, given up this soon */
	unsigned ring, batch;	/* 0: RUN_RING, RUN_BATCH */
	unsigned watchdog_ms;	/* the TX watchdog; 0: off */
	bool may_stall;		/* a stall is allowed, not required */
	bool validate;
	void (*check)(const struct txp_run_result *res);
};

/* The case under every era preset. */
static void run_every_era(const struct fault_case *c)
{
	for (const struct txp_era *e = txp_eras; e->name; e++) {
		struct txp_run_cfg cfg;
		struct txp_run_result res;

		fault_cfg(&cfg, e->name, c->spec);
		if (c->seconds > 0) {
			cfg.packets = 0;
			cfg.seconds = c->seconds;
		}
		if (c->stall_seconds > 0)
			cfg.stall_seconds = c->stall_seconds;
		cfg.ring = c->ring ? c->ring : cfg.ring;
		cfg.batch = c->batch ? c->batch : cfg.batch;
		cfg.validate = c->validate;
		cfg.watchdog_ms = c->watchdog_ms;
		/* A stall before anything was submitted says nothing of the
		 * queue: the producers did not get a CPU in time (a loaded
		 * machine).  Run again, a few times at most. */
		for (int tries = 0; tries < 3; tries++) {
			run_fault(&cfg, &res);
			if (!res.stalled || res.dev.submitted > 0)
				break;
		}
		if (!c->may_stall)
			assert_int_equal(res.stalled, c->stall_seconds > 0);
		c->check(&res);
	}
}

/* A lost interrupt, with traffic flowing, heals: the next interrupt
 * retires what the lost one left.  Nothing dropped, no stall.  A queue BQL
 * stopped with all it holds finished (see RUN_RING) is healed by the
 * watchdog, slow enough to fire for nothing else: its reset reclaims the
 * finished packets as sent, so nothing is dropped either way. */
static void check_lost_irq_heals(const struct txp_run_result *res)
{
	assert_int_equal(res->dropped, 0);
	assert_only(res, TXP_FAULT_LOST_IRQ);
	assert_int_equal(res->faults[TXP_FAULT_LOST_IRQ], 20);
	assert_int_equal(res->dev.stops, res->dev.wakes);
}

static void test_lost_irq_heals(void **state)
{
	(void)state;
	run_every_era(&(struct fault_case){ .spec = "lost-irq:every=7,max=20",
					    .watchdog_ms = 1000,
					    .check = check_lost_irq_heals });
}

/* Every interrupt lost: the ring fills, the queue stops, the qdisc holds
 * the rest and nothing else comes.  The run gives up after the stall
 * time, names the stuck queue, and drops the rest as dev-down. */
static void check_lost_irq_stall(const struct txp_run_result *res)
{
	assert_string_equal(res->stall.dev, "sim");
	assert_int_equal(res->stall.queue, 0);
	assert_true(res->stall.stopped);
	assert_true(res->stall.in_ring > 0);
	assert_true(res->stall.in_qdisc > 0);
	assert_int_equal(res->stall.in_ring + res->stall.in_qdisc, res->dev.submitted);
	assert_int_equal(res->dev.transmitted, 0);
	assert_int_equal(res->dev.dropped[TXP_DROP_DEV_DOWN], res->dev.submitted);
	assert_only(res, TXP_FAULT_LOST_IRQ);
}

static void test_lost_irq_stalls_naming_the_queue(void **state)
{
	(void)state;
	run_every_era(&(struct fault_case){ .spec = "lost-irq:100%",
					    .stall_seconds = STALL_SECONDS,
					    .check = check_lost_irq_stall });
}

/* The smallest ring and a NIC that finishes all of it in one pass: an
 * interrupt lost while the queue is stopped leaves nothing for another
 * one, so a single loss is enough.  (Every third interrupt is lost, and
 * with three producers on a ring of two packets the queue is stopped at
 * almost every one.) */
static void check_lost_irq_stopped_stall(const struct txp_run_result *res)
{
	assert_true(res->stall.stopped);
	assert_true(res->stall.in_ring > 0);
	assert_true(res->stall.in_qdisc > 0);
	assert_true(res->faults[TXP_FAULT_LOST_IRQ] > 0);
	assert_int_equal(res->dev.dropped[TXP_DROP_DEV_DOWN], res->dropped);
	assert_int_equal(res->dropped, res->stall.in_ring + res->stall.in_qdisc);
}

static void test_lost_irq_on_a_stopped_queue_stalls(void **state)
{
	(void)state;
	run_every_era(&(struct fault_case){ .spec = "lost-irq:every=3",
					    .ring = txp_sim_min_ring(RUN_FRAGS_MAX),
					    .batch = RUN_FRAGS_MAX + 1,
					    .stall_seconds = STALL_SECONDS,
					    .check = check_lost_irq_stopped_stall });
}

/*
 * The same with the TX watchdog on: a queue stopped with its interrupt
 * lost is found timed out and its ring reset (what the NIC finished is
 * reclaimed, what it never sent dropped as tx-timeout), so it never stays
 * stopped.  The first ten interrupts are all lost: the smallest ring
 * holds fewer than ten packets, so the queue stops (ring full, or BQL's
 * limit) before the losses run out, on any machine (every third lost, a
 * slow producer under ASan let the losses fall on an awake queue, which
 * heals without a timeout).  What the watchdog cannot see is a queue
 * left awake with its last interrupt lost, once the producers are done:
 * that may still stall at the very end, as it would on Linux.
 */
static void check_watchdog_recovers(const struct txp_run_result *res)
{
	assert_int_equal(res->hazards, 0);
	assert_true(res->dev.tx_timeouts > 0);
	assert_true(res->accounted);
	if (res->stalled)
		assert_false(res->stall.stopped);
	assert_int_equal(res->dev.dropped[TXP_DROP_TX_TIMEOUT] + res->dev.dropped[TXP_DROP_DEV_DOWN],
			 res->dropped);
	assert_true(res->dev.transmitted > 0);
}

static void test_watchdog_recovers_a_stopped_queue(void **state)
{
	(void)state;
	run_every_era(&(struct fault_case){ .spec = "lost-irq:100%,max=10",
					    .seconds = 0.2,
					    .ring = txp_sim_min_ring(RUN_FRAGS_MAX),
					    .batch = RUN_FRAGS_MAX + 1,
					    .watchdog_ms = 20,
					    /* Long enough that a loaded machine's
					     * starved threads are not taken for the
					     * awake queue's stall at the end. */
					    .stall_seconds = 2,
					    .may_stall = true,
					    .validate = true,
					    .check = check_watchdog_recovers });
}

/* Late interrupts, by time and by passes: slower, nothing else. */
static void check_slow_irq(const struct txp_run_result *res)
{
	assert_int_equal(res->dropped, 0);
	assert_only(res, TXP_FAULT_SLOW_IRQ);
	assert_int_equal(res->dev.stops, res->dev.wakes);
}

static void test_slow_irq(void **state)
{
	(void)state;
	run_every_era(&(struct fault_case){ .spec = "slow-irq:every=5,delay=100us",
					    .check = check_slow_irq });
	run_every_era(&(struct fault_case){ .spec = "slow-irq:10%,passes=3",
					    .check = check_slow_irq });
}

/* A failed descriptor: the driver drops exactly that packet as tx-error.
 * Every 50th packet the NIC works on fails, whatever the timing. */
static void check_desc_error(const struct txp_run_result *res)
{
	assert_only(res, TXP_FAULT_DESC_ERROR);
	assert_int_equal(res->faults[TXP_FAULT_DESC_ERROR], RUN_PACKETS / 50);
	assert_int_equal(res->dev.dropped[TXP_DROP_TX_ERROR], RUN_PACKETS / 50);
	assert_int_equal(res->dropped, res->dev.dropped[TXP_DROP_TX_ERROR]);
}

static void test_desc_error(void **state)
{
	(void)state;
	run_every_era(&(struct fault_case){ .spec = "desc-error:every=50",
					    .check = check_desc_error });
}

/* The same seed fails the same packets: the count over a run depends on
 * the packets only, not on how the threads ran; another seed differs. */
static void test_desc_error_seeded(void **state)
{
	uint64_t count[3];
	(void)state;

	for (int i = 0; i < 3; i++) {
		struct txp_run_cfg cfg;
		struct txp_run_result res;

		fault_cfg(&cfg, "2.6.11", "desc-error:2%");
		cfg.faults.seed = i < 2 ? 7 : 8;
		run_fault(&cfg, &res);
		assert_int_equal(res.dev.dropped[TXP_DROP_TX_ERROR], res.faults[TXP_FAULT_DESC_ERROR]);
		count[i] = res.faults[TXP_FAULT_DESC_ERROR];
		assert_true(count[i] > 0);
	}
	assert_int_equal(count[0], count[1]);
	assert_int_not_equal(count[0], count[2]);
}

/* The link goes down and comes back: the driver stops the queue, what
 * the ring held (and any packet that raced in) is dropped as dev-down;
 * once up, the driver wakes the queue.  Nothing else would (the ring is
 * empty): without that wake the run stalls.  The queue ends awake, or
 * stopped once if the run ended with the link down. */
static void check_link_flap(const struct txp_run_result *res)
{
	assert_only(res, TXP_FAULT_LINK_FLAP);
	assert_true(res->dev.dropped[TXP_DROP_DEV_DOWN] > 0);
	assert_int_equal(res->dropped, res->dev.dropped[TXP_DROP_DEV_DOWN]);
	assert_true(res->dev.transmitted > 0);
	assert_in_range(res->dev.stops - res->dev.wakes, 0, 1);
}

static void test_link_flap(void **state)
{
	char spec[64];
	(void)state;

	snprintf(spec, sizeof(spec), "link-flap:every=%u,down=20", FLAP_EVERY);
	run_every_era(&(struct fault_case){ .spec = spec, .check = check_link_flap });
}

/* The same by time: flaps come at 5 ms intervals of the completion
 * context's clock, so how many a run sees depends on how it was
 * scheduled; each one is accounted for as above. */
static void check_timed_link_flap(const struct txp_run_result *res)
{
	assert_int_equal(res->dropped, res->dev.dropped[TXP_DROP_DEV_DOWN]);
	assert_true(res->faults[TXP_FAULT_LINK_FLAP] <= 3);
	assert_in_range(res->dev.stops - res->dev.wakes, 0, 1);
}

static void test_timed_link_flap(void **state)
{
	(void)state;
	run_every_era(&(struct fault_case){ .spec = "link-flap:every=5ms,down=1ms,max=3",
					    .seconds = FLAP_SECONDS,
					    .check = check_timed_link_flap });
}

/* Failed allocations: the producers back off and retry; every packet of
 * their quota still goes, once (the wire would see a gap or a repeat). */
static void check_alloc_fail(const struct txp_run_result *res)
{
	assert_int_equal(res->dropped, 0);
	assert_only(res, TXP_FAULT_ALLOC_FAIL);
	assert_int_equal(res->drv.wire.unique, RUN_PACKETS);
}

static void test_alloc_fail(void **state)
{
	(void)state;
	run_every_era(&(struct fault_case){ .spec = "alloc-fail:20%",
					    .check = check_alloc_fail });
}

/* All of them at once, with the TX watchdog, under the lock validator:
 * the driver drops what the faults spoil from its completion path or
 * its reset, never with interrupts off under a lock (the 2.6.11-rc2
 * era's hazard).  The watchdog is what recovers a queue stopped with its
 * interrupt lost (BQL's early stops; see RUN_RING). */
static void check_every_fault(const struct txp_run_result *res)
{
	assert_true(res->validated);
	assert_int_equal(res->hazards, 0);
	for (int k = 0; k < TXP_FAULT_NR; k++)
		assert_true(res->faults[k] > 0);
	assert_int_equal(res->dev.dropped[TXP_DROP_TX_ERROR], res->faults[TXP_FAULT_DESC_ERROR]);
	assert_int_equal(res->dropped, res->dev.dropped[TXP_DROP_TX_ERROR] +
					res->dev.dropped[TXP_DROP_DEV_DOWN] +
					res->dev.dropped[TXP_DROP_TX_TIMEOUT]);
}

static void test_every_fault_together(void **state)
{
	char spec[160];
	(void)state;

	snprintf(spec, sizeof(spec),
		 "lost-irq:every=11,max=10,slow-irq:3%%,passes=2,desc-error:1%%,"
		 "link-flap:every=%u,down=20,alloc-fail:5%%", FLAP_EVERY);
	run_every_era(&(struct fault_case){ .spec = spec, .validate = true,
					    .watchdog_ms = 50,
					    .check = check_every_fault });
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_streams),
		cmocka_unit_test(test_lost_irq_heals),
		cmocka_unit_test(test_lost_irq_stalls_naming_the_queue),
		cmocka_unit_test(test_lost_irq_on_a_stopped_queue_stalls),
		cmocka_unit_test(test_watchdog_recovers_a_stopped_queue),
		cmocka_unit_test(test_slow_irq),
		cmocka_unit_test(test_desc_error),
		cmocka_unit_test(test_desc_error_seeded),
		cmocka_unit_test(test_link_flap),
		cmocka_unit_test(test_timed_link_flap),
		cmocka_unit_test(test_alloc_fail),
		cmocka_unit_test(test_every_fault_together),
	};

	return txp_test_main(argc, argv, tests);
}
