/*
 * json_read.h - a small JSON reader (txpath-check only: --merge reads the
 * shards' files back), into a tree of values.
 */
#ifndef TXP_TOOL_JSON_READ_H
#define TXP_TOOL_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	bool b;			/* JV_BOOL */
	uint64_t u;		/* JV_NUM: a whole number, exactly */
	bool whole;		/* JV_NUM: it was one (no sign, fraction, exponent) */
	double d;		/* JV_NUM */
	char *str;		/* JV_STR: NUL-terminated (a \u0000 ends it) */
	struct jv *items;	/* JV_ARR, JV_OBJ: n values */
	char **keys;		/* JV_OBJ: their names */
	size_t n;
};

/* The document text (NUL-terminated) as a tree (jv_free() it), or NULL
 * and a one-line message (where, and what was expected) in err. */
struct jv *jv_parse(const char *text, char *err, size_t errlen);
void jv_free(struct jv *v);
/* Member key of an object; NULL if v is none or has no such member. */
const struct jv *jv_get(const struct jv *v, const char *key);

#endif
