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
/* Stopped?  A relaxed read: recheck after a full barrier where it matters. */
bool txp_netif_queue_stopped(const struct txp_txq *txq);

struct txp_dev *txp_txq_dev(const struct txp_txq *txq);

/* -- the xmit lock, for completion paths (netif_tx_lock) -------------- */

/* Take txq's xmit lock with "interrupts off" (spin_lock_irq), as the
 * 2.6.11-rc2 drivers did in their completion path, and release it with
 * interrupts on again (spin_unlock_irq).  Spins.  The lock validator
 * names the caller's function. */
#define txp_netif_tx_lock_irq(txq)   txp__netif_tx_lock_irq((txq), __func__)
#define txp_netif_tx_unlock_irq(txq) txp__netif_tx_unlock_irq((txq), __func__)
/* Take txq's xmit lock from a completion path that runs outside the
 * "interrupt" (NAPI poll, softirq: netif_tx_lock).  Spins. */
#define txp_netif_tx_lock(txq)       txp__netif_tx_lock((txq), __func__)
#define txp_netif_tx_unlock(txq)     txp__netif_tx_unlock((txq), __func__)
void txp__netif_tx_lock_irq(struct txp_txq *txq, const char *site);
void txp__netif_tx_unlock_irq(struct txp_txq *txq, const char *site);
void txp__netif_tx_lock(struct txp_txq *txq, const char *site);
void txp__netif_tx_unlock(struct txp_txq *txq, const char *site);
/* The driver uses the xmit lock from its completion ("interrupt") path:
 * the core then takes it with interrupts saved and off everywhere, as
 * 2.6.11-rc2 did.  Call from open. */
void txp_dev_xmit_lock_irqsafe(struct txp_dev *dev);

/* -- packets leaving the driver --------------------------------------- */

/* The device sent pkt: counted as transmitted and freed.  Any context
 * with interrupts on (the lock validator reports a free with them off,
 * naming the caller's function). */
#define txp_pkt_complete(dev, pkt) txp__pkt_complete((dev), (pkt), __func__)
/* The driver gives up on pkt: counted as dropped with reason, freed. */
#define txp_pkt_drop(dev, pkt, reason) txp__pkt_drop((dev), (pkt), (reason), __func__)
void txp__pkt_complete(struct txp_dev *dev, struct txp_pkt *pkt, const char *site);
void txp__pkt_drop(struct txp_dev *dev, struct txp_pkt *pkt, enum txp_drop_reason reason,
		   const char *site);

/* -- the kernel log ---------------------------------------------------- */

/* Log "<driver>: <dev>: BUG! <what>" like printk(KERN_ERR), rate-limited
 * like net_ratelimit(); every call is counted in bug_logs. */
void txp_dev_log_bug(struct txp_dev *dev, const char *what);

#ifdef __cplusplus
}
#endif

#endif
