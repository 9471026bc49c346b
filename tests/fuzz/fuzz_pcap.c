/*
 * fuzz_pcap.c - `txpath recv --file`: any bytes as a pcap capture, read
 * by libpcap and counted by recv_count (tools/recv_count.c): each frame
 * through txp_frame_parse and the per-flow accounting.  Properties: no
 * crash, undefined behaviour, leak or unbounded allocation (libFuzzer's
 * malloc limit); an error leaves a terminated message; every frame is
 * counted once: as someone else's, damaged, or by its flow (received,
 * duplicated, too old, too far, untracked).
 */
#include <string.h>

#include "fuzz.h"
#include "recv_count.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recv_count rc = { .flows = flows_new(64, 4) };
	struct flow_stats sum;
	char err[256];

	FUZZ_CHECK(rc.flows);
	memset(err, 'x', sizeof(err));
	if (recv_count_pcap_buffer(&rc, data, size, err, sizeof(err)) != 0)
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) && err[0]);
	flows_sum(rc.flows, &sum);
	FUZZ_CHECK(rc.alien + rc.bad <= rc.frames);
	FUZZ_CHECK(sum.received + sum.duplicated + sum.too_old + sum.too_far +
			   flows_untracked(rc.flows) ==
		   recv_count_ours(&rc));
	flows_free(rc.flows);
	return 0;
}
