/*
 * signals.c - the commands' SIGINT and SIGTERM: ask, then insist.
 */
#include <signal.h>
#include <unistd.h>

#include "signal_repeat.h"
#include "signals.h"

static struct txp_run_stop stop = TXP_RUN_STOP_INIT;
static struct signal_first first;

/* Async-signal-safe: a compare-and-swap on a lock-free int, or _exit().
 * Any thread may take it; the stop's compare-and-swap tells the first
 * signal from the others even when two arrive at once.  The first is
 * noted before it asks, so that a thread taking it delivered again
 * (signal_repeat.h) finds it. */
static void on_signal(int signo, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!first.signo)
		signal_first_note(&first, signo, si);
	if (!txp_run_interrupt(&stop, signo) && !signal_is_repeat(&first, signo, si))
		_exit(128 + signo);
}

const struct txp_run_stop *signals_catch(void)
{
	static const int caught[] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		struct sigaction old;

		if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(caught[i], &sa, NULL);
	}
	return &stop;
}

int signals_caught(void)
{
	return txp_run_interrupted(&stop);
}

const char *signals_name(int signo)
{
	return signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : "a signal";
}

int signals_status(int status)
{
	int signo = signals_caught();

	return signo ? 128 + signo : status;
}
