/*
 * load.c - loading a plugin driver (--driver-so) and making it a driver
 * of the workload, which `txpath run` and `txpath check` both drive.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/host.h"

/* The public seam's operations (txpath/sync.h), which the library never
 * calls itself: named here so that a program loading plugins links them,
 * and exports them to its plugins with the rest. */
static void (*const seam_exports[])(void) __attribute__((used)) = {
	(void (*)(void))txp_atomic_load, (void (*)(void))txp_atomic_store_named,
	(void (*)(void))txp_atomic_xchg, (void (*)(void))txp_atomic_cmpxchg,
	(void (*)(void))txp_atomic_fetch_add, (void (*)(void))txp_atomic_fetch_or,
	(void (*)(void))txp_atomic_fetch_and, (void (*)(void))txp_set_bit,
	(void (*)(void))txp_clear_bit, (void (*)(void))txp_test_bit,
	(void (*)(void))txp_test_and_set_bit, (void (*)(void))txp_test_and_clear_bit,
	txp_mb, txp_rmb, txp_wmb, txp_mb_after_atomic, txp_relax,
	(void (*)(void))txp_event_at,
};

/* Every plugin loaded, newest first. */
static struct plugin_host *loaded;

/* The plugin host of a workload driver made here. */
static const struct plugin_host *host_of(const struct txp_run_driver *d)
{
	return (const struct plugin_host *)((const char *)d - offsetof(struct plugin_host, drv));
}

static unsigned ring_of(const struct plugin_host *h, const struct txp_run_cfg *cfg)
{
	return cfg->ring ? cfg->ring : h->p->ring;
}

static bool host_check(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	const struct txp_plugin *p = host_of(cfg->driver)->p;

	if (cfg->lock != p->lock) {
		snprintf(err, errlen, "driver %s is written for --lock %s, not %s", p->name,
			 txp_lock_mode_name(p->lock), txp_lock_mode_name(cfg->lock));
		return false;
	}
	if (cfg->frags_max > p->max_frags) {
		snprintf(err, errlen, "driver %s takes packets of up to %u fragments, not %u", p->name,
			 p->max_frags, cfg->frags_max);
		return false;
	}
	if (ring_of(host_of(cfg->driver), cfg) < 2) {
		snprintf(err, errlen, "driver %s: a ring of at least 2 descriptors", p->name);
		return false;
	}
	return true;
}

static int host_create(const struct txp_run_cfg *cfg, const struct txp_driver_ops **ops,
		       void **priv, char *err, size_t errlen)
{
	const struct plugin_host *h = host_of(cfg->driver);

	*priv = plugin_dev_create(h, ring_of(h, cfg), cfg->batch, cfg->threads, cfg->log);
	*ops = &h->ops;
	if (!*priv)
		snprintf(err, errlen, "out of memory");
	return *priv ? 0 : -1;
}

static void host_stats(void *priv, struct txp_run_drv_stats *st)
{
	struct plugin_dev *pd = priv;
	struct txp_wire_stats ws;

	txp_wire_get_stats(pd->wire, &ws);
	*st = (struct txp_run_drv_stats){
		.wire_measured = true,
		.wire_frames = ws.frames,
		.wire_unique = ws.unique,
		.wire_duplicates = ws.duplicates,
		.wire_alien = ws.alien,
	};
}

static void host_destroy(void *priv)
{
	plugin_dev_destroy(priv);
}

/* -- refusing what does not fit --------------------------------------------------- */

static int refuse(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The ops and geometry a plugin must give. */
static int plugin_valid(const struct txp_plugin *p, const char *path, char *err, size_t errlen)
{
	const char *missing = !p->name ? "name" : !p->start_xmit ? "start_xmit" : !p->poll ? "poll"
			    : !p->stop ? "stop" : NULL;

	if (p->abi != TXP_PLUGIN_ABI)
		return refuse(err, errlen, "%s: plugin ABI version %u, this txpath loads version %u "
			      "(rebuild it against this txpath's headers)", path, p->abi, TXP_PLUGIN_ABI);
	if (p->size < sizeof(*p))
		return refuse(err, errlen, "%s: struct txp_plugin of %u bytes, expected %zu "
			      "(rebuild it against this txpath's headers)", path, p->size, sizeof(*p));
	if (missing)
		return refuse(err, errlen, "%s: the plugin gives no %s", path, missing);
	if (p->lock != TXP_LOCK_CORE && p->lock != TXP_LOCK_LLTX)
		return refuse(err, errlen, "%s: lock mode %d is neither TXP_LOCK_CORE nor TXP_LOCK_LLTX",
			      path, (int)p->lock);
	if (p->max_frags > TXP_MAX_FRAGS)
		return refuse(err, errlen, "%s: max_frags %u, at most %d", path, p->max_frags,
			      TXP_MAX_FRAGS);
	if (p->nknobs && !p->knobs)
		return refuse(err, errlen, "%s: %u knobs but no knobs array", path, p->nknobs);
	return 0;
}

/* --driver-arg NAME=VALUE: the knob set, or -EINVAL and why. */
static int set_knob(const struct txp_plugin *p, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;
	char names[256] = "";
	size_t used = 0;

	for (unsigned i = 0; eq && i < p->nknobs; i++) {
		const struct txp_plugin_knob *k = &p->knobs[i];
		char *end;
		long v;

		if (strlen(k->name) != len || strncmp(k->name, arg, len))
			continue;
		errno = 0;
		v = strtol(eq + 1, &end, 10);
		if (!eq[1] || *end || errno || v < k->min || v > k->max)
			return refuse(err, errlen, "--driver-arg %.*s: a whole number %ld..%ld, got '%s'",
				      (int)len, arg, k->min, k->max, eq + 1);
		*k->value = v;
		return 0;
	}
	for (unsigned i = 0; i < p->nknobs && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? " " : "",
					 p->knobs[i].name);
	if (!eq)
		return refuse(err, errlen, "--driver-arg is NAME=VALUE, got '%s' (driver %s's knobs: %s)",
			      arg, p->name, p->nknobs ? names : "none");
	return refuse(err, errlen, "--driver-arg %.*s: driver %s has no such knob (its knobs: %s)",
		      (int)len, arg, p->name, p->nknobs ? names : "none");
}

const struct txp_run_driver *txp_run_driver_plugin(const char *path, const char *const *args,
						   unsigned nargs, char *err, size_t errlen)
{
	const struct txp_plugin *(*entry)(void);
	struct plugin_host *h;
	void *so;

	/* A path, so that dlopen never searches the library path. */
	char *where = strchr(path, '/') ? strdup(path) : malloc(strlen(path) + 3);

	if (!where) {
		refuse(err, errlen, "out of memory");
		return NULL;
	}
	if (!strchr(path, '/'))
		sprintf(where, "./%s", path);
	so = dlopen(where, RTLD_NOW | RTLD_LOCAL);
	free(where);
	if (!so) {
		refuse(err, errlen, "--driver-so %s: not a loadable shared object: %s", path, dlerror());
		return NULL;
	}
	*(void **)&entry = dlsym(so, TXP_PLUGIN_ENTRY);
	if (!entry) {
		refuse(err, errlen, "--driver-so %s: no entry point %s() (define it with TXP_PLUGIN())",
		       path, TXP_PLUGIN_ENTRY);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		refuse(err, errlen, "out of memory");
		return NULL;
	}
	h->p = entry();
	if (!h->p) {
		refuse(err, errlen, "--driver-so %s: %s() returned NULL", path, TXP_PLUGIN_ENTRY);
		free(h);
		return NULL;
	}
	for (unsigned i = 0; plugin_valid(h->p, path, err, errlen) == 0 && i <= nargs; i++) {
		if (i == nargs) {
			/* Never unloaded: kept where the program can reach it. */
			h->next = loaded;
			loaded = h;
			plugin_host_ops(h);
			h->drv = (struct txp_run_driver){
				.name = "plugin",
				.summary = h->p->summary ? h->p->summary : h->p->name,
				.check = host_check,
				.create = host_create,
				.stats = host_stats,
				.destroy = host_destroy,
			};
			return &h->drv;
		}
		if (set_knob(h->p, args[i], err, errlen) != 0)
			break;
	}
	free(h);
	return NULL;
}

const struct txp_plugin *txp_run_driver_plugin_of(const struct txp_run_driver *d)
{
	return d && d->create == host_create ? host_of(d)->p : NULL;
}
