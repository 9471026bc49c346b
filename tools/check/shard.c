/*
 * shard.c - txpath check's shards: shard I of N explores the pieces of
 * the bounded search (explore.h, txp_explore_split) whose index is I
 * modulo N, and writes what it found as JSON, with what --merge needs to
 * make the whole of it: the command's arguments, the scenario's
 * identity, txpath's version, and each piece's schedules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../cli.h"
#include "plain_points.h"
#include "shard.h"
#include "txpath/plugin.h"
#include "txpath/version.h"

/* An environment variable's number (a usage error below min), or -1 when
 * it is not set. */
static long long env_number(const char *name, uint64_t min)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return -1;
	return (long long)parse_u64("check", name, v, min, SHARD_MAX);
}

/* --shard env[/N]: the index and count the job scheduler gives.  Slurm's
 * task id is taken as it is, so that a shard's task run again alone
 * (sbatch --array=5, whose count is 1) is the same shard: N from /N. */
static struct shard shard_env(const char *count)
{
	long long id = env_number("SLURM_ARRAY_TASK_ID", 0), n, seq;
	struct shard s;

	if (id < 0)
		id = env_number("JOB_COMPLETION_INDEX", 0);
	if (id < 0 && (seq = env_number("PARALLEL_SEQ", 1)) > 0)
		id = seq - 1;
	if (id < 0)
		usage_error("check", "--shard env: none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, "
			    "PARALLEL_SEQ is set (or give --shard I/N)");
	if (count)
		n = (long long)parse_u64("check", "--shard env/N", count, 1, SHARD_MAX);
	else
		n = env_number("SLURM_ARRAY_TASK_COUNT", 1);
	if (n < 1)
		usage_error("check", "--shard env: no count in the environment (SLURM_ARRAY_TASK_COUNT): "
			    "give it, --shard env/N");
	s = (struct shard){ (unsigned)id, (unsigned)n };
	if (s.index >= s.count)
		usage_error("check", "--shard env: index %u from the environment is past the count %u "
			    "(shards are numbered from 0)", s.index, s.count);
	return s;
}

struct shard shard_spec(const char *spec)
{
	const char *slash = strchr(spec, '/');
	char index[24];
	struct shard s;

	if (!strcmp(spec, "env"))
		return shard_env(NULL);
	if (slash && slash - spec == 3 && !strncmp(spec, "env", 3))
		return shard_env(slash + 1);
	if (!slash || (size_t)(slash - spec) >= sizeof(index))
		usage_error("check", "--shard is I/N (shard I of N, from 0), env or env/N, got '%s'", spec);
	memcpy(index, spec, (size_t)(slash - spec));
	index[slash - spec] = '\0';
	s.count = (unsigned)parse_u64("check", "--shard's N", slash + 1, 1, SHARD_MAX);
	s.index = (unsigned)parse_u64("check", "--shard's I", index, 0, s.count - 1);
	return s;
}

static enum txp_explore_take shard_take(uint64_t piece, void *arg)
{
	const struct shard *s = arg;

	return piece % s->count == s->index ? TXP_EXPLORE_TAKE : TXP_EXPLORE_SKIP;
}

struct txp_explore_split shard_split(const struct shard *s)
{
	return (struct txp_explore_split){ .take = shard_take, .arg = (void *)s };
}

const char *scenario_driver_name(const struct txp_explore_cfg *cfg)
{
	const struct txp_plugin *plugin = cfg->driver ? txp_run_driver_plugin_of(cfg->driver) : NULL;

	if (plugin)
		return plugin->name;
	return cfg->driver ? cfg->driver->name : cfg->personality->name;
}

const char *shard_identity(const struct txp_explore_cfg *cfg)
{
	static char id[512];
	const char *driver = scenario_driver_name(cfg);

	snprintf(id, sizeof(id), "era %s, claim %d, lock %s, runner %s, qdisc %s, defer %d, "
		 "busylock %d, driver %s, producers %u, packets %u, pools %d, ring %u, frags %u-%u, batch %u, queues %u, "
		 "bql %d, bulk %u, watchdog %d, memory model %s, bound %u, reduce %d/%u, "
		 "max steps %u, plain points %s, send %d", cfg->era ? cfg->era : "-", cfg->race_impossible,
		 txp_lock_mode_name(cfg->lock), txp_runner_name(cfg->runner),
		 cfg->qdisc ? cfg->qdisc->id : "-", cfg->defer, cfg->busylock, driver, cfg->producers,
		 cfg->packets, cfg->pools, cfg->ring, cfg->frags_min, cfg->frags_max, cfg->batch, cfg->queues,
		 cfg->bql, cfg->bulk, cfg->watchdog, cfg->arm ? "arm" : cfg->tso ? "tso" : "sc",
		 cfg->bound, cfg->reduce, cfg->reduce_without, cfg->max_steps,
		 cfg->plain_point ? plain_points_spec() : "-", cfg->send);
	return id;
}

/* The options of the run's own, not the search's. */
static const char *const own_flags[] = { "json", "progress", NULL };
static const char *const own_valued[] = {
	"shard", "jobs", "checkpoint", "checkpoint-every", "resume", NULL
};

void shard_json(struct json *j, const struct shard *s, const struct txp_explore_cfg *cfg,
		const struct txp_explore_result *r, int argc, char **argv)
{
	json_obj_begin(j, "shard");
	json_u64(j, "index", s->index);
	json_u64(j, "count", s->count);
	json_str(j, "txpath_version", txp_version());
	json_str(j, "scenario", shard_identity(cfg));
	json_arr_begin(j, "args");
	for (int i = 1; i < argc; i++) {
		int own = option_words(argv[i], own_flags, own_valued);

		if (own)
			i += own - 1;
		else
			json_str(j, NULL, argv[i]);
	}
	json_arr_end(j);
	json_bool(j, "done", !r->interrupted);
	json_bool(j, "complete", r->complete);
	json_u64(j, "bound_reached", r->bound_reached);
	json_bool(j, "states_full", r->states_full);
	if (r->found)
		json_u64(j, "found_piece", r->found_piece);
	else
		json_str(j, "found_piece", NULL);
	/* [index, round, schedules, flags] each */
	json_arr_begin(j, "pieces");
	for (size_t i = 0; i < r->npieces; i++) {
		const struct txp_explore_piece *p = &r->pieces[i];

		json_arr_begin(j, NULL);
		json_u64(j, NULL, p->index);
		json_u64(j, NULL, p->round);
		json_u64(j, NULL, p->schedules);
		json_u64(j, NULL, p->flags);
		json_arr_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* -- reading one back ------------------------------------------------------------ */

/* Past this, or with a NUL byte, no shard's file (JSON text): said at
 * once, so that /dev/zero or an endless pipe is refused, not read until
 * memory runs out. */
#define SHARD_TEXT_MAX ((size_t)4 << 30)

/* The text of the file at path, NUL-terminated (malloc'd); NULL and why. */
static char *file_text(const char *path, char *err, size_t errlen)
{
	FILE *f = open_input(path);
	char *text = NULL;
	size_t len = 0, cap = 0, got;
	bool ok = true;

	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	do {
		const char *nul;

		if (len + 4096 + 1 > cap) {
			size_t more = cap ? cap * 2 : 65536;
			char *t = more <= SHARD_TEXT_MAX ? realloc(text, more) : NULL;

			if (!t) {
				snprintf(err, errlen, "%s", more <= SHARD_TEXT_MAX ? "out of memory"
					 : "over 4 GiB: not a shard's file");
				ok = false;
				break;
			}
			text = t;
			cap = more;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		nul = memchr(text + len, '\0', got);
		if (nul) {
			snprintf(err, errlen, "byte %zu is NUL: not a shard's file",
				 (size_t)(nul - text));
			ok = false;
			break;
		}
		len += got;
	} while (got);
	if (ok && ferror(f)) {
		snprintf(err, errlen, "%s", strerror(errno));
		ok = false;
	}
	fclose(f);
	if (!ok) {
		free(text);
		return NULL;
	}
	text[len] = '\0';
	return text;
}

/* Member key of v, of type t: NULL (and the message) if not. */
static const struct jv *member(const struct jv *v, const char *key, enum jv_type t, char *err,
			       size_t errlen)
{
	const struct jv *m = jv_get(v, key);

	if (!m || m->type != t || (t == JV_NUM && !m->whole)) {
		snprintf(err, errlen, "no shard's file: '%s' missing or of the wrong type", key);
		return NULL;
	}
	return m;
}

static bool read_args(const struct jv *args, struct shard_file *f, char *err, size_t errlen)
{
	f->argv = calloc(args->n + 2, sizeof(*f->argv));
	if (!f->argv) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	f->argv[f->argc++] = "check";
	for (size_t i = 0; i < args->n; i++) {
		if (args->items[i].type != JV_STR) {
			snprintf(err, errlen, "no shard's file: an argument that is no string");
			return false;
		}
		f->argv[f->argc++] = args->items[i].str;
	}
	return true;
}

static bool read_pieces(const struct jv *pieces, struct txp_explore_result *r, char *err,
			size_t errlen)
{
	r->pieces = calloc(pieces->n ? pieces->n : 1, sizeof(*r->pieces));
	if (!r->pieces) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	for (size_t i = 0; i < pieces->n; i++) {
		const struct jv *p = &pieces->items[i];

		if (p->type != JV_ARR || p->n != 4 || p->items[0].type != JV_NUM ||
		    p->items[1].type != JV_NUM || p->items[2].type != JV_NUM ||
		    p->items[3].type != JV_NUM) {
			snprintf(err, errlen, "no shard's file: piece %zu is not 4 numbers", i);
			return false;
		}
		r->pieces[r->npieces++] = (struct txp_explore_piece){
			.index = p->items[0].u, .round = (uint32_t)p->items[1].u,
			.schedules = p->items[2].u, .flags = (uint32_t)p->items[3].u };
	}
	return true;
}

/* The search's own members, as print_json() wrote them. */
static bool read_result(const struct jv *doc, const struct jv *sh, struct txp_explore_result *r,
			char *err, size_t errlen)
{
	static const char *const counts[] = { "schedules", "pruned", "asleep", "states" };
	static const char *const flags[] = { "interrupted", "reduced", "reduce_dropped", "symmetric",
					     "xmit_on_stopped_reachable" };
	uint64_t *count[] = { &r->schedules, &r->pruned, &r->asleep, &r->states };
	bool *flag[] = { &r->interrupted, &r->reduced, &r->reduce_dropped, &r->symmetric,
			 &r->xmit_on_stopped_reachable };
	const struct jv *v = jv_get(doc, "violation"), *m;

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (!(m = member(doc, counts[i], JV_NUM, err, errlen)))
			return false;
		*count[i] = m->u;
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (!(m = member(doc, flags[i], JV_BOOL, err, errlen)))
			return false;
		*flag[i] = m->b;
	}
	m = jv_get(doc, "seconds");
	r->seconds = m && m->type == JV_NUM ? m->d : 0;
	r->found = v && v->type == JV_OBJ;
	if (!r->found)
		return true;
	if (!(m = member(v, "schedule", JV_STR, err, errlen)))
		return false;
	r->schedule = strdup(m->str);
	if (!r->schedule) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	if (!(m = member(sh, "found_piece", JV_NUM, err, errlen)))
		return false;
	r->found_piece = m->u;
	return true;
}

bool shard_read(const char *path, struct shard_file *f, char *err, size_t errlen)
{
	char *text = file_text(path, err, errlen);
	const struct jv *sh, *m;

	memset(f, 0, sizeof(*f));
	if (!text)
		return false;
	f->doc = jv_parse(text, err, errlen);
	free(text);
	if (!f->doc)
		return false;
	sh = jv_get(f->doc, "shard");
	if (!sh || sh->type != JV_OBJ) {
		snprintf(err, errlen, "no shard's file (no \"shard\" member: txpath check --shard "
			 "writes one)");
		return false;
	}
	if (!(m = member(sh, "index", JV_NUM, err, errlen)))
		return false;
	f->s.index = (unsigned)m->u;
	if (!(m = member(sh, "count", JV_NUM, err, errlen)))
		return false;
	f->s.count = (unsigned)m->u;
	if (!(m = member(sh, "txpath_version", JV_STR, err, errlen)))
		return false;
	f->version = m->str;
	if (!(m = member(sh, "scenario", JV_STR, err, errlen)))
		return false;
	f->identity = m->str;
	if (!(m = member(sh, "done", JV_BOOL, err, errlen)))
		return false;
	f->done = m->b;
	if (!(m = member(sh, "complete", JV_BOOL, err, errlen)))
		return false;
	f->part.complete = m->b;
	if (!(m = member(sh, "bound_reached", JV_NUM, err, errlen)))
		return false;
	f->part.bound_reached = (unsigned)m->u;
	if (!(m = member(sh, "states_full", JV_BOOL, err, errlen)))
		return false;
	f->part.states_full = m->b;
	if (!(m = member(sh, "args", JV_ARR, err, errlen)) || !read_args(m, f, err, errlen))
		return false;
	if (!(m = member(sh, "pieces", JV_ARR, err, errlen)) ||
	    !read_pieces(m, &f->part, err, errlen))
		return false;
	return read_result(f->doc, sh, &f->part, err, errlen);
}

void shard_file_free(struct shard_file *f)
{
	txp_explore_result_free(&f->part);
	free(f->argv);
	jv_free(f->doc);
	memset(f, 0, sizeof(*f));
}
