/*
 * kick_ring.c - a driver in the kernel's style whose doorbell carries no
 * index (txp_nic_tx_ring_kick(), as r8169's TxPoll), for
 * tests/cli/kick_ring.sh: one descriptor a packet, the queue stopped only
 * when the ring is full, so that the NIC is kicked with a ring announced
 * full, which it must tell from an empty one.
 */
#include "txpath/kernel.h"

#define KR_KICK 0x0038		/* the kick register */

struct kr_desc {
	__le64 addr;
	__le32 len;
	__le32 own;		/* 1: the NIC's */
};

struct kr_adapter {
	struct net_device *netdev;
	struct pci_dev pci;
	struct napi_struct napi;
	struct kr_desc *desc;
	struct sk_buff **skb;
	dma_addr_t dma;
	unsigned int count;
	/* Free-running, and read and written marked only: a plain read
	 * of a marked store is not seen in an uninstrumented build (the
	 * sanitizers'), where a buffered store would be missed. */
	unsigned int prod;	/* start_xmit's */
	unsigned int cons;	/* the poll's */
	void __iomem *regs;
};

static unsigned int kr_free(struct kr_adapter *a)
{
	/* Acquire: pairs with the poll's release; a slot counted free is
	 * done with. */
	return a->count - (READ_ONCE(a->prod) - smp_load_acquire(&a->cons));
}

/* Synchronization: the core's xmit lock.  Context: BH.  Return: OK, or
 * BUSY (the queue stopped) when the ring is full, which the stop after
 * the last post makes impossible. */
static netdev_tx_t kr_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct kr_adapter *a = netdev_priv(dev);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	unsigned int prod = READ_ONCE(a->prod);
	struct kr_desc *d = &a->desc[prod % a->count];

	/* The slot free, as the poll left it (kr_free's acquire). */
	if (unlikely(!netif_txq_maybe_stop(txq, kr_free(a), 1, 1)))
		return NETDEV_TX_BUSY;
	d->addr = cpu_to_le64(dma_map_single(&a->pci.dev, skb->data, skb->len, DMA_TO_DEVICE));
	d->len = cpu_to_le32(skb->len);
	d->own = cpu_to_le32(1);
	a->skb[prod % a->count] = skb;
	netdev_tx_sent_queue(txq, skb->len);
	/* Release: pairs with the acquire of kr_posted() and kr_poll(). */
	smp_store_release(&a->prod, prod + 1);
	netif_txq_maybe_stop(txq, kr_free(a), 1, 1);
	writel(1, a->regs + KR_KICK);
	return NETDEV_TX_OK;
}

/* Context: the completion's NAPI poll.  Return: packets freed. */
static int kr_poll(struct napi_struct *napi, int budget)
{
	struct kr_adapter *a = container_of(napi, struct kr_adapter, napi);
	unsigned int done = 0, bytes = 0, cons = READ_ONCE(a->cons);

	while (cons != smp_load_acquire(&a->prod) && !a->desc[cons % a->count].own) {
		struct kr_desc *d = &a->desc[cons % a->count];

		dma_unmap_single(&a->pci.dev, le64_to_cpu(d->addr), le32_to_cpu(d->len), DMA_TO_DEVICE);
		bytes += le32_to_cpu(d->len);
		napi_consume_skb(a->skb[cons % a->count], budget);
		/* Release: the slot's reads above come before its reuse. */
		smp_store_release(&a->cons, ++cons);
		done++;
	}
	netif_txq_completed_wake(netdev_get_tx_queue(a->netdev, 0), done, bytes, kr_free(a), 1);
	napi_complete_done(napi, (int)done);
	return (int)done;
}

static const struct net_device_ops kr_ops = {
	.ndo_start_xmit = kr_xmit,
};

/* The NIC's hook: a descriptor is a packet; done, it is the driver's. */
static void kr_desc_read(const void *p, struct txp_nic_desc *out)
{
	const struct kr_desc *d = p;

	*out = (struct txp_nic_desc){ le64_to_cpu(d->addr), le32_to_cpu(d->len), true };
}

static void kr_desc_done(void *p)
{
	((struct kr_desc *)p)->own = 0;
}

static const struct txp_nic_tx_ops kr_nic = {
	.desc_size = sizeof(struct kr_desc), .read = kr_desc_read, .done = kr_desc_done,
};

/* The kick carries no index: what the driver posted is prod. */
static unsigned int kr_posted(struct txp_dev *dev)
{
	struct kr_adapter *a = netdev_priv(txp_netdev(dev));

	return smp_load_acquire(&a->prod);
}

static int kr_open(struct txp_dev *dev)
{
	struct net_device *netdev = txp_netdev(dev);
	struct kr_adapter *a = netdev_priv(netdev);

	netdev->netdev_ops = &kr_ops;
	a->netdev = netdev;
	a->count = txp_plugin_ring(dev);
	a->regs = txp_nic_regs();
	a->desc = dma_alloc_coherent(&a->pci.dev, a->count * sizeof(*a->desc), &a->dma, GFP_KERNEL);
	a->skb = kcalloc(a->count, sizeof(*a->skb), GFP_KERNEL);
	if (!a->desc || !a->skb)
		return -ENOMEM;
	netif_napi_add(netdev, &a->napi, kr_poll);
	return txp_nic_tx_ring_kick(&kr_nic, a->desc, a->count, KR_KICK, kr_posted);
}

/* Down: what the NIC never took, unmapped and freed. */
static void kr_stop(struct txp_dev *dev)
{
	struct kr_adapter *a = netdev_priv(txp_netdev(dev));

	for (unsigned int cons = READ_ONCE(a->cons); cons != READ_ONCE(a->prod); cons++) {
		struct kr_desc *d = &a->desc[cons % a->count];

		dma_unmap_single(&a->pci.dev, le64_to_cpu(d->addr), le32_to_cpu(d->len), DMA_TO_DEVICE);
		dev_kfree_skb_any(a->skb[cons % a->count]);
	}
	kfree(a->skb);
	dma_free_coherent(&a->pci.dev, a->count * sizeof(*a->desc), a->desc, a->dma);
}

static struct txp_plugin kick_ring = {
	TXP_PLUGIN_INIT,
	.name = "kick_ring",
	.summary = "a kicked ring that fills to its last descriptor",
	.lock = TXP_LOCK_CORE,
	.priv_size = TXP_NETDEV_PRIV_SIZE(sizeof(struct kr_adapter)),
	.ring = 4,
	.open = kr_open,
	.stop = kr_stop,
	.start_xmit = txp_ndo_start_xmit,
	.poll = kr_poll,
};
TXP_PLUGIN(kick_ring)
