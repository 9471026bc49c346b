/*
 * nic.c - the hardware a plugin driver programs (txpath/nic.h): DMA by
 * identity, the register window, the descriptor ring the NIC model
 * consumes up to the doorbell (a tail register, or a kick and the
 * driver's count), its interrupt, and NAPI.
 *
 * The NIC runs in the plugin's completion context (host.c), before each
 * poll: plugin_nic_run().  In the check build every DMA mapping is
 * followed by the explorer (check/dma.h); under run the mappings cost
 * nothing.
 */
#include <errno.h>
#include <stdlib.h>

#include "plugin/host.h"
#include "txpath/nic.h"
#ifdef TXP_CHECK
#include "check/dma.h"
#include "check/doorbell.h"
#endif

/* The xmit_more of the packet the calling context's start_xmit handles. */
static txp_local bool xmit_more_now;
TXP_LOCAL(xmit_more_now);

void plugin_nic_xmit_more(bool more)
{
	xmit_more_now = more;
}

bool txp_plugin_xmit_more(void)
{
	return xmit_more_now;
}

unsigned long txp_plugin_jiffies(void)
{
#ifdef TXP_CHECK
	return 0;
#else
	return (unsigned long)(txp_now_ns() / (1000000000u / TXP_HZ));
#endif
}

/* -- DMA ------------------------------------------------------------------------------ */

txp_dma_addr_t txp_dma_map_at(const void *cpu, size_t len, const char *site)
{
	txp_dma_addr_t addr = (txp_dma_addr_t)(uintptr_t)cpu;

#ifdef TXP_CHECK
	check_dma_map(addr, len, site);
#else
	(void)len, (void)site;
#endif
	return addr;
}

void txp_dma_unmap_at(txp_dma_addr_t addr, size_t len, const char *site)
{
#ifdef TXP_CHECK
	check_dma_unmap(addr, len, site);
#else
	(void)addr, (void)len, (void)site;
#endif
}

void *txp_dma_alloc_coherent(size_t len, txp_dma_addr_t *addr)
{
	void *cpu = calloc(1, len ? len : 1);

	*addr = (txp_dma_addr_t)(uintptr_t)cpu;
	return cpu;
}

void txp_dma_free_coherent(size_t len, void *cpu, txp_dma_addr_t addr)
{
	(void)len, (void)addr;
	free(cpu);
}

/* -- registers ------------------------------------------------------------------------ */

void *txp_nic_regs(void)
{
	struct plugin_dev *pd = plugin_up();

	return pd ? pd->nic.regs : NULL;
}

static enum txp_order mmio_order(bool ordered)
{
	return ordered ? TXP_RELEASE : TXP_RELAXED;
}

/* A kick: what the driver counts as posted, announced, unless a later
 * count was (a kick of a context that has not seen the poster's latest
 * count, as the completion's may be, takes nothing back from the NIC: a
 * compare-and-exchange reads the latest announcement).  Release: pairs
 * with plugin_nic_run()'s acquire, as the tail register's. */
static void announce(struct plugin_nic *nic, unsigned posted)
{
	uint64_t was = txp_atomic_load(&nic->announced, sizeof(nic->announced), TXP_RELAXED);

	while ((int)(posted - (unsigned)was) > 0 &&
	       !txp_atomic_cmpxchg(&nic->announced, sizeof(nic->announced), &was, posted,
				   TXP_RELEASE))
		;
}

void txp_mmio_write_at(volatile void *reg, uint64_t v, unsigned size, bool ordered,
		       const char *site)
{
	struct plugin_dev *pd = plugin_up();

	bool doorbell = pd && reg == (volatile void *)(pd->nic.regs + pd->nic.tail_reg) &&
			pd->nic.ops;

	if (doorbell) {
		txp_event_at("doorbell", site);
#ifdef TXP_CHECK
		check_doorbell_rung();
#endif
	}
	txp_atomic_store_named(reg, size, v, mmio_order(ordered), "register");
	if (doorbell && pd->nic.posted)
		announce(&pd->nic, pd->nic.posted(pd->dev));
}

uint64_t txp_mmio_read_at(const volatile void *reg, unsigned size, const char *site)
{
	(void)site;
	return txp_atomic_load(reg, size, TXP_ACQUIRE);
}

/* -- the ring ----------------------------------------------------------------------- */

/* A 32-bit register of the window. */
static bool reg_ok(unsigned reg)
{
	return reg % 4 == 0 && reg <= TXP_NIC_REGS - 4;
}

int txp_nic_tx_ring_kick(const struct txp_nic_tx_ops *ops, void *ring, unsigned count,
			 unsigned kick_reg, unsigned (*posted)(struct txp_dev *dev))
{
	struct plugin_dev *pd = plugin_up();
	int err = posted ? txp_nic_tx_ring(ops, ring, count, kick_reg) : -EINVAL;

	if (!err) {
		pd->nic.posted = posted;
		pd->nic.announced = pd->nic.taken = 0;
	}
	return err;
}

int txp_nic_tx_ring(const struct txp_nic_tx_ops *ops, void *ring, unsigned count,
		    unsigned tail_reg)
{
	struct plugin_dev *pd = plugin_up();

	if (!pd || !ops || !ops->read || !ops->done || !ops->desc_size || !ring || !count ||
	    !reg_ok(tail_reg) || (ops->cause && !reg_ok(ops->cause_reg)))
		return -EINVAL;
	pd->nic.ops = ops;
	pd->nic.ring = ring;
	pd->nic.count = count;
	pd->nic.tail_reg = tail_reg;
	pd->nic.posted = NULL;
	pd->nic.head = 0;
#ifdef TXP_CHECK
	check_doorbell_ring(pd->dev);
#endif
	return 0;
}

int txp_nic_request_irq(int (*handler)(int irq, void *arg), void *arg)
{
	struct plugin_dev *pd = plugin_up();

	if (!pd)
		return -ENODEV;
	pd->nic.irq = handler;
	pd->nic.irq_arg = arg;
	return 0;
}

/* -- NAPI --------------------------------------------------------------------------------- */

void txp_napi_add(struct txp_dev *dev, struct txp_napi *napi,
		  int (*poll)(struct txp_napi *napi, int budget))
{
	struct plugin_dev *pd = plugin_up();

	napi->dev = dev;
	if (pd) {
		pd->nic.napi = napi;
		pd->nic.poll = poll;
	}
}

bool txp_napi_schedule(struct txp_napi *napi)
{
	struct plugin_dev *pd = plugin_up();

	(void)napi;
	/* Acquire and release: pairs with itself in txp_napi_complete_done()
	 * and plugin_nic_napi_scheduled(). */
	return pd && !txp_atomic_xchg(&pd->nic.scheduled, sizeof(pd->nic.scheduled), 1,
				      TXP_ACQ_REL);
}

bool txp_napi_complete_done(struct txp_napi *napi, int work_done)
{
	struct plugin_dev *pd = plugin_up();

	(void)napi, (void)work_done;
	if (pd)
		txp_atomic_store(&pd->nic.scheduled, sizeof(pd->nic.scheduled), 0, TXP_RELEASE);
	return true;
}

bool plugin_nic_napi_scheduled(struct plugin_dev *pd)
{
	return txp_atomic_load(&pd->nic.scheduled, sizeof(pd->nic.scheduled), TXP_ACQUIRE);
}

/* -- the NIC's turn ---------------------------------------------------------------------- */

/* The interrupt: the driver's handler with interrupts off, or NAPI
 * scheduled directly. */
static void raise_irq(struct plugin_dev *pd)
{
	const struct txp_nic_tx_ops *ops = pd->nic.ops;

	if (ops->cause) {
		unsigned char *reg = pd->nic.regs + ops->cause_reg;
		uint64_t was = txp_atomic_load(reg, 4, TXP_RELAXED);

		txp_atomic_store_named(reg, 4, was | ops->cause, TXP_RELAXED, "register");
	}
	if (pd->nic.irq) {
		unsigned long flags = txp_local_irq_save_at("NIC interrupt");

		pd->nic.irq(0, pd->nic.irq_arg);
		txp_local_irq_restore_at(flags, "NIC interrupt");
	} else if (pd->nic.napi) {
		(void)txp_napi_schedule(pd->nic.napi);
	}
}

static void *desc_at(const struct plugin_nic *nic, unsigned i)
{
	return nic->ring + (size_t)i * nic->ops->desc_size;
}

/* Descriptors announced from the NIC's head on: up to the tail register,
 * or (a kicked ring) what the driver's count says beyond those taken; a
 * kicked ring may be announced full.  Acquire: pairs with writel()'s
 * release, or the kick's: the descriptors the driver wrote before its
 * doorbell are seen. */
static unsigned announced(const struct plugin_nic *nic)
{
	unsigned tail;

	if (nic->posted)
		return (unsigned)txp_atomic_load(&nic->announced, sizeof(nic->announced),
						 TXP_ACQUIRE) - nic->taken;
	tail = (unsigned)txp_atomic_load(nic->regs + nic->tail_reg, 4, TXP_ACQUIRE) % nic->count;
	return (tail + nic->count - nic->head) % nic->count;
}

unsigned plugin_nic_run(struct plugin_dev *pd)
{
	struct plugin_nic *nic = &pd->nic;
	unsigned n = announced(nic), sent = 0, pkts = 0;

	/* A packet is sent whole: its descriptors are done once the one
	 * with end-of-packet is announced too. */
	for (unsigned k = 0; k < n; k++) {
		struct txp_nic_desc d = { 0 };
		unsigned i = (nic->head + k) % nic->count;

		nic->ops->read(desc_at(nic, i), &d);
#ifdef TXP_CHECK
		if (d.len)
			check_dma_read(d.addr, d.len, i);
#endif
		if (!d.eop)
			continue;
		for (; sent <= k; sent++)
			nic->ops->done(desc_at(nic, (nic->head + sent) % nic->count));
		pkts++;
	}
	nic->head = (nic->head + sent) % nic->count;
	nic->taken += sent;
	if (pkts)
		raise_irq(pd);
	return pkts;
}
