/*
 * json_read.c - a small JSON reader: recursive descent over RFC 8259's
 * grammar, nested at most JV_MAX_DEPTH deep, into a tree (json_read.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"

#define JV_MAX_DEPTH 32

struct reader {
	const char *s, *at;
	char *err;
	size_t errlen;
	bool failed;
};

static bool fail(struct reader *r, const char *what)
{
	if (!r->failed)
		snprintf(r->err, r->errlen, "at byte %zu: %s", (size_t)(r->at - r->s), what);
	r->failed = true;
	return false;
}

static void skip_space(struct reader *r)
{
	while (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r')
		r->at++;
}

static bool literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(r->at, word, n))
		return fail(r, "expected a value");
	r->at += n;
	return true;
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A \uXXXX escape's code point, as UTF-8 at *o (a surrogate as is). */
static bool unicode(struct reader *r, char **o)
{
	unsigned cp = 0;

	for (int i = 1; i <= 4; i++) {
		int h = hex(r->at[i]);

		if (h < 0)
			return fail(r, "a \\u escape needs four hex digits");
		cp = cp << 4 | (unsigned)h;
	}
	r->at += 5;
	if (cp < 0x80) {
		*(*o)++ = (char)cp;
	} else if (cp < 0x800) {
		*(*o)++ = (char)(0xc0 | cp >> 6);
		*(*o)++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*(*o)++ = (char)(0xe0 | cp >> 12);
		*(*o)++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*(*o)++ = (char)(0x80 | (cp & 0x3f));
	}
	return true;
}

/* A string at r->at (its opening quote), malloc'd into *out. */
static bool string(struct reader *r, char **out)
{
	const char *end = r->at + 1;
	char *o;

	while (*end && *end != '"')
		end += *end == '\\' && end[1] ? 2 : 1;
	if (*end != '"')
		return fail(r, "a string without its closing quote");
	/* An escape never grows: \uXXXX is six bytes, three at most out. */
	*out = o = malloc((size_t)(end - r->at));
	if (!o)
		return fail(r, "out of memory");
	for (r->at++; *r->at != '"';) {
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *e;

		if ((unsigned char)*r->at < 0x20)
			return fail(r, "a control character in a string");
		if (*r->at != '\\') {
			*o++ = *r->at++;
			continue;
		}
		if (r->at[1] == 'u') {
			if (!unicode(r, &o))
				return false;
			continue;
		}
		e = r->at[1] ? strchr(from, r->at[1]) : NULL;
		if (!e)
			return fail(r, "an unknown escape in a string");
		*o++ = to[e - from];
		r->at += 2;
	}
	*o = '\0';
	r->at++;
	return true;
}

static bool number(struct reader *r, struct jv *v)
{
	const char *p = r->at;
	char *end;

	v->type = JV_NUM;
	v->whole = *p >= '0' && *p <= '9';
	while (*p >= '0' && *p <= '9')
		p++;
	v->whole &= *p != '.' && *p != 'e' && *p != 'E';
	v->d = strtod(r->at, &end);
	if (end == r->at)
		return fail(r, "expected a value");
	if (v->whole)
		v->u = strtoull(r->at, NULL, 10);
	r->at = end;
	return true;
}

static bool value(struct reader *r, struct jv *v, int depth);

/* The members of an array or object, up to its closing bracket. */
static bool members(struct reader *r, struct jv *v, bool obj, int depth)
{
	char close = obj ? '}' : ']';

	r->at++;
	skip_space(r);
	if (*r->at == close) {
		r->at++;
		return true;
	}
	for (;;) {
		struct jv *items = realloc(v->items, (v->n + 1) * sizeof(*items));

		if (!items)
			return fail(r, "out of memory");
		v->items = items;
		if (obj) {
			char **keys = realloc(v->keys, (v->n + 1) * sizeof(*keys));

			if (!keys)
				return fail(r, "out of memory");
			v->keys = keys;
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		if (obj) {
			v->keys[v->n] = NULL;
			skip_space(r);
			if (*r->at != '"')
				return v->n++, fail(r, "expected a member's name");
			if (!string(r, &v->keys[v->n]))
				return v->n++, false;
			skip_space(r);
			if (*r->at != ':')
				return v->n++, fail(r, "expected ':'");
			r->at++;
		}
		if (!value(r, &v->items[v->n++], depth + 1))
			return false;
		skip_space(r);
		if (*r->at == close) {
			r->at++;
			return true;
		}
		if (*r->at != ',')
			return fail(r, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		r->at++;
	}
}

static bool value(struct reader *r, struct jv *v, int depth)
{
	if (depth > JV_MAX_DEPTH)
		return fail(r, "nested too deep");
	skip_space(r);
	switch (*r->at) {
	case '{': v->type = JV_OBJ; return members(r, v, true, depth);
	case '[': v->type = JV_ARR; return members(r, v, false, depth);
	case '"': v->type = JV_STR; return string(r, &v->str);
	case 't': v->type = JV_BOOL; v->b = true; return literal(r, "true");
	case 'f': v->type = JV_BOOL; return literal(r, "false");
	case 'n': v->type = JV_NULL; return literal(r, "null");
	default: return number(r, v);
	}
}

static void jv_clear(struct jv *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jv_clear(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	jv_clear(v);
	free(v);
}

struct jv *jv_parse(const char *text, char *err, size_t errlen)
{
	struct reader r = { .s = text, .at = text, .err = err, .errlen = errlen };
	struct jv *v = calloc(1, sizeof(*v));

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (value(&r, v, 0)) {
		skip_space(&r);
		if (*r.at)
			fail(&r, "text after the document");
	}
	if (r.failed) {
		jv_free(v);
		return NULL;
	}
	return v;
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (!v || v->type != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}
