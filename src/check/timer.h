/*
 * timer.h - the watchdog's timer as one more context of the explorer's
 * scenario, and the logical clock it and trans_start read (check build
 * only; timer.c says what the clock models).
 */
#ifndef TXP_CHECK_TIMER_H
#define TXP_CHECK_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "txpath/dev.h"

/* The scenario's watchdog_timeo: small, as time is logical. */
#define TIMER_TIMEO_MS 1
/* How long the device has been idle when the contexts start, in timeouts. */
#define TIMER_IDLE_TIMEOUTS 10

/* A new scenario: the clock back to 0 (the device opens then); with the
 * watchdog on, dcfg gets its timeout and this clock. */
void timer_dev_cfg(struct txp_dev_cfg *dcfg, bool watchdog);
/* The contexts are about to run: the clock moves on past the idle time,
 * the oracle is told when the scenario starts, and the watchdog context
 * ("watchdog") is started.  0, or -1 if it cannot be. */
int timer_start(struct txp_dev *dev);

#endif
