/*
 * validator.h - the lock validator's hooks: the seam's observer (it
 * installs them with txp_sync_observe() while it is on), and the core's
 * calls while txp__validating is set.
 */
#ifndef TXP_CHECK_VALIDATOR_H
#define TXP_CHECK_VALIDATOR_H

#include <stdbool.h>

struct txp_spinlock;

/* Set before any context runs, cleared after: read without ordering. */
extern bool txp__validating;

/* Taking l, which this context may already hold: reports that and
 * returns true (the caller then treats it as a nested hold). */
bool txp_validate_recursion(const struct txp_spinlock *l, const char *site);
/* l was just acquired at site. */
void txp_validate_acquired(const struct txp_spinlock *l, const char *site);
/* Releasing l: true if this undoes a nested hold (no real unlock). */
bool txp_validate_release(const struct txp_spinlock *l, const char *site);
/* Interrupts went on at site. */
void txp_validate_irqs_on(const char *site);
/* A packet is being freed at site. */
void txp_validate_free(const char *site);
/* l will be used from interrupt context: treat its class as irq-safe. */
void txp_validate_irqsafe(const struct txp_spinlock *l);

#endif
