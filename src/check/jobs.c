/*
 * jobs.c - the bounded search on every core (check build only): worker
 * processes, each a part of the search (explore.h, txp_explore_split),
 * handed the pieces one at a time, in order, as it asks.
 *
 * Processes, not threads: the explorer runs its contexts as fibers of one
 * thread over the runtime's file-scope state (the execution, its trace,
 * the visited table), and the library under it keeps its own; a fork()
 * gives each worker all of it, unshared, with nothing to change below.
 * What they share is a board in shared memory: the next piece to hand
 * out, the first piece a violation was found in so far (a worker asks for
 * nothing past it), each worker's schedules (for progress), and the stop;
 * and with the reduction the table of states explored, mapped before the
 * fork (visited_share_table(): a state one explored, the others skip).
 * Each worker writes what it explored to a file of its own; this process
 * reads them when the workers are done and merges them
 * (txp_explore_merge()), so the result is one run's whatever the timing.
 * A worker whose search ends where it stands (a crash, exit() or a
 * livelock: explore.c) cannot write its file: it leaves the piece and the
 * schedule on the board and ends (worker_ending()), and its part is read
 * off the board; the merge replays the first violation in a child of
 * this process (merge.c), so that one is reported, once, as one run
 * would.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check/explore.h"
#include "check/part.h"
#include "check/search/visited.h"
#include "run/run.h"
#include "sync/sync.h"

#define JOBS_MAX 256
#define JOBS_POLL_NS 100000000L	/* progress and the stop, looked at */
#define JOBS_POLL_FIRST_NS 1000000L	/* ... at first: the nap doubles up to it,
					 * so a search of milliseconds (a shard's
					 * small part) is not made to wait 100 */

/* A worker's progress: its schedules, its round, and how far into it
 * (in millionths), each written by the worker alone. */
struct gauge {
	_Atomic uint64_t schedules;
	atomic_uint bound, done;
};

/* A piece explored to its end without a violation, for checkpoints and
 * the states above pieces (strategy.c): written by its worker, then
 * published by done (release; the acquire loads of done, the parent's
 * and worker_below()'s, pair with it). */
struct board_piece {
	atomic_uint done;
	uint32_t round, flags;
	uint32_t worker;		/* who explored it */
	uint64_t schedules;
};

/* A worker's search that ended where it stood (worker_ending()): written
 * by that worker, then published by set (release; the parent's acquire
 * load pairs with it). */
#define END_SCHEDULE_MAX 4096
/* Its exit status then: not 0, which ThreadSanitizer replaces with its
 * own when it reported something (as a signal handler's malloc). */
#define END_STATUS 3
struct board_end {
	atomic_uint set;
	bool judged;			/* in piece, its own; else walked */
	bool reduced, symmetric, reduce_dropped;	/* the worker's search's */
	struct txp_explore_piece piece;
	char schedule[END_SCHEDULE_MAX];
};

/* Pieces the board keeps for checkpoints (one page each 170, touched
 * only as used); a checkpoint holds those below the first past it. */
#define BOARD_PIECES (1u << 20)

struct board {
	_Atomic uint64_t next;		/* the next piece to hand out */
	_Atomic uint64_t found;		/* the first piece with a violation so far */
	_Atomic uint64_t below;		/* every piece before it is done */
	struct txp_run_stop stop;	/* the workers' */
	struct gauge gauge[JOBS_MAX];
	struct board_end end[JOBS_MAX];
	struct board_piece piece[BOARD_PIECES];
};

/* A worker: the pieces it took, in order (asked again after the search
 * starts again, it answers as before). */
struct worker {
	struct board *board;
	unsigned id;
	/* The caller's split, if any: the pieces it skips are nobody's, and
	 * those it takes are handed out by their ordinal among them. */
	const struct txp_explore_split *outer;
	uint64_t ordinal;		/* of the next piece the outer split takes */
	uint64_t *mine;			/* the ordinals this worker took */
	size_t n, cap;
};

static bool taken_before(const struct worker *w, uint64_t piece)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->mine[mid] == piece)
			return true;
		if (w->mine[mid] < piece)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Pieces past the first violation found are nobody's, nor those the
 * caller's split skips.  Of the others, a piece past the last this worker
 * took is handed out now: the board's next is past every one handed out,
 * so never before this one (the worker asks only once past its last); the
 * ones between belong to others.  Counted by ordinal (among the pieces
 * the caller's split takes), the same in every worker.
 */
static enum txp_explore_take worker_take(uint64_t piece, void *arg)
{
	struct worker *w = arg;
	uint64_t got, at;
	enum txp_explore_take outer = w->outer ? w->outer->take(piece, w->outer->arg)
					       : TXP_EXPLORE_TAKE;

	if (piece == 0)
		w->ordinal = 0;	/* the search began (again) */
	if (piece > atomic_load_explicit(&w->board->found, memory_order_relaxed))
		return TXP_EXPLORE_END;
	if (outer != TXP_EXPLORE_TAKE)
		return outer;
	at = w->ordinal++;
	if (w->n && at <= w->mine[w->n - 1])
		return taken_before(w, at) ? TXP_EXPLORE_TAKE : TXP_EXPLORE_SKIP;
	if (w->n == w->cap) {
		uint64_t *m = realloc(w->mine, (w->cap ? w->cap * 2 : 256) * sizeof(*m));

		if (!m)
			return TXP_EXPLORE_END;	/* the merge finds the pieces missing */
		w->mine = m;
		w->cap = w->cap ? w->cap * 2 : 256;
	}
	/* Relaxed: the counter hands out numbers, and publishes nothing. */
	got = atomic_fetch_add_explicit(&w->board->next, 1, memory_order_relaxed);
	w->mine[w->n++] = got;
	return got == at ? TXP_EXPLORE_TAKE : TXP_EXPLORE_SKIP;
}

/* A piece of the worker's explored to its end, onto the board. */
static void worker_ended(const struct txp_explore_piece *p, void *arg)
{
	struct worker *w = arg;
	struct board_piece *b;

	if (p->index >= BOARD_PIECES)
		return;
	b = &w->board->piece[p->index];
	b->round = p->round;
	b->flags = p->flags;
	b->worker = w->id;
	b->schedules = p->schedules;
	atomic_store_explicit(&b->done, 1, memory_order_release);
}

/* The pieces done from the first, up to the first not (yet) done.  A
 * worker that starts again without its reduction ends its pieces again:
 * done still (and it no longer asks). */
static uint64_t worker_below(void *arg)
{
	struct worker *w = arg;
	/* Relaxed: a lower bound of the pieces done; the done flags read
	 * from it on are what publish them. */
	uint64_t was = atomic_load_explicit(&w->board->below, memory_order_relaxed), at = was;

	while (at < BOARD_PIECES &&
	       atomic_load_explicit(&w->board->piece[at].done, memory_order_acquire))
		at++;
	while (at > was && !atomic_compare_exchange_weak_explicit(&w->board->below, &was, at,
								   memory_order_relaxed,
								   memory_order_relaxed))
		;
	return at > was ? at : was;
}

static void worker_found(uint64_t piece, void *arg)
{
	struct worker *w = arg;
	uint64_t was = atomic_load_explicit(&w->board->found, memory_order_relaxed);

	while (piece < was && !atomic_compare_exchange_weak_explicit(&w->board->found, &was, piece,
								      memory_order_relaxed,
								      memory_order_relaxed))
		;
}

/*
 * The worker's search ended where it stood (explore.h's ending): in piece
 * p, its own (a violation there, as worker_found()), or in a schedule it
 * walked for another's piece (it found nothing; that piece's worker meets
 * the same end).  Onto the board, then the end of the worker.  A piece
 * past the board, or a schedule too long for it: returns, and the ending
 * is reported by this worker, as before there were workers.
 */
static void worker_ending(const struct txp_explore_piece *p, const struct txp_explore_result *end,
			  void *arg)
{
	struct worker *w = arg;
	struct board_end *e = &w->board->end[w->id];
	size_t len = strlen(end->schedule);

	if ((p && p->index >= BOARD_PIECES) || len >= sizeof(e->schedule))
		return;
	e->judged = p != NULL;
	e->reduced = end->reduced;
	e->symmetric = end->symmetric;
	e->reduce_dropped = end->reduce_dropped;
	if (p) {
		e->piece = *p;
		e->piece.schedules++;	/* with the one that ended it */
		worker_found(p->index, w);
	}
	memcpy(e->schedule, end->schedule, len + 1);
	atomic_store_explicit(&e->set, 1, memory_order_release);
	_exit(END_STATUS);
}

/* Relaxed: progress shown is a glimpse, nothing is read through it. */
static void worker_progress(const struct txp_explore_progress *p, void *arg)
{
	struct worker *w = arg;
	struct gauge *g = &w->board->gauge[w->id];

	atomic_store_explicit(&g->schedules, p->schedules, memory_order_relaxed);
	atomic_store_explicit(&g->bound, p->bound, memory_order_relaxed);
	atomic_store_explicit(&g->done, (unsigned)(p->done * 1e6), memory_order_relaxed);
}

/* Is board piece i explored to its end, by worker id? */
static bool board_piece_of(const struct board *board, uint64_t i, unsigned id)
{
	const struct board_piece *b = &board->piece[i];

	/* Acquire: pairs with worker_ended()'s release. */
	return atomic_load_explicit(&b->done, memory_order_acquire) && b->worker == id;
}

/* The part of worker id, whose search ended where it stood
 * (worker_ending()): the pieces it explored to their end, off the board
 * (all of it: with a caller's split, a shard's, the pieces' indices pass
 * the count handed out), and the one it ended in, with its schedule;
 * the flags its search had.  0 or -ENOMEM. */
static int part_ended(const struct board *board, unsigned id, struct txp_explore_result *res)
{
	const struct board_end *e = &board->end[id];
	size_t n = 0;

	memset(res, 0, sizeof(*res));
	res->reduced = e->reduced;
	res->symmetric = e->symmetric;
	res->reduce_dropped = e->reduce_dropped;
	for (uint64_t i = 0; i < BOARD_PIECES; i++)
		n += board_piece_of(board, i, id);
	res->pieces = malloc((n + 1) * sizeof(*res->pieces));
	if (!res->pieces || (e->judged && !(res->schedule = strdup(e->schedule))))
		return -ENOMEM;
	n = 0;
	for (uint64_t i = 0; i < BOARD_PIECES; i++) {
		const struct board_piece *b = &board->piece[i];

		if (!board_piece_of(board, i, id))
			continue;
		res->pieces[n++] = (struct txp_explore_piece){ i, b->schedules, b->round, b->flags };
		res->schedules += b->schedules;
	}
	if (e->judged) {
		res->pieces[n++] = e->piece;
		res->schedules += e->piece.schedules;
		res->found = true;
		res->found_piece = e->piece.index;
	}
	res->npieces = n;
	return 0;
}

/* In the child: explore the pieces handed out, write the part, end. */
static _Noreturn void worker_run(const struct txp_explore_cfg *cfg, struct board *board,
				 unsigned id, unsigned workers, bool shared, FILE *out)
{
	struct worker w = { .board = board, .id = id, .outer = cfg->split };
	struct txp_explore_split split = { .take = worker_take, .found = worker_found,
					   .ended = worker_ended, .ending = worker_ending,
					   .arg = &w };
	struct txp_explore_cfg mine = *cfg;
	struct txp_explore_result res;
	char err[256] = "";
	int rc;

	/* The stop comes from the board; a worker outlives nobody. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	visited_share(workers);	/* a table of its own, if it has one */
	/* Sharing the table, the states above pieces are added once the
	 * pieces below are all done (by whoever). */
	if (shared)
		split.below = worker_below;
	mine.split = &split;
	mine.stop = &board->stop;
	mine.progress = worker_progress;
	mine.progress_arg = &w;
	mine.checkpoint = NULL;	/* the board has the pieces ended (crew_checkpoint()) */
	rc = txp_explore_run(&mine, &res, err, sizeof(err));
	if (part_write(out, rc, err, &res) != 0)
		_exit(1);
	_exit(0);
}

/* -- the parent ----------------------------------------------------------------- */

struct crew {
	struct board *board;
	pid_t pid[JOBS_MAX];
	FILE *out[JOBS_MAX];
	unsigned n, left;
	bool shared;	/* the table of states (visited_share_table()) */
	int ended;	/* a worker's exit status, when it ended the program */
	/* The worker that ended it killed by a signal (dead_sig), with no
	 * report: the out-of-memory killer's SIGKILL, say. */
	unsigned dead;
	int dead_sig;
};

static void crew_kill(struct crew *c)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->pid[i] > 0)
			kill(c->pid[i], SIGKILL);
}

/* A worker is done: one that did not write its part, nor leave its end
 * on the board (worker_ending()), ended the program (its report
 * printed): the others are ended too. */
static void crew_reap(struct crew *c, pid_t pid, int status)
{
	for (unsigned i = 0; i < c->n; i++) {
		if (c->pid[i] != pid)
			continue;
		c->pid[i] = 0;
		c->left--;
		/* Acquire: pairs with worker_ending()'s release. */
		if (WIFEXITED(status) &&
		    (WEXITSTATUS(status) == 0 ||
		     (WEXITSTATUS(status) == END_STATUS &&
		      atomic_load_explicit(&c->board->end[i].set, memory_order_acquire))))
			return;
		if (!c->ended) {
			c->ended = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			c->dead = i;
			c->dead_sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		}
		crew_kill(c);
	}
}

/* The workers' schedules together, in the furthest round any is in, as
 * far into it as the one least far there. */
static void crew_progress(const struct crew *c, const struct txp_explore_cfg *cfg)
{
	struct txp_explore_progress p = { .done = 1 };

	for (unsigned i = 0; i < c->n; i++) {
		const struct gauge *g = &c->board->gauge[i];
		unsigned bound = atomic_load_explicit(&g->bound, memory_order_relaxed);
		double done = atomic_load_explicit(&g->done, memory_order_relaxed) / 1e6;

		p.schedules += atomic_load_explicit(&g->schedules, memory_order_relaxed);
		if (bound > p.bound)
			p.done = 1;
		if (bound >= p.bound && done < p.done)
			p.done = done;
		if (bound > p.bound)
			p.bound = bound;
	}
	cfg->progress(&p, cfg->progress_arg);
}

/* The pieces on the board, from the first, up to the first not there:
 * a checkpoint (cfg->checkpoint).  Pieces the caller's split skips are
 * not there, and nobody's: passed over. */
static void crew_checkpoint(const struct crew *c, const struct txp_explore_cfg *cfg)
{
	struct txp_explore_result sofar = { .reduced = cfg->reduce, .symmetric = true };
	uint64_t end = atomic_load_explicit(&c->board->found, memory_order_relaxed);
	struct txp_explore_piece *p;
	size_t n = 0, cap = 0;

	for (uint64_t i = 0; i < BOARD_PIECES && i < end; i++) {
		const struct board_piece *b = &c->board->piece[i];

		if (!atomic_load_explicit(&b->done, memory_order_acquire)) {
			if (!cfg->split || cfg->split->take(i, cfg->split->arg) == TXP_EXPLORE_TAKE)
				break;
			continue;
		}
		if (n == cap) {
			p = realloc(sofar.pieces, (cap = cap ? cap * 2 : 1024) * sizeof(*p));
			if (!p)
				break;
			sofar.pieces = p;
		}
		sofar.pieces[n++] = (struct txp_explore_piece){ i, b->schedules, b->round, b->flags };
		sofar.schedules += b->schedules;
	}
	sofar.npieces = n;
	cfg->checkpoint(&sofar, cfg->checkpoint_arg);
	free(sofar.pieces);
}

/* Wait for the workers, passing the stop on and showing progress. */
static void crew_wait(struct crew *c, const struct txp_explore_cfg *cfg)
{
	uint64_t saved = txp_now_ns();
	long nap_ns = JOBS_POLL_FIRST_NS;

	while (c->left) {
		struct timespec nap = { 0, nap_ns };
		int status, why = cfg->stop ? txp_run_interrupted(cfg->stop) : 0;
		pid_t pid;

		if (why)
			txp_run_interrupt(&c->board->stop, why);
		pid = waitpid(-1, &status, WNOHANG);
		if (pid > 0) {
			crew_reap(c, pid, status);
			continue;
		}
		if (pid < 0 && errno != EINTR)
			break;
		if (cfg->progress)
			crew_progress(c, cfg);
		if (cfg->checkpoint &&
		    (double)(txp_now_ns() - saved) / 1e9 >= cfg->checkpoint_seconds) {
			crew_checkpoint(c, cfg);
			saved = txp_now_ns();
		}
		nanosleep(&nap, NULL);
		nap_ns = nap_ns * 2 < JOBS_POLL_NS ? nap_ns * 2 : JOBS_POLL_NS;
	}
}

static int crew_start(struct crew *c, const struct txp_explore_cfg *cfg, char *err, size_t errlen)
{
	fflush(NULL);
	for (unsigned i = 0; i < c->n; i++) {
		c->out[i] = tmpfile();
		if (!c->out[i]) {
			snprintf(err, errlen, "a worker's file: %s", strerror(errno));
			return -errno;
		}
		c->pid[i] = fork();
		if (c->pid[i] < 0) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			return -errno;
		}
		if (c->pid[i] == 0)
			worker_run(cfg, c->board, i, c->n, c->shared, c->out[i]);
		c->left++;
	}
	return 0;
}

static int crew_merge(struct crew *c, const struct txp_explore_cfg *cfg,
		      const struct txp_explore_result *prior, bool part,
		      struct txp_explore_result *res, char *err, size_t errlen)
{
	struct txp_explore_result *parts = calloc(c->n + 1, sizeof(*parts));
	int rc = parts ? 0 : -ENOMEM;

	for (unsigned i = 0; i < c->n && rc == 0; i++)
		/* Acquire: pairs with worker_ending()'s release. */
		rc = atomic_load_explicit(&c->board->end[i].set, memory_order_acquire)
			     ? part_ended(c->board, i, &parts[i])
			     : part_read(c->out[i], &parts[i], err, errlen);
	if (rc == 0 && prior)
		parts[c->n] = *prior;
	if (rc == 0)
		rc = (part ? txp_explore_gather : txp_explore_merge)(cfg, parts, c->n + !!prior, res,
								     err, errlen);
	for (unsigned i = 0; parts && i < c->n; i++)
		txp_explore_result_free(&parts[i]);
	free(parts);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return rc;
}

int txp_explore_jobs(const struct txp_explore_cfg *cfg, unsigned jobs,
		     const struct txp_explore_result *prior, bool part,
		     struct txp_explore_result *res, char *err, size_t errlen)
{
	struct crew c = { .n = jobs };
	uint64_t t0 = txp_now_ns();
	int rc;

	memset(res, 0, sizeof(*res));
	if (jobs < 1 || jobs > JOBS_MAX) {
		snprintf(err, errlen, "jobs must be 1..%d", JOBS_MAX);
		return -EINVAL;
	}
	if (!txp_explore_cfg_valid(cfg, err, errlen))
		return -EINVAL;
	c.board = mmap(NULL, sizeof(*c.board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (c.board == MAP_FAILED) {
		snprintf(err, errlen, "mmap: %s", strerror(errno));
		return -ENOMEM;
	}
	atomic_init(&c.board->found, UINT64_MAX);
	/* Unmapped, each worker has a table of its own (slower, as sound). */
	c.shared = cfg->reduce && visited_share_table() == 0;
	rc = crew_start(&c, cfg, err, errlen);
	if (rc)
		crew_kill(&c);
	crew_wait(&c, cfg);
	/* Killed, it may have said nothing: said in err, and what the
	 * others did kept; the status is still the worker's. */
	if (rc == 0 && c.dead_sig) {
		if (cfg->checkpoint)
			crew_checkpoint(&c, cfg);
		snprintf(err, errlen, "worker %u of %u was killed by %s%s: the search ended there%s",
			 c.dead + 1, c.n, strsignal(c.dead_sig),
			 c.dead_sig == SIGKILL ? " (the out-of-memory killer?)" : "",
			 cfg->checkpoint ? "; the position of what was explored is saved" : "");
	}
	if (rc == 0 && c.ended)
		rc = c.ended;
	if (rc == 0 && cfg->checkpoint)
		crew_checkpoint(&c, cfg);
	if (rc == 0)
		rc = crew_merge(&c, cfg, prior, part, res, err, errlen);
	/* The states are the table's, not the workers' added (but for those
	 * a worker that started again without it kept on its own). */
	if (c.shared && rc == 0) {
		res->states = visited_count();
		res->states_full = visited_full();
	}
	if (c.shared)
		visited_clear();
	for (unsigned i = 0; i < c.n; i++)
		if (c.out[i])
			fclose(c.out[i]);
	munmap(c.board, sizeof(*c.board));
	res->seconds = (double)(txp_now_ns() - t0) / 1e9;
	if (cfg->stop && txp_run_interrupted(cfg->stop))
		res->interrupted = true;
	return rc;
}
