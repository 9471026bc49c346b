/*
 * driver_so.c - --driver-so and --driver-arg, for `txpath run` and
 * `txpath check`: a plugin driver loaded, or a usage error.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "txpath/plugin.h"

#define DRIVER_ARGS_MAX 32

const struct txp_run_driver *driver_so_load(const char *cmd, const char *path, const char *list)
{
	const char *args[DRIVER_ARGS_MAX];
	char *copy = strdup(list ? list : ""), *save = NULL;
	const struct txp_run_driver *d;
	unsigned n = 0;
	char err[512];

	if (!copy)
		usage_error(cmd, "out of memory");
	for (char *a = strtok_r(copy, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		if (n == DRIVER_ARGS_MAX)
			usage_error(cmd, "--driver-arg: at most %d knobs", DRIVER_ARGS_MAX);
		args[n++] = a;
	}
	d = txp_run_driver_plugin(path, args, n, err, sizeof(err));
	free(copy);
	if (!d)
		usage_error(cmd, "%s", err);
	return d;
}

/* Was the option of that long name given? */
static bool given(const struct cmdline *cl, const char *name)
{
	for (const struct option *o = cl->opts; o->name; o++)
		if (!strcmp(o->name, name))
			return cmdline_given(cl, o->val);
	return false;
}

void driver_so_use(const struct cmdline *cl, struct txp_run_cfg *cfg, const char *path,
		   const char *args)
{
	const struct txp_plugin *p;

	if (!path) {
		if (args)
			usage_error(cl->cmd, "--driver-arg applies to --driver-so only");
		return;
	}
	if (given(cl, "driver"))
		usage_error(cl->cmd, "choose one of --driver, --driver-so");
	cfg->driver = driver_so_load(cl->cmd, path, args);
	p = txp_run_driver_plugin_of(cfg->driver);
	if (!given(cl, "lock"))
		cfg->lock = p->lock;
	if (!given(cl, "ring"))
		cfg->ring = p->ring;
}
