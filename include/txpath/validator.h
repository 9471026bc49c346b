/*
 * txpath/validator.h - the lock validator, in the spirit of lockdep.
 *
 * Per lock class (the name a lock was given) it reports: taking a lock the
 * context already holds (and lets it pass as nested instead of hanging);
 * a lock used in interrupt context and also taken elsewhere with
 * interrupts on; lock-order inversions over any cycle of classes, with
 * every order of the cycle named; a packet freed with interrupts off;
 * interrupts turned on while an irq-safe lock is held.  Each report names
 * the locks and the functions.  Past a table's limit (4096 classes, 16
 * locks held at once by one context) it says so, and checks no further
 * than it can: it never merges classes.
 */
#ifndef TXPATH_VALIDATOR_H
#define TXPATH_VALIDATOR_H

#include <stdbool.h>

struct txp_spinlock;

#ifdef __cplusplus
extern "C" {
#endif

enum txp_hazard {
	TXP_HAZARD_RECURSION,		/* "recursion" */
	TXP_HAZARD_IRQ_INCONSISTENT,	/* "irq-inconsistent" */
	TXP_HAZARD_LOCK_ORDER,		/* "lock-order" */
	TXP_HAZARD_FREE_IRQS_OFF,	/* "free-irqs-off" */
	TXP_HAZARD_IRQS_ON_HELD,	/* "irqs-on-held" */
	TXP_HAZARD_LIMIT,		/* "limit": a table of the validator is full */
	TXP_HAZARD_NR,
};

/* Switch the validator on or off; only while no context runs.  On
 * clears what it learned and reported before. */
void txp_validator_enable(bool on);
bool txp_validator_enabled(void);
/* Does the calling context hold l, by the validator's own record of the
 * locks it took (lockdep_is_held; not the lock's owner field)?  False
 * while the validator is off. */
bool txp_validator_holds(const struct txp_spinlock *l);
/* Distinct reports so far, and each one (NULL past the end). */
unsigned txp_validator_count(void);
const char *txp_validator_report(unsigned i, enum txp_hazard *kind);
const char *txp_hazard_name(enum txp_hazard h);
/* Called for each new distinct report (the explorer's hook); NULL: none. */
void txp_validator_on_report(void (*fn)(enum txp_hazard h, const char *msg, void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif
