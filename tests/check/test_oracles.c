/*
 * test_oracles.c - the explorer's own ground truth, each oracle against
 * a bug planted where it belongs: a driver (a wrapper around the
 * simulated NIC's ops, cfg.ops) that frees a packet it cannot take, that
 * completes a packet its ring still holds, that takes a packet and says
 * busy (so the core sends it again); and an era's claim against a
 * scenario that breaks it; a driver that reorders a flow, drops a packet
 * for a reason that does not hold, or leaves a packet unannounced to its
 * NIC.  Each is named as what it is, with its schedule, where before it
 * was a stall, a crash, or nothing.  (The core
 * counting start_xmit on a stopped queue wrongly is a mutant of the core:
 * tests/mutants/core-stop-gen-first.mut.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "checkutil.h"
#include "check/explore.h"
#include "run/run.h"

/* Explore cfg with the driver ops; expect a violation of kind naming
 * each of words, with a schedule that replays to it. */
static void expect_named(struct txp_explore_cfg *cfg, const struct txp_driver_ops *ops,
			 const char *kind, const char *const *words)
{
	struct txp_explore_result res, rep;
	char err[256] = "";

	cfg->ops = ops;
	assert_int_equal(txp_explore_run(cfg, &res, err, sizeof(err)), 0);
	if (!res.found)
		fail_msg("want %s, no violation in %llu schedules", kind, (unsigned long long)res.schedules);
	if (strcmp(res.kind, kind))
		fail_msg("want %s, got %s: %s", kind, res.kind, res.detail);
	for (; *words; words++)
		if (!strstr(res.detail, *words))
			fail_msg("%s lacks '%s': %s", kind, *words, res.detail);
	assert_non_null(res.schedule);
	assert_true(res.nevents > 0);
	cfg->replay = res.schedule;
	assert_int_equal(txp_explore_run(cfg, &rep, err, sizeof(err)), 0);
	assert_true(rep.found);
	assert_string_equal(rep.kind, kind);
	assert_string_equal(rep.detail, res.detail);
	cfg->replay = NULL;
	txp_explore_result_free(&rep);
	txp_explore_result_free(&res);
}

/* The era's scenario at bound (0: the default) with the driver's
 * start_xmit replaced by xmit: a violation of kind naming words. */
static void expect_planted(enum txp_tx (*xmit)(struct txp_pkt *, struct txp_txq *), const char *era,
			   unsigned bound, const char *kind, const char *const *words)
{
	struct txp_explore_cfg cfg;

	txp_test_era_cfg(&cfg, era);
	if (bound)
		cfg.bound = bound;
	expect_named(&cfg, txp_test_sim_ops_with(xmit), kind, words);
}

/* A driver that frees what it cannot take and says it took it: before,
 * "a stall, 0 packets queued, queue awake". */
static enum txp_tx frees_when_busy(struct txp_pkt *pkt, struct txp_txq *txq)
{
	enum txp_tx rc = txp_sim_ops.start_xmit(pkt, txq);

	if (rc != TXP_TX_BUSY)
		return rc;
	txp_pkt_free(pkt);
	return TXP_TX_OK;
}

static void test_freed_not_requeued_is_lost(void **state)
{
	static const char *const words[] = { "freed by CPU", "without being transmitted or dropped", NULL };

	(void)state;
	/* 2.6.11: busy when the race is lost. */
	expect_planted(frees_when_busy, "2.6.11", 0, "lost", words);
}

/* A driver that logs a BUG line of its own on its first packet: the
 * verdict quotes that line, not the 2004 one (before, every bug-log read
 * "BUG! Tx Ring full when queue awake!"). */
static enum txp_tx logs_its_own_bug(struct txp_pkt *pkt, struct txp_txq *txq)
{
	if (pkt->flow == 0 && pkt->seq == 0)
		txp_dev_log_bug(txp_txq_dev(txq), "descriptor 7 owned by the NIC twice");
	return txp_sim_ops.start_xmit(pkt, txq);
}

static void test_bug_log_quotes_the_line(void **state)
{
	static const char *const words[] = { "BUG! descriptor 7 owned by the NIC twice (1 times)", NULL };

	(void)state;
	expect_planted(logs_its_own_bug, "2.6.18", 0, "bug-log", words);
}

/* A driver that completes its first packet at once, though its ring
 * still holds it (the completion frees it again): before, a double free
 * that killed the explorer. */
static enum txp_tx completes_early(struct txp_pkt *pkt, struct txp_txq *txq)
{
	uint32_t flow = pkt->flow;
	uint64_t seq = pkt->seq;
	enum txp_tx rc = txp_sim_ops.start_xmit(pkt, txq);

	if (rc == TXP_TX_OK && flow == 0 && seq == 0)
		txp_pkt_complete(txp_txq_dev(txq), pkt);
	return rc;
}

static void test_double_completion(void **state)
{
	static const char *const words[] = { "packet 1 of CPU 1 (flow 0, seq 0) completed twice",
					     "CPU 1", "IRQ", NULL };

	(void)state;
	expect_planted(completes_early, "2.6.8", 1, "double-completion", words);
}

/* A driver that posts its first packet and says busy: the core requeues
 * what the ring holds, and sends it again. */
static enum txp_tx posts_and_says_busy(struct txp_pkt *pkt, struct txp_txq *txq)
{
	bool first = pkt->flow == 0 && pkt->seq == 0 && pkt->len == 64;
	enum txp_tx rc;

	if (first)
		pkt->len = 65;	/* once */
	rc = txp_sim_ops.start_xmit(pkt, txq);
	return first && rc == TXP_TX_OK ? TXP_TX_BUSY : rc;
}

static void test_held_twice_is_duplicated(void **state)
{
	static const char *const words[] = { "packet 1 of CPU 1 (flow 0, seq 0) held twice",
					     "1 packets sent twice", NULL };

	(void)state;
	expect_planted(posts_and_says_busy, "2.6.8", 1, "duplicated", words);
}

/* A driver that swaps the sequence numbers of a flow's first two packets:
 * the wire sees seq 1 first.  Where the device promises each flow's order
 * (one runner per queue, 2.6.18) that is reordered; where it does not
 * (any number of runners: LLTX, 2.6.11; the core's xmit lock, 2.6.8,
 * whose requeue lets a later packet by) it is no violation. */
static enum txp_tx swaps_first_two(struct txp_pkt *pkt, struct txp_txq *txq)
{
	bool swap = pkt->flow == 0 && pkt->seq < 2;
	enum txp_tx rc;

	if (swap)
		pkt->seq ^= 1;
	rc = txp_sim_ops.start_xmit(pkt, txq);
	if (swap && rc != TXP_TX_OK)
		pkt->seq ^= 1;	/* still the core's, to be sent again */
	return rc;
}

static void test_reordered(void **state)
{
	static const char *const words[] = { "flow 0: seq 1 reached the wire before seq 0",
					     "which CPU 1 sent first", NULL };
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	char err[256] = "";

	(void)state;
	expect_planted(swaps_first_two, "2.6.18", 1, "reordered", words);
	for (int i = 0; i < 2; i++) {
		const char *era = i ? "2.6.8" : "2.6.11";

		txp_test_era_cfg(&cfg, era);
		cfg.bound = 1;
		cfg.ops = txp_test_sim_ops_with(swaps_first_two);
		assert_int_equal(txp_explore_run(&cfg, &res, err, sizeof(err)), 0);
		if (res.found)
			fail_msg("%s promises no order, got %s: %s", era, res.kind, res.detail);
		txp_explore_result_free(&res);
	}
}

/* A driver that drops its first packet as if the qdisc were full, with one
 * packet queued at most: the reason's precondition fails. */
static enum txp_tx drops_as_qdisc_limit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	if (pkt->flow == 0 && pkt->seq == 0) {
		txp_pkt_drop(txp_txq_dev(txq), pkt, TXP_DROP_QDISC_LIMIT);
		return TXP_TX_OK;
	}
	return txp_sim_ops.start_xmit(pkt, txq);
}

/* ... and one that drops it as a dead loop, under LLTX, where the core
 * takes no xmit lock for it to hold. */
static enum txp_tx drops_as_dead_loop(struct txp_pkt *pkt, struct txp_txq *txq)
{
	if (pkt->flow == 0 && pkt->seq == 0) {
		txp_pkt_drop(txp_txq_dev(txq), pkt, TXP_DROP_DEAD_LOOP);
		return TXP_TX_OK;
	}
	return txp_sim_ops.start_xmit(pkt, txq);
}

static void test_unjustified_drop(void **state)
{
	static const char *const limit[] = {
		"packet 1 of CPU 1 (flow 0, seq 0) dropped as qdisc-limit on queue 0 by CPU 1",
		"below its limit of 1000", NULL };
	static const char *const loop[] = {
		"dropped as dead-loop", "does not hold the queue's xmit lock", NULL };

	(void)state;
	expect_planted(drops_as_qdisc_limit, "2.6.18", 1, "unjustified-drop", limit);
	expect_planted(drops_as_dead_loop, "2.6.11", 1, "unjustified-drop", loop);
}

/* A driver that treats a packet given without xmit_more as if more would
 * follow: the simulated NIC defers its doorbell, and it is never rung. */
static enum txp_tx ignores_last(struct txp_pkt *pkt, struct txp_txq *txq)
{
	if (pkt->flow == 0 && pkt->seq == 0)
		pkt->xmit_more = 1;
	return txp_sim_ops.start_xmit(pkt, txq);
}

static void test_no_doorbell(void **state)
{
	static const char *const words[] = {
		"start_xmit took packet 1 of CPU 1 (flow 0, seq 0) on queue 0 without xmit_more",
		"1 descriptors unannounced", NULL };

	(void)state;
	/* 2.6.8: the core's xmit lock serialises the driver, which defers
	 * its doorbell (the LLTX personalities of 2004 never do). */
	expect_planted(ignores_last, "2.6.8", 1, "no-doorbell", words);
}

/* 2.6.18 claims the race impossible (one runner); without a qdisc every
 * producer calls start_xmit itself, and the race is reached: the claim
 * fails, with the schedule that breaks it.  Without the claim the same
 * search is clean (the race is harmless under 2.6.11's rule). */
static void test_claim_broken(void **state)
{
	static const char *const words[] = { "which era 2.6.18 claims impossible", NULL };
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	char err[256] = "";

	(void)state;
	txp_test_era_cfg(&cfg, "2.6.18");
	assert_true(cfg.race_impossible);
	cfg.qdisc = &txp_noqueue_ops;
	cfg.bound = 1;
	expect_named(&cfg, NULL, "claim", words);
	cfg.race_impossible = false;
	assert_int_equal(txp_explore_run(&cfg, &res, err, sizeof(err)), 0);
	assert_false(res.found);
	assert_true(res.xmit_on_stopped_reachable);
	txp_explore_result_free(&res);
}

/* The eras that claim the race impossible are the ones whose design
 * keeps start_xmit's callers apart. */
static void test_claims_of_the_eras(void **state)
{
	(void)state;
	assert_true(txp_era_lookup("2.6.8")->race_impossible);
	assert_true(txp_era_lookup("2.6.11-rc2")->race_impossible);
	assert_true(txp_era_lookup("2.6.18")->race_impossible);
	assert_false(txp_era_lookup("2.6.9")->race_impossible);
	assert_false(txp_era_lookup("silence")->race_impossible);
	assert_false(txp_era_lookup("2.6.11")->race_impossible);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freed_not_requeued_is_lost),
		cmocka_unit_test(test_bug_log_quotes_the_line),
		cmocka_unit_test(test_double_completion),
		cmocka_unit_test(test_held_twice_is_duplicated),
		cmocka_unit_test(test_reordered),
		cmocka_unit_test(test_unjustified_drop),
		cmocka_unit_test(test_no_doorbell),
		cmocka_unit_test(test_claim_broken),
		cmocka_unit_test(test_claims_of_the_eras),
	};

	return txp_test_main(argc, argv, tests);
}
