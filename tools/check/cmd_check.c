/*
 * cmd_check.c - `txpath check`: the schedule explorer on the real code.
 * Built only into txpath-check, the binary of the check build.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../cli.h"
#include "../signals.h"
#include "plain_points.h"
#include "shard.h"
#include "txpath/version.h"
#include "txpath/validator.h"
#include "check/explore.h"
#include "txpath/plugin.h"

static const char check_help[] =
"usage: txpath check [options]\n"
"\n"
"Runs the real transmit path, built so that every operation of its\n"
"concurrency seam (locks, atomics, fences, thread start and exit,\n"
"\"interrupts\" off and on) is a scheduling point, under a deterministic\n"
"scheduler: a small scenario, one interleaving at a time.  Every schedule\n"
"is checked for: bug-log (a driver logged BUG); each packet followed from\n"
"its allocation to its one free: lost (never freed, or freed with nothing\n"
"counting it transmitted or dropped), duplicated (held twice: sent twice,\n"
"or freed again at tear-down), double-completion (freed twice); deadlock,\n"
"stall (packets left in the qdisc or the ring, no context left to move\n"
"them: a lost wakeup),\n"
"validator (a lock-validator report), livelock (a step limit), counter (a\n"
"single-writer counter written by two contexts), data-race (two accesses of\n"
"two contexts to the same bytes, one a write, one plain, not ordered by\n"
"happens-before: the check build sees every plain load and store of the\n"
"library, and of a plugin built with txpath config --cflags; a plain\n"
"access is no scheduling point, and reads its context's own buffered\n"
"store; an execution that touches more than the detector keeps, 4096\n"
"words, is warned of).  Whether start_xmit ever\n"
"ran on a stopped queue (the LLTX race itself, harmless under the 2005\n"
"rule) is reported as reachable or not; the explorer also watches the\n"
"stopped flag itself, and a call it saw run on a stopped queue that the\n"
"core did not count is xmit-on-stopped (sc only: under tso the count may\n"
"lag the flag); an era that claims the race impossible (2.6.8, 2.6.11-rc2,\n"
"2.6.18 and the later ones, unchanged by --lock, --runner, --personality or\n"
"--qdisc) reaching it is claim.  With --watchdog, a reset of a queue\n"
"stopped for less than the timeout is false-timeout.  The promises of the\n"
"path: reordered (a flow's packets reached the wire out of order, where\n"
"the device promises order: one runner per queue, or no qdisc; not any\n"
"number of runners, 2.6.8-2.6.17, whose requeue lets a later packet by);\n"
"unjustified-drop (a drop whose reason does not hold when it is counted:\n"
"dead-loop by a context that does not hold the queue's xmit lock,\n"
"qdisc-limit below the limit, virtual-busy with a qdisc, dev-down while\n"
"up, tx-timeout outside tx_timeout; driver and tx-error are the driver's\n"
"word); no-doorbell (the simulated NIC sends only what its doorbell\n"
"announced: a context left the driver after a packet with xmit_more and\n"
"none followed, or a packet without it left descriptors unannounced).\n"
"On the first violation the schedule is drawn as the 2004 email draws\n"
"it, with a string that --replay runs again exactly.\n"
"\n"
"The scenario:\n"
"  --era E                 2.6.8 2.6.9 silence 2.6.11-rc2 2.6.11 2.6.18 2.6.38\n"
"                          3.3 3.18 6.x; the lockless qdisc's: 5.1-nolock (a\n"
"                          stall under sc), 5.13-missed (a stall under tso\n"
"                          only), 5.19-barrier, 6.18-draining (proved)\n"
"  --lock core|lltx  --runner concurrent|exclusive  --personality P\n"
"                          override the era; personalities: tg3-2004 tg3-silent\n"
"                          tg3-2005 e1000-2004 locked locked-bql rc2 rc2-naive\n"
"                          lost-wakeup recheck-nomb modern modern-nomb\n"
"                          modern-2023 veth-6.16 veth\n"
"  --driver-so PATH        check a driver of one's own instead of a personality:\n"
"                          a shared object built against txpath/plugin.h; its\n"
"                          lock mode and ring are its own (docs/checking-your-\n"
"                          driver.md); a driver that crashes, or calls exit(),\n"
"                          is reported with the schedule that led there (exit 1)\n"
"  --driver-arg K=V[,K=V]  its knobs\n"
"  --driver sim|ring       sim: the simulated NIC (default); ring: the ring that\n"
"                          afxdp, afpacket, tap and pcap share\n"
"                          (src/drivers/common/ring.c: start_xmit, its LLTX lock\n"
"                          and Miller's rule, its stop and wake helpers, its\n"
"                          reaper), run as afxdp runs it, against a modelled\n"
"                          kernel endpoint: a TX ring the kernel consumes and a\n"
"                          completion ring it fills, the kernel a context of\n"
"                          its own per queue (\"kernel\") that sends each\n"
"                          frame, once kicked, to a wire the oracles read;\n"
"                          ring 2 by default; no --era nor --personality\n"
"  --qdisc Q               the queue (default: the era's, else pfifo_fast);\n"
"                          noqueue: producers call start_xmit directly,\n"
"                          whatever the runner; nolock-5.1 nolock-5.13\n"
"                          nolock-5.19 nolock: pfifo_fast without the root\n"
"                          lock, one runner by its seqlock (see txpath run)\n"
"  --defer on|drain|off    a root-locked qdisc's defer list (6.18; default off;\n"
"                          an error with noqueue or nolock: no root lock);\n"
"                          drain: txpath's own drainer (see txpath run)\n"
"  --busylock on|off       the qdisc busylock (default: the era's, on from\n"
"                          2.6.38 to 6.x, else off; see txpath run): a lock\n"
"                          of the seam, explored and validated as the others\n"
"  --pools on|off          each producer's packets from a pool of its own\n"
"                          (txp_pkt_pool), freed by whichever context ends\n"
"                          them: the pools' return stacks explored, and every\n"
"                          packet home at the end (default on; off: the\n"
"                          explorer's own packets, about 7 % fewer schedules)\n"
"  --plain-points WHERE[,WHERE]\n"
"                          the plain loads and stores of this code are\n"
"                          scheduling points too (else only the seam's\n"
"                          operations are, and a plain access is seen by the\n"
"                          memory model and the data-race detector): driver\n"
"                          (the --driver-so plugin's, built with txpath config\n"
"                          --cflags), or a source file by the end of its\n"
"                          path (ring.c, common/ring.c; a header: its inline\n"
"                          code), from the debug information; more schedules\n"
"  --producers N           producer contexts (default 2)\n"
"  --packets N             packets each (default 2)\n"
"  --ring N                descriptors (default: the smallest that fits one\n"
"                          maximal packet above the stop reserve)\n"
"  --frags MIN-MAX         fragments per packet (default 0)\n"
"  --batch N               packets the completion retires per pass (default 32)\n"
"  --queues N              transmit queues, 1..4, each with its ring and its\n"
"                          completion context (default: the era's, else 1);\n"
"                          producer i sends on queue i mod N; not with\n"
"                          --driver-so (a plugin drives one queue)\n"
"  --bql on|off            byte queue limits (default: the era's, else off)\n"
"  --bulk N                packets the queue hands the driver per xmit lock,\n"
"                          each but the last with xmit_more, and each\n"
"                          producer's bursts (default 1, as 2.6; more\n"
"                          explores the batch path: bypass batches, a stop\n"
"                          found mid-batch, the rest requeued)\n"
"  --send queue|try|mixed  how each producer hands over its bursts: queue,\n"
"                          txp_xmit_burst (default); try, txp_xmit_burst_try,\n"
"                          what it leaves then by txp_xmit_burst; mixed, the\n"
"                          two by turns, the first burst queued (a flow sent\n"
"                          both ways must still reach the wire in order)\n"
"  --watchdog              one more context: the TX watchdog's timer, expiring\n"
"                          once anywhere in the schedule (watchdog_timeo 1 ms;\n"
"                          the driver's tx_timeout resets the queue).  Time\n"
"                          is the explorer's clock: the device has been idle\n"
"                          10 ms when the contexts start, and the clock stands\n"
"                          still while they run, so a stop made in the\n"
"                          scenario has lasted 0 ms when the watchdog looks:\n"
"                          a reset then is false-timeout (the false NETDEV\n"
"                          WATCHDOG of the stack before Linux's 2024 fix:\n"
"                          --personality modern-2023).  A queue stopped\n"
"                          longer than the timeout is not representable\n"
"  --memory-model sc|tso|arm\n"
"                          sc (default): every store is seen at once; tso:\n"
"                          stores wait in a per-context buffer until a fence,\n"
"                          a read-modify-write, or the explorer, flushes them\n"
"                          oldest first; arm: weaker still (below)\n"
"The strategy (one of):\n"
"  --bound K               every schedule with at most K preemptions,\n"
"                          iterative context bounding (default, K = 2)\n"
"  --reduce                with --bound: a state already explored in full\n"
"                          is not explored again.  A state is named by the\n"
"                          execution's trace so far (which steps of which\n"
"                          contexts, in which order where two touch one\n"
"                          location of the seam and one writes it; under arm\n"
"                          also which write each load read, which store\n"
"                          landed, and the model's state: what each context\n"
"                          may still read, its floor, its buffered stores;\n"
"                          a fingerprint of 112 bits); met again with no more\n"
"                          preemptions left and the same context running, or\n"
"                          one fewer, it is skipped, and so is a choice whose\n"
"                          step is known to lead there (taken from a branch\n"
"                          before, nothing since writing what it touched;\n"
"                          not under arm).\n"
"                          The verdicts are those of the full search\n"
"                          at the same bound, for code whose shared state\n"
"                          goes through the seam (a race on a plain field is\n"
"                          invisible to both).  Producers that differ in\n"
"                          nothing but their ids (one queue, one fragment\n"
"                          count, the simulated NIC or --driver ring) are\n"
"                          interchangeable (not under arm): a\n"
"                          state and its images under their permutations (2\n"
"                          to 4 producers) are one state.  Should a context\n"
"                          starve and be switched to unchosen (a fair switch),\n"
"                          the search starts again without the reduction, and\n"
"                          says so.\n"
"  --reduce-without PARTS  leave parts of the reduction out, to compare:\n"
"                          asleep (run every choice), symmetry (producers\n"
"                          told apart), comma-separated\n"
"  --pct D                 probabilistic concurrency testing, its depth D\n"
"                          counted in preemptions as --bound counts them: a\n"
"                          schedule runs each context on while it can, is\n"
"                          preempted at D steps drawn at random (for a context\n"
"                          drawn at random), and draws who runs wherever the\n"
"                          running context cannot go on; so a bug --bound K\n"
"                          finds is within reach of --pct K (the 2.6.9 bug,\n"
"                          1 preemption: --pct 1, seed 1, in 260 runs; seed\n"
"                          2, in 29).  Classic PCT's depth counts ordering\n"
"                          constraints instead\n"
"                          (d-1 priority change points), under which that\n"
"                          bug has depth 3: its --pct 2 never found it, its\n"
"                          --pct 3 in 0.25 % of runs.  Stores are never\n"
"                          flushed early nor older writes read: tso and arm\n"
"                          bugs need --bound.\n"
"  --random                a random choice at every branch\n"
"  --runs N --seed S       schedules to sample and the seed (--pct, --random\n"
"                          only; default 1000 and 1)\n"
"  --replay STRING         run exactly this schedule and draw it: \"-\", or\n"
"                          INDEX:CTX (or INDEX:fCTX, a store flushed) pairs as\n"
"                          printed, joined by \",\", indices increasing; an\n"
"                          index past the schedule's last branch point, or a\n"
"                          context that cannot act there, is refused\n"
"  --max-steps N           steps per schedule before calling it a livelock\n"
"  --spin-seconds S        a context that runs S seconds without reaching a\n"
"                          scheduling point (a loop on plain memory: nothing\n"
"                          preempts it) is a livelock, reported with its\n"
"                          schedule; also how SIGINT ends such a run, after 1 s\n"
"                          (default 10; time the process was stopped,\n"
"                          SIGSTOP, not counted)\n"
"Splitting the bounded search (docs/checking.md):\n"
"  --jobs N                workers on this machine, processes, each handed\n"
"                          the next piece of the search when it asks (a\n"
"                          piece: the schedules whose first two choices off\n"
"                          the default are the same).  The verdict, the\n"
"                          schedules counted and the violation reported (the\n"
"                          first in the one search's order, so its --replay\n"
"                          string) are one run's, whatever N and the timing.\n"
"                          With --reduce the workers share one table of\n"
"                          states (in shared memory): the same verdict and\n"
"                          violation, a few more schedules than one run\n"
"                          (states two workers explored at once).\n"
"                          A driver's crash, exit() or livelock ends only\n"
"                          the worker it happens in: the first in order is\n"
"                          replayed and reported here, once.  Default: the\n"
"                          CPUs; 1 for --pct, --random, --replay and\n"
"                          --driver-so (a driver's broken contract, as a\n"
"                          bad return code, ends each worker it meets)\n"
"  --shard I/N             explore shard I (0..N-1) of N only: the pieces\n"
"                          whose index is I modulo N; print its JSON (with\n"
"                          the command's arguments, the scenario and txpath's\n"
"                          version) for --merge.  Exit 0 when it ran to its\n"
"                          end (a violation too: the merge judges), 130 or\n"
"                          143 interrupted.  With --jobs N, its pieces shared\n"
"                          out among N worker processes (default: one, so\n"
"                          that a driver's crash is in the document too)\n"
"  --shard env[/N]         I and N from the job scheduler: a Slurm array's\n"
"                          SLURM_ARRAY_TASK_ID (from 0) and\n"
"                          SLURM_ARRAY_TASK_COUNT, a Kubernetes Indexed Job's\n"
"                          JOB_COMPLETION_INDEX, GNU parallel's PARALLEL_SEQ\n"
"                          (less one); N, if given, over the environment's\n"
"                          (a Slurm task run again alone has a count of 1)\n"
"  --merge FILE...         the shards' files put together (last on the line;\n"
"                          only --json before it): the search's result as one\n"
"                          run prints it, from the arguments the shards ran\n"
"                          with; a file of another scenario or txpath version,\n"
"                          a shard missing, twice or interrupted is refused\n"
"  --checkpoint FILE       save the search's position to FILE (a regular file\n"
"                          or none yet; written beside it, then renamed over\n"
"                          it) now and then, on SIGINT or SIGTERM, and at its\n"
"                          end: the pieces explored to their end without a\n"
"                          violation\n"
"  --checkpoint-every S    now and then: every S seconds (default 60)\n"
"  --resume FILE           take the search up from the position in FILE (the\n"
"                          same options, any --jobs): the pieces in it are not\n"
"                          explored again, and the result is the uninterrupted\n"
"                          run's; saves its own position there too, unless\n"
"                          --checkpoint names another file.  A position of\n"
"                          another scenario or txpath version is refused\n"
"  --progress              show progress on stderr even when it is no terminal\n"
"                          (on a terminal it is shown unless --json)\n"
"Output:\n"
"  --json                  {\"violation\": null | {\"kind\", \"preemptions\",\n"
"                          \"schedule\", \"events\": [...]}, \"schedules\",\n"
"                          \"complete\", \"xmit_on_stopped_reachable\", ...}\n"
"                          (a driver's crash, exit() or livelock too, a\n"
"                          shard's as well: its violation, the schedules up\n"
"                          to it)\n"
"  -h, --help              this help\n"
"Each option at most once.\n"
"\n"
"Only the seam's operations are scheduling points: plain fields (the\n"
"qdisc's lists, the descriptors, the runner's \"running\") are not, so a\n"
"race on one of them is invisible here (the ThreadSanitizer build of the\n"
"tests covers them); and under sc and tso a relaxed store orders like a\n"
"release and a relaxed load like an acquire: only arm tells them apart.\n"
"\n"
"The arm memory model, an approximation of ARMv8:\n"
"  stores  wait in a per-context buffer; the explorer may let any of them\n"
"          land (reach memory) first, except past an older store to the\n"
"          same location, past an older store before an smp_wmb, or, for\n"
"          a release store, past any older store.  A context reads its\n"
"          own newest buffered store.\n"
"  loads   a load may read an older write of its location: any write\n"
"          not older than the newest this context already read or wrote\n"
"          there (coherence), and still current at or after the\n"
"          context's floor: the time of its last acquire load (of the\n"
"          write it read), full barrier or acq_rel read-modify-write, its\n"
"          start, or, after an smp_rmb, its earlier loads.  An acquire\n"
"          load raises the floor to the write it read.\n"
"  RMW     as the kernel orders them: the fully ordered ones (xchg,\n"
"          cmpxchg, test_and_set_bit, value-returning atomics) are full\n"
"          barriers: the buffer drains, later loads read the newest; the\n"
"          unordered ones (set_bit, clear_bit, atomic_inc, netif_stop_queue)\n"
"          order only their own location, the _acquire ones also later\n"
"          loads, the _release ones also earlier stores (under tso every\n"
"          one is a locked instruction: a full barrier, as on x86);\n"
"          smp_mb__before/after_atomic are full barriers (under sc and\n"
"          tso nothing); txp_cas is weak and may fail spuriously\n"
"  allows  message passing without a release or without an acquire (or\n"
"          smp_wmb/smp_rmb); store buffering unless both sides have a\n"
"          full barrier (release/acquire do not forbid it, as RCpc LDAPR);\n"
"          2+2W, and IRIW without barriers on the readers\n"
"  forbids load buffering (an operational model reads only writes made\n"
"          already: out of its reach, ARMv8 allows it), and whatever\n"
"          address and data dependencies would allow of it; reading an\n"
"          older write past an address dependency (ARMv8 forbids it; the\n"
"          seam cannot see dependencies, so a load through a pointer\n"
"          another load read may read old values: a relaxed load that\n"
"          relies on one must be an acquire); IRIW with barriers (ARMv8\n"
"          is multi-copy atomic: one clock orders every landing); a plain\n"
"          access is not held behind buffered stores to other locations\n"
"          (only a data race could tell).\n"
"  Each store landed early, older write read, and spurious failure is\n"
"  a preemption (a run of one context's stores landed one after another,\n"
"  no step between them, is one); which store lands is part of its\n"
"  flush.  Keeps the\n"
"  newest 4 writes of at most 512 locations per schedule: older ones are\n"
"  out of reach (fewer behaviours, never more).\n"
"\n"
"With --memory-model tso or arm the diagram also shows each buffered store\n"
"the explorer chose to let reach memory early (\"store reaches memory:\n"
"...\"), and under arm each load of an older write and each spurious\n"
"compare-exchange failure: those choices count as preemptions (a run of\n"
"landings of one context's stores, with no step between them, as one).  The\n"
"contexts are fibers of one thread: 100,000 to 150,000 schedules a second,\n"
"so bound 3 of an era takes a minute or so (progress is shown on a\n"
"terminal); make prove runs them all.\n"
"\n"
"Examples:\n"
"  txpath check --era 2.6.9                 the false BUG, drawn\n"
"  txpath check --era 2.6.11 --bound 3      proved: no violation\n"
"  txpath check --personality lost-wakeup --lock core   a stall\n"
"  txpath check --personality recheck-nomb --lock core --producers 1 \\\n"
"      --packets 3 --memory-model arm --random --runs 20000 --seed 1\n"
"                                           the missing barrier after a stop\n"
"                                           (set_bit): a stall on arm64 only\n"
"  txpath check --era 5.1-nolock            the lockless qdisc's stuck packet\n"
"  txpath check --era 5.13-missed --memory-model tso   2022's missing barrier\n"
"  txpath check --era 6.18-draining --memory-model tso --bound 3   proved\n"
"  txpath check --personality veth-6.16 --lock core --runner exclusive \\\n"
"      --memory-model arm   veth's 2025 lost wakeup: a stall under arm only\n"
"  txpath check --personality veth --lock core --runner exclusive \\\n"
"      --memory-model arm   its fix, proved\n"
"\n"
"The first SIGINT or SIGTERM stops the search at the next schedule and prints\n"
"what was explored, marked incomplete (exit 130 or 143); a second ends it at\n"
"once.  If a context never comes back to a scheduling point (see\n"
"--spin-seconds), the livelock is reported a second after the first signal,\n"
"with the same exit status.\n"
"\n"
"With --jobs, the signal goes to this process, which asks each worker to stop\n"
"at its next schedule and prints what they explored together.\n"
"\n"
"Exit status: 0 when no violation was found, 1 when one was, 2 on bad usage,\n"
"130 or 143 when interrupted.\n";

enum {
	OPT_ERA = 256, OPT_LOCK, OPT_RUNNER, OPT_PERSONALITY, OPT_PRODUCERS, OPT_PACKETS,
	OPT_RING, OPT_FRAGS, OPT_BATCH, OPT_MM, OPT_BOUND, OPT_PCT, OPT_RANDOM, OPT_RUNS,
	OPT_SEED, OPT_REPLAY, OPT_MAX_STEPS, OPT_SPIN_SECONDS, OPT_JSON, OPT_HELP, OPT_QDISC, OPT_QUEUES, OPT_BQL,
	OPT_BULK, OPT_SEND, OPT_DEFER, OPT_BUSYLOCK, OPT_POOLS, OPT_PLAIN_POINTS, OPT_WATCHDOG, OPT_REDUCE, OPT_REDUCE_WITHOUT, OPT_JOBS,
	OPT_SHARD, OPT_PROGRESS, OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_RESUME, OPT_DRIVER,
};

static const struct option check_options[] = {
	{ "era", required_argument, NULL, OPT_ERA },
	{ "lock", required_argument, NULL, OPT_LOCK },
	{ "runner", required_argument, NULL, OPT_RUNNER },
	{ "personality", required_argument, NULL, OPT_PERSONALITY },
	{ "qdisc", required_argument, NULL, OPT_QDISC },
	{ "driver", required_argument, NULL, OPT_DRIVER },
	DRIVER_SO_OPTIONS,
	{ "producers", required_argument, NULL, OPT_PRODUCERS },
	{ "packets", required_argument, NULL, OPT_PACKETS },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "frags", required_argument, NULL, OPT_FRAGS },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "queues", required_argument, NULL, OPT_QUEUES },
	{ "bql", required_argument, NULL, OPT_BQL },
	{ "bulk", required_argument, NULL, OPT_BULK },
	{ "send", required_argument, NULL, OPT_SEND },
	{ "defer", required_argument, NULL, OPT_DEFER },
	{ "busylock", required_argument, NULL, OPT_BUSYLOCK },
	{ "pools", required_argument, NULL, OPT_POOLS },
	{ "plain-points", required_argument, NULL, OPT_PLAIN_POINTS },
	{ "watchdog", no_argument, NULL, OPT_WATCHDOG },
	{ "memory-model", required_argument, NULL, OPT_MM },
	{ "bound", required_argument, NULL, OPT_BOUND },
	{ "reduce", no_argument, NULL, OPT_REDUCE },
	{ "reduce-without", required_argument, NULL, OPT_REDUCE_WITHOUT },
	{ "pct", required_argument, NULL, OPT_PCT },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
	{ "spin-seconds", required_argument, NULL, OPT_SPIN_SECONDS },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
	{ "checkpoint-every", required_argument, NULL, OPT_CHECKPOINT_EVERY },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

#define CHECK_JOBS_MAX 256	/* as txp_explore_jobs() takes */

/* Knobs given on their own override the era wherever --era stands. */
struct picks {
	const char *era;
	int lock, runner, queues, bql, busylock;	/* -1: from the era */
	const struct txp_sim_personality *personality;
	const struct txp_qdisc_ops *qdisc;	/* NULL: from the era */
	const char *driver;	/* --driver: NULL, sim or ring */
	struct driver_so so;
	const char *plain_points;	/* --plain-points, as given */
	bool json, progress;
	unsigned jobs;		/* 0: the CPUs (the bounded search), else 1 */
	const char *shard;	/* --shard I/N or env */
	const char *checkpoint, *resume;	/* files */
	double every;		/* --checkpoint-every */
};

static void apply_picks(struct txp_explore_cfg *cfg, const struct picks *p)
{
	if (p->era) {
		const struct txp_era *e = txp_era_lookup(p->era);

		if (!e)
			usage_error("check", "unknown era '%s' (%s)", p->era, era_names());
		cfg->era = e->name;
		cfg->qdisc = e->qdisc ? txp_qdisc_lookup(e->qdisc) : NULL;
		cfg->lock = e->lock;
		cfg->runner = e->runner;
		cfg->personality = txp_sim_personality(e->personality);
		cfg->queues = e->queues;
		cfg->bql = e->bql;
		cfg->busylock = e->busylock;
		/* The claim is the era's design: it holds only unchanged. */
		cfg->race_impossible = e->race_impossible && p->lock < 0 && p->runner < 0 &&
				       !p->personality && (!p->qdisc || p->qdisc == cfg->qdisc ||
							   (!cfg->qdisc && p->qdisc == &txp_pfifo_fast_ops));
	}
	if (p->qdisc)
		cfg->qdisc = p->qdisc;
	if (p->lock >= 0)
		cfg->lock = (enum txp_lock_mode)p->lock;
	if (p->runner >= 0)
		cfg->runner = (enum txp_runner)p->runner;
	if (p->personality)
		cfg->personality = p->personality;
	if (p->queues >= 0)
		cfg->queues = (unsigned)p->queues;
	if (p->bql >= 0)
		cfg->bql = p->bql;
	if (p->busylock >= 0)
		cfg->busylock = p->busylock;
}

/* A replay string is checked as it is given; the run checks it again,
 * against the scenario. */
static const char *parse_replay(const char *arg)
{
	struct txp_explore_choice *c;
	unsigned n;
	char err[256];

	if (txp_explore_schedule_parse(arg, &c, &n, err, sizeof(err)) != 0)
		usage_error("check", "%s", err);
	free(c);
	return arg;
}

/* --reduce-without asleep,symmetry: TXP_EXPLORE_REDUCE_NO_* bits. */
static unsigned parse_reduce_without(const char *arg)
{
	static const struct {
		const char *name;
		unsigned bit;
	} parts[] = {
		{ "asleep", TXP_EXPLORE_REDUCE_NO_ASLEEP },
		{ "symmetry", TXP_EXPLORE_REDUCE_NO_SYMMETRY },
	};
	unsigned bits = 0;

	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ","), i = 0;

		while (i < sizeof(parts) / sizeof(parts[0]) &&
		       (strlen(parts[i].name) != len || strncmp(p, parts[i].name, len)))
			i++;
		if (i == sizeof(parts) / sizeof(parts[0]))
			usage_error("check", "--reduce-without takes asleep and symmetry, "
				    "comma-separated, got '%s'", arg);
		bits |= parts[i].bit;
		p += len;
		if (!*p)
			return bits;
	}
}

/* --send's values, by enum txp_explore_send. */
static const char *const send_names[] = {
	[TXP_EXPLORE_SEND_QUEUE] = "queue",
	[TXP_EXPLORE_SEND_TRY] = "try",
	[TXP_EXPLORE_SEND_MIXED] = "mixed",
};

static enum txp_explore_send parse_send(const char *arg)
{
	for (unsigned i = 0; i < sizeof(send_names) / sizeof(send_names[0]); i++)
		if (!strcmp(arg, send_names[i]))
			return (enum txp_explore_send)i;
	usage_error("check", "--send is queue, try or mixed, got '%s'", arg);
}

static void parse_option(int c, const char *arg, struct txp_explore_cfg *cfg, struct picks *p)
{
	if (driver_so_option(&p->so, c, arg))
		return;
	switch (c) {
	case OPT_ERA: p->era = arg; break;
	case OPT_LOCK:
		if (strcmp(arg, "core") && strcmp(arg, "lltx"))
			usage_error("check", "--lock is core or lltx, got '%s'", arg);
		p->lock = strcmp(arg, "core") ? TXP_LOCK_LLTX : TXP_LOCK_CORE;
		break;
	case OPT_RUNNER:
		if (strcmp(arg, "concurrent") && strcmp(arg, "exclusive"))
			usage_error("check", "--runner is concurrent or exclusive, got '%s'", arg);
		p->runner = strcmp(arg, "concurrent") ? TXP_RUNNER_EXCLUSIVE : TXP_RUNNER_CONCURRENT;
		break;
	case OPT_PERSONALITY:
		p->personality = txp_sim_personality(arg);
		if (!p->personality)
			usage_error("check", "unknown personality '%s'", arg);
		break;
	case OPT_QDISC: p->qdisc = parse_qdisc("check", arg); break;
	case OPT_DRIVER: p->driver = arg; break;
	case OPT_DEFER: cfg->defer = parse_defer("check", arg); break;
	case OPT_SEND: cfg->send = parse_send(arg); break;
	case OPT_POOLS: cfg->pools = parse_on_off("check", "--pools", arg); break;
	case OPT_PLAIN_POINTS: p->plain_points = arg; break;
	case OPT_PRODUCERS: cfg->producers = (unsigned)parse_u64("check", "--producers", arg, 1, 6); break;
	case OPT_PACKETS: cfg->packets = (unsigned)parse_u64("check", "--packets", arg, 1, 64); break;
	case OPT_RING: cfg->ring = (unsigned)parse_u64("check", "--ring", arg, 1, 4096); break;
	case OPT_FRAGS: parse_frags("check", arg, &cfg->frags_min, &cfg->frags_max); break;
	case OPT_BATCH: cfg->batch = (unsigned)parse_u64("check", "--batch", arg, 1, 4096); break;
	case OPT_QUEUES: p->queues = (int)parse_u64("check", "--queues", arg, 1, 4); break;
	case OPT_BQL: p->bql = parse_on_off("check", "--bql", arg); break;
	case OPT_BUSYLOCK: p->busylock = parse_on_off("check", "--busylock", arg); break;
	case OPT_BULK:
		cfg->bulk = (unsigned)parse_u64("check", "--bulk", arg, 1, TXP_DEV_BULK_MAX);
		break;
	case OPT_MM:
		if (strcmp(arg, "sc") && strcmp(arg, "tso") && strcmp(arg, "arm"))
			usage_error("check", "--memory-model is sc, tso or arm, got '%s'", arg);
		cfg->tso = !strcmp(arg, "tso");
		cfg->arm = !strcmp(arg, "arm");
		break;
	case OPT_BOUND:
		cfg->strategy = TXP_EXPLORE_BOUND;
		cfg->bound = (unsigned)parse_u64("check", "--bound", arg, 0, 16);
		break;
	case OPT_REDUCE: cfg->reduce = true; break;
	case OPT_REDUCE_WITHOUT: cfg->reduce_without = parse_reduce_without(arg); break;
	case OPT_PCT:
		cfg->strategy = TXP_EXPLORE_PCT;
		cfg->depth = (unsigned)parse_u64("check", "--pct", arg, 1, 64);
		break;
	case OPT_RANDOM: cfg->strategy = TXP_EXPLORE_RANDOM; break;
	case OPT_RUNS: cfg->runs = parse_u64("check", "--runs", arg, 1, UINT64_C(1) << 40); break;
	case OPT_SEED: cfg->seed = parse_u64("check", "--seed", arg, 0, UINT64_MAX); break;
	case OPT_REPLAY: cfg->replay = parse_replay(arg); break;
	case OPT_SPIN_SECONDS:
		cfg->spin_seconds = parse_seconds("check", "--spin-seconds", arg);
		break;
	case OPT_MAX_STEPS:
		cfg->max_steps = (unsigned)parse_u64("check", "--max-steps", arg, 100, 100000000);
		break;
	case OPT_WATCHDOG: cfg->watchdog = true; break;
	case OPT_JSON: p->json = true; break;
	case OPT_JOBS: p->jobs = (unsigned)parse_u64("check", "--jobs", arg, 1, CHECK_JOBS_MAX); break;
	case OPT_SHARD: p->shard = arg; break;
	case OPT_PROGRESS: p->progress = true; break;
	case OPT_CHECKPOINT: p->checkpoint = arg; break;
	case OPT_CHECKPOINT_EVERY: p->every = parse_seconds("check", "--checkpoint-every", arg); break;
	case OPT_RESUME: p->resume = arg; break;
	default: break;
	}
}

/* Options that apply only together: refused, never ignored. */
static void check_combination(const struct cmdline *cl)
{
	bool sampler = cmdline_given(cl, OPT_PCT) || cmdline_given(cl, OPT_RANDOM);
	bool bounded = !sampler && !cmdline_given(cl, OPT_REPLAY);

	if (cmdline_given(cl, OPT_BOUND) + cmdline_given(cl, OPT_PCT) + cmdline_given(cl, OPT_RANDOM) +
	    cmdline_given(cl, OPT_REPLAY) > 1)
		usage_error("check", "choose one of --bound, --pct, --random, --replay");
	if (cmdline_given(cl, OPT_RUNS) && !sampler)
		usage_error("check", "--runs applies to --pct or --random only");
	if (cmdline_given(cl, OPT_SEED) && !sampler)
		usage_error("check", "--seed applies to --pct or --random only");
	if (cmdline_given(cl, OPT_DRIVER_SO) && cmdline_given(cl, OPT_DRIVER))
		usage_error("check", "choose one of --driver, --driver-so");
	if (cmdline_given(cl, OPT_DRIVER_SO) && cmdline_given(cl, OPT_PERSONALITY))
		usage_error("check", "choose one of --personality, --driver-so");
	if (cmdline_given(cl, OPT_DRIVER_SO) && cmdline_given(cl, OPT_ERA))
		usage_error("check", "--era picks a personality: choose one of --era, --driver-so");
	if (cmdline_given(cl, OPT_JOBS) && !bounded)
		usage_error("check", "--jobs splits the bounded search (--bound), not --pct, "
			    "--random or --replay");
	if (cmdline_given(cl, OPT_SHARD) && !bounded)
		usage_error("check", "--shard splits the bounded search (--bound), not --pct, "
			    "--random or --replay");
	if ((cmdline_given(cl, OPT_CHECKPOINT) || cmdline_given(cl, OPT_RESUME)) && !bounded)
		usage_error("check", "--checkpoint and --resume are for the bounded search (--bound)");
	if ((cmdline_given(cl, OPT_CHECKPOINT) || cmdline_given(cl, OPT_RESUME)) &&
	    cmdline_given(cl, OPT_SHARD))
		usage_error("check", "a shard is run again whole: --checkpoint and --resume are for "
			    "a search not split in shards");
	if (cmdline_given(cl, OPT_CHECKPOINT_EVERY) && !cmdline_given(cl, OPT_CHECKPOINT))
		usage_error("check", "--checkpoint-every applies to --checkpoint only");
	/* As txpath run refuses it: a plugin drives one queue, its own. */
	if (cmdline_given(cl, OPT_DRIVER_SO) && cmdline_given(cl, OPT_QUEUES))
		usage_error("check", "--queues is for the simulated NIC, not --driver-so (a plugin "
			    "drives one queue)");
}

/* --driver ring: the explorer's own driver, which has no personality
 * (nor era: an era picks one); --driver sim is the default. */
static void use_driver(struct txp_explore_cfg *cfg, const struct picks *p)
{
	if (!p->driver || !strcmp(p->driver, "sim"))
		return;
	cfg->driver = txp_explore_driver(p->driver);
	if (!cfg->driver)
		usage_error("check", "--driver is sim (the simulated NIC, the default) or ring (the "
			    "ring afxdp, afpacket, tap and pcap share, against a modelled kernel), "
			    "got '%s'", p->driver);
	if (p->era || p->personality)
		usage_error("check", "--%s picks a personality of the simulated NIC, not of "
			    "--driver %s", p->era ? "era" : "personality", p->driver);
}

/* --driver-so: the plugin is the driver, with its lock mode unless
 * --lock was given.  One built without the instrumentation is checked,
 * with a note that its own plain accesses are not seen. */
static void use_driver_so(struct txp_explore_cfg *cfg, const struct picks *p)
{
	int objects = txp_explore_plain_objects();

	use_driver(cfg, p);
	if (p->driver)
		return;
	cfg->driver = driver_so_load("check", &p->so);
	if (cfg->driver && objects >= 0 && txp_explore_plain_objects() == objects)
		fprintf(stderr, "txpath check: note: %s was built without the instrumentation of "
			"txpath config --cflags: its own plain loads and stores are not seen, nor "
			"their data races\n", p->so.path);
	if (cfg->driver && p->lock < 0)
		cfg->lock = txp_run_driver_plugin_of(cfg->driver)->lock;
}

/* --plain-points: once the plugin, if any, is loaded. */
static void use_plain_points(struct txp_explore_cfg *cfg, const struct picks *p)
{
	const void *plugin = cfg->driver ? (const void *)txp_run_driver_plugin_of(cfg->driver) : NULL;
	char err[256];

	if (!p->plain_points)
		return;
	if (!plain_points_choose(p->plain_points, plugin, err, sizeof(err)))
		usage_error("check", "%s", err);
	cfg->plain_point = plain_points_chosen;
}

/* The driver's name, and its ring, as the scenario has them: a
 * plugin's, the explorer's own, or the simulated NIC's. */
static unsigned ring_shown(const struct txp_explore_cfg *cfg)
{
	const struct txp_plugin *plugin = cfg->driver ? txp_run_driver_plugin_of(cfg->driver) : NULL;

	if (cfg->ring)
		return cfg->ring;
	if (plugin)
		return plugin->ring;
	return cfg->driver ? TXP_EXPLORE_RING_SLOTS : txp_sim_min_ring(cfg->frags_max);
}

/* Progress on stderr, one line redrawn: the schedules, their rate, the
 * round and how far into it (an estimate), and the time its rest takes
 * at the rate of it so far. */
static void show_progress(const struct txp_explore_progress *p, void *arg)
{
	static uint64_t t0, round_t0;
	static unsigned round = UINT_MAX;
	const struct txp_explore_cfg *cfg = arg;
	struct timespec ts;
	uint64_t now;
	double secs, in_round;
	char left[48] = "";

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (!t0)
		t0 = now;
	if (p->bound != round) {
		round = p->bound;
		round_t0 = now;
	}
	secs = (double)(now - t0) / 1e9;
	in_round = (double)(now - round_t0) / 1e9;
	if (p->done >= 0.01 && p->done < 1 && in_round >= 1)
		snprintf(left, sizeof(left), ", ~%.0f s left of it", in_round * (1 - p->done) / p->done);
	if (cfg->strategy == TXP_EXPLORE_BOUND)
		fprintf(stderr, "\r\033[K  %llu schedules, %.0f/s, bound %u of %u: ~%.0f%% of it%s",
			(unsigned long long)p->schedules, secs > 0 ? (double)p->schedules / secs : 0,
			p->bound, cfg->bound, p->done * 100, left);
	else
		fprintf(stderr, "\r\033[K  %llu of %llu runs, %.0f/s", (unsigned long long)p->schedules,
			(unsigned long long)cfg->runs, secs > 0 ? (double)p->schedules / secs : 0);
	fflush(stderr);
}

static const char *strategy_text(const struct txp_explore_cfg *cfg, char *buf, size_t len)
{
	if (cfg->replay)
		snprintf(buf, len, "replay of one schedule");
	else if (cfg->strategy == TXP_EXPLORE_BOUND)
		snprintf(buf, len, "every schedule with at most %u preemptions", cfg->bound);
	else if (cfg->strategy == TXP_EXPLORE_PCT)
		snprintf(buf, len, "PCT depth %u (preemptions), %llu runs, seed %llu", cfg->depth,
			 (unsigned long long)cfg->runs, (unsigned long long)cfg->seed);
	else
		snprintf(buf, len, "random, %llu runs, seed %llu", (unsigned long long)cfg->runs,
			 (unsigned long long)cfg->seed);
	return buf;
}

/* The options that are not the scenario's: how it was searched, where
 * and how it was shown (a replay refuses some of them). */
static const char *const not_scenario_flags[] = { "json", "random", "progress", NULL };
static const char *const not_scenario_valued[] = {
	"bound", "pct", "runs", "seed", "replay", "jobs", "shard", "checkpoint",
	"checkpoint-every", "resume", NULL
};

/* The command line to replay a schedule: the scenario options as given. */
static void print_replay_hint(int argc, char **argv, const char *schedule)
{
	printf("replay: txpath check");
	for (int i = 1; i < argc; i++) {
		int words = option_words(argv[i], not_scenario_flags, not_scenario_valued);

		if (words)
			i += words - 1;
		else
			printf(" %s", argv[i]);
	}
	printf(" --replay %s\n", schedule);
}

/* How the search ended, after "explored N schedules in T s". */
static const char *search_end(const struct txp_explore_cfg *cfg,
			      const struct txp_explore_result *r, char *buf, size_t len)
{
	if (r->found)
		return ", stopped at the first violation";
	if (!r->interrupted)
		return r->complete ? ", the search within the bound is complete" : "";
	if (cfg->replay)
		return ", interrupted";
	if (cfg->strategy == TXP_EXPLORE_BOUND)
		snprintf(buf, len, ", incomplete: interrupted at bound %u of %u%s", r->bound_reached,
			 cfg->bound, r->bound_reached ? " (every bound below searched in full)" : "");
	else
		snprintf(buf, len, ", incomplete: interrupted after %llu of %llu runs",
			 (unsigned long long)r->schedules, (unsigned long long)cfg->runs);
	return buf;
}

/* What --reduce did, after the schedules line. */
static void print_reduction(const struct txp_explore_cfg *cfg, const struct txp_explore_result *r)
{
	if (r->reduce_dropped)
		printf("reduction: dropped (a context starved and was switched to unchosen); "
		       "the search began again without it\n");
	else if (cfg->reduce)
		printf("reduction: %llu schedules ended at a state explored already, %llu never ran "
		       "(their first step led to one; %llu states named%s%s)\n",
		       (unsigned long long)r->pruned, (unsigned long long)r->asleep,
		       (unsigned long long)r->states,
		       r->symmetric ? ", the producers' permutations as one" : "",
		       r->states_full ? ", the table full: later ones forgotten" : "");
}

static const char *mm_name(const struct txp_explore_cfg *cfg)
{
	return cfg->arm ? "arm" : cfg->tso ? "tso" : "sc";
}

static const char *qdisc_name(const struct txp_explore_cfg *cfg)
{
	return cfg->qdisc ? cfg->qdisc->id : txp_pfifo_fast_ops.id;
}

/* What the search did not reach that a reader would take for granted:
 * a warning into buf, or false.  No schedule that stopped a queue means
 * no stop or wake raced anything, whatever "no violation" says. */
static bool scenario_warning(const struct txp_explore_cfg *cfg, const struct txp_explore_result *r,
			     char *buf, size_t len)
{
	if (r->found || r->queue_stopped || !r->schedules)
		return false;
	snprintf(buf, len, "no schedule stopped a queue, so no stop or wake raced anything: "
		 "a ring of %u never filled with %u producers x %u packets (a smaller --ring, "
		 "or more --packets)", ring_shown(cfg), cfg->producers, cfg->packets);
	return true;
}

/* Accesses the race detector could not keep (its table full: a driver
 * that touches much memory in one execution): races with them unseen. */
static const char race_warning[] =
	"some executions touched more memory than the race detector keeps in one: data "
	"races with what it could not keep were not looked for";

/* by: how the search was split (" by 2 workers"), or "". */
static void print_text(const struct txp_explore_cfg *cfg, const struct txp_explore_result *r,
		       const char *by, int argc, char **argv)
{
	char strat[128], end[128], warning[256];
	double rate = r->seconds > 0 ? (double)r->schedules / r->seconds : 0;

	printf("txpath check: era %s (lock %s, runner %s, qdisc %s%s%s, driver %s), "
	       "%u producers x %u packets%s%s%s, ring %u, frags %u-%u, bulk %u, memory model %s%s\n",
	       cfg->era ? cfg->era : "(custom)", txp_lock_mode_name(cfg->lock),
	       txp_runner_name(cfg->runner), qdisc_name(cfg), defer_shown(cfg->defer),
	       busylock_shown(cfg->busylock, cfg->runner, cfg->qdisc, cfg->defer),
	       scenario_driver_name(cfg), cfg->producers, cfg->packets, cfg->pools ? " from their pools" : "",
	       cfg->send ? ", sent by " : "", cfg->send ? send_names[cfg->send] : "",
	       ring_shown(cfg), cfg->frags_min,
	       cfg->frags_max, cfg->bulk ? cfg->bulk : 1, mm_name(cfg),
	       cfg->watchdog ? ", watchdog" : "");
	printf("strategy: %s\n\n", strategy_text(cfg, strat, sizeof(strat)));
	if (r->found || cfg->replay) {
		if (r->found)
			printf("VIOLATION %s after %u preemptions: %s\n\n", r->kind, r->preemptions,
			       r->detail);
		else
			printf("no violation in this schedule\n\n");
		txp_explore_diagram(stdout, r);
		printf("\nschedule: %s\n", r->schedule ? r->schedule : "-");
		print_replay_hint(argc, argv, r->schedule ? r->schedule : "-");
	} else {
		printf("no violation%s\n", r->interrupted ? " in the schedules explored" : "");
	}
	printf("explored %llu schedules in %.2f s (%.0f schedules/s%s)%s\n",
	       (unsigned long long)r->schedules, r->seconds, rate, by,
	       search_end(cfg, r, end, sizeof(end)));
	print_reduction(cfg, r);
	printf("start_xmit on a stopped queue: %s%s\n",
	       r->xmit_on_stopped_reachable ? "reachable" : "not reachable",
	       r->interrupted && !r->found ? " in the schedules explored" : "");
	if (scenario_warning(cfg, r, warning, sizeof(warning)))
		printf("warning: %s\n", warning);
	if (r->races_unkept)
		printf("warning: %s\n", race_warning);
}

/* s: a shard's document, with its own members (argc, argv: its command). */
static void print_json(FILE *f, const struct txp_explore_cfg *cfg, const struct txp_explore_result *r,
		       const struct shard *s, int argc, char **argv)
{
	char warning[256];
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "era", cfg->era);
	json_str(&j, "lock", txp_lock_mode_name(cfg->lock));
	json_str(&j, "runner", txp_runner_name(cfg->runner));
	json_str(&j, "qdisc", qdisc_name(cfg));
	json_str(&j, "personality", cfg->driver ? NULL : cfg->personality->name);
	json_str(&j, "driver", scenario_driver_name(cfg));
	json_str(&j, "memory_model", mm_name(cfg));
	json_bool(&j, "defer", cfg->defer != TXP_DEFER_OFF);
	json_bool(&j, "defer_drainer", cfg->defer == TXP_DEFER_DRAIN);
	json_bool(&j, "busylock", *busylock_shown(cfg->busylock, cfg->runner, cfg->qdisc, cfg->defer));
	json_bool(&j, "pools", cfg->pools);
	json_str(&j, "plain_points", cfg->plain_point ? plain_points_spec() : NULL);
	json_u64(&j, "producers", cfg->producers);
	json_u64(&j, "packets", cfg->packets);
	json_u64(&j, "ring", ring_shown(cfg));
	json_u64(&j, "frags_min", cfg->frags_min);
	json_u64(&j, "frags_max", cfg->frags_max);
	json_u64(&j, "bulk", cfg->bulk ? cfg->bulk : 1);
	json_str(&j, "send", send_names[cfg->send]);
	json_bool(&j, "watchdog", cfg->watchdog);
	if (r->found) {
		json_obj_begin(&j, "violation");
		json_str(&j, "kind", r->kind);
		json_str(&j, "detail", r->detail);
		json_u64(&j, "preemptions", r->preemptions);
		json_str(&j, "schedule", r->schedule);
		json_arr_begin(&j, "events");
		for (unsigned i = 0; i < r->nevents; i++) {
			json_obj_begin(&j, NULL);
			json_str(&j, "ctx", r->columns[r->events[i].column]);
			json_str(&j, "event", r->events[i].text);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	} else {
		json_str(&j, "violation", NULL);
	}
	json_u64(&j, "schedules", r->schedules);
	json_bool(&j, "complete", r->complete);
	json_bool(&j, "interrupted", r->interrupted);
	if (cfg->strategy == TXP_EXPLORE_BOUND && !cfg->replay)
		json_u64(&j, "bound_reached", r->bound_reached);
	else
		json_str(&j, "bound_reached", NULL);
	json_bool(&j, "xmit_on_stopped_reachable", r->xmit_on_stopped_reachable);
	json_arr_begin(&j, "warnings");
	if (scenario_warning(cfg, r, warning, sizeof(warning)))
		json_str(&j, NULL, warning);
	if (r->races_unkept)
		json_str(&j, NULL, race_warning);
	json_arr_end(&j);
	json_bool(&j, "reduced", r->reduced);
	json_bool(&j, "reduce_dropped", r->reduce_dropped);
	json_u64(&j, "pruned", r->pruned);
	json_u64(&j, "asleep", r->asleep);
	json_bool(&j, "symmetric", r->symmetric);
	json_u64(&j, "states", r->states);
	json_dbl(&j, "seconds", r->seconds);
	json_dbl(&j, "schedules_per_second", r->seconds > 0 ? (double)r->schedules / r->seconds : 0);
	if (s)
		shard_json(&j, s, cfg, r, argc, argv);
	json_obj_end(&j);
	json_finish(&j);
}

#define PICKS_INIT { .lock = -1, .runner = -1, .queues = -1, .bql = -1, .busylock = -1, .every = 60 }

/* argv's options into cfg and p, checked: false when --help was asked
 * (and printed); a bad option is a usage error. */
static bool parse_args(int argc, char **argv, struct txp_explore_cfg *cfg, struct picks *p)
{
	struct cmdline cl;
	char err[256];
	int c;

	txp_explore_cfg_init(cfg);
	cmdline_init(&cl, "check", check_options);
	while ((c = cmdline_next(&cl, argc, argv)) != -1) {
		if (c == 'h' || c == OPT_HELP) {
			fputs(check_help, stdout);
			return false;
		}
		parse_option(c, optarg, cfg, p);
	}
	check_combination(&cl);
	apply_picks(cfg, p);
	check_defer("check", cfg->qdisc, cfg->defer);
	if (p->busylock > 0)
		check_busylock("check", cfg->qdisc, cfg->runner, cfg->defer);
	use_driver_so(cfg, p);
	use_plain_points(cfg, p);
	if (!txp_explore_cfg_valid(cfg, err, sizeof(err)))
		usage_error("check", "%s", err);
	return true;
}

void check_cfg_parse(int argc, char **argv, struct txp_explore_cfg *cfg)
{
	struct picks picks = PICKS_INIT;

	(void)parse_args(argc, argv, cfg, &picks);
}

/* A worker ended the program with status rc: its report printed, or
 * (killed) the message err. */
static int ended_by_worker(int rc, const char *err)
{
	if (*err)
		fprintf(stderr, "txpath check: %s\n", err);
	return rc;
}

/* What --json's report of an ending needs (explore.h: ending_report). */
struct json_ending {
	const struct txp_explore_cfg *cfg;
	int argc;
	char **argv;
};

static void ending_json(const struct txp_explore_result *res, void *arg)
{
	const struct json_ending *e = arg;

	print_json(stdout, e->cfg, res, NULL, e->argc, e->argv);
}

/* The result, as asked; the command's exit status. */
static int report(const struct txp_explore_cfg *cfg, struct txp_explore_result *res,
		  const struct picks *p, const char *by, int argc, char **argv)
{
	int rc;

	if (p->json)
		print_json(stdout, cfg, res, NULL, argc, argv);
	else
		print_text(cfg, res, by, argc, argv);
	rc = res->interrupted ? 128 + signals_caught() : res->found ? 1 : 0;
	txp_explore_result_free(res);
	return rc;
}

/* -- --merge ------------------------------------------------------------------------ */

/* Two scenarios' identities (shard_identity()) told apart by their first
 * knob that differs, into msg. */
static void scenario_differs(char *msg, size_t len, const char *path, const char *id,
			     const char *path0, const char *id0)
{
	size_t at = 0;

	while (id[at] && id[at] == id0[at])
		at++;
	while (at > 0 && !(at >= 2 && id[at - 2] == ',' && id[at - 1] == ' '))
		at--;
	snprintf(msg, len, "%s is of another scenario than %s (%.*s, not %.*s)", path, path0,
		 (int)strcspn(id + at, ","), id + at, (int)strcspn(id0 + at, ","), id0 + at);
}

/* Which of the n files is shard index, or -1. */
static int shard_at(const struct shard_file *f, unsigned n, unsigned index)
{
	for (unsigned i = 0; i < n; i++)
		if (f[i].s.index == index)
			return (int)i;
	return -1;
}

/* The first piece of f that is not its shard's (index I modulo N), or
 * NULL.  f's count is not 0. */
static const struct txp_explore_piece *foreign_piece(const struct shard_file *f)
{
	for (size_t j = 0; j < f->part.npieces; j++)
		if (f->part.pieces[j].index % f->s.count != f->s.index)
			return &f->part.pieces[j];
	return NULL;
}

/* The shards' files, each of one search, every shard once: false and a
 * message naming the first that is not. */
static bool merge_check(const struct shard_file *f, unsigned n, char **paths, char *msg,
			size_t len)
{
	const struct txp_explore_piece *p;

	for (unsigned i = 0; i < n; i++) {
		if (strcmp(f[i].version, txp_version()))
			snprintf(msg, len, "%s is from txpath %s, this is txpath %s", paths[i],
				 f[i].version, txp_version());
		else if (strcmp(f[i].identity, f[0].identity))
			scenario_differs(msg, len, paths[i], f[i].identity, paths[0], f[0].identity);
		else if (f[i].s.count != f[0].s.count)
			snprintf(msg, len, "%s is shard %u of %u, %s of %u", paths[i], f[i].s.index,
				 f[i].s.count, paths[0], f[0].s.count);
		else if (f[i].s.index >= f[i].s.count)
			snprintf(msg, len, "%s is shard %u of %u: past the count (shards are numbered "
				 "from 0)", paths[i], f[i].s.index, f[i].s.count);
		else if ((p = foreign_piece(&f[i])) != NULL)
			snprintf(msg, len, "%s, shard %u/%u, holds piece %llu, which is shard %llu's",
				 paths[i], f[i].s.index, f[i].s.count, (unsigned long long)p->index,
				 (unsigned long long)(p->index % f[i].s.count));
		else if (shard_at(f, i, f[i].s.index) >= 0)
			snprintf(msg, len, "shard %u/%u given twice (%s)", f[i].s.index, f[i].s.count,
				 paths[i]);
		else if (!f[i].done)
			snprintf(msg, len, "%s (shard %u/%u) was interrupted: run it again", paths[i],
				 f[i].s.index, f[i].s.count);
		else
			continue;
		return false;
	}
	/* Each once, each below the count: all there if as many. */
	for (unsigned i = 0; n < f[0].s.count; i++)
		if (shard_at(f, n, i) < 0) {
			snprintf(msg, len, "shard %u/%u is missing", i, f[0].s.count);
			return false;
		}
	return true;
}

static void merge_free(struct shard_file *f, unsigned n, struct txp_explore_result *parts)
{
	for (unsigned i = 0; f && i < n; i++)
		shard_file_free(&f[i]);
	free(f);
	free(parts);
}

/* The shards' files read and checked into f (n of them at argv), the
 * search's cfg from the first's arguments: false and a message if not. */
static bool merge_read(struct shard_file *f, unsigned n, char **paths,
		       struct txp_explore_cfg *cfg, struct picks *picks, char *msg, size_t len)
{
	char err[256];

	for (unsigned i = 0; i < n; i++)
		if (!shard_read(paths[i], &f[i], err, sizeof(err))) {
			snprintf(msg, len, "%s: %s", paths[i], err);
			return false;
		}
	if (!merge_check(f, n, paths, msg, len))
		return false;
	if (!parse_args(f[0].argc, f[0].argv, cfg, picks)) {
		snprintf(msg, len, "%s: its arguments ask for --help", paths[0]);
		return false;
	}
	return true;
}

/* txpath check [--json] --merge FILE...: the search the shards made, as
 * one run reports it, from the arguments they were run with. */
static int check_merge(int argc, char **argv, int at)
{
	unsigned n = (unsigned)(argc - at - 1);
	struct shard_file *f = calloc(n ? n : 1, sizeof(*f));
	struct txp_explore_result *parts = calloc(n ? n : 1, sizeof(*parts));
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	struct picks picks = PICKS_INIT;
	char msg[768], by[48];
	int rc;

	for (int i = 1; i < at; i++)
		if (strcmp(argv[i], "--json")) {
			merge_free(f, 0, parts);
			usage_error("check", "--merge takes the scenario from the shards' files: only "
				    "--json goes with it, got '%s'", argv[i]);
		}
	if (!n || !f || !parts || !merge_read(f, n, argv + at + 1, &cfg, &picks, msg, sizeof(msg))) {
		if (!n || !f || !parts)
			snprintf(msg, sizeof(msg), "%s", n ? "out of memory" : "no files: name the shards' files");
		merge_free(f, n, parts);
		usage_error("check", "--merge: %s", msg);
	}
	picks.json = at > 1;
	for (unsigned i = 0; i < n; i++)
		parts[i] = f[i].part;
	/* A stop while the violation is replayed (a livelock's spin) stops
	 * the replay, which is then reported at once. */
	cfg.stop = signals_catch();
	rc = txp_explore_merge(&cfg, parts, n, &res, msg, sizeof(msg));
	if (rc) {
		fprintf(stderr, "txpath check: --merge: %s\n", msg);
		merge_free(f, n, parts);
		return 1;
	}
	for (unsigned i = 0; i < n; i++)
		res.seconds += parts[i].seconds;
	snprintf(by, sizeof(by), ", %u shards' time added", n);
	rc = report(&cfg, &res, &picks, by, f[0].argc, f[0].argv);
	merge_free(f, n, parts);
	return rc;
}

/* -- a search, split or not ------------------------------------------------------- */

/* Workers for the search: --jobs, else the CPUs for a bounded search
 * (with the reduction too).  One for a shard, a sample or a replay; and
 * for a plugin driver: its crash, exit or livelock is reported in order
 * (jobs.c), but a broken contract (a return code start_xmit may not give)
 * still ends each worker that meets it, each with its message. */
static unsigned jobs_of(const struct txp_explore_cfg *cfg, const struct picks *p)
{
	long cpus;

	if (p->jobs)
		return p->jobs;
	if (p->shard || cfg->replay || cfg->strategy != TXP_EXPLORE_BOUND || cfg->driver)
		return 1;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus < 1 ? 1 : cpus > CHECK_JOBS_MAX ? CHECK_JOBS_MAX : (unsigned)cpus;
}

/* --shard: this shard's part of the search, as its JSON document; its
 * pieces shared out among --jobs workers, one by default.  Always in
 * workers: a plugin's crash, exit() or livelock ends the worker that
 * meets it, and this process still writes the document, the violation
 * in it (jobs.c). */
static int check_shard(struct txp_explore_cfg *cfg, const struct picks *p, int argc, char **argv)
{
	struct shard s = shard_spec(p->shard);
	struct txp_explore_split split = shard_split(&s);
	struct txp_explore_result res;
	char err[256] = "";
	int rc;

	cfg->split = &split;
	rc = txp_explore_jobs(cfg, jobs_of(cfg, p), NULL, true, &res, err, sizeof(err));
	if (cfg->progress)
		fputs("\r\033[K", stderr);
	if (rc > 0)
		return ended_by_worker(rc, err);
	if (rc != 0) {
		fprintf(stderr, "txpath check: %s\n", err);
		return 1;
	}
	print_json(stdout, cfg, &res, &s, argc, argv);
	rc = res.interrupted ? 128 + signals_caught() : 0;
	txp_explore_result_free(&res);
	return rc;
}

/* -- --checkpoint, --resume ---------------------------------------------------- */

/* A search's position: the pieces explored to their end without a
 * violation, before this run (resumed) and in it. */
struct position {
	const char *path;
	const struct txp_explore_cfg *cfg;
	const struct txp_explore_result *before;	/* NULL: none */
	int argc;
	char **argv;
	struct timespec t0;	/* this run's start */
};

/* The pieces of a and b (each in order) in order, into res, and their
 * reduction's figures. */
static bool pieces_join(const struct txp_explore_result *a, const struct txp_explore_result *b,
			struct txp_explore_result *res)
{
	const struct txp_explore_result both[2] = { *a, *b };
	size_t i = 0, j = 0, n = 0;

	res->pieces = malloc((a->npieces + b->npieces + 1) * sizeof(*res->pieces));
	if (!res->pieces)
		return false;
	while (i < a->npieces || j < b->npieces)
		res->pieces[n++] = j == b->npieces || (i < a->npieces &&
						       a->pieces[i].index < b->pieces[j].index)
				   ? a->pieces[i++] : b->pieces[j++];
	res->npieces = n;
	res->schedules = a->schedules + b->schedules;
	res->seconds = a->seconds + b->seconds;
	txp_explore_join_reduction(both, 2, res);
	return true;
}

/* The file beside a position's that it is written to first, renamed
 * over it once whole: false if the name does not fit. */
static bool position_part(const char *path, char tmp[PATH_MAX])
{
	return (size_t)snprintf(tmp, PATH_MAX, "%s.part", path) < PATH_MAX;
}

/* Before the search: a position that could not be saved (a directory
 * missing or read-only, a name too long, a device or a directory in its
 * place, never replaced) is said now, as a usage error, rather than at
 * the first checkpoint of a long run. */
static void position_can_save(const char *opt, const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;
	FILE *f;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		usage_error("check", "%s %s: not a regular file", opt, path);
	if (!position_part(path, tmp))
		usage_error("check", "%s %s: %s", opt, path, strerror(ENAMETOOLONG));
	f = fopen(tmp, "w");
	if (!f)
		usage_error("check", "%s %s: cannot write %s: %s", opt, path, tmp, strerror(errno));
	fclose(f);
	remove(tmp);
}

/* cfg->checkpoint: the position into path, whole or not at all (a file
 * beside it, renamed over it); a failure said, the search goes on. */
static void position_save(const struct txp_explore_result *sofar, void *arg)
{
	const struct position *pos = arg;
	static const struct txp_explore_result none = { .reduced = true, .symmetric = true };
	struct txp_explore_result all = { 0 };
	struct shard whole = { 0, 1 };
	struct timespec now;
	char tmp[PATH_MAX];
	FILE *f = NULL;

	if (!pieces_join(pos->before ? pos->before : &none, sofar, &all))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	all.seconds += (double)(now.tv_sec - pos->t0.tv_sec) + (now.tv_nsec - pos->t0.tv_nsec) / 1e9;
	all.interrupted = true;	/* a position, not a result: never merged */
	errno = ENAMETOOLONG;
	if (position_part(pos->path, tmp))
		f = fopen(tmp, "w");
	if (f)
		print_json(f, pos->cfg, &all, &whole, pos->argc, pos->argv);
	if (!f || close_output(f) != 0 || rename(tmp, pos->path) != 0)
		fprintf(stderr, "txpath check: --checkpoint %s: %s\n", pos->path, strerror(errno));
	free(all.pieces);
}

/* A position's file that does not fit cfg: false and why. */
static bool position_fits(const struct shard_file *f, const struct txp_explore_cfg *cfg,
			  char *msg, size_t len)
{
	if (strcmp(f->version, txp_version()))
		snprintf(msg, len, "written by txpath %s, this is txpath %s", f->version, txp_version());
	else if (strcmp(f->identity, shard_identity(cfg)))
		snprintf(msg, len, "of another scenario than this command's");
	else
		return true;
	return false;
}

/* --resume FILE: the position it holds, of this scenario. */
static void position_read(const char *path, const struct txp_explore_cfg *cfg,
			  struct shard_file *f)
{
	char msg[256];

	if (!shard_read(path, f, msg, sizeof(msg)) || !position_fits(f, cfg, msg, sizeof(msg))) {
		shard_file_free(f);
		usage_error("check", "--resume %s: %s", path, msg);
	}
	f->part.complete = true;	/* in what it holds */
	f->part.interrupted = false;
}

/* The split of a resumed search: the pieces not explored before. */
static enum txp_explore_take position_take(uint64_t piece, void *arg)
{
	const struct txp_explore_result *before = arg;
	size_t lo = 0, hi = before ? before->npieces : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before->pieces[mid].index == piece)
			return TXP_EXPLORE_SKIP;
		if (before->pieces[mid].index < piece)
			lo = mid + 1;
		else
			hi = mid;
	}
	return TXP_EXPLORE_TAKE;
}

/* -- the command ------------------------------------------------------------------ */

/* The search as picked: split among jobs workers or not, from a position
 * or not, saving its own or not. */
static int search(struct txp_explore_cfg *cfg, const struct picks *p, unsigned jobs,
		  struct txp_explore_result *res, int argc, char **argv, char *err, size_t errlen)
{
	struct shard_file before = { 0 };
	struct position pos = { .path = p->checkpoint ? p->checkpoint : p->resume, .cfg = cfg,
				.argc = argc, .argv = argv };
	struct txp_explore_split split = { .take = position_take };
	struct txp_explore_result part;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &pos.t0);
	if (p->resume) {
		position_read(p->resume, cfg, &before);
		pos.before = split.arg = &before.part;
	}
	if (p->checkpoint || p->resume) {
		position_can_save(p->checkpoint ? "--checkpoint" : "--resume", pos.path);
		cfg->split = &split;
		cfg->checkpoint = position_save;
		cfg->checkpoint_arg = &pos;
		cfg->checkpoint_seconds = p->every;
	}
	/* Resumed, in workers even if one: a driver's crash then counts the
	 * position's schedules too (an ending in this process knows only
	 * this run's). */
	if (jobs > 1 || pos.before)
		rc = txp_explore_jobs(cfg, jobs, pos.before, false, res, err, errlen);
	else if (!cfg->split)
		rc = txp_explore_run(cfg, res, err, errlen);
	else if ((rc = txp_explore_run(cfg, &part, err, errlen)) == 0) {
		rc = txp_explore_merge(cfg, &part, 1, res, err, errlen);
		res->interrupted |= part.interrupted;
		res->seconds = part.seconds;
		txp_explore_result_free(&part);
	}
	if (pos.before)
		res->seconds += pos.before->seconds;
	shard_file_free(&before);
	cfg->split = NULL;
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct txp_explore_cfg cfg;
	struct txp_explore_result res;
	struct picks picks = PICKS_INIT;
	struct json_ending ending = { &cfg, argc, argv };
	unsigned jobs;
	char err[256] = "", by[32] = "";
	int rc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--merge"))
			return check_merge(argc, argv, i);
	if (!parse_args(argc, argv, &cfg, &picks))
		return 0;
	if (picks.progress || (!picks.json && !picks.shard && isatty(STDERR_FILENO))) {
		cfg.progress = show_progress;
		cfg.progress_arg = &cfg;
	}
	cfg.stop = signals_catch();
	if (picks.shard)
		return check_shard(&cfg, &picks, argc, argv);
	if (picks.json) {
		cfg.ending_report = ending_json;
		cfg.ending_arg = &ending;
	}
	jobs = jobs_of(&cfg, &picks);
	if (jobs > 1)
		snprintf(by, sizeof(by), ", %u workers", jobs);
	rc = search(&cfg, &picks, jobs, &res, argc, argv, err, sizeof(err));
	if (cfg.progress)
		fputs("\r\033[K", stderr);
	if (rc == -EINVAL)
		usage_error("check", "%s", err);
	if (rc > 0)
		return ended_by_worker(rc, err);
	if (rc != 0) {
		fprintf(stderr, "txpath check: %s\n", err);
		return 1;
	}
	return report(&cfg, &res, &picks, by, argc, argv);
}
