/*
 * replay_pace.c - each frame's time in a replay (see replay_pace.h).
 * Offsets are worked out in doubles and bounded before they become
 * integers: a double past the integer's range does not convert.
 */
#include <stdio.h>

#include "replay_pace.h"

#define NS_PER_YEAR 31557600e9

/* Frame i's offset in a pass as paced, ns; bits: the bits of the frames
 * before it. */
static double frame_offset(const struct capture *c, size_t i, enum replay_pace pace, double rate,
			   uint64_t bits)
{
	uint64_t t = c->frame[i].ts_ns, t0 = c->frame[0].ts_ns;

	switch (pace) {
	case PACE_PPS: return (double)i * 1e9 / rate;
	case PACE_MBPS: return (double)bits * 1e3 / rate;
	case PACE_CAPTURE: return t > t0 ? (double)(t - t0) / rate : 0;
	default: return 0;
	}
}

/* A pass's length as paced, once the last frame's offset is known: at
 * the capture's timing the last frame's; else one more frame's time. */
static double pass_length(const struct capture *c, enum replay_pace pace, double rate,
			  double last, uint64_t bits)
{
	if (pace == PACE_PPS)
		return (double)c->n * 1e9 / rate;
	if (pace == PACE_MBPS)
		return (double)bits * 1e3 / rate;
	return last;
}

static int too_long(double ns, char *err, size_t errlen)
{
	snprintf(err, errlen, "at this pace the replay would last %.3g years, more than the %.0f "
		 "it may",
		 ns / NS_PER_YEAR, (double)REPLAY_MAX_NS / NS_PER_YEAR);
	return -1;
}

int replay_schedule(const struct capture *c, enum replay_pace pace, double rate, uint64_t loops,
		    uint64_t *at, uint64_t *pass_ns, char *err, size_t errlen)
{
	double last = 0, pass;
	uint64_t bits = 0;

	for (size_t i = 0; i < c->n; i++) {
		double off = frame_offset(c, i, pace, rate, bits);

		if (off > last)
			last = off;
		if (!(last <= (double)REPLAY_MAX_NS))
			return too_long(last, err, errlen);
		at[i] = (uint64_t)last;
		bits += (uint64_t)c->frame[i].len * 8;
	}
	pass = pass_length(c, pace, rate, last, bits);
	if (!(pass * (double)loops <= (double)REPLAY_MAX_NS))
		return too_long(pass * (double)loops, err, errlen);
	*pass_ns = (uint64_t)pass;
	return 0;
}
