/*
 * txpath/sim.h - the simulated NIC.
 *
 * A descriptor ring (one descriptor per fragment), a completion context
 * of its own (a thread: the "interrupt") that retires descriptors at a
 * line rate and wakes the queue, a wire that records what was sent, and
 * the driver personalities of 2004-2005.
 */
#ifndef TXPATH_SIM_H
#define TXPATH_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "txpath/driver.h"

#ifdef __cplusplus
#include <atomic>
extern "C" {
#endif

struct txp_sim;

/* What start_xmit does when the ring lacks room for the packet. */
enum txp_sim_ring_full {
	TXP_SIM_FULL_LOG_BUG,	/* stop, log "BUG! Tx Ring full when queue awake!", BUSY */
	TXP_SIM_FULL_SILENT,	/* stop, BUSY (Roland's patch; e1000) */
	TXP_SIM_FULL_CHECK_STOPPED, /* stopped already: quiet BUSY; else as LOG_BUG (Miller) */
};

/* How the completion path orders its wake against start_xmit's stop. */
enum txp_sim_completion {
	TXP_SIM_COMP_OWN_LOCK,	/* under the driver's tx_lock (tg3, e1000) */
	TXP_SIM_COMP_BARRIER,	/* lockless retire, barrier, test "stopped"; wake under the
				 * xmit lock after testing again (tg3 once it gave up LLTX) */
	TXP_SIM_COMP_XMIT_LOCK_IRQ, /* under the core's xmit lock, irqs off (2.6.11-rc2) */
	TXP_SIM_COMP_HELPER,	/* lockless retire, then txp_netif_txq_completed_wake()
				 * (reports to BQL, its barrier, test, wake: Linux 6.3) */
	TXP_SIM_COMP_NAPI,	/* veth's NAPI poll, its wake as .veth says (veth.c) */
};

/* What start_xmit does after posting, when the ring is nearly full. */
enum txp_sim_stop {
	TXP_SIM_STOP_PLAIN,	/* stop the queue (safe when completion takes the same lock) */
	TXP_SIM_STOP_RECHECK,	/* stop, full barrier, recheck the ring, wake if room came back */
	TXP_SIM_STOP_RECHECK_NOMB, /* stop, recheck without the barrier: wrong on arm64 (right
				    * on x86 only by its stop's locked instruction) */
	TXP_SIM_STOP_HELPER,	/* txp_netif_txq_maybe_stop(): stop, barrier, recheck, restart */
	TXP_SIM_STOP_HELPER_NOMB, /* the same with the helper's barrier left out: wrong on arm64 */
};

/* veth's qdisc backpressure (Linux 6.16; src/drivers/sim/veth.c): the
 * completion context is the peer's NAPI poll. */
enum txp_sim_veth {
	TXP_SIM_VETH_NONE,
	TXP_SIM_VETH_2025,	/* 6.16: the producer stops, then tests the consumer-side
				 * emptiness predicate; the consumer wakes in its receive
				 * loop without a barrier (CVE-2025-68232) */
	TXP_SIM_VETH_FIXED,	/* the fix: the producer stops and kicks NAPI; the
				 * consumer wakes once per poll after smp_rmb() */
};

/* A driver personality: how start_xmit locks and what it does on a full
 * ring, and how its completion path synchronises with it. */
struct txp_sim_personality {
	const char *name;	/* "tg3-2004", ... */
	const char *summary;	/* one line for --help */
	bool own_lock;		/* takes its own tx_lock: can run LLTX */
	enum txp_sim_ring_full ring_full;
	enum txp_sim_completion completion;
	enum txp_sim_stop stop;
	bool lenient_entry;	/* full means avail < need (e1000), not <= */
	bool rc2_naive;		/* takes the core's xmit lock itself, carelessly */
	bool bql;		/* reports bytes to byte queue limits (Linux 3.3+) */
	bool trans_after_xmit;	/* its stack stamps trans_start after start_xmit, as
				 * before Linux's 2024 watchdog fix (modern-2023) */
	enum txp_sim_veth veth;	/* veth's backpressure instead of ring_full and stop
				 * (with TXP_SIM_COMP_NAPI) */
};

/* NULL-terminated list, and lookup by name (NULL if unknown). */
extern const struct txp_sim_personality *const txp_sim_personalities[];
const struct txp_sim_personality *txp_sim_personality(const char *name);

/* -- fault injection (fault.c) ------------------------------------------ */

/* What can go wrong: the simulated NIC's four faults, and the workload's
 * failing packet allocation (injected by the producers, src/run/run.c). */
enum txp_fault_kind {
	TXP_FAULT_LOST_IRQ,	/* an interrupt never arrives; the descriptors stay done
				 * until the next one (if any) */
	TXP_FAULT_SLOW_IRQ,	/* an interrupt arrives late */
	TXP_FAULT_DESC_ERROR,	/* the NIC fails a packet: dropped as tx-error */
	TXP_FAULT_LINK_FLAP,	/* the carrier goes away for a while: dev-down */
	TXP_FAULT_ALLOC_FAIL,	/* a packet allocation fails: the producer retries */
	TXP_FAULT_NR,
};

/*
 * When one kind fires.  Each kind sees a stream of events: interrupts
 * (lost-irq, slow-irq), packets the NIC sends (desc-error, link-flap),
 * allocations (alloc-fail).  Whether event n fires depends on the seed,
 * the kind, the stream and n only, never on timing: the same seed injects
 * the same faults at the same events.  link-flap may go by time instead.
 */
struct txp_fault {
	bool on;
	uint64_t chance;	/* fires with probability chance / 2^32 ... */
	uint64_t every;		/* ... or on every Nth event ... */
	uint64_t period_ns;	/* ... or (link-flap) every this long */
	uint64_t max;		/* at most this many times in all; 0: no limit */
	uint64_t delay_ns;	/* slow-irq: this late; link-flap: down this long ... */
	uint64_t delay_passes;	/* ... or this many completion passes */
};

struct txp_fault_cfg {
	uint64_t seed;
	struct txp_fault kind[TXP_FAULT_NR];
};

/* "lost-irq", "slow-irq", "desc-error", "link-flap", "alloc-fail". */
const char *txp_fault_name(enum txp_fault_kind k);
/* Is any kind on? */
bool txp_fault_any(const struct txp_fault_cfg *c);

/*
 * Parse "KIND[:PARAM[,PARAM...]][,KIND...]" into c, adding to what it
 * holds; PARAM is a rate "P%" or key=value (every=N, max=N, delay=TIME,
 * passes=N, down=TIME or N; TIME as 5ms, 200us, 1s).  False and a
 * one-line message in err if it is not that (`txpath run --help`
 * explains it); c is then partly filled.
 */
bool txp_fault_parse(struct txp_fault_cfg *c, const char *spec, char *err, size_t errlen);

/* The count the streams of a kind share: C11's _Atomic uint64_t, which
 * C++ spells std::atomic<uint64_t> (the same size and alignment). */
#ifdef __cplusplus
typedef std::atomic<uint64_t> txp_atomic_u64;
static_assert(sizeof(txp_atomic_u64) == 8 && alignof(txp_atomic_u64) == 8,
	      "std::atomic<uint64_t> is laid out as C11's _Atomic uint64_t");
#else
typedef _Atomic uint64_t txp_atomic_u64;
_Static_assert(sizeof(txp_atomic_u64) == 8 && _Alignof(txp_atomic_u64) == 8,
	       "_Atomic uint64_t takes 8 bytes, aligned");
#endif

/* One context's stream of events of one kind. */
struct txp_fault_stream {
	const struct txp_fault *f;	/* NULL: the kind is off */
	uint64_t key;			/* from the seed, the kind and the stream */
	uint64_t events;
	txp_atomic_u64 *injected;	/* shared by every stream of the kind */
};

/* Stream number `stream` of kind k (one per injecting context). */
void txp_fault_stream_init(struct txp_fault_stream *s, const struct txp_fault_cfg *c,
			   enum txp_fault_kind k, uint64_t stream, txp_atomic_u64 *injected);
/* The next event: does the fault fire on it?  If so it is counted in
 * *injected (multi-producer safe).  One context per stream. */
bool txp_fault_next(struct txp_fault_stream *s);

/* -- the wire (wire.c) --------------------------------------------------- */

/*
 * What a device sent, per flow: every frame recorded by its flow and
 * sequence number, so that loss and duplication are measured, not
 * assumed.  The simulated NIC has one per queue (struct txp_sim_stats
 * counts them); a driver of one's own can keep one too.
 */
struct txp_wire;

/* A frame recorded after a later one of its flow had been: the first. */
struct txp_wire_reorder {
	uint32_t flow;
	uint64_t ahead;		/* the later sequence number, recorded first */
	uint64_t behind;	/* the earlier one, recorded after it */
};

struct txp_wire_stats {
	uint64_t frames;	/* frames recorded */
	uint64_t unique;	/* distinct (flow, seq) */
	uint64_t duplicates;	/* frames recorded more than once */
	uint64_t alien;		/* frames of a flow it does not track */
	/* Distinct frames recorded after a higher sequence number of their
	 * flow (out of order); the first is first_reorder. */
	uint64_t reordered;
	struct txp_wire_reorder first_reorder;
};

/* A wire tracking flows 0..nflows-1; NULL when memory is short. */
struct txp_wire *txp_wire_create(unsigned nflows);
/* Free it; no context may record on it any more.  NULL: nothing. */
void txp_wire_destroy(struct txp_wire *w);
/* Record one frame.  Single writer: one context at a time records (the
 * device's completion context). */
void txp_wire_record(struct txp_wire *w, uint32_t flow, uint64_t seq);
/* Its counts: any context, any time (relaxed reads, exact once the
 * writer stopped). */
void txp_wire_get_stats(const struct txp_wire *w, struct txp_wire_stats *st);

struct txp_sim_cfg {
	const struct txp_sim_personality *personality;
	unsigned ring;		/* descriptors */
	unsigned max_frags;	/* largest nr_frags the device accepts */
	uint64_t line_rate;	/* packets per second retired; 0: unlimited */
	unsigned batch;		/* packets retired per completion pass */
	unsigned max_flows;	/* flows the wire tracks (flow ids 0..n-1) */
	const struct txp_fault_cfg *faults;	/* NULL: none; copied */
	unsigned queues;	/* transmit queues, a ring and an interrupt each; 0: 1.
				 * The device must have as many (txp_dev_cfg.num_tx_queues). */
};

/* Smallest ring for packets of up to max_frags fragments: room for one
 * maximal packet above the stop reserve. */
unsigned txp_sim_min_ring(unsigned max_frags);

/* NULL and a message in err when cfg is NULL or invalid, or memory is
 * short. */
struct txp_sim *txp_sim_create(const struct txp_sim_cfg *cfg, char *err, size_t errlen);
/* Free it (NULL: nothing); a second destroy is undefined, as free() is. */
void txp_sim_destroy(struct txp_sim *sim);

/* The driver ops; the device's priv must be a struct txp_sim.  Its
 * tx_timeout resets the queue's ring: what the NIC had not sent is dropped
 * as TXP_DROP_TX_TIMEOUT, and the queue is woken. */
extern const struct txp_driver_ops txp_sim_ops;

struct txp_sim_stats {
	uint64_t wire_frames;		/* frames seen on the wire */
	uint64_t wire_unique;		/* distinct (flow, seq) seen */
	uint64_t wire_duplicates;	/* frames seen more than once */
	uint64_t wire_alien;		/* frames of a flow the wire does not track */
	uint64_t wire_reordered;	/* frames out of order in their flow */
	struct txp_wire_reorder first_reorder;	/* the first queue's first, if any */
	uint64_t ring_full_awake;	/* start_xmit found the ring full, queue awake */
	uint64_t ring_full_stopped;	/* ... queue already stopped: the race */
	uint64_t ring_errors;		/* descriptors found in an impossible state */
	unsigned in_flight;		/* descriptors posted, not yet retired */
	uint64_t in_flight_bytes;	/* bytes of the packets posted, not yet retired */
	uint64_t bytes_retired;		/* bytes that left the rings, ever (sent, failed, flushed) */
	uint64_t faults[TXP_FAULT_NR];	/* injected, per kind (link-flap: times down) */
	uint64_t ring_resets;		/* rings reset by tx_timeout */
};

/* Exact once the device is closed; a snapshot while it runs.  Summed over
 * the queues; txp_sim_get_queue_stats gives one queue's. */
void txp_sim_get_stats(struct txp_sim *sim, struct txp_sim_stats *st);
void txp_sim_get_queue_stats(struct txp_sim *sim, unsigned queue, struct txp_sim_stats *st);
/* Descriptors queue's start_xmit posted with xmit_more and has not
 * announced yet (no doorbell since): the NIC will not send them until it
 * does.  0 once the core's batch is done, whenever the core keeps its
 * promise (the last packet of a batch without xmit_more).  Any context;
 * never a scheduling point of txpath check. */
unsigned txp_sim_unannounced(const struct txp_sim *sim, unsigned queue);

#ifdef __cplusplus
}
#endif

#endif
