/*
 * json.h - a small streaming JSON writer for machine-readable output.
 */
#ifndef TXP_TOOL_JSON_H
#define TXP_TOOL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
};

/* key is the member name inside an object, NULL inside an array. */
void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *v);	/* NULL: null */
void json_u64(struct json *j, const char *key, uint64_t v);
void json_dbl(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
/* Ends the document with a newline. */
void json_finish(struct json *j);

#endif
