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
"usage: txpath config --cflags | --libs | --check-cflags | --check-libs\n"
"\n"
"How to build a driver plugin for txpath run --driver-so and txpath check\n"
"--driver-so (docs/checking-your-driver.md):\n"
"\n"
"  cc -O2 $(txpath config --cflags) -o mydrv.so mydrv.c $(txpath config --libs)\n"
"\n"
"  --cflags   the include directories of txpath's headers: first the kernel's\n"
"             layout (<linux/netdevice.h>, <linux/dma-mapping.h>, <linux/io.h>,\n"
"             <net/netdev_queues.h>, ...: txpath/kernel.h), so that a driver's\n"
"             own #include lines stay as they are, then txpath/; and\n"
"             position-independent code\n"
"  --libs     a shared object; it links against nothing: the txpath binary\n"
"             that loads it provides every txp_ symbol, the plain ones under\n"
"             run, the explorer's under check, so one build serves both\n"
"  --check-cflags, --check-libs\n"
"             the same for a second build, for txpath check only, that shows\n"
"             the explorer every plain load and store of the plugin (its data\n"
"             races, its plain accesses under the memory model): compiled\n"
"             with -fsanitize=thread, whose calls txpath check serves, and\n"
"             linked without the default libraries, so that gcc links no\n"
"             libtsan (the binary that loads the plugin provides libc):\n"
"\n"
"  cc -O2 $(txpath config --check-cflags) -o mydrv-check.so mydrv.c \\\n"
"      $(txpath config --check-libs)\n"
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
		usage_error("config", "give one of --cflags, --libs, --check-cflags, --check-libs");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(config_help, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--cflags"))
		printf("%s\n", include_flags(dir));
	else if (!strcmp(argv[1], "--libs"))
		printf("-shared\n");
	else if (!strcmp(argv[1], "--check-cflags"))
		printf("%s -fsanitize=thread\n", include_flags(dir));
	else if (!strcmp(argv[1], "--check-libs"))
		printf("-shared -nodefaultlibs\n");
	else
		usage_error("config", "unknown option '%s' (--cflags, --libs, --check-cflags or "
			    "--check-libs)", argv[1]);
	return 0;
}
