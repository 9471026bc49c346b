/*
 * doorbell.h - the explorer's record of a plugin's doorbell (check build
 * only; txpath/nic.h): which packets start_xmit took and has not yet
 * announced to the NIC by writing its ring's tail register, for the
 * oracle's no-doorbell verdict (check/oracle.h).  Kept here, outside
 * the instrumented code, as the explorer's own record: the contexts it
 * serializes call it.
 */
#ifndef TXP_CHECK_DOORBELL_H
#define TXP_CHECK_DOORBELL_H

#include <stdbool.h>

#include "txpath/dev.h"
#include "txpath/pkt.h"

/* A new execution: no ring, nothing owed. */
void check_doorbell_begin(void);
/* dev's plugin registered its transmit ring (queue 0): followed from now. */
void check_doorbell_ring(const struct txp_dev *dev);
/* start_xmit is called with pkt; then returns, having taken it or not. */
void check_doorbell_xmit(const struct txp_pkt *pkt);
void check_doorbell_xmit_end(bool took);
/* pkt is freed (a start_xmit that frees its packet posted nothing). */
void check_doorbell_freed(const struct txp_pkt *pkt);
/* The tail register was written: all that was posted is announced. */
void check_doorbell_rung(void);
/* Packets start_xmit took on queue of dev, neither freed nor followed by
 * a doorbell in its call, and none written since: 0 for a device with no
 * ring registered. */
unsigned check_doorbell_unannounced(struct txp_dev *dev, unsigned queue);

#endif
