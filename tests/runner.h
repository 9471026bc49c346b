/*
 * runner.h - the main() of every cmocka test, so that each case can run
 * as its own process with its own timeout (libuv's runner does the same)
 * and a case that hangs fails under its own name, not its binary's.
 *
 *   test_x               runs every case in this process, as cmocka does
 *   test_x --list        prints the cases' names, one a line
 *   test_x --case NAME   runs the case NAME alone; exit 2 if there is none
 *
 * tests/CMakeLists.txt gives every name --list prints its own ctest entry
 * (tests/cases.cmake, when ctest starts), so a new cmocka_unit_test(...)
 * line is a new ctest entry without touching CMake.
 *
 * Use: int main(int argc, char **argv) { const struct CMUnitTest tests[] =
 * { ... }; return txp_test_main(argc, argv, tests); }.  Include after
 * <cmocka.h>.
 */
#ifndef TXP_TEST_RUNNER_H
#define TXP_TEST_RUNNER_H

#include <stdio.h>
#include <string.h>

/* tests is the array itself (its size is taken here), not a pointer. */
#define txp_test_main(argc, argv, tests) \
	txp__test_main((argc), (argv), (tests), sizeof(tests) / sizeof((tests)[0]))

static inline int txp__test_main(int argc, char **argv, const struct CMUnitTest *tests,
				 size_t n)
{
	const char *group = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (argc == 1)
		return _cmocka_run_group_tests(group, tests, n, NULL, NULL);
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", tests[i].name);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--case") == 0) {
		for (size_t i = 0; i < n; i++)
			if (strcmp(tests[i].name, argv[2]) == 0)
				return _cmocka_run_group_tests(group, &tests[i], 1, NULL, NULL);
		fprintf(stderr, "%s: no case named '%s' (--list names them)\n", group, argv[2]);
		return 2;
	}
	fprintf(stderr, "usage: %s [--list | --case NAME]\n", group);
	return 2;
}

#endif
