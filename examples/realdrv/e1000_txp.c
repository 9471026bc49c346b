/*
 * e1000_txp.c - txpath's glue for Linux's e1000 driver: its transmit
 * path run and checked as the kernel tree has it.  Not part of the
 * build: scripts/realdrv.sh compiles it against a Linux source tree,
 * with nothing but `txpath config`'s flags and the driver's directory
 * on the include path (docs/porting.md, section 7).
 *
 * The driver's e1000_main.c is compiled whole and unchanged, its own
 * #include lines and headers with it, as the first thing in this file:
 * its functions are static, and this is how the glue reaches them.
 * e1000_hw.c and e1000_param.c are compiled beside it, as they are.
 * What follows is what probe and e1000_open would have done for the
 * transmit side of an 82540, the NIC's hook and the plugin.
 */
#include "e1000_main.c"

#include "realdrv_txp.h"

/* The adapter, and what probe would have allocated beside it. */
struct e1000_txp {
	struct e1000_adapter adapter;	/* first: netdev_priv() */
	struct pci_dev pdev;
	struct e1000_tx_ring tx_ring;
	struct e1000_rx_ring rx_ring;
};

/* ethtool is not part of the transmit path (e1000_ethtool.c is not built). */
void e1000_set_ethtool_ops(struct net_device *netdev)
{
	(void)netdev;
}

/* Nothing is received: the NAPI poll's receive half finds no work. */
static bool e1000_txp_no_rx(struct e1000_adapter *adapter, struct e1000_rx_ring *rx_ring,
			    int *work_done, int work_to_do)
{
	(void)adapter, (void)rx_ring, (void)work_done, (void)work_to_do;
	return false;
}

/* How the NIC reads a legacy descriptor (a context one carries no
 * bytes), and writes its status back: only where the driver asked for
 * it (Report Status), as the controller does. */
static void e1000_txp_desc_read(const void *d, struct txp_nic_desc *out)
{
	const struct e1000_tx_desc *desc = d;
	u32 lower = le32_to_cpu(desc->lower.data);
	bool context = (lower & E1000_TXD_CMD_DEXT) && !(lower & E1000_TXD_DTYP_D);

	*out = (struct txp_nic_desc){ context ? 0 : le64_to_cpu(desc->buffer_addr),
				      context ? 0 : lower & 0xffff, lower & E1000_TXD_CMD_EOP };
}

static void e1000_txp_desc_done(void *d)
{
	struct e1000_tx_desc *desc = d;

	if (desc->lower.data & cpu_to_le32(E1000_TXD_CMD_RS))
		desc->upper.data |= cpu_to_le32(E1000_TXD_STAT_DD);
}

static const struct txp_nic_tx_ops e1000_txp_nic = {
	.desc_size = sizeof(struct e1000_tx_desc), .read = e1000_txp_desc_read,
	.done = e1000_txp_desc_done, .cause_reg = E1000_ICR, .cause = E1000_ICR_TXDW,
};

/* Probe's share (an 82540 on a plain PCI bus), then e1000_open's
 * transmit half, then the ring for the NIC. */
static int e1000_txp_open(struct txp_dev *dev)
{
	struct net_device *netdev = txp_netdev(dev);
	struct e1000_txp *t = netdev_priv(netdev);
	struct e1000_adapter *adapter = &t->adapter;
	int err;

	netdev->netdev_ops = &e1000_netdev_ops;
	adapter->netdev = netdev;
	adapter->pdev = &t->pdev;
	adapter->hw.back = adapter;
	adapter->hw.hw_addr = txp_nic_regs();
	adapter->hw.mac_type = e1000_82540;
	adapter->msg_enable = netif_msg_init(-1, DEFAULT_MSG_ENABLE);
	adapter->num_tx_queues = 1;
	adapter->tx_ring = &t->tx_ring;
	adapter->rx_ring = &t->rx_ring;
	adapter->clean_rx = e1000_txp_no_rx;
	t->tx_ring.count = txp_plugin_ring(dev);
	err = e1000_setup_all_tx_resources(adapter);
	if (err)
		return err;
	e1000_configure_tx(adapter);
	netif_napi_add(netdev, &adapter->napi, e1000_clean);
	err = e1000_request_irq(adapter);
	if (err)
		return err;
	e1000_irq_enable(adapter);
	netif_start_queue(netdev);
	return txp_nic_tx_ring(&e1000_txp_nic, t->tx_ring.desc, t->tx_ring.count, E1000_TDT);
}

/* e1000_close's transmit half: every buffer unmapped and freed. */
static int e1000_txp_close(struct net_device *netdev)
{
	struct e1000_adapter *adapter = netdev_priv(netdev);

	set_bit(__E1000_DOWN, &adapter->flags);
	e1000_free_irq(adapter);
	e1000_free_all_tx_resources(adapter);
	return 0;
}

static void e1000_txp_stop(struct txp_dev *dev)
{
	(void)e1000_txp_close(txp_netdev(dev));
}

REALDRV_TXP_PLUGIN(e1000_txp, "e1000", "82540", struct e1000_txp, E1000_DEFAULT_TXD, e1000_txp_open,
		   e1000_txp_stop, e1000_clean);
