/*
 * test_dma.c - the check build's record of a plugin's DMA mappings
 * (src/check/dma.c): each misuse named, the first one kept, a clean
 * life judged clean.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/testutil.h"
#include "check/dma.h"

static unsigned char buf[256];
#define A ((uint64_t)(uintptr_t)buf)

/* The verdict's kind, "" when there is none; its detail into detail. */
static const char *verdict(char *detail, size_t len)
{
	const char *kind = NULL;

	return check_dma_verdict(&kind, detail, len) ? kind : "";
}

/* Mapped, read by the NIC (whole or in part), unmapped: clean. */
static void test_clean(void **state)
{
	char d[300];

	(void)state;
	check_dma_begin();
	check_dma_map(A, 64, "xmit");
	check_dma_map(A + 64, 32, "xmit");
	check_dma_read(A, 64, 0);
	check_dma_read(A + 64 + 8, 24, 1);
	check_dma_unmap(A, 64, "poll");
	check_dma_unmap(A + 64, 32, "poll");
	assert_string_equal(verdict(d, sizeof(d)), "");
}

/* The NIC reads what was unmapped, never mapped, or past a mapping. */
static void test_use_after_unmap(void **state)
{
	char d[300];

	(void)state;
	check_dma_begin();
	check_dma_map(A, 64, "xmit");
	check_dma_unmap(A, 64, "early");
	check_dma_read(A, 64, 3);
	assert_string_equal(verdict(d, sizeof(d)), "dma-use-after-unmap");
	assert_non_null(strstr(d, "descriptor 3, unmapped in early"));

	check_dma_begin();
	check_dma_read(A, 16, 0);
	assert_string_equal(verdict(d, sizeof(d)), "dma-use-after-unmap");
	assert_non_null(strstr(d, "never mapped"));

	check_dma_begin();
	check_dma_map(A, 64, "xmit");
	check_dma_read(A, 65, 1);
	check_dma_unmap(A, 64, "poll");
	assert_string_equal(verdict(d, sizeof(d)), "dma-use-after-unmap");
	assert_non_null(strstr(d, "past the 64 bytes mapped in xmit"));
}

/* Unmapped twice, or unmapped without a map: the first misuse is kept
 * over what follows (a mapping left). */
static void test_double_unmap(void **state)
{
	char d[300];

	(void)state;
	check_dma_begin();
	check_dma_map(A, 64, "xmit");
	check_dma_unmap(A, 64, "poll");
	check_dma_unmap(A, 64, "again");
	check_dma_map(A + 64, 8, "left");
	assert_string_equal(verdict(d, sizeof(d)), "dma-double-unmap");
	assert_non_null(strstr(d, "again: a mapping of 64 bytes unmapped again, already unmapped in poll"));

	check_dma_begin();
	check_dma_unmap(A, 8, "stray");
	assert_string_equal(verdict(d, sizeof(d)), "dma-double-unmap");
	assert_non_null(strstr(d, "never mapped"));
}

/* A mapping still there when the device is down; a new execution
 * forgets the last one's. */
static void test_never_unmapped(void **state)
{
	char d[300];

	(void)state;
	check_dma_begin();
	check_dma_map(A, 64, "xmit");
	check_dma_map(A + 64, 16, "frag");
	check_dma_unmap(A, 64, "poll");
	assert_string_equal(verdict(d, sizeof(d)), "dma-never-unmapped");
	assert_non_null(strstr(d, "16 bytes mapped in frag"));
	check_dma_begin();
	assert_string_equal(verdict(d, sizeof(d)), "");
}

/* More mappings over an execution than the table holds at once: the
 * unmapped ones' slots are reused, nothing is made up. */
static void test_many(void **state)
{
	char d[300];

	(void)state;
	check_dma_begin();
	for (unsigned i = 0; i < 5000; i++) {
		check_dma_map(A + i % 200, 8, "xmit");
		check_dma_read(A + i % 200, 8, i);
		check_dma_unmap(A + i % 200, 8, "poll");
	}
	assert_string_equal(verdict(d, sizeof(d)), "");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_use_after_unmap),
		cmocka_unit_test(test_double_unmap),
		cmocka_unit_test(test_never_unmapped),
		cmocka_unit_test(test_many),
	};

	return txp_test_main(argc, argv, tests);
}
