/*
 * schedule.c - schedules as strings: what `txpath check` prints after a
 * violation and what --replay reads back (the grammar is in explore.h).
 * Pure functions, safe on any input: no output, no exit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/explore.h"

/* Of a bad pair, at most this much is quoted in a message. */
#define QUOTE_MAX 24

/* Copy s[0..len) into buf for a message: printable, and cut short with
 * "..." if too long. */
static const char *quote(const char *s, size_t len, char *buf, size_t cap)
{
	size_t n = 0, keep = len < QUOTE_MAX ? len : QUOTE_MAX;

	for (size_t i = 0; i < keep && n + 1 < cap; i++)
		buf[n++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (keep < len && n + 3 < cap) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

enum num_status { NUM_OK, NUM_BAD, NUM_RANGE };

/* A decimal number at s, without sign or leading zeros, at most max;
 * *end is where its digits stop. */
static enum num_status parse_number(const char *s, const char *lim, uint64_t max, uint64_t *v,
				    const char **end)
{
	uint64_t n = 0;
	const char *p = s;
	bool range = false;

	for (; p < lim && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		range |= d > max || n > (max - d) / 10;
		if (!range)
			n = n * 10 + d;
	}
	*end = p;
	if (p == s || (*s == '0' && p - s > 1))
		return NUM_BAD;
	*v = n;
	return range ? NUM_RANGE : NUM_OK;
}

/* One pair, s[0..len), the k-th (from 1), after prev (NULL: the first). */
static int parse_pair(const char *s, size_t len, unsigned k, const struct txp_explore_choice *prev,
		      struct txp_explore_choice *c, char *err, size_t errlen)
{
	const char *lim = s + len, *p;
	uint64_t index = 0, ctx = 0;
	enum num_status st, sc = NUM_BAD;
	char q[QUOTE_MAX + 4];

	if (!len) {
		snprintf(err, errlen, "malformed schedule: pair %u is empty (want INDEX:CTX,... as printed)",
			 k);
		return -EINVAL;
	}
	st = parse_number(s, lim, UINT32_MAX, &index, &p);
	c->flush = false;
	if (st != NUM_BAD && p < lim && *p == ':') {
		p++;
		if (p < lim && *p == 'f') {
			c->flush = true;
			p++;
		}
		sc = parse_number(p, lim, TXP_EXPLORE_MAX_CTX - 1, &ctx, &p);
	}
	if (st == NUM_BAD || sc == NUM_BAD || p != lim) {
		snprintf(err, errlen, "malformed schedule: pair %u '%s' is not INDEX:CTX or INDEX:fCTX", k,
			 quote(s, len, q, sizeof(q)));
		return -EINVAL;
	}
	if (st == NUM_RANGE) {
		snprintf(err, errlen, "malformed schedule: pair %u '%s': index past %u", k,
			 quote(s, len, q, sizeof(q)), UINT32_MAX);
		return -EINVAL;
	}
	if (sc == NUM_RANGE) {
		snprintf(err, errlen, "malformed schedule: pair %u '%s': no context past %d", k,
			 quote(s, len, q, sizeof(q)), TXP_EXPLORE_MAX_CTX - 1);
		return -EINVAL;
	}
	if (prev && index <= prev->index) {
		snprintf(err, errlen,
			 "malformed schedule: pair %u '%s': index not after %u (indices increase, each once)",
			 k, quote(s, len, q, sizeof(q)), prev->index);
		return -EINVAL;
	}
	c->index = (uint32_t)index;
	c->ctx = (uint8_t)ctx;
	return 0;
}

int txp_explore_schedule_parse(const char *s, struct txp_explore_choice **out, unsigned *n,
			     char *err, size_t errlen)
{
	size_t pairs = 1;
	unsigned count = 0;
	struct txp_explore_choice *c;

	*out = NULL;
	*n = 0;
	if (!s || !*s) {
		snprintf(err, errlen, "malformed schedule: empty (want - or INDEX:CTX,... as printed)");
		return -EINVAL;
	}
	if (!strcmp(s, "-"))
		return 0;
	for (const char *p = s; *p; p++)
		pairs += *p == ',';
	if (pairs > UINT32_MAX) {
		snprintf(err, errlen, "malformed schedule: more pairs than branch points can be");
		return -EINVAL;
	}
	c = malloc(pairs * sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (const char *p = s;; p++) {
		size_t len = strcspn(p, ",");
		int rc = parse_pair(p, len, count + 1, count ? &c[count - 1] : NULL, &c[count], err,
				    errlen);

		if (rc) {
			free(c);
			return rc;
		}
		count++;
		p += len;
		if (!*p)
			break;
	}
	*out = c;
	*n = count;
	return 0;
}

char *txp_explore_schedule_format(const struct txp_explore_choice *c, unsigned n)
{
	/* "4294967295:f7," is 14 characters. */
	size_t cap = 2 + (size_t)n * 16, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	strcpy(s, "-");
	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "%s%u:%s%u", i ? "," : "", c[i].index,
					c[i].flush ? "f" : "", c[i].ctx);
	return s;
}
