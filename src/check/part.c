/*
 * part.c - a search's result through a file, from a child process to its
 * parent (part.h): the result's fixed members as they lie in memory, then
 * its arrays, each counted in those members (the schedule by its length).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check/part.h"

struct part_head {
	int rc;
	char err[256];
	struct txp_explore_result res;	/* its pointers meaningless */
	size_t schedule_len;		/* with its NUL; 0: none */
};

static bool put(FILE *f, const void *p, size_t size, size_t n)
{
	return !n || fwrite(p, size, n, f) == n;
}

/* n items of size into *p, malloc'd (at least one, with some: NULL
 * means none). */
static bool get(FILE *f, void **p, size_t size, size_t n, bool some)
{
	*p = n || some ? malloc((n ? n : 1) * size) : NULL;
	return (!n && !some) || (*p && fread(*p, size, n, f) == n);
}

int part_write(FILE *f, int rc, const char *err, const struct txp_explore_result *res)
{
	struct part_head h = { .rc = rc, .res = *res };

	snprintf(h.err, sizeof(h.err), "%s", err);
	h.schedule_len = res->schedule ? strlen(res->schedule) + 1 : 0;
	if (!put(f, &h, sizeof(h), 1) || !put(f, res->pieces, sizeof(*res->pieces), res->npieces) ||
	    !put(f, res->schedule, 1, h.schedule_len) ||
	    !put(f, res->events, sizeof(*res->events), res->nevents))
		return -1;
	return fflush(f) == 0 ? 0 : -1;
}

int part_read(FILE *f, struct txp_explore_result *res, char *err, size_t errlen)
{
	struct part_head h;

	memset(res, 0, sizeof(*res));
	rewind(f);
	if (fread(&h, sizeof(h), 1, f) != 1)
		goto bad;
	*res = h.res;
	res->pieces = NULL;
	res->schedule = NULL;
	res->events = NULL;
	/* The pieces never NULL: a part lists its pieces (explore.h). */
	if (!get(f, (void **)&res->pieces, sizeof(*res->pieces), res->npieces, true) ||
	    !get(f, (void **)&res->schedule, 1, h.schedule_len, false) ||
	    !get(f, (void **)&res->events, sizeof(*res->events), res->nevents, false))
		goto bad;
	if (h.rc)
		snprintf(err, errlen, "%s", h.err);
	return h.rc;
bad:
	txp_explore_result_free(res);
	res->npieces = res->nevents = 0;
	snprintf(err, errlen, "a child process's result could not be read back");
	return -EIO;
}
