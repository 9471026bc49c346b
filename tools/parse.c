/*
 * parse.c - the command line's values from the user's strings, without
 * printing or exiting (see parse.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "txpath/net.h"
#include "txpath/pkt.h"

/* Put the message in msg, a value's unprintable bytes (a newline, an
 * escape) shown as '?' so that it stays one line; returns false, for
 * `return fail(...)`. */
static bool __attribute__((format(printf, 3, 4))) fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if (!isprint((unsigned char)*p))
			*p = '?';
	return false;
}

/* strtoull() and strtod() skip any leading white space and take a sign
 * (strtoull() negating a '-'): the whole string must be the number. */
static bool starts_digit(const char *s)
{
	return isdigit((unsigned char)*s);
}

/* A '-' is let through, to be told it is not more than 0. */
static bool starts_number(const char *s)
{
	return starts_digit(s) || *s == '.' || *s == '-';
}

bool parse_str_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v,
		   char *msg, size_t len)
{
	unsigned long long n;
	char *end;

	errno = 0;
	if (!starts_digit(s))
		return fail(msg, len, "%s wants a whole number, got '%s'", opt, s);
	n = strtoull(s, &end, 10);
	if (*end || errno)
		return fail(msg, len, "%s wants a whole number, got '%s'", opt, s);
	if (n < min || n > max)
		return fail(msg, len, "%s must be %llu..%llu, got %llu", opt,
			    (unsigned long long)min, (unsigned long long)max, n);
	*v = n;
	return true;
}

bool parse_str_seconds(const char *opt, const char *s, double *v, char *msg, size_t len)
{
	char *end;
	double n;

	errno = 0;
	n = strtod(s, &end);
	if (!starts_number(s) || *end || errno || !isfinite(n))
		return fail(msg, len, "%s wants a number of seconds, got '%s'", opt, s);
	if (!(n > 0) || n > 86400)
		return fail(msg, len, "%s must be more than 0 and at most 86400, got '%s'", opt, s);
	*v = n;
	return true;
}

static bool frags_bound(const char *s, unsigned *n, char *msg, size_t len)
{
	uint64_t v;

	if (!parse_str_u64("--frags", s, 0, TXP_MAX_FRAGS, &v, msg, len))
		return false;
	*n = (unsigned)v;
	return true;
}

bool parse_str_frags(const char *s, unsigned *min, unsigned *max, char *msg, size_t len)
{
	const char *dash = strchr(s, '-');
	unsigned lo_n, hi_n;
	char lo[32];

	if (!dash) {
		if (!frags_bound(s, &lo_n, msg, len))
			return false;
		*min = *max = lo_n;
		return true;
	}
	if ((size_t)(dash - s) >= sizeof(lo))
		return fail(msg, len, "--frags wants N or MIN-MAX, got '%s'", s);
	memcpy(lo, s, (size_t)(dash - s));
	lo[dash - s] = '\0';
	if (!frags_bound(lo, &lo_n, msg, len) || !frags_bound(dash + 1, &hi_n, msg, len))
		return false;
	if (lo_n > hi_n)
		return fail(msg, len, "--frags MIN-MAX needs MIN <= MAX, got '%s'", s);
	*min = lo_n;
	*max = hi_n;
	return true;
}

bool parse_str_mac(const char *opt, const char *s, uint8_t mac[6], char *msg, size_t len)
{
	if (!txp_parse_mac(s, mac))
		return fail(msg, len, "%s wants a MAC address like 02:00:00:00:00:01, got '%s'",
			    opt, s);
	return true;
}

bool parse_str_src_mac(const char *opt, const char *s, uint8_t mac[6], char *msg, size_t len)
{
	uint8_t m[6];

	if (!parse_str_mac(opt, s, m, msg, len))
		return false;
	if (m[0] & 1)
		return fail(msg, len, "%s %s is a multicast address: a frame's source must be unicast",
			    opt, s);
	memcpy(mac, m, sizeof(m));
	return true;
}

bool parse_str_name(const char *opt, const char *s, const char *what, char *msg, size_t len)
{
	if (!*s)
		return fail(msg, len, "%s needs %s, got ''", opt, what);
	return true;
}

bool parse_str_bench_ip(const char *opt, const char *s, uint32_t *ip, char *msg, size_t len)
{
	uint32_t v;

	if (!txp_parse_ipv4(s, &v))
		return fail(msg, len, "%s wants an IPv4 address, got '%s'", opt, s);
	if (!txp_ipv4_is_bench(v))
		return fail(msg, len, "%s must be in the benchmarking range 198.18.0.0/15, got '%s'",
			    opt, s);
	*ip = v;
	return true;
}

bool parse_str_double(const char *opt, const char *s, double min, double max, double *v,
		      char *msg, size_t len)
{
	char *end;
	double n;

	n = strtod(s, &end);
	if (!starts_number(s) || *end || isnan(n))
		return fail(msg, len, "%s wants a number, got '%s'", opt, s);
	if (!(n >= min && n <= max))
		return fail(msg, len, "%s must be from %g to %g, got '%s'", opt, min, max, s);
	*v = n;
	return true;
}
