/*
 * txpath/linux.h - the kernel's names for a driver's transmit path, each
 * mapped onto txpath's public API (sync.h, driver.h, plugin.h), so that
 * the lock validator, the explorer's diagrams and the accounting see
 * every call.
 *
 * What a driver keeps as it is: its start_xmit and its completion
 * routine, its locks, barriers, flow control and log lines.  What it
 * changes (docs/checking-your-driver.md): descriptors and MMIO become a
 * ring it owns in memory, the NIC becomes txpath's completion context
 * (its poll sees everything posted as sent), and it registers with
 * TXP_PLUGIN() instead of probing a PCI device.
 */
#ifndef TXPATH_LINUX_H
#define TXPATH_LINUX_H

#include <stdbool.h>
#include <stdint.h>

#include "txpath/dev.h"
#include "txpath/driver.h"
#include "txpath/pkt.h"
#include "txpath/plugin.h"
#include "txpath/sync.h"

/* -- types and hints ------------------------------------------------------ */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* the kernel's: %llu */
typedef int32_t s32;

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* -- packets and devices ------------------------------------------------------ */

/* skb->len, skb_shinfo(skb)->nr_frags; the head's bytes at skb->data
 * (a plugin's packets carry a frame, under run and check alike). */
#define sk_buff txp_pkt
#define skb_shinfo(skb) (skb)
static inline unsigned int skb_headlen(const struct sk_buff *skb)
{
	return skb->head_len;
}

/* A driver's struct net_device is txpath's device; txpath/kernel.h
 * (a whole driver file's) makes it the kernel's, with its fields, and
 * TXP_NETDEV(dev) the txpath device it stands for. */
#ifndef TXP_NETDEV
#define net_device txp_dev
#define TXP_NETDEV(dev) (dev)
#define netdev_priv(dev) txp_plugin_priv(dev)
#endif
#define netdev_queue txp_txq
#define napi_struct txp_napi
#define netdev_name(dev) txp_dev_name(TXP_NETDEV(dev))	/* dev->name */
#define netdev_get_tx_queue(dev, i) txp_dev_txq(TXP_NETDEV(dev), (i))

typedef int netdev_tx_t;
#define NETDEV_TX_OK     TXP_TX_OK
#define NETDEV_TX_BUSY   TXP_TX_BUSY
#define NETDEV_TX_LOCKED TXP_TX_LOCKED

/* -- flow control ---------------------------------------------------------------- */

#define netif_tx_stop_queue(txq) \
	(txp_event_at("netif_stop_queue()", __func__), txp_netif_stop_queue(txq))
#define netif_tx_wake_queue(txq)    txp_netif_wake_queue(txq)
#define netif_tx_queue_stopped(txq) txp_netif_queue_stopped(txq)
#define netif_stop_queue(dev)       netif_tx_stop_queue(txp_dev_txq(TXP_NETDEV(dev), 0))
#define netif_wake_queue(dev)       netif_tx_wake_queue(txp_dev_txq(TXP_NETDEV(dev), 0))
#define netif_queue_stopped(dev)    netif_tx_queue_stopped(txp_dev_txq(TXP_NETDEV(dev), 0))
/* The core's xmit lock of the device's queue (netif_tx_lock). */
#define netif_tx_lock(dev)          txp_netif_tx_lock_at(txp_dev_txq(TXP_NETDEV(dev), 0), __func__)
#define netif_tx_unlock(dev)        txp_netif_tx_unlock_at(txp_dev_txq(TXP_NETDEV(dev), 0), __func__)
#define netif_tx_lock_bh(dev)       netif_tx_lock(dev)
#define netif_tx_unlock_bh(dev)     netif_tx_unlock(dev)
#define netif_tx_start_queue(txq)   txp_netif_tx_start_queue(txq)
#define netif_xmit_stopped(txq)     txp_netif_xmit_stopped(txq)
#define skb_get_queue_mapping(skb)  ((skb)->queue_mapping)

/* -- byte queue limits (3.3) and the lockless stop/wake helpers (6.3) ------------ */

#define netdev_tx_sent_queue(txq, bytes)    txp_netdev_tx_sent_queue((txq), (bytes))
#define __netdev_tx_sent_queue(txq, bytes, more) \
	txp_netdev_tx_sent_queue_more((txq), (bytes), (more))
#define netdev_tx_completed_queue(txq, pkts, bytes) \
	txp_netdev_tx_completed_queue((txq), (pkts), (bytes))
#define netdev_tx_reset_queue(txq)          txp_netdev_tx_reset_queue(txq)
#define netdev_sent_queue(dev, bytes)       netdev_tx_sent_queue(txp_dev_txq(TXP_NETDEV(dev), 0), (bytes))
#define netdev_completed_queue(dev, pkts, bytes) \
	netdev_tx_completed_queue(txp_dev_txq(TXP_NETDEV(dev), 0), (pkts), (bytes))
#define netdev_reset_queue(dev)             netdev_tx_reset_queue(txp_dev_txq(TXP_NETDEV(dev), 0))
#define netif_txq_try_stop(txq, get_desc, start_thrs) \
	txp_netif_txq_try_stop(txq, get_desc, start_thrs)
#define netif_txq_maybe_stop(txq, get_desc, stop_thrs, start_thrs) \
	txp_netif_txq_maybe_stop(txq, get_desc, stop_thrs, start_thrs)
#define netif_txq_completed_wake(txq, pkts, bytes, get_desc, start_thrs) \
	txp_netif_txq_completed_wake(txq, pkts, bytes, get_desc, start_thrs)
#define __netif_txq_completed_wake(txq, pkts, bytes, get_desc, start_thrs, down_cond) \
	txp_netif_txq_completed_wake_unless(txq, pkts, bytes, get_desc, start_thrs, down_cond)

/* -- locks and interrupts -------------------------------------------------------- */

typedef struct txp_spinlock spinlock_t;
/* The lock's class is its expression as written: "&tp->tx_lock". */
#define spin_lock_init(l)              txp_spin_init((l), #l)
#define spin_lock(l)                   txp_spin_lock_at((l), __func__)
#define spin_unlock(l)                 txp_spin_unlock_at((l), __func__)
#define spin_trylock(l)                txp_spin_trylock_at((l), __func__)
#define spin_lock_irq(l)               txp_spin_lock_irq_at((l), __func__)
#define spin_unlock_irq(l)             txp_spin_unlock_irq_at((l), __func__)
#define spin_lock_bh(l)                spin_lock(l)
#define spin_unlock_bh(l)              spin_unlock(l)
#define spin_lock_irqsave(l, flags)    ((flags) = txp_spin_lock_irqsave_at((l), __func__))
#define spin_trylock_irqsave(l, flags) txp_spin_trylock_irqsave_at((l), &(flags), __func__)
#define spin_unlock_irqrestore(l, flags) txp_spin_unlock_irqrestore_at((l), (flags), __func__)
#define local_irq_save(flags)          ((flags) = txp_local_irq_save_at(__func__))
#define local_irq_restore(flags)       txp_local_irq_restore_at((flags), __func__)
#define local_irq_disable()            txp_local_irq_disable_at(__func__)
#define local_irq_enable()             txp_local_irq_enable_at(__func__)
#define irqs_disabled()                txp_irqs_disabled()

/* -- memory ordering --------------------------------------------------------------- */

/* The barriers are drawn, with their caller: where they are, or are
 * not, is what a memory-model counterexample is about. */
#define smp_mb()               (txp_event_at("smp_mb()", __func__), txp_mb())
#define smp_rmb()              (txp_event_at("smp_rmb()", __func__), txp_rmb())
#define smp_wmb()              (txp_event_at("smp_wmb()", __func__), txp_wmb())
#define mb()                   smp_mb()
#define rmb()                  smp_rmb()
#define wmb()                  smp_wmb()
#define smp_mb__after_atomic() \
	(txp_event_at("smp_mb__after_atomic()", __func__), txp_mb_after_atomic())
#define smp_mb__before_atomic() \
	(txp_event_at("smp_mb__before_atomic()", __func__), txp_mb_before_atomic())
/* An access meant to race (a statistic read without its lock, a hint):
 * its value, with every access in expr left out of the check's data-race
 * detector, as KCSAN leaves out data_race()'s.  They still go through the
 * memory model as plain ones. */
#define data_race(expr) __extension__ ({				\
	txp_data_race_begin();						\
	__auto_type txp_dr_v_ = (expr);					\
	txp_data_race_end();						\
	txp_dr_v_; })
#define READ_ONCE(x)           TXP_READ_ONCE(x)
#define WRITE_ONCE(x, v)       TXP_WRITE_ONCE(x, v)
#define smp_load_acquire(p)    TXP_LOAD_ACQUIRE(*(p))
#define smp_store_release(p, v) \
	txp_atomic_store_named((p), sizeof(*(p)), (uint64_t)(uintptr_t)(v), TXP_RELEASE, #p)
#define cpu_relax()            txp_relax()
#define set_bit(nr, addr)           txp_set_bit((nr), (addr))
#define clear_bit(nr, addr)         txp_clear_bit((nr), (addr))
#define test_bit(nr, addr)          txp_test_bit((nr), (addr))
#define test_and_set_bit(nr, addr)  txp_test_and_set_bit((nr), (addr))
#define test_and_clear_bit(nr, addr) txp_test_and_clear_bit((nr), (addr))

/* -- freeing and logging ---------------------------------------------------------- */

#define dev_kfree_skb(skb)     txp_plugin_free_at((skb), __func__)
#define dev_consume_skb_any(skb) txp_plugin_free_at((skb), __func__)
#define dev_kfree_skb_any(skb) txp_plugin_free_deferred_at((skb), __func__)
#define dev_kfree_skb_irq(skb) txp_plugin_free_deferred_at((skb), __func__)

#define KERN_SOH    "\001"
#define KERN_ERR    KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_INFO   KERN_SOH "6"
#define KERN_DEBUG  KERN_SOH "7"
#define printk(...) txp_plugin_printk_at(__func__, __VA_ARGS__)
#define netdev_err(dev, fmt, ...) \
	txp_plugin_printk_at(__func__, KERN_ERR "%s: " fmt, txp_dev_name(TXP_NETDEV(dev)), ##__VA_ARGS__)
#define net_ratelimit() txp_plugin_ratelimit()

#endif
