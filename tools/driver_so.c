/*
 * driver_so.c - --driver-so and --driver-arg, for `txpath run`, `txpath
 * check` and `txpath bench`: a plugin driver loaded, or a usage error.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "txpath/plugin.h"

#define DRIVER_ARGS_MAX 32

bool driver_so_option(struct driver_so *d, int c, const char *arg)
{
	if (c == OPT_DRIVER_SO)
		d->path = arg;
	else if (c == OPT_DRIVER_ARG)
		d->args = arg;
	return c == OPT_DRIVER_SO || c == OPT_DRIVER_ARG;
}

const struct txp_run_driver *driver_so_load(const char *cmd, const struct driver_so *d)
{
	const char *args[DRIVER_ARGS_MAX];
	char *copy, *save = NULL;
	const struct txp_run_driver *drv;
	unsigned n = 0;
	char err[512];

	if (!d->path) {
		if (d->args)
			usage_error(cmd, "--driver-arg applies to --driver-so only");
		return NULL;
	}
	copy = strdup(d->args ? d->args : "");
	if (!copy)
		usage_error(cmd, "out of memory");
	for (char *a = strtok_r(copy, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		size_t key = strcspn(a, "=");

		if (n == DRIVER_ARGS_MAX)
			usage_error(cmd, "--driver-arg: at most %d knobs", DRIVER_ARGS_MAX);
		for (unsigned i = 0; i < n; i++)
			if (strcspn(args[i], "=") == key && !strncmp(args[i], a, key))
				usage_error(cmd, "--driver-arg: %.*s given twice", (int)key, a);
		args[n++] = a;
	}
	drv = txp_run_driver_plugin(d->path, args, n, err, sizeof(err));
	free(copy);
	if (!drv)
		usage_error(cmd, "%s", err);
	return drv;
}

/* Was the option of that long name given? */
static bool given(const struct cmdline *cl, const char *name)
{
	for (const struct option *o = cl->opts; o->name; o++)
		if (!strcmp(o->name, name))
			return cmdline_given(cl, o->val);
	return false;
}

void driver_so_use(const struct cmdline *cl, struct txp_run_cfg *cfg, const struct driver_so *d)
{
	const struct txp_run_driver *drv;
	const struct txp_plugin *p;

	if (d->path && given(cl, "driver"))
		usage_error(cl->cmd, "choose one of --driver, --driver-so");
	drv = driver_so_load(cl->cmd, d);
	if (!drv)
		return;
	cfg->driver = drv;
	p = txp_run_driver_plugin_of(drv);
	if (!given(cl, "lock"))
		cfg->lock = p->lock;
	if (!given(cl, "ring"))
		cfg->ring = p->ring;
}
