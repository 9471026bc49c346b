/*
 * visited.h - the states the bounded search has explored in full (check
 * build only): a branch point's trace (rt_branch.key_a/_b) with the
 * running context and the preemptions that were left to spend below it.
 * A state met again that they cover is skipped: its every future within
 * the bound was explored.
 */
#ifndef TXP_CHECK_VISITED_H
#define TXP_CHECK_VISITED_H

#include <stdbool.h>
#include <stdint.h>

/* This process's own table is one of n (workers, each with its own): it
 * takes a 1/n share of the memory the table may take.  Before any use. */
void visited_share(unsigned n);
/* The table is made in shared memory at its largest, for this process
 * and the workers it forks after: each adds to it and looks states up in
 * it, lock-free (visited.c says why their search keeps its guarantees).
 * 0, or -1 when it could not be mapped (no table then). */
int visited_share_table(void);
/* Empty the set; a process that shares a table leaves it (the others
 * keep it) and goes on with a table of its own. */
void visited_clear(void);
/* The trace was explored with cur running (-1: nobody) and `left`
 * preemptions to spend. */
void visited_add(uint64_t a, uint64_t b, int cur, unsigned left);
/* A look-up of (a, b) is coming: begin fetching its memory. */
void visited_prefetch(uint64_t a);
/* Was every future of the trace with cur running and `left` to spend
 * explored? */
bool visited_covers(uint64_t a, uint64_t b, int cur, unsigned left);
/* States held (in a shared table: by all); did the set reach its limit
 * (states then forgotten)? */
uint64_t visited_count(void);
bool visited_full(void);

#endif
