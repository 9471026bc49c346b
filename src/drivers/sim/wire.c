/*
 * wire.c - per-flow bitmaps of the sequence numbers seen on the wire, and
 * the highest, so that a frame behind it is counted out of order.
 */
#include "wire.h"

#include <stdlib.h>
#include <string.h>

int txp__wire_init(struct txp_wire *w, unsigned nflows)
{
	memset(w, 0, sizeof(*w));
	w->flows = calloc(nflows ? nflows : 1, sizeof(*w->flows));
	if (!w->flows)
		return -1;
	w->nflows = nflows;
	return 0;
}

void txp__wire_fini(struct txp_wire *w)
{
	for (unsigned i = 0; i < w->nflows; i++)
		free(w->flows[i].seen);
	free(w->flows);
	w->flows = NULL;
}

struct txp_wire *txp_wire_create(unsigned nflows)
{
	struct txp_wire *w = malloc(sizeof(*w));

	if (w && txp__wire_init(w, nflows) != 0) {
		free(w);
		return NULL;
	}
	return w;
}

void txp_wire_destroy(struct txp_wire *w)
{
	if (!w)
		return;
	txp__wire_fini(w);
	free(w);
}

/* Grow a flow's bitmap to hold bit seq; false when out of memory. */
static int flow_reserve(struct wire_flow *f, uint64_t seq)
{
	uint64_t need = seq / 64 + 1, words;
	uint64_t *seen;

	if (need <= f->words)
		return 0;
	words = f->words ? f->words : 16;
	while (words < need)
		words *= 2;
	seen = realloc(f->seen, words * sizeof(*seen));
	if (!seen)
		return -1;
	memset(seen + f->words, 0, (words - f->words) * sizeof(*seen));
	f->seen = seen;
	f->words = words;
	return 0;
}

void txp_wire_record(struct txp_wire *w, uint32_t flow, uint64_t seq)
{
	struct wire_flow *f;
	uint64_t bit;

	txp_counter_add(&w->frames, 1);
	if (flow >= w->nflows || flow_reserve(&w->flows[flow], seq) != 0) {
		txp_counter_add(&w->alien, 1);
		return;
	}
	f = &w->flows[flow];
	bit = 1ull << (seq % 64);
	if (f->seen[seq / 64] & bit) {
		txp_counter_add(&w->duplicates, 1);
		return;
	}
	f->seen[seq / 64] |= bit;
	txp_counter_add(&w->unique, 1);
	if (seq + 1 > f->next) {
		f->next = seq + 1;
	} else if (!txp_counter_read(&w->reordered)) {
		/* Written once, before it is counted.  Release: pairs with the
		 * acquire in txp_wire_get_stats(), which reads it only then. */
		w->first = (struct txp_wire_reorder){ flow, f->next - 1, seq };
		atomic_store_explicit(&w->reordered, 1, memory_order_release);
	} else {
		txp_counter_add(&w->reordered, 1);
	}
}

void txp_wire_get_stats(const struct txp_wire *w, struct txp_wire_stats *st)
{
	/* Acquire: pairs with the release in txp_wire_record(). */
	uint64_t reordered = atomic_load_explicit(&((struct txp_wire *)w)->reordered,
						  memory_order_acquire);

	*st = (struct txp_wire_stats){
		.frames = txp_counter_read(&w->frames),
		.unique = txp_counter_read(&w->unique),
		.duplicates = txp_counter_read(&w->duplicates),
		.alien = txp_counter_read(&w->alien),
		.reordered = reordered,
		.first_reorder = reordered ? w->first : (struct txp_wire_reorder){ 0, 0, 0 },
	};
}

void txp_wire_stats_add(struct txp_wire_stats *sum, const struct txp_wire *w)
{
	struct txp_wire_stats ws;

	txp_wire_get_stats(w, &ws);
	sum->frames += ws.frames;
	sum->unique += ws.unique;
	sum->duplicates += ws.duplicates;
	sum->alien += ws.alien;
	if (ws.reordered && !sum->reordered)
		sum->first_reorder = ws.first_reorder;
	sum->reordered += ws.reordered;
}
