/*
 * frame.h - building txpath's Ethernet/IPv4/UDP frames fast: a template
 * per run (headers, checksums, payload pattern), stamped per packet with
 * its flow and sequence number and the UDP checksum fixed up.
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

/* Write the template of a len-byte frame (flow and seq zero, UDP checksum
 * not yet set); returns the unfolded UDP checksum sum of it. */
uint32_t txp_frame_template(void *buf, unsigned len, const struct txp_frame_addr *a);

/* Stamp flow and seq into a copy of the template and set its UDP checksum. */
void txp_frame_stamp(void *buf, uint32_t csum_base, uint32_t flow, uint64_t seq);

#endif
