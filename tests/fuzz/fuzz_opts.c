/*
 * fuzz_opts.c - the command line's parsers of values (tools/parse.c) on
 * any string, against a reference that says what each accepts:
 *   a whole number: one or more decimal digits, nothing else, in range;
 *   seconds: a number starting with a digit or '.', in (0, 86400];
 *   --frags: N or MIN-MAX, whole numbers, MIN <= MAX <= TXP_MAX_FRAGS;
 *   a MAC: six pairs of hex digits joined by ':';
 *   an IPv4 address: the dotted quad inet_ntop writes, in 198.18.0.0/15.
 * A refusal leaves a terminated, printable message naming the option in a
 * buffer of whatever size (from the input) the caller gave.
 *
 * Input: a byte choosing the parser, a byte choosing the range (numbers)
 * and the message buffer's size, then the string.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "parse.h"
#include "txpath/net.h"
#include "txpath/pkt.h"

/* The ranges the commands give parse_u64, and the extremes. */
static const uint64_t ranges[][2] = {
	{ 0, UINT64_MAX }, { 1, 65535 }, { 2, 3 }, { 60, 65535 }, { 1, UINT64_C(1) << 40 },
	{ 0, 4095 }, { 100, 100000000 }, { 0, 0 }, { UINT64_MAX, UINT64_MAX },
};

/* Reference: s is one or more decimal digits; their value, if it fits. */
static bool ref_u64(const char *s, size_t n, uint64_t *v, bool *fits)
{
	*v = 0;
	*fits = true;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (s[i] < '0' || s[i] > '9')
			return false;
		if (*v > (UINT64_MAX - d) / 10)
			*fits = false;
		*v = *v * 10 + d;
	}
	return true;
}

static bool ref_u64_in(const char *s, size_t n, uint64_t min, uint64_t max, uint64_t *v)
{
	bool fits;

	return ref_u64(s, n, v, &fits) && fits && *v >= min && *v <= max;
}

/* A refusal's message: terminated within len, naming the option, and
 * printable (the command's error is one line, whatever the value). */
static void check_msg(const char *msg, size_t len, const char *opt)
{
	size_t n = strnlen(msg, len);

	FUZZ_CHECK(n < len);
	FUZZ_CHECK(strncmp(msg, opt, n < strlen(opt) ? n : strlen(opt)) == 0);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(isprint((unsigned char)msg[i]));
}

static void fuzz_u64(const char *s, unsigned range, char *msg, size_t len)
{
	const uint64_t *r = ranges[range % (sizeof(ranges) / sizeof(ranges[0]))];
	uint64_t v = 0, want;
	bool ok = parse_str_u64("--n", s, r[0], r[1], &v, msg, len);

	FUZZ_CHECK(ok == ref_u64_in(s, strlen(s), r[0], r[1], &want));
	if (ok)
		FUZZ_CHECK(v == want);
	else
		check_msg(msg, len, "--n");
}

static void fuzz_seconds(const char *s, char *msg, size_t len)
{
	double v = 0;
	bool ok = parse_str_seconds("--seconds", s, &v, msg, len);

	if (ok)
		FUZZ_CHECK((isdigit((unsigned char)s[0]) || s[0] == '.') && isfinite(v) && v > 0 &&
			   v <= 86400);
	else
		check_msg(msg, len, "--seconds");
}

static void fuzz_frags(const char *s, char *msg, size_t len)
{
	const char *dash = strchr(s, '-');
	size_t lo_len = dash ? (size_t)(dash - s) : strlen(s);
	const char *hi = dash ? dash + 1 : s;
	unsigned min = 99, max = 99;
	uint64_t lo_v, hi_v;
	bool ok = parse_str_frags(s, &min, &max, msg, len);
	bool want = ref_u64_in(s, lo_len, 0, TXP_MAX_FRAGS, &lo_v) &&
		    ref_u64_in(hi, strlen(hi), 0, TXP_MAX_FRAGS, &hi_v) && lo_v <= hi_v;

	/* The one leeway: a MIN of 32 characters or more (leading zeros) may
	 * be refused as not N or MIN-MAX. */
	FUZZ_CHECK(ok == want || (want && dash && lo_len >= 32));
	if (ok)
		FUZZ_CHECK(min == lo_v && max == hi_v);
	else
		check_msg(msg, len, "--frags");
}

static int hex(char c)
{
	const char *digits = "0123456789abcdef";
	const char *p = c ? strchr(digits, tolower((unsigned char)c)) : NULL;

	return p ? (int)(p - digits) : -1;
}

static void fuzz_mac(const char *s, char *msg, size_t len)
{
	uint8_t mac[6] = { 0 };
	bool ok = parse_str_mac("--src-mac", s, mac, msg, len), want = strlen(s) == 17;

	for (unsigned i = 0; want && i < 6; i++) {
		int hi = hex(s[3 * i]), lo = hex(s[3 * i + 1]);

		want = hi >= 0 && lo >= 0 && (i == 5 || s[3 * i + 2] == ':');
		if (want && ok)
			FUZZ_CHECK(mac[i] == (hi << 4 | lo));
	}
	FUZZ_CHECK(ok == want);
	if (!ok)
		check_msg(msg, len, "--src-mac");
}

static void fuzz_ip(const char *s, char *msg, size_t len)
{
	char back[INET_ADDRSTRLEN];
	uint32_t ip = 0;
	bool ok = parse_str_bench_ip("--dst-ip", s, &ip, msg, len);
	struct in_addr in = { htonl(ip) };

	if (ok) {
		FUZZ_CHECK(txp_ipv4_is_bench(ip));
		FUZZ_CHECK(inet_ntop(AF_INET, &in, back, sizeof(back)));
		FUZZ_CHECK(strcmp(back, s) == 0);
	} else {
		check_msg(msg, len, "--dst-ip");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned which = (unsigned)fuzz_take(&in, 1), range = (unsigned)fuzz_take(&in, 1);
	/* Mostly the callers' size; sometimes a small one, to cut messages. */
	size_t len = range & 0x80 ? 1 + (range & 0x3f) : PARSE_MSG_LEN;
	char *s = fuzz_take_string(&in), *msg = malloc(len);

	FUZZ_CHECK(msg);
	switch (which % 5) {
	case 0: fuzz_u64(s, range, msg, len); break;
	case 1: fuzz_seconds(s, msg, len); break;
	case 2: fuzz_frags(s, msg, len); break;
	case 3: fuzz_mac(s, msg, len); break;
	case 4: fuzz_ip(s, msg, len); break;
	}
	free(msg);
	free(s);
	return 0;
}
