/*
 * pcap.c - every transmitted frame into a pcap file, with libpcap.
 *
 * The ring's slots are frame buffers; start_xmit builds the frame in its
 * slot, and the completion context (the "device") writes posted frames to
 * the file in ring order, each a completion.  For inspection, and for
 * deterministic tests: the file holds exactly the frames sent, in the
 * order the device sent them.
 */
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "drivers/common/netdrv.h"

struct pcapdrv {
	pcap_t *dead;
	pcap_dumper_t *dump;
};

/*
 * reap: write the posted frames [kicked, prod) to the file, in order.
 * Synchronization: the completion context only; the slots are read after
 * the acquire of prod in ring_pass().
 * Context: the completion context.
 * Return codes: 0.
 */
static int pcapdrv_reap(struct ring *r, uint64_t cons, uint64_t prod)
{
	struct pcapdrv *p = ring_drv(r);
	uint64_t i = txp_load_relaxed(&r->kicked);
	struct pcap_pkthdr h;
	struct timeval tv;

	(void)cons;
	gettimeofday(&tv, NULL);
	h.ts = tv;
	h.caplen = h.len = r->frame_len;
	for (; i < prod; i++) {
		pcap_dump((unsigned char *)p->dump, &h, ring_buf(r, i));
		r->slot[i % r->size].done = true;
	}
	txp_store_relaxed(&r->kicked, i);
	return 0;
}

static void pcapdrv_release(void *drv)
{
	struct pcapdrv *p = drv;

	if (p->dump)
		pcap_dump_close(p->dump);
	if (p->dead)
		pcap_close(p->dead);
	free(p);
}

static const struct ring_ops pcapdrv_ring_ops = {
	.name = "pcap",
	.post = ring_post_in_slot,
	.reap = pcapdrv_reap,
	.release = pcapdrv_release,
};

static struct ring *pcapdrv_create(const struct netdrv_cfg *c, char *err, size_t errlen)
{
	struct pcapdrv *p = calloc(1, sizeof(*p));
	struct ring_cfg rc = netdrv_ring_cfg(c, &pcapdrv_ring_ops);

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->dead = pcap_open_dead(DLT_EN10MB, 65535);
	p->dump = p->dead ? pcap_dump_open(p->dead, c->net->file) : NULL;
	if (!p->dump) {
		snprintf(err, errlen, "%s: cannot write the pcap file: %s", c->net->file,
			 p->dead ? pcap_geterr(p->dead) : "out of memory");
		pcapdrv_release(p);
		return NULL;
	}
	return netdrv_make_ring(&rc, p, NULL, err, errlen);
}

NETDRV_DEFINE(pcap, pcapdrv_create);
