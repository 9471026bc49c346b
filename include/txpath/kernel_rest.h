/*
 * txpath/kernel_rest.h - the kernel's names a whole driver file uses
 * outside its transmit path: probe and PCI set-up, the receive path,
 * ethtool and ioctl, power management, module parameters, timers and
 * delays.  txpath/kernel.h includes it, so that a real driver's file
 * compiles as it is; txpath runs none of this code.
 *
 * Everything here is a declaration or a stub.  A stub that allocates
 * fails (NULL, -ENOMEM, -ENODEV); one that reads hardware state reads
 * zero; one that registers or configures does nothing and succeeds.  The
 * transmit path's names are kernel.h's, mapped onto txpath's API; the
 * few here that a transmit path reaches say so.
 */
#ifndef TXPATH_KERNEL_REST_H
#define TXPATH_KERNEL_REST_H

#include "txpath/kernel.h"

#include <alloca.h>
#include <linux/if.h>		/* struct ifreq, IFF_*: user-space's */
#include <linux/mii.h>		/* struct mii_ioctl_data, MII_* */
#include <linux/ethtool.h>	/* struct ethtool_*, SPEED_*, DUPLEX_* */
#include <linux/sockios.h>	/* SIOCGMIIPHY ... */

#ifdef __cplusplus
extern "C" {
#endif

/* A stub's value, which a caller may leave unused without a warning. */
static inline long txp_stub(long v)
{
	return v;
}

/* -- the compiler and the module ---------------------------------------------------------- */

#define __read_mostly
#define __init
#define __exit
#define __iomem_unused
#ifndef fallthrough
#define fallthrough __attribute__((fallthrough))
#endif
#ifndef KBUILD_MODNAME
#define KBUILD_MODNAME "txpath-plugin"
#endif
#define MODULE_DEVICE_TABLE(type, name) _Static_assert(1, #name)
#define MODULE_PARM_DESC(name, s)       _Static_assert(1, s)
#define MODULE_VERSION(s)               _Static_assert(1, s)
/* A parameter: the variable keeps its default (no command line). */
#define module_param(name, type, perm)  _Static_assert(sizeof(name) > 0, #type)
#define module_param_array(name, type, nump, perm) _Static_assert(sizeof(name) > 0, #type)
#define module_param_array_named(name, array, type, nump, perm) \
	_Static_assert(sizeof(array) > 0, #name)
#define __stringify_1(x) #x
#define __stringify(x) __stringify_1(x)
#define __MODULE_STRING(x) __stringify(x)
/* The module's entry points: never called (the plugin's struct is the
 * entry point); referenced so that they are not unused. */
#define module_init(fn) static int (*const txp_module_init_)(void) __attribute__((unused)) = fn
#define module_exit(fn) static void (*const txp_module_exit_)(void) __attribute__((unused)) = fn
#define EXPORT_SYMBOL(sym)              _Static_assert(1, #sym)

enum system_states { SYSTEM_RUNNING, SYSTEM_HALT, SYSTEM_POWER_OFF, SYSTEM_RESTART };
/* The system is always running. */
#define system_state SYSTEM_RUNNING

#define BITS_PER_LONG (sizeof(long) * 8)
#define BITS_TO_LONGS(n) DIV_ROUND_UP((n), BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]
/* Each bit set in the first size bits of addr, in order (plain reads). */
#define for_each_set_bit(bit, addr, size)					\
	for ((bit) = 0; (bit) < (size); (bit)++)				\
		if ((addr)[(bit) / BITS_PER_LONG] & (1UL << ((bit) % BITS_PER_LONG)))
/* Copy a string, cut to size - 1 bytes and terminated: its length. */
static inline long strscpy(char *dst, const char *src, size_t size)
{
	return snprintf(dst, size, "%s", src) < (int)size ? (long)strlen(dst) : -E2BIG;
}
#define capable(cap) ((void)(cap), false)
#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)

/* -- delays and timers: nothing waits -------------------------------------------------- */

#define udelay(us)             ((void)(us))
#define ndelay(ns)             ((void)(ns))
#define mdelay(ms)             ((void)(ms))
#define msleep(ms)             ((void)(ms))
#define usleep_range(lo, hi)   ((void)(lo), (void)(hi))

struct timer_list {
	void (*function)(struct timer_list *t);
	unsigned long expires;
};
#define timer_setup(t, fn, flags) ((void)(flags), (t)->function = (fn))
#define mod_timer(t, when) ((void)(t), (void)(when), 0)
#define del_timer_sync(t) ((void)(t), 0)
#define from_timer(var, t, field) container_of(t, __typeof__(*var), field)

/* A mutex of probe and configuration paths: the transmit path takes
 * none; not modelled. */
struct mutex {
	int unused;
};
#define mutex_init(m)   ((void)(m))
#define mutex_lock(m)   ((void)(m))
#define mutex_unlock(m) ((void)(m))
#define rtnl_lock()     ((void)0)
#define rtnl_unlock()   ((void)0)

/* A lock defined statically: unlocked, of class "&name" (spin_lock_init's). */
#define DEFINE_SPINLOCK(x) spinlock_t x = { 0, -1, "&" #x }
#define DEFINE_MUTEX(x) struct mutex x = { 0 }
#define cond_resched() ((void)0)

/* A field of a register (linux/bitfield.h): mask's bits of v, shifted down
 * (FIELD_GET) or v shifted into them (FIELD_PREP). */
#define FIELD_GET(mask, v) ((__typeof__(mask))(((v) & (mask)) >> __builtin_ctzll(mask)))
#define FIELD_PREP(mask, v) (((__typeof__(mask))(v) << __builtin_ctzll(mask)) & (mask))

/* Flash and physical memory (a few controllers' EEPROM): nothing there. */
#define phys_to_virt(addr) ((void)(addr), (void *)NULL)
#define iowrite16_rep(a, buf, n) ((void)(a), (void)(buf), (void)(n))
#define ioread16_rep(a, buf, n) ((void)(a), memset((buf), 0, (n) * 2u))

/* Lists: a driver's own bookkeeping. */
struct list_head {
	struct list_head *next, *prev;
};

/* -- logging beyond the transmit path ------------------------------------------------------ */

#define netdev_notice(dev, fmt, ...) netdev_info((dev), fmt, ##__VA_ARGS__)
#define NETIF_MSG_DRV     0x0001
#define NETIF_MSG_PROBE   0x0002
#define NETIF_MSG_LINK    0x0004
#define NETIF_MSG_TIMER   0x0008
#define NETIF_MSG_IFDOWN  0x0010
#define NETIF_MSG_IFUP    0x0020
#define NETIF_MSG_RX_ERR  0x0040
#define NETIF_MSG_TX_ERR  0x0080
#define NETIF_MSG_TX_QUEUED 0x0100
#define NETIF_MSG_INTR    0x0200
#define NETIF_MSG_TX_DONE 0x0400
#define NETIF_MSG_RX_STATUS 0x0800
#define NETIF_MSG_PKTDATA 0x1000
#define NETIF_MSG_HW      0x2000
#define NETIF_MSG_WOL     0x4000
#define netif_msg_drv(p)       ((p)->msg_enable & NETIF_MSG_DRV)
#define netif_msg_probe(p)     ((p)->msg_enable & NETIF_MSG_PROBE)
#define netif_msg_link(p)      ((p)->msg_enable & NETIF_MSG_LINK)
#define netif_msg_timer(p)     ((p)->msg_enable & NETIF_MSG_TIMER)
#define netif_msg_ifdown(p)    ((p)->msg_enable & NETIF_MSG_IFDOWN)
#define netif_msg_ifup(p)      ((p)->msg_enable & NETIF_MSG_IFUP)
#define netif_msg_rx_err(p)    ((p)->msg_enable & NETIF_MSG_RX_ERR)
#define netif_msg_tx_err(p)    ((p)->msg_enable & NETIF_MSG_TX_ERR)
#define netif_msg_tx_queued(p) ((p)->msg_enable & NETIF_MSG_TX_QUEUED)
#define netif_msg_intr(p)      ((p)->msg_enable & NETIF_MSG_INTR)
#define netif_msg_tx_done(p)   ((p)->msg_enable & NETIF_MSG_TX_DONE)
#define netif_msg_rx_status(p) ((p)->msg_enable & NETIF_MSG_RX_STATUS)
#define netif_msg_pktdata(p)   ((p)->msg_enable & NETIF_MSG_PKTDATA)
#define netif_msg_hw(p)        ((p)->msg_enable & NETIF_MSG_HW)
#define netif_msg_wol(p)       ((p)->msg_enable & NETIF_MSG_WOL)
/* The message mask from the debug parameter: all of def's below -1. */
#define netif_msg_init(debug, def) \
	((debug) < 0 || (debug) >= 32 ? (int)(def) : (int)((1U << (debug)) - 1))
/* A driver's messages, by class, logged when its msg_enable has it
 * (transmit path: e.g. a DMA mapping error). */
#define netif_err(p, type, dev, fmt, ...) \
	((void)(netif_msg_##type(p) ? (netdev_err((dev), fmt, ##__VA_ARGS__), 0) : 0))
#define netif_warn(p, type, dev, fmt, ...) \
	((void)(netif_msg_##type(p) ? (netdev_warn((dev), fmt, ##__VA_ARGS__), 0) : 0))
#define netif_notice(p, type, dev, fmt, ...) \
	((void)(netif_msg_##type(p) ? (netdev_info((dev), fmt, ##__VA_ARGS__), 0) : 0))
#define netif_info(p, type, dev, fmt, ...) \
	((void)(netif_msg_##type(p) ? (netdev_info((dev), fmt, ##__VA_ARGS__), 0) : 0))
#define netif_dbg(p, type, dev, fmt, ...) \
	((void)(netif_msg_##type(p) ? (netdev_dbg((dev), fmt, ##__VA_ARGS__), 0) : 0))
enum { DUMP_PREFIX_NONE, DUMP_PREFIX_ADDRESS, DUMP_PREFIX_OFFSET };
/* A hex dump (of registers, descriptors): not printed. */
#define print_hex_dump(level, prefix, type, row, group, buf, len, ascii) \
	((void)(prefix), (void)(buf), (void)(len))

/* -- PCI: probe's, none of it run -------------------------------------------------------- */

#define PCI_VENDOR_ID_INTEL  0x8086
#define PCI_VENDOR_ID_VMWARE 0x15ad
#define PCI_ANY_ID (~0u)
struct pci_device_id {
	unsigned int vendor, device, subvendor, subdevice, class_, class_mask;
	unsigned long driver_data;
};
#define PCI_DEVICE(vend, dev) \
	.vendor = (vend), .device = (dev), .subvendor = PCI_ANY_ID, .subdevice = PCI_ANY_ID
#define PCI_DEVFN(slot, func) ((((slot) & 0x1f) << 3) | ((func) & 0x07))
#define PCI_SLOT(devfn) (((devfn) >> 3) & 0x1f)
#define PCI_FUNC(devfn) ((devfn) & 0x07)
#define IORESOURCE_IO  0x100ul
#define IORESOURCE_MEM 0x200ul
typedef int pci_power_t;
#define PCI_D0     0
#define PCI_D3hot  3
#define PCI_D3cold 4
typedef unsigned int pci_channel_state_t;
typedef unsigned int pci_ers_result_t;
#define pci_channel_io_perm_failure 3u
#define PCI_ERS_RESULT_NEED_RESET 3u
#define PCI_ERS_RESULT_DISCONNECT 4u
#define PCI_ERS_RESULT_RECOVERED  5u
struct pci_error_handlers {
	pci_ers_result_t (*error_detected)(struct pci_dev *pdev, pci_channel_state_t state);
	pci_ers_result_t (*slot_reset)(struct pci_dev *pdev);
	void (*resume)(struct pci_dev *pdev);
};
struct dev_pm_ops {
	int (*suspend)(struct device *dev);
	int (*resume)(struct device *dev);
	int (*runtime_suspend)(struct device *dev);
	int (*runtime_resume)(struct device *dev);
	int (*runtime_idle)(struct device *dev);
};
#define DEFINE_SIMPLE_DEV_PM_OPS(name, s, r) const struct dev_pm_ops name = { (s), (r) }
#define pm_sleep_ptr(p) (p)
struct device_driver {
	const struct dev_pm_ops *pm;
};
struct pci_driver {
	const char *name;
	const struct pci_device_id *id_table;
	int (*probe)(struct pci_dev *pdev, const struct pci_device_id *ent);
	void (*remove)(struct pci_dev *pdev);
	void (*shutdown)(struct pci_dev *pdev);
	struct device_driver driver;
	const struct pci_error_handlers *err_handler;
};
/* Registering a PCI driver: nothing probes it (the plugin's open is its
 * probe). */
#define pci_register_driver(drv)   ((void)(drv), 0)
#define pci_unregister_driver(drv) ((void)(drv))
#define to_pci_dev(d)              container_of((d), struct pci_dev, dev)
#define pci_get_drvdata(pdev)      ((pdev)->driver_data)
#define pci_set_drvdata(pdev, p)   ((pdev)->driver_data = (p))
#define dev_get_drvdata(d)         (to_pci_dev(d)->driver_data)
#define pci_name(pdev)             ((void)(pdev), "0000:00:00.0")
#define pci_enable_device(pdev)    ((void)(pdev), -ENODEV)
#define pci_enable_device_mem(pdev) ((void)(pdev), -ENODEV)
#define pci_disable_device(pdev)   ((void)(pdev))
#define pci_select_bars(pdev, flags) ((void)(pdev), (void)(flags), 0)
#define pci_request_selected_regions(pdev, bars, name) ((void)(pdev), (void)(bars), -EBUSY)
#define pci_release_selected_regions(pdev, bars) ((void)(pdev), (void)(bars))
#define pci_set_master(pdev)       ((void)(pdev))
#define pci_set_mwi(pdev)          txp_stub(((void)(pdev), 0))
#define pci_clear_mwi(pdev)        ((void)(pdev))
#define pci_save_state(pdev)       txp_stub(((void)(pdev), 0))
#define pci_restore_state(pdev)    ((void)(pdev))
#define pci_set_power_state(pdev, s) txp_stub(((void)(pdev), (void)(s), 0))
#define pci_enable_wake(pdev, s, on) txp_stub(((void)(pdev), (void)(s), (void)(on), 0))
#define pci_wake_from_d3(pdev, on) txp_stub(((void)(pdev), (void)(on), 0))
#define pci_channel_offline(pdev)  ((void)(pdev), false)
#define pci_resource_start(pdev, bar) ((void)(pdev), (void)(bar), 0ul)
#define pci_resource_len(pdev, bar) ((void)(pdev), (void)(bar), 0ul)
#define pci_resource_flags(pdev, bar) ((void)(pdev), (void)(bar), 0ul)
#define pci_ioremap_bar(pdev, bar) ((void)(pdev), (void)(bar), (void *)NULL)
#define ioremap(addr, len)         ((void)(addr), (void)(len), (void *)NULL)
#define iounmap(p)                 ((void)(p))
#define pci_read_config_word(pdev, where, val) txp_stub(((void)(pdev), (void)(where), *(val) = 0, 0))
#define pci_write_config_word(pdev, where, val) txp_stub(((void)(pdev), (void)(where), (void)(val), 0))
#define pcix_get_mmrbc(pdev)       ((void)(pdev), 0)
#define pcix_set_mmrbc(pdev, v)    txp_stub(((void)(pdev), (void)(v), 0))
#define pcie_capability_read_word(pdev, pos, val) txp_stub(((void)(pdev), (void)(pos), *(val) = 0, 0))
#define device_set_wakeup_enable(d, on) txp_stub(((void)(d), (void)(on), 0))
#define device_wakeup_enable(d)    txp_stub(((void)(d), 0))
#define synchronize_irq(irq)       ((void)(irq))
#define DMA_BIT_MASK(n) (((n) == 64) ? ~0ULL : ((1ULL << (n)) - 1))
#define dma_set_mask_and_coherent(d, mask) ((void)(d), (void)(mask), 0)
/* Port I/O: nothing there. */
#define outl(v, port) ((void)(v), (void)(port))
#define inl(port)     ((void)(port), 0u)
typedef irqreturn_t (*irq_handler_t)(int irq, void *dev_id);

/* -- the device's set-up (alloc_etherdev, register_netdev, ...) -------------------------- */

#define NETIF_F_SG           BIT_ULL(0)
#define NETIF_F_HW_CSUM      BIT_ULL(3)
#define NETIF_F_HIGHDMA      BIT_ULL(5)
#define NETIF_F_HW_VLAN_CTAG_TX BIT_ULL(7)
#define NETIF_F_HW_VLAN_CTAG_RX BIT_ULL(8)
#define NETIF_F_HW_VLAN_CTAG_FILTER BIT_ULL(9)
#define NETIF_F_TSO          BIT_ULL(16)
#define NETIF_F_RXCSUM       BIT_ULL(29)
#define NETIF_F_RXFCS        BIT_ULL(30)
#define NETIF_F_RXALL        BIT_ULL(31)
#define IFF_UNICAST_FLT      (1u << 13)
#define IFF_SUPP_NOFCS       (1u << 19)
#define VLAN_N_VID 4096
#define VLAN_HLEN 4
#define NET_IP_ALIGN 2
#define NET_SKB_PAD 64
#define SKB_DATA_ALIGN(x) ALIGN((x), 64)
#ifndef ETH_FCS_LEN
#define ETH_FCS_LEN 4
#endif

/* ethtool's table: declared, never called by txpath. */
struct netlink_ext_ack;
struct kernel_ethtool_coalesce;
struct kernel_ethtool_ringparam;
struct kernel_ethtool_ts_info;
struct ethtool_link_ksettings;
struct ethtool_keee;
struct ethtool_ops {
	u32 supported_coalesce_params;
	void (*get_drvinfo)(struct net_device *dev, struct ethtool_drvinfo *info);
	int (*get_regs_len)(struct net_device *dev);
	void (*get_regs)(struct net_device *dev, struct ethtool_regs *regs, void *p);
	void (*get_wol)(struct net_device *dev, struct ethtool_wolinfo *wol);
	int (*set_wol)(struct net_device *dev, struct ethtool_wolinfo *wol);
	u32 (*get_link)(struct net_device *dev);
	int (*get_eeprom_len)(struct net_device *dev);
	int (*get_eeprom)(struct net_device *dev, struct ethtool_eeprom *ee, u8 *data);
	int (*get_coalesce)(struct net_device *dev, struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec, struct netlink_ext_ack *extack);
	int (*set_coalesce)(struct net_device *dev, struct ethtool_coalesce *ec,
			    struct kernel_ethtool_coalesce *kec, struct netlink_ext_ack *extack);
	void (*get_ringparam)(struct net_device *dev, struct ethtool_ringparam *rp,
			      struct kernel_ethtool_ringparam *krp, struct netlink_ext_ack *extack);
	void (*get_pauseparam)(struct net_device *dev, struct ethtool_pauseparam *pp);
	int (*set_pauseparam)(struct net_device *dev, struct ethtool_pauseparam *pp);
	void (*get_strings)(struct net_device *dev, u32 stringset, u8 *data);
	int (*get_sset_count)(struct net_device *dev, int sset);
	void (*get_ethtool_stats)(struct net_device *dev, struct ethtool_stats *stats, u64 *data);
	int (*get_ts_info)(struct net_device *dev, struct kernel_ethtool_ts_info *info);
	int (*nway_reset)(struct net_device *dev);
	int (*get_eee)(struct net_device *dev, struct ethtool_keee *eee);
	int (*set_eee)(struct net_device *dev, struct ethtool_keee *eee);
	int (*get_link_ksettings)(struct net_device *dev, struct ethtool_link_ksettings *ks);
	int (*set_link_ksettings)(struct net_device *dev, const struct ethtool_link_ksettings *ks);
};

#define alloc_etherdev(priv) ((void)(priv), (struct net_device *)NULL)
#define free_netdev(dev)     ((void)(dev))
#define register_netdev(dev) ((void)(dev), -ENODEV)
#define unregister_netdev(dev) ((void)(dev))
#define SET_NETDEV_DEV(dev, d) ((dev)->parent = (d))
#define netif_device_attach(dev) ((void)(dev))
#define netif_device_detach(dev) ((void)(dev))
#define netif_tx_disable(dev)    netif_stop_queue(dev)
#define netdev_update_features(dev) ((void)(dev))
#define netdev_uc_count(dev)     ((void)(dev), 0)
#define netdev_mc_count(dev)     ((void)(dev), 0)
struct netdev_hw_addr {
	unsigned char addr[32];
};
/* The unicast and multicast lists: empty. */
#define netdev_for_each_uc_addr(ha, dev) for ((ha) = NULL, (void)(dev); (ha); (ha) = NULL)
#define netdev_for_each_mc_addr(ha, dev) for ((ha) = NULL, (void)(dev); (ha); (ha) = NULL)
#define eth_validate_addr NULL
#define eth_hw_addr_set(dev, a) memcpy((dev)->addr, (a), ETH_ALEN)
#define is_valid_ether_addr(a) ((void)(a), true)
#define is_multicast_ether_addr(a) (((const u8 *)(a))[0] & 1)
#define is_broadcast_ether_addr(a) \
	((((const u8 *)(a))[0] & ((const u8 *)(a))[1] & ((const u8 *)(a))[2] & \
	  ((const u8 *)(a))[3] & ((const u8 *)(a))[4] & ((const u8 *)(a))[5]) == 0xff)
#define if_mii(ifr) ((struct mii_ioctl_data *)&(ifr)->ifr_ifru)
#define generic_mii_ioctl(mii, data, cmd, dup) ((void)(mii), (void)(data), -EOPNOTSUPP)

/* -- the receive path: never run (no packet is received) ---------------------------------- */

struct page;
#define alloc_page(gfp) ((void)(gfp), (struct page *)NULL)
#define put_page(page) ((void)(page))
#define page_to_phys(page) ((txp_dma_addr_t)(uintptr_t)page_address(page))
#define netdev_alloc_frag(size) ((void)(size), (void *)NULL)
#define napi_alloc_frag(size) ((void)(size), (void *)NULL)
#define skb_free_frag(p) ((void)(p))
#define napi_build_skb(data, size) ((void)(data), (void)(size), (struct sk_buff *)NULL)
#define napi_alloc_skb(napi, len) ((void)(napi), (void)(len), (struct sk_buff *)NULL)
#define netdev_alloc_skb_ip_align(dev, len) ((void)(dev), (void)(len), (struct sk_buff *)NULL)
#define napi_get_frags(napi) ((void)(napi), (struct sk_buff *)NULL)
#define napi_gro_frags(napi) txp_stub(((void)(napi), 0))
#define napi_free_frags(napi) ((void)(napi))
#define napi_gro_receive(napi, skb) txp_stub(((void)(napi), dev_kfree_skb_any(skb), 0))
#define eth_type_trans(skb, dev) ((void)(dev), (skb)->protocol)
#define skb_fill_page_desc(skb, i, page, off, size) \
	((skb)->frags[i] = (struct txp_frag){ (char *)page_address(page) + (off), (size) })
#define skb_reserve(skb, n) ((skb)->data += (n))
#define skb_put(skb, n) txp_pkt_put((skb), (n))
#define skb_put_data(skb, d, n) memcpy(skb_put((skb), (n)), (d), (n))
#define skb_trim(skb, n) ((void)(skb), (void)(n))
#define pskb_trim(skb, n) txp_stub(((void)(skb), (void)(n), 0))
#define skb_checksum_none_assert(skb) ((void)(skb))
#define __vlan_hwaccel_put_tag(skb, proto, tci) \
	((skb)->vlan_proto = (proto), (skb)->vlan_tci = (tci))
#define dma_sync_single_for_cpu(d, addr, size, dir) ((void)(d), (void)(addr), (void)(size))
#define dma_sync_single_for_device(d, addr, size, dir) ((void)(d), (void)(addr), (void)(size))
#define DMA_ATTR_SKIP_CPU_SYNC 0

#ifdef __cplusplus
}
#endif

#include "txpath/kernel_platform.h"

#endif
