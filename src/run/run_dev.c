/*
 * run_dev.c - the device a workload runs on: its driver checked and made,
 * the device assembled and opened, in one place for `txpath run`, the
 * explorer and the bench.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "run/run.h"

struct txp_dev_cfg txp_run_dev_cfg(const struct txp_run_cfg *cfg)
{
	return (struct txp_dev_cfg){
		.name = cfg->driver->name,
		.lock = cfg->lock,
		.runner = cfg->runner,
		.qdisc = cfg->qdisc,
		.txqueuelen = cfg->txqueuelen,
		.bulk = cfg->bulk,
		.log = cfg->log,
		.num_tx_queues = cfg->queues,
		.bql = cfg->bql,
		.watchdog_timeo_ms = cfg->watchdog_ms,
		.defer = cfg->defer,
		.busylock = cfg->busylock,
	};
}

/* The device of c (the driver's ops and priv set), as watch sees it,
 * opened.  0, or a negative errno and a message; *dev may be made even
 * then. */
static int dev_assemble(struct txp_dev_cfg *c, const struct txp_run_dev_watch *watch,
			struct txp_dev **dev, char *err, size_t errlen)
{
	int rc;

	if (watch && watch->ops)
		c->ops = watch->ops(c->ops, watch->arg);
	*dev = txp_dev_create(c, err, errlen);
	if (!*dev)
		return -ENODEV;
	if (watch && watch->made)
		watch->made(*dev, watch->arg);
	rc = txp_dev_open(*dev);
	if (rc != 0)
		snprintf(err, errlen, "cannot bring %s up: %s", c->name, strerror(-rc));
	return rc;
}

int txp_run_dev_create(const struct txp_run_cfg *cfg, const struct txp_dev_cfg *dcfg,
		       const struct txp_run_dev_watch *watch, struct txp_dev **dev, void **priv,
		       char *err, size_t errlen)
{
	const struct txp_run_driver *d = cfg->driver;
	struct txp_dev_cfg c = dcfg ? *dcfg : txp_run_dev_cfg(cfg);
	int rc;

	*dev = NULL;
	*priv = NULL;
	if (!d->check(cfg, err, errlen))
		return -EINVAL;
	if (d->create_dev && watch) {
		snprintf(err, errlen, "driver %s makes its own device: it cannot be watched", d->name);
		return -EINVAL;
	}
	if (d->create_dev) {
		*dev = d->create_dev(cfg, &c, priv, err, errlen);
		return *dev ? 0 : -ENODEV;
	}
	if (d->create(cfg, &c.ops, priv, err, errlen) != 0) {
		*priv = NULL;
		return -ENODEV;
	}
	c.priv = *priv;
	rc = dev_assemble(&c, watch, dev, err, errlen);
	if (rc != 0) {
		txp_run_dev_destroy(d, *dev, *priv);
		*dev = NULL;
		*priv = NULL;
	}
	return rc;
}

void txp_run_dev_destroy(const struct txp_run_driver *driver, struct txp_dev *dev, void *priv)
{
	if (dev && !driver->create_dev)
		txp_dev_destroy(dev);
	if (priv)
		driver->destroy(priv);
}
