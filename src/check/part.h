/*
 * part.h - a search's result handed from a child process to its parent
 * through a file (check build only; part.c): a worker's part (jobs.c),
 * a violation replayed apart (merge.c).  The child was forked, not
 * exec'd, so the result's kind, a static string, is at the same address
 * in both.
 */
#ifndef TXP_CHECK_PART_H
#define TXP_CHECK_PART_H

#include <stdio.h>

#include "check/explore.h"

/* rc, err and res (its pieces, schedule and events) into f, flushed:
 * 0 or -1. */
int part_write(FILE *f, int rc, const char *err, const struct txp_explore_result *res);

/* What part_write() wrote into f, from its start, into res (its arrays
 * malloc'd): the rc written, with err; or -EIO if f holds no whole one. */
int part_read(FILE *f, struct txp_explore_result *res, char *err, size_t errlen);

#endif
