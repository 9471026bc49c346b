/*
 * dfs.c - the bounded search's tree (check build only): iterative context
 * bounding, a stateless depth-first search over the branch points of the
 * executions, allowing at most k preemptions (switching away from a
 * context that could have gone on, or flushing a store early), for k = 0,
 * 1, ... bound.  Each execution runs a prefix of the last one's choices
 * and the default beyond it; what it met is recorded, and the next prefix
 * ends at the deepest branch with an action left to try.  With the
 * reduction, each branch point is named by the execution's trace so far
 * (trace.h); a point whose trace was explored in full with at least as
 * many preemptions left and the same context running (or nobody), or with
 * one more left and any, is not explored again (visited.h).
 *
 * A round's schedules fall into pieces: those whose first choices that
 * are not the default (DFS_PIECE_CHOICES of them) are the same, and each
 * schedule with fewer alone.  Numbered in the search's order, they are the same whoever walks the tree, so parts of
 * the search (shards, workers: txp_explore_split) can each explore some
 * and skip the rest (dfs_skip(): no execution runs for a skipped piece).
 */
#include <stdlib.h>

#include "check/runtime/trace.h"
#include "check/search/dfs.h"
#include "check/search/visited.h"

static int dfs_reserve(struct dfs *d, unsigned n)
{
	if (n <= d->cap)
		return 0;
	while (d->cap < n)
		d->cap = d->cap ? d->cap * 2 : 1024;
	d->path = realloc(d->path, d->cap);
	d->tried = realloc(d->tried, d->cap * sizeof(*d->tried));
	d->enabled = realloc(d->enabled, d->cap * sizeof(*d->enabled));
	d->fp = realloc(d->fp, d->cap * sizeof(*d->fp));
	d->sleep = realloc(d->sleep, d->cap * sizeof(*d->sleep));
	return d->path && d->tried && d->enabled && d->fp && d->sleep ? 0 : -1;
}

static unsigned action_bit(int a)
{
	return a >= RT_FLUSH ? 1u << (a - RT_FLUSH + RT_MAX_CTX) : 1u << a;
}

/* A branch's actions, as bits of action_bit(). */
static uint32_t actions(const struct rt_branch *b)
{
	return b->enabled | (uint32_t)b->flushable << RT_MAX_CTX;
}

/* Is b's state one the table names?  Not in the midst of a run of
 * landings (b->flushing): there the next landing of the run is free, a
 * future its trace and cur do not tell. */
static bool kept(const struct rt_branch *b)
{
	return b->kind == RT_BR_RUN && b->flushing < 0;
}

/* What costs no preemption at b: going on, any context when the running
 * one cannot, the next landing of a run; at an arm store pick, any store
 * (the flush before it paid). */
static uint32_t free_actions(const struct rt_branch *b)
{
	if (b->kind == RT_BR_STORE)
		return actions(b);
	return (b->cur >= 0 ? action_bit(b->cur) : b->enabled) |
	       (b->flushing >= 0 ? action_bit(RT_FLUSH + b->flushing) : 0);
}

/* Was the state at b explored in full already, with as much left to spend? */
static bool explored(const struct rt_branch *b, unsigned bound)
{
	return kept(b) && b->preempt <= bound &&
	       visited_covers(b->key_a, b->key_b, b->key_cur, bound - b->preempt);
}

/* The plan's explored(): arg is the search. */
static bool plan_explored(const struct rt_branch *b, void *arg)
{
	return explored(b, ((const struct dfs *)arg)->bound);
}

static void plan_named(const struct rt_branch *b, void *arg)
{
	(void)arg;
	visited_prefetch(b->key_a);
}

/* The plan's expect(): at branch i of the prefix, the steps the contexts
 * tried there before took are what they would take from there again. */
static void plan_expect(unsigned i, void *arg)
{
	const struct dfs *d = arg;

	for (int c = 0; c < RT_MAX_CTX; c++)
		if ((d->tried[i] & action_bit(c)) && c != d->path[i])
			trace_expect(c, &d->fp[i][c]);
}

/* The footprints of the last execution's steps, from the branch the prefix
 * ended at (whose other tries are kept) to the cut. */
static void dfs_record_fp(struct dfs *d, const struct rt_branch *b, unsigned forced)
{
	for (unsigned i = forced ? forced - 1 : 0; i < d->cut; i++) {
		if (i >= forced)
			for (int c = 0; c < RT_MAX_CTX; c++)
				d->fp[i][c].n = TRACE_FP_UNKNOWN;
		if (b[i].chosen < RT_FLUSH)
			d->fp[i][b[i].chosen] = *rt_branch_fp(i);
	}
}

/* Record the branches of the last execution beyond the forced prefix; with
 * the reduction, from the first explored state on (the execution's cut),
 * nothing is left to try: the tail was the default, explored there too;
 * nor is what a branch found asleep (its step leads to a state explored). */
int dfs_record(struct dfs *d, unsigned forced, bool reduce, uint64_t *pruned, uint64_t *nasleep)
{
	unsigned n;
	const struct rt_branch *b = rt_branches(&n);

	if (dfs_reserve(d, n) != 0)
		return -1;
	d->cut = rt_cut();
	if (d->cut < n)
		(*pruned)++;
	for (unsigned i = 0; i < n; i++) {
		if (i < forced && d->enabled[i] != b[i].enabled)
			return -2;	/* the same choices led elsewhere */
		if (i >= forced) {
			uint32_t asleep = i < d->cut ? b[i].asleep & ~action_bit(b[i].chosen) : 0;

			d->sleep[i] = d->whole ? asleep : 0;
			if (d->whole)
				asleep = 0;
			d->tried[i] = i >= d->cut ? actions(&b[i]) : action_bit(b[i].chosen) | asleep;
			*nasleep += (unsigned)__builtin_popcount(asleep);
			d->enabled[i] = b[i].enabled;
		}
		d->path[i] = b[i].chosen;
	}
	if (reduce)
		dfs_record_fp(d, b, forced);
	d->len = n;
	return 0;
}

/* The path's choice at branch i is off the default, and so is none
 * deeper: which piece it is in. */
static void piece_choice(struct dfs *d, unsigned i)
{
	unsigned c = 0;

	while (c < d->noff && d->off[c] < i)
		c++;
	d->root = c < DFS_PIECE_CHOICES;
	if (!d->root)
		return;
	d->off[c] = i;
	d->noff = c + 1;
	d->top = d->noff < DFS_PIECE_CHOICES;
}

/* Deepest branch with an untried action within the bound: make it the
 * end of the next prefix.  False when the search is complete.  Actions
 * are tried in action_bit() order: runs by context id, then flushes. */
bool dfs_next(struct dfs *d, unsigned bound, bool reduce, unsigned *prefix_len)
{
	unsigned n;
	const struct rt_branch *b = rt_branches(&n);

	(void)n;
	for (unsigned i = d->len; i-- > 0;) {
		uint32_t left = actions(&b[i]) & ~d->tried[i];
		int bit, a;

		/* At the bound only what costs no preemption. */
		if (b[i].preempt >= bound)
			left &= free_actions(&b[i]);
		if (!left) {
			/* Below it all is explored: so is its state (past
			 * the cut, untraced, known already). */
			if (reduce && kept(&b[i]) && i < d->cut && i >= d->partial)
				visited_add(b[i].key_a, b[i].key_b, b[i].key_cur, bound - b[i].preempt);
			else if (reduce && kept(&b[i]) && i < d->cut && d->above)
				d->above(&b[i], bound - b[i].preempt, d->above_arg);
			continue;
		}
		bit = __builtin_ctz(left);
		a = bit < RT_MAX_CTX ? bit : RT_FLUSH + bit - RT_MAX_CTX;
		d->tried[i] |= 1u << bit;
		d->path[i] = (int8_t)a;
		*prefix_len = i + 1;
		piece_choice(d, i);
		if (d->partial > i + 1)
			d->partial = i + 1;
		return true;
	}
	return false;
}

struct rt_plan dfs_plan(struct dfs *d, unsigned prefix, bool reduce, bool expect)
{
	return (struct rt_plan){ .prefix = d->path, .nprefix = prefix, .trace = reduce,
				 .explored = reduce ? plan_explored : NULL, .named = plan_named,
				 .uncut = d->whole,
				 .expect = expect ? plan_expect : NULL, .explored_arg = d };
}

void dfs_round(struct dfs *d, unsigned bound)
{
	d->len = 0;
	d->bound = bound;
	d->noff = 0;
	d->partial = 0;
	d->root = d->top = true;
}

/* The branches below the prefix's last are the last execution's, the same
 * down to it: the next prefix is found among them, past nothing run. */
void dfs_skip(struct dfs *d, unsigned prefix_len, bool explored)
{
	d->len = prefix_len;
	if (!explored && d->partial < prefix_len)
		d->partial = prefix_len;
}

void dfs_unjudged(struct dfs *d)
{
	d->partial = UINT_MAX;	/* lowered as dfs_next() leaves its branches */
}

/* The last execution's branches down to the prefix's last are the next
 * one's (dfs_skip()), named by it; the sleep of those where the piece's
 * choices are, the lone schedules' they branch off (run whole). */
bool dfs_piece_explored(const struct dfs *d, unsigned prefix_len)
{
	unsigned n;
	const struct rt_branch *b = rt_branches(&n);

	for (unsigned c = 0; c < d->noff; c++)
		if (d->sleep[d->off[c]] & action_bit(d->path[d->off[c]]))
			return true;
	for (unsigned i = 0; i < prefix_len && i < n && i < d->cut; i++)
		if (explored(&b[i], d->bound))
			return true;
	return false;
}

void dfs_free(struct dfs *d)
{
	free(d->path);
	free(d->tried);
	free(d->enabled);
	free(d->fp);
	free(d->sleep);
	*d = (struct dfs){ 0 };
}
