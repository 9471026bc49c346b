/*
 * modern_2023.c - the modern driver on the stack of before Linux's 2024
 * watchdog fix ("net: fix races in netdev_tx_sent_queue()/dev_watchdog()").
 *
 * The driver is `modern` (BQL, the lockless stop/wake helpers); what
 * differs is the order its stack keeps: an XOFF bit (BQL's, or the
 * driver's) is set inside start_xmit, and trans_start is stamped only
 * when start_xmit returns (txq_trans_update()); the watchdog reads
 * trans_start, then the bits, with no barrier.  A queue idle for longer
 * than the timeout that then stops shows the watchdog the idle's
 * trans_start: "NETDEV WATCHDOG ... timed out" for a queue stopped a
 * moment ago, the 2024 analogue of 2004's false BUG.
 * `txpath check --personality modern-2023 --watchdog` finds it.
 */
#include "sim.h"

const struct txp_sim_personality txp__sim_modern_2023 = {
	.name = "modern-2023",
	.summary = "modern on the stack before the 2024 watchdog fix: XOFF set before trans_start "
		   "is written, no barriers (a false NETDEV WATCHDOG)",
	.own_lock = false,
	.ring_full = TXP_SIM_FULL_SILENT,
	.completion = TXP_SIM_COMP_HELPER,
	.stop = TXP_SIM_STOP_HELPER,
	.bql = true,
	.trans_after_xmit = true,
};
