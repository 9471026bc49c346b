/*
 * txpath/driver.h - the contract between the core and a driver.
 *
 * A driver sees only this header (and dev.h, pkt.h).  It provides the ops
 * below; the core provides queue flow control, packet completion, the
 * xmit lock for drivers that use it from their completion path, and the
 * kernel log.
 */
#ifndef TXPATH_DRIVER_H
#define TXPATH_DRIVER_H

#include <stdbool.h>

#include "txpath/dev.h"
#include "txpath/pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* start_xmit results (NETDEV_TX_*). */
enum txp_tx {
	TXP_TX_OK = 0,		/* the driver owns the packet now */
	TXP_TX_BUSY = 1,	/* no room: the core keeps the packet and requeues it */
	TXP_TX_LOCKED = -1,	/* LLTX only: the driver's own lock was busy */
};

struct txp_driver_ops {
	const char *name;

	/*
	 * open: start the device (allocate the ring, start the completion
	 * context).
	 * Synchronization: none needed; no producer runs yet.
	 * Context: the thread calling txp_dev_open().
	 * Return codes: 0, or a negative errno.
	 */
	int (*open)(struct txp_dev *dev);

	/*
	 * stop: stop the device.  Packets still owned by the driver must be
	 * handed back with txp_pkt_drop(..., TXP_DROP_DEV_DOWN).
	 * Synchronization: no producer runs; stop the completion context
	 * before touching the ring.
	 * Context: the thread calling txp_dev_close().
	 */
	void (*stop)(struct txp_dev *dev);

	/*
	 * start_xmit: hand one packet to the hardware (hard_start_xmit).
	 * Synchronization: lock mode core: called with txq's xmit lock held,
	 * so never concurrently for one queue.  Lock mode LLTX: called with no
	 * lock at all, possibly by several contexts at once, and possibly
	 * after another context stopped the queue: the driver serialises
	 * itself (typically by trylock, returning TXP_TX_LOCKED on failure).
	 * Context: any producer context, or a context running the queue for
	 * txp_net_tx_action().  Must not sleep.
	 * Return codes: TXP_TX_OK: the packet is the driver's, to be completed
	 * with txp_pkt_complete() or dropped with txp_pkt_drop().  TXP_TX_BUSY:
	 * no room; the driver should have stopped the queue, the packet is
	 * still the caller's.  TXP_TX_LOCKED: LLTX only, the packet is still
	 * the caller's.
	 */
	enum txp_tx (*start_xmit)(struct txp_pkt *pkt, struct txp_txq *txq);

	/*
	 * select_queue: pick the transmit queue for pkt (ndo_select_queue).
	 * Optional: without it the core uses the sender's cached queue, XPS,
	 * then the flow hash (txp_dev_pick_tx).
	 * Synchronization: none; called concurrently by every producer.
	 * Context: any producer context, before any lock is taken.
	 * Return codes: a queue index below the device's queue count; a
	 * larger one is logged and replaced by 0.
	 */
	unsigned (*select_queue)(struct txp_dev *dev, const struct txp_pkt *pkt);

	/*
	 * tx_timeout: queue `queue` stayed stopped past the watchdog's
	 * timeout (ndo_tx_timeout): reclaim what the device finished, reset
	 * the ring (what it never sent: txp_pkt_drop(..., TXP_DROP_TX_TIMEOUT)),
	 * reset its byte queue limits (txp_netdev_tx_reset_queue) and wake
	 * the queue.  Optional: without it there is no watchdog.
	 * Synchronization: every queue of the device is frozen (the core
	 * calls no start_xmit on it) and the core holds no xmit lock; the
	 * completion context may run: exclude it as its ring needs.
	 * Context: the watchdog's (txp_dev_watchdog()).
	 */
	void (*tx_timeout)(struct txp_dev *dev, unsigned queue);
};

/* -- flow control (netif_*) ------------------------------------------- */

/* Stop the queue: the core calls start_xmit no more until woken.
 * Any context, usually start_xmit, but stops must not race each other:
 * call it under what serialises start_xmit (the xmit lock in core mode,
 * the driver's own lock in LLTX), or from the queue's only stopper.
 * Counted as a stop if it was awake. */
void txp_netif_stop_queue(struct txp_txq *txq);
/* Wake a stopped queue and schedule it, so its backlog drains again.
 * Any context; usually the completion context.  No-op if awake. */
void txp_netif_wake_queue(struct txp_txq *txq);
/* Stopped by its driver?  A relaxed read: recheck after a full barrier
 * where it matters. */
bool txp_netif_queue_stopped(const struct txp_txq *txq);
/* Stopped by its driver or by byte queue limits (netif_xmit_stopped). */
bool txp_netif_xmit_stopped(const struct txp_txq *txq);
/* Clear the driver's stop without rescheduling the queue
 * (netif_tx_start_queue): for start_xmit, which is sending anyway. */
void txp_netif_tx_start_queue(struct txp_txq *txq);

struct txp_dev *txp_txq_dev(const struct txp_txq *txq);

/* -- byte queue limits (netdev_tx_*_queue, Linux 3.3) -------------------- */

/*
 * The driver posted `bytes` to the device for txq (netdev_tx_sent_queue).
 * Past the queue's limit the stack stops the queue (its own XOFF bit,
 * apart from the driver's), with the barrier that pairs with the one in
 * txp_netdev_tx_completed_queue().  No-op when the device has no BQL.
 * Synchronization: serialised as start_xmit (one sender per queue).
 */
void txp_netdev_tx_sent_queue(struct txp_txq *txq, unsigned bytes);
/*
 * The same for a driver that batches its doorbell by xmit_more
 * (__netdev_tx_sent_queue): with xmit_more the bytes are only counted.
 * Returns whether the driver must ring its doorbell now: always when
 * !xmit_more, else only if the queue stopped.
 */
bool txp_netdev_tx_sent_queue_more(struct txp_txq *txq, unsigned bytes, bool xmit_more);
/*
 * The device finished `pkts` packets of `bytes` on txq
 * (netdev_tx_completed_queue): BQL's limit adapts, a full barrier
 * follows (when bytes > 0), and if the stack had stopped the queue and
 * there is room again it is woken and rescheduled.  No-op without BQL.
 * Synchronization: one completer per queue at a time.
 */
void txp_netdev_tx_completed_queue(struct txp_txq *txq, unsigned pkts, unsigned bytes);
/* Forget what was in flight (netdev_tx_reset_queue): after a ring reset.
 * No sender and no completer may run on txq. */
void txp_netdev_tx_reset_queue(struct txp_txq *txq);

/* -- the lockless stop/wake helpers (netdev_queues.h, Linux 6.3) --------- */

/*
 * For a driver whose start_xmit stops its queue and whose completion
 * wakes it with no lock in common.  They assume one stopper (start_xmit)
 * and one waker (the completion) per queue, which may run at once.  They
 * do not prevent a wake that finds the ring full again by the time the
 * next start_xmit runs: start_xmit still checks for room first, and stops
 * and returns TXP_TX_BUSY (no bug) when there is none.  get_desc is an
 * expression giving the free descriptors, evaluated up to twice.
 */

/* Stop txq, full barrier, then recheck: 0 stopped; -1 restarted,
 * because the completion freed room meanwhile (netif_txq_try_stop). */
#define txp_netif_txq_try_stop(txq, get_desc, start_thrs)			\
	(txp_netif_txq_stop_mb(txq),						\
	 (get_desc) >= (start_thrs) ? (txp_netif_tx_start_queue(txq), -1) : 0)

/* After posting: if fewer than stop_thrs descriptors are free, try to
 * stop.  1: left running; else as txp_netif_txq_try_stop
 * (netif_txq_maybe_stop). */
#define txp_netif_txq_maybe_stop(txq, get_desc, stop_thrs, start_thrs)	\
	(__builtin_expect((get_desc) >= (stop_thrs), 1) ? 1 :				\
	 txp_netif_txq_try_stop(txq, get_desc, start_thrs))

/* After reclaiming `pkts` packets of `bytes`: report them to BQL and use
 * its barrier (a full barrier when bytes > 0, with BQL or without), then wake the queue if it is
 * stopped and at least start_thrs descriptors are free.  0: woken;
 * 1: there was room and it was running; -1: nothing completed, or below
 * the threshold (__netif_txq_completed_wake, with down_cond false). */
#define txp_netif_txq_completed_wake(txq, pkts, bytes, get_desc, start_thrs)	\
	txp_netif_txq_completed_wake_unless(txq, pkts, bytes, get_desc, start_thrs, 0)

/* The same, but no wake while down_cond holds (the link is down, the
 * device closing): then 1 (__netif_txq_completed_wake). */
#define txp_netif_txq_completed_wake_unless(txq, pkts, bytes, get_desc, start_thrs, down_cond) \
	(txp_netdev_txq_completed_mb((txq), (pkts), (bytes)),			\
	 !(pkts) || !((get_desc) >= (start_thrs)) ? -1 :			\
	 !txp_netif_queue_stopped(txq) || (down_cond) ? 1 : (txp_netif_wake_queue(txq), 0))

/* Stop txq, then a full barrier: txp_netif_txq_try_stop()'s first half. */
void txp_netif_txq_stop_mb(struct txp_txq *txq);
/* Report pkts of bytes to BQL, then a full barrier (without BQL the barrier
 * alone; neither if bytes is 0): the completed_wake helpers' first half
 * (netdev_txq_completed_mb). */
void txp_netdev_txq_completed_mb(struct txp_txq *txq, unsigned pkts, unsigned bytes);

/* -- the xmit lock, for completion paths (netif_tx_lock) -------------- */

/* Take txq's xmit lock with "interrupts off" (spin_lock_irq), as the
 * 2.6.11-rc2 drivers did in their completion path, and release it with
 * interrupts on again (spin_unlock_irq).  Spins.  The lock validator
 * names the caller's function. */
#define txp_netif_tx_lock_irq(txq)   txp_netif_tx_lock_irq_at((txq), __func__)
#define txp_netif_tx_unlock_irq(txq) txp_netif_tx_unlock_irq_at((txq), __func__)
/* Take txq's xmit lock from a completion path that runs outside the
 * "interrupt" (NAPI poll, softirq: netif_tx_lock).  Spins. */
#define txp_netif_tx_lock(txq)       txp_netif_tx_lock_at((txq), __func__)
#define txp_netif_tx_unlock(txq)     txp_netif_tx_unlock_at((txq), __func__)
/* The same four naming the site themselves: for a wrapper (linux.h's
 * netif_tx_lock) that passes on its own caller's function. */
void txp_netif_tx_lock_irq_at(struct txp_txq *txq, const char *site);
void txp_netif_tx_unlock_irq_at(struct txp_txq *txq, const char *site);
void txp_netif_tx_lock_at(struct txp_txq *txq, const char *site);
void txp_netif_tx_unlock_at(struct txp_txq *txq, const char *site);
/* The driver uses the xmit lock from its completion ("interrupt") path:
 * the core then takes it with interrupts saved and off everywhere, as
 * 2.6.11-rc2 did.  Call from open. */
void txp_dev_xmit_lock_irqsafe(struct txp_dev *dev);

/* -- history: the watchdog before Linux's 2024 fix ----------------------- */

/*
 * The stack's order before "net: fix races in netdev_tx_sent_queue()/
 * dev_watchdog()" (2024): trans_start is stamped when start_xmit returns
 * OK (txq_trans_update()), after any XOFF bit it set, not just before;
 * and the watchdog reads trans_start before the bits, with no barrier.
 * A queue that stops after a long idle then looks timed out at once: a
 * false "NETDEV WATCHDOG".  For a personality that reproduces it; call
 * from open.
 */
void txp_dev_trans_start_after_xmit(struct txp_dev *dev);

/* -- packets leaving the driver --------------------------------------- */

/* The device sent pkt: counted as transmitted and freed.  Any context
 * with interrupts on (the lock validator reports a free with them off,
 * naming the caller's function).  pkt NULL: nothing. */
#define txp_pkt_complete(dev, pkt) txp_pkt_complete_at((dev), (pkt), __func__)
/* The driver gives up on pkt: counted as dropped with reason, freed.  pkt
 * NULL: nothing; a reason that is not one (>= TXP_DROP_NR) is counted as
 * TXP_DROP_DRIVER, in every build (no assert). */
#define txp_pkt_drop(dev, pkt, reason) txp_pkt_drop_at((dev), (pkt), (reason), __func__)
/* The same two naming the site themselves (the plugin host's
 * dev_kfree_skb passes on its caller's function). */
void txp_pkt_complete_at(struct txp_dev *dev, struct txp_pkt *pkt, const char *site);
void txp_pkt_drop_at(struct txp_dev *dev, struct txp_pkt *pkt, enum txp_drop_reason reason,
		     const char *site);

/* -- the kernel log ---------------------------------------------------- */

/* Log "<driver>: <dev>: BUG! <what>" like printk(KERN_ERR), rate-limited
 * like net_ratelimit(); every call is counted in bug_logs, and the first
 * is kept (txp_dev_bug_line()).  what is copied. */
void txp_dev_log_bug(struct txp_dev *dev, const char *what);

/* The first line logged with txp_dev_log_bug(), as "BUG! <what>", or
 * NULL if none; the string lives as long as the process. */
const char *txp_dev_bug_line(const struct txp_dev *dev);

#ifdef __cplusplus
}
#endif

#endif
