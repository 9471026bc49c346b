/*
 * signals.c - the commands' SIGINT and SIGTERM: ask, then insist.
 *
 * timeout(1) sends its signal to the command, then again to the command's
 * process group, which holds the command: one request, delivered twice,
 * microseconds apart, often to two threads at once.  Taken for a second
 * signal, it would end the process before its report.  So the same signal
 * from the same process within SIGNAL_REPEAT_NS of the first is the first
 * again; a person's second ^C, or a script's second kill, comes later.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "signals.h"

#define SIGNAL_REPEAT_NS 50000000L	/* 50 ms */

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LONG_LOCK_FREE == 2,
	       "a signal handler needs lock-free atomics");

static struct txp_run_stop stop = TXP_RUN_STOP_INIT;

/* The first signal.  Its handler claims signo (0 before), then notes its
 * sender (0: not a process, as the terminal's ^C) and time, and publishes
 * them with ready; any other handler reads them only after ready. */
static struct {
	atomic_int signo, ready, pid;
	atomic_long ns;
} first;

static long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int sender(const siginfo_t *si)
{
	return si->si_code == SI_USER ? (int)si->si_pid : 0;
}

/* Claim the first signal, or return false: another handler has. */
static bool first_claim(int signo, int pid, long ns)
{
	int none = 0;

	if (!atomic_compare_exchange_strong_explicit(&first.signo, &none, signo,
						     memory_order_relaxed, memory_order_relaxed))
		return false;
	atomic_store_explicit(&first.pid, pid, memory_order_relaxed);
	atomic_store_explicit(&first.ns, ns, memory_order_relaxed);
	atomic_store_explicit(&first.ready, 1, memory_order_release);	/* release: pid, ns */
	return true;
}

/* Is signo from pid at ns the first one delivered again?  Waits for the
 * first's handler to publish: it runs on another thread (both signals are
 * blocked while a handler runs, so not under this one), a few stores from
 * done. */
static bool first_repeated(int signo, int pid, long ns)
{
	while (!atomic_load_explicit(&first.ready, memory_order_acquire))	/* acquire: pid, ns */
		;
	return signo == atomic_load_explicit(&first.signo, memory_order_relaxed) && pid &&
	       pid == atomic_load_explicit(&first.pid, memory_order_relaxed) &&
	       ns - atomic_load_explicit(&first.ns, memory_order_relaxed) < SIGNAL_REPEAT_NS;
}

/* Async-signal-safe: lock-free atomics, clock_gettime(), _exit().  Any
 * thread may take it, two threads at once. */
static void on_signal(int signo, siginfo_t *si, void *uc)
{
	int pid = sender(si);
	long ns = now_ns();

	(void)uc;
	if (first_claim(signo, pid, ns))
		txp_run_interrupt(&stop, signo);
	else if (!first_repeated(signo, pid, ns))
		_exit(128 + signo);
}

const struct txp_run_stop *signals_catch(void)
{
	static const int caught[] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(&sa.sa_mask, caught[i]);
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

/* -- a driver that ends the program -------------------------------------- */

/* The signals a crash raises (abort() too), each handler's predecessor. */
static const struct {
	int signo;
	const char *name;
} crashes[] = {
	{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGILL, "SIGILL" },
	{ SIGFPE, "SIGFPE" }, { SIGABRT, "SIGABRT" },
};
#define NCRASHES (sizeof(crashes) / sizeof(crashes[0]))
static struct sigaction crash_old[NCRASHES];

/* Append s to the line at *at (room to end); async-signal-safe. */
static void line_add(char **at, const char *end, const char *s)
{
	size_t n = strlen(s);

	if (n > (size_t)(end - *at))
		n = (size_t)(end - *at);
	memcpy(*at, s, n);
	*at += n;
}

/* If the calling thread is inside a driver op: "txpath: the driver 'NAME'
 * WHAT in OP", and _exit(1).  Async-signal-safe. */
static void driver_ended(const char *what)
{
	const char *name, *op = txp_run_driver_plugin_op(&name);
	char line[256], *at = line;
	const char *end = line + sizeof(line) - 1;

	if (!op)
		return;
	line_add(&at, end, "txpath: the driver '");
	line_add(&at, end, name);
	line_add(&at, end, "' ");
	line_add(&at, end, what);
	line_add(&at, end, " in ");
	line_add(&at, end, op);
	*at++ = '\n';
	(void)!write(STDERR_FILENO, line, (size_t)(at - line));
	_exit(1);
}

/* A crash: the driver's, named, exit 1; else txpath's own, left to the
 * handler before this one (a core dump, a sanitizer's report). */
static void on_crash(int signo, siginfo_t *si, void *uc)
{
	char what[32] = "crashed (", *at = what + strlen(what);
	size_t i;

	(void)uc;
	for (i = 0; i < NCRASHES && crashes[i].signo != signo; i++)
		;
	if (i == NCRASHES)
		return;
	line_add(&at, what + sizeof(what) - 2, crashes[i].name);
	*at++ = ')';
	*at = '\0';
	/* The driver's doing: a fault, or a signal the process sent itself
	 * (abort()); not one sent from outside (kill -ABRT). */
	if (si->si_code > 0 || si->si_pid == getpid())
		driver_ended(what);
	sigaction(signo, &crash_old[i], NULL);
	/* A fault comes back when the handler returns; a signal sent (abort,
	 * raise) is sent again. */
	if (si->si_code <= 0)
		raise(signo);
}

/* exit() from within a driver op. */
static void on_exit_in_driver(void)
{
	driver_ended("called exit()");
}

void signals_catch_driver_ends(void)
{
	/* On the thread's alternate stack, which each thread gets as it
	 * enters a plugin's op (src/plugin/host.c): a stack overflow in the
	 * op is reported too. */
	struct sigaction sa = { .sa_sigaction = on_crash, .sa_flags = SA_SIGINFO | SA_ONSTACK };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NCRASHES; i++)
		sigaction(crashes[i].signo, &sa, &crash_old[i]);
	atexit(on_exit_in_driver);
}
