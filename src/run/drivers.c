/*
 * drivers.c - the drivers a workload can run on.
 */
#include <string.h>

#include "run/run.h"

extern const struct txp_run_driver txp_run_driver_sim;
extern const struct txp_run_driver txp_run_driver_null;
extern const struct txp_run_driver txp_run_driver_afpacket, txp_run_driver_afxdp,
	txp_run_driver_tap, txp_run_driver_pcap;

const struct txp_run_driver *const txp_run_drivers[] = {
	&txp_run_driver_sim,
	&txp_run_driver_null,
	&txp_run_driver_afpacket,
	&txp_run_driver_afxdp,
	&txp_run_driver_tap,
	&txp_run_driver_pcap,
	NULL,
};

const struct txp_run_driver *txp_run_driver(const char *name)
{
	for (int i = 0; txp_run_drivers[i]; i++)
		if (strcmp(txp_run_drivers[i]->name, name) == 0)
			return txp_run_drivers[i];
	return NULL;
}
