/*
 * fuzz_flows.c - the per-flow accounting of `txpath recv` (tools/flows.c)
 * on any sequence of (flow id, sequence number) frames, in a small window
 * so the fuzzer reaches its edges.  Properties: every frame is counted
 * once (received + duplicated + too old + too far + untracked = frames);
 * a flow's received numbers are distinct and none above its highest; the
 * flows come in id order; memory stays at most a window per flow over the cap on flows; and
 * while every number stays below the window (nothing can fall out of
 * it), the counts are exact against a reference: received the distinct
 * numbers, duplicated the rest, lost the numbers below the highest never
 * seen, reordered the first arrivals below the highest so far.
 *
 * Input: a byte of mode (bit 0: numbers of 8 bytes, anywhere, instead of
 * a byte below the window), then frames: a byte of flow id, the number.
 */
#include <stdbool.h>
#include <string.h>

#include "flows.h"
#include "fuzz.h"

#define WINDOW 64u
#define MAX_FLOWS 4u
#define IDS 8u	/* flow ids drawn: more than MAX_FLOWS, so some are untracked */

/* The reference, for numbers below WINDOW. */
struct ref_flow {
	bool seen[WINDOW];
	bool any;
	uint64_t max, frames, distinct, reordered;
};

static void ref_record(struct ref_flow *r, uint64_t seq)
{
	r->frames++;
	if (r->seen[seq])
		return;
	r->seen[seq] = true;
	r->distinct++;
	if (r->any && seq < r->max)
		r->reordered++;
	if (!r->any || seq > r->max)
		r->max = seq;
	r->any = true;
}

static void check_flow(const struct flow_stats *st, const struct ref_flow *r)
{
	FUZZ_CHECK(st->received == r->distinct);
	FUZZ_CHECK(st->duplicated == r->frames - r->distinct);
	FUZZ_CHECK(st->reordered == r->reordered);
	FUZZ_CHECK(st->last_seq == r->max);
	FUZZ_CHECK(st->lost == r->max + 1 - r->distinct);
	FUZZ_CHECK(st->too_old == 0 && st->too_far == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	bool wide = fuzz_take(&in, 1) & 1;
	struct flows *fl = flows_new(WINDOW, MAX_FLOWS);
	size_t bytes0 = flows_bytes(fl);
	struct ref_flow ref[IDS];
	uint64_t frames = 0;
	uint32_t ref_id_prev = 0;
	struct flow_stats sum;

	FUZZ_CHECK(fl);
	memset(ref, 0, sizeof(ref));
	while (in.n) {
		uint32_t id = (uint32_t)fuzz_take(&in, 1) % IDS;
		uint64_t seq = wide ? fuzz_take(&in, 8) : fuzz_take(&in, 1) % WINDOW;

		flows_record(fl, id, seq);
		frames++;
		if (!wide)
			ref_record(&ref[id], seq);
	}
	flows_sum(fl, &sum);
	FUZZ_CHECK(sum.received + sum.duplicated + sum.too_old + sum.too_far + flows_untracked(fl) ==
		   frames);
	FUZZ_CHECK(flows_count(fl) <= MAX_FLOWS);
	FUZZ_CHECK(flows_bytes(fl) <= bytes0 + MAX_FLOWS * WINDOW / 8);
	for (unsigned i = 0; i < flows_count(fl); i++) {
		struct flow_stats st;

		flows_get(fl, i, &st);
		FUZZ_CHECK(st.id < IDS && (!i || st.id > ref_id_prev));
		/* Distinct numbers, none above the highest. */
		FUZZ_CHECK(!st.received || st.received - 1 <= st.last_seq);
		FUZZ_CHECK(st.reordered <= st.received);
		if (!wide)
			check_flow(&st, &ref[st.id]);
		ref_id_prev = st.id;
	}
	flows_free(fl);
	return 0;
}
