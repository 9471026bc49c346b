/*
 * fiber.h - stacks to run the explorer's contexts on, one thread for all
 * (check build only).
 *
 * Handing control between threads costs a futex wake and a sleep each
 * time; between fibers of one thread it is a register swap.  The
 * explorer's contexts run one at a time anyway, so they are fibers.  The
 * sanitizers are told of every switch, or they would take one stack for
 * another.
 */
#ifndef TXP_CHECK_FIBER_H
#define TXP_CHECK_FIBER_H

#include <stddef.h>

/* The register swap: x86-64 proper (not x32), and not where a CET shadow
 * stack would refuse a return to another stack.  Elsewhere: ucontext. */
#if defined(__x86_64__) && !defined(__ILP32__) && !(defined(__CET__) && (__CET__ & 2))
#define FIBER_SWAP_X86_64 1
#else
#include <ucontext.h>
#endif

struct fiber {
#ifdef FIBER_SWAP_X86_64
	void *sp;		/* saved stack pointer, while switched out */
#else
	ucontext_t uc;
#endif
	void *stack;		/* NULL: the thread's own stack */
	size_t stack_size;
	void (*entry)(void);	/* to run when next switched to, from the start */
	void *tsan;		/* ThreadSanitizer's handle of it */
	void *asan_fake;	/* AddressSanitizer's fake stack, while switched out */
	const void *asan_bottom;	/* its stack as AddressSanitizer saw it */
	size_t asan_size;
};

/* Make the calling thread's own stack a fiber to switch from and back to. */
void fiber_init_thread(struct fiber *f);
/* Prepare f to run entry() from the start on a stack of its own
 * (allocated on first use, kept for the next run).  entry must never return: it
 * ends with fiber_switch(f, other, true).  Returns 0, or -1 (no memory). */
int fiber_prepare(struct fiber *f, void (*entry)(void));
/* Run `to` until somebody switches back to `from`.  done: `from` is
 * finished and will never be switched to again. */
void fiber_switch(struct fiber *from, struct fiber *to, int done);

#endif
