/* net_check.c - a program of libtxpath-net's: it links (libxdp, libbpf,
 * libpcap come with it) and frames what it builds parse back. */
#include <stdio.h>

#include <txpath/txpath.h>

int main(void)
{
	unsigned char buf[TXP_FRAME_MIN_LEN];
	struct txp_frame_addr a = { 0 };
	uint32_t flow;
	uint64_t seq;

	txp_frame_addr_resolve(&a, NULL);
	txp_frame_build(buf, sizeof(buf), &a, 7, 42);
	if (!txp_frame_parse(buf, sizeof(buf), &flow, &seq) || flow != 7 || seq != 42) {
		printf("frame did not parse back\n");
		return 1;
	}
	printf("net: frame of flow %u seq %llu parsed back\n", flow, (unsigned long long)seq);
	return 0;
}
