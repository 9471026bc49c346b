/*
 * signal_repeat.h - one request delivered twice.  timeout(1) sends its
 * signal to the command, then again to the command's process group, which
 * holds the command: the same signal from the same process, microseconds
 * apart.  Taken for a second signal, it would end the process before its
 * report.  A repeat within SIGNAL_REPEAT_NS is the first one again; a
 * person's second ^C, or a script's second kill, comes later than that.
 * All async-signal-safe.
 */
#ifndef TXP_TOOL_SIGNAL_REPEAT_H
#define TXP_TOOL_SIGNAL_REPEAT_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>

#define SIGNAL_REPEAT_NS 50000000L	/* 50 ms */

/* The first signal: its number, its sender (0: not a process, as the
 * terminal's ^C), when it came. */
struct signal_first {
	volatile sig_atomic_t signo, pid;
	volatile long ns;
};

static inline long signal_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static inline sig_atomic_t signal_sender(const siginfo_t *si)
{
	return si->si_code == SI_USER ? (sig_atomic_t)si->si_pid : 0;
}

/* Note the first signal. */
static inline void signal_first_note(struct signal_first *f, int signo, const siginfo_t *si)
{
	f->pid = signal_sender(si);
	f->ns = signal_now_ns();
	f->signo = signo;
}

/* Is signo, from si, the first one delivered again? */
static inline bool signal_is_repeat(const struct signal_first *f, int signo, const siginfo_t *si)
{
	sig_atomic_t pid = signal_sender(si);

	return signo == f->signo && pid && pid == f->pid && signal_now_ns() - f->ns < SIGNAL_REPEAT_NS;
}

#endif
