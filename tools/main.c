/*
 * main.c - the txpath command: dispatch to a subcommand.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "txpath/version.h"

#ifndef TXP_WITH_CHECK
/* `txpath check` (and `txpath demo --history`, which runs the explorer)
 * live in the check build's binary, txpath-check, next to this one: run
 * it with the same arguments. */
int exec_check_build(int argc, char **argv)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	(void)argc;
	if (n <= 0) {
		fprintf(stderr, "txpath %s: cannot find my own binary\n", argv[0]);
		return 1;
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "txpath-check");
	argv[-1] = path;
	execv(path, argv - 1);
	fprintf(stderr, "txpath %s: cannot run %s (build it with make build)\n", argv[0], path);
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
"  replay  send a pcap capture's frames as captured, from several threads\n"
"  check   explore every interleaving of the real code up to a bound\n"
"  config  how to build a driver plugin (--cflags, --libs)\n"
"\n"
"txpath <command> --help tells more; txpath --version prints the version.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "demo", cmd_demo },
	{ "bench", cmd_bench },
	{ "recv", cmd_recv },
	{ "replay", cmd_replay },
	{ "config", cmd_config },
#ifdef TXP_WITH_CHECK
	{ "check", cmd_check },
#else
	{ "check", exec_check_build },
#endif
};

static int run_command(int argc, char **argv)
{
	if (argc < 2) {
		fputs(main_help, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(main_help, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("txpath %s\n", txp_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "txpath: unknown command '%s' (see txpath --help)\n", argv[1]);
	return EXIT_USAGE;
}

int close_output(FILE *f)
{
	bool failed;

	errno = 0;
	failed = ferror(f) | (fflush(f) != 0);
	failed |= fclose(f) != 0;
	return !failed ? 0 : errno ? errno : EIO;
}

/* Why a flush of stdout failed first: stdio drops what it could not write
 * and forgets why, so the reason is kept for close_stdout(). */
static int stdout_errno;

bool flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) == 0)
		return true;
	if (!stdout_errno)
		stdout_errno = errno ? errno : EIO;
	return false;
}

/* Whatever a command printed must have reached standard output (a full
 * disk, a closed pipe): fail if any write did not. */
static int close_stdout(int status)
{
	int err = close_output(stdout);

	if (!err && !stdout_errno)
		return status;
	fprintf(stderr, "txpath: write error on standard output: %s\n",
		strerror(stdout_errno ? stdout_errno : err));
	return status ? status : 1;
}

int main(int argc, char **argv)
{
	/* Not a terminal: keep up to 64 KiB of output (any help text or
	 * report) for the final flush, where a failed write still has its
	 * errno; a buffer that fills mid-print loses it. */
	static char outbuf[1 << 16];

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	return close_stdout(run_command(argc, argv));
}
