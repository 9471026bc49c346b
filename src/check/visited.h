/*
 * visited.h - the states the bounded search has explored in full (check
 * build only): a branch point's key (sched_branch.key_a/_b) with the most
 * preemptions that were left to spend below it.  A state met again with no
 * more left is skipped: its every future within the bound was explored.
 */
#ifndef TXP_CHECK_VISITED_H
#define TXP_CHECK_VISITED_H

#include <stdbool.h>
#include <stdint.h>

/* Empty the set. */
void visited_clear(void);
/* The state was explored with `left` preemptions to spend. */
void visited_add(uint64_t a, uint64_t b, unsigned left);
/* A look-up of (a, b) is coming: begin fetching its memory. */
void visited_prefetch(uint64_t a);
/* Was it explored with at least `left`? */
bool visited_covers(uint64_t a, uint64_t b, unsigned left);
/* States held; did the set reach its limit (states then forgotten)? */
uint64_t visited_count(void);
bool visited_full(void);

#endif
