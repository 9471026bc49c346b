/*
 * main.c - the txpath command: dispatch to a subcommand.
 */
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef TXP_WITH_CHECK
/* `txpath check` lives in the check build's binary, txpath-check, next
 * to this one: run it with the same arguments. */
static int cmd_check_exec(int argc, char **argv)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	(void)argc;
	if (n <= 0) {
		fprintf(stderr, "txpath check: cannot find my own binary\n");
		return 1;
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "txpath-check");
	argv[-1] = path;
	execv(path, argv - 1);
	fprintf(stderr, "txpath check: cannot run %s (build it with make build)\n", path);
	return 1;
}
#endif

static const char main_help[] =
"usage: txpath <command> [options]\n"
"\n"
"The Linux transmit path of 2.6.9-2.6.18, rebuilt in user space: the qdisc,\n"
"qdisc_restart, the xmit lock, NETIF_F_LLTX and the race it opened.\n"
"\n"
"commands:\n"
"  run     push packets from many threads through one device\n"
"  demo    the LLTX story in one table: each era, the same workload\n"
"  bench   txpath against a mutex and a lock-free ring: Mpps, ratios, a chart\n"
"  recv    count txpath's frames on an interface: loss, duplicates, order\n"
"  check   explore every interleaving of the real code up to a bound\n"
"\n"
"txpath <command> --help tells more.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "demo", cmd_demo },
	{ "bench", cmd_bench },
	{ "recv", cmd_recv },
#ifdef TXP_WITH_CHECK
	{ "check", cmd_check },
#else
	{ "check", cmd_check_exec },
#endif
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(main_help, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(main_help, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "txpath: unknown command '%s' (see txpath --help)\n", argv[1]);
	return EXIT_USAGE;
}
