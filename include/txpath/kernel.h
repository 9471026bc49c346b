/*
 * txpath/kernel.h - the rest of the kernel's names a real driver's
 * transmit path uses, beyond txpath/linux.h's locks, flow control and
 * barriers: byte order, helpers, atomic_t, logging, jiffies, the skb's
 * fragments and offload fields, DMA, MMIO, NAPI, the 6.x queue helpers.
 * Each maps onto the public API (linux.h, nic.h, pkt.h, sync.h), so the
 * explorer, the validator and the accounting see it.
 *
 * A driver does not include this file: it keeps its own #include lines
 * (<linux/netdevice.h>, <linux/dma-mapping.h>, ...), which resolve to
 * txpath/kernel/ through `txpath config --cflags` (and --run-cflags),
 * each of them this file.  That directory holds only names the kernel's
 * user-space headers (Debian's /usr/include/linux) do not have, but for
 * netdevice.h, pci.h and if_vlan.h, which include those first
 * (#include_next): nothing the C library includes is replaced.
 *
 * Modelled: everything but what the list below calls a stub.  Stubs
 * (they compile and do nothing): dev_sw_netstats_tx_add, the
 * u64_stats_sync sequence (as on a 64-bit kernel: its counters are
 * plain), skb_tx_timestamp, netif_carrier_* (the carrier is always on),
 * napi_enable/napi_disable (the completion context starts and stops with
 * the device), schedule_delayed_work and cancel_delayed_work (the work
 * never runs), prefetch.  struct net_device is the kernel's, its fields
 * a driver's to read and set (dev->stats, features, mtu, ...), txpath
 * reading none but netdev_ops.  What a whole driver file uses outside its
 * transmit path (probe, PCI, the receive path, ethtool, timers; phylib,
 * clocks, firmware and runtime power management: txpath/kernel_platform.h)
 * is declared or stubbed by txpath/kernel_rest.h, included at the end.
 * Not provided: TSO segmentation by the NIC.
 */
#ifndef TXPATH_KERNEL_H
#define TXPATH_KERNEL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_ether.h>	/* ETH_ALEN, ETH_ZLEN, ETH_P_*: user-space's */
#include <linux/types.h>	/* __le16 ... __be64: user-space's */
#ifndef __NETINET_UDP_H
#include <linux/udp.h>		/* struct udphdr (udp_hdr): user-space's, unless the C library's came first */
#endif

/* A driver's struct net_device is the kernel's (below), standing for
 * txpath's device: linux.h's names take it through TXP_NETDEV. */
#define TXP_NETDEV(dev) ((dev)->txp)

#include "txpath/linux.h"
#include "txpath/nic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -- types, attributes and byte order -------------------------------------------------- */

typedef int8_t s8;
typedef int16_t s16;
typedef long long s64;
typedef txp_dma_addr_t dma_addr_t;
typedef size_t gfp_t;

#define __iomem
#define __force
#define __must_check __attribute__((warn_unused_result))
#define __maybe_unused __attribute__((unused))
#define __always_unused __attribute__((unused))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define ____cacheline_aligned __aligned(64)
#define GFP_KERNEL 0u
#define GFP_ATOMIC 1u

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define cpu_to_le16(x) ((__le16)(x))
#define cpu_to_le32(x) ((__le32)(x))
#define cpu_to_le64(x) ((__le64)(x))
#define cpu_to_be16(x) ((__be16)__builtin_bswap16(x))
#define cpu_to_be32(x) ((__be32)__builtin_bswap32(x))
#else
#define cpu_to_le16(x) ((__le16)__builtin_bswap16(x))
#define cpu_to_le32(x) ((__le32)__builtin_bswap32(x))
#define cpu_to_le64(x) ((__le64)__builtin_bswap64(x))
#define cpu_to_be16(x) ((__be16)(x))
#define cpu_to_be32(x) ((__be32)(x))
#endif
#define le16_to_cpu(x) ((u16)cpu_to_le16(x))
#define le32_to_cpu(x) ((u32)cpu_to_le32(x))
#define le64_to_cpu(x) ((u64)cpu_to_le64(x))
#define be16_to_cpu(x) ((u16)cpu_to_be16(x))
#define be32_to_cpu(x) ((u32)cpu_to_be32(x))
#define swab16(x) ((u16)__builtin_bswap16(x))
#define swab32(x) ((u32)__builtin_bswap32(x))
/* The kernel's htons() is a constant expression (a driver's case label).
 * The C library declares a function of that name in <netinet/in.h>,
 * which a macro would garble if that header came later: it is included
 * here first, its declaration kept and its macros replaced.  After
 * <linux/in.h> it is not (the two do not go together in that order,
 * with txpath or without). */
#ifndef _LINUX_IN_H
#include <netinet/in.h>
#endif
#undef htons
#undef ntohs
#define htons(x) cpu_to_be16(x)
#define ntohs(x) be16_to_cpu(x)

/* -- helpers (linux/kernel.h, minmax.h, bits.h, bitops.h) -------------------------------- */

#define min(a, b) __extension__({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) __extension__({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define clamp(v, lo, hi) min(max((v), (lo)), (hi))
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define GENMASK(h, l) (((~0UL) >> (sizeof(long) * 8 - 1 - (h))) & (~0UL << (l)))
#define ALIGN(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))
#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#define BUILD_BUG_ON(c) ((void)sizeof(char[1 - 2 * !!(c)]))
#define prefetch(p) ((void)(p))
#define prefetchw(p) ((void)(p))

/* Memory (linux/slab.h): the C library's. */
#define kmalloc(size, gfp)       ((void)(gfp), malloc(size))
#define kzalloc(size, gfp)       ((void)(gfp), calloc(1, (size)))
#define kcalloc(n, size, gfp)    ((void)(gfp), calloc((n), (size)))
#define kmalloc_array(n, size, gfp) kcalloc((n), (size), (gfp))
#define kfree(p)                 free(p)
#define vzalloc(size)            calloc(1, (size))
#define vfree(p)                 free(p)

/* The module's declarations (linux/module.h): nothing to declare. */
#define MODULE_LICENSE(s)        _Static_assert(1, s)
#define MODULE_AUTHOR(s)         _Static_assert(1, s)
#define MODULE_DESCRIPTION(s)    _Static_assert(1, s)

/* fls: the last (most significant) bit set, 1-based; 0 for 0. */
static inline int fls(unsigned int x)
{
	return x ? (int)(sizeof(x) * 8) - __builtin_clz(x) : 0;
}

#define ffs(x) __builtin_ffs(x)

/* -- atomic_t (the seam's atomics: the explorer schedules each) -------------------------- */

typedef struct {
	int counter;
} atomic_t;

#define ATOMIC_INIT(i) { (i) }
#define atomic_read(v) ((int)txp_atomic_load(&(v)->counter, sizeof(int), TXP_RELAXED))
#define atomic_set(v, i) \
	txp_atomic_store_named(&(v)->counter, sizeof(int), (uint64_t)(unsigned)(i), TXP_RELAXED, #v)
/* The value-returning forms are fully ordered, the others relaxed, as
 * the Linux memory model has them. */
#define atomic_add_return(i, v) \
	((int)txp_atomic_fetch_add(&(v)->counter, sizeof(int), (uint64_t)(unsigned)(i), TXP_SEQ_CST) + (i))
#define atomic_add(i, v) \
	((void)txp_atomic_fetch_add(&(v)->counter, sizeof(int), (uint64_t)(unsigned)(i), TXP_RELAXED))
#define atomic_sub(i, v)          atomic_add(-(i), (v))
#define atomic_inc(v)             atomic_add(1, (v))
#define atomic_dec(v)             atomic_add(-1, (v))
#define atomic_sub_return(i, v)   atomic_add_return(-(i), (v))
#define atomic_inc_return(v)      atomic_add_return(1, (v))
#define atomic_dec_return(v)      atomic_add_return(-1, (v))
#define atomic_dec_and_test(v)    (atomic_dec_return(v) == 0)
#define atomic_inc_and_test(v)    (atomic_inc_return(v) == 0)
#define atomic_xchg(v, i) \
	((int)txp_atomic_xchg(&(v)->counter, sizeof(int), (uint64_t)(unsigned)(i), TXP_SEQ_CST))

static inline int atomic_cmpxchg(atomic_t *v, int old, int val)
{
	uint64_t expected = (unsigned)old;

	txp_atomic_cmpxchg(&v->counter, sizeof(int), &expected, (unsigned)val, TXP_SEQ_CST);
	return (int)expected;
}

/* The _relaxed, _acquire and _release forms, ordered as their names say
 * (txpath/sync.h's orders: under tso each is a locked instruction all
 * the same).  atomic_cmpxchg's forms are fully ordered whatever their
 * suffix: stronger than the kernel's, so a bug that needs a relaxed
 * compare-and-exchange is not found.  No atomic_fetch_add(): C11's
 * <stdatomic.h>, which txpath's headers include, has the name. */
#define txp__atomic_fetch_add(i, v, o) \
	((int)txp_atomic_fetch_add(&(v)->counter, sizeof(int), (uint64_t)(unsigned)(i), (o)))
#define atomic_fetch_add_relaxed(i, v)     txp__atomic_fetch_add((i), (v), TXP_RELAXED)
#define atomic_fetch_add_acquire(i, v)     txp__atomic_fetch_add((i), (v), TXP_ACQUIRE)
#define atomic_fetch_add_release(i, v)     txp__atomic_fetch_add((i), (v), TXP_RELEASE)
#define atomic_add_return_relaxed(i, v)    (atomic_fetch_add_relaxed((i), (v)) + (i))
#define atomic_add_return_acquire(i, v)    (atomic_fetch_add_acquire((i), (v)) + (i))
#define atomic_add_return_release(i, v)    (atomic_fetch_add_release((i), (v)) + (i))
#define atomic_inc_return_relaxed(v)       atomic_add_return_relaxed(1, (v))
#define atomic_inc_return_acquire(v)       atomic_add_return_acquire(1, (v))
#define atomic_inc_return_release(v)       atomic_add_return_release(1, (v))
#define atomic_dec_return_relaxed(v)       atomic_add_return_relaxed(-1, (v))
#define atomic_dec_return_acquire(v)       atomic_add_return_acquire(-1, (v))
#define atomic_dec_return_release(v)       atomic_add_return_release(-1, (v))
#define txp__atomic_xchg(v, i, o) \
	((int)txp_atomic_xchg(&(v)->counter, sizeof(int), (uint64_t)(unsigned)(i), (o)))
#define atomic_xchg_relaxed(v, i)          txp__atomic_xchg((v), (i), TXP_RELAXED)
#define atomic_xchg_acquire(v, i)          txp__atomic_xchg((v), (i), TXP_ACQUIRE)
#define atomic_xchg_release(v, i)          txp__atomic_xchg((v), (i), TXP_RELEASE)
#define atomic_cmpxchg_relaxed(v, o, n)    atomic_cmpxchg((v), (o), (n))
#define atomic_cmpxchg_acquire(v, o, n)    atomic_cmpxchg((v), (o), (n))
#define atomic_cmpxchg_release(v, o, n)    atomic_cmpxchg((v), (o), (n))
#define atomic_read_acquire(v) ((int)txp_atomic_load(&(v)->counter, sizeof(int), TXP_ACQUIRE))
#define atomic_set_release(v, i) \
	txp_atomic_store_named(&(v)->counter, sizeof(int), (uint64_t)(unsigned)(i), TXP_RELEASE, #v)

/* The bit lock's halves: test_and_set_bit_lock() an acquire (a set bit
 * already: false, nothing ordered), clear_bit_unlock() a release. */
static inline bool test_and_set_bit_lock(unsigned nr, volatile unsigned long *addr)
{
	unsigned long mask = 1ul << (nr % (8 * sizeof(long)));

	return txp_atomic_fetch_or(addr + nr / (8 * sizeof(long)), sizeof(long), mask,
				   TXP_ACQUIRE) & mask;
}

static inline void clear_bit_unlock(unsigned nr, volatile unsigned long *addr)
{
	unsigned long mask = 1ul << (nr % (8 * sizeof(long)));

	txp_atomic_fetch_and(addr + nr / (8 * sizeof(long)), sizeof(long), ~mask, TXP_RELEASE);
}

/* -- logging ------------------------------------------------------------------------- */

#define KERN_NOTICE  KERN_SOH "5"
#define pr_err(fmt, ...)     printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)    printk(KERN_WARNING fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...)  printk(KERN_NOTICE fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)    printk(KERN_INFO fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)   printk(KERN_DEBUG fmt, ##__VA_ARGS__)
#define dev_err(d, fmt, ...)  ((void)(d), pr_err(fmt, ##__VA_ARGS__))
#define dev_warn(d, fmt, ...) ((void)(d), pr_warn(fmt, ##__VA_ARGS__))
#define dev_info(d, fmt, ...) ((void)(d), pr_info(fmt, ##__VA_ARGS__))
#define dev_dbg(d, fmt, ...)  ((void)(d), pr_debug(fmt, ##__VA_ARGS__))
#define netdev_warn(dev, fmt, ...) \
	txp_plugin_printk_at(__func__, KERN_WARNING "%s: " fmt, txp_dev_name(TXP_NETDEV(dev)), ##__VA_ARGS__)
#define netdev_info(dev, fmt, ...) \
	txp_plugin_printk_at(__func__, KERN_INFO "%s: " fmt, txp_dev_name(TXP_NETDEV(dev)), ##__VA_ARGS__)
#define netdev_dbg(dev, fmt, ...) \
	txp_plugin_printk_at(__func__, KERN_DEBUG "%s: " fmt, txp_dev_name(TXP_NETDEV(dev)), ##__VA_ARGS__)
/* A warning that is a bug of the driver: logged as "BUG", which the
 * explorer reports (bug-log). */
#define WARN_ON(c) \
	__extension__({ bool _c = !!(c); if (unlikely(_c)) printk(KERN_ERR "BUG! WARN_ON(%s)", #c); _c; })
#define WARN_ON_ONCE(c) WARN_ON(c)
#define BUG_ON(c) ((void)WARN_ON(c))
#define BUG() ((void)WARN_ON(1))

/* -- time ---------------------------------------------------------------------------------- */

#define HZ TXP_HZ
#define jiffies txp_plugin_jiffies()
#define time_after(a, b)     ((long)((b) - (a)) < 0)
#define time_before(a, b)    time_after(b, a)
#define time_after_eq(a, b)  ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)
#define msecs_to_jiffies(ms) ((unsigned long)(ms) * HZ / 1000)
#define jiffies_to_msecs(j)  ((unsigned int)((j) * 1000 / HZ))
#define usecs_to_jiffies(us) DIV_ROUND_UP((unsigned long)(us) * HZ, 1000000)

/* Delayed work: a stub, it never runs (the transmit path does not
 * depend on it: a watchdog's or a statistics timer's). */
struct work_struct {
	void (*func)(struct work_struct *work);
};
struct delayed_work {
	struct work_struct work;
};
#define INIT_WORK(w, f)           ((w)->func = (f))
#define INIT_DELAYED_WORK(w, f)   INIT_WORK(&(w)->work, (f))

static inline bool schedule_work(struct work_struct *work)
{
	(void)work;
	return true;
}

static inline bool schedule_delayed_work(struct delayed_work *work, unsigned long delay)
{
	(void)work, (void)delay;
	return true;
}

static inline bool cancel_work_sync(struct work_struct *work)
{
	(void)work;
	return false;
}

static inline bool cancel_delayed_work(struct delayed_work *work)
{
	(void)work;
	return false;
}
#define cancel_delayed_work_sync(w) cancel_delayed_work(w)

/* -- the skb: head, fragments, offload fields (linux/skbuff.h) --------------------------- */

#define MAX_SKB_FRAGS TXP_MAX_FRAGS
#define skb_shared_info txp_pkt	/* skb_shinfo(skb) is the packet itself */
typedef struct txp_frag skb_frag_t;
/* A page is named by its first byte: a fragment is at offset 0 of its own. */
struct page;
#define page_address(page)      ((void *)(page))
#define skb_frag_size(f)        ((f)->len)
#define skb_frag_address(f)     ((f)->data)
#define skb_frag_page(f)        ((struct page *)(f)->data)
#define skb_frag_off(f)         0u
#define skb_is_nonlinear(skb)   ((skb)->data_len != 0)
#define skb_is_gso(skb)         ((skb)->gso_size != 0)
#define skb_vlan_tag_present(skb) ((skb)->vlan_proto != 0)
#define skb_vlan_tag_get(skb)   ((skb)->vlan_tci)
#define skb_checksum_start_offset(skb) ((skb)->csum_start)
#define skb_tx_timestamp(skb)   ((void)(skb))

#define CHECKSUM_NONE        0
#define CHECKSUM_UNNECESSARY 1
#define CHECKSUM_COMPLETE    2
#define CHECKSUM_PARTIAL     3
#define SKB_GSO_TCPV4 (1u << 0)
#define SKB_GSO_UDP_L4 (1u << 1)
#define SKB_GSO_TCPV6 (1u << 4)
#define SKBTX_HW_TSTAMP (1u << 0)

/* The frame's headers (an Ethernet frame: txpath's producers send IPv4
 * in it): where the network and transport headers start, from data.
 * struct iphdr, ipv6hdr, tcphdr and in6_addr are those of the headers
 * the driver includes (<linux/ip.h>, ... user space's, or the C
 * library's): these names are macros, so that txpath includes neither,
 * whose user-space and C library versions clash when both are. */
#define skb_network_offset(skb) ((void)(skb), ETH_HLEN)
#define ip_hdr(skb)   ((struct iphdr *)((skb)->data + skb_network_offset(skb)))
#define ipv6_hdr(skb) ((struct ipv6hdr *)((skb)->data + skb_network_offset(skb)))
#define skb_transport_offset(skb) \
	(ETH_HLEN + ((skb)->protocol == htons(ETH_P_IPV6) ? 40 : ip_hdr(skb)->ihl * 4))
#define tcp_hdr(skb) ((struct tcphdr *)((skb)->data + skb_transport_offset(skb)))
#define skb_tcp_all_headers(skb) (skb_transport_offset(skb) + tcp_hdr(skb)->doff * 4)
#define ip_hdrlen(skb) (ip_hdr(skb)->ihl * 4)
#define tcp_hdrlen(skb) (tcp_hdr(skb)->doff * 4)
#define skb_transport_header(skb) ((skb)->data + skb_transport_offset(skb))
/* Every frame has its transport header where skb_transport_offset() says. */
#define skb_transport_header_was_set(skb) ((void)(skb), true)
#define udp_hdr(skb) ((struct udphdr *)skb_transport_header(skb))
/* len bytes at offset off of the frame: in the head, where they are;
 * past its end (in a fragment, or beyond the frame), NULL, as for a
 * frame too short (buf is never copied to). */
#define skb_header_pointer(skb, off, len, buf) \
	((void)(buf), (off) + (len) <= (skb)->head_len ? (void *)((skb)->data + (off)) : NULL)
#define skb_is_gso_v6(skb) (((skb)->gso_type & SKB_GSO_TCPV6) != 0)
#define skb_tail_pointer(skb) ((skb)->data + (skb)->head_len)
/* The protocol under a VLAN tag in the frame: txpath's frames carry
 * none (a tag to insert is skb->vlan_tci's), so skb->protocol. */
#define vlan_get_protocol(skb) ((__be16)(skb)->protocol)
/* Make the head writable: it is (a packet has one owner).  0. */
#define skb_cow_head(skb, headroom) ((void)(skb), (void)(headroom), 0)
/* Pull len bytes of the fragments into the head: never done (a TSO
 * workaround of one controller); NULL, as when memory is short. */
#define __pskb_pull_tail(skb, len) ((void)(skb), (void)(len), (void *)NULL)

/* The pseudo-header checksums a TSO driver seeds (net/checksum.h,
 * net/ip6_checksum.h): computed, folded to 16 bits. */
static inline u32 txp_csum_add(u32 sum, u32 v)
{
	sum += v;
	return sum + (sum < v);
}

static inline __sum16 txp_csum_fold(u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__sum16)~sum;
}

static inline __sum16 csum_tcpudp_magic(__be32 saddr, __be32 daddr, u32 len, u8 proto, u32 sum)
{
	sum = txp_csum_add(sum, saddr);
	sum = txp_csum_add(sum, daddr);
	sum = txp_csum_add(sum, cpu_to_be32(len + proto));
	return txp_csum_fold(sum);
}

/* IPv6's, over the 16 bytes of each address. */
static inline __sum16 txp_csum_ipv6_magic(const void *saddr, const void *daddr, u32 len,
					  u8 proto, u32 sum)
{
	u32 s32[4], d32[4];

	memcpy(s32, saddr, sizeof(s32));
	memcpy(d32, daddr, sizeof(d32));
	for (int i = 0; i < 4; i++)
		sum = txp_csum_add(txp_csum_add(sum, s32[i]), d32[i]);
	sum = txp_csum_add(sum, cpu_to_be32(len));
	sum = txp_csum_add(sum, cpu_to_be32(proto));
	return txp_csum_fold(sum);
}
#define csum_ipv6_magic(saddr, daddr, len, proto, sum) \
	txp_csum_ipv6_magic((saddr)->s6_addr, (daddr)->s6_addr, (len), (proto), (sum))

/* Seed a TCPv6 segment's checksum for TSO (tcp_v6_gso_csum_prep). */
#define tcp_v6_gso_csum_prep(skb) ((void)(ipv6_hdr(skb)->payload_len = 0,		\
	tcp_hdr(skb)->check = ~csum_ipv6_magic(&ipv6_hdr(skb)->saddr, &ipv6_hdr(skb)->daddr,	\
					       0, 6 /* IPPROTO_TCP */, 0)))

/* Pad the frame to len bytes with zeros (__skb_put_padto): 0; or, when
 * the head's buffer lacks the room, -ENOMEM, the packet freed (dropped)
 * first if free_on_error, as the kernel's. */
static inline int __skb_put_padto(struct sk_buff *skb, unsigned int len, bool free_on_error)
{
	uint32_t n = len > skb->len ? len - skb->len : 0;
	unsigned char *pad;

	if (!n)
		return 0;
	pad = skb->nr_frags ? NULL : txp_pkt_put(skb, n);
	if (!pad) {
		if (free_on_error)
			txp_plugin_free_deferred_at(skb, "skb_put_padto");
		return -ENOMEM;
	}
	memset(pad, 0, n);
	return 0;
}
#define skb_put_padto(skb, len) __skb_put_padto((skb), (len), true)
#define eth_skb_pad(skb) skb_put_padto((skb), ETH_ZLEN)

/* The frees of the completion path (napi_consume_skb: budget 0 is
 * netpoll's, any context). */
#define napi_consume_skb(skb, budget) ((void)(budget), txp_plugin_free_at((skb), __func__))

/* -- devices (struct device, struct pci_dev) --------------------------------------------- */

/* The DMA and logging calls take one and look no further: the plugin's
 * device is the one that is up. */
struct device {
	struct txp_dev *txp;
};
struct pci_bus {
	unsigned char number;
};
struct pci_dev {
	struct device dev;
	struct pci_bus *bus;
	unsigned int devfn, irq;
	int cfg_size;
	unsigned int multifunction : 1;
	unsigned short vendor, device, subsystem_vendor, subsystem_device;
	u8 revision;
	void *driver_data;	/* pci_set_drvdata */
};

/* -- DMA (linux/dma-mapping.h): by identity, followed under check (txpath/nic.h) -------- */

enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
	DMA_NONE = 3,
};
#define DMA_MAPPING_ERROR (~(dma_addr_t)0)

#define dma_map_single(d, ptr, size, dir) \
	((void)(d), (void)(dir), txp_dma_map_at((ptr), (size), __func__))
#define dma_unmap_single(d, addr, size, dir) \
	((void)(d), (void)(dir), txp_dma_unmap_at((addr), (size), __func__))
#define dma_map_page(d, page, off, size, dir) \
	dma_map_single((d), (char *)page_address(page) + (off), (size), (dir))
#define dma_unmap_page(d, addr, size, dir) dma_unmap_single((d), (addr), (size), (dir))
#define skb_frag_dma_map(d, frag, off, size, dir) \
	dma_map_single((d), (char *)skb_frag_address(frag) + (off), (size), (dir))
#define dma_mapping_error(d, addr) ((void)(d), (addr) == DMA_MAPPING_ERROR)
#define dma_alloc_coherent(d, size, handle, gfp) \
	((void)(d), (void)(gfp), txp_dma_alloc_coherent((size), (handle)))
#define dma_free_coherent(d, size, cpu, handle) \
	((void)(d), txp_dma_free_coherent((size), (cpu), (handle)))
/* The unmap state a driver keeps beside its buffers. */
#define DEFINE_DMA_UNMAP_ADDR(name) dma_addr_t name
#define DEFINE_DMA_UNMAP_LEN(name)  u32 name
#define dma_unmap_addr(p, name)     ((p)->name)
#define dma_unmap_addr_set(p, name, v) ((p)->name = (v))
#define dma_unmap_len(p, name)      ((p)->name)
#define dma_unmap_len_set(p, name, v) ((p)->name = (v))
/* Coherent memory's ordering: the CPU's own barriers, drawn. */
#define dma_wmb() wmb()
#define dma_rmb() rmb()

/* -- MMIO (linux/io.h): the NIC's register window (txpath/nic.h) ------------------------- */

#define writel(v, a) txp_mmio_write_at((a), (u32)(v), 4, true, __func__)
#define writew(v, a) txp_mmio_write_at((a), (u16)(v), 2, true, __func__)
#define writeb(v, a) txp_mmio_write_at((a), (u8)(v), 1, true, __func__)
#define writeq(v, a) txp_mmio_write_at((a), (u64)(v), 8, true, __func__)
#define writel_relaxed(v, a) txp_mmio_write_at((a), (u32)(v), 4, false, __func__)
/* A read as a statement (a posted-write flush) computes nothing unused. */
static inline u32 txp_mmio_read32(const volatile void *reg, unsigned size, const char *site)
{
	return (u32)txp_mmio_read_at(reg, size, site);
}
static inline u16 txp_mmio_read16(const volatile void *reg, const char *site)
{
	return (u16)txp_mmio_read_at(reg, 2, site);
}

static inline u8 txp_mmio_read8(const volatile void *reg, const char *site)
{
	return (u8)txp_mmio_read_at(reg, 1, site);
}
#define readl(a) txp_mmio_read32((a), 4, __func__)
#define readw(a) txp_mmio_read16((a), __func__)
#define readb(a) txp_mmio_read8((a), __func__)
#define iowrite32(v, a) writel((v), (a))
#define ioread32(a) readl(a)

/* -- interrupts and NAPI (linux/interrupt.h, linux/netdevice.h) ------------------------- */

typedef int irqreturn_t;
#define IRQ_NONE    0
#define IRQ_HANDLED 1
#define IRQF_SHARED 0x80u
/* The NIC's interrupt calls handler(irq, dev_id) with interrupts off. */
#define request_irq(irq, handler, flags, name, dev_id) \
	((void)(irq), (void)(flags), (void)(name), txp_nic_request_irq((handler), (dev_id)))
#define free_irq(irq, dev_id) ((void)(irq), (void)(dev_id))
#define NAPI_POLL_WEIGHT 64
#define netif_napi_add(dev, napi, poll) txp_napi_add(TXP_NETDEV(dev), (napi), (poll))
#define netif_napi_add_weight(dev, napi, poll, w) ((void)(w), netif_napi_add((dev), (napi), (poll)))
#define netif_napi_del(napi) ((void)(napi))
#define napi_enable(napi) ((void)(napi))
#define napi_disable(napi) ((void)(napi))
#define napi_schedule_prep(napi) txp_napi_schedule(napi)
#define __napi_schedule(napi) ((void)(napi))
#define napi_schedule(napi) ((void)txp_napi_schedule(napi))
#define napi_complete_done(napi, work) txp_napi_complete_done((napi), (work))
#define napi_complete(napi) txp_napi_complete_done((napi), 0)

/* -- the device and its queues (linux/netdevice.h, net/netdev_queues.h) ----------------- */

typedef u64 netdev_features_t;

/* The counters a driver keeps in dev->stats (txpath counts on its own). */
struct net_device_stats {
	unsigned long rx_packets, tx_packets, rx_bytes, tx_bytes, rx_errors, tx_errors;
	unsigned long rx_dropped, tx_dropped, multicast, collisions, rx_length_errors;
	unsigned long rx_over_errors, rx_crc_errors, rx_frame_errors, rx_fifo_errors;
	unsigned long rx_missed_errors, tx_aborted_errors, tx_carrier_errors;
	unsigned long tx_fifo_errors, tx_heartbeat_errors, tx_window_errors;
};

struct ethtool_ops;
struct ifreq;
struct rtnl_link_stats64;
struct pcpu_sw_netstats;
struct ethtool_netdev_state;

/*
 * The kernel's device: the fields a driver reads and sets, and txp, the
 * txpath device it stands for (TXP_NETDEV).  It is the first bytes of
 * the plugin's private area, and netdev_priv() what follows it, as
 * alloc_etherdev() lays them out: a plugin's priv_size is
 * TXP_NETDEV_PRIV_SIZE(sizeof(its adapter)), and txp_netdev() finds it.
 * Only txp, name and netdev_ops mean anything to txpath.
 */
struct net_device {
	struct txp_dev *txp;
	char name[16];
	const struct net_device_ops *netdev_ops;
	const struct ethtool_ops *ethtool_ops;
	netdev_features_t features, hw_features, vlan_features;
	unsigned int flags, priv_flags, mtu, min_mtu, max_mtu;
	unsigned char addr_len;
	const unsigned char *dev_addr;
	unsigned char addr[32];		/* what dev_addr points at */
	unsigned char perm_addr[32];
	int watchdog_timeo;
	unsigned long mem_start, mem_end, base_addr;
	int irq;
	struct net_device_stats stats;
	struct pcpu_sw_netstats *tstats;
	int pcpu_stat_type;
	unsigned char addr_assign_type;
	struct ethtool_netdev_state *ethtool;
	struct device *parent;		/* SET_NETDEV_DEV */
};

#define TXP_NETDEV_ALIGN 64
#define TXP_NETDEV_PRIV_SIZE(priv) (ALIGN(sizeof(struct net_device), TXP_NETDEV_ALIGN) + (priv))
#define netdev_priv(dev) \
	((void *)((char *)(dev) + ALIGN(sizeof(struct net_device), TXP_NETDEV_ALIGN)))

/* A driver's ops table (dev->netdev_ops): txpath calls ndo_start_xmit
 * and ndo_stop, as a plugin's start_xmit and stop ops
 * txp_ndo_start_xmit() and txp_ndo_stop(); the rest never. */
struct net_device_ops {
	int (*ndo_open)(struct net_device *dev);
	int (*ndo_stop)(struct net_device *dev);
	netdev_tx_t (*ndo_start_xmit)(struct sk_buff *skb, struct net_device *dev);
	void (*ndo_set_rx_mode)(struct net_device *dev);
	int (*ndo_set_mac_address)(struct net_device *dev, void *addr);
	void (*ndo_tx_timeout)(struct net_device *dev, unsigned int txqueue);
	int (*ndo_validate_addr)(struct net_device *dev);
	int (*ndo_change_mtu)(struct net_device *dev, int new_mtu);
	int (*ndo_eth_ioctl)(struct net_device *dev, struct ifreq *ifr, int cmd);
	int (*ndo_vlan_rx_add_vid)(struct net_device *dev, __be16 proto, u16 vid);
	int (*ndo_vlan_rx_kill_vid)(struct net_device *dev, __be16 proto, u16 vid);
	netdev_features_t (*ndo_fix_features)(struct net_device *dev, netdev_features_t f);
	int (*ndo_set_features)(struct net_device *dev, netdev_features_t f);
	void (*ndo_poll_controller)(struct net_device *dev);
	void (*ndo_get_stats64)(struct net_device *dev, struct rtnl_link_stats64 *stats);
	netdev_features_t (*ndo_features_check)(struct sk_buff *skb, struct net_device *dev,
						netdev_features_t features);
};
/* The kernel face of txpath's device dev: the start of its private area,
 * tied to dev and named as it is on first use.  Any context. */
static inline struct net_device *txp_netdev(struct txp_dev *dev)
{
	struct net_device *nd = (struct net_device *)txp_plugin_priv(dev);

	if (nd->txp != dev) {
		nd->txp = dev;
		nd->dev_addr = nd->addr;
		snprintf(nd->name, sizeof(nd->name), "%s", txp_dev_name(dev));
	}
	return nd;
}

/* A plugin's start_xmit and stop ops that call the driver's own
 * (dev->netdev_ops, which its open sets as probe does). */
static inline int txp_ndo_start_xmit(struct sk_buff *skb, struct txp_dev *dev)
{
	struct net_device *nd = txp_netdev(dev);

	return nd->netdev_ops->ndo_start_xmit(skb, nd);
}

static inline void txp_ndo_stop(struct txp_dev *dev)
{
	struct net_device *nd = txp_netdev(dev);

	(void)nd->netdev_ops->ndo_stop(nd);
}

#define netdev_xmit_more() txp_plugin_xmit_more()
#define netif_start_queue(dev) netif_tx_start_queue(netdev_get_tx_queue((dev), 0))
#define netif_carrier_ok(dev) ((void)(dev), true)
#define netif_carrier_on(dev) ((void)(dev))
#define netif_carrier_off(dev) ((void)(dev))
#define netif_running(dev) ((void)(dev), true)
#define netif_stop_subqueue(dev, i) netif_tx_stop_queue(netdev_get_tx_queue((dev), (i)))
#define netif_wake_subqueue(dev, i) netif_tx_wake_queue(netdev_get_tx_queue((dev), (i)))
#define __netif_subqueue_stopped(dev, i) netif_tx_queue_stopped(netdev_get_tx_queue((dev), (i)))
#define netif_subqueue_try_stop(dev, i, get_desc, start_thrs) \
	netif_txq_try_stop(netdev_get_tx_queue((dev), (i)), get_desc, start_thrs)
#define netif_subqueue_maybe_stop(dev, i, get_desc, stop_thrs, start_thrs) \
	netif_txq_maybe_stop(netdev_get_tx_queue((dev), (i)), get_desc, stop_thrs, start_thrs)
#define netif_subqueue_completed_wake(dev, i, pkts, bytes, get_desc, start_thrs) \
	netif_txq_completed_wake(netdev_get_tx_queue((dev), (i)), pkts, bytes, get_desc, start_thrs)
#define __netdev_sent_queue(dev, bytes, more) \
	__netdev_tx_sent_queue(netdev_get_tx_queue((dev), 0), (bytes), (more))
/* Software statistics: a stub (txpath counts what the device sent). */
#define dev_sw_netstats_tx_add(dev, pkts, len) ((void)(dev), (void)(pkts), (void)(len))

/* u64_stats (linux/u64_stats_sync.h), as on a 64-bit kernel: the
 * counters are the values, the sequence does nothing. */
struct u64_stats_sync {
	int unused;
};
typedef struct {
	u64 v;
} u64_stats_t;
#define u64_stats_init(s) ((void)(s))
#define u64_stats_update_begin(s) ((void)(s))
#define u64_stats_update_end(s) ((void)(s))
#define u64_stats_fetch_begin(s) ((void)(s), 0u)
#define u64_stats_fetch_retry(s, start) ((void)(s), (void)(start), false)
#define u64_stats_read(p) ((p)->v)
#define u64_stats_set(p, val) ((p)->v = (val))
#define u64_stats_add(p, val) ((p)->v += (val))
#define u64_stats_inc(p) ((p)->v++)

#include "txpath/kernel_rest.h"

#ifdef __cplusplus
}
#endif

#endif
