/*
 * device.h - what a real driver (afpacket, afxdp, tap, pcap) is made of
 * to become a device of txpath/netdrv.h, and made with (device.c).
 *
 * Each makes a struct ring per transmit queue (queue 0's is the device's
 * priv) bound to its device, and has driver ops whose open, stop,
 * start_xmit and tx_timeout are the ring's; its public constructor
 * (txpath/netdrv.h) hands both to txp__netdrv_create().
 */
#ifndef TXP_DRIVERS_DEVICE_H
#define TXP_DRIVERS_DEVICE_H

#include <stdio.h>

#include "ring.h"
#include "txpath/net.h"
#include "txpath/netdrv.h"

/* What a driver's create is given: one queue's ring in the making. */
struct netdrv_queue_cfg {
	const struct txp_net_cfg *net;
	unsigned slots;		/* ring slots */
	unsigned max_len;	/* the largest frame it will be given (slot size) */
	unsigned pool_frames;	/* afxdp: UMEM frames for packet pools */
	FILE *log;
	unsigned queues;	/* the device's transmit queues, a ring each */
	unsigned queue;		/* the one being made: 0 first, then in order */
	struct ring *first;	/* queue 0's ring (NULL while making it) */
};

/* A real driver: its name, its ops, how it makes a queue's ring. */
struct txp__netdrv {
	const char *name;
	const struct txp_driver_ops *ops;
	/* Queue cfg->queue's ring; NULL and a one-line message on failure.
	 * txp__ring_destroy() of queue 0's frees it (after the device is
	 * closed), before queue 0's. */
	struct ring *(*create)(const struct netdrv_queue_cfg *cfg, char *err, size_t errlen);
};

/* A ring's config from a driver's: slot buffers of one frame each (the
 * driver sets buf and slot_size when it brings its own memory). */
struct ring_cfg txp__netdrv_ring_cfg(const struct netdrv_queue_cfg *c, const struct ring_ops *ops);

/* The end of every create: make the ring over drv, which remembers mac
 * (NULL: none).  On failure drv is released with rc->ops->release, and
 * NULL returned with a message. */
struct ring *txp__netdrv_make_ring(struct ring_cfg *rc, void *drv, const uint8_t *mac, char *err,
				   size_t errlen);

/* A public constructor's work: netdrv's ring for net with base's sizes (and
 * pool_frames, afxdp's), the device over it with base's knobs, opened.
 * NULL and a message. */
struct txp_dev *txp__netdrv_create(const struct txp__netdrv *netdrv,
				   const struct txp_netdrv_cfg *base, const struct txp_net_cfg *net,
				   unsigned pool_frames, char *err, size_t errlen);

/* txp__ring_busy_poll() on dev (made by a constructor of txpath/netdrv.h):
 * not in the public API yet; the workload's producers use it
 * (src/run/drv_net.c). */
unsigned txp__netdrv_busy_poll(struct txp_dev *dev, int queue);

/* A public constructor given no cfg: NULL, and that said in err. */
struct txp_dev *txp__netdrv_no_cfg(char *err, size_t errlen);

/* The driver ops of a real driver are the ring's. */
#define NETDRV_DEFINE(drv, create_fn)						\
	static const struct txp_driver_ops drv##_driver_ops = {			\
		.name = #drv,							\
		.open = txp__ring_open,						\
		.stop = txp__ring_stop,						\
		.start_xmit = txp__ring_start_xmit,				\
		.tx_timeout = txp__ring_tx_timeout,				\
	};									\
	static const struct txp__netdrv drv##_netdrv = {			\
		.name = #drv,							\
		.ops = &drv##_driver_ops,					\
		.create = create_fn,						\
	}

#endif
