/*
 * device.c - a real device's lifecycle (txpath/netdrv.h): made (its
 * rings' config, the ring over the driver's state, the public
 * constructors' common part), counted, destroyed.
 */
#include <stdio.h>
#include <string.h>

#include "core/no_cfg.h"
#include "device.h"
#include "txpath/netdrv.h"

#define NETDRV_RING_DEFAULT 512u
#define NETDRV_MAX_LEN_DEFAULT 1514u	/* a 1500-byte MTU's frame */

struct ring_cfg txp__netdrv_ring_cfg(const struct netdrv_queue_cfg *c, const struct ring_ops *ops)
{
	return (struct ring_cfg){
		.ops = ops,
		.slots = c->slots,
		.slot_size = c->max_len,
		.max_len = c->max_len,
		.ifname = c->net->ifname ? c->net->ifname : c->net->file,
		.log = c->log,
	};
}

struct ring *txp__netdrv_make_ring(struct ring_cfg *rc, void *drv, const uint8_t *mac, char *err,
			      size_t errlen)
{
	struct ring *r;

	rc->mac = mac;
	rc->drv = drv;
	r = txp__ring_create(rc, err, errlen);
	if (!r)
		rc->ops->release(drv);
	return r;
}

/* netdrv's rings for c->queues queues, queue 0's holding the others; NULL
 * and a message. */
static struct ring *netdrv_rings(const struct txp__netdrv *netdrv, struct netdrv_queue_cfg *c,
				 char *err, size_t errlen)
{
	struct ring *first = NULL, *r;

	if (c->queues > 1 && !c->net->ifname) {
		snprintf(err, errlen, "%s: a file is one stream: one queue, not %u", netdrv->name,
			 c->queues);
		return NULL;
	}
	for (c->queue = 0; c->queue < c->queues; c->queue++) {
		c->first = first;
		r = netdrv->create(c, err, errlen);
		if (r && first && txp__ring_add_queue(first, r, err, errlen) != 0) {
			txp__ring_destroy(r);
			r = NULL;
		}
		if (!r) {
			txp__ring_destroy(first);
			return NULL;
		}
		if (!first)
			first = r;
	}
	return first;
}

struct txp_dev *txp__netdrv_no_cfg(char *err, size_t errlen)
{
	txp__no_cfg("device", err, errlen);
	return NULL;
}

struct txp_dev *txp__netdrv_create(const struct txp__netdrv *netdrv,
				   const struct txp_netdrv_cfg *base, const struct txp_net_cfg *net,
				   unsigned pool_frames, char *err, size_t errlen)
{
	struct netdrv_queue_cfg c = {
		.net = net,
		.slots = base->ring ? base->ring : NETDRV_RING_DEFAULT,
		.max_len = base->max_len ? base->max_len : NETDRV_MAX_LEN_DEFAULT,
		.pool_frames = pool_frames,
		.log = base->dev.log,
		.queues = base->dev.num_tx_queues ? base->dev.num_tx_queues : 1,
	};
	struct txp_dev_cfg dcfg = base->dev;
	struct txp_dev *dev;
	struct ring *r;
	int rc;

	if (dcfg.ops || dcfg.priv) {
		snprintf(err, errlen, "%s: the device's ops and priv are the driver's: leave them NULL",
			 netdrv->name);
		return NULL;
	}
	r = netdrv_rings(netdrv, &c, err, errlen);
	if (!r)
		return NULL;
	dcfg.ops = netdrv->ops;
	dcfg.priv = r;
	if (!dcfg.name)
		dcfg.name = net->ifname ? net->ifname : net->file;
	dev = txp_dev_create(&dcfg, err, errlen);
	if (!dev) {
		txp__ring_destroy(r);
		return NULL;
	}
	rc = txp_dev_open(dev);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot bring the device up: %s", netdrv->name,
			 strerror(-rc));
		txp_netdrv_destroy(dev);
		return NULL;
	}
	return dev;
}

void txp_netdrv_destroy(struct txp_dev *dev)
{
	struct ring *r;

	if (!dev)
		return;
	r = txp_dev_priv(dev);
	txp_dev_destroy(dev);
	txp__ring_destroy(r);
}

void txp_netdrv_get_stats(struct txp_dev *dev, struct txp_netdrv_stats *st)
{
	struct txp__ring_stats rs;

	txp__ring_get_stats(txp_dev_priv(dev), &rs);
	*st = (struct txp_netdrv_stats){
		.ring_full_awake = rs.ring_full_awake,
		.ring_full_stopped = rs.ring_full_stopped,
		.device_busy = rs.dev_busy,
		.ring_errors = rs.ring_errors,
		.refused = rs.refused,
		.tx_errors = rs.tx_errors,
		.dropped_down = rs.dropped_down,
		.in_place = rs.in_place,
		.died_drop = rs.died_drop,
	};
}

const char *txp_netdrv_dead(struct txp_dev *dev)
{
	return txp__ring_dead_cause(txp_dev_priv(dev));
}

unsigned txp__netdrv_busy_poll(struct txp_dev *dev, int queue)
{
	return txp__ring_busy_poll(txp_dev_priv(dev), queue);
}

const uint8_t *txp_netdrv_mac(struct txp_dev *dev)
{
	return txp__ring_mac(txp_dev_priv(dev));
}
