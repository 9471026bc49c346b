/*
 * bug.c - the BUG lines drivers log (txp_dev_log_bug()): each distinct
 * line kept once for the life of the process, so that a diagram can name
 * it after the device and the caller's buffer are gone, and the first
 * line of each device remembered, so that a verdict can quote it.
 *
 * Bookkeeping, not part of the modelled path: a plain mutex, as the lock
 * validator's, never a scheduling point of the check build.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

#define BUG_LINES 32
#define BUG_LINE_LEN 160

static pthread_mutex_t bug_mu = PTHREAD_MUTEX_INITIALIZER;
static char bug_lines[BUG_LINES][BUG_LINE_LEN];
static unsigned bug_nlines;

/* "BUG! what", kept: the same text gives the same pointer.  Call with
 * bug_mu held. */
static const char *bug_intern(const char *what)
{
	char line[BUG_LINE_LEN];

	snprintf(line, sizeof(line), "BUG! %s", what);
	for (unsigned i = 0; i < bug_nlines; i++)
		if (!strcmp(bug_lines[i], line))
			return bug_lines[i];
	if (bug_nlines == BUG_LINES)
		return "BUG! (a line of its own, past the ones kept)";
	memcpy(bug_lines[bug_nlines], line, sizeof(line));
	return bug_lines[bug_nlines++];
}

const char *txp__bug_note(struct txp_dev *dev, const char *what)
{
	const char *line;

	pthread_mutex_lock(&bug_mu);
	line = bug_intern(what);
	if (!dev->bug_line)
		dev->bug_line = line;
	pthread_mutex_unlock(&bug_mu);
	return line;
}

const char *txp_dev_bug_line(const struct txp_dev *dev)
{
	const char *line;

	pthread_mutex_lock(&bug_mu);
	line = dev->bug_line;
	pthread_mutex_unlock(&bug_mu);
	return line;
}
