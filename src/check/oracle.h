/*
 * oracle.h - the explorer's own ground truth (check build only): every
 * packet of a scenario followed from its allocation to its free, and
 * every call of start_xmit watched for the queue's stopped flag rising
 * under it, to be compared with what the core counts; and every reset
 * by the watchdog judged against the explorer's own clock.
 */
#ifndef TXP_CHECK_ORACLE_H
#define TXP_CHECK_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/pkt.h"

/* Packets per scenario at most: producers x packets. */
#define ORACLE_PKTS (6 * 64)

/* A new scenario whose driver is ops, `packets` per producer: forget the
 * last one, keep its packets past their free (core.h's txp__pkt_keep),
 * and hear every drop (txp__drop_seen).  unannounced, if the driver has a
 * doorbell the oracle can read (the simulated NIC's,
 * txp_sim_unannounced()): the descriptors posted on a queue and not yet
 * announced to the NIC.  Returns the ops to create the device with (ops,
 * their start_xmit and tx_timeout watched). */
const struct txp_driver_ops *oracle_begin(const struct txp_driver_ops *ops, unsigned packets,
				 unsigned (*unannounced)(struct txp_dev *dev, unsigned queue));
/* The device exists: count its packets, watch its queue's stopped flag. */
void oracle_watch(struct txp_dev *dev);
/* Packet k of flow (a producer), zeroed: the oracle's own memory. */
struct txp_pkt *oracle_pkt(unsigned flow, unsigned k);
/* Packets 0..n-1 of flow from pool (the producer's own, its owner), all
 * at once, followed all the same: each goes home when freed, unless freed
 * again.  How many the pool gave. */
unsigned oracle_pkts_from(struct txp_pkt_pool *pool, unsigned flow, struct txp_pkt **pkts,
			  unsigned n);

struct oracle_verdict {
	const char *kind;	/* NULL: the packets are all accounted for */
	bool recheck;		/* frees the core did not count: run the same
				 * execution again, precise, to name them */
	char detail[400];
};

/* Match every free with the core's counts as it happens (slower). */
void oracle_precise(bool on);

/*
 * After the scenario was torn down (every packet freed or leaked), with
 * the wire's duplicate count: a packet freed twice while the contexts
 * ran ("double-completion"), held twice ("duplicated": on the wire twice,
 * or freed again at tear-down), never freed ("lost": nobody held it), or
 * freed with nothing counting it transmitted or dropped ("lost").
 */
void oracle_judge_packets(unsigned producers, unsigned packets, uint64_t wire_duplicates,
			  struct oracle_verdict *v);
/*
 * The watchdog (txpath check --watchdog; timer.c): the contexts start at
 * `start` on `clock` (ns); each queue awake then began any stop it is in
 * at `start` or later, one stopped already began it at 0 at the latest.
 * The driver's tx_timeout is watched from then on: called for a queue
 * stopped for no longer than timeo by that reckoning, it is a false
 * timeout.
 */
void oracle_watchdog_start(struct txp_dev *dev, uint64_t start, uint64_t timeo,
			   uint64_t (*clock)(void));
/* Did the last execution reset a queue that had not timed out?  If so,
 * which and why into detail ("false-timeout"). */
bool oracle_false_timeout(char *detail, size_t len);

/* Calls of start_xmit the oracle saw run on a queue another context
 * stopped (between the caller's check of "stopped" and the return). */
unsigned oracle_xmit_on_stopped(void);

/*
 * Drops justified: each drop is checked as it is counted against its
 * reason's precondition (dead-loop: the context holds the queue's xmit
 * lock, by the validator's record; qdisc-limit: the queue can hold its
 * limit; virtual-busy: a device without a qdisc; dev-down: the device is
 * down; tx-timeout: inside the driver's tx_timeout; interrupted and
 * no-queue: never, in a check).  The first that failed, into detail
 * ("unjustified-drop").
 */
bool oracle_unjustified_drop(char *detail, size_t len);
/*
 * The doorbell: a context that leaves the driver after a packet it gave
 * with xmit_more (none followed), or a packet given without it, must
 * leave nothing posted and unannounced.  The first that did, into detail
 * ("no-doorbell").  Only for a driver whose doorbell the oracle reads.
 */
bool oracle_no_doorbell(char *detail, size_t len);

#endif
