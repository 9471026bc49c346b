/*
 * judge.h - one execution of the explorer, judged (check build only;
 * judge.c), and the violation it found as the API reports it (result.c).
 */
#ifndef TXP_CHECK_JUDGE_H
#define TXP_CHECK_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "check/runtime/runtime.h"
#include "check/explore.h"

struct outcome {
	enum rt_end end;
	const char *kind;	/* NULL: no violation */
	char detail[400];
	bool xmit_on_stopped;
	bool stopped;		/* a queue was stopped (the scenario reached a stop) */
	bool races_unkept;	/* accesses passed the race detector's table */
	bool recheck;		/* run again, the oracle precise */
};

/* The memory model cfg asks for. */
enum rt_mm judge_memory_model(const struct txp_explore_cfg *cfg);
/* One execution of cfg's scenario under plan, judged into o (kind NULL:
 * no violation); run twice, the same, when the packet oracle must be
 * precise to name what it found.  Nonzero: the scenario could not be
 * made (err says why). */
int judge_exec(const struct txp_explore_cfg *cfg, const struct rt_plan *plan, struct outcome *o,
	       char *err, size_t errlen);
/* The last execution's violation o into res: its kind and detail, its
 * preemptions, its schedule string and its diagram's events. */
void result_violation(struct txp_explore_result *res, const struct outcome *o);

#endif
