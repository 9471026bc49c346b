/*
 * merge.c - the bounded search's result from its parts (check build
 * only): shards (--shard, --merge) and workers (--jobs) each explored some
 * of the pieces of the one fixed order (explore.h, txp_explore_split);
 * the whole is what one run gives, read off the pieces up to the first
 * that has a violation.  A shard's workers' parts are gathered into the
 * shard's part the same way, its pieces kept.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/explore.h"
#include "check/part.h"
#include "run/run.h"

/* The part whose violation comes first in the order, or -1. */
static int first_found(const struct txp_explore_result *parts, unsigned n)
{
	int best = -1;

	for (unsigned i = 0; i < n; i++)
		if (parts[i].found && (best < 0 || parts[i].found_piece < parts[best].found_piece))
			best = (int)i;
	return best;
}

static int cmp_piece(const void *a, const void *b)
{
	uint64_t x = ((const struct txp_explore_piece *)a)->index;
	uint64_t y = ((const struct txp_explore_piece *)b)->index;

	return (x > y) - (x < y);
}

/* Schedules, what they reached, and the pieces counted, over the pieces
 * up to last (UINT64_MAX: all); into res->pieces too, in order, if it has
 * room for them. */
static uint64_t add_pieces(const struct txp_explore_result *parts, unsigned n, uint64_t last,
			   struct txp_explore_result *res)
{
	uint64_t counted = 0;

	for (unsigned i = 0; i < n; i++)
		for (size_t j = 0; j < parts[i].npieces; j++) {
			const struct txp_explore_piece *p = &parts[i].pieces[j];

			if (p->index > last)
				continue;
			if (res->pieces)
				res->pieces[res->npieces++] = *p;
			counted++;
			res->schedules += p->schedules;
			res->xmit_on_stopped_reachable |= p->flags & TXP_EXPLORE_PIECE_XMIT_ON_STOPPED;
			res->queue_stopped |= p->flags & TXP_EXPLORE_PIECE_QUEUE_STOPPED;
			res->races_unkept |= p->flags & TXP_EXPLORE_PIECE_RACES_UNKEPT;
			if (p->index == last)
				res->bound_reached = p->round;
		}
	if (res->pieces)
		qsort(res->pieces, res->npieces, sizeof(*res->pieces), cmp_piece);
	return counted;
}

void txp_explore_join_reduction(const struct txp_explore_result *parts, unsigned n,
				struct txp_explore_result *res)
{
	res->reduced = res->symmetric = true;
	for (unsigned i = 0; i < n; i++) {
		res->reduced &= parts[i].reduced;
		res->symmetric &= parts[i].symmetric;
		res->reduce_dropped |= parts[i].reduce_dropped;
		res->states_full |= parts[i].states_full;
		res->pruned += parts[i].pruned;
		res->asleep += parts[i].asleep;
		res->states += parts[i].states;
	}
}

/* The replay's ending (explore.h: ending_report), in the child: its
 * result to the parent. */
static void ending_to_parent(const struct txp_explore_result *res, void *arg)
{
	part_write(arg, 0, "", res);
}

/*
 * cfg's replay run in a child process, into v: a plugin's crash, exit()
 * or livelock ends the process that meets it (explore.c), so the child
 * meets it and hands its report back, and this process goes on to
 * report it as any other violation (a shard's JSON, --merge's).  0, or a
 * negative errno and a message.
 */
static int replay_apart(const struct txp_explore_cfg *cfg, struct txp_explore_result *v,
			char *err, size_t errlen)
{
	struct txp_explore_cfg mine = *cfg;
	FILE *f = tmpfile();
	int status, rc;
	pid_t parent = getpid(), pid, got = -1;

	if (!f) {
		snprintf(err, errlen, "the violation's replay: a file: %s", strerror(errno));
		return -errno;
	}
	fflush(NULL);	/* nothing buffered is written twice */
	pid = fork();
	if (pid == 0) {
		/* It outlives nobody: killed with this process, or ended now
		 * if that one is gone already. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		mine.ending_report = ending_to_parent;
		mine.ending_arg = f;
		rc = txp_explore_run(&mine, v, err, errlen);
		rc = part_write(f, rc, err, v);
		fflush(NULL);	/* what the driver printed */
		_exit(rc ? 1 : 0);
	}
	/* A signal caught meanwhile (the stop) does not end the wait: it is
	 * passed on, so that the child's replay stops too (a livelock's
	 * spin is then reported at once, "a stop was asked"). */
	while (pid > 0 && (got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		if (cfg->stop && txp_run_interrupted(cfg->stop))
			kill(pid, txp_run_interrupted(cfg->stop));
	if (pid < 0 || got != pid) {
		snprintf(err, errlen, "the violation's replay: %s", strerror(errno));
		fclose(f);
		return -errno;
	}
	rc = part_read(f, v, err, errlen);
	fclose(f);
	if (rc == -EIO && WIFSIGNALED(status))
		snprintf(err, errlen, "the violation's replay was killed by %s",
			 strsignal(WTERMSIG(status)));
	return rc;
}

/* The violation, drawn: its schedule replayed, as one run would have
 * found it. */
static int replay_violation(const struct txp_explore_cfg *cfg, const char *schedule,
			    struct txp_explore_result *res, char *err, size_t errlen)
{
	struct txp_explore_cfg one = *cfg;
	struct txp_explore_result v;
	int rc;

	one.replay = schedule;
	one.split = NULL;
	one.progress = NULL;
	rc = replay_apart(&one, &v, err, errlen);
	if (rc) {
		txp_explore_result_free(&v);
		return rc;
	}
	if (!v.found) {
		txp_explore_result_free(&v);
		snprintf(err, errlen, "the violation's schedule %s replays without one", schedule);
		return -EPROTO;
	}
	free(v.pieces);
	res->found = true;
	res->interrupted |= v.interrupted;	/* the replay stopped (a livelock's) */
	res->kind = v.kind;
	memcpy(res->detail, v.detail, sizeof(res->detail));
	res->preemptions = v.preemptions;
	res->schedule = v.schedule;
	res->events = v.events;
	res->nevents = v.nevents;
	res->ncolumns = v.ncolumns;
	memcpy(res->columns, v.columns, sizeof(res->columns));
	return 0;
}

/* The parts' result: the whole's, or (part) the part of the search they
 * took together, its pieces listed. */
static int merge(const struct txp_explore_cfg *cfg, const struct txp_explore_result *parts,
		 unsigned n, bool part, struct txp_explore_result *res, char *err, size_t errlen)
{
	int best = first_found(parts, n);
	uint64_t last = best >= 0 ? parts[best].found_piece : UINT64_MAX;
	uint64_t counted;
	size_t pieces = 0;

	memset(res, 0, sizeof(*res));
	for (unsigned i = 0; part && i < n; i++)
		pieces += parts[i].npieces;
	if (part && !(res->pieces = malloc((pieces + 1) * sizeof(*res->pieces)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	res->found_piece = last;
	res->complete = best < 0;
	res->bound_reached = cfg->bound;
	for (unsigned i = 0; i < n; i++) {
		res->interrupted |= parts[i].interrupted;
		if (best < 0 && !parts[i].complete) {
			res->complete = false;
			if (parts[i].bound_reached < res->bound_reached)
				res->bound_reached = parts[i].bound_reached;
		}
	}
	counted = add_pieces(parts, n, last, res);
	txp_explore_join_reduction(parts, n, res);
	/* Every piece before the violation was explored, by someone. */
	if (!part && best >= 0 && counted != last + 1 && !res->interrupted) {
		snprintf(err, errlen, "the parts explored %llu of the %llu pieces up to the violation's",
			 (unsigned long long)counted, (unsigned long long)last + 1);
		return -EPROTO;
	}
	return best >= 0 ? replay_violation(cfg, parts[best].schedule, res, err, errlen) : 0;
}

int txp_explore_merge(const struct txp_explore_cfg *cfg, const struct txp_explore_result *parts,
		      unsigned n, struct txp_explore_result *res, char *err, size_t errlen)
{
	return merge(cfg, parts, n, false, res, err, errlen);
}

int txp_explore_gather(const struct txp_explore_cfg *cfg, const struct txp_explore_result *parts,
		       unsigned n, struct txp_explore_result *res, char *err, size_t errlen)
{
	return merge(cfg, parts, n, true, res, err, errlen);
}
