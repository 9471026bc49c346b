/*
 * recv_count.c - classify received frames, and read pcap captures
 * (recv_count.h).
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "recv_count.h"
#include "txpath/net.h"

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void recv_count_frame(struct recv_count *rc, const unsigned char *data, unsigned len)
{
	uint32_t id;
	uint64_t seq;

	rc->frames++;
	if (txp_frame_parse(data, len, &id, &seq)) {
		flows_record(rc->flows, id, seq);
		return;
	}
	/* Not a valid frame of ours: damaged (it has our magic word where
	 * ours do), or someone else's. */
	if (len >= TXP_FRAME_HDR_LEN + 4 && data[12] == 0x08 && data[13] == 0x00 &&
	    get32(data + TXP_FRAME_HDR_LEN) == TXP_FRAME_MAGIC)
		rc->bad++;
	else
		rc->alien++;
}

/* Every frame of an open capture, then close it; 0 or -1 and a message. */
static int count_capture(struct recv_count *rc, pcap_t *p, const char *name, char *err,
			 size_t errlen)
{
	struct pcap_pkthdr *h;
	const unsigned char *data;
	int r;

	while ((r = pcap_next_ex(p, &h, &data)) == 1) {
		if (h->caplen < h->len) {
			rc->frames++;
			rc->bad++;	/* truncated: not the frame that was sent */
		} else {
			recv_count_frame(rc, data, h->caplen);
		}
	}
	if (r == PCAP_ERROR)
		snprintf(err, errlen, "%s: %s", name, pcap_geterr(p));
	pcap_close(p);
	return r == PCAP_ERROR ? -1 : 0;
}

int recv_count_pcap_file(struct recv_count *rc, const char *path, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE];
	FILE *f = open_input(path);
	pcap_t *p;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* pcap_close() closes f too. */
	p = pcap_fopen_offline(f, perr);
	if (!p) {
		fclose(f);
		snprintf(err, errlen, "%s: %.200s", path, perr);
		return -1;
	}
	return count_capture(rc, p, path, err, errlen);
}

int recv_count_pcap_buffer(struct recv_count *rc, const void *buf, size_t len, char *err,
			   size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE];
	FILE *f = len ? fmemopen((void *)buf, len, "rb") : NULL;
	pcap_t *p;

	if (!f) {
		snprintf(err, errlen, "buffer: %s", len ? "cannot open" : "empty");
		return -1;
	}
	/* pcap_close() closes f too. */
	p = pcap_fopen_offline(f, perr);
	if (!p) {
		fclose(f);
		snprintf(err, errlen, "buffer: %.200s", perr);
		return -1;
	}
	return count_capture(rc, p, "buffer", err, errlen);
}
