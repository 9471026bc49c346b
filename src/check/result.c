/*
 * result.c - the violation an execution found, as the API reports it
 * (check build only): its schedule as a string that --replay runs again
 * (the branches that left the default), and its events in columns, one
 * per context, as the 2004 email draws them.
 */
#include <stdlib.h>
#include <string.h>

#include "check/judge.h"

static int default_action(const struct rt_branch *b)
{
	return b->cur >= 0 ? b->cur : __builtin_ctz(b->enabled);
}

/* The schedule string of an execution: the branches that left the default. */
static char *schedule_string(const struct rt_branch *b, unsigned n)
{
	struct txp_explore_choice *c = malloc((n ? n : 1) * sizeof(*c));
	unsigned k = 0;
	char *s;

	if (!c)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		if (b[i].chosen == default_action(&b[i]))
			continue;
		c[k].index = i;
		c[k].flush = b[i].chosen >= RT_FLUSH;
		c[k].ctx = (uint8_t)(c[k].flush ? b[i].chosen - RT_FLUSH : b[i].chosen);
		k++;
	}
	s = txp_explore_schedule_format(c, k);
	free(c);
	return s;
}

/* -- results ----------------------------------------------------------------- */

void result_violation(struct txp_explore_result *res, const struct outcome *o)
{
	unsigned nbr, nev;
	const struct rt_branch *b = rt_branches(&nbr);
	const struct rt_event *ev = rt_events(&nev);
	int col[RT_MAX_CTX], ncol = 0, nirq = 0;

	res->found = true;
	res->kind = o->kind;
	snprintf(res->detail, sizeof(res->detail), "%s", o->detail);
	res->preemptions = rt_preemptions();
	res->schedule = schedule_string(b, nbr);
	/* Columns: the other contexts in order, the completion contexts
	 * (one per queue) last. */
	for (int i = 0; i < rt_nctx(); i++) {
		if (!strcmp(rt_ctx_name(i), "IRQ")) {
			nirq++;
			continue;
		}
		col[i] = ncol;
		snprintf(res->columns[ncol++], sizeof(res->columns[0]), "%s", rt_ctx_name(i));
	}
	for (uint8_t i = 0, k = 0; i < rt_nctx(); i++) {
		if (strcmp(rt_ctx_name(i), "IRQ"))
			continue;
		col[i] = ncol;
		if (nirq == 1)
			snprintf(res->columns[ncol++], sizeof(res->columns[0]), "IRQ (completion)");
		else
			snprintf(res->columns[ncol++], sizeof(res->columns[0]), "IRQ %u (completion)",
				 ++k);
	}
	res->ncolumns = ncol;
	res->events = calloc(nev ? nev : 1, sizeof(*res->events));
	if (!res->events)
		return;
	for (unsigned i = 0; i < nev; i++) {
		struct txp_explore_event *e = &res->events[res->nevents++];

		e->column = col[ev[i].ctx];
		if (ev[i].site && ev[i].arg)
			snprintf(e->text, sizeof(e->text), "%s: %s(%s)", ev[i].site, ev[i].what, ev[i].arg);
		else if (ev[i].site)
			snprintf(e->text, sizeof(e->text), "%s: %s", ev[i].site, ev[i].what);
		else if (ev[i].arg)
			snprintf(e->text, sizeof(e->text), "%s %s", ev[i].what, ev[i].arg);
		else
			snprintf(e->text, sizeof(e->text), "%s", ev[i].what);
		/* A BUG line is the violation, as a false NETDEV WATCHDOG
		 * is: the rest is aftermath. */
		if ((!strcmp(o->kind, "bug-log") && !strncmp(ev[i].what, "BUG!", 4)) ||
		    (!strcmp(o->kind, "false-timeout") && !strcmp(ev[i].what, "NETDEV WATCHDOG")))
			break;
	}
}
