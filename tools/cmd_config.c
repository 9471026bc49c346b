/*
 * cmd_config.c - `txpath config`: how to build a driver plugin against
 * this txpath (txpath/plugin.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char config_help[] =
"usage: txpath config --cflags | --libs | --run-cflags | --run-libs\n"
"\n"
"How to build a driver plugin for txpath run --driver-so and txpath check\n"
"--driver-so (docs/checking-your-driver.md):\n"
"\n"
"  cc -O2 $(txpath config --cflags) -o mydrv.so mydrv.c $(txpath config --libs)\n"
"\n"
"  --cflags   the include directories of txpath's headers: first the kernel's\n"
"             layout (<linux/netdevice.h>, <linux/dma-mapping.h>, <linux/io.h>,\n"
"             <net/netdev_queues.h>, ...: txpath/kernel.h), so that a driver's\n"
"             own #include lines stay as they are, then txpath/;\n"
"             position-independent code; and ThreadSanitizer's\n"
"             instrumentation, whose calls before every load and store\n"
"             txpath check serves itself (no ThreadSanitizer runs): it sees\n"
"             every plain access of the plugin under the memory model, and\n"
"             its data races; volatile accesses told apart (marked, as\n"
"             READ_ONCE's: never a data race).  In gcc's spelling, or\n"
"             clang's when the environment's CC names clang\n"
"  --libs     a shared object linked without the default libraries (so that\n"
"             gcc links no libtsan; libgcc's helpers statically): the txpath\n"
"             binary that loads it provides every txp_ symbol, the C library\n"
"             and the instrumentation's calls, the plain ones under run, the\n"
"             explorer's under check, so one build serves both\n"
"  --run-cflags, --run-libs\n"
"             the same without the instrumentation, for a second build at\n"
"             full speed for txpath run (a call per access has its cost:\n"
"             docs/checking-your-driver.md); txpath check takes it too, and\n"
"             sees only the seam's operations then, with a note\n"
"\n"
"Exit status: 0, or 2 on bad usage.\n";

/* The headers: installed beside the binary (PREFIX/bin, PREFIX/include),
 * else the source tree this binary was built from.  buf: PATH_MAX. */
static const char *include_dir(char *buf)
{
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;
	char *slash;

	if (n <= 0)
		return TXP_SOURCE_INCLUDE_DIR;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash || slash - exe > PATH_MAX - 32)
		return TXP_SOURCE_INCLUDE_DIR;
	strcpy(slash, "/../include");
	snprintf(probe, sizeof(probe), "%s/txpath/plugin.h", exe);
	if (stat(probe, &st) != 0 || !realpath(exe, buf))
		return TXP_SOURCE_INCLUDE_DIR;
	return buf;
}

/* The instrumentation's flags (CMakeLists.txt: TXP_PLAIN_FLAGS_GNU,
 * _CLANG), for the compiler the plugin is built with: clang's spelling
 * when CC names clang, else gcc's (Debian's cc). */
static const char *plain_flags(void)
{
	const char *cc = getenv("CC");

	return cc && strstr(cc, "clang") ? TXP_PLAIN_FLAGS_CLANG : TXP_PLAIN_FLAGS_GNU;
}

/* The include directories, the kernel's layout (txpath/kernel/: linux/,
 * net/) before txpath's own, and -fPIC. */
static const char *include_flags(char *dir)
{
	static char flags[2 * PATH_MAX + 64];
	const char *inc = include_dir(dir);

	snprintf(flags, sizeof(flags), "-I%s/txpath/kernel -I%s -fPIC", inc, inc);
	return flags;
}

int cmd_config(int argc, char **argv)
{
	char dir[PATH_MAX];

	if (argc != 2)
		usage_error("config", "give one of --cflags, --libs, --run-cflags, --run-libs");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(config_help, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--cflags"))
		printf("%s %s\n", include_flags(dir), plain_flags());
	else if (!strcmp(argv[1], "--libs"))
		printf("-shared -nodefaultlibs -lgcc\n");
	else if (!strcmp(argv[1], "--run-cflags"))
		printf("%s\n", include_flags(dir));
	else if (!strcmp(argv[1], "--run-libs"))
		printf("-shared\n");
	else
		usage_error("config", "unknown option '%s' (--cflags, --libs, --run-cflags or "
			    "--run-libs)", argv[1]);
	return 0;
}
