/*
 * drv_null.c - the workload's view of the null driver.
 */
#include <stdio.h>

#include "txpath/null.h"
#include "run/run.h"

static bool null_check(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->line_rate) {
		snprintf(err, errlen, "the null driver sends at once: --line-rate is for --driver sim");
		return false;
	}
	return true;
}

static int null_create(const struct txp_run_cfg *cfg, const struct txp_driver_ops **ops,
		       void **priv, char *err, size_t errlen)
{
	(void)cfg;
	*priv = txp_null_create();
	*ops = &txp_null_ops;
	if (!*priv)
		snprintf(err, errlen, "out of memory");
	return *priv ? 0 : -1;
}

/* No wire: the accounting rests on the core's own counts. */
static void null_stats(void *priv, struct txp_run_drv_stats *st)
{
	(void)priv;
	*st = (struct txp_run_drv_stats){ .wire_measured = false };
}

static void null_destroy(void *priv)
{
	txp_null_destroy(priv);
}

const struct txp_run_driver txp_run_driver_null = {
	.name = "null",
	.summary = "accepts every packet and completes it at once: the core's own cost",
	.check = null_check,
	.create = null_create,
	.stats = null_stats,
	.destroy = null_destroy,
};
