/*
 * kernel_style.c - a NIC driver's transmit path as drivers in the kernel
 * write it (e1000-like in shape, written for txpath), built with nothing
 * but the kernel's own include lines and `txpath config --cflags`:
 * descriptors in a coherent DMA ring, buffers mapped with dma_map_single
 * and skb_frag_dma_map, the doorbell a writel() of the tail register,
 * the interrupt scheduling a NAPI poll that reclaims what the NIC marked
 * done, byte queue limits, xmit_more, and the 6.3 stop/wake helpers.
 * What binds it to txpath is the glue at the end: the NIC's hook (how to
 * read a descriptor, how to mark it done) and the plugin's registration.
 *
 * Mutants, each a bug txpath check finds (docs/checking-your-driver.md):
 *   -DKS_EARLY_DOORBELL  the doorbell rung before the descriptors are written
 *   -DKS_RELAXED_DOORBELL writel_relaxed() with no wmb() before it
 *   -DKS_NO_STOP         no stop after posting: with xmit_more, the descriptors
 *                        of the packet before a busy one are never announced
 *   -DKS_DOUBLE_UNMAP    the head unmapped twice in the poll
 *   -DKS_NO_UNMAP        the fragments never unmapped
 *   -DKS_UNMAP_EARLY     the head unmapped before the NIC read it
 *   -DKS_DOORBELL_FIRST  the doorbell rung as soon as the descriptors are
 *                        written, before the stop (e1000's order): correct;
 *                        with it, the stop and the wake need their barriers,
 *                        as the NIC may have sent everything before the stop
 *                        (rung after the stop, a packet in flight always
 *                        brings one more completion that sees it):
 *   -DKS_NO_STOP_MB      the stop open-coded without smp_mb__after_atomic()
 *                        before its recheck: a stall under arm only (on
 *                        x86 set_bit() is a locked instruction, a barrier)
 *   -DKS_NO_WAKE_MB      the wake open-coded without smp_mb() between the
 *                        release of next_to_clean and the test of "stopped",
 *                        BQL told after it: a stall under tso and arm
 */
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/u64_stats_sync.h>
#include <linux/slab.h>
#include <net/netdev_queues.h>

#if defined(KS_NO_STOP_MB) || defined(KS_NO_WAKE_MB)
#define KS_DOORBELL_FIRST
#endif

#define KS_MAX_FRAGS     2
#define KS_DESC_MAX      (KS_MAX_FRAGS + 1)	/* descriptors of the largest packet */
#define KS_STOP_THRESH   KS_DESC_MAX		/* stop when the next could not fit */
#define KS_WAKE_THRESH   (2 * KS_DESC_MAX)	/* wake when two would */
#define KS_DEFAULT_RING  8

/* Registers. */
#define KS_TDT   0x0818		/* transmit descriptor tail */
#define KS_IMS   0x00d0		/* interrupt mask set */
#define KS_IMC   0x00d8		/* interrupt mask clear */
#define KS_INT_TXDW BIT(0)	/* transmit descriptor written back */

/* A transmit descriptor, as the NIC reads it. */
struct ks_tx_desc {
	__le64 addr;
	__le16 length;
	u8 cmd;
	u8 status;		/* written by the NIC, cleared by the poll */
	__le32 reserved;
};
#define KS_TXD_CMD_EOP BIT(0)	/* end of packet */
#define KS_TXD_CMD_RS  BIT(3)	/* report status */
#define KS_TXD_STAT_DD BIT(0)	/* descriptor done */

struct ks_buffer {
	struct sk_buff *skb;	/* on the packet's last descriptor */
	unsigned int bytecount;	/* ... and its bytes, for BQL */
	DEFINE_DMA_UNMAP_ADDR(dma);
	DEFINE_DMA_UNMAP_LEN(len);
	bool mapped_as_page;
};

struct ks_ring {
	struct ks_tx_desc *desc;
	dma_addr_t dma;
	struct ks_buffer *buffer_info;
	unsigned int count;
	unsigned int next_to_use;	/* start_xmit's; READ_ONCE elsewhere */
	unsigned int next_to_clean;	/* the poll's; released to start_xmit */
	void __iomem *tail;
};

struct ks_adapter {
	struct net_device *netdev;
	struct pci_dev *pdev;
	void __iomem *hw_addr;
	struct ks_ring tx_ring;
	struct napi_struct napi;
	struct u64_stats_sync syncp;
	u64_stats_t tx_packets, tx_bytes;
	struct pci_dev pci;	/* the device txpath gives */
};

/* Free descriptors, one always left empty so that a full ring is not an
 * empty one.  Acquire: pairs with the poll's release of next_to_clean:
 * what it reclaimed is clean before it is reused. */
static unsigned int ks_desc_unused(struct ks_ring *ring)
{
	unsigned int ntc = smp_load_acquire(&ring->next_to_clean);
	unsigned int ntu = READ_ONCE(ring->next_to_use);

	return (ntc > ntu ? 0 : ring->count) + ntc - ntu - 1;
}

static void ks_unmap_and_free(struct ks_adapter *adapter, struct ks_buffer *bi, int budget)
{
	if (dma_unmap_len(bi, len)) {
		if (bi->mapped_as_page)
			dma_unmap_page(&adapter->pdev->dev, dma_unmap_addr(bi, dma),
				       dma_unmap_len(bi, len), DMA_TO_DEVICE);
		else
			dma_unmap_single(&adapter->pdev->dev, dma_unmap_addr(bi, dma),
					 dma_unmap_len(bi, len), DMA_TO_DEVICE);
		dma_unmap_len_set(bi, len, 0);
	}
	if (bi->skb) {
		napi_consume_skb(bi->skb, budget);
		bi->skb = NULL;
	}
}

/* -- transmit ------------------------------------------------------------------------ */

/* Map the head and the fragments for the descriptors from first on: the
 * descriptors used, or 0 when a mapping failed (what was mapped is
 * unmapped again). */
static int ks_tx_map(struct ks_adapter *adapter, struct sk_buff *skb, unsigned int first)
{
	struct ks_ring *ring = &adapter->tx_ring;
	struct device *dev = &adapter->pdev->dev;
	unsigned int i = first, f, nr_frags = skb_shinfo(skb)->nr_frags;
	struct ks_buffer *bi = &ring->buffer_info[i];

	bi->mapped_as_page = false;
	dma_unmap_len_set(bi, len, skb_headlen(skb));
	dma_unmap_addr_set(bi, dma, dma_map_single(dev, skb->data, skb_headlen(skb), DMA_TO_DEVICE));
	if (dma_mapping_error(dev, dma_unmap_addr(bi, dma)))
		goto dma_error;
#ifdef KS_UNMAP_EARLY
	dma_unmap_single(dev, dma_unmap_addr(bi, dma), skb_headlen(skb), DMA_TO_DEVICE);
#endif
	for (f = 0; f < nr_frags; f++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[f];

		i = (i + 1) % ring->count;
		bi = &ring->buffer_info[i];
		bi->mapped_as_page = true;
		dma_unmap_len_set(bi, len, skb_frag_size(frag));
		dma_unmap_addr_set(bi, dma, skb_frag_dma_map(dev, frag, 0, skb_frag_size(frag),
							     DMA_TO_DEVICE));
		if (dma_mapping_error(dev, dma_unmap_addr(bi, dma)))
			goto dma_error;
	}
	bi->skb = skb;
	bi->bytecount = skb->len;
	return (int)nr_frags + 1;

dma_error:
	dma_unmap_len_set(bi, len, 0);
	for (;;) {
		ks_unmap_and_free(adapter, &ring->buffer_info[i], 0);
		if (i == first)
			return 0;
		i = (i ? i : ring->count) - 1;
	}
}

/* Write count descriptors from first: the last one ends the packet. */
static unsigned int ks_tx_queue(struct ks_ring *ring, unsigned int first, unsigned int count)
{
	unsigned int i = first;

	while (count--) {
		struct ks_tx_desc *desc = &ring->desc[i];
		struct ks_buffer *bi = &ring->buffer_info[i];

		desc->addr = cpu_to_le64(dma_unmap_addr(bi, dma));
		desc->length = cpu_to_le16((u16)dma_unmap_len(bi, len));
		desc->cmd = count ? 0 : KS_TXD_CMD_EOP | KS_TXD_CMD_RS;
		i = (i + 1) % ring->count;
	}
	return i;
}

static netdev_tx_t ks_xmit_frame(struct sk_buff *skb, struct net_device *netdev)
{
	struct ks_adapter *adapter = netdev_priv(netdev);
	struct ks_ring *ring = &adapter->tx_ring;
	struct netdev_queue *txq = netdev_get_tx_queue(netdev, 0);
	unsigned int first = ring->next_to_use, next, count = skb_shinfo(skb)->nr_frags + 1;
	bool doorbell;

	/* The stack's promise: the head and the fragments hold the frame. */
	if (WARN_ON_ONCE(skb_headlen(skb) + skb->data_len != skb->len)) {
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	if (eth_skb_pad(skb))
		return NETDEV_TX_OK;
	/* No room: a wake let us in on a ring that filled again since (the
	 * helpers allow it).  Stop, quietly, and have it back later. */
	if (unlikely(!netif_txq_maybe_stop(txq, ks_desc_unused(ring), count, KS_WAKE_THRESH)))
		return NETDEV_TX_BUSY;

	count = (unsigned int)ks_tx_map(adapter, skb, first);
	if (!count) {
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
#ifdef KS_EARLY_DOORBELL
	writel((first + count) % ring->count, ring->tail);
#endif
	next = ks_tx_queue(ring, first, count);
	WRITE_ONCE(ring->next_to_use, next);
	doorbell = __netdev_tx_sent_queue(txq, skb->len, netdev_xmit_more());
	skb_tx_timestamp(skb);
#ifdef KS_DOORBELL_FIRST
	writel(next, ring->tail);
	(void)doorbell;	/* rung, xmit_more or not */
#endif

#if defined(KS_NO_STOP_MB)
	if (unlikely(ks_desc_unused(ring) < KS_STOP_THRESH)) {
		netif_tx_stop_queue(txq);
		if (ks_desc_unused(ring) >= KS_WAKE_THRESH)
			netif_tx_start_queue(txq);
	}
#elif !defined(KS_NO_STOP)
	netif_txq_maybe_stop(txq, ks_desc_unused(ring), KS_STOP_THRESH, KS_WAKE_THRESH);
#endif
	/* The doorbell, unless another packet follows at once; rung all the
	 * same when the queue stopped, as nothing may follow then.  writel()
	 * orders the descriptors before it. */
#ifndef KS_DOORBELL_FIRST
	if (doorbell || netif_xmit_stopped(txq)) {
#if defined(KS_RELAXED_DOORBELL)
		writel_relaxed(next, ring->tail);
#elif !defined(KS_EARLY_DOORBELL)
		writel(next, ring->tail);
#endif
	}
#endif
	return NETDEV_TX_OK;
}

/* -- completion: the interrupt and the NAPI poll ------------------------------------------ */

static irqreturn_t ks_intr(int irq, void *data)
{
	struct ks_adapter *adapter = data;

	(void)irq;
	/* Mask the interrupt until the poll is done with the ring. */
	writel(KS_INT_TXDW, adapter->hw_addr + KS_IMC);
	napi_schedule(&adapter->napi);
	return IRQ_HANDLED;
}

/* Reclaim what the NIC sent, at most budget packets: the packets. */
static int ks_clean_tx_irq(struct ks_adapter *adapter, int budget)
{
	struct ks_ring *ring = &adapter->tx_ring;
	struct netdev_queue *txq = netdev_get_tx_queue(adapter->netdev, 0);
	unsigned int i = ring->next_to_clean, pkts = 0, bytes = 0;

	while (pkts < (unsigned int)budget && (ring->desc[i].status & KS_TXD_STAT_DD)) {
		struct ks_buffer *bi = &ring->buffer_info[i];
		bool eop = ring->desc[i].cmd & KS_TXD_CMD_EOP;

		/* The rest of the descriptor after its done bit. */
		dma_rmb();
		if (eop) {
			pkts++;
			bytes += bi->bytecount;
		}
#ifdef KS_DOUBLE_UNMAP
		if (!bi->mapped_as_page)
			dma_unmap_single(&adapter->pdev->dev, dma_unmap_addr(bi, dma),
					 dma_unmap_len(bi, len), DMA_TO_DEVICE);
#endif
#ifdef KS_NO_UNMAP
		if (bi->mapped_as_page)
			dma_unmap_len_set(bi, len, 0);
#endif
		ks_unmap_and_free(adapter, bi, budget);
		ring->desc[i].status = 0;
		i = (i + 1) % ring->count;
	}
	/* Release: the slots clean before start_xmit reuses them. */
	smp_store_release(&ring->next_to_clean, i);
#ifdef KS_NO_WAKE_MB
	if (unlikely(netif_tx_queue_stopped(txq)) && ks_desc_unused(ring) >= KS_WAKE_THRESH)
		netif_tx_wake_queue(txq);
	netdev_tx_completed_queue(txq, pkts, bytes);
#else
	/* Reports to BQL and orders next_to_clean before the test of
	 * "stopped": pairs with the barrier in netif_txq_maybe_stop(). */
	netif_txq_completed_wake(txq, pkts, bytes, ks_desc_unused(ring), KS_WAKE_THRESH);
#endif

	u64_stats_update_begin(&adapter->syncp);
	u64_stats_add(&adapter->tx_packets, pkts);
	u64_stats_add(&adapter->tx_bytes, bytes);
	u64_stats_update_end(&adapter->syncp);
	return (int)pkts;
}

static int ks_poll(struct napi_struct *napi, int budget)
{
	struct ks_adapter *adapter = container_of(napi, struct ks_adapter, napi);
	int work_done = ks_clean_tx_irq(adapter, budget);

	if (work_done < budget && napi_complete_done(napi, work_done))
		writel(KS_INT_TXDW, adapter->hw_addr + KS_IMS);
	return work_done;
}

/* -- open and stop ------------------------------------------------------------------------ */

static void ks_free_tx_resources(struct ks_adapter *adapter)
{
	struct ks_ring *ring = &adapter->tx_ring;

	for (unsigned int i = 0; ring->buffer_info && i < ring->count; i++)
		ks_unmap_and_free(adapter, &ring->buffer_info[i], 0);
	kfree(ring->buffer_info);
	if (ring->desc)
		dma_free_coherent(&adapter->pdev->dev, ring->count * sizeof(*ring->desc), ring->desc,
				  ring->dma);
}

static int ks_open(struct net_device *netdev, unsigned int count)
{
	struct ks_adapter *adapter = netdev_priv(netdev);
	struct ks_ring *ring = &adapter->tx_ring;
	int err;

	adapter->netdev = netdev;
	ring->count = count;
	ring->buffer_info = kcalloc(count, sizeof(*ring->buffer_info), GFP_KERNEL);
	ring->desc = dma_alloc_coherent(&adapter->pdev->dev, count * sizeof(*ring->desc), &ring->dma,
					GFP_KERNEL);
	if (!ring->buffer_info || !ring->desc) {
		ks_free_tx_resources(adapter);
		return -ENOMEM;
	}
	ring->tail = adapter->hw_addr + KS_TDT;
	u64_stats_init(&adapter->syncp);
	netif_napi_add(netdev, &adapter->napi, ks_poll);
	err = request_irq(adapter->pdev->irq, ks_intr, IRQF_SHARED, netdev_name(netdev), adapter);
	if (err) {
		ks_free_tx_resources(adapter);
		return err;
	}
	napi_enable(&adapter->napi);
	writel(KS_INT_TXDW, adapter->hw_addr + KS_IMS);
	netif_start_queue(netdev);
	return 0;
}

static int ks_close(struct net_device *netdev)
{
	struct ks_adapter *adapter = netdev_priv(netdev);

	napi_disable(&adapter->napi);
	free_irq(adapter->pdev->irq, adapter);
	ks_free_tx_resources(adapter);
	return 0;
}

static const struct net_device_ops ks_netdev_ops = {
	.ndo_start_xmit = ks_xmit_frame,
	.ndo_stop = ks_close,
};

/* -- txpath glue: the NIC's hook, and the plugin ----------------------------------------- */

/* How the NIC reads a descriptor, and marks it done. */
static void ks_desc_read(const void *d, struct txp_nic_desc *out)
{
	const struct ks_tx_desc *desc = d;

	*out = (struct txp_nic_desc){ le64_to_cpu(desc->addr), le16_to_cpu(desc->length),
				      desc->cmd & KS_TXD_CMD_EOP };
}

static void ks_desc_done(void *d)
{
	((struct ks_tx_desc *)d)->status |= KS_TXD_STAT_DD;
}

static const struct txp_nic_tx_ops ks_nic = {
	.desc_size = sizeof(struct ks_tx_desc), .read = ks_desc_read, .done = ks_desc_done,
};

/* What probe would have done, then ndo_open, then the ring for the NIC. */
static int ks_txp_open(struct txp_dev *dev)
{
	struct net_device *netdev = txp_netdev(dev);
	struct ks_adapter *adapter = netdev_priv(netdev);
	int err;

	netdev->netdev_ops = &ks_netdev_ops;
	adapter->pdev = &adapter->pci;
	adapter->hw_addr = txp_nic_regs();
	err = ks_open(netdev, txp_plugin_ring(dev));
	if (err)
		return err;
	return txp_nic_tx_ring(&ks_nic, adapter->tx_ring.desc, adapter->tx_ring.count, KS_TDT);
}

static struct txp_plugin ks_plugin = {
	TXP_PLUGIN_INIT,
	.name = "kernel-style",
	.summary = "descriptor ring, DMA, writel doorbell, NAPI, BQL, the 6.3 helpers",
	.lock = TXP_LOCK_CORE,
	.priv_size = TXP_NETDEV_PRIV_SIZE(sizeof(struct ks_adapter)),
	.ring = KS_DEFAULT_RING,
	.max_frags = KS_MAX_FRAGS,
	.open = ks_txp_open,
	.stop = txp_ndo_stop,
	.start_xmit = txp_ndo_start_xmit,
	.poll = ks_poll,
};
TXP_PLUGIN(ks_plugin)
