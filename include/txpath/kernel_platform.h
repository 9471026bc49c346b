/*
 * txpath/kernel_platform.h - what a driver file's probe, open and
 * ethtool paths program beside its device: the PHY library (phylib,
 * MDIO), clocks, firmware loading, runtime power management, managed
 * (devm/pcim) resources, MSI, PCIe capabilities, and the rest of the
 * kernel's names r8169_main.c uses outside its transmit path.
 * txpath/kernel_rest.h includes it; txpath runs none of this code.
 *
 * Everything here is a stub, by kernel_rest.h's rules: what allocates or
 * looks a device up fails (NULL, ERR_PTR(-ENODEV), -ENODEV); what reads
 * hardware reads zero; what configures or registers does nothing and
 * succeeds.  Only raw_spinlock_t is more: it is spinlock_t, a lock the
 * explorer and the validator see.
 */
#ifndef TXPATH_KERNEL_PLATFORM_H
#define TXPATH_KERNEL_PLATFORM_H

#include "txpath/kernel.h"

#include <linux/if_link.h>	/* struct rtnl_link_stats64: user-space's */
#include <linux/if_packet.h>	/* PACKET_MULTICAST ... */
#include <linux/mdio.h>		/* MDIO_MMD_*, MDIO_AN_*: user-space's */

#ifdef __cplusplus
extern "C" {
#endif

/* -- the compiler, the module and the kernel's helpers ----------------------------------- */

/* IS_ENABLED(CONFIG_FOO): 1 when CONFIG_FOO is defined as 1 (or
 * CONFIG_FOO_MODULE is), else 0; a constant expression.  txpath defines
 * no CONFIG_ option: every optional feature of a driver is off. */
#define txp__cfg_arg_1 0,
#define txp__cfg_second(ignored, v, ...) v
#define txp__cfg_pick(arg_or_junk) txp__cfg_second(arg_or_junk 1, 0, 0)
#define txp__cfg_is_one(v) txp__cfg_pick(txp__cfg_arg_##v)
#define txp__cfg_enabled(v) txp__cfg_is_one(v)
#define IS_ENABLED(option) (txp__cfg_enabled(option) || txp__cfg_enabled(option##_MODULE))
#define IS_BUILTIN(option) txp__cfg_enabled(option)
#define IS_REACHABLE(option) IS_ENABLED(option)

#define MODULE_SOFTDEP(s)        _Static_assert(1, s)
#define MODULE_FIRMWARE(s)       _Static_assert(1, s)
/* A PCI driver's module: never loaded (the plugin's struct is the entry). */
#define module_pci_driver(drv) \
	static const struct pci_driver *const txp_module_pci_driver_ __attribute__((unused)) = &(drv)

#define BITS_PER_BYTE 8
#define SZ_1K  0x400
#define SZ_4K  0x1000
#define SZ_16K 0x4000
#define sizeof_field(type, member) sizeof(((type *)0)->member)
#define DIV_ROUND_CLOSEST(x, d) (((x) + (d) / 2) / (d))
#define MAX_ERRNO 4095
#define ERR_PTR(err) ((void *)(long)(err))
#define PTR_ERR(p) ((long)(p))
#define IS_ERR(p) ((unsigned long)(p) >= (unsigned long)-MAX_ERRNO)
#define IS_ERR_OR_NULL(p) (!(p) || IS_ERR(p))
/* A warning of the driver's: WARN_ON's, with the message printed. */
#define WARN(c, fmt, ...) \
	__extension__({ bool _w = !!(c); if (unlikely(_w)) pr_err("BUG! " fmt, ##__VA_ARGS__); _w; })
#define WARN_ONCE(c, fmt, ...) WARN((c), fmt, ##__VA_ARGS__)
#define bitmap_zero(map, bits) memset((map), 0, BITS_TO_LONGS(bits) * sizeof(long))
#define fsleep(us) ((void)(us))

/* Unaligned little-endian loads and stores (linux/unaligned.h). */
static inline u16 get_unaligned_le16(const void *p)
{
	__le16 v;

	memcpy(&v, p, sizeof(v));
	return le16_to_cpu(v);
}

static inline u32 get_unaligned_le32(const void *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static inline void put_unaligned_le16(u16 val, void *p)
{
	__le16 v = cpu_to_le16(val);

	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_le32(u32 val, void *p)
{
	__le32 v = cpu_to_le32(val);

	memcpy(p, &v, sizeof(v));
}

/* A lock of configuration paths that never sleeps: a spin lock all the
 * same, which the explorer schedules and the validator follows. */
typedef spinlock_t raw_spinlock_t;
#define raw_spin_lock_init(l)                  spin_lock_init(l)
#define raw_spin_lock_irqsave(l, flags)        spin_lock_irqsave((l), (flags))
#define raw_spin_unlock_irqrestore(l, flags)   spin_unlock_irqrestore((l), (flags))
#define raw_spin_lock(l)                       spin_lock(l)
#define raw_spin_unlock(l)                     spin_unlock(l)

/* Register blocks copied out (a register dump): zeros. */
#define memcpy_fromio(dst, src, n) ((void)(src), memset((dst), 0, (n)))

static inline bool cancel_work(struct work_struct *work)
{
	(void)work;
	return false;
}
/* No reader of the device is left to wait for (its NAPI context stops
 * with it). */
#define synchronize_net() ((void)0)

/* -- devices, devres, runtime power management, clocks, firmware ------------------------- */

#define dev_to_node(d) ((void)(d), 0)
#define dev_err_probe(d, err, fmt, ...) ((void)(d), pr_err(fmt, ##__VA_ARGS__), (int)(err))
#define device_may_wakeup(d) ((void)(d), false)
#define pm_ptr(p) (p)
#define SYSTEM_SLEEP_PM_OPS(s, r) .suspend = (s), .resume = (r),
#define RUNTIME_PM_OPS(s, r, i) .runtime_suspend = (s), .runtime_resume = (r), .runtime_idle = (i),
/* Runtime power management: the device is always active. */
#define pm_runtime_get_sync(d)        txp_stub(((void)(d), 1))
#define pm_runtime_get_noresume(d)    ((void)(d))
#define pm_runtime_put_sync(d)        txp_stub(((void)(d), 0))
#define pm_runtime_put_noidle(d)      ((void)(d))
#define pm_runtime_idle(d)            txp_stub(((void)(d), 0))
#define pm_runtime_resume_and_get(d)  txp_stub(((void)(d), 0))
#define pm_runtime_active(d)          ((void)(d), true)
#define pm_runtime_set_active(d)      txp_stub(((void)(d), 0))
#define pm_runtime_enable(d)          ((void)(d))
#define pm_request_resume(d)          txp_stub(((void)(d), 0))
#define pm_schedule_suspend(d, ms)    txp_stub(((void)(d), (void)(ms), 0))

/* A clock: none is found (an optional one: NULL, not an error). */
struct clk;
#define devm_clk_get_optional_enabled(d, id) ((void)(d), (void)(id), (struct clk *)NULL)
#define clk_prepare_enable(c) txp_stub(((void)(c), 0))
#define clk_disable_unprepare(c) ((void)(c))

/* Firmware: none is found. */
struct firmware {
	size_t size;
	const u8 *data;
};

static inline int request_firmware(const struct firmware **fw, const char *name, struct device *d)
{
	(void)name, (void)d;
	*fw = NULL;
	return -ENOENT;
}
#define release_firmware(fw) ((void)(fw))

/* Managed resources: probe's, which fails first. */
#define dmam_alloc_coherent(d, size, handle, gfp) \
	((void)(d), (void)(size), (void)(handle), (void)(gfp), (void *)NULL)
#define devm_alloc_etherdev(d, priv) ((void)(d), alloc_etherdev(priv))

/* -- PCI beyond kernel_rest.h's ---------------------------------------------------------- */

#define PCI_VENDOR_ID_REALTEK  0x10ec
#define PCI_VENDOR_ID_NCUBE    0x10ff
#define PCI_VENDOR_ID_DLINK    0x1186
#define PCI_VENDOR_ID_AT       0x1259
#define PCI_VENDOR_ID_GIGABYTE 0x1458
#define PCI_VENDOR_ID_USR      0x16ec
#define PCI_VENDOR_ID_LINKSYS  0x1737
#define PCI_VDEVICE(vend, dev) \
	.vendor = PCI_VENDOR_ID_##vend, .device = (dev), .subvendor = PCI_ANY_ID, \
	.subdevice = PCI_ANY_ID
#define PCIBIOS_SUCCESSFUL 0
#define PCI_IRQ_INTX      (1u << 0)
#define PCI_IRQ_MSI       (1u << 1)
#define PCI_IRQ_MSIX      (1u << 2)
#define PCI_IRQ_ALL_TYPES (PCI_IRQ_INTX | PCI_IRQ_MSI | PCI_IRQ_MSIX)
#define PCIE_LINK_STATE_L0S 1
#define PCIE_LINK_STATE_L1  2
#define pcim_enable_device(pdev)        txp_stub(((void)(pdev), -ENODEV))
#define pcim_set_mwi(pdev)              txp_stub(((void)(pdev), 0))
#define pcim_iomap_regions(pdev, m, n)  txp_stub(((void)(pdev), (void)(m), (void)(n), -EBUSY))
#define pcim_iomap_table(pdev)          ((void)(pdev), (void __iomem *const *)NULL)
#define pcie_set_readrq(pdev, rq)       txp_stub(((void)(pdev), (void)(rq), 0))
#define pcie_capability_set_word(pdev, pos, v)   txp_stub(((void)(pdev), (void)(pos), (void)(v), 0))
#define pcie_capability_clear_word(pdev, pos, v) txp_stub(((void)(pdev), (void)(pos), (void)(v), 0))
#define pci_read_config_byte(pdev, where, val) txp_stub(((void)(pdev), (void)(where), *(val) = 0, 0))
#define pci_write_config_byte(pdev, where, val) \
	txp_stub(((void)(pdev), (void)(where), (void)(val), 0))
#define pci_status_get_and_clear_errors(pdev) txp_stub(((void)(pdev), 0))
#define pci_reset_bus(pdev)             txp_stub(((void)(pdev), -ENOTTY))
#define pci_is_pcie(pdev)               ((void)(pdev), true)
#define pci_irq_vector(pdev, nr)        ((void)(nr), (int)(pdev)->irq)
#define pci_domain_nr(bus)              ((void)(bus), 0)
#define pci_disable_link_state(pdev, st) txp_stub(((void)(pdev), (void)(st), 0))
#define pci_dev_run_wake(pdev)          ((void)(pdev), false)
#define pci_dev_msi_enabled(pdev)       ((void)(pdev), false)
#define pci_dev_id(pdev)                ((u16)(((pdev)->bus->number << 8) | (pdev)->devfn))
#define pci_clear_master(pdev)          ((void)(pdev))
#define pci_alloc_irq_vectors(pdev, lo, hi, fl) \
	txp_stub(((void)(pdev), (void)(lo), (void)(hi), (void)(fl), -ENOSPC))

/* -- the network device beyond kernel_rest.h's ----------------------------------------- */

#define NETIF_F_IP_CSUM      BIT_ULL(1)
#define NETIF_F_IPV6_CSUM    BIT_ULL(4)
#define NETIF_F_TSO6         BIT_ULL(19)
#define NETIF_F_CSUM_MASK    (NETIF_F_IP_CSUM | NETIF_F_HW_CSUM | NETIF_F_IPV6_CSUM)
#define NETIF_F_ALL_TSO      (NETIF_F_TSO | NETIF_F_TSO6)
#define IRQF_NO_THREAD       0x10000u
#define IFF_LIVE_ADDR_CHANGE (1u << 15)
#define VLAN_ETH_HLEN        18
#define NET_ADDR_PERM   0
#define NET_ADDR_RANDOM 1
enum netdev_stat_type { NETDEV_PCPU_STAT_NONE, NETDEV_PCPU_STAT_LSTATS, NETDEV_PCPU_STAT_TSTATS };
/* The per-CPU software counters (dev->tstats): one set. */
struct pcpu_sw_netstats {
	u64_stats_t rx_packets, rx_bytes, tx_packets, tx_bytes;
	struct u64_stats_sync syncp;
};
/* ethtool's state of the device (dev->ethtool). */
struct ethtool_netdev_state {
	unsigned int wol_enabled : 1;
};
#define netif_set_tso_max_size(dev, size) ((void)(dev), (void)(size))
#define netif_set_tso_max_segs(dev, segs) ((void)(dev), (void)(segs))
#define netdev_warn_once(dev, fmt, ...) netdev_warn((dev), fmt, ##__VA_ARGS__)
#define netdev_notice_once(dev, fmt, ...) netdev_info((dev), fmt, ##__VA_ARGS__)
#define netdev_sw_irq_coalesce_default_on(dev) ((void)(dev))
#define netdev_mc_empty(dev) ((void)(dev), true)
/* The statistics ethtool and ip link read (ndo_get_stats64): zeros. */
#define netdev_stats_to_stats64(s64, s) ((void)(s), memset((s64), 0, sizeof(*(s64))))
#define dev_fetch_sw_netstats(s64, tstats) ((void)(s64), (void)(tstats))
#define dev_sw_netstats_rx_add(dev, len) ((void)(dev), (void)(len))
#define eth_random_addr(a) memset((a), 0x02, ETH_ALEN)
#define eth_platform_get_mac_address(d, a) txp_stub(((void)(d), (void)(a), -ENODEV))
#define eth_mac_addr(dev, p) txp_stub(((void)(dev), (void)(p), -EOPNOTSUPP))
#define eth_hw_addr_crc(ha) ((void)(ha), 0u)
/* A VLAN-tagged frame needs nothing the device lacks (no tag in txpath's
 * frames): the features stand. */
#define vlan_features_check(skb, features) ((void)(skb), (features))
#define alloc_pages_node(node, gfp, order) ((void)(node), (void)(gfp), (void)(order), (struct page *)NULL)
#define __free_pages(page, order) ((void)(page), (void)(order))
#define get_order(size) ((int)fls((unsigned)(((size) - 1) >> PAGE_SHIFT)))
#define skb_copy_to_linear_data(skb, from, len) memcpy((skb)->data, (from), (len))

/* ethtool's kernel-side structures a driver's ops take. */
#define ETHTOOL_COALESCE_USECS      (1u << 0 | 1u << 4)
#define ETHTOOL_COALESCE_MAX_FRAMES (1u << 1 | 1u << 5)
struct netlink_ext_ack;
struct kernel_ethtool_coalesce;
struct kernel_ethtool_ringparam;
struct kernel_ethtool_ts_info;
struct ethtool_link_ksettings;
struct ethtool_keee {
	u32 tx_lpi_timer;
	bool tx_lpi_enabled, eee_active, eee_enabled;
};

/* -- the PHY library (linux/phy.h, linux/mdio.h) ------------------------------------------- */

#define phydev_warn(phy, fmt, ...) ((void)(phy), pr_warn(fmt, ##__VA_ARGS__))
#define phydev_err(phy, fmt, ...) ((void)(phy), pr_err(fmt, ##__VA_ARGS__))
#define MII_BUS_ID_SIZE 61
#define PHY_MAX_ADDR 32
#define PHY_MAC_INTERRUPT (-2)
#define PHY_POLL (-1)
typedef enum { PHY_INTERFACE_MODE_NA, PHY_INTERFACE_MODE_MII, PHY_INTERFACE_MODE_GMII } phy_interface_t;
struct phy_driver;
/* A PHY: none is ever attached (the bus finds none). */
struct phy_device {
	const struct phy_driver *drv;
	u32 phy_id;
	int speed, duplex, autoneg, link;
	bool mac_managed_pm;
	unsigned long advertising[2], supported[2];
};
struct mii_bus {
	const char *name;
	char id[MII_BUS_ID_SIZE];
	void *priv;
	int (*read)(struct mii_bus *bus, int addr, int regnum);
	int (*write)(struct mii_bus *bus, int addr, int regnum, u16 val);
	u32 phy_mask;
	int irq[PHY_MAX_ADDR];
	struct device *parent;
};
#define devm_mdiobus_alloc(d) ((void)(d), (struct mii_bus *)NULL)
#define devm_mdiobus_register(d, bus) txp_stub(((void)(d), (void)(bus), -ENODEV))
#define mdiobus_get_phy(bus, addr) ((void)(bus), (void)(addr), (struct phy_device *)NULL)
#define linkmode_clear_bit(nr, addr) ((void)(nr), (void)(addr))
#define phy_connect_direct(dev, phy, handler, mode) \
	txp_stub(((void)(dev), (void)(phy), (void)(handler), (void)(mode), -ENODEV))
#define phy_disconnect(phy) ((void)(phy))
#define phy_attached_info(phy) ((void)(phy))
#define phy_print_status(phy) ((void)(phy))
#define phy_mac_interrupt(phy) ((void)(phy))
#define phy_start(phy) ((void)(phy))
#define phy_stop(phy) ((void)(phy))
#define phy_start_aneg(phy) txp_stub(((void)(phy), 0))
#define phy_init_hw(phy) txp_stub(((void)(phy), 0))
#define phy_suspend(phy) txp_stub(((void)(phy), 0))
#define phy_resume(phy) txp_stub(((void)(phy), 0))
#define phy_speed_up(phy) txp_stub(((void)(phy), 0))
#define phy_speed_down(phy, sync) txp_stub(((void)(phy), (void)(sync), 0))
#define phy_set_max_speed(phy, speed) ((void)(phy), (void)(speed))
#define phy_support_eee(phy) ((void)(phy))
#define phy_support_asym_pause(phy) ((void)(phy))
#define phy_set_asym_pause(phy, rx, tx) ((void)(phy), (void)(rx), (void)(tx))
#define phy_get_pause(phy, tx, rx) ((void)(phy), *(tx) = false, *(rx) = false)
#define phy_ethtool_get_eee(phy, e) txp_stub(((void)(phy), (void)(e), -EOPNOTSUPP))
#define phy_ethtool_set_eee(phy, e) txp_stub(((void)(phy), (void)(e), -EOPNOTSUPP))
#define genphy_soft_reset(phy) txp_stub(((void)(phy), 0))
/* The PHY's registers: they read zero, writes go nowhere; each call 0. */
static inline int phy_read(struct phy_device *phy, u32 reg)
{
	(void)phy, (void)reg;
	return 0;
}

static inline int phy_modify(struct phy_device *phy, u32 reg, u16 mask, u16 set)
{
	(void)phy, (void)reg, (void)mask, (void)set;
	return 0;
}

static inline int phy_modify_paged(struct phy_device *phy, int page, u32 reg, u16 mask, u16 set)
{
	(void)page;
	return phy_modify(phy, reg, mask, set);
}
#define phy_write(phy, reg, v) phy_modify((phy), (reg), 0xffff, (v))
#define __phy_write(phy, reg, v) phy_write((phy), (reg), (v))
#define phy_write_mmd(phy, mmd, reg, v) phy_modify_paged((phy), (mmd), (reg), 0xffff, (v))
#define __phy_modify(phy, reg, mask, set) phy_modify((phy), (reg), (mask), (set))
#define phy_set_bits(phy, reg, bits) phy_modify((phy), (reg), 0, (bits))
#define phy_clear_bits(phy, reg, bits) phy_modify((phy), (reg), (bits), 0)
#define phy_read_paged(phy, page, reg) phy_modify_paged((phy), (page), (reg), 0, 0)
#define phy_write_paged(phy, page, reg, v) phy_modify_paged((phy), (page), (reg), 0xffff, (v))
#define phy_select_page(phy, page) phy_modify_paged((phy), (page), 0, 0, 0)
#define phy_restore_page(phy, old, ret) txp_stub(((void)(phy), (void)(old), (ret)))
#define phy_lock_mdio_bus(phy) ((void)(phy))
#define phy_unlock_mdio_bus(phy) ((void)(phy))
/* Poll a PHY register until cond: it reads 0 once, and is done. */
#define phy_read_poll_timeout(phy, reg, val, cond, sleep_us, timeout_us, sleep_before) \
	__extension__({ (void)(sleep_us), (void)(timeout_us), (void)(sleep_before); \
		(val) = phy_read((phy), (reg)); (cond) ? 0 : -ETIMEDOUT; })

/* The ops a driver takes from phylib and ethtool's defaults. */
static inline int phy_do_ioctl_running(struct net_device *dev, struct ifreq *ifr, int cmd)
{
	(void)dev, (void)ifr, (void)cmd;
	return -ENODEV;
}

static inline int phy_ethtool_nway_reset(struct net_device *dev)
{
	(void)dev;
	return -ENODEV;
}

static inline int phy_ethtool_get_link_ksettings(struct net_device *dev,
						 struct ethtool_link_ksettings *cmd)
{
	(void)dev, (void)cmd;
	return -ENODEV;
}

static inline int phy_ethtool_set_link_ksettings(struct net_device *dev,
						 const struct ethtool_link_ksettings *cmd)
{
	(void)dev, (void)cmd;
	return -ENODEV;
}

/* The carrier is always on (kernel.h). */
static inline u32 ethtool_op_get_link(struct net_device *dev)
{
	(void)dev;
	return 1;
}

static inline int ethtool_op_get_ts_info(struct net_device *dev, struct kernel_ethtool_ts_info *info)
{
	(void)dev, (void)info;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif
