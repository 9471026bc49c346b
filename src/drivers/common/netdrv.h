/*
 * netdrv.h - the real drivers' entry points: afpacket, afxdp, tap, pcap.
 *
 * Each makes a struct ring (the device's priv) bound to its device, and
 * exports driver ops whose open/stop/start_xmit are the ring's.
 */
#ifndef TXP_DRIVERS_NETDRV_H
#define TXP_DRIVERS_NETDRV_H

#include <stdio.h>

#include "ring.h"
#include "txpath/net.h"

struct netdrv_cfg {
	const struct txp_net_cfg *net;
	unsigned slots;		/* ring slots (--ring) */
	unsigned max_len;	/* the largest frame it will be given (slot size) */
	FILE *log;
};

struct netdrv {
	const char *name;
	const struct txp_driver_ops *ops;
	/* NULL and a one-line message on failure.  ring_destroy() frees it
	 * (after the device is closed). */
	struct ring *(*create)(const struct netdrv_cfg *cfg, char *err, size_t errlen);
};

/* A ring's config from a driver's: slot buffers of one frame each (the
 * driver sets buf and slot_size when it brings its own memory). */
struct ring_cfg netdrv_ring_cfg(const struct netdrv_cfg *c, const struct ring_ops *ops);

/* The end of every create: make the ring over drv, which remembers mac
 * (NULL: none).  On failure drv is released
 * with rc->ops->release, and NULL returned with a message. */
struct ring *netdrv_make_ring(struct ring_cfg *rc, void *drv, const uint8_t *mac, char *err,
			      size_t errlen);

/* The driver ops of a real driver are the ring's. */
#define NETDRV_DEFINE(drv, create_fn)						\
	static const struct txp_driver_ops drv##_driver_ops = {			\
		.name = #drv,							\
		.open = ring_open,						\
		.stop = ring_stop,						\
		.start_xmit = ring_start_xmit,					\
	};									\
	const struct netdrv txp_netdrv_##drv = {				\
		.name = #drv,							\
		.ops = &drv##_driver_ops,					\
		.create = create_fn,						\
	}

extern const struct netdrv txp_netdrv_afpacket, txp_netdrv_afxdp, txp_netdrv_tap, txp_netdrv_pcap;

#endif
