/*
 * load.c - loading a plugin driver (--driver-so) and making it a driver
 * of the workload, which `txpath run` and `txpath check` both drive.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plugin/host.h"
#ifdef TXP_CHECK
#include "check/doorbell.h"
#endif

void __tsan_init(void);

/* The public seam's operations (txpath/sync.h), which the library never
 * calls itself: named here so that a program loading plugins links them,
 * and exports them to its plugins with the rest.  So are the calls of
 * the instrumentation a plugin is built with (plugin/tsan_abi.h): one of
 * them named brings their server (tsan_run.c, or the check build's
 * plain.c, or ThreadSanitizer's runtime). */
static void (*const seam_exports[])(void) __attribute__((used)) = {
	(void (*)(void))txp_atomic_load, (void (*)(void))txp_atomic_store_named,
	(void (*)(void))txp_atomic_xchg, (void (*)(void))txp_atomic_cmpxchg,
	(void (*)(void))txp_atomic_fetch_add, (void (*)(void))txp_atomic_fetch_or,
	(void (*)(void))txp_atomic_fetch_and, (void (*)(void))txp_set_bit,
	(void (*)(void))txp_clear_bit, (void (*)(void))txp_test_bit,
	(void (*)(void))txp_test_and_set_bit, (void (*)(void))txp_test_and_clear_bit,
	txp_mb, txp_rmb, txp_wmb, txp_mb_after_atomic, txp_relax,
	(void (*)(void))txp_event_at, __tsan_init,
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
		snprintf(err, errlen, "driver %s: out of memory for a device (netdev_priv() of %zu bytes)",
			 h->p->name, h->p->priv_size);
	return *priv ? 0 : -1;
}

static void host_stats(void *priv, struct txp_run_drv_stats *st)
{
	struct plugin_dev *pd = priv;

	*st = (struct txp_run_drv_stats){ .wire_measured = true };
	txp_wire_stats_add(&st->wire, pd->wire);
}

/* Its packets carry bytes (a frame each, cut into a head and fragments),
 * so that a driver maps and reads real memory; the default addresses. */
static void host_frame_addr(void *priv, const struct txp_run_cfg *cfg, struct txp_frame_addr *a)
{
	(void)priv;
	*a = cfg->net.addr;
	txp_frame_addr_resolve(a, NULL);
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

/* -- what the entry point returned: inside the plugin, well formed ------------------ */

/* The loaded plugin's shared object: its PT_LOAD segments, as mapped,
 * however many it has. */
struct image {
	const void *entry;		/* an address in it: its entry point */
	uintptr_t base;			/* where it is loaded (dlpi_addr) */
	const ElfW(Phdr) *phdr;		/* its program headers, the loader's own */
	unsigned phnum;
};

/* Does segment ph of img hold addr?  Its end then, else 0. */
static uintptr_t segment_holds(const struct image *img, const ElfW(Phdr) *ph, uintptr_t addr)
{
	uintptr_t start = img->base + ph->p_vaddr;

	return ph->p_type == PT_LOAD && addr >= start && addr < start + ph->p_memsz ?
	       start + ph->p_memsz : 0;
}

/* dl_iterate_phdr's callback: img becomes the object holding img->entry,
 * and 1 (stop) once found.  Its program headers stay valid while it is
 * loaded: a plugin is never unloaded. */
static int image_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct image *img = arg;
	struct image at = { img->entry, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum };

	(void)size;
	for (unsigned i = 0; i < at.phnum; i++) {
		if (segment_holds(&at, &at.phdr[i], (uintptr_t)img->entry)) {
			*img = at;
			return 1;
		}
	}
	return 0;
}

/* The end of the segment of img holding addr and having every flag of
 * flags, or 0 when addr is in none. */
static uintptr_t segment_end(const struct image *img, const void *addr, unsigned flags)
{
	for (unsigned i = 0; i < img->phnum; i++) {
		const ElfW(Phdr) *ph = &img->phdr[i];
		uintptr_t end = segment_holds(img, ph, (uintptr_t)addr);

		if (end && (ph->p_flags & flags) == flags)
			return end;
	}
	return 0;
}

/* Do the len bytes at addr, aligned to align, lie in one segment of img
 * with the flags given? */
static bool in_image(const struct image *img, const void *addr, size_t len, size_t align,
		     unsigned flags)
{
	uintptr_t end = segment_end(img, addr, flags);

	return end && (uintptr_t)addr % align == 0 && len <= end - (uintptr_t)addr;
}

/* Is s a string that ends inside its segment of img? */
static bool string_in_image(const struct image *img, const char *s)
{
	uintptr_t end = segment_end(img, s, PF_R);

	return end && memchr(s, '\0', end - (uintptr_t)s);
}

/* A function of the plugin's own code? */
static bool code_in_image(const struct image *img, void (*fn)(void))
{
	const void *addr;

	memcpy(&addr, &fn, sizeof(addr));
	return segment_end(img, addr, PF_R | PF_X) != 0;
}
#define OP_IN_IMAGE(img, op) (!(op) || code_in_image((img), (void (*)(void))(op)))

/* The struct itself: in the plugin's shared object, of this ABI, complete. */
static int struct_valid(const struct image *img, const struct txp_plugin *p, const char *path,
			char *err, size_t errlen)
{
	const char *rebuild = "(rebuild it against this txpath's headers)";

	if ((uintptr_t)p % _Alignof(struct txp_plugin))
		return refuse(err, errlen, "--driver-so %s: %s() returned %p, not aligned for a "
			      "struct txp_plugin", path, TXP_PLUGIN_ENTRY, (const void *)p);
	if (!in_image(img, p, 2 * sizeof(uint32_t), 1, PF_R))
		return refuse(err, errlen, "--driver-so %s: %s() returned %p, not the address of "
			      "a struct in the plugin's shared object (a static struct txp_plugin)", path,
			      TXP_PLUGIN_ENTRY, (const void *)p);
	if (p->abi != TXP_PLUGIN_ABI)
		return refuse(err, errlen, "%s: plugin ABI version %u, this txpath loads version %u %s",
			      path, p->abi, TXP_PLUGIN_ABI, rebuild);
	if (p->size < sizeof(*p))
		return refuse(err, errlen, "%s: struct txp_plugin of %u bytes, expected %zu %s", path,
			      p->size, sizeof(*p), rebuild);
	if (!in_image(img, p, sizeof(*p), 1, PF_R))
		return refuse(err, errlen, "--driver-so %s: %s() returned a struct txp_plugin that "
			      "runs past the plugin's shared object", path, TXP_PLUGIN_ENTRY);
	return 0;
}

/* Its knobs: named, settable, their range not empty, their default in it. */
static int knobs_valid(const struct image *img, const struct txp_plugin *p, const char *path,
		       char *err, size_t errlen)
{
	if (!p->nknobs)
		return 0;
	if (!p->knobs || !in_image(img, p->knobs, (size_t)p->nknobs * sizeof(*p->knobs),
				   _Alignof(struct txp_plugin_knob), PF_R))
		return refuse(err, errlen, "%s: %u knobs but no knobs array in the plugin's shared object",
			      path, p->nknobs);
	for (unsigned i = 0; i < p->nknobs; i++) {
		const struct txp_plugin_knob *k = &p->knobs[i];

		if (!k->name || !string_in_image(img, k->name) || !*k->name ||
		    strpbrk(k->name, "=,"))
			return refuse(err, errlen, "%s: knob %u has no name (a word without '=' or ',')",
				      path, i);
		if (k->help && !string_in_image(img, k->help))
			return refuse(err, errlen, "%s: knob %s: its help is not a string", path, k->name);
		if (!k->value || !in_image(img, k->value, sizeof(long), _Alignof(long), PF_R | PF_W))
			return refuse(err, errlen, "%s: knob %s: no variable for its value (a long in "
				      "the plugin's shared object)", path, k->name);
		if (k->min > k->max)
			return refuse(err, errlen, "%s: knob %s: its range %ld..%ld is empty (min > max)",
				      path, k->name, k->min, k->max);
		if (*k->value < k->min || *k->value > k->max)
			return refuse(err, errlen, "%s: knob %s: its default %ld is outside %ld..%ld",
				      path, k->name, *k->value, k->min, k->max);
	}
	return 0;
}

/* The ops and geometry a plugin must give. */
static int plugin_valid(const struct image *img, const struct txp_plugin *p, const char *path,
			char *err, size_t errlen)
{
	const char *missing;
	int rc = struct_valid(img, p, path, err, errlen);

	if (rc)
		return rc;
	missing = !p->start_xmit ? "start_xmit" : !p->poll ? "poll" : !p->stop ? "stop" : NULL;
	if (!p->name || !string_in_image(img, p->name) || !*p->name)
		return refuse(err, errlen, "%s: the plugin gives no name", path);
	if (p->summary && !string_in_image(img, p->summary))
		return refuse(err, errlen, "%s: its summary is not a string", path);
	if (missing)
		return refuse(err, errlen, "%s: the plugin gives no %s", path, missing);
	if (!OP_IN_IMAGE(img, p->open) || !OP_IN_IMAGE(img, p->stop) ||
	    !OP_IN_IMAGE(img, p->start_xmit) || !OP_IN_IMAGE(img, p->poll))
		return refuse(err, errlen, "%s: an op (open, stop, start_xmit or poll) that is not "
			      "a function of the plugin", path);
	if (p->lock != TXP_LOCK_CORE && p->lock != TXP_LOCK_LLTX)
		return refuse(err, errlen, "%s: lock mode %d is neither TXP_LOCK_CORE nor TXP_LOCK_LLTX",
			      path, (int)p->lock);
	if (p->max_frags > TXP_MAX_FRAGS)
		return refuse(err, errlen, "%s: max_frags %u, at most %d", path, p->max_frags,
			      TXP_MAX_FRAGS);
	if (p->priv_size > TXP_PLUGIN_PRIV_MAX)
		return refuse(err, errlen, "%s: priv_size %zu bytes, at most %d (TXP_PLUGIN_PRIV_MAX)",
			      path, p->priv_size, TXP_PLUGIN_PRIV_MAX);
	return knobs_valid(img, p, path, err, errlen);
}

/* -- host calls with no device: the entry point's, refused ----------------------------- */

/* The first host call an entry point being called made; "" if none. */
static char entry_call[160];
static bool in_entry;

void plugin_call_nodev(const char *call, const char *site, const char *line)
{
	char what[sizeof(entry_call)];

	if (line)
		snprintf(what, sizeof(what), "%s (\"%s: %s\")", call, site, line);
	else if (site)
		snprintf(what, sizeof(what), "%s (in %s)", call, site);
	else
		snprintf(what, sizeof(what), "%s", call);
	if (!in_entry)
		fprintf(stderr, "txpath: a plugin called %s with no device up\n", what);
	else if (!entry_call[0])
		memcpy(entry_call, what, sizeof(entry_call));
}

/* The plugin's description, from its entry point; NULL and why if the
 * entry point called the host (logged, freed a packet, asked for a
 * device's area), which a plugin may do only once a device exists. */
static const struct txp_plugin *call_entry(const struct txp_plugin *(*entry)(void),
					   const char *path, char *err, size_t errlen)
{
	const struct txp_plugin *p;

	entry_call[0] = '\0';
	in_entry = true;
	p = entry();
	in_entry = false;
	if (entry_call[0]) {
		refuse(err, errlen, "--driver-so %s: %s() called %s: a plugin calls the host from "
		       "its ops, once a device exists", path, TXP_PLUGIN_ENTRY, entry_call);
		return NULL;
	}
	if (!p)
		refuse(err, errlen, "--driver-so %s: %s() returned NULL", path, TXP_PLUGIN_ENTRY);
	return p;
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
	struct image img = { 0 };
	struct plugin_host *h;
	struct stat st;
	void *so;

	/* A path, so that dlopen never searches the library path. */
	char *where = strchr(path, '/') ? strdup(path) : malloc(strlen(path) + 3);

	if (!where) {
		refuse(err, errlen, "--driver-so %s: out of memory", path);
		return NULL;
	}
	/* dlopen() of a FIFO waits for a writer for ever. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		free(where);
		refuse(err, errlen, "--driver-so %s: not a regular file", path);
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
	memcpy(&img.entry, &entry, sizeof(img.entry));
	if (!dl_iterate_phdr(image_of, &img)) {
		refuse(err, errlen, "--driver-so %s: its entry point is in no loaded object", path);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		refuse(err, errlen, "--driver-so %s: out of memory", path);
		return NULL;
	}
	h->p = call_entry(entry, path, err, errlen);
	for (unsigned i = 0; h->p && plugin_valid(&img, h->p, path, err, errlen) == 0 && i <= nargs;
	     i++) {
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
				.frame_addr = host_frame_addr,
#ifdef TXP_CHECK
				.unannounced = check_doorbell_unannounced,
#endif
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
