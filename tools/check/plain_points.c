/*
 * plain_points.c - txpath check --plain-points: the plain loads and stores
 * of chosen code made scheduling points of the explorer.
 *
 * The check build sees every plain access of the library, and of a plugin
 * built with txpath config --cflags, but they are no scheduling
 * points (src/check/runtime/plain.c): the search interleaves contexts at
 * the seam's operations only, and what two plain accesses could do in
 * between is told by the data-race detector.  Here the user names code
 * whose plain accesses become points too: the plugin's ("driver"), or a
 * source file's, by its name or a path's end ("ring.c",
 * "common/ring.c"), headers included (their inline code).  The runtime
 * gives each plain access's code address; which source file that is comes
 * from the DWARF line tables of the two instrumented objects (this
 * program and the plugin), read with elfutils' libdw, once per address.
 * A worker forked by --jobs reads them afresh (file offsets are shared
 * across fork()).
 */
#include <elfutils/libdwfl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plain_points.h"

#define MAX_FILES 16
#define CACHE_SIZE (1u << 14)	/* code addresses remembered */

/* An instrumented object's code: [lo, hi). */
struct range {
	uintptr_t lo, hi;
};

static struct {
	bool driver;			/* the plugin's every plain access */
	const char *files[MAX_FILES];	/* their ends, as given */
	unsigned nfiles;
	char *spec;			/* files[] point into it */
	char *given;			/* the spec as given */
	struct range self, plugin;	/* this program's code, the plugin's */
	struct {
		uintptr_t pc;		/* 0: empty */
		bool chosen;
	} cache[CACHE_SIZE];
} P;

/* Separate debug information is never looked for (no debuginfod, no
 * network): the instrumented objects carry their own. */
static int no_debuginfo(Dwfl_Module *m, void **u, const char *mod, Dwarf_Addr base,
			const char *file, const char *link, GElf_Word crc, char **name)
{
	(void)m, (void)u, (void)mod, (void)base, (void)file, (void)link, (void)crc, (void)name;
	return -1;
}

/* This process's modules, as mapped now. */
static Dwfl *dwfl_here(void)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = no_debuginfo,
	};
	static Dwfl *d;
	static pid_t pid;

	if (d && pid == getpid())
		return d;
	d = dwfl_begin(&cb);	/* a parent's, after fork(): left as it is */
	if (!d)
		return NULL;
	if (dwfl_linux_proc_report(d, getpid()) != 0 || dwfl_report_end(d, NULL, NULL) != 0) {
		dwfl_end(d);
		return d = NULL;
	}
	pid = getpid();
	return d;
}

static bool in(const struct range *r, uintptr_t a)
{
	return a - r->lo < r->hi - r->lo;
}

/* The code range of the module at a, and its module. */
static Dwfl_Module *module_at(Dwfl *d, const void *a, struct range *r)
{
	Dwfl_Module *m = dwfl_addrmodule(d, (Dwarf_Addr)(uintptr_t)a);
	Dwarf_Addr lo, hi;

	if (!m || !dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL))
		return NULL;
	*r = (struct range){ (uintptr_t)lo, (uintptr_t)hi };
	return m;
}

/* Does the source path end with the name given, at a '/'? */
static bool ends_with(const char *path, const char *name)
{
	size_t lp = strlen(path), ln = strlen(name);

	return lp >= ln && strcmp(path + lp - ln, name) == 0 &&
	       (lp == ln || path[lp - ln - 1] == '/');
}

static bool chosen_file(const char *path)
{
	for (unsigned i = 0; i < P.nfiles; i++)
		if (ends_with(path, P.files[i]))
			return true;
	return false;
}

/* Does m's debug information name a source file that ends with name? */
static bool module_has(Dwfl_Module *m, const char *name)
{
	Dwarf_Addr bias;
	Dwarf *dw = m ? dwfl_module_getdwarf(m, &bias) : NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Files *files;
		size_t n;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrcfiles(&cu, &files, &n) == 0)
			for (size_t i = 0; i < n; i++) {
				const char *f = dwarf_filesrc(files, i, NULL, NULL);

				if (f && ends_with(f, name))
					return true;
			}
		off = next;
	}
	return false;
}

static bool add(const char *what, Dwfl_Module *self, Dwfl_Module *plugin, char *err, size_t len)
{
	if (strcmp(what, "driver") == 0) {
		if (!plugin) {
			snprintf(err, len, "--plain-points driver: no --driver-so to take them from");
			return false;
		}
		P.driver = true;
		return true;
	}
	if (!*what || P.nfiles == MAX_FILES) {
		snprintf(err, len, "--plain-points: %s", *what ? "more than 16 files" : "an empty name");
		return false;
	}
	if (!module_has(self, what) && !module_has(plugin, what)) {
		snprintf(err, len, "--plain-points %s: no such source file in the debug information "
			 "of txpath-check%s", what, plugin ? " or the plugin (built with -g?)" : "");
		return false;
	}
	P.files[P.nfiles++] = what;
	return true;
}

bool plain_points_choose(const char *spec, const void *driver_code, char *err, size_t len)
{
	Dwfl *d = dwfl_here();
	Dwfl_Module *self, *plugin = NULL;
	char *save = NULL;

	if (!d) {
		snprintf(err, len, "--plain-points: cannot read this program's modules: %s",
			 dwfl_errmsg(-1));
		return false;
	}
	self = module_at(d, (const void *)plain_points_chosen, &P.self);
	if (driver_code && !(plugin = module_at(d, driver_code, &P.plugin))) {
		snprintf(err, len, "--plain-points: the plugin's code is not mapped");
		return false;
	}
	free(P.spec);
	free(P.given);
	P.spec = strdup(spec);
	P.given = strdup(spec);
	P.nfiles = 0;
	P.driver = false;
	if (!P.spec || !P.given) {
		snprintf(err, len, "--plain-points: out of memory");
		return false;
	}
	memset(P.cache, 0, sizeof(P.cache));
	for (char *w = strtok_r(P.spec, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (!add(w, self, plugin, err, len))
			return false;
	if (!P.driver && !P.nfiles) {
		snprintf(err, len, "--plain-points: no code named");
		return false;
	}
	return true;
}

/* The source file of the code at pc (a return address: its call is the
 * byte before), or NULL. */
static const char *source_of(uintptr_t pc)
{
	Dwfl *d = dwfl_here();
	Dwfl_Module *m = d ? dwfl_addrmodule(d, pc - 1) : NULL;
	Dwfl_Line *l = m ? dwfl_module_getsrc(m, pc - 1) : NULL;

	return l ? dwfl_lineinfo(l, NULL, NULL, NULL, NULL, NULL) : NULL;
}

static bool decide(uintptr_t pc)
{
	const char *src;

	if (P.driver && in(&P.plugin, pc))
		return true;
	if (!P.nfiles || (!in(&P.self, pc) && !in(&P.plugin, pc)))
		return false;
	src = source_of(pc);
	return src && chosen_file(src);
}

bool plain_points_chosen(const void *pc)
{
	uintptr_t a = (uintptr_t)pc;
	unsigned h = (unsigned)((a * 0x9e3779b97f4a7c15u) >> 50) & (CACHE_SIZE - 1);

	for (unsigned i = 0; i < 16; i++, h = (h + 1) & (CACHE_SIZE - 1)) {
		if (P.cache[h].pc == a)
			return P.cache[h].chosen;
		if (!P.cache[h].pc) {
			P.cache[h].pc = a;
			return P.cache[h].chosen = decide(a);
		}
	}
	return decide(a);	/* a crowded neighbourhood: asked again each time */
}

const char *plain_points_spec(void)
{
	return P.given && (P.driver || P.nfiles) ? P.given : "-";
}
