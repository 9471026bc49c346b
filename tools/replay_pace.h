/*
 * replay_pace.h - when `txpath replay` sends each frame of a capture: the
 * pace asked for (the capture's own timing, frames or megabits per
 * second, or none) turned into each frame's offset from the start of a
 * pass, in integer nanoseconds that never overflow.
 */
#ifndef TXP_TOOL_REPLAY_PACE_H
#define TXP_TOOL_REPLAY_PACE_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"

enum replay_pace { PACE_CAPTURE, PACE_PPS, PACE_MBPS, PACE_TOP };

/* The bounds of --pps, --mbps and --multiplier. */
#define REPLAY_RATE_MIN 0.001
#define REPLAY_RATE_MAX 1e9
/* The longest replay the schedule takes, all its passes: 100 years. */
#define REPLAY_MAX_NS 3155760000000000000ull

/*
 * Frame i of c goes at[i] ns after the start of its pass (at: c->n
 * slots), never before frame i - 1 (a frame captured earlier than the one
 * before it follows it at once); a pass lasts *pass_ns.  pace PACE_CAPTURE
 * is the capture's timing divided by rate (the multiplier), PACE_PPS rate
 * frames a second, PACE_MBPS rate megabits a second (each frame after
 * the bits before it), PACE_TOP all at 0.  rate in [REPLAY_RATE_MIN,
 * REPLAY_RATE_MAX] but for PACE_TOP.  Returns 0, or -1 and one line in
 * err when loops passes would last more than REPLAY_MAX_NS.
 */
int replay_schedule(const struct capture *c, enum replay_pace pace, double rate, uint64_t loops,
		    uint64_t *at, uint64_t *pass_ns, char *err, size_t errlen);

#endif
