/*
 * ring.h - what the real drivers share: a single-producer ring of transmit
 * slots per queue, its flow control, and its completion context.
 *
 * A device has one ring per transmit queue, each over its own driver state
 * (a socket, a file descriptor) and with its own completion context, as a
 * multi-queue NIC has a ring and an interrupt vector per queue.  Queue 0's
 * ring is the device's priv and holds the others (txp__ring_add_queue()).
 *
 * Every real transmit ring (a PACKET_TX_RING, an AF_XDP UMEM and TX ring,
 * the frames waiting for a TAP write or a pcap record) is single-producer:
 * one context at a time may post.  The ring below is that, as the tg3 of
 * 2005 and the drivers after it did it:
 *
 *  - start_xmit (txp__ring_start_xmit) posts one slot per packet: the driver
 *    sends exactly the packet's bytes (head, then fragments), and refuses
 *    a packet whose bytes do not add up to its len or that is larger than
 *    the device takes (max_len), dropped as driver.  Lock mode
 *    core: the core's xmit lock serialises it.  Lock mode LLTX: the ring
 *    takes its own tx_lock by trylock (TXP_TX_LOCKED on failure) and
 *    applies Miller's rule of 2.6.11 when it finds no room: queue already
 *    stopped, a quiet BUSY (the harmless LLTX race); queue awake, a real
 *    bug: stop, log it, BUSY.
 *  - A slot free but the device's own ring busy (the kernel has not yet
 *    published that it consumed an AF_XDP descriptor, or still holds a
 *    PACKET_TX_RING frame) is backpressure, not a bug: counted once as
 *    device busy, the queue stopped until the completion context's next
 *    pass (which pushes the device on), BUSY.
 *  - After posting, it reports the bytes to BQL and stops the queue when
 *    the next packet would not fit, by the stop helper
 *    (txp_netif_txq_maybe_stop: stop, barrier, recheck).
 *  - The completion context (one thread per queue, ring_completion_*)
 *    lets the driver push posted slots to the kernel and find which are
 *    done (ops->reap), retires them (each packet completed, or dropped with a reason),
 *    and reports them to BQL and wakes the queue once more than
 *    wake_thresh slots are free, by the wake helper
 *    (txp_netif_txq_completed_wake_unless).  In LLTX mode it does so under
 *    tx_lock (tg3); in core mode the helper's barrier pairs with the
 *    stop's, and the wake itself is tested again under the xmit lock (a
 *    stale wake of a ring refilled meanwhile would wake it full).
 *    A ring whose driver sets reap_in_xmit (afxdp) does the same in
 *    start_xmit at the end of each burst: the kick is the burst's
 *    doorbell, and the producer retires its own completions (BQL told;
 *    LLTX: a stopped queue woken under tx_lock; core: the queue is awake
 *    while start_xmit runs, nothing to wake).  One reaper at a time, by
 *    the ring's reaping bit; a start_xmit that finds it taken leaves the
 *    work to its holder.  Its completion context then only acts when the
 *    queue is stopped or the producers went quiet (no start_xmit took the
 *    reaping bit while it slept), and naps, doubling up to RING_IDLE_NAP_NS,
 *    while there is nothing for it.  A producer whose packets are all in
 *    flight busy-polls (txp__ring_busy_poll()): it reaps in its own
 *    context rather than wait for the napping one.
 *  - tx_timeout (txp__ring_tx_timeout): the watchdog found the queue
 *    stuck; what the device finished is reclaimed, what it never started
 *    on is taken back (ops->cancel) and dropped as tx-timeout, and the
 *    queue is woken.
 *  - It watches the device: when the interface loses carrier or goes
 *    down (or a driver finds its device dead for another cause), every
 *    later packet is dropped with the death's reason (dev-down), the
 *    completions still coming are taken for RING_DRAIN_NS, then every
 *    packet still held is dropped too, and the run is told (ring->dead,
 *    ring->cause).
 *  - Every frame the device took and did not send ends dropped with a
 *    reason, never as transmitted: the driver says so for its slot with
 *    txp__ring_slot_unsent() (tx-error: the kernel dropped it; driver: the
 *    kernel refused it as malformed).
 */
#ifndef TXP_DRIVERS_RING_H
#define TXP_DRIVERS_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sync/sync.h"
#include "txpath/driver.h"
#include "txpath/net.h"

struct ring;

struct ring_ops {
	const char *name;
	/*
	 * post: put pkt's bytes into slot idx (buffer txp__ring_buf(r, idx);
	 * txp__ring_gather()) and hand it to the device's ring.
	 * Synchronization: serialised by txp__ring_start_xmit (xmit lock or tx_lock).
	 * Context: a producer, or a context running the queue.
	 * Return codes: 0; -EBUSY when the device's own ring has no room
	 * for now although the slot is free (then nothing was posted: the
	 * ring counts it as device busy and returns BUSY); -EMSGSIZE when
	 * the packet's bytes do not add up or do not fit (nothing posted:
	 * the ring drops it as driver, counted refused, and returns OK).
	 */
	int (*post)(struct ring *r, uint64_t idx, struct txp_pkt *pkt);
	/*
	 * reap: push posted slots [kicked, prod) to the device as it needs
	 * (a kick, a write), and mark the slots the device is finished with
	 * (txp__ring_slot_sent(), txp__ring_slot_unsent()).  Also called once the
	 * device is dead, to take the completions still coming: pushing may
	 * then fail, harmlessly.
	 * Synchronization: the ring's reaper, one context at a time (the
	 * reaping bit, ring.c): lock-free against start_xmit's posts.  With
	 * reap_in_xmit, the reaper may be start_xmit, under the xmit lock or
	 * tx_lock: txp__ring_set_congested() then stops the queue itself.
	 * Context: the completion context (or the closing one, after it, or
	 * the watchdog's); with reap_in_xmit, also a producer: in start_xmit,
	 * or busy polling (txp__ring_busy_poll(), holding no lock).  Never
	 * sleeps.
	 * Return codes: 0; -ENETDOWN (or another negative errno) when the
	 * device reports the link gone (from start_xmit: ignored there, the
	 * completion context's next reap meets it and reports it).
	 */
	int (*reap)(struct ring *r, uint64_t cons, uint64_t prod);
	/*
	 * reap_in_xmit: start_xmit reaps too, at the end of each burst (a
	 * packet without xmit_more) and when the ring is about to stop: the
	 * reap's kick is then the doorbell of the burst, and the completions
	 * come home in the producer's own context, as DPDK's af_xdp PMD does
	 * in its tx burst; a producer waiting for its packets may reap too
	 * (txp__ring_busy_poll()).  The completion context is then needed
	 * only when a queue stopped or the producers went quiet: it naps when
	 * idle instead of spinning.  For a reap whose cost is a non-blocking
	 * syscall or less.
	 */
	bool reap_in_xmit;
	/*
	 * cancel: take back posted slot idx, which the device has not marked
	 * finished, if it never started on it: then it never will send it
	 * (the slot is the ring's again); else it still holds it.  Asked
	 * newest first, stopping at the first it holds.  NULL: it holds all.
	 * Synchronization: the completion context stopped, start_xmit
	 * excluded (txp__ring_tx_timeout()).
	 * Context: the watchdog.
	 * Return codes: true taken back, false held.
	 */
	bool (*cancel)(struct ring *r, uint64_t idx);
	/*
	 * link_ok: is the interface up with carrier?  NULL: always.
	 * Context: the completion context, every RING_LINK_CHECK_NS.
	 */
	bool (*link_ok)(struct ring *r);
	/*
	 * idle: nothing was done in a pass: the driver may wait for its
	 * device (poll) up to ns nanoseconds.  NULL: yield, or, with
	 * reap_in_xmit and the queue running, sleep ns.
	 */
	void (*idle)(struct ring *r, uint64_t ns);
	/* release: free the driver's own state (txp__ring_drv()); from txp__ring_destroy(). */
	void (*release)(void *drv);
};

struct ring_cfg {
	const struct ring_ops *ops;
	void *drv;		/* the driver's own state, txp__ring_drv() */
	unsigned slots;
	unsigned slot_size;	/* bytes per slot buffer (stride) */
	unsigned char *buf;	/* slots * slot_size bytes: the driver's (mmap, UMEM), or NULL: malloc'd */
	unsigned max_len;	/* the largest frame the device takes */
	const uint8_t *mac;	/* the interface's; NULL: none (a file) */
	const char *ifname;	/* for messages */
	FILE *log;
};


/* -- what a driver reads and writes of its ring ------------------------------ */

/* Slots in the ring, and bytes of each slot's buffer. */
unsigned txp__ring_size(const struct ring *r);
unsigned txp__ring_slot_size(const struct ring *r);
/* The longest frame the device takes. */
unsigned txp__ring_max_len(const struct ring *r);
/* Slots posted so far, ever (acquire: pairs with the release of the
 * index in txp__ring_start_xmit(), so their packets are visible).
 * Completion side. */
uint64_t txp__ring_posted(struct ring *r);
/* The packet of slot idx (NULL: none, or dropped already), and whether
 * the device is marked finished with it.  Completion side. */
struct txp_pkt *txp__ring_slot_pkt(const struct ring *r, uint64_t idx);
bool txp__ring_slot_done(const struct ring *r, uint64_t idx);
/* Slots handed to the device so far: the driver's own mark of how far it
 * pushed (a kick, a write).  Completion side. */
uint64_t txp__ring_kicked(struct ring *r);
void txp__ring_set_kicked(struct ring *r, uint64_t kicked);
/* Has the device said "later" (txp__ring_set_congested())? */
bool txp__ring_congested(struct ring *r);
/* The ring found in an impossible state (a completion of no posted slot,
 * a kick refused): counted.  Any context. */
void txp__ring_count_error(struct ring *r);
/* A packet posted where it was, without a copy: counted.  Serialised by
 * txp__ring_start_xmit(). */
void txp__ring_count_in_place(struct ring *r);
/* A kernel-style log line, "DRIVER: IFNAME: msg", if the ring has a log. */
void txp__ring_log(const struct ring *r, const char *msg);
/* The interface's MAC the ring was made with, or NULL (a file). */
const uint8_t *txp__ring_mac(const struct ring *r);

/* The counters of the device whose ring is first (queue 0's), summed over
 * its queues; exact once the device is closed. */
struct txp__ring_stats {
	uint64_t ring_full_awake, ring_full_stopped, dev_busy, ring_errors;
	uint64_t refused, tx_errors, dropped_down, in_place;
	enum txp_drop_reason died_drop;	/* what the dead device left dropped as */
};
void txp__ring_get_stats(struct ring *first, struct txp__ring_stats *st);

/* Make a ring; NULL and a message on failure (the driver's state is then
 * still the caller's).  It serves queue 0 until added to another. */
struct ring *txp__ring_create(const struct ring_cfg *cfg, char *err, size_t errlen);
/* Make r the next queue of the device whose ring is first (queue 0's):
 * first then holds it, and txp__ring_destroy(first) frees it.  0, or -1
 * and a message (r is still the caller's). */
int txp__ring_add_queue(struct ring *first, struct ring *r, char *err, size_t errlen);
/* Queue `queue`'s ring of first's device, or NULL past the last. */
struct ring *txp__ring_queue(const struct ring *first, unsigned queue);
/* The device's queue r serves. */
unsigned txp__ring_index(const struct ring *r);
/* Free first's rings, the other queues' before first, each with its
 * driver's state (ops->release). */
void txp__ring_destroy(struct ring *first);

void *txp__ring_drv(const struct ring *r);

unsigned char *txp__ring_buf(const struct ring *r, uint64_t idx);

/* Copy pkt's frame (head, then fragments) into dst, which holds cap
 * bytes: its length, or -EMSGSIZE if its bytes do not add up, or it is
 * larger than cap or than the device takes (max_len). */
int txp__ring_gather(const struct ring *r, const struct txp_pkt *pkt, void *dst, unsigned cap);

/* The frame length of posted slot idx; 0 once its packet was dropped
 * (the device died, ring_abandon()).  Completion side, after the acquire
 * of prod. */
unsigned txp__ring_slot_len(const struct ring *r, uint64_t idx);

/* A post op for devices whose completion context does the sending from
 * the slot buffers (tap, pcap): the frame into slot idx (txp__ring_gather());
 * 0 or -EMSGSIZE. */
int txp__ring_post_in_slot(struct ring *r, uint64_t idx, struct txp_pkt *pkt);

/* The driver ops on a ring (the device's priv is queue 0's struct ring,
 * and it has as many queues as rings): open starts each queue's
 * completion context, stop ends them and drops what is held, tx_timeout
 * resets one queue's ring. */
int txp__ring_open(struct txp_dev *dev);
void txp__ring_stop(struct txp_dev *dev);
enum txp_tx txp__ring_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq);
void txp__ring_tx_timeout(struct txp_dev *dev, unsigned queue);

/*
 * Busy polling (as a socket with SO_BUSY_POLL polls its NAPI instead of
 * sleeping for the interrupt): a producer whose packets are all in
 * flight retires what the device finished on queue `queue` of first's
 * device (negative: every queue) in its own context, its packets coming
 * home at once, instead of waiting for a completion context that naps
 * while its producers reap.  For rings whose producers reap
 * (reap_in_xmit); others: nothing (their completion context polls).
 * A reap error is left to the completion context, which passes while
 * the producers only wait, and meets it again.
 * Synchronization: the reaping bit, by trylock: a queue whose bit is
 * taken is left to its holder.
 * Context: a producer holding no lock (not from start_xmit).  Never sleeps.
 * Return codes: the slots retired (0: none finished, or none tried).
 */
unsigned txp__ring_busy_poll(struct ring *first, int queue);

/* The device refused more for now (EAGAIN, ENOBUFS): stop the queue until
 * it takes frames again (congested false), then wake it on the next pass.
 * Context: the reaper (ops->reap): the completion context, which stops
 * the queue under the lock that serialises start_xmit, or start_xmit
 * itself (reap_in_xmit), which holds it. */
void txp__ring_set_congested(struct ring *r, bool congested);

/* Completion side: the device is finished with slot idx, and sent it. */
void txp__ring_slot_sent(struct ring *r, uint64_t idx);

/* Completion side: the device is finished with slot idx without sending
 * it: the packet is retired as dropped with why (TXP_DROP_TX_ERROR: the
 * device failed to send it; TXP_DROP_DRIVER: it refused it as malformed),
 * never as transmitted. */
void txp__ring_slot_unsent(struct ring *r, uint64_t idx, enum txp_drop_reason why);

/*
 * The device died (latched; the first cause wins): every later packet is
 * dropped with why, and what is still held once the last completions are
 * in.  cause is for people: "link down (Network is down)", "write error
 * (No space left on device)".
 * Context: the completion context (or the closing one, after it).
 */
void txp__ring_die(struct ring *r, enum txp_drop_reason why, const char *cause);
/* The link is gone: txp__ring_die() with dev-down, and the kernel's log line. */
void txp__ring_set_link_down(struct ring *r, const char *why);
/* The cause, if a queue of first's device died; NULL while all live.
 * Any context. */
const char *txp__ring_dead_cause(struct ring *first);

#endif
