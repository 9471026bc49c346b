/*
 * fuzz_replay.c - `txpath check --replay`: txp_explore_schedule_parse
 * (src/check/schedule.c) on any string.  Properties: no crash, undefined
 * behaviour, leak or allocation beyond the string's length (libFuzzer's
 * malloc limit); what it accepts is exactly what txp_explore_schedule_format
 * writes for the choices it read (indices increasing, contexts in range);
 * what it refuses gets -EINVAL (or -ENOMEM) and one terminated line.
 * And choices made from the input (indices increasing), formatted, parse
 * back to themselves.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "check/explore.h"

static void parse_any(const char *s, size_t errlen)
{
	struct txp_explore_choice *c = NULL;
	char *err = malloc(errlen), *back;
	unsigned n = 99;
	int rc;

	FUZZ_CHECK(err);
	rc = txp_explore_schedule_parse(s, &c, &n, err, errlen);
	if (rc == 0) {
		for (unsigned i = 0; i < n; i++)
			FUZZ_CHECK(c[i].ctx < TXP_EXPLORE_MAX_CTX && (!i || c[i].index > c[i - 1].index));
		back = txp_explore_schedule_format(c, n);
		FUZZ_CHECK(back && strcmp(back, s) == 0);
		free(back);
	} else {
		FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM);
		FUZZ_CHECK(!c && n == 0);
		FUZZ_CHECK(memchr(err, '\0', errlen) && !strchr(err, '\n'));
	}
	free(c);
	free(err);
}

/* Choices from the input: index steps of 1..256, any context, flushes. */
static void format_and_parse(struct fuzz_in *in)
{
	struct txp_explore_choice want[64], *got = NULL;
	unsigned n = (unsigned)fuzz_take(in, 1) % 64, got_n = 0;
	uint64_t index = fuzz_take(in, 4);
	char err[128], *s;

	for (unsigned i = 0; i < n; i++) {
		unsigned b = (unsigned)fuzz_take(in, 1);

		if (index > UINT32_MAX) {
			n = i;
			break;
		}
		want[i].index = (uint32_t)index;
		want[i].ctx = (uint8_t)(b % TXP_EXPLORE_MAX_CTX);
		want[i].flush = b & 0x80;
		index += 1 + fuzz_take(in, 1);
	}
	s = txp_explore_schedule_format(want, n);
	FUZZ_CHECK(s);
	FUZZ_CHECK(txp_explore_schedule_parse(s, &got, &got_n, err, sizeof(err)) == 0);
	FUZZ_CHECK(got_n == n);
	for (unsigned i = 0; i < n; i++)
		FUZZ_CHECK(got[i].index == want[i].index && got[i].ctx == want[i].ctx &&
			   got[i].flush == want[i].flush);
	free(got);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	char *s;

	/* The message buffer: mostly a caller's size, sometimes tiny. */
	parse_any((s = fuzz_take_string(&(struct fuzz_in){ data, size })), size && data[0] & 1 ? 8 : 256);
	free(s);
	format_and_parse(&in);
	return 0;
}
