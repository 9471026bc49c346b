/*
 * signals.c - SIGINT and SIGTERM for `txpath check` (see signals.h).
 */
#include <errno.h>
#include <string.h>

#include "../signal_repeat.h"
#include "signals.h"

volatile sig_atomic_t check_stop_signal;
static struct signal_first first;

/*
 * Async-signal-safe: the first signal is only stored (the explorer polls
 * it between schedules); a second takes its default action, which ends
 * the process: both signals are blocked while this runs, so the raise()
 * is delivered as it returns, with the default in place.  The first
 * delivered again (signal_repeat.h) is not a second.
 */
static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!check_stop_signal) {
		signal_first_note(&first, sig, si);
		check_stop_signal = sig;
		return;
	}
	if (signal_is_repeat(&first, sig, si))
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

int check_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
		return -errno;
	return 0;
}
