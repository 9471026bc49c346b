/*
 * diagram.c - a schedule drawn as the 2004 email draws it: one column per
 * context, one line per event, time going down.
 */
#include <string.h>

#include "check/explore.h"

#define COL 36

void txp_explore_diagram(FILE *f, const struct txp_explore_result *res)
{
	int last = -1;

	for (int c = 0; c < res->ncolumns; c++)
		fprintf(f, "    %-*s", COL - 4, res->columns[c]);
	fputc('\n', f);
	for (unsigned i = 0; i < res->nevents; i++) {
		const struct txp_explore_event *e = &res->events[i];

		if (last >= 0 && e->column != last)
			fputc('\n', f);
		last = e->column;
		fprintf(f, "%*s    %s\n", e->column * COL, "", e->text);
	}
}
