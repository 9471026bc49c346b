/*
 * cli.h - what the txpath subcommands share: option parsing with clear
 * one-line errors, and the run report.
 */
#ifndef TXP_TOOL_CLI_H
#define TXP_TOOL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "txpath/ctx.h"
#include "run/run.h"

#define EXIT_USAGE 2

int cmd_run(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_check(int argc, char **argv);	/* txpath-check only */
#ifdef TXP_WITH_CHECK
struct txp_explore_cfg;
/* cfg from txpath check's options (argv[0]: the command), as `txpath
 * check` reads them; a bad one is a usage error. */
void check_cfg_parse(int argc, char **argv, struct txp_explore_cfg *cfg);
/* `txpath demo --history` (tools/check/history.c). */
int demo_history(int argc, char **argv);
#else
/* Run the check build's binary, txpath-check, next to this one, with
 * this command and its arguments (argv[-1] must be writable, as main's
 * is); returns only if it cannot (1, with a message). */
int exec_check_build(int argc, char **argv);
#endif
int cmd_recv(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_config(int argc, char **argv);

/* Flush and close an output stream: 0 if every write to it reached the
 * file, else an errno (EIO when the failing call left none). */
int close_output(FILE *f);
/* path opened to read, without waiting for a writer: a FIFO that has
 * none reads as empty at once, where fopen() would wait for ever; a pipe
 * that has one (a shell's <(...)) is read to its end.  NULL and errno. */
FILE *open_input(const char *path);
/* Flush stdout now (a row of a long command); false if a write failed.
 * main() reports it, once, and fails: the caller just stops. */
bool flush_stdout(void);

/* Print "txpath CMD: message" on stderr and exit 2. */
_Noreturn void usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A command line being parsed: getopt_long over opts (short option: -h
 * only), with the commands' rules.  Each option may be given once: a
 * second --lock (or --json) is a usage error, never a silent override. */
#define CMDLINE_MAX_OPTS 64
struct cmdline {
	const char *cmd;		/* "run": for messages */
	const struct option *opts;
	int seen[CMDLINE_MAX_OPTS];	/* the vals of the options given so far */
	unsigned nseen;
};
void cmdline_init(struct cmdline *cl, const char *cmd, const struct option *opts);
/* The next option's val ('h' for -h), -1 at the end; an unknown option,
 * a missing value, an option given twice or an argument that is no
 * option is a usage error. */
int cmdline_next(struct cmdline *cl, int argc, char **argv);
bool cmdline_given(const struct cmdline *cl, int val);
/* How many words of a command line, from the word a, are one of these
 * long options (names without "--", NULL-terminated lists): 1 for a flag
 * or "--name=value", 2 for "--name value"; 0 for any other word. */
int option_words(const char *a, const char *const *flags, const char *const *valued);

/* Strict number parsing: the whole string, in [min, max], or usage_error. */
uint64_t parse_u64(const char *cmd, const char *opt, const char *s, uint64_t min, uint64_t max);
double parse_seconds(const char *cmd, const char *opt, const char *s);
/* A name that may not be empty (parse_str_name()): s, or usage_error. */
const char *parse_name(const char *cmd, const char *opt, const char *s, const char *what);
/* "N" or "MIN-MAX" fragments per packet. */
void parse_frags(const char *cmd, const char *s, unsigned *min, unsigned *max);
/* --qdisc NAME: the kind, or a usage error listing them. */
const struct txp_qdisc_ops *parse_qdisc(const char *cmd, const char *arg);
/* on | off: true for on, else a usage error naming opt. */
bool parse_on_off(const char *cmd, const char *opt, const char *arg);
/* The eras' names, space-separated (the tool's own buffer). */
const char *era_names(void);

/* The knobs `run` and `demo` share.  Returns true if opt was one of them.
 * Options (long only): --era --lock --runner --personality --threads
 * --packets --seconds --size --frags --ring --line-rate --batch
 * --txqueuelen --sndbuf --qdisc --driver --fault --seed --stall-seconds,
 * and the real drivers' --dev --file --xdp-mode --queue --tpacket
 * --qdisc-bypass --umem-pool --src-mac --dst-mac --src-ip --dst-ip --src-port
 * --dst-port. */
bool parse_run_knob(const struct cmdline *cl, int opt, const char *arg, struct txp_run_cfg *cfg);
/* After the last option: a knob given that cfg's driver does not use
 * (--file without --driver pcap, --personality with a real driver, ...)
 * is a usage error naming the knob and the driver; so is --defer on with
 * a qdisc that has no root lock (noqueue, nolock). */
void check_run_knobs(const struct cmdline *cl, const struct txp_run_cfg *cfg);
/* --defer on or drain (defer) with a qdisc (NULL: pfifo_fast) that has no
 * root lock for the defer list to wait on (noqueue, nolock): a usage error
 * of cmd, for run, demo and check alike. */
void check_defer(const char *cmd, const struct txp_qdisc_ops *qdisc, enum txp_defer defer);
/* --busylock on, given, with a qdisc (NULL: pfifo_fast) without a root
 * lock, the concurrent runner (nobody is "the" runner) or a defer list
 * (which replaced it): a usage error of cmd, for run and check alike.
 * An era's busylock is left off there without a word (the device's
 * rule, txp_dev_cfg.busylock). */
void check_busylock(const char *cmd, const struct txp_qdisc_ops *qdisc, enum txp_runner runner,
		    enum txp_defer defer);
/* --defer's argument, on, drain or off (else a usage error of cmd), and
 * how a report names it after the qdisc (" with defer list", or ""). */
enum txp_defer parse_defer(const char *cmd, const char *arg);
const char *defer_shown(enum txp_defer defer);
/* " with busylock" where a device of these knobs takes it, else "". */
const char *busylock_shown(bool busylock, enum txp_runner runner,
			   const struct txp_qdisc_ops *qdisc, enum txp_defer defer);
/* getopt_long entries for those knobs, ending in an all-zero entry. */
extern const struct option run_knob_options[];
/* --fault and --seed, part of RUN_KNOB_HELP. */
#define FAULT_HELP \
"  --fault SPEC            sim: inject faults; SPEC is\n" \
"                          KIND[:PARAM[,PARAM...]][,KIND...], e.g. lost-irq:1%\n" \
"                          desc-error:every=100,max=5 link-flap:every=50ms,down=5ms\n" \
"                          A kind fires on its events at a rate: P% (the chance\n" \
"                          per event; default 1%) or every=N; max=N caps it.\n" \
"    lost-irq              an interrupt never arrives; the next one retires\n" \
"                          what it left; if none comes, the run stalls\n" \
"                          (events: interrupts)\n" \
"    slow-irq              an interrupt comes late: delay=TIME (default 1ms) or\n" \
"                          passes=N completion passes (events: interrupts)\n" \
"    desc-error            the NIC fails a packet: dropped as tx-error (packets)\n" \
"    link-flap             the link goes down (events: packets sent, or\n" \
"                          every=TIME; default every=50ms) for down=TIME or\n" \
"                          down=N passes (default 5ms): the driver stops the\n" \
"                          queue, drops what its ring holds as dev-down, and\n" \
"                          wakes it when the link is back\n" \
"    alloc-fail            a packet allocation fails: the producer backs off and\n" \
"                          retries (events: allocations)\n" \
"                          TIME is 100ns, 200us, 5ms, 1s, ...\n" \
"  --seed N                sim, with --fault: the faults' seed; the same seed,\n" \
"                          the same faults at the same events (default: from\n" \
"                          the clock; printed)\n"
#define RUN_KNOB_HELP \
"  --era E                 a preset: 2.6.8 2.6.9 silence 2.6.11-rc2 2.6.11 2.6.18\n" \
"                          2.6.38 3.3 3.18 6.x (these four: 2 queues, XPS; 3.3+:\n" \
"                          BQL; 3.18+: bulk 32; 6.x: the helpers, watchdog 5 s);\n" \
"                          the lockless qdisc's: 5.1-nolock 5.13-missed\n" \
"                          5.19-barrier 6.18-draining (its qdisc kinds, below)\n" \
"  --lock core|lltx        who serialises start_xmit (overrides the era)\n" \
"  --runner concurrent|exclusive\n" \
"                          may several contexts run the qdisc at once\n" \
"                          (overrides the era)\n" \
"  --personality P         sim: its driver (overrides the era): tg3-2004\n" \
"                          tg3-silent tg3-2005 e1000-2004 locked rc2; for tests:\n" \
"                          rc2-naive (needs --validate) lost-wakeup recheck-nomb\n" \
"                          veth-6.16 veth\n" \
"  --threads N             producer threads (default: one per CPU)\n" \
"  --packets N             packets in all (default 1000000)\n" \
"  --seconds S             run for S seconds instead\n" \
"  --size BYTES            packet size, 60..65535 (default 64): on the real\n" \
"                          drivers the frame's length\n" \
"  --frags MIN-MAX         sim, real drivers: fragments per packet, 0..18 (default 0)\n" \
"  --ring N                sim and the real drivers: TX ring descriptors\n" \
"                          (default 512)\n" \
"  --line-rate PPS         sim: packets per second the NIC sends, 0 = unlimited\n" \
"  --batch N               sim: packets retired per completion pass (default 32)\n" \
"  --txqueuelen N          qdisc limit per band (default 1000)\n" \
"  --sndbuf N              packets a producer may have in flight, 0 = no limit\n" \
"                          (default 256): beyond it the producer waits\n" \
"  --burst N               packets a producer hands over per call, 1..256\n" \
"                          (default 32; 1: dev_queue_xmit, one at a time)\n" \
"  --bulk N                packets qdisc_restart() sends per batch, with the\n" \
"                          more-follow hint, 1..64 (default 32; 1: as 2.6.x)\n" \
"  --qdisc Q               pfifo_fast (default) or noqueue (software devices:\n" \
"                          start_xmit directly), or pfifo_fast without the root\n" \
"                          lock (TCQ_F_NOLOCK: multi-producer rings, one runner\n" \
"                          by its seqlock), as of a time: nolock-5.1 (trylock\n" \
"                          only: a packet can be stranded), nolock-5.13 (the\n" \
"                          MISSED bit), nolock-5.19 (2022's barriers), nolock\n" \
"                          (6.18: DRAINING, quota, the empty-qdisc bypass)\n" \
"  --defer on|drain|off    a root-locked qdisc's defer list (6.18): only the\n" \
"                          first waiting producer takes the root lock, the\n" \
"                          others push onto a lock-free list and return\n" \
"                          (default off; pfifo_fast only: an error with\n" \
"                          nolock or noqueue, which have no root lock);\n" \
"                          drain: txpath's own, not Linux's: the producer\n" \
"                          that takes the list on keeps taking what is pushed\n" \
"                          until it finds the list empty, so the others only\n" \
"                          push (one compare-and-swap) and one sends for all;\n" \
"                          one that finds it idle and the root lock free\n" \
"                          goes as without a list\n" \
"  --busylock on|off       the qdisc busylock (Linux 2.6.36 to 6.17; default:\n" \
"                          the era's: on from 2.6.38 to 6.x): a producer that\n" \
"                          finds the queue being run takes a second lock\n" \
"                          before the root lock, so that the others wait there\n" \
"                          and the runner gets the root lock back sooner;\n" \
"                          pfifo_fast, --runner exclusive, no --defer only\n" \
"  --queues N              transmit queues, each with its own qdisc, locks, ring\n" \
"                          and interrupt, 1..64 (default 1); afxdp: an XSK\n" \
"                          socket per interface queue from --queue; afpacket: a\n" \
"                          socket each; tap: a descriptor each (multi_queue);\n" \
"                          pcap: 1\n" \
"  --xps off|Q[,Q...]      producer i sends on queue Q number i mod the\n" \
"                          list's length (default: queue i mod --queues); off:\n" \
"                          by the flow hash\n" \
"  --bql on|off            byte queue limits (Linux 3.3): the queue stops at a\n" \
"                          limit of bytes in flight that adapts to the link; sim:\n" \
"                          needs a personality that reports bytes (modern); a\n" \
"                          plugin that reports none is noted after the run\n" \
"  --watchdog-ms N         sim, real drivers: the TX watchdog: a queue stopped\n" \
"                          for N ms is reported (NETDEV WATCHDOG) and its ring\n" \
"                          reset, what it had not sent dropped as tx-timeout\n" \
"                          (default 0: off)\n" \
"  --driver NAME           sim (default): the simulated NIC; null: completes\n" \
"                          every packet at once; real drivers: afpacket afxdp\n" \
"                          tap (--dev IFNAME), pcap (--file PATH)\n" \
"  --dev IFNAME            afpacket, afxdp: the interface; tap: the TAP device\n" \
"  --file PATH             pcap: the file to write; -: standard output (the\n" \
"                          report then goes to standard error)\n" \
"  --xdp-mode copy|zerocopy  afxdp: the bind mode (default copy)\n" \
"  --queue N               afxdp: the interface's queue (default 0)\n" \
"  --tpacket 2|3           afpacket: TPACKET_V2 (default) or TPACKET_V3\n" \
"  --qdisc-bypass          afpacket: PACKET_QDISC_BYPASS, skip the kernel's qdisc\n" \
"  --umem-pool             afxdp: frames written straight into UMEM frames, posted\n" \
"                          without a copy\n" \
"  --src-mac, --dst-mac MAC  real drivers: the frame's MACs (default: the\n" \
"                          interface's, a source unicast only; broadcast)\n" \
"  --src-ip, --dst-ip A    real drivers: in 198.18.0.0/15 (default 198.18.0.1,\n" \
"                          198.18.0.2)\n" \
"  --src-port, --dst-port N  real drivers: UDP ports (default 9, 9)\n" \
"  --validate              run the lock validator: recursion, irq state, lock\n" \
"                          order, frees with interrupts off, interrupts on under\n" \
"                          an irq-safe lock (slower: every lock is checked)\n" \
"  --stall-seconds S       nothing moved for S seconds: report the stuck queue,\n" \
"                          drop the rest as dev-down, exit 1 (default 5; time\n" \
"                          the process was stopped, SIGSTOP, not counted)\n" \
FAULT_HELP \
"Each option at most once: a repeat is an error, not an override (but what\n" \
"an era sets, --lock, --runner, --personality, --qdisc, --queues, --bql,\n" \
"--bulk and --watchdog-ms, given on its own overrides --era, before or\n" \
"after it).  A knob marked for some drivers is an error with any other.\n"

/* A one-line judgement of a run, in the words of the seeds. */
const char *run_verdict(const struct txp_run_cfg *cfg, const struct txp_run_result *r,
			char *buf, size_t len);
/* False if the run broke the accounting: stalled, lost, duplicated. */
bool run_ok(const struct txp_run_result *r);
/* Did the run stall only as its qdisc's history lets it (5.1's stuck
 * packet; 5.13's missing barrier, which x86's store buffer reaches too),
 * every packet accounted for?  The demo shows that as the era, not as a
 * failure; txpath run still exits 1 on it. */
bool run_stall_is_the_era(const struct txp_run_cfg *cfg, const struct txp_run_result *r);

/* --driver-so PATH and --driver-arg NAME=VALUE[,NAME=VALUE...], as given
 * to run, check and bench: the plugin driver (txpath/plugin.h). */
struct driver_so {
	const char *path, *args;
};
enum { OPT_DRIVER_SO = 3000, OPT_DRIVER_ARG };
#define DRIVER_SO_OPTIONS						\
	{ "driver-so", required_argument, NULL, OPT_DRIVER_SO },	\
	{ "driver-arg", required_argument, NULL, OPT_DRIVER_ARG }
/* If c is one of them, its value kept in d: true. */
bool driver_so_option(struct driver_so *d, int c, const char *arg);
/* The plugin driver d names, NULL if none; a usage error of cmd when it
 * does not load, or --driver-arg came without --driver-so. */
const struct txp_run_driver *driver_so_load(const char *cmd, const struct driver_so *d);
/* For run: the plugin, if any, is cfg's driver, with its lock mode and
 * ring unless --lock or --ring were given; with --driver too, a usage
 * error. */
void driver_so_use(const struct cmdline *cl, struct txp_run_cfg *cfg, const struct driver_so *d);
#define DRIVER_SO_HELP \
"  --driver-so PATH        a driver of one's own, a shared object built against\n" \
"                          txpath/plugin.h (cc -shared -fPIC $(txpath config\n" \
"                          --cflags)); its lock mode and ring are its own\n" \
"  --driver-arg K=V[,K=V]  its knobs\n"
void report_json(struct json *j, const struct txp_run_cfg *cfg, const struct txp_run_result *r);
void report_text(FILE *f, const struct txp_run_cfg *cfg, const struct txp_run_result *r);
/* A real device that died mid-run (its link went, or its file took no
 * more) says so in one line on stderr, "txpath CMD: ..."; true if it did. */
bool report_dev_died(const char *cmd, const struct txp_run_cfg *cfg,
		     const struct txp_run_result *r);
/* A wedged run (txp_run_result.wedged), reported: say so on stderr and
 * end the process with status at once, its threads still running (no
 * atexit work under them). */
_Noreturn void report_wedged_exit(const char *cmd, const struct txp_run_result *r, int status);

#endif
