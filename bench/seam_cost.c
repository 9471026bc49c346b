/*
 * seam_cost.c - what a call of the public seam (txpath/sync.h, out of
 * line, as a plugin makes it) costs against the library's inline
 * operation (src/sync/sync.h), per operation, single-threaded.
 *
 * usage: seam_cost [ITERATIONS]   (default 50,000,000)
 */
#include <stdio.h>
#include <stdlib.h>

/* Private, on purpose: the library's inline operations are what the
 * public seam is measured against. */
#include "sync/sync.h"

static _Atomic uint32_t word;
static uint32_t plain;

static double per_op(uint64_t t0, uint64_t n)
{
	return (double)(txp_now_ns() - t0) / (double)n;
}

#define MEASURE(label_inline, stmt_inline, label_public, stmt_public) do {		\
		uint64_t t0 = txp_now_ns();						\
		double a, b;								\
		for (uint64_t i = 0; i < n; i++) { stmt_inline; }			\
		a = per_op(t0, n);							\
		t0 = txp_now_ns();							\
		for (uint64_t i = 0; i < n; i++) { stmt_public; }			\
		b = per_op(t0, n);							\
		printf("%-22s %6.2f ns   %-30s %6.2f ns   %+.2f ns\n",			\
		       label_inline, a, label_public, b, b - a);			\
	} while (0)

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 50000000ull;
	uint32_t sink = 0;

	MEASURE("txp_load_acquire", sink += txp_load_acquire(&word),
		"TXP_LOAD_ACQUIRE (public)", sink += TXP_LOAD_ACQUIRE(plain));
	MEASURE("txp_store_release", txp_store_release(&word, (uint32_t)i),
		"TXP_STORE_RELEASE (public)", TXP_STORE_RELEASE(plain, (uint32_t)i));
	MEASURE("txp_fetch_add", sink += txp_fetch_add(&word, 1u),
		"txp_atomic_fetch_add (public)",
		sink += (uint32_t)txp_atomic_fetch_add(&plain, 4, 1, TXP_ACQ_REL));
	MEASURE("txp_smp_mb", txp_smp_mb(), "txp_mb (public)", txp_mb());
	printf("(sink %u)\n", sink);
	return 0;
}
