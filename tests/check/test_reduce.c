/*
 * test_reduce.c - the bounded search's reduction (`txpath check --reduce`):
 * a state already explored in full, named by the execution's trace (the
 * running context pricing it), is not explored again, nor a choice whose
 * step, known from a sibling, leads to one.  It must change nothing but the
 * work: every bug the full search finds is found, at the same number of
 * preemptions, and its schedule replays; every proof holds, with the same
 * answer to "is the race reachable", in fewer schedules.  Producers alike
 * are interchangeable: a state and its images under their permutations
 * are one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "check/runtime/trace.h"
#include "check/search/visited.h"
#include "checkutil.h"
#include "check/explore.h"

#define BOUND 2

/* The explorer is one thread of fibers: ThreadSanitizer has nothing to see
 * in a search, and its millisecond per fresh context would make these
 * paired searches run for minutes (SKIP_UNDER_TSAN).  The plain and ASan
 * builds run them, but for the two longest (SKIP_UNDER_SANITIZERS). */
/* An era's scenario, or a personality's (NULL era) behind the core lock. */
static void cfg_of(struct txp_explore_cfg *cfg, const char *era, const char *personality,
		   bool tso, unsigned bound)
{
	if (era) {
		txp_test_era_cfg(cfg, era);
	} else {
		txp_explore_cfg_init(cfg);
		cfg->lock = TXP_LOCK_CORE;
		cfg->personality = txp_sim_personality(personality);
		assert_non_null(cfg->personality);
	}
	cfg->tso = tso;
	cfg->bound = bound;
}

/* The full search and the reduced one of cfg, into full and red. */
static void both(struct txp_explore_cfg *cfg, struct txp_explore_result *full,
		 struct txp_explore_result *red)
{
	cfg->reduce = false;
	explore(cfg, full);
	assert_false(full->reduced);
	cfg->reduce = true;
	explore(cfg, red);
	assert_true(red->reduced);
	assert_false(red->reduce_dropped);
}

/* The same bug, at the same preemptions, and the reduced one replays. */
static void expect_same_bug(struct txp_explore_cfg *cfg, const char *kind, const char *what)
{
	struct txp_explore_result full, red, again;
	char err[256] = "";

	both(cfg, &full, &red);
	if (!full.found || strcmp(full.kind, kind))
		fail_msg("%s: the full search found %s, not %s", what, full.found ? full.kind : "nothing",
			 kind);
	if (!red.found)
		fail_msg("%s: the reduced search found nothing in %llu schedules", what,
			 (unsigned long long)red.schedules);
	assert_string_equal(red.kind, full.kind);
	assert_int_equal(red.preemptions, full.preemptions);
	cfg->replay = red.schedule;
	assert_int_equal(txp_explore_run(cfg, &again, err, sizeof(err)), 0);
	assert_true(again.found);
	assert_string_equal(again.kind, kind);
	cfg->replay = NULL;
	txp_explore_result_free(&again);
	txp_explore_result_free(&full);
	txp_explore_result_free(&red);
}

/* The same proof, in fewer schedules, some of them cut short. */
static void expect_same_proof(struct txp_explore_cfg *cfg, const char *what)
{
	struct txp_explore_result full, red;

	both(cfg, &full, &red);
	if (full.found || red.found)
		fail_msg("%s: %s (full) / %s (reduced)", what, full.found ? full.kind : "none",
			 red.found ? red.kind : "none");
	assert_true(full.complete && red.complete);
	assert_int_equal(red.xmit_on_stopped_reachable, full.xmit_on_stopped_reachable);
	assert_true(red.pruned > 0);
	/* Some choices were never run: their step was known to lead to an
	 * explored state (the proof is the same all the same).  Not under
	 * arm, where a step's effect on the model is known only once run. */
	if (cfg->arm)
		assert_int_equal(red.asleep, 0);
	else
		assert_true(red.asleep > 0);
	assert_true(red.states > 0);
	if (red.schedules >= full.schedules)
		fail_msg("%s: %llu schedules reduced, %llu full", what,
			 (unsigned long long)red.schedules, (unsigned long long)full.schedules);
	txp_explore_result_free(&full);
	txp_explore_result_free(&red);
}

/* 2004's false BUG, under sc (1 preemption) and tso (2). */
static void test_bug_2_6_9(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, "2.6.9", NULL, false, 2);
	expect_same_bug(&cfg, "bug-log", "2.6.9 sc");
	cfg_of(&cfg, "2.6.9", NULL, true, 2);
	expect_same_bug(&cfg, "bug-log", "2.6.9 tso");
}

/* The lockless qdisc's stuck packet (sc) and the missing barrier after
 * the unlock (tso only). */
static void test_bug_nolock(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, "5.1-nolock", NULL, false, 2);
	expect_same_bug(&cfg, "stall", "5.1-nolock sc");
	cfg_of(&cfg, "5.13-missed", NULL, true, 2);
	expect_same_bug(&cfg, "stall", "5.13-missed tso");
}

/* A wake without the recheck (sc); the stop-recheck barrier left out,
 * proved under tso (the stop a locked set_bit) at bound 2, one producer
 * of three packets. */
static void test_bug_personalities(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, NULL, "lost-wakeup", false, 1);
	expect_same_bug(&cfg, "stall", "lost-wakeup sc");
	cfg_of(&cfg, NULL, "recheck-nomb", true, 2);
	cfg.producers = 1;
	cfg.packets = 3;
	expect_same_proof(&cfg, "recheck-nomb tso (the stop a locked set_bit)");
}

/* The seeds' answer (the race reachable and harmless) and 2.6.18's (not
 * reachable), under sc and tso. */
static void test_proofs_2_6(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, "2.6.11", NULL, false, BOUND);
	expect_same_proof(&cfg, "2.6.11 sc");
	cfg_of(&cfg, "2.6.18", NULL, true, BOUND);
	expect_same_proof(&cfg, "2.6.18 tso");
}

/* Two queues, BQL and the helpers: 6.x, and the lockless qdisc's fix. */
static void test_proofs_modern(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, "6.x", NULL, false, 1);
	cfg.queues = 2;
	expect_same_proof(&cfg, "6.x, 2 queues, sc, bound 1");
	cfg_of(&cfg, "5.19-barrier", NULL, true, 1);
	expect_same_proof(&cfg, "5.19-barrier tso, bound 1");
}

/* Under arm, the state's name holds the model's (what each context may
 * still read, its floor, its buffered stores): the same bugs, at the
 * same preemptions (2004's false BUG; veth's lost wakeup, found under arm
 * only), and the same proof (the lockless qdisc's fix). */
static void test_arm(void **state)
{
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, "2.6.9", NULL, false, 2);
	cfg.arm = true;
	expect_same_bug(&cfg, "bug-log", "2.6.9 arm");
	cfg_of(&cfg, NULL, "veth-6.16", false, 2);
	cfg.runner = TXP_RUNNER_EXCLUSIVE;
	cfg.producers = 2;
	cfg.packets = 2;
	cfg.ring = 3;
	cfg.arm = true;
	expect_same_bug(&cfg, "stall", "veth-6.16 arm");
	cfg_of(&cfg, "5.19-barrier", NULL, false, 1);
	cfg.producers = 2;
	cfg.packets = 2;
	cfg.ring = 3;
	cfg.arm = true;
	expect_same_proof(&cfg, "5.19-barrier arm, bound 1");
}

/* Every era under arm at bound 1: the reduced search's verdict is the
 * full one's (the violation's kind and preemptions, or a proof with the
 * same answer to "is the race reachable"). */
static void test_arm_eras(void **state)
{
	(void)state;
	SKIP_UNDER_SANITIZERS();
	for (const struct txp_era *e = txp_eras; e->name; e++) {
		struct txp_explore_result full, red;
		struct txp_explore_cfg cfg;

		cfg_of(&cfg, e->name, NULL, false, 1);
		cfg.arm = true;
		both(&cfg, &full, &red);
		if (full.found != red.found || (full.found && (strcmp(full.kind, red.kind) ||
							       full.preemptions != red.preemptions)))
			fail_msg("%s under arm: %s (full) / %s (reduced)", e->name,
				 full.found ? full.kind : "none", red.found ? red.kind : "none");
		assert_int_equal(red.complete, full.complete);
		if (!full.found)
			assert_int_equal(red.xmit_on_stopped_reachable, full.xmit_on_stopped_reachable);
		printf("  %-14s %-9s %7llu schedules, %7llu reduced\n", e->name,
		       full.found ? full.kind : "proved", (unsigned long long)full.schedules,
		       (unsigned long long)red.schedules);
		txp_explore_result_free(&full);
		txp_explore_result_free(&red);
	}
}

/*
 * The ends the searches reach: the order in which the packets reached the
 * driver, one word per execution (4 bits a packet), as a start_xmit that
 * runs under the core's xmit lock records it (so a plain record, ordered
 * by the lock the reduction sees).  The reduced search must reach every
 * order the full one does: a reduction that merged states unlike each
 * other (a dependence missed) loses some.
 */
#define ORDERS_MAX 4096
#define SENT 6			/* 2 producers x 3 packets */

static struct {
	uint64_t now;
	unsigned sent;
	uint64_t seen[ORDERS_MAX];
	unsigned n;
} orders;

static enum txp_tx order_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	uint64_t id = (uint64_t)(pkt->flow * 8 + pkt->seq + 1);
	enum txp_tx rc = txp_sim_ops.start_xmit(pkt, txq);
	unsigned i;

	if (rc != TXP_TX_OK)
		return rc;
	orders.now = orders.now << 4 | id;
	if (++orders.sent < SENT)
		return rc;
	for (i = 0; i < orders.n && orders.seen[i] != orders.now; i++)
		;
	if (i == orders.n && orders.n < ORDERS_MAX)
		orders.seen[orders.n++] = orders.now;
	orders.now = 0;
	orders.sent = 0;
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The orders cfg's search reaches, sorted into out; how many. */
static unsigned orders_of(struct txp_explore_cfg *cfg, uint64_t *out)
{
	struct txp_explore_result res;

	memset(&orders, 0, sizeof(orders));
	cfg->ops = txp_test_sim_ops_with(order_xmit);
	expect_clean_search(cfg, "2.6.8, 2 x 3", &res);
	txp_explore_result_free(&res);
	assert_true(orders.n < ORDERS_MAX);
	memcpy(out, orders.seen, orders.n * sizeof(out[0]));
	qsort(out, orders.n, sizeof(out[0]), cmp_u64);
	return orders.n;
}

/*
 * An order with its producers named by when each first sent (the first to
 * send is flow 0): what is left of it under a permutation of the producers.
 * The reduction with symmetry reaches one order of each such class.
 */
static uint64_t order_class(uint64_t order)
{
	int rename[SENT] = { -1, -1, -1, -1, -1, -1 }, next = 0;
	uint64_t out = 0;

	for (int i = SENT - 1; i >= 0; i--) {
		unsigned id = (unsigned)(order >> (4 * i)) & 0xf, flow = (id - 1) / 8;

		if (rename[flow] < 0)
			rename[flow] = next++;
		out = out << 4 | (uint64_t)(rename[flow] * 8 + (int)(id - 1) % 8 + 1);
	}
	return out;
}

/* The classes of orders[0..n), sorted, each once; how many. */
static unsigned order_classes(uint64_t *orders_in, unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		orders_in[i] = order_class(orders_in[i]);
	qsort(orders_in, n, sizeof(orders_in[0]), cmp_u64);
	for (unsigned i = 0; i < n; i++)
		if (!k || orders_in[k - 1] != orders_in[i])
			orders_in[k++] = orders_in[i];
	return k;
}

static void test_same_ends(void **state)
{
	static uint64_t full[ORDERS_MAX], red[ORDERS_MAX];
	struct txp_explore_cfg cfg;
	unsigned nfull, nred;

	(void)state;
	SKIP_UNDER_SANITIZERS();
	for (int tso = 0; tso < 2; tso++) {
		const char *mm = tso ? "tso" : "sc";

		/* tso at bound 1 (4 orders, 3 with symmetry): its full search
		 * at bound 2 is half a minute. */
		cfg_of(&cfg, "2.6.8", NULL, tso, tso ? 1 : BOUND);
		cfg.packets = 3;
		nfull = orders_of(&cfg, full);
		/* More than one order: the test can tell searches apart. */
		assert_true(nfull > 1);
		/* The producers told apart: every order the full search reaches. */
		cfg.reduce = true;
		cfg.reduce_without = TXP_EXPLORE_REDUCE_NO_SYMMETRY;
		nred = orders_of(&cfg, red);
		if (nred != nfull || memcmp(full, red, nfull * sizeof(full[0])))
			fail_msg("%s: the full search reached %u orders of the packets, the reduced %u",
				 mm, nfull, nred);
		/* Alike: every order up to a permutation of the producers, and
		 * fewer orders than the full search (one of each class). */
		cfg.reduce_without = 0;
		nred = orders_of(&cfg, red);
		assert_true(nred < nfull);
		nfull = order_classes(full, nfull);
		nred = order_classes(red, nred);
		if (nred != nfull || memcmp(full, red, nfull * sizeof(full[0])))
			fail_msg("%s: the full search reached %u orders up to the producers' names, "
				 "the reduced with symmetry %u", mm, nfull, nred);
	}
}

/* The reduction's parts, each without the others changing: a search that
 * runs the choices asleep names exactly the same states (it only does
 * more work); one that tells the producers apart names more, with the
 * same verdict.  3 producers: 6 permutations. */
static void test_parts(void **state)
{
	struct txp_explore_result all, awake, apart;
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, "3.3", NULL, false, 1);
	cfg.queues = 1;
	cfg.producers = 3;
	cfg.reduce = true;
	explore(&cfg, &all);
	cfg.reduce_without = TXP_EXPLORE_REDUCE_NO_SYMMETRY;
	explore(&cfg, &apart);
	cfg.reduce_without = TXP_EXPLORE_REDUCE_NO_SYMMETRY | TXP_EXPLORE_REDUCE_NO_ASLEEP;
	explore(&cfg, &awake);
	assert_true(all.complete && apart.complete && awake.complete);
	assert_false(all.found || apart.found || awake.found);
	assert_true(all.symmetric);
	assert_false(apart.symmetric || awake.symmetric);
	assert_int_equal(awake.asleep, 0);
	assert_true(apart.asleep > 0);
	assert_int_equal(awake.states, apart.states);
	assert_true(awake.schedules > apart.schedules);
	/* Each class of up to 6 states named once: well under half. */
	if (all.states * 2 >= apart.states)
		fail_msg("symmetry: %llu states, %llu with the producers told apart",
			 (unsigned long long)all.states, (unsigned long long)apart.states);
	assert_int_equal(all.xmit_on_stopped_reachable, apart.xmit_on_stopped_reachable);
	txp_explore_result_free(&all);
	txp_explore_result_free(&apart);
	txp_explore_result_free(&awake);
}

/* Producers that differ (fragments, or a queue each) are told apart. */
static void test_symmetry_when(void **state)
{
	struct txp_explore_result res;
	struct txp_explore_cfg cfg;

	(void)state;
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, "2.6.18", NULL, false, 0);
	cfg.reduce = true;
	explore(&cfg, &res);
	assert_true(res.symmetric);
	txp_explore_result_free(&res);
	cfg.frags_max = 1;
	explore(&cfg, &res);
	assert_false(res.symmetric);
	txp_explore_result_free(&res);
	cfg_of(&cfg, "6.x", NULL, false, 0);
	cfg.reduce = true;
	explore(&cfg, &res);
	assert_int_equal(cfg.queues, 2);
	assert_false(res.symmetric);
	txp_explore_result_free(&res);
	cfg.queues = 1;
	explore(&cfg, &res);
	assert_true(res.symmetric);
	txp_explore_result_free(&res);
}

/* The scheduler's unbranched choice of the lowest id (landings where
 * nobody can run) keeps symmetry only when it cannot pick a role by id:
 * a context below every symmetric one is picked in every image. */
static void test_default_tells_apart(void **state)
{
	static const int producers[] = { 1, 2 };

	(void)state;
	trace_reset();
	assert_false(trace_default_tells_apart(0x3));
	trace_symmetric(producers, 2);
	assert_false(trace_default_tells_apart(0x1 | 0x2));	/* context 0 first, always */
	assert_false(trace_default_tells_apart(0x1 | 0x4));
	assert_false(trace_default_tells_apart(0x2));		/* no choice */
	assert_true(trace_default_tells_apart(0x2 | 0x4));	/* producer 1 or 2 by id */
	assert_true(trace_default_tells_apart(0x2 | 0x8));	/* so far as it knows */
	trace_reset();
	assert_false(trace_default_tells_apart(0x2 | 0x4));
}

/* -- parts of the search sharing a table (txpath check --jobs) ------------ */

/* The splits of the test: every piece, none, or one (arg) and nothing
 * past it. */
static enum txp_explore_take take_all(uint64_t piece, void *arg)
{
	(void)piece;
	(void)arg;
	return TXP_EXPLORE_TAKE;
}

static enum txp_explore_take take_none(uint64_t piece, void *arg)
{
	(void)piece;
	(void)arg;
	return TXP_EXPLORE_SKIP;
}

static enum txp_explore_take take_one(uint64_t piece, void *arg)
{
	uint64_t mine = *(const uint64_t *)arg;

	return piece < mine ? TXP_EXPLORE_SKIP : piece == mine ? TXP_EXPLORE_TAKE : TXP_EXPLORE_END;
}

/* No piece known done by anyone: the states above others' pieces wait. */
static uint64_t none_below(void *arg)
{
	(void)arg;
	return 0;
}

/*
 * A part that runs another's lone schedule for the tree only, unjudged,
 * must not call the states on it explored in full: the one that violates
 * is that part's to find, whenever it gets there.  5.1-nolock at bound 2,
 * its violation a lone schedule (one choice off the default): a part that
 * takes no piece walks the whole search first, into a table it shares
 * (as --jobs workers do), then a part that takes the violation's piece
 * alone finds it there, one run's.  Before the fix, the first part named
 * the states above it explored and the second skipped it (a violation of
 * a later piece was reported, one --jobs run in twenty).
 */
static void test_shared_table_keeps_lone_verdicts(void **state)
{
	struct txp_explore_result one, whole, mine;
	struct txp_explore_split split = { .take = take_all, .below = none_below };
	struct txp_explore_cfg cfg;
	uint64_t piece;
	pid_t pid;
	int status;

	(void)state;
	/* ThreadSanitizer's runtime will not start threads in a child
	 * forked once the explorer's have run (as --jobs is not run under
	 * it: cli_check_split). */
	SKIP_UNDER_TSAN();
	cfg_of(&cfg, "5.1-nolock", NULL, false, 2);
	cfg.reduce = true;
	explore(&cfg, &one);
	assert_true(one.found);
	/* One part taking every piece: one run's violation, in its piece. */
	cfg.split = &split;
	explore(&cfg, &whole);
	assert_true(whole.found);
	assert_string_equal(whole.schedule, one.schedule);
	piece = whole.found_piece;
	/* Its schedule is the piece's lone one (the test's premise). */
	assert_null(strchr(one.schedule, ','));
	assert_int_equal(visited_share_table(), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct txp_explore_result none;
		char err[256];

		split.take = take_none;
		_exit(txp_explore_run(&cfg, &none, err, sizeof(err)) == 0 && !none.found ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	split.take = take_one;
	split.arg = &piece;
	explore(&cfg, &mine);
	if (!mine.found)
		fail_msg("the part taking piece %llu alone found no violation there (%s, one run's)",
			 (unsigned long long)piece, one.schedule);
	assert_string_equal(mine.schedule, one.schedule);
	assert_int_equal(mine.found_piece, piece);
	txp_explore_result_free(&one);
	txp_explore_result_free(&whole);
	txp_explore_result_free(&mine);
}

/* Where it does not apply, said so. */
static void test_refused(void **state)
{
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	char err[256] = "";

	(void)state;
	cfg_of(&cfg, "2.6.11", NULL, false, 1);
	cfg.reduce = true;
	cfg.strategy = TXP_EXPLORE_RANDOM;
	assert_int_equal(txp_explore_run(&cfg, &res, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--bound"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bug_2_6_9),
		cmocka_unit_test(test_bug_nolock),
		cmocka_unit_test(test_bug_personalities),
		cmocka_unit_test(test_proofs_2_6),
		cmocka_unit_test(test_proofs_modern),
		cmocka_unit_test(test_arm),
		cmocka_unit_test(test_arm_eras),
		cmocka_unit_test(test_same_ends),
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_symmetry_when),
		cmocka_unit_test(test_default_tells_apart),
		cmocka_unit_test(test_shared_table_keeps_lone_verdicts),
		cmocka_unit_test(test_refused),
	};

	return txp_test_main(argc, argv, tests);
}
