/*
 * fuzz_capture.c - `txpath replay`'s pure parts: any bytes as frames
 * (tools/capture.c: the flow, the rewrites) and as a capture's times and
 * a pace (tools/replay_pace.c: the schedule).  Properties: no crash or
 * undefined behaviour (UBSan: a double past an integer's range is
 * float-cast-overflow); a rewrite keeps the frame's length and, for a
 * whole Ethernet header, sets its MACs and leaves its flow the hash of
 * what it holds now; a schedule either
 * refuses with one terminated line or gives offsets that never go back,
 * none past REPLAY_MAX_NS, nor loops passes past it (in doubles, as
 * replay_schedule() adds them up).
 */
#include <string.h>

#include "fuzz.h"
#include "capture.h"
#include "replay_pace.h"

#define MAX_FRAMES 16

/* A rewrite of everything, from the input. */
static void rewrite_frame(struct fuzz_in *in)
{
	uint32_t len = (uint32_t)fuzz_take(in, 1);
	unsigned char *f = malloc(len ? len : 1);
	struct cap_frame fr = { .data = f, .len = len };
	struct capture c = { .frame = &fr, .n = 1 };
	struct cap_rewrite rw = { .src_mac = true, .dst_mac = true, .src_ip = true, .dst_ip = true,
				  .sip = (uint32_t)fuzz_take(in, 4), .dip = (uint32_t)fuzz_take(in, 4) };

	FUZZ_CHECK(f);
	memcpy(rw.smac, "\x02\0\0\0\0\x01", 6);
	memcpy(rw.dmac, "\x02\0\0\0\0\x02", 6);
	for (uint32_t i = 0; i < len; i++)
		f[i] = (unsigned char)fuzz_take(in, 1);
	capture_rewrite(&c, &rw);
	FUZZ_CHECK(fr.len == len);
	if (len >= 14) {	/* shorter: left as loaded, flow included */
		FUZZ_CHECK(!memcmp(f, rw.dmac, 6) && !memcmp(f + 6, rw.smac, 6));
		FUZZ_CHECK(fr.flow == capture_flow(f, len));
	}
	free(f);
}

/* A schedule of up to MAX_FRAMES frames at any times, any pace, any rate
 * (in bounds or not, but more than 0 as the options make it), any loops. */
static void schedule(struct fuzz_in *in)
{
	struct cap_frame f[MAX_FRAMES];
	struct capture c = { .frame = f, .n = 1 + fuzz_take(in, 1) % MAX_FRAMES };
	enum replay_pace pace = (enum replay_pace)(fuzz_take(in, 1) % 4);
	uint64_t rate_bits = fuzz_take(in, 8), loops = 1 + fuzz_take(in, 4), at[MAX_FRAMES], pass;
	double rate;
	char err[128];

	memcpy(&rate, &rate_bits, sizeof(rate));
	if (!(rate > 0) || rate > 1e300)	/* the options give more than 0 */
		rate = 1;
	for (size_t i = 0; i < c.n; i++)
		f[i] = (struct cap_frame){ .len = (uint32_t)fuzz_take(in, 2),
					   .ts_ns = fuzz_take(in, 8) };
	memset(err, 'x', sizeof(err));
	if (replay_schedule(&c, pace, rate, loops, at, &pass, err, sizeof(err)) != 0) {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) && !strchr(err, '\n'));
		return;
	}
	for (size_t i = 0; i < c.n; i++)
		FUZZ_CHECK(at[i] <= REPLAY_MAX_NS && (!i || at[i] >= at[i - 1]));
	FUZZ_CHECK((double)pass * (double)loops <= (double)REPLAY_MAX_NS);	/* as it checks */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };

	if (fuzz_take(&in, 1) & 1)
		rewrite_frame(&in);
	else
		schedule(&in);
	return 0;
}
