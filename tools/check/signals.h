/*
 * signals.h - SIGINT and SIGTERM for `txpath check`: the first asks the
 * explorer to stop at the next schedule boundary and report what it
 * explored; a second ends the process at once (the first delivered twice,
 * as timeout(1) does, is not a second: ../signal_repeat.h).
 */
#ifndef TXP_TOOL_CHECK_SIGNALS_H
#define TXP_TOOL_CHECK_SIGNALS_H

#include <signal.h>

/* The first signal's number, 0 until one came: the explorer's cfg.stop. */
extern volatile sig_atomic_t check_stop_signal;

/* Catch SIGINT and SIGTERM.  0, or a negative errno. */
int check_signals_install(void);

#endif
