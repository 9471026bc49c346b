/*
 * test_parse.c - the command line's value parsers (tools/parse.c, and the
 * library's txp_parse_mac under --src-mac/--dst-mac): what they accept,
 * and what fuzz_opts found they wrongly accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parse.h"
#include "testutil.h"

static char msg[PARSE_MSG_LEN];

static void assert_u64(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
	uint64_t v = 0;

	assert_true(parse_str_u64("--n", s, min, max, &v, msg, sizeof(msg)));
	assert_int_equal(v, want);
}

static void assert_u64_refused(const char *s, uint64_t max, const char *words)
{
	uint64_t v = 7;

	assert_false(parse_str_u64("--n", s, 0, max, &v, msg, sizeof(msg)));
	assert_non_null(strstr(msg, words));
	assert_int_equal(v, 7);
}

static void test_u64_accepts_whole_numbers(void **state)
{
	(void)state;
	assert_u64("0", 0, 10, 0);
	assert_u64("007", 0, 10, 7);
	assert_u64("65535", 1, 65535, 65535);
	assert_u64("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	assert_u64_refused("18446744073709551616", UINT64_MAX, "wants a whole number");
	assert_u64_refused("11", 10, "--n must be 0..10, got 11");
	assert_u64_refused("", 10, "--n wants a whole number, got ''");
	assert_u64_refused("1 ", 10, "wants a whole number");
}

/* Found by fuzz_opts (corpus/opts/regress-u64-vtab): strtoull() skips any
 * white space, so "\v9" was 9, and then takes a sign, so "\t-5" was
 * 2^64 - 5 ("--seed '\t-1'" a seed of 2^64 - 1; "--packets '\t-5'"
 * "must be 1..2^40, got 18446744073709551611"). */
static void test_u64_refuses_white_space_and_signs(void **state)
{
	static const char *const bad[] = {
		" 5", "\t5", "\n5", "\v9", "\f5", "\r5", "\t-5", "\n+5", "-5", "+5",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_u64_refused(bad[i], UINT64_MAX, "wants a whole number");
}

static void assert_seconds(const char *s, double want)
{
	double v = 0;

	assert_true(parse_str_seconds("--seconds", s, &v, msg, sizeof(msg)));
	assert_true(v == want);
}

static void assert_seconds_refused(const char *s, const char *words)
{
	double v = 7;

	assert_false(parse_str_seconds("--seconds", s, &v, msg, sizeof(msg)));
	assert_non_null(strstr(msg, words));
	assert_true(v == 7);
}

static void test_seconds_accepts_numbers(void **state)
{
	(void)state;
	assert_seconds("0.5", 0.5);
	assert_seconds(".25", 0.25);
	assert_seconds("86400", 86400);
	assert_seconds("1e3", 1000);
	assert_seconds_refused("0", "more than 0 and at most 86400, got '0'");
	assert_seconds_refused("86401", "more than 0 and at most 86400");
	assert_seconds_refused("nan", "wants a number of seconds");
	assert_seconds_refused("1e-400", "wants a number of seconds");
	assert_seconds_refused("", "wants a number of seconds, got ''");
}

/* Found by fuzz_opts (corpus/opts/regress-seconds-space): strtod() skips
 * leading white space and takes a sign, so --seconds ' 4445' ran while
 * --packets ' 5' was refused. */
static void test_seconds_refuses_white_space_and_signs(void **state)
{
	static const char *const bad[] = { " 4445", "\t1", "\n0.5", "+1", "\t+1", "-1" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_seconds_refused(bad[i], "--seconds");
	assert_seconds_refused(" 1", "wants a number of seconds");
}

static void test_mac_accepts_six_hex_pairs(void **state)
{
	static const uint8_t want[6] = { 0xff, 0xff, 0xab, 0x00, 0x09, 0x0a };
	uint8_t mac[6] = { 0 };

	(void)state;
	assert_true(parse_str_mac("--src-mac", "FF:ff:aB:00:09:0a", mac, msg, sizeof(msg)));
	assert_memory_equal(mac, want, 6);
}

/* Found by fuzz_opts (corpus/opts/regress-mac-sign): sscanf's %2x took a
 * sign or white space in a pair, so "1e:ee:1e:ee:ee:-2" was
 * 1e:ee:1e:ee:ee:fe and "-1:-1:-1:-1:-1:-1" the broadcast address. */
static void test_mac_refuses_anything_else(void **state)
{
	static const char *const bad[] = {
		"1e:ee:1e:ee:ee:-2", "-1:-1:-1:-1:-1:-1", "+2:+0:+0:+0:+0:+1", " 2: 0: 0: 0: 0: 1",
		"02:00:00:00:00:0", "02:00:00:00:00:001", "02:00:00:00:00:01:", "02-00-00-00-00-01",
		"0x:00:00:00:00:01", "02:00:00:00:00:0g", "", "02:00:00:00:00",
	};
	static const uint8_t untouched[6] = { 1, 2, 3, 4, 5, 6 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t mac[6] = { 1, 2, 3, 4, 5, 6 };

		assert_false(parse_str_mac("--dst-mac", bad[i], mac, msg, sizeof(msg)));
		assert_non_null(strstr(msg, "--dst-mac wants a MAC address like 02:00:00:00:00:01"));
		assert_memory_equal(mac, untouched, 6);
	}
}

/* A source MAC is unicast: the group bit set (a multicast or the
 * broadcast address) is refused, naming it, and mac is left as it was;
 * a destination may be either. */
static void test_src_mac_is_unicast(void **state)
{
	static const uint8_t unicast[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	uint8_t mac[6] = { 0 };

	(void)state;
	assert_true(parse_str_src_mac("--src-mac", "02:00:00:00:00:01", mac, msg, sizeof(msg)));
	assert_memory_equal(mac, unicast, 6);
	assert_false(parse_str_src_mac("--src-mac", "01:00:5e:00:00:01", mac, msg, sizeof(msg)));
	assert_string_equal(msg, "--src-mac 01:00:5e:00:00:01 is a multicast address: a frame's "
				 "source must be unicast");
	assert_memory_equal(mac, unicast, 6);
	assert_false(parse_str_src_mac("--src-mac", "ff:ff:ff:ff:ff:ff", mac, msg, sizeof(msg)));
	assert_false(parse_str_src_mac("--src-mac", "02:00", mac, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "wants a MAC address"));
	assert_true(parse_str_mac("--dst-mac", "01:00:5e:00:00:01", mac, msg, sizeof(msg)));
}

/* A name may not be empty; anything else is the drivers' to judge. */
static void test_name_not_empty(void **state)
{
	(void)state;
	assert_false(parse_str_name("--dev", "", "an interface name", msg, sizeof(msg)));
	assert_string_equal(msg, "--dev needs an interface name, got ''");
	assert_true(parse_str_name("--dev", "veth0", "an interface name", msg, sizeof(msg)));
	assert_true(parse_str_name("--file", "-", "a path", msg, sizeof(msg)));
}

/* Found by fuzz_opts once it checked that messages are printable
 * (corpus/opts/regress-u64-vtab, regress-message-newline): a value's
 * newline went into the message, so the error was two lines. */
static void test_message_is_one_line(void **state)
{
	uint8_t mac[6];
	uint32_t ip;
	uint64_t v;

	(void)state;
	assert_false(parse_str_u64("--packets", "\n2000", 1, 10, &v, msg, sizeof(msg)));
	assert_string_equal(msg, "--packets wants a whole number, got '?2000'");
	assert_false(parse_str_mac("--src-mac", "02:00\n:00:00:01", mac, msg, sizeof(msg)));
	assert_null(strchr(msg, '\n'));
	assert_false(parse_str_bench_ip("--src-ip", "\033[2J", &ip, msg, sizeof(msg)));
	assert_string_equal(msg, "--src-ip wants an IPv4 address, got '?[2J'");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_accepts_whole_numbers),
		cmocka_unit_test(test_u64_refuses_white_space_and_signs),
		cmocka_unit_test(test_seconds_accepts_numbers),
		cmocka_unit_test(test_seconds_refuses_white_space_and_signs),
		cmocka_unit_test(test_mac_accepts_six_hex_pairs),
		cmocka_unit_test(test_mac_refuses_anything_else),
		cmocka_unit_test(test_src_mac_is_unicast),
		cmocka_unit_test(test_name_not_empty),
		cmocka_unit_test(test_message_is_one_line),
	};

	return txp_test_main(argc, argv, tests);
}
