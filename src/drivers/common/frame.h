/*
 * frame.h - the layout of txpath's Ethernet/IPv4/UDP frames, for frame.c
 * and the tests that look inside them (building and parsing them:
 * txpath/net.h).
 */
#ifndef TXP_DRIVERS_FRAME_H
#define TXP_DRIVERS_FRAME_H

#include <stdint.h>

#include "txpath/net.h"

/* Offsets in the frame. */
#define FRAME_OFF_IP      14u
#define FRAME_OFF_UDP     34u
#define FRAME_OFF_PAYLOAD 42u
#define FRAME_OFF_FLOW    (FRAME_OFF_PAYLOAD + 4u)
#define FRAME_OFF_SEQ     (FRAME_OFF_PAYLOAD + 8u)
#define FRAME_HEAD_LEN    (FRAME_OFF_PAYLOAD + 16u)	/* headers + magic, flow, seq */

#endif
