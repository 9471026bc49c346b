/*
 * drv_net.c - the workload's view of the real drivers: afpacket, afxdp,
 * tap (an interface, --dev) and pcap (a file, --file), made through their
 * public constructors (txpath/netdrv.h); their producers busy-poll
 * through the drivers' own device.h (not in the public API).
 */
#include <stdio.h>
#include <string.h>

#include "drivers/common/device.h"
#include "txpath/netdrv.h"
#include "run/run.h"

static bool is_pcap(const struct txp_run_cfg *cfg)
{
	return strcmp(cfg->driver->name, "pcap") == 0;
}

static bool net_check(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	const struct txp_net_cfg *nc = &cfg->net;
	bool file = is_pcap(cfg);

	if (file && !nc->file) {
		snprintf(err, errlen, "driver pcap writes a file: give --file PATH");
		return false;
	}
	if (!file && !nc->ifname) {
		snprintf(err, errlen, "driver %s sends on an interface: give --dev IFNAME",
			 cfg->driver->name);
		return false;
	}
	if (nc->umem_pool && (strcmp(cfg->driver->name, "afxdp") != 0 || !cfg->sndbuf)) {
		snprintf(err, errlen, "UMEM pools are for driver afxdp, with a send buffer (sndbuf)");
		return false;
	}
	if (file && cfg->queues > 1) {
		snprintf(err, errlen, "driver pcap writes one file: one queue, not --queues %u",
			 cfg->queues);
		return false;
	}
	if (cfg->ring < 2) {
		snprintf(err, errlen, "--ring must be at least 2 for driver %s", cfg->driver->name);
		return false;
	}
	if (nc->addr.dst_ip && !txp_ipv4_is_bench(nc->addr.dst_ip)) {
		snprintf(err, errlen,
			 "--dst-ip must be in the benchmarking range 198.18.0.0/15 (RFC 2544)");
		return false;
	}
	return true;
}

/* UMEM frames for the producers' pools: a send buffer's worth each. */
static unsigned net_pool_frames(const struct txp_run_cfg *cfg)
{
	return cfg->net.umem_pool ? cfg->threads * cfg->sndbuf : 0;
}

/* The device of cfg's driver, by its public constructor. */
static struct txp_dev *net_create_dev(const struct txp_run_cfg *cfg,
				      const struct txp_dev_cfg *dcfg, void **priv, char *err,
				      size_t errlen)
{
	const struct txp_net_cfg *nc = &cfg->net;
	const struct txp_netdrv_cfg base = { .dev = *dcfg, .ring = cfg->ring, .max_len = cfg->size };
	const char *name = cfg->driver->name;
	struct txp_dev *dev;

	if (strcmp(name, "afxdp") == 0)
		dev = txp_afxdp_create(&(struct txp_afxdp_cfg){ .base = base, .ifname = nc->ifname,
								.queue = nc->queue, .mode = nc->xdp_mode,
								.pool_frames = net_pool_frames(cfg),
								.quiet_bpf_log = nc->quiet_bpf_log },
				       err, errlen);
	else if (strcmp(name, "afpacket") == 0)
		dev = txp_afpacket_create(&(struct txp_afpacket_cfg){ .base = base,
								      .ifname = nc->ifname,
								      .tpacket = nc->tpacket,
								      .qdisc_bypass = nc->qdisc_bypass },
					  err, errlen);
	else if (strcmp(name, "tap") == 0)
		dev = txp_tap_create(&(struct txp_tap_cfg){ .base = base, .ifname = nc->ifname },
				     err, errlen);
	else
		dev = txp_pcap_create(&(struct txp_pcap_cfg){ .base = base, .file = nc->file }, err,
				      errlen);
	*priv = dev;
	return dev;
}

/* cfg's addresses, the source MAC defaulting to the interface's. */
static void net_frame_addr(void *priv, const struct txp_run_cfg *cfg, struct txp_frame_addr *a)
{
	*a = cfg->net.addr;
	txp_frame_addr_resolve(a, txp_netdrv_mac(priv));
}

/* afxdp with umem_pool: the producer's packets in UMEM frames; else NULL
 * (the run's own pool). */
static struct txp_pkt_pool *net_pool_create(void *priv, const struct txp_run_cfg *cfg, char *err,
					    size_t errlen)
{
	if (!cfg->net.umem_pool)
		return NULL;
	return txp_afxdp_pool_create(priv, cfg->sndbuf, 0, err, errlen);
}

static void net_stats(void *priv, struct txp_run_drv_stats *st)
{
	const char *died = txp_netdrv_dead(priv);
	struct txp_netdrv_stats ns;

	txp_netdrv_get_stats(priv, &ns);
	*st = (struct txp_run_drv_stats){
		.ring_full_awake = ns.ring_full_awake,
		.ring_full_stopped = ns.ring_full_stopped,
		.ring_errors = ns.ring_errors,
		.device_busy = ns.device_busy,
		.link_down = died != NULL,
		.died_drop = ns.died_drop,
	};
	snprintf(st->died, sizeof(st->died), "%s", died ? died : "");
}

static unsigned net_busy_poll(void *priv, int queue)
{
	return txp__netdrv_busy_poll(priv, queue);
}

static const char *net_dead(void *priv)
{
	return txp_netdrv_dead(priv);
}

static void net_destroy(void *priv)
{
	txp_netdrv_destroy(priv);
}

#define NET_RUN_DRIVER(drv, what)				\
	const struct txp_run_driver txp_run_driver_##drv = {	\
		.name = #drv,					\
		.summary = what,				\
		.check = net_check,				\
		.create_dev = net_create_dev,			\
		.frame_addr = net_frame_addr,			\
		.pool_create = net_pool_create,			\
		.busy_poll = net_busy_poll,			\
		.stats = net_stats,				\
		.dead = net_dead,				\
		.destroy = net_destroy,				\
	}

NET_RUN_DRIVER(afpacket, "PACKET_TX_RING on --dev (TPACKET_V2/V3, optional qdisc bypass)");
NET_RUN_DRIVER(afxdp, "an AF_XDP socket's TX ring and UMEM on --dev (--xdp-mode)");
NET_RUN_DRIVER(tap, "a TAP device --dev, non-blocking writes");
NET_RUN_DRIVER(pcap, "every frame into the pcap file --file");
