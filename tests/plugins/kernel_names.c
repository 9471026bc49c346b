/*
 * kernel_names.c - every kernel name txpath/kernel.h provides, used once
 * as a driver uses it (and those of kernel_rest.h that have a value), so
 * that tests/cli/kernel_style.sh (headers) fails when one does not
 * compile under -Wall -Wextra -Werror; the values it
 * can compute without a device are checked when it runs as a program
 * (-DKERNEL_NAMES_MAIN: the device's names left out, linked with
 * libtxpath for the atomics).
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ip.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/checksum.h>
#include <net/netdev_queues.h>

MODULE_LICENSE("GPL");
MODULE_AUTHOR("txpath");
MODULE_DESCRIPTION("every name");

struct names {
	struct napi_struct napi;
	struct delayed_work work;
	struct u64_stats_sync syncp;
	u64_stats_t bytes;
	atomic_t pending;
	struct pci_dev *pdev;
	DEFINE_DMA_UNMAP_ADDR(dma);
	DEFINE_DMA_UNMAP_LEN(len);
	void __iomem *hw;
};

#ifndef KERNEL_NAMES_MAIN
static void names_work(struct work_struct *work)
{
	struct delayed_work *dw = container_of(work, struct delayed_work, work);

	(void)dw;
}

static irqreturn_t names_intr(int irq, void *data)
{
	struct names *n = data;

	(void)irq;
	if (napi_schedule_prep(&n->napi))
		__napi_schedule(&n->napi);
	napi_schedule(&n->napi);
	return IRQ_HANDLED;
}

static int names_poll(struct napi_struct *napi, int budget)
{
	if (budget)
		napi_complete_done(napi, 0);
	else
		napi_complete(napi);
	return 0;
}

/* The transmit path's names, on one packet. */
int names_xmit(struct sk_buff *skb, struct net_device *dev, struct names *n);
int names_xmit(struct sk_buff *skb, struct net_device *dev, struct names *n)
{
	struct device *d = &n->pdev->dev;
	struct netdev_queue *txq = netdev_get_tx_queue(dev, 0);
	unsigned int i, frags = skb_shinfo(skb)->nr_frags, used = 0;
	unsigned long start = jiffies;
	dma_addr_t a;

	if (skb_put_padto(skb, ETH_ZLEN) || eth_skb_pad(skb))
		return NETDEV_TX_OK;
	a = dma_map_single(d, skb->data, skb_headlen(skb), DMA_TO_DEVICE);
	if (dma_mapping_error(d, a))
		return NETDEV_TX_BUSY;
	dma_unmap_addr_set(n, dma, a);
	dma_unmap_len_set(n, len, skb_headlen(skb));
	dma_unmap_single(d, dma_unmap_addr(n, dma), dma_unmap_len(n, len), DMA_TO_DEVICE);
	for (i = 0; i < frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];

		a = skb_frag_dma_map(d, f, 0, skb_frag_size(f), DMA_TO_DEVICE);
		dma_unmap_page(d, a, skb_frag_size(f), DMA_TO_DEVICE);
		a = dma_map_page(d, skb_frag_page(f), skb_frag_off(f), skb_frag_size(f), DMA_TO_DEVICE);
		dma_unmap_page(d, a, skb_frag_size(f), DMA_TO_DEVICE);
		used += (skb_frag_address(f) != NULL);
	}
	if (skb_is_gso(skb) || skb_vlan_tag_present(skb) || skb->ip_summed == CHECKSUM_PARTIAL ||
	    skb_is_nonlinear(skb) != (skb->data_len != 0) || skb->no_fcs || skb->cb[0] ||
	    skb->protocol != htons(ETH_P_IP) || skb_vlan_tag_get(skb) || skb->gso_segs ||
	    skb->gso_type & SKB_GSO_TCPV4 || skb_checksum_start_offset(skb) || skb->csum_offset)
		netdev_dbg(dev, "offloads %u %u\n", used, MAX_SKB_FRAGS);
	skb_tx_timestamp(skb);
	dma_wmb();
	writel(cpu_to_le32(1), n->hw);
	writew(cpu_to_le16(2), n->hw);
	writeb(3, n->hw);
	writeq(cpu_to_le64(4), n->hw);
	writel_relaxed(5, n->hw);
	iowrite32(readl(n->hw) + readw(n->hw) + readb(n->hw) + ioread32(n->hw), n->hw);
	dma_rmb();
	if (!__netdev_sent_queue(dev, skb->len, netdev_xmit_more()) && netif_carrier_ok(dev) &&
	    netif_running(dev))
		netif_subqueue_maybe_stop(dev, 0, used, 1, 2);
	netif_subqueue_try_stop(dev, 0, used, 2);
	netif_subqueue_completed_wake(dev, 0, 1, skb->len, used, 2);
	netdev_sent_queue(dev, skb->len);
	netdev_completed_queue(dev, 1, skb->len);
	if (__netif_subqueue_stopped(dev, 0))
		netif_wake_subqueue(dev, 0);
	netif_stop_subqueue(dev, 0);
	netif_start_queue(dev);
	netif_tx_start_queue(txq);
	u64_stats_update_begin(&n->syncp);
	u64_stats_add(&n->bytes, skb->len);
	u64_stats_inc(&n->bytes);
	u64_stats_update_end(&n->syncp);
	do
		i = u64_stats_fetch_begin(&n->syncp);
	while (u64_stats_fetch_retry(&n->syncp, i));
	dev_sw_netstats_tx_add(dev, 1, u64_stats_read(&n->bytes));
	if (time_after(jiffies, start + msecs_to_jiffies(5)) || time_before(jiffies, start) ||
	    time_after_eq(start, jiffies + usecs_to_jiffies(1)) || jiffies_to_msecs(HZ) != 1000)
		pr_info("late\n");
	if (WARN_ON_ONCE(atomic_read(&n->pending) < 0))
		dev_warn(d, "pending\n");
	BUG_ON(atomic_inc_return(&n->pending) < 0);
	napi_consume_skb(skb, 64);
	return NETDEV_TX_OK;
}

/* The rest: set-up names. */
int names_open(struct net_device *dev, struct names *n);
int names_open(struct net_device *dev, struct names *n)
{
	dma_addr_t ring_dma;
	void *ring = dma_alloc_coherent(&n->pdev->dev, 64, &ring_dma, GFP_KERNEL);
	void *buf = kzalloc(8, GFP_KERNEL);

	kfree(kmalloc(8, GFP_ATOMIC));
	kfree(kcalloc(2, 8, GFP_KERNEL));
	kfree(kmalloc_array(2, 8, GFP_KERNEL));
	vfree(vzalloc(8));
	kfree(buf);
	dma_free_coherent(&n->pdev->dev, 64, ring, ring_dma);
	u64_stats_init(&n->syncp);
	u64_stats_set(&n->bytes, 0);
	atomic_set(&n->pending, 0);
	INIT_DELAYED_WORK(&n->work, names_work);
	schedule_delayed_work(&n->work, HZ);
	cancel_delayed_work(&n->work);
	cancel_delayed_work_sync(&n->work);
	netif_napi_add(dev, &n->napi, names_poll);
	napi_enable(&n->napi);
	napi_disable(&n->napi);
	netif_napi_del(&n->napi);
	netif_carrier_on(dev);
	netif_carrier_off(dev);
	free_irq(n->pdev->irq, n);
	dev_err(&n->pdev->dev, "%d\n", 1);
	dev_info(&n->pdev->dev, "%d\n", 1);
	dev_dbg(&n->pdev->dev, "%d\n", 1);
	netdev_warn(dev, "%d\n", 1);
	netdev_info(dev, "%d\n", 1);
	pr_err("%d\n", 1);
	pr_warn("%d\n", 1);
	pr_notice("%d\n", 1);
	pr_debug("%d\n", 1);
	return request_irq(n->pdev->irq, names_intr, IRQF_SHARED, "names", n);
}

#endif

#define CONFIG_TXP_NAMES_ON 1

/* r8169's names (its transmit path's headers, kernel_platform.h's
 * helpers) on skb, whose frame has an IPv4 header of 20 bytes: 1 if each
 * is right. */
static int names_r8169(struct sk_buff *skb, unsigned char *frame)
{
	struct udphdr udp;
	u8 le[4];
	int ok = 1;

	ok &= ip_hdrlen(skb) == 20 && tcp_hdrlen(skb) == 20 && skb_transport_header_was_set(skb);
	ok &= skb_transport_header(skb) == frame + 34 && (void *)udp_hdr(skb) == frame + 34;
	ok &= skb_header_pointer(skb, 14, 20, &udp) == frame + 14 &&
	      !skb_header_pointer(skb, 60, sizeof(udp), &udp);
	ok &= swab16(0x1234) == 0x3412 && swab32(0x12345678u) == 0x78563412u;
	put_unaligned_le32(0x11223344u, le);
	ok &= le[0] == 0x44 && get_unaligned_le32(le) == 0x11223344u && get_unaligned_le16(le) == 0x3344;
	put_unaligned_le16(0xaabb, le);
	ok &= le[0] == 0xbb && le[2] == 0x22;
	ok &= IS_ENABLED(CONFIG_TXP_NAMES_ON) && !IS_ENABLED(CONFIG_TXP_NAMES_OFF);
	ok &= DIV_ROUND_CLOSEST(7, 2) == 4 && sizeof_field(struct udphdr, dest) == 2 &&
	      BITS_PER_BYTE == 8 && SZ_16K == 16384;
	ok &= IS_ERR(ERR_PTR(-ENODEV)) && PTR_ERR(ERR_PTR(-ENODEV)) == -ENODEV && !IS_ERR(frame);
	return ok;
}

/* The names of a whole driver file (txpath/kernel_rest.h) and of its
 * transmit path's headers and checksums, on a frame of its own: their
 * values, 1 if each is right. */
static int names_whole_file(void)
{
	unsigned char frame[64] = { 0 }, nd_area[TXP_NETDEV_PRIV_SIZE(8)] = { 0 };
	struct sk_buff skb = { .data = frame, .len = 64, .head_len = 64,
			       .protocol = htons(ETH_P_IP) };
	struct net_device *nd = (struct net_device *)(void *)nd_area;
	struct { int msg_enable; } adapter = { netif_msg_init(-1, NETIF_MSG_DRV | NETIF_MSG_LINK) };
	unsigned long bits[BITS_TO_LONGS(70)] = { 0 };
	const u8 bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, mcast[6] = { 1, 0, 0x5e };
	char name[4];
	unsigned int bit, seen = 0;
	int ok = 1;

	ip_hdr(&skb)->ihl = 5;
	ip_hdr(&skb)->saddr = 0x0100000a;	/* 10.0.0.1 and 10.0.0.2, as stored */
	ip_hdr(&skb)->daddr = 0x0200000a;
	tcp_hdr(&skb)->doff = 5;
	ok &= skb_network_offset(&skb) == ETH_HLEN && skb_transport_offset(&skb) == ETH_HLEN + 20;
	ok &= skb_tcp_all_headers(&skb) == ETH_HLEN + 40 && (void *)tcp_hdr(&skb) == frame + 34;
	ok &= skb_tail_pointer(&skb) == frame + 64 && vlan_get_protocol(&skb) == htons(ETH_P_IP);
	ok &= skb_cow_head(&skb, 0) == 0 && !skb_is_gso_v6(&skb) && !__pskb_pull_tail(&skb, 4);
	ok &= csum_tcpudp_magic(ip_hdr(&skb)->saddr, ip_hdr(&skb)->daddr, 0, 6, 0) == 0xf6eb;
	ok &= netif_msg_drv(&adapter) && netif_msg_link(&adapter) && !netif_msg_probe(&adapter);
	ok &= netif_msg_init(3, 0) == 7 && FIELD_GET(0xf0u, 0x5au) == 5 && FIELD_PREP(0xf0u, 3) == 0x30;
	ok &= strscpy(name, "e1000", sizeof(name)) == -E2BIG && strcmp(name, "e10") == 0;
	ok &= is_broadcast_ether_addr(bcast) && !is_broadcast_ether_addr(mcast) &&
	      is_multicast_ether_addr(mcast) && PAGE_SIZE == 4096;
	bits[0] = 1ul << 3;
	bits[1] = 1ul << 2;
	for_each_set_bit(bit, bits, 70)
		seen += bit;
	ok &= seen == 3 + BITS_PER_LONG + 2;
	ok &= (char *)netdev_priv(nd) - (char *)nd == ALIGN(sizeof(*nd), TXP_NETDEV_ALIGN);
	ok &= names_r8169(&skb, frame);
	return ok;
}

/* What needs no device: computed here, checked by the test. */
int names_values(void);
int names_values(void)
{
	atomic_t v = ATOMIC_INIT(5);
	unsigned long lockbits[2] = { 0, 0 };
	u32 x = 0x12345678;
	__le32 le = cpu_to_le32(x);
	__be16 be = cpu_to_be16(0x0800);
	u8 bytes[4];
	u64 wide = 0x1122334455667788ULL;
	int ok = 1;

	memcpy(bytes, &le, sizeof(bytes));
	ok &= bytes[0] == 0x78 && le32_to_cpu(le) == x && be16_to_cpu(be) == 0x0800;
	ok &= le16_to_cpu(cpu_to_le16(0xabcd)) == 0xabcd && le64_to_cpu(cpu_to_le64(wide)) == wide;
	ok &= be32_to_cpu(cpu_to_be32(x)) == x && ntohs(htons(0x86dd)) == 0x86dd;
	ok &= min(3, 4) == 3 && max(3u, 4u) == 4u && min_t(int, -1, 2u) == -1 && max_t(u8, 300, 2) == 44;
	ok &= clamp(9, 1, 5) == 5 && BIT(3) == 8 && BIT_ULL(40) == (1ULL << 40) && GENMASK(7, 4) == 0xf0;
	ok &= ALIGN(13u, 8) == 16 && IS_ALIGNED(16u, 8) && DIV_ROUND_UP(9, 4) == 3;
	ok &= ARRAY_SIZE(bytes) == 4 && upper_32_bits(wide) == 0x11223344 &&
	      lower_32_bits(wide) == 0x55667788;
	ok &= fls(0) == 0 && fls(1) == 1 && fls(0x80000000u) == 32 && ffs(8) == 4;
	atomic_add(2, &v);
	atomic_sub(1, &v);
	atomic_inc(&v);
	atomic_dec(&v);
	ok &= atomic_read(&v) == 6 && atomic_add_return(4, &v) == 10 && atomic_sub_return(3, &v) == 7;
	ok &= atomic_dec_return(&v) == 6 && atomic_xchg(&v, 1) == 6 && atomic_dec_and_test(&v);
	ok &= atomic_inc_and_test(&v) == 0 && atomic_cmpxchg(&v, 1, 9) == 1 && atomic_read(&v) == 9;
	ok &= atomic_add_return(1, &v) == 10 && atomic_fetch_add_relaxed(1, &v) == 10;
	ok &= atomic_fetch_add_acquire(1, &v) == 11 && atomic_fetch_add_release(1, &v) == 12;
	ok &= atomic_add_return_relaxed(2, &v) == 15 && atomic_add_return_acquire(2, &v) == 17;
	ok &= atomic_add_return_release(2, &v) == 19 && atomic_inc_return_relaxed(&v) == 20;
	ok &= atomic_inc_return_acquire(&v) == 21 && atomic_inc_return_release(&v) == 22;
	ok &= atomic_dec_return_relaxed(&v) == 21 && atomic_dec_return_acquire(&v) == 20;
	ok &= atomic_dec_return_release(&v) == 19 && atomic_xchg_relaxed(&v, 3) == 19;
	ok &= atomic_xchg_acquire(&v, 4) == 3 && atomic_xchg_release(&v, 5) == 4;
	ok &= atomic_cmpxchg_relaxed(&v, 5, 6) == 5 && atomic_cmpxchg_acquire(&v, 5, 7) == 6;
	ok &= atomic_cmpxchg_release(&v, 6, 8) == 6 && atomic_read_acquire(&v) == 8;
	atomic_set_release(&v, 1);
	ok &= atomic_read(&v) == 1;
	ok &= !test_and_set_bit_lock(67, lockbits) && test_and_set_bit_lock(67, lockbits) &&
	      lockbits[1] == 8;
	clear_bit_unlock(67, lockbits);
	ok &= lockbits[1] == 0;
	BUILD_BUG_ON(sizeof(u64_stats_t) != 8);
	prefetch(&v);
	prefetchw(&v);
	ok &= names_whole_file();
	return ok;
}

#ifdef KERNEL_NAMES_MAIN
int main(void)
{
	return names_values() ? 0 : 1;
}
#endif
