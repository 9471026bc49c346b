#include <stdio.h>
#include "txpath/run.h"
int main(void)
{
	for (const struct txp_era *e = txp_eras; e->name; e++) {
		struct txp_run_cfg cfg;
		struct txp_run_result r;
		char err[256];
		txp_run_cfg_init(&cfg);
		txp_run_cfg_era(&cfg, e->name);
		cfg.ring = 32; cfg.frags_max = 3; cfg.threads = 3; cfg.packets = 300000;
		if (txp_run(&cfg, &r, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
		printf("%-10s sub %lu tx %lu drop %lu lost %lu dup %lu calls %lu onstop %lu bug %lu busy %lu locked %lu coll %lu stops %lu wakes %lu %.2fs %.2f Mpps stalled %d acc %d rfs %lu\n",
		 e->name, r.dev.submitted, r.dev.transmitted, r.dropped, r.lost, r.duplicated, r.dev.xmit_calls, r.dev.xmit_on_stopped, r.dev.bug_logs, r.dev.tx_busy, r.dev.tx_locked, r.dev.collisions, r.dev.stops, r.dev.wakes, r.seconds, r.mpps, r.stalled, r.accounted, r.sim.ring_full_stopped);
	}
	return 0;
}
