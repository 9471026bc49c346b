/*
 * txpath/ctx.h - execution contexts, the user-space stand-in for CPUs.
 *
 * Every thread that calls into txpath is a context with a small id (what
 * smp_processor_id() is to the kernel).  Threads attach lazily on first
 * use; attach explicitly to learn the id or to fail cleanly when too many
 * threads use the library at once: a thread that did not, and finds all
 * TXP_MAX_CTX ids taken on its first call, waits in that call until one
 * is given back.  A thread detaches when it exits.  The library's own
 * threads (a device's completion contexts) have ids of their own, beyond
 * these: they never take one of yours.
 */
#ifndef TXPATH_CTX_H
#define TXPATH_CTX_H

#ifdef __cplusplus
extern "C" {
#endif

/* Threads of yours that may use the library at once. */
#define TXP_MAX_CTX 64

/* Register the calling thread; returns its id (the one it has, if it is
 * attached already), or -EBUSY if all ids are taken. */
int txp_ctx_attach(void);
/* Give the calling thread's id back (also done at thread exit). */
void txp_ctx_detach(void);

#ifdef __cplusplus
}
#endif

#endif
