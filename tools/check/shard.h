/*
 * shard.h - txpath check's shards (--shard) and the files --merge reads
 * back (txpath-check only; shard.c).
 */
#ifndef TXP_TOOL_SHARD_H
#define TXP_TOOL_SHARD_H

#include <stdbool.h>

#include "../json.h"
#include "check/explore.h"
#include "json_read.h"

struct shard {
	unsigned index, count;	/* 0 <= index < count */
};

#define SHARD_MAX 1000000u

/*
 * --shard's SPEC: "I/N", or "env" or "env/N": I (and N) from the
 * environment of the job scheduler that runs it: a Slurm job array's
 * SLURM_ARRAY_TASK_ID (from 0) of SLURM_ARRAY_TASK_COUNT (or N), a
 * Kubernetes Indexed Job's JOB_COMPLETION_INDEX, GNU parallel's
 * PARALLEL_SEQ (from 1: less one).  A usage error when it does not fit,
 * or names no count there is none for.
 */
struct shard shard_spec(const char *spec);

/* The split that takes shard s's pieces: those whose index is s->index
 * modulo s->count (the split keeps a pointer to s). */
struct txp_explore_split shard_split(const struct shard *s);

/* The scenario's driver by name: the plugin's, the ring's, or the
 * simulated NIC's personality. */
const char *scenario_driver_name(const struct txp_explore_cfg *cfg);

/* The scenario, as the knobs that shape its search (a static buffer):
 * two shards of one search have the same. */
const char *shard_identity(const struct txp_explore_cfg *cfg);

/* A shard's own members in its JSON document: which shard of how many,
 * txpath's version, the scenario's identity, the command's arguments
 * (argv without --shard, --json, --progress: what --merge runs again),
 * whether it ran to its end, and its pieces. */
void shard_json(struct json *j, const struct shard *s, const struct txp_explore_cfg *cfg,
		const struct txp_explore_result *r, int argc, char **argv);

/* A shard's file, read back. */
struct shard_file {
	struct jv *doc;
	struct shard s;
	const char *version, *identity;	/* in doc */
	char **argv;			/* "check" and its arguments, in doc */
	int argc;
	bool done;			/* ran to its end, or to its first violation */
	struct txp_explore_result part;	/* pieces and schedule malloc'd */
};

/* False and a one-line message when path is no shard's file. */
bool shard_read(const char *path, struct shard_file *f, char *err, size_t errlen);
void shard_file_free(struct shard_file *f);

#endif
