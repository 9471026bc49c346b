/*
 * fuzz.h - what the libFuzzer targets share: the entry point libFuzzer
 * calls, reading numbers off the front of the input, and a check that
 * aborts (so libFuzzer reports the input) when a property fails.
 */
#ifndef TXP_FUZZ_H
#define TXP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input, consumed from the front. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

/* The next n bytes as a big-endian number (0 once the input is used up). */
static inline uint64_t fuzz_take(struct fuzz_in *in, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

/* The rest of the input as a string (up to its first NUL), malloc'd. */
static inline char *fuzz_take_string(struct fuzz_in *in)
{
	char *s = malloc(in->n + 1);

	if (!s)
		abort();
	for (size_t i = 0; i < in->n; i++)
		s[i] = (char)in->p[i];
	s[in->n] = '\0';
	in->p += in->n;
	in->n = 0;
	return s;
}

/* A property of the code under test: report and abort if it fails. */
#define FUZZ_CHECK(cond)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__,     \
				__LINE__, #cond);                                     \
			abort();                                                      \
		}                                                                     \
	} while (0)

#endif
