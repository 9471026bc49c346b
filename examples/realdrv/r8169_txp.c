/*
 * r8169_txp.c - txpath's glue for Linux's r8169 driver: its transmit
 * path run and checked as the kernel tree has it.  Not part of the
 * build: scripts/realdrv.sh compiles it against a Linux source tree,
 * with nothing but `txpath config`'s flags and the driver's directory
 * on the include path (docs/porting.md, section 7).
 *
 * The driver's r8169_main.c is compiled whole and unchanged, as the
 * first thing in this file (its functions are static);
 * r8169_phy_config.c and r8169_firmware.c beside it, as they are.  What
 * follows is what probe and rtl_open would have done for the transmit
 * side of an RTL8125A, the NIC's hook and the plugin.
 */
#include "r8169_main.c"

#include "realdrv_txp.h"

/* The adapter, and what probe would have allocated beside it. */
struct r8169_txp {
	struct rtl8169_private tp;	/* first: netdev_priv() */
	struct pci_dev pdev;
};

/* How the NIC reads a descriptor (the length in opts1's low 16 bits),
 * and hands it back: it clears DescOwn. */
static void r8169_txp_desc_read(const void *d, struct txp_nic_desc *out)
{
	const struct TxDesc *desc = d;
	u32 opts1 = le32_to_cpu(desc->opts1);

	*out = (struct txp_nic_desc){ le64_to_cpu(desc->addr), opts1 & 0xffff, opts1 & LastFrag };
}

static void r8169_txp_desc_done(void *d)
{
	((struct TxDesc *)d)->opts1 &= ~cpu_to_le32(DescOwn);
}

static const struct txp_nic_tx_ops r8169_txp_nic = {
	.desc_size = sizeof(struct TxDesc), .read = r8169_txp_desc_read,
	.done = r8169_txp_desc_done, .cause_reg = IntrStatus_8125, .cause = TxOK,
};

/* The doorbell (TxPoll) carries no index: what the driver posted is
 * cur_tx, published after the descriptors (smp_wmb, WRITE_ONCE). */
static unsigned r8169_txp_posted(struct txp_dev *dev)
{
	struct rtl8169_private *tp = netdev_priv(txp_netdev(dev));

	return smp_load_acquire(&tp->cur_tx);
}

/* Probe's share (an RTL8125A), then rtl_open's transmit half: the
 * rings (every receive descriptor the NIC's: nothing is received), the
 * interrupt, NAPI; then the ring for the NIC.  The ring is the
 * driver's NUM_TX_DESC. */
static int r8169_txp_open(struct txp_dev *dev)
{
	struct net_device *netdev = txp_netdev(dev);
	struct r8169_txp *t = netdev_priv(netdev);
	struct rtl8169_private *tp = &t->tp;
	int err;

	if (txp_plugin_ring(dev) != NUM_TX_DESC) {
		pr_err("r8169: the ring is the driver's, %d descriptors\n", NUM_TX_DESC);
		return -EINVAL;
	}
	netdev->netdev_ops = &rtl_netdev_ops;
	tp->dev = netdev;
	tp->pci_dev = &t->pdev;
	tp->mmio_addr = txp_nic_regs();
	tp->mac_version = RTL_GIGA_MAC_VER_61;
	tp->irq_mask = TxOK;
	tp->TxDescArray = dma_alloc_coherent(&t->pdev.dev, R8169_TX_RING_BYTES, &tp->TxPhyAddr,
					     GFP_KERNEL);
	tp->RxDescArray = dma_alloc_coherent(&t->pdev.dev, R8169_RX_RING_BYTES, &tp->RxPhyAddr,
					     GFP_KERNEL);
	if (!tp->TxDescArray || !tp->RxDescArray)
		return -ENOMEM;
	for (int i = 0; i < NUM_RX_DESC; i++)
		tp->RxDescArray[i].opts1 = cpu_to_le32(DescOwn);
	rtl8169_init_ring_indexes(tp);
	netif_napi_add(netdev, &tp->napi, rtl8169_poll);
	err = request_irq(tp->irq, rtl8169_interrupt, IRQF_SHARED, netdev->name, tp);
	if (err)
		return err;
	rtl_irq_enable(tp);
	netif_start_queue(netdev);
	return txp_nic_tx_ring_kick(&r8169_txp_nic, tp->TxDescArray, NUM_TX_DESC, TxPoll_8125,
				    r8169_txp_posted);
}

/* rtl8169_close's transmit half: every buffer unmapped and freed. */
static void r8169_txp_stop(struct txp_dev *dev)
{
	struct rtl8169_private *tp = netdev_priv(txp_netdev(dev));

	rtl8169_tx_clear(tp);
	dma_free_coherent(&tp->pci_dev->dev, R8169_RX_RING_BYTES, tp->RxDescArray, tp->RxPhyAddr);
	dma_free_coherent(&tp->pci_dev->dev, R8169_TX_RING_BYTES, tp->TxDescArray, tp->TxPhyAddr);
}

REALDRV_TXP_PLUGIN(r8169_txp, "r8169", "RTL8125A", struct r8169_txp, NUM_TX_DESC, r8169_txp_open,
		   r8169_txp_stop, rtl8169_poll);
