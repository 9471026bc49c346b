/*
 * main.c - the txpath command: dispatch to a subcommand.
 */
#include <string.h>

#include "cli.h"

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
