/*
 * fuzz_fault.c - `txpath run --fault SPEC`: txp_fault_parse
 * (src/drivers/sim/fault.c) on any string.  Properties: no crash,
 * undefined behaviour or leak; a refusal leaves a terminated message
 * about --fault; what it accepts turns at least one kind on, each with
 * one rate (a chance of at most 1, every N, or link-flap's period), not
 * both a time and a count of delay, times within an hour, a link-flap
 * down for less than its period, and the kinds not named all zero; and
 * the same spec parses the same again.
 */
#include <string.h>

#include "fuzz.h"
#include "txpath/sim.h"

#define HOUR_NS 3600000000000ull

static void check_kind(const struct txp_fault *f, enum txp_fault_kind k)
{
	static const struct txp_fault off;

	if (!f->on) {
		FUZZ_CHECK(memcmp(f, &off, sizeof(off)) == 0);
		return;
	}
	FUZZ_CHECK((f->chance != 0) + (f->every != 0) + (f->period_ns != 0) == 1);
	FUZZ_CHECK(f->chance <= UINT64_C(1) << 32);
	FUZZ_CHECK(!(f->delay_ns && f->delay_passes));
	FUZZ_CHECK(f->delay_ns <= HOUR_NS && f->period_ns <= HOUR_NS);
	FUZZ_CHECK(!f->period_ns || (k == TXP_FAULT_LINK_FLAP && f->delay_ns < f->period_ns));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	char *spec = fuzz_take_string(&in), err[256];
	struct txp_fault_cfg c, again;
	bool ok;

	memset(&c, 0, sizeof(c));
	memset(&again, 0, sizeof(again));
	memset(err, 'x', sizeof(err));
	ok = txp_fault_parse(&c, spec, err, sizeof(err));
	if (ok) {
		FUZZ_CHECK(txp_fault_any(&c));
		for (int k = 0; k < TXP_FAULT_NR; k++)
			check_kind(&c.kind[k], (enum txp_fault_kind)k);
		FUZZ_CHECK(txp_fault_parse(&again, spec, err, sizeof(err)));
		FUZZ_CHECK(memcmp(&c, &again, sizeof(c)) == 0);
	} else {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)));
		/* The library's own terms: the tool names the flag. */
		FUZZ_CHECK(strncmp(err, "--", 2) != 0);
	}
	free(spec);
	return 0;
}
