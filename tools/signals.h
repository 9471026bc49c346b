/*
 * signals.h - SIGINT and SIGTERM for the commands: the first asks the work
 * under way to stop, so that it still prints its report and accounts for
 * every packet; a second ends the process at once (the first delivered
 * twice, as timeout(1) does, is not a second: signals.c).
 */
#ifndef TXP_TOOL_SIGNALS_H
#define TXP_TOOL_SIGNALS_H

#include "run/run.h"

/*
 * Catch SIGINT and SIGTERM from now on, and return the stop to give runs
 * (txp_run_cfg.stop, txp_explore_cfg.stop).  The first signal asks it
 * (txp_run_interrupt() with the signal's number); a second one _exit()s
 * with 128 + its number.  Both are blocked while the handler runs.  No
 * SA_RESTART: a blocking call returns EINTR, so its loop looks at the flag.
 * A signal ignored when txpath started (a background job of a shell)
 * stays ignored.  Call once per command, from the main thread.
 */
const struct txp_run_stop *signals_catch(void);

/* The first signal caught, 0 if none. */
int signals_caught(void);

/* "SIGINT", "SIGTERM". */
const char *signals_name(int signo);

/* A command's exit status: 128 + the signal once one was caught (130 for
 * SIGINT, 143 for SIGTERM), else status. */
int signals_status(int status);

/*
 * A plugin driver that ends the program from within one of its ops (a
 * crash: SIGSEGV, SIGBUS, SIGILL, SIGFPE; abort(); exit()): say so on one
 * line, "txpath: the driver 'NAME' crashed (SIGSEGV) in start_xmit", and
 * exit 1; a stack overflow in the op too (the handler runs on the
 * thread's alternate signal stack).  A crash outside the driver's ops
 * goes on as it would have without this.  Call once, from the main thread, once the driver is
 * loaded.
 */
void signals_catch_driver_ends(void);

#endif
