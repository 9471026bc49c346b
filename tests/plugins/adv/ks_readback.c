/*
 * ks_readback.c - examples/drivers/kernel_style.c with -DKS_NO_WAKE_MB (the
 * completion's smp_mb() missing between the release of next_to_clean and
 * its test of "stopped": a stall under tso and arm), and one line more:
 * the completion reads next_to_clean back, plainly, just before the test
 * (its sole writer may; as a trace point or a debug counter would).  The
 * read changes nothing the hardware does: on x86 it is forwarded from the
 * store buffer, and the release store may still wait there while the test
 * of "stopped" reads memory.  The same stall is due under tso and arm.
 */
#define KS_NO_WAKE_MB
#include <linux/netdevice.h>

static volatile unsigned int ks_readback;	/* the completion's own (kept: volatile) */

#undef netif_tx_queue_stopped
#define netif_tx_queue_stopped(txq) \
	(ks_readback = ring->next_to_clean, txp_netif_queue_stopped(txq))

#include "../../../examples/drivers/kernel_style.c"
