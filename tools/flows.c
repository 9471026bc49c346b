/*
 * flows.c - per-flow sequence accounting in a sliding window (flows.h).
 *
 * A flow's window is a bitmap of `window` bits, number s at bit
 * s % window, holding the numbers (max - window, max]: max is the
 * highest number counted.  Moving max up clears the bits of the numbers
 * it passes, which are the ones leaving the window.  Lost is computed,
 * not tracked: every counted number is distinct and at most max, so
 * max + 1 - received of them never arrived (or arrived too late).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "flows.h"

struct flow {
	struct flow_stats st;	/* st.last_seq is max */
	uint64_t *bits;		/* window / 64 words */
	uint64_t candidate;	/* a too-far frame, waiting for a second */
	bool any;		/* a number was counted: max is valid */
	bool has_candidate;
};

struct flows {
	struct flow *flow;	/* n of max, sorted by id */
	unsigned n, max;
	uint64_t window;
	uint64_t untracked;
	size_t bytes;
};

struct flows *flows_new(uint32_t window, unsigned max_flows)
{
	struct flows *fl;

	if (window < 64 || (window & (window - 1)) || max_flows == 0)
		return NULL;
	fl = calloc(1, sizeof(*fl));
	if (!fl)
		return NULL;
	fl->flow = calloc(max_flows, sizeof(*fl->flow));
	if (!fl->flow) {
		free(fl);
		return NULL;
	}
	fl->max = max_flows;
	fl->window = window;
	fl->bytes = sizeof(*fl) + (size_t)max_flows * sizeof(*fl->flow);
	return fl;
}

void flows_free(struct flows *fl)
{
	if (!fl)
		return;
	for (unsigned i = 0; i < fl->n; i++)
		free(fl->flow[i].bits);
	free(fl->flow);
	free(fl);
}

/* Where id is, or would be inserted, in the sorted array. */
static unsigned flow_index(const struct flows *fl, uint32_t id)
{
	unsigned lo = 0, hi = fl->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (fl->flow[mid].st.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The flow of id, made if new; NULL over the cap or out of memory. */
static struct flow *flow_get(struct flows *fl, uint32_t id)
{
	unsigned i = flow_index(fl, id);
	uint64_t *bits;

	if (i < fl->n && fl->flow[i].st.id == id)
		return &fl->flow[i];
	if (fl->n == fl->max)
		return NULL;
	bits = calloc(fl->window / 64, sizeof(*bits));
	if (!bits)
		return NULL;
	memmove(&fl->flow[i + 1], &fl->flow[i], (fl->n - i) * sizeof(*fl->flow));
	memset(&fl->flow[i], 0, sizeof(*fl->flow));
	fl->flow[i].st.id = id;
	fl->flow[i].bits = bits;
	fl->n++;
	fl->bytes += fl->window / 8;
	return &fl->flow[i];
}

/* Clear the bits of the numbers from..to (to - from < window). */
static void bits_clear(const struct flows *fl, uint64_t *bits, uint64_t from, uint64_t to)
{
	for (uint64_t s = from; s <= to;) {
		uint64_t pos = s & (fl->window - 1), off = pos % 64;
		uint64_t n = 64 - off < to - s + 1 ? 64 - off : to - s + 1;
		uint64_t mask = n == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << n) - 1) << off;

		bits[pos / 64] &= ~mask;
		s += n;
		if (s == 0)
			break;	/* to was UINT64_MAX */
	}
}

/* Make seq (above max, or the flow's first) the highest number. */
static void flow_advance(const struct flows *fl, struct flow *f, uint64_t seq)
{
	if (f->any && seq - f->st.last_seq >= fl->window)
		memset(f->bits, 0, fl->window / 8);
	else if (f->any)
		bits_clear(fl, f->bits, f->st.last_seq + 1, seq);
	f->st.last_seq = seq;
	f->any = true;
}

static bool flow_far_ahead(const struct flows *fl, const struct flow *f, uint64_t seq)
{
	if (!f->any)
		return seq >= fl->window;
	return seq > f->st.last_seq && seq - f->st.last_seq > fl->window;
}

static bool near_candidate(const struct flows *fl, const struct flow *f, uint64_t seq)
{
	uint64_t d = seq > f->candidate ? seq - f->candidate : f->candidate - seq;

	/* The same number again is a copy of the candidate, no confirmation. */
	return f->has_candidate && d > 0 && d < fl->window;
}

/* A number not held as too far ahead: too old, inside the window, or
 * above it (the window moves up to it). */
static enum flows_verdict flow_count(const struct flows *fl, struct flow *f, uint64_t seq)
{
	uint64_t bit, *word;
	bool below = f->any && seq <= f->st.last_seq;

	if (below && f->st.last_seq - seq >= fl->window) {
		f->st.too_old++;
		return FLOWS_TOO_OLD;
	}
	word = &f->bits[(seq & (fl->window - 1)) / 64];
	bit = UINT64_C(1) << (seq % 64);
	if (below && (*word & bit)) {
		f->st.duplicated++;
		return FLOWS_DUPLICATE;
	}
	if (!below)
		flow_advance(fl, f, seq);
	*word |= bit;
	f->st.received++;
	if (below)
		f->st.reordered++;
	return below ? FLOWS_REORDERED : FLOWS_IN_ORDER;
}

enum flows_verdict flows_record(struct flows *fl, uint32_t id, uint64_t seq)
{
	struct flow *f = flow_get(fl, id);

	if (!f) {
		fl->untracked++;
		return FLOWS_UNTRACKED;
	}
	if (!flow_far_ahead(fl, f, seq))
		return flow_count(fl, f, seq);
	if (!near_candidate(fl, f, seq)) {
		/* Hold it; a candidate it replaces stays counted as a stray. */
		f->candidate = seq;
		f->has_candidate = true;
		f->st.too_far++;
		return FLOWS_TOO_FAR;
	}
	/* Two far frames within a window of each other: the sender jumped.
	 * Both are counted after all, in the order they came. */
	f->has_candidate = false;
	f->st.too_far--;
	flow_count(fl, f, f->candidate);
	flow_count(fl, f, seq);
	return FLOWS_RESYNCED;
}

unsigned flows_count(const struct flows *fl)
{
	return fl->n;
}

void flows_get(const struct flows *fl, unsigned i, struct flow_stats *st)
{
	const struct flow *f = &fl->flow[i];

	*st = f->st;
	/* Every counted number is distinct and at most max. */
	st->lost = f->any ? f->st.last_seq - (f->st.received - 1) : 0;
}

void flows_sum(const struct flows *fl, struct flow_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (unsigned i = 0; i < fl->n; i++) {
		struct flow_stats st;

		flows_get(fl, i, &st);
		sum->received += st.received;
		sum->lost += st.lost;
		sum->duplicated += st.duplicated;
		sum->reordered += st.reordered;
		sum->too_old += st.too_old;
		sum->too_far += st.too_far;
	}
}

uint64_t flows_untracked(const struct flows *fl)
{
	return fl->untracked;
}

size_t flows_bytes(const struct flows *fl)
{
	return fl->bytes;
}
