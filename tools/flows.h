/*
 * flows.h - per-flow sequence accounting for `txpath recv`: received,
 * lost, duplicated and reordered, in memory bounded whatever arrives.
 *
 * Each flow keeps a sliding window of the last `window` sequence numbers
 * below its highest one (a bitmap), so loss, duplication and reordering
 * are exact for every frame that lands inside it.  txpath's senders
 * reorder a flow only within a bounded distance: LLTX lets a packet that
 * lost the driver's trylock go back to the qdisc while others are posted,
 * by at most about the ring (--ring, at most 2^20) plus what the producers
 * hold in flight (64 contexts x a burst of 256).  FLOWS_WINDOW (2^22) is
 * four times that; a flow's window costs FLOWS_WINDOW / 8 = 512 KiB.
 *
 * What falls outside is counted, never stored:
 *  - too old: at least a window below the highest number; a late frame
 *    or a duplicate, which cannot be told apart any more (the number was
 *    already counted lost when the window slid past it);
 *  - too far ahead: more than a window above the highest number.  Such
 *    a frame is held as the flow's candidate.  If a later far frame is
 *    within a window of it (and not the same number), the sender really
 *    jumped (it dropped a long run, or the receiver started late): the
 *    flow resynchronises there, both frames are counted normally and the
 *    numbers jumped over are lost.  A far frame that is not near the
 *    candidate replaces it, and the old one stays counted as too far
 *    ahead: a stray.  A new flow counts from 0: its first number must be
 *    below the window, or be confirmed so.
 *
 * The number of flows is bounded too (max_flows); frames of further flow
 * ids are counted as untracked.  So memory is at most about
 * max_flows x window / 8 bytes: flows_bytes() says what is allocated.
 *
 * Pure: no printing, no exit; single-threaded (one receiver owns it).
 */
#ifndef TXP_TOOL_FLOWS_H
#define TXP_TOOL_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#define FLOWS_WINDOW	(1u << 22)	/* sequence numbers per flow */
#define FLOWS_MAX	256u		/* flows; txpath sends one per producer, at most 62 */

/* What flows_record() made of a frame. */
enum flows_verdict {
	FLOWS_IN_ORDER,		/* first time, above every number before */
	FLOWS_REORDERED,	/* first time, below the highest number */
	FLOWS_DUPLICATE,	/* seen before, inside the window */
	FLOWS_TOO_OLD,		/* below the window */
	FLOWS_TOO_FAR,		/* above the window (held as a candidate) */
	FLOWS_RESYNCED,		/* confirmed a candidate: the flow jumped */
	FLOWS_UNTRACKED,	/* a flow over max_flows, or no memory for it */
};

/* One flow's counts, or (flows_sum) every flow's together. */
struct flow_stats {
	uint32_t id;		/* flows_sum: 0 */
	uint64_t received;	/* distinct numbers counted */
	uint64_t lost;		/* numbers below the highest never counted */
	uint64_t duplicated, reordered;
	uint64_t too_old, too_far;	/* outside the window */
	uint64_t last_seq;	/* highest number counted (flows_sum: 0) */
};

struct flows;

/* A tracker of at most max_flows flows, each with a window of `window`
 * sequence numbers (a power of two, at least 64); NULL if the arguments
 * are out of range or memory is short. */
struct flows *flows_new(uint32_t window, unsigned max_flows);
void flows_free(struct flows *fl);

/* Count the frame (flow id, seq). */
enum flows_verdict flows_record(struct flows *fl, uint32_t id, uint64_t seq);

/* Flows tracked; flows_get(i) for i below that gives them in id order. */
unsigned flows_count(const struct flows *fl);
void flows_get(const struct flows *fl, unsigned i, struct flow_stats *st);
void flows_sum(const struct flows *fl, struct flow_stats *st);
/* Frames of flows that could not be tracked. */
uint64_t flows_untracked(const struct flows *fl);
/* Bytes the tracker has allocated. */
size_t flows_bytes(const struct flows *fl);

#endif
