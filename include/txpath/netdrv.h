/*
 * txpath/netdrv.h - the real devices: an AF_XDP socket, a PACKET_TX_RING,
 * a TAP device, a pcap file, each as a struct txp_dev that sends exactly
 * the bytes of the packets it is given (txpath/pkt.h); netdrv is their
 * family's name (txp_netdrv_*).  Their frames and addresses: txpath/net.h.
 *
 * Each constructor makes the device and brings it up: from its return on,
 * txp_dev_queue_xmit() and txp_xmit_burst() drive it from any number of
 * threads at once (each attached with txp_ctx_attach(), txpath/ctx.h), and
 * a completion thread of the device's own per queue completes or drops every
 * packet.  txp_netdrv_destroy() brings it down (what it still holds is
 * dropped as dev-down) and frees it.
 *
 * A packet whose bytes do not add up to its len (txp_pkt_bytes_ok()), or
 * that is longer than max_len, is dropped as TXP_DROP_DRIVER and counted
 * refused.  Copies: afpacket, tap and pcap copy the head and the fragments
 * into the slot of their ring; afxdp
 * too, except for packets of a pool from txp_afxdp_pool_create(), which
 * already sit in the UMEM.
 */
#ifndef TXPATH_NETDRV_H
#define TXPATH_NETDRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "txpath/dev.h"
#include "txpath/net.h"
#include "txpath/pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What every real device is made with. */
struct txp_netdrv_cfg {
	/* The core's knobs (lock, runner, qdisc, txqueuelen, bulk, log,
	 * bql, watchdog_timeo_ms; name NULL: the interface's or the file's).
	 * num_tx_queues (0: 1) is the queue count: a TX ring of `ring`
	 * slots, its own socket or descriptor and its own completion thread
	 * per queue (pcap: one).  ops and priv are the driver's: left NULL. */
	struct txp_dev_cfg dev;
	unsigned ring;		/* TX ring slots; 0: 512 */
	unsigned max_len;	/* the longest frame it will be given; 0: 1514 */
};

struct txp_afxdp_cfg {
	struct txp_netdrv_cfg base;
	const char *ifname;
	/* The interface's queue id of txpath's queue 0; queue i binds
	 * queue + i, one XSK socket each, over one shared UMEM. */
	unsigned queue;
	enum txp_xdp_mode mode;	/* copy (default) or zero-copy bind */
	/* UMEM frames set aside for txp_afxdp_pool_create(), beyond the
	 * ring's own; 0: none. */
	unsigned pool_frames;
	/* Silence libbpf's and libxdp's own printing, for the whole process
	 * (they have one printer each): only if the caller asks. */
	bool quiet_bpf_log;
};

/* One PACKET_TX_RING socket per txpath queue.  Which queue of the
 * interface a frame leaves by is the kernel's choice: through its qdisc,
 * by the frame's flow hash (skb_tx_hash; XPS first, if the interface has
 * a map); with qdisc_bypass, by the CPU that sends it (the socket's
 * completion thread's).  Neither depends on the socket. */
struct txp_afpacket_cfg {
	struct txp_netdrv_cfg base;
	const char *ifname;
	unsigned tpacket;	/* 2 or 3 (TPACKET_V2, _V3); 0: 2 */
	bool qdisc_bypass;	/* PACKET_QDISC_BYPASS */
};

struct txp_tap_cfg {
	struct txp_netdrv_cfg base;
	/* An existing TAP device: single-queue for one queue; made
	 * multi_queue for more (a descriptor per queue, IFF_MULTI_QUEUE). */
	const char *ifname;
};

struct txp_pcap_cfg {
	struct txp_netdrv_cfg base;
	/* Written from scratch; "-": standard output, through a descriptor
	 * of the device's own (stdout stays open when the device closes). */
	const char *file;
};

/* The name of the pcap file "-" (standard output) in the device's log
 * lines and in messages, and its default device name. */
#define TXP_PCAP_STDOUT_NAME "standard output"

/* Is file, a struct txp_pcap_cfg's, standard output ("-")? */
static inline bool txp_pcap_file_is_stdout(const char *file)
{
	return file && file[0] == '-' && !file[1];
}

/*
 * Make and bring up the device.
 * Synchronization: none; the device is the caller's alone until this returns.
 * Context: any thread (it starts the device's completion threads).
 * Return codes: the device, or NULL and a one-line message in err (cfg
 * NULL, no such interface, down, no permission, max_len over the MTU, ...).
 */
struct txp_dev *txp_afxdp_create(const struct txp_afxdp_cfg *cfg, char *err, size_t errlen);
struct txp_dev *txp_afpacket_create(const struct txp_afpacket_cfg *cfg, char *err, size_t errlen);
struct txp_dev *txp_tap_create(const struct txp_tap_cfg *cfg, char *err, size_t errlen);
struct txp_dev *txp_pcap_create(const struct txp_pcap_cfg *cfg, char *err, size_t errlen);

/*
 * A packet pool (txpath/pkt.h) of capacity packets whose head buffers are
 * UMEM frames of dev (an afxdp device): a packet whose frame is written
 * in its head, whole (no fragments), is posted by its frame's address,
 * with no copy; others are copied as usual.  data starts headroom bytes
 * into the frame; buf_size is the UMEM frame size (2048 or 4096).  The
 * frames are carved from the pool_frames of the device's config, for good
 * (destroying the pool does not give them back).
 * Synchronization: any number of threads at once.
 * Context: the thread that will own the pool (txp_pkt_pool_create_cfg()).
 * Return codes: the pool, or NULL and a message (fewer frames left than
 * capacity, headroom not below the frame size).  Destroy the pool with
 * txp_pkt_pool_destroy() before the device.
 */
struct txp_pkt_pool *txp_afxdp_pool_create(struct txp_dev *dev, unsigned capacity,
					   uint32_t headroom, char *err, size_t errlen);

/*
 * Bring the device down and free it, its rings and sockets with it:
 * packets it still holds or has queued are dropped as dev-down.  dev: made
 * by a constructor above (any other is txp_dev_destroy()'s).  NULL: nothing.
 * As with free(), dev is gone after it: a second destroy, or a transmit,
 * is undefined.
 * Synchronization: no thread may transmit on it any more (joined).
 * Context: any thread; not a completion thread.
 */
void txp_netdrv_destroy(struct txp_dev *dev);

/* What a real device saw, besides the core's struct txp_dev_stats. */
struct txp_netdrv_stats {
	uint64_t ring_full_awake;	/* start_xmit found no room, queue awake (a bug) */
	uint64_t ring_full_stopped;	/* ... queue already stopped: the LLTX race */
	uint64_t device_busy;		/* a free slot, the kernel's ring busy (backpressure) */
	uint64_t ring_errors;		/* the ring found in an impossible state */
	uint64_t refused;		/* packets dropped as driver: bad bytes, too long */
	uint64_t tx_errors;		/* the kernel took a frame and did not send it */
	uint64_t dropped_down;		/* dropped as the device died or closed */
	uint64_t in_place;		/* posted from where they were written: no copy */
	enum txp_drop_reason died_drop;	/* what a dead device dropped as */
};

/*
 * The device's counters (exact once it is closed).  dev: made by a
 * constructor above.
 * Synchronization: none: counters are read relaxed.  Context: any thread.
 */
void txp_netdrv_get_stats(struct txp_dev *dev, struct txp_netdrv_stats *st);

/*
 * Has the device died (link down, a write error)?  The cause for people
 * ("link down (no carrier)"), or NULL while it lives; every later packet
 * is dropped.  Context: any thread, any time.
 */
const char *txp_netdrv_dead(struct txp_dev *dev);

/* The interface's MAC (NULL for pcap): the default source of frames. */
const uint8_t *txp_netdrv_mac(struct txp_dev *dev);

#ifdef __cplusplus
}
#endif

#endif
