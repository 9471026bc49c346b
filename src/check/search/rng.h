/*
 * rng.h - the search's one random generator (check build only): xorshift64
 * for the draws, and splitmix64 to derive a draw's seed from a sequence of
 * runs, as xorshift's authors advise seeding it.
 */
#ifndef TXP_CHECK_RNG_H
#define TXP_CHECK_RNG_H

#include <stdint.h>

/* The next draw of the state at s; a zero state starts at a fixed one. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* The next of the sequence at s: a seed for rng_next, or a draw of its own. */
static inline uint64_t rng_split(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
