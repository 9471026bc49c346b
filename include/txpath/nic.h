/*
 * txpath/nic.h - the hardware a plugin driver programs: DMA mappings,
 * the device's registers (MMIO), a descriptor ring whose doorbell
 * txpath's NIC model follows, its interrupt and the NAPI poll it
 * schedules.  txpath/kernel.h gives each the kernel's name.
 *
 * The NIC model (a plugin that registers a ring with txp_nic_tx_ring()):
 * the driver writes descriptors into memory it owns and writes the index
 * one past the last of them to its tail register (the doorbell).  The NIC
 * runs in the completion context ("IRQ"): it reads the tail register
 * (acquire: what the driver wrote before its doorbell is seen), consumes
 * the descriptors from its own head up to that tail, in order, reading
 * each through the driver's hook (its DMA address, length, end of
 * packet) and marking it done through the hook, and then raises the
 * interrupt: the driver's handler (txp_nic_request_irq()) runs with
 * interrupts off, and schedules its NAPI poll; with no handler the NIC
 * schedules the NAPI context itself.  What is not modelled: the NIC
 * reads only what the doorbell announced, all of it at once; it never
 * segments (TSO), computes checksums, inserts VLAN tags nor fails a
 * descriptor; one transmit ring per device; the wire records a packet
 * when the driver frees it in its poll.
 *
 * DMA maps by identity: the bus address is the CPU address.  In the
 * check build every mapping is followed: the NIC reading a descriptor
 * whose bytes are not mapped (never, or no longer: "dma-use-after-unmap"),
 * a mapping unmapped twice ("dma-double-unmap") and one never unmapped
 * once the device is down ("dma-never-unmapped") are violations.
 *
 * Every function here serves the plugin whose device is up (plugin.h:
 * one at a time), and may only be called while it is.
 */
#ifndef TXPATH_NIC_H
#define TXPATH_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "txpath/dev.h"
#include "txpath/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -- DMA ---------------------------------------------------------------------------- */

typedef uint64_t txp_dma_addr_t;

/* Map len bytes at cpu for the device to read (dma_map_single): their
 * bus address, cpu itself.  Never fails.  Any context.  site: the
 * caller's function, for the check build's reports. */
txp_dma_addr_t txp_dma_map_at(const void *cpu, size_t len, const char *site);
/* Unmap what txp_dma_map_at() returned (dma_unmap_single): addr and len
 * as mapped.  Any context. */
void txp_dma_unmap_at(txp_dma_addr_t addr, size_t len, const char *site);
/* Memory the driver and the device share for good (dma_alloc_coherent):
 * len zeroed bytes, their bus address in *addr; NULL when memory is
 * short.  Free it with txp_dma_free_coherent().  Process context. */
void *txp_dma_alloc_coherent(size_t len, txp_dma_addr_t *addr);
void txp_dma_free_coherent(size_t len, void *cpu, txp_dma_addr_t addr);

/* -- registers (MMIO) ------------------------------------------------------------------ */

/* Bytes of a device's register window (an e1000's BAR 0). */
#define TXP_NIC_REGS 0x20000

/* The device's register window (pci_iomap of its BAR 0): TXP_NIC_REGS
 * bytes, zeroed at open.  NULL when no device is up. */
void *txp_nic_regs(void);
/*
 * Write v, of size bytes (1, 2, 4 or 8), to the register at reg (writel
 * and its kin): ordered after every store before it (writel: a release,
 * as the kernel's writel orders normal memory before the MMIO write), or
 * not (relaxed: writel_relaxed).  A write of the tail register of the
 * ring is the doorbell.  Drawn in the explorer's diagrams as from site.
 */
void txp_mmio_write_at(volatile void *reg, uint64_t v, unsigned size, bool ordered,
		       const char *site);
/* Read the register at reg (readl): what was last written to it. */
uint64_t txp_mmio_read_at(const volatile void *reg, unsigned size, const char *site);

/* -- the transmit ring and its hook ------------------------------------------------------ */

/* What the NIC reads of a descriptor. */
struct txp_nic_desc {
	txp_dma_addr_t addr;	/* the bytes' bus address */
	uint32_t len;		/* their length; 0: no bytes (an offload context) */
	bool eop;		/* the packet's last descriptor */
};

/* The per-driver hook: how the NIC reads and completes its descriptors
 * (the driver's own layout and byte order).  Both run in the completion
 * context, in the NIC's turn. */
struct txp_nic_tx_ops {
	size_t desc_size;	/* bytes of a descriptor: the ring's stride */
	void (*read)(const void *desc, struct txp_nic_desc *d);
	void (*done)(void *desc);	/* set its done bit (the device wrote back) */
	/* The interrupt cause register (its byte in the window) and the bits
	 * the NIC sets in it before it raises the interrupt, which a
	 * handler reads to tell its interrupt from a shared line's (e1000's
	 * ICR); 0: none.  Reading it does not clear it. */
	unsigned cause_reg;
	uint32_t cause;
};

/*
 * The device's transmit ring: count descriptors of ops->desc_size bytes
 * at ring (the driver's memory, coherent DMA), whose doorbell is the
 * 32-bit register at byte tail_reg of the window: it holds the index
 * one past the last descriptor posted (mod count).  From open; the NIC
 * starts at descriptor 0.  0, or -EINVAL (no ops, count 0, tail_reg or
 * ops->cause_reg outside the window or misaligned, no device up).
 */
int txp_nic_tx_ring(const struct txp_nic_tx_ops *ops, void *ring, unsigned count,
		    unsigned tail_reg);
/*
 * The same, for a NIC whose doorbell carries no index (r8169's TxPoll: a
 * "kick", then the NIC fetches the descriptors the driver handed it with
 * their own bit).  A write of any size to the register at byte kick_reg
 * is the doorbell; at that write, in the writer's context, txpath calls
 * posted(dev), the driver's count of the descriptors it ever posted
 * (free-running, wrapping at 2^32; read as the driver keeps it, e.g.
 * with smp_load_acquire()), and announces it to the NIC as a tail
 * register would (a release), but for a full ring, which it can
 * announce.  Not modelled: the own bit (the NIC takes what
 * posted() counted at the kick, owned or not), and descriptors posted
 * after the last kick, which the NIC leaves for the next.  0 or -EINVAL
 * (also: posted NULL).
 */
int txp_nic_tx_ring_kick(const struct txp_nic_tx_ops *ops, void *ring, unsigned count,
			 unsigned kick_reg, unsigned (*posted)(struct txp_dev *dev));

/* -- the interrupt and NAPI --------------------------------------------------------------- */

/* The driver's interrupt handler (request_irq): the NIC calls
 * handler(irq, arg) in the completion context with interrupts off after
 * it completed descriptors.  Returns 0.  From open. */
int txp_nic_request_irq(int (*handler)(int irq, void *arg), void *arg);

/*
 * NAPI (netif_napi_add): the completion context polls napi (the
 * driver's own struct, which txpath passes to poll, so that the driver
 * finds itself with container_of) with poll, or the plugin's poll op when
 * NULL.  Once added, poll runs only while napi is scheduled
 * (txp_napi_schedule()) and until it completes (txp_napi_complete_done());
 * without it, the plugin's poll runs over and over.  From open.
 */
void txp_napi_add(struct txp_dev *dev, struct txp_napi *napi,
		  int (*poll)(struct txp_napi *napi, int budget));
/* Schedule the poll (napi_schedule_prep: true if it was not already).
 * Any context.  A device has one NAPI context: the one added. */
bool txp_napi_schedule(struct txp_napi *napi);
/* The poll is done with work_done packets, below its budget
 * (napi_complete_done): unscheduled; true.  Poll only. */
bool txp_napi_complete_done(struct txp_napi *napi, int work_done);

/* -- the stack's state for the driver ---------------------------------------------------- */

/* Is another packet coming at once (netdev_xmit_more())?  The xmit_more
 * of the packet start_xmit is handling in the calling context; false
 * elsewhere. */
bool txp_plugin_xmit_more(void);
/* The kernel's clock in jiffies (TXP_HZ a second): from txp_now_ns()
 * under run, frozen at 0 under check (time does not pass in a
 * schedule). */
#define TXP_HZ 1000
unsigned long txp_plugin_jiffies(void);

#ifdef __cplusplus
}
#endif

#endif
