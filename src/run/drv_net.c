/*
 * drv_net.c - the workload's view of the real drivers: afpacket, afxdp,
 * tap (an interface, --dev) and pcap (a file, --file).
 */
#include <stdio.h>
#include <string.h>

#include "drivers/common/netdrv.h"
#include "txpath/run.h"

static const struct netdrv *netdrv_of(const struct txp_run_cfg *cfg)
{
	static const struct netdrv *const all[] = {
		&txp_netdrv_afpacket, &txp_netdrv_afxdp, &txp_netdrv_tap, &txp_netdrv_pcap,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(all[i]->name, cfg->driver->name) == 0)
			return all[i];
	return NULL;
}

static bool net_check(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	const struct txp_net_cfg *nc = &cfg->net;
	bool file = netdrv_of(cfg) == &txp_netdrv_pcap;

	if (file && !nc->file) {
		snprintf(err, errlen, "driver pcap writes a file: give --file PATH");
		return false;
	}
	if (!file && !nc->ifname) {
		snprintf(err, errlen, "driver %s sends on an interface: give --dev IFNAME",
			 cfg->driver->name);
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

static int net_create(const struct txp_run_cfg *cfg, const struct txp_driver_ops **ops,
		      void **priv, char *err, size_t errlen)
{
	const struct netdrv *nd = netdrv_of(cfg);
	struct netdrv_cfg c = {
		.net = &cfg->net,
		.slots = cfg->ring,
		.max_len = cfg->size,
		.log = cfg->log,
	};

	*ops = nd->ops;
	*priv = nd->create(&c, err, errlen);
	return *priv ? 0 : -1;
}

/* cfg's addresses, the source MAC defaulting to the interface's. */
static void net_frame_addr(void *priv, const struct txp_run_cfg *cfg, struct txp_frame_addr *a)
{
	struct ring *r = priv;

	*a = cfg->net.addr;
	txp_frame_addr_resolve(a, r->has_mac ? r->mac : NULL);
}

static void net_stats(void *priv, struct txp_run_drv_stats *st)
{
	struct ring *r = priv;

	const char *died = ring_dead_cause(r);

	*st = (struct txp_run_drv_stats){
		.ring_full_awake = txp_load_relaxed(&r->ring_full_awake),
		.ring_full_stopped = txp_load_relaxed(&r->ring_full_stopped),
		.ring_errors = txp_load_relaxed(&r->ring_errors),
		.device_busy = txp_load_relaxed(&r->dev_busy),
		.link_down = died != NULL,
		.died_drop = died ? r->dead_why : TXP_DROP_DEV_DOWN,
	};
	snprintf(st->died, sizeof(st->died), "%s", died ? died : "");
}

static const char *net_dead(void *priv)
{
	return ring_dead_cause(priv);
}

static void net_destroy(void *priv)
{
	ring_destroy(priv);
}

#define NET_RUN_DRIVER(drv, what)				\
	const struct txp_run_driver txp_run_driver_##drv = {	\
		.name = #drv,					\
		.summary = what,				\
		.check = net_check,				\
		.create = net_create,				\
		.frame_addr = net_frame_addr,			\
		.stats = net_stats,				\
		.dead = net_dead,				\
		.destroy = net_destroy,				\
	}

NET_RUN_DRIVER(afpacket, "PACKET_TX_RING on --dev (TPACKET_V2/V3, optional qdisc bypass)");
NET_RUN_DRIVER(afxdp, "an AF_XDP socket's TX ring and UMEM on --dev (--xdp-mode)");
NET_RUN_DRIVER(tap, "a TAP device --dev, non-blocking writes");
NET_RUN_DRIVER(pcap, "every frame into the pcap file --file");
