/*
 * test_validator.c - the lock validator, hazard by hazard, on the seam's
 * own locks and "interrupts" in one thread (cycles of two, three and
 * four classes, hundreds of classes in order, the tables' limits); then on real runs of the
 * 2.6.11-rc2 design, clean, and of a driver converted to it carelessly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sync/sync.h"
#include "testutil.h"
#include "txpath/validator.h"
#include "run/run.h"

static struct txp_spinlock lock_a, lock_b, lock_c, lock_d;

static int setup(void **state)
{
	(void)state;
	txp_spin_init(&lock_a, "lock A");
	txp_spin_init(&lock_b, "lock B");
	txp_spin_init(&lock_c, "lock C");
	txp_spin_init(&lock_d, "lock D");
	txp_validator_enable(true);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	txp_validator_enable(false);
	return 0;
}

/* The only report so far is of kind, and names each of words. */
static void expect_one(enum txp_hazard kind, const char *const *words)
{
	enum txp_hazard got;
	const char *msg;

	assert_int_equal(txp_validator_count(), 1);
	msg = txp_validator_report(0, &got);
	assert_non_null(msg);
	assert_int_equal(got, kind);
	for (; *words; words++)
		if (!strstr(msg, *words))
			fail_msg("report lacks '%s': %s", *words, msg);
}

/* Taking a held lock is reported, and passes as nested instead of hanging. */
static void test_recursion(void **state)
{
	static const char *const words[] = { "lock A", "test_recursion", NULL };
	(void)state;

	txp_spin_lock(&lock_a);
	txp_spin_lock(&lock_a);
	txp_spin_unlock(&lock_a);	/* the nested hold */
	assert_true(txp_spin_is_locked(&lock_a));
	txp_spin_unlock(&lock_a);
	assert_false(txp_spin_is_locked(&lock_a));
	expect_one(TXP_HAZARD_RECURSION, words);
}

/* A then B here, B then A there: both chains are named. */
static void take_in_order(struct txp_spinlock *outer, struct txp_spinlock *inner)
{
	txp_spin_lock(outer);
	txp_spin_lock(inner);
	txp_spin_unlock(inner);
	txp_spin_unlock(outer);
}

static void test_lock_order(void **state)
{
	static const char *const words[] = { "lock A", "lock B", "take_in_order", NULL };
	(void)state;

	take_in_order(&lock_a, &lock_b);
	assert_int_equal(txp_validator_count(), 0);
	take_in_order(&lock_b, &lock_a);
	expect_one(TXP_HAZARD_LOCK_ORDER, words);
}

/* Each order of a cycle is named, in the report's order: "'X' then 'Y'". */
static void expect_chain(const char *const *pairs)
{
	const char *msg = txp_validator_report(0, NULL), *at = msg;

	assert_non_null(msg);
	for (; *pairs; pairs++) {
		at = strstr(at, *pairs);
		if (!at)
			fail_msg("report lacks '%s' in order: %s", *pairs, msg);
	}
}

/* A then B, B then C, C then A: no pair is inverted, the cycle is; the
 * report comes when the last order closes it, naming all three. */
static void test_lock_order_cycle3(void **state)
{
	static const char *const words[] = { "over 3 locks", "take_in_order", NULL };
	static const char *const chain[] = {
		"'lock A' then 'lock B'", "'lock B' then 'lock C'", "and 'lock C' then 'lock A'", NULL,
	};
	(void)state;

	take_in_order(&lock_a, &lock_b);
	take_in_order(&lock_b, &lock_c);
	assert_int_equal(txp_validator_count(), 0);
	take_in_order(&lock_c, &lock_a);
	expect_one(TXP_HAZARD_LOCK_ORDER, words);
	expect_chain(chain);
}

/* Four classes, the cycle closed by an order learned with a third lock
 * held (D held, A held, B taken: D -> B and A -> B are both learned). */
static void test_lock_order_cycle4(void **state)
{
	static const char *const words[] = { "over 4 locks", NULL };
	static const char *const chain[] = {
		"'lock A' then 'lock B'", "'lock B' then 'lock C'", "'lock C' then 'lock D'",
		"and 'lock D' then 'lock A'", NULL,
	};
	(void)state;

	take_in_order(&lock_b, &lock_c);
	take_in_order(&lock_c, &lock_d);
	txp_spin_lock(&lock_a);
	txp_spin_lock(&lock_b);
	txp_spin_unlock(&lock_b);
	txp_spin_unlock(&lock_a);
	assert_int_equal(txp_validator_count(), 0);
	take_in_order(&lock_d, &lock_a);
	expect_one(TXP_HAZARD_LOCK_ORDER, words);
	expect_chain(chain);
}

/* Classes by the hundred, each name its own (a buffer per lock). */
#define MANY 300

static struct txp_spinlock many[MANY + 1];
static char many_name[MANY + 1][24];

static void many_init(unsigned n, const char *prefix)
{
	for (unsigned i = 0; i < n; i++) {
		snprintf(many_name[i], sizeof(many_name[i]), "%s %u", prefix, i);
		txp_spin_init(&many[i], many_name[i]);
	}
}

/* 300 classes, every order from a lower to a higher number a few steps
 * on, some with three held: a DAG, so nothing to report (with classes
 * capped at 32 and merged, the 33rd on were one class: false cycles). */
static void test_lock_order_dag_many(void **state)
{
	(void)state;
	many_init(MANY, "class");
	for (unsigned i = 0; i < MANY; i++)
		for (unsigned d = 1; d <= 7 && i + d < MANY; d += 3) {
			txp_spin_lock(&many[i]);
			txp_spin_lock(&many[i + d]);
			if (i + 2 * d < MANY) {
				txp_spin_lock(&many[i + 2 * d]);
				txp_spin_unlock(&many[i + 2 * d]);
			}
			txp_spin_unlock(&many[i + d]);
			txp_spin_unlock(&many[i]);
		}
	if (txp_validator_count())
		fail_msg("%s", txp_validator_report(0, NULL));
	/* The last and the first are still told apart: the way back is a
	 * cycle through the whole chain. */
	take_in_order(&many[MANY - 1], &many[0]);
	assert_int_equal(txp_validator_count(), 1);
	assert_non_null(strstr(txp_validator_report(0, NULL), "'class 299' then 'class 0'"));
}

/* Past the table's limit the validator says so, once, naming the first
 * class it cannot hold, and reports nothing false about the rest. */
static void test_class_limit(void **state)
{
	static char names[4097][24];
	static struct txp_spinlock locks[4097];
	const char *msg;
	enum txp_hazard kind;
	(void)state;

	for (unsigned i = 0; i < 4097; i++) {
		snprintf(names[i], sizeof(names[i]), "limit %u", i);
		txp_spin_init(&locks[i], names[i]);
		txp_spin_lock(&locks[i]);
		txp_spin_unlock(&locks[i]);
	}
	assert_int_equal(txp_validator_count(), 1);
	msg = txp_validator_report(0, &kind);
	assert_int_equal(kind, TXP_HAZARD_LIMIT);
	assert_string_equal(txp_hazard_name(kind), "limit");
	assert_non_null(strstr(msg, "more than 4096 lock classes"));
	assert_non_null(strstr(msg, "'limit 4096'"));
	assert_non_null(strstr(msg, "test_class_limit"));
	/* Unchecked classes learn no orders: no false inversion. */
	take_in_order(&locks[4096], &locks[0]);
	take_in_order(&locks[0], &locks[4096]);
	assert_int_equal(txp_validator_count(), 1);
}

/* More distinct reports than the validator keeps: the last one kept
 * says so, and nothing after it is kept. */
static void test_report_limit(void **state)
{
	static char names[80][24];
	static struct txp_spinlock locks[80];
	unsigned n;
	enum txp_hazard kind;
	const char *msg;
	(void)state;

	for (unsigned i = 0; i < 80; i++) {
		snprintf(names[i], sizeof(names[i]), "report %u", i);
		txp_spin_init(&locks[i], names[i]);
		txp_spin_lock(&locks[i]);
		txp_spin_lock(&locks[i]);	/* a recursion: one report each */
		txp_spin_unlock(&locks[i]);
		txp_spin_unlock(&locks[i]);
	}
	n = txp_validator_count();
	assert_true(n > 1 && n < 80);
	for (unsigned i = 0; i + 1 < n; i++) {
		txp_validator_report(i, &kind);
		assert_int_equal(kind, TXP_HAZARD_RECURSION);
	}
	msg = txp_validator_report(n - 1, &kind);
	assert_int_equal(kind, TXP_HAZARD_LIMIT);
	assert_non_null(strstr(msg, "lock validator full"));
	assert_non_null(strstr(msg, "not kept"));
	assert_null(txp_validator_report(n, NULL));
}

/* More locks held at once than the validator tracks: said once. */
static void test_held_limit(void **state)
{
	(void)state;
	many_init(17, "held");
	for (unsigned i = 0; i < 17; i++)
		txp_spin_lock(&many[i]);
	for (unsigned i = 17; i-- > 0;)
		txp_spin_unlock(&many[i]);
	assert_int_equal(txp_validator_count(), 1);
	assert_non_null(strstr(txp_validator_report(0, NULL), "more than 16 locks held at once"));
	assert_non_null(strstr(txp_validator_report(0, NULL), "'held 16'"));
}

/* Taken in interrupt context, and elsewhere with interrupts on. */
static void test_irq_inconsistent(void **state)
{
	static const char *const words[] = { "lock A", "interrupt", NULL };
	unsigned long flags;
	(void)state;

	txp_irq_enter();
	flags = txp_local_irq_save();
	txp_spin_lock(&lock_a);
	txp_spin_unlock(&lock_a);
	txp_local_irq_restore(flags);
	txp_irq_exit();
	assert_int_equal(txp_validator_count(), 0);
	txp_spin_lock(&lock_a);
	txp_spin_unlock(&lock_a);
	expect_one(TXP_HAZARD_IRQ_INCONSISTENT, words);
}

/* The same lock, always with interrupts off outside the interrupt: clean. */
static void test_irq_consistent(void **state)
{
	unsigned long flags;
	(void)state;

	txp_irq_enter();
	txp_spin_lock(&lock_a);
	txp_spin_unlock(&lock_a);
	txp_irq_exit();
	flags = txp_local_irq_save();
	txp_spin_lock(&lock_a);
	txp_spin_unlock(&lock_a);
	txp_local_irq_restore(flags);
	assert_int_equal(txp_validator_count(), 0);
}

/* Interrupts turned on while an irq-safe lock is held. */
static void test_irqs_on_held(void **state)
{
	static const char *const words[] = { "lock A", "test_irqs_on_held", NULL };
	(void)state;

	txp_lock_irqsafe(&lock_a);
	txp_local_irq_disable();
	txp_spin_lock(&lock_a);
	txp_local_irq_enable();
	txp_spin_unlock(&lock_a);
	expect_one(TXP_HAZARD_IRQS_ON_HELD, words);
}

/* Off: nothing is learned, nothing reported, a held lock still spins
 * (so the nested case is not tried). */
static void test_off(void **state)
{
	(void)state;
	txp_validator_enable(false);
	take_in_order(&lock_a, &lock_b);
	take_in_order(&lock_b, &lock_a);
	assert_int_equal(txp_validator_count(), 0);
	assert_false(txp_validator_enabled());
}

/* -- real runs ------------------------------------------------------------ */

static void rc2_cfg(struct txp_run_cfg *cfg, const char *personality)
{
	txp_run_cfg_init(cfg);
	assert_true(txp_run_cfg_era(cfg, "2.6.11-rc2"));
	cfg->personality = txp_sim_personality(personality);
	cfg->threads = 3;
	cfg->packets = TXP_TEST_TSAN ? 20000 : 100000;
	cfg->ring = 32;
	cfg->frags_max = 3;
	cfg->log = NULL;
	cfg->validate = true;
}

/* A validated run of personality that accounts for every packet. */
static void validated_run(const char *personality, struct txp_run_result *res)
{
	struct txp_run_cfg cfg;
	char err[256] = "";

	rc2_cfg(&cfg, personality);
	if (txp_run(&cfg, res, err, sizeof(err)) != 0)
		fail_msg("%s: %s", personality, err);
	txp_test_assert_run_clean(res);
	assert_true(res->validated);
}

/* The rc2 design itself: no report, whatever the interleaving. */
static void test_rc2_clean(void **state)
{
	struct txp_run_result res;
	(void)state;

	validated_run("rc2", &res);
	if (res.hazards)
		fail_msg("rc2: %s", txp_validator_report(0, NULL));
	assert_false(txp_validator_enabled());
}

/*
 * The careless conversion: the three hazards of the article, each named
 * with the driver's function, and the run still accounts for every packet
 * (the validator let the nested lock pass).
 */
static void test_rc2_naive_hazards(void **state)
{
	struct txp_run_result res;
	bool seen[TXP_HAZARD_NR] = { false };
	(void)state;

	validated_run("rc2-naive", &res);
	assert_true(res.dev.dropped[TXP_DROP_DRIVER] > 0);	/* the error path ran */
	for (unsigned i = 0; i < res.hazards; i++) {
		enum txp_hazard kind;
		const char *msg = txp_validator_report(i, &kind);

		assert_non_null(strstr(msg, "rc2_naive_start_xmit"));
		seen[kind] = true;
	}
	assert_true(seen[TXP_HAZARD_RECURSION]);
	assert_true(seen[TXP_HAZARD_FREE_IRQS_OFF]);
	assert_true(seen[TXP_HAZARD_IRQS_ON_HELD]);
}

/* Without the validator the careless driver would hang: refused. */
static void test_rc2_naive_needs_validator(void **state)
{
	struct txp_run_cfg cfg;
	struct txp_run_result res;
	char err[256] = "";
	(void)state;

	rc2_cfg(&cfg, "rc2-naive");
	cfg.validate = false;
	assert_false(txp_run_cfg_check(&cfg, err, sizeof(err)));
	assert_non_null(strstr(err, "--validate"));
	assert_int_equal(txp_run(&cfg, &res, err, sizeof(err)), -1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recursion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_order_cycle3, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_order_cycle4, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_order_dag_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_class_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_inconsistent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_consistent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irqs_on_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off, setup, teardown),
		cmocka_unit_test(test_rc2_clean),
		cmocka_unit_test(test_rc2_naive_hazards),
		cmocka_unit_test(test_rc2_naive_needs_validator),
	};

	return txp_test_main(argc, argv, tests);
}
