/*
 * era.c - the era presets: each a chapter of the LLTX story.
 */
#include <string.h>

#include "run/run.h"

const struct txp_era txp_eras[] = {
	{ "2.6.8", "the core's xmit lock serialises start_xmit",
	  TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, "locked", .race_impossible = true },
	{ "2.6.9", "NETIF_F_LLTX: tg3 locks for itself; the race logs false BUGs",
	  TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, "tg3-2004", .race_impossible = false },
	{ "silence", "Roland's patch: the message is gone, the race stays",
	  TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, "tg3-silent", .race_impossible = false },
	{ "2.6.11-rc2", "the xmit lock disables irqs and guards the driver too",
	  TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, "rc2", .race_impossible = true },
	{ "2.6.11", "Miller's rule: full and stopped is a harmless race",
	  TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, "tg3-2005", .race_impossible = false },
	{ "2.6.18", "one context runs a queue at a time",
	  TXP_LOCK_LLTX, TXP_RUNNER_EXCLUSIVE, "tg3-2005", .race_impossible = true },
	{ "2.6.38", "a queue per CPU, each with its own xmit lock; XPS picks the sender's",
	  TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, "locked", .race_impossible = true,
	  .queues = 2, .bulk = 1, .busylock = true },
	{ "3.3", "byte queue limits: only as many bytes in the ring as the line needs",
	  TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, "locked-bql", .race_impossible = true,
	  .queues = 2, .bql = true, .bulk = 1, .busylock = true },
	{ "3.18", "bulk dequeue: a batch per xmit lock, the doorbell on the last (xmit_more)",
	  TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, "locked-bql", .race_impossible = true,
	  .queues = 2, .bql = true, .bulk = 32, .busylock = true },
	{ "5.1-nolock", "a lockless pfifo_fast: one runner by trylock; a packet can be stranded",
	  TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, "locked", .race_impossible = true,
	  .qdisc = "nolock-5.1" },
	{ "5.13-missed", "a missed trylock sets MISSED and retries; run_end reschedules on it",
	  TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, "locked", .race_impossible = true,
	  .qdisc = "nolock-5.13" },
	{ "5.19-barrier",
	  "5.13's protocol with 2022's barriers: test_and_set_bit, smp_mb() after run_end's unlock",
	  TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, "locked", .race_impossible = true,
	  .qdisc = "nolock-5.19" },
	{ "6.x", "the lockless stop/wake helpers, and the watchdog resets a stuck queue",
	  TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, "modern", .race_impossible = true,
	  .queues = 2, .bql = true, .bulk = 32, .watchdog_ms = TXP_DEV_WATCHDOG_MS,
	  .busylock = true },
	{ "6.18-draining", "the lockless qdisc today: DRAINING, quota sets MISSED, the bypass",
	  TXP_LOCK_CORE, TXP_RUNNER_EXCLUSIVE, "locked", .race_impossible = true,
	  .qdisc = "nolock" },
	{ NULL, NULL, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL, .race_impossible = false },
};

const struct txp_era *txp_era_lookup(const char *name)
{
	for (const struct txp_era *e = txp_eras; e->name; e++)
		if (strcmp(e->name, name) == 0)
			return e;
	return NULL;
}
