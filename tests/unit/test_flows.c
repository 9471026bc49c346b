/*
 * test_flows.c - `txpath recv`'s accounting (tools/flows.c): exact loss,
 * duplication and reordering inside the window, what falls outside it
 * counted as such, memory bounded whatever numbers arrive; and its pcap
 * reading (tools/recv_count.c) on captures built in memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flows.h"
#include "recv_count.h"
#include "testutil.h"
#include "txpath/net.h"

#define W 64u	/* the smallest window: sliding is cheap to reach */

static struct flows *new_flows(uint32_t window, unsigned max_flows)
{
	struct flows *fl = flows_new(window, max_flows);

	assert_non_null(fl);
	return fl;
}

/* Record seq[0..n) on flow 7, expecting the verdicts want[0..n). */
static void feed(struct flows *fl, const uint64_t *seq, const enum flows_verdict *want,
		 size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(flows_record(fl, 7, seq[i]), want[i]);
}

/* The one flow's counts are want's, every one of them. */
static void assert_flow(const struct flows *fl, struct flow_stats want)
{
	struct flow_stats st;

	assert_int_equal(flows_count(fl), 1);
	flows_get(fl, 0, &st);
	assert_int_equal(st.id, want.id);
	assert_int_equal(st.received, want.received);
	assert_int_equal(st.lost, want.lost);
	assert_int_equal(st.duplicated, want.duplicated);
	assert_int_equal(st.reordered, want.reordered);
	assert_int_equal(st.too_old, want.too_old);
	assert_int_equal(st.too_far, want.too_far);
	assert_int_equal(st.last_seq, want.last_seq);
}

static void test_new_rejects_bad_sizes(void **state)
{
	(void)state;
	assert_null(flows_new(0, 4));
	assert_null(flows_new(32, 4));
	assert_null(flows_new(96, 4));
	assert_null(flows_new(64, 0));
}

/* Gaps, a duplicate, a late one: every count exact. */
static void test_exact_counts(void **state)
{
	static const uint64_t seq[] = { 0, 1, 3, 2, 2, 6, 1, 4 };
	static const enum flows_verdict want[] = {
		FLOWS_IN_ORDER, FLOWS_IN_ORDER, FLOWS_IN_ORDER, FLOWS_REORDERED,
		FLOWS_DUPLICATE, FLOWS_IN_ORDER, FLOWS_DUPLICATE, FLOWS_REORDERED,
	};
	struct flows *fl = new_flows(W, 4);

	(void)state;
	feed(fl, seq, want, 8);
	/* received 0 1 2 3 4 6, lost 5 */
	assert_flow(fl, (struct flow_stats){ .id = 7, .received = 6, .lost = 1, .duplicated = 2,
					     .reordered = 2, .last_seq = 6 });
	flows_free(fl);
}

/* The window's edge: a number a window below the highest is too old, one
 * less is still inside; a number missed as the window slid past stays
 * lost, and arriving late it counts as too old. */
static void test_window_slides(void **state)
{
	struct flows *fl = new_flows(W, 4);

	(void)state;
	for (uint64_t s = 0; s < 200; s++)
		if (s != 10)
			assert_int_equal(flows_record(fl, 7, s), FLOWS_IN_ORDER);
	assert_int_equal(flows_record(fl, 7, 199 - (W - 1)), FLOWS_DUPLICATE);
	assert_int_equal(flows_record(fl, 7, 199 - W), FLOWS_TOO_OLD);
	assert_int_equal(flows_record(fl, 7, 10), FLOWS_TOO_OLD);
	assert_flow(fl, (struct flow_stats){ .id = 7, .received = 199, .lost = 1, .duplicated = 1,
					     .too_old = 2, .last_seq = 199 });
	flows_free(fl);
}

/* Moving the top clears what leaves the window: a new number on a bit
 * an old one used is new, not a duplicate. */
static void test_slide_clears_old_bits(void **state)
{
	struct flows *fl = new_flows(W, 4);

	(void)state;
	for (uint64_t s = 0; s < W; s++)
		flows_record(fl, 7, s);
	assert_int_equal(flows_record(fl, 7, 100), FLOWS_IN_ORDER);	/* jump of 37 */
	assert_int_equal(flows_record(fl, 7, 70), FLOWS_REORDERED);	/* 6's bit */
	/* A jump of exactly the window still slides, and clears it all. */
	assert_int_equal(flows_record(fl, 7, 100 + W), FLOWS_IN_ORDER);
	assert_int_equal(flows_record(fl, 7, 101), FLOWS_REORDERED);
	assert_int_equal(flows_record(fl, 7, 100 + W), FLOWS_DUPLICATE);
	assert_flow(fl, (struct flow_stats){ .id = 7, .received = W + 4,
					     .lost = 100 + W + 1 - (W + 4), .duplicated = 1,
					     .reordered = 2, .last_seq = 100 + W });
	flows_free(fl);
}

/* Numbers a window apart and more: the farthest jump that still slides
 * is exactly the window; one more is held. */
static void test_too_far_ahead_is_held(void **state)
{
	static const uint64_t seq[] = { 0, W, 2 * W + 1, 3, 2 * W + 1 };
	static const enum flows_verdict want[] = {
		FLOWS_IN_ORDER, FLOWS_IN_ORDER, FLOWS_TOO_FAR, FLOWS_REORDERED, FLOWS_TOO_FAR,
	};
	struct flows *fl = new_flows(W, 4);

	(void)state;
	feed(fl, seq, want, 5);
	/* The same number twice confirms nothing: both count as too far. */
	assert_flow(fl, (struct flow_stats){ .id = 7, .received = 3, .lost = W + 1 - 3,
					     .reordered = 1, .too_far = 2, .last_seq = W });
	flows_free(fl);
}

/* A sender that really jumped (a long run dropped): the second frame
 * near the first resynchronises, and the jump is counted lost, exactly;
 * frames reordered across the jump still count. */
static void test_resync_after_a_jump(void **state)
{
	static const uint64_t seq[] = { 0, 1, 2, 1000001, 1000000, 3, 1000002 };
	static const enum flows_verdict want[] = {
		FLOWS_IN_ORDER, FLOWS_IN_ORDER, FLOWS_IN_ORDER, FLOWS_TOO_FAR, FLOWS_RESYNCED,
		FLOWS_TOO_OLD, FLOWS_IN_ORDER,
	};
	struct flows *fl = new_flows(W, 4);

	(void)state;
	feed(fl, seq, want, 7);
	/* Reordered: 1000000 after 1000001. */
	assert_flow(fl, (struct flow_stats){ .id = 7, .received = 6, .lost = 1000003 - 6,
					     .reordered = 1, .too_old = 1, .last_seq = 1000002 });
	flows_free(fl);
}

/* A receiver that starts late: a flow's first number far from 0 needs a
 * second near it; everything before counts as lost, as it would have. */
static void test_late_start(void **state)
{
	static const uint64_t seq[] = { 5000, 5001, 5002 };
	static const enum flows_verdict want[] = {
		FLOWS_TOO_FAR, FLOWS_RESYNCED, FLOWS_IN_ORDER,
	};
	struct flows *fl = new_flows(W, 4);

	(void)state;
	feed(fl, seq, want, 3);
	assert_flow(fl, (struct flow_stats){ .id = 7, .received = 3, .lost = 5000,
					     .last_seq = 5002 });
	flows_free(fl);
}

/* A stray far frame in the middle of a flow: counted as too far ahead,
 * and the flow goes on as if it never came. */
static void test_stray_changes_nothing_else(void **state)
{
	struct flows *fl = new_flows(W, 4);

	(void)state;
	for (uint64_t s = 0; s < 1000; s++) {
		if (s == 500)
			assert_int_equal(flows_record(fl, 7, UINT64_C(1) << 34), FLOWS_TOO_FAR);
		assert_int_equal(flows_record(fl, 7, s), FLOWS_IN_ORDER);
	}
	assert_flow(fl, (struct flow_stats){ .id = 7, .received = 1000, .too_far = 1,
					     .last_seq = 999 });
	flows_free(fl);
}

/* Bug 3: seq 0 then 2^34 took a bitmap up to 2^34 (2 GiB, 4.2 GB of
 * process).  The tracker's allocation is the same after the second frame
 * as after the first: one window of the default size. */
static void test_huge_seq_bounded_memory(void **state)
{
	struct flows *fl = new_flows(FLOWS_WINDOW, FLOWS_MAX);
	size_t empty = flows_bytes(fl), one;

	(void)state;
	assert_int_equal(flows_record(fl, 0, 0), FLOWS_IN_ORDER);
	one = flows_bytes(fl);
	assert_int_equal(one - empty, FLOWS_WINDOW / 8);
	assert_int_equal(flows_record(fl, 0, UINT64_C(1) << 34), FLOWS_TOO_FAR);
	assert_int_equal(flows_record(fl, 0, (UINT64_C(1) << 34) + 1), FLOWS_RESYNCED);
	assert_int_equal(flows_record(fl, 0, UINT64_MAX), FLOWS_TOO_FAR);
	assert_int_equal(flows_bytes(fl), one);
	assert_true(one < 2 * FLOWS_WINDOW / 8);
	flows_free(fl);
}

/* The top of the number space: no wrap in the window or in lost. */
static void test_top_of_number_space(void **state)
{
	struct flows *fl = new_flows(W, 4);

	(void)state;
	assert_int_equal(flows_record(fl, 7, UINT64_MAX), FLOWS_TOO_FAR);
	assert_int_equal(flows_record(fl, 7, UINT64_MAX - 1), FLOWS_RESYNCED);
	assert_int_equal(flows_record(fl, 7, UINT64_MAX), FLOWS_DUPLICATE);
	assert_flow(fl, (struct flow_stats){ .id = 7, .received = 2, .lost = UINT64_MAX - 1,
					     .duplicated = 1, .reordered = 1,
					     .last_seq = UINT64_MAX });
	flows_free(fl);
}

/* A flood of flow ids: at most max_flows are tracked (in id order), the
 * rest counted, and memory stops growing at the cap. */
static void test_flow_cap(void **state)
{
	struct flows *fl = new_flows(W, 4);
	struct flow_stats st;
	size_t full;

	(void)state;
	for (uint32_t id = 9; id >= 6; id--)
		assert_int_equal(flows_record(fl, id, 0), FLOWS_IN_ORDER);
	full = flows_bytes(fl);
	for (uint32_t id = 100; id < 100000; id++)
		assert_int_equal(flows_record(fl, id, 0), FLOWS_UNTRACKED);
	assert_int_equal(flows_record(fl, 8, 1), FLOWS_IN_ORDER);
	assert_int_equal(flows_count(fl), 4);
	assert_int_equal(flows_untracked(fl), 100000 - 100);
	assert_int_equal(flows_bytes(fl), full);
	for (unsigned i = 0; i < 4; i++) {
		flows_get(fl, i, &st);
		assert_int_equal(st.id, 6 + i);
		assert_int_equal(st.received, st.id == 8 ? 2 : 1);
	}
	flows_sum(fl, &st);
	assert_int_equal(st.received, 5);
	flows_free(fl);
}

/* How far a number is out of place: small steps, as LLTX makes them. */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005u + 1442695040888963407u;
	return *x >> 33;
}

/*
 * Against a plain unbounded count: a long flow reordered within less than
 * a window, with numbers dropped and duplicated, gives the same received,
 * lost, duplicated and reordered as a bitmap of every number would.
 */
static void test_matches_unbounded_count(void **state)
{
	enum { N = 100000, WIN = 1024 };
	uint64_t *order = malloc(N * 2 * sizeof(*order)), x = 42, max = 0;
	unsigned char *seen = calloc(N, 1);
	struct flows *fl = new_flows(WIN, 4);
	struct flow_stats want = { 0 };
	size_t n = 0;
	bool any = false;

	(void)state;
	assert_non_null(order);
	assert_non_null(seen);
	/* In order with some dropped and some twice, then shuffled inside
	 * blocks of WIN / 2 frames: nothing moves by a window. */
	for (uint64_t s = 0; s < N; s++) {
		if (lcg(&x) % 50 == 0)
			continue;
		order[n++] = s;
		if (lcg(&x) % 100 == 0)
			order[n++] = s;
	}
	for (size_t b = 0; b + WIN / 2 <= n; b += WIN / 2)
		for (unsigned k = 0; k < 16; k++) {
			size_t i = b + lcg(&x) % (WIN / 2), j = b + lcg(&x) % (WIN / 2);
			uint64_t t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
	for (size_t i = 0; i < n; i++) {
		uint64_t s = order[i];

		flows_record(fl, 7, s);
		if (seen[s]++) {
			want.duplicated++;
			continue;
		}
		want.received++;
		if (any && s < max)
			want.reordered++;
		if (!any || s > max)
			max = s;
		any = true;
	}
	want.id = 7;
	want.lost = max + 1 - want.received;
	want.last_seq = max;
	assert_true(want.lost > 0 && want.duplicated > 0 && want.reordered > 0);
	assert_flow(fl, want);
	flows_free(fl);
	free(seen);
	free(order);
}

/* -- pcap captures in memory --------------------------------------------- */

struct capture {
	unsigned char *buf;
	size_t len;
};

static void put(struct capture *c, const void *p, size_t n)
{
	c->buf = realloc(c->buf, c->len + n);
	assert_non_null(c->buf);
	memcpy(c->buf + c->len, p, n);
	c->len += n;
}

/* A pcap file header: native byte order, microseconds, Ethernet. */
static void cap_begin(struct capture *c)
{
	const uint32_t magic = 0xa1b2c3d4, snaplen = 65535, linktype = 1, zero = 0;
	const uint16_t major = 2, minor = 4;

	memset(c, 0, sizeof(*c));
	put(c, &magic, 4);
	put(c, &major, 2);
	put(c, &minor, 2);
	put(c, &zero, 4);
	put(c, &zero, 4);
	put(c, &snaplen, 4);
	put(c, &linktype, 4);
}

/* A record of caplen bytes of frame, which was len long on the wire. */
static void cap_frame(struct capture *c, const unsigned char *frame, uint32_t caplen,
		      uint32_t len)
{
	const uint32_t hdr[4] = { 0, 0, caplen, len };

	put(c, hdr, sizeof(hdr));
	put(c, frame, caplen);
}

static void cap_txp(struct capture *c, uint32_t flow, uint64_t seq)
{
	struct txp_frame_addr a = { 0 };
	unsigned char f[64];

	txp_frame_addr_resolve(&a, NULL);
	txp_frame_build(f, sizeof(f), &a, flow, seq);
	cap_frame(c, f, sizeof(f), sizeof(f));
}

static struct recv_count count_capture(const struct capture *c, int want_rc)
{
	struct recv_count rc = { .flows = new_flows(FLOWS_WINDOW, FLOWS_MAX) };
	char err[256] = "";

	assert_int_equal(recv_count_pcap_buffer(&rc, c->buf, c->len, err, sizeof(err)), want_rc);
	assert_true(want_rc == 0 ? err[0] == '\0' : strstr(err, "buffer: ") == err);
	return rc;
}

/* Ours, someone else's, damaged, truncated: each counted where it
 * belongs; the two flows' numbers as sent. */
static void test_pcap_buffer_classifies(void **state)
{
	struct txp_frame_addr a = { 0 };
	unsigned char f[64], arp[60] = { [12] = 0x08, [13] = 0x06 };
	struct capture c;
	struct recv_count rc;
	struct flow_stats st;

	(void)state;
	cap_begin(&c);
	cap_txp(&c, 1, 0);
	cap_txp(&c, 2, 0);
	cap_txp(&c, 1, 1);
	cap_frame(&c, arp, sizeof(arp), sizeof(arp));
	txp_frame_addr_resolve(&a, NULL);
	txp_frame_build(f, sizeof(f), &a, 1, 2);
	f[63] ^= 1;				/* the pattern, damaged */
	cap_frame(&c, f, sizeof(f), sizeof(f));
	txp_frame_build(f, sizeof(f), &a, 1, 3);
	cap_frame(&c, f, 60, sizeof(f));	/* truncated */
	cap_txp(&c, 1, 1);
	rc = count_capture(&c, 0);
	assert_int_equal(rc.frames, 7);
	assert_int_equal(rc.alien, 1);
	assert_int_equal(rc.bad, 2);
	assert_int_equal(recv_count_ours(&rc), 4);
	assert_int_equal(flows_count(rc.flows), 2);
	flows_get(rc.flows, 0, &st);
	assert_int_equal(st.id, 1);
	assert_int_equal(st.received, 2);
	assert_int_equal(st.duplicated, 1);
	flows_sum(rc.flows, &st);
	assert_int_equal(st.received, 3);
	assert_int_equal(st.lost, 0);
	flows_free(rc.flows);
	free(c.buf);
}

/* Bug 3 through the pcap path: seq 0 then 2^34, in bounded memory. */
static void test_pcap_buffer_huge_seq(void **state)
{
	struct capture c;
	struct recv_count rc;
	struct flow_stats st;

	(void)state;
	cap_begin(&c);
	cap_txp(&c, 0, 0);
	cap_txp(&c, 0, UINT64_C(1) << 34);
	rc = count_capture(&c, 0);
	flows_sum(rc.flows, &st);
	assert_int_equal(st.received, 1);
	assert_int_equal(st.too_far, 1);
	assert_int_equal(st.lost, 0);
	assert_true(flows_bytes(rc.flows) < 2 * FLOWS_WINDOW / 8);
	flows_free(rc.flows);
	free(c.buf);
}

/* Not a capture, an empty one, a cut one, a missing file: -1 and why. */
static void test_pcap_errors(void **state)
{
	struct capture c = { 0 };
	struct recv_count rc;
	char err[256] = "";

	(void)state;
	put(&c, "not a pcap file at all", 22);
	rc = count_capture(&c, -1);
	flows_free(rc.flows);
	c.len = 0;
	rc = count_capture(&c, -1);
	flows_free(rc.flows);
	free(c.buf);

	cap_begin(&c);
	cap_txp(&c, 0, 0);
	cap_txp(&c, 0, 1);
	c.len -= 10;				/* the last record cut short */
	rc = count_capture(&c, -1);
	assert_int_equal(rc.frames, 1);
	flows_free(rc.flows);
	free(c.buf);

	rc.flows = new_flows(W, 1);
	assert_int_equal(recv_count_pcap_file(&rc, "/nonexistent/x.pcap", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/x.pcap"));
	flows_free(rc.flows);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_rejects_bad_sizes),
		cmocka_unit_test(test_exact_counts),
		cmocka_unit_test(test_window_slides),
		cmocka_unit_test(test_slide_clears_old_bits),
		cmocka_unit_test(test_too_far_ahead_is_held),
		cmocka_unit_test(test_resync_after_a_jump),
		cmocka_unit_test(test_late_start),
		cmocka_unit_test(test_stray_changes_nothing_else),
		cmocka_unit_test(test_huge_seq_bounded_memory),
		cmocka_unit_test(test_top_of_number_space),
		cmocka_unit_test(test_flow_cap),
		cmocka_unit_test(test_matches_unbounded_count),
		cmocka_unit_test(test_pcap_buffer_classifies),
		cmocka_unit_test(test_pcap_buffer_huge_seq),
		cmocka_unit_test(test_pcap_errors),
	};

	return txp_test_main(argc, argv, tests);
}
