/*
 * era.c - the era presets: each a chapter of the LLTX story.
 */
#include <string.h>

#include "txpath/run.h"

const struct txp_era txp_eras[] = {
	{ "2.6.8", "the core's xmit lock serialises start_xmit",
	  TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, "locked", true },
	{ "2.6.9", "NETIF_F_LLTX: tg3 locks for itself; the race logs false BUGs",
	  TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, "tg3-2004", false },
	{ "silence", "Roland's patch: the message is gone, the race stays",
	  TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, "tg3-silent", false },
	{ "2.6.11-rc2", "the xmit lock disables irqs and guards the driver too",
	  TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, "rc2", true },
	{ "2.6.11", "Miller's rule: full and stopped is a harmless race",
	  TXP_LOCK_LLTX, TXP_RUNNER_CONCURRENT, "tg3-2005", false },
	{ "2.6.18", "one context runs a queue at a time",
	  TXP_LOCK_LLTX, TXP_RUNNER_EXCLUSIVE, "tg3-2005", true },
	{ NULL, NULL, TXP_LOCK_CORE, TXP_RUNNER_CONCURRENT, NULL, false },
};

const struct txp_era *txp_era_lookup(const char *name)
{
	for (const struct txp_era *e = txp_eras; e->name; e++)
		if (strcmp(e->name, name) == 0)
			return e;
	return NULL;
}
