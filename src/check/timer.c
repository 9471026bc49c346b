/*
 * timer.c - the watchdog's timer in the explorer's scenario (check build
 * only), and its logical clock.
 *
 * Time is a clock of the explorer's, not the machine's: it reads 0 while
 * the scenario is set up (the device opens at 0, so every trans_start is
 * 0), then TIMER_IDLE_TIMEOUTS timeouts later while the contexts run,
 * and it stands still there: a schedule's steps take no time against a
 * timeout of TIMER_TIMEO_MS.  So "idle long ago" is the state every
 * scenario starts in, and a stop made during the scenario has lasted 0
 * ms whenever the watchdog looks: a NETDEV WATCHDOG in it is false, which
 * the oracle judges from this clock and the queues' state at the start,
 * never from trans_start.  What the clock cannot show is a queue stopped
 * for longer than the timeout (a true timeout): that needs time to pass
 * between a stop and a check, and a clock the scheduler moved between a
 * stamp's reading of it and its store would model a start_xmit stalled
 * for a whole timeout.  The clock is constant while the contexts run, so
 * its reads need no scheduling point.
 *
 * The watchdog's context runs txp_dev_watchdog() once: dev_watchdog()'s
 * timer expiring once, wherever the schedule puts it.
 */
#include "check/timer.h"

#include "check/oracle.h"
#include "check/runtime/runtime.h"
#include "txpath/ctx.h"

static uint64_t clock_now;

static uint64_t timer_clock(void)
{
	return clock_now;
}

void timer_dev_cfg(struct txp_dev_cfg *dcfg, bool watchdog)
{
	clock_now = 0;
	if (!watchdog)
		return;
	dcfg->watchdog_timeo_ms = TIMER_TIMEO_MS;
	dcfg->watchdog_clock = timer_clock;
}

static void *timer_main(void *arg)
{
	txp_ctx_attach();
	txp_dev_watchdog(arg);
	txp_ctx_detach();
	return NULL;
}

int timer_start(struct txp_dev *dev)
{
	clock_now = (uint64_t)TIMER_IDLE_TIMEOUTS * TIMER_TIMEO_MS * 1000000u;
	oracle_watchdog_start(dev, clock_now, (uint64_t)TIMER_TIMEO_MS * 1000000u, timer_clock);
	return rt_spawn("watchdog", timer_main, dev) < 0 ? -1 : 0;
}
