/*
 * dfs.h - the bounded search's tree (check build only; dfs.c).
 */
#ifndef TXP_CHECK_DFS_H
#define TXP_CHECK_DFS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "check/runtime/runtime.h"

/* The choices off the default that name a piece: more, finer pieces
 * (the first choices made, at the start of the default execution, hold
 * whole trees with every preemption left), but more schedules that every
 * part runs (those with fewer: a few hundred a round each part, for 2). */
#define DFS_PIECE_CHOICES 2

struct dfs {
	int8_t *path;		/* actions along the current path */
	uint32_t *tried;	/* per branch: actions tried (bit per action) */
	uint16_t *enabled;	/* per branch, to catch nondeterminism */
	/* With the reduction, per branch: the step each context tried there
	 * took (n TRACE_FP_UNKNOWN: not known). */
	struct trace_fp (*fp)[RT_MAX_CTX];
	unsigned len, cap;
	unsigned cut;		/* the last execution's first explored state */
	unsigned bound;		/* this round's */
	/* Pieces: the schedules whose first DFS_PIECE_CHOICES choices that
	 * are not the default are the same ones, contiguous in the search's
	 * order; a schedule with fewer is a piece alone.  off[0..noff): the
	 * current path's first such choices (their branches); root: the last
	 * prefix began a piece; top: that piece is one schedule, whose path
	 * the next pieces branch off.  Branches [0, partial) have a piece
	 * below them that another part of the search explores (dfs_skip(),
	 * dfs_unjudged()): never marked explored in full. */
	unsigned off[DFS_PIECE_CHOICES], noff, partial;
	bool root, top;
	/* The next execution runs whole (a part's lone schedule, whose
	 * tree every part must see alike, whatever its table says): per
	 * branch, the actions it found asleep are kept in sleep, not
	 * marked tried (dfs_piece_explored() asks). */
	bool whole;
	uint32_t *sleep;
	/* With the reduction, a branch explored in full in this part's walk
	 * but with a piece below it that another part explores (below
	 * partial): told to above(), if set, with its preemptions left (the
	 * part adds it once those pieces are explored), else forgotten. */
	void (*above)(const struct rt_branch *b, unsigned left, void *arg);
	void *above_arg;
	unsigned base;		/* the default execution's branches (its caller's) */
};

/* A round of the search at this bound, from the empty prefix. */
void dfs_round(struct dfs *d, unsigned bound);
/* The plan of the next execution: the path's first prefix choices, then
 * the default; with the reduction, traced and cut where d knows the state
 * explored (expect: with what it knows of the steps from the prefix). */
struct rt_plan dfs_plan(struct dfs *d, unsigned prefix, bool reduce, bool expect);
/* Record the last execution (forced: its prefix's length) into d; add to
 * *pruned if it was cut at an explored state, to *nasleep the choices it
 * found asleep.  -1: out of memory; -2: the same
 * choices led elsewhere (the execution did not repeat). */
int dfs_record(struct dfs *d, unsigned forced, bool reduce, uint64_t *pruned,
	       uint64_t *nasleep);
/* The next prefix (its length in *prefix_len) within bound; false when
 * this round is complete. */
bool dfs_next(struct dfs *d, unsigned bound, bool reduce, unsigned *prefix_len);
/* The piece the last prefix began (d->root, not d->top) is another's, or
 * (explored) explored in full already (dfs_piece_explored()): leave it,
 * as if its every schedule had run (another's: the branches above it are
 * never marked explored in full). */
void dfs_skip(struct dfs *d, unsigned prefix_len, bool explored);
/* The next execution is the lone schedule of a piece (d->top) another part
 * explores, run for the tree only, unjudged: none of its branches is marked
 * explored in full (their futures hold that schedule, whose verdict is
 * that part's), nor any above it. */
void dfs_unjudged(struct dfs *d);
/* With the reduction, the piece the prefix begins (d->root): is a state on
 * its path, down to its last branch, explored in full with as much left
 * to spend, or was one of its choices off the default asleep when the
 * lone schedule it branches off ran?  Then so is its every schedule
 * (what one run would have cut there, or not tried). */
bool dfs_piece_explored(const struct dfs *d, unsigned prefix_len);
void dfs_free(struct dfs *d);

#endif
