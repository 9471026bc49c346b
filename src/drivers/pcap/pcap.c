/*
 * pcap.c - every transmitted frame into a pcap file, with libpcap.
 *
 * The ring's slots are frame buffers; start_xmit copies the packet's bytes
 * into its slot, and the completion context (the "device") writes posted frames to
 * the file in ring order, each a completion.  For inspection, and for
 * deterministic tests: the file holds exactly the frames sent, in the
 * order the device sent them.
 *
 * A frame is transmitted once it is in the file: libpcap writes through
 * stdio, which holds frames in its buffer, so every pass ends with a
 * flush and only then are its frames sent.  A write error (a full disk,
 * /dev/full) kills the device: the frames that did not reach the file,
 * and every later one, are dropped as tx-error (txp__ring_die()).
 *
 * The file "-" is standard output, written through a descriptor of the
 * driver's own (a dup): closing the device closes that one, and the
 * process's stdout stays open for whatever it prints after.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "drivers/common/device.h"

/* On disk: a file header, then per frame a record header (seconds,
 * microseconds, caplen, len: 32 bits each) and the frame. */
#define PCAP_FILE_HDR_LEN 24
#define PCAP_REC_HDR_LEN 16

struct pcapdrv {
	pcap_t *dead;
	pcap_dumper_t *dump;
	off_t start;		/* where the file header went; -1: not a regular file */
	uint64_t written;	/* frames [0, written) are whole in the file ... */
	off_t body;		/* ... in this many bytes after the file header */
	int err;		/* the write error that killed it, 0 while it writes */
};

/*
 * After a failed write: how many frames made it whole into the file.  A
 * regular file says so by its offset, and is cut back to them, so that it
 * holds exactly the frames counted transmitted.  Anything else (a device,
 * a pipe) tells nothing: only those written before.
 */
static uint64_t pcapdrv_salvage(struct ring *r, struct pcapdrv *p, uint64_t posted)
{
	int fd = fileno(pcap_dump_file(p->dump));
	off_t end = p->start < 0 ? -1 : lseek(fd, 0, SEEK_CUR);
	off_t body = end - p->start - PCAP_FILE_HDR_LEN, whole_body = p->body;
	uint64_t whole = p->written;

	if (end < 0 || body < 0)
		return p->written;
	while (whole < posted &&
	       whole_body + PCAP_REC_HDR_LEN + (off_t)txp__ring_slot_len(r, whole) <= body)
		whole_body += PCAP_REC_HDR_LEN + (off_t)txp__ring_slot_len(r, whole++);
	if (ftruncate(fd, p->start + PCAP_FILE_HDR_LEN + whole_body) != 0)
		return p->written;
	return whole;
}

/* The file took no more (p->err): keep what is whole, drop what stdio
 * still holds (so that closing writes nothing more), kill the device. */
static void pcapdrv_failed(struct ring *r, uint64_t posted)
{
	struct pcapdrv *p = txp__ring_drv(r);
	char cause[80];

	p->written = pcapdrv_salvage(r, p, posted);
	__fpurge(pcap_dump_file(p->dump));
	snprintf(cause, sizeof(cause), "write error (%s)", strerror(p->err));
	txp__ring_log(r, cause);
	txp__ring_die(r, TXP_DROP_TX_ERROR, cause);
}

/* Write [kicked, prod) to the file and flush: the frames are whole in it
 * once the flush returns, and p->written says how far that is. */
static void pcapdrv_write(struct ring *r, uint64_t prod)
{
	struct pcapdrv *p = txp__ring_drv(r);
	struct pcap_pkthdr h;
	struct timeval tv;

	off_t body = p->body;

	gettimeofday(&tv, NULL);
	h.ts = tv;
	errno = 0;
	for (uint64_t i = txp__ring_kicked(r); i < prod; i++) {
		h.caplen = h.len = txp__ring_slot_len(r, i);
		if (!h.caplen)
			continue;	/* dropped already */
		body += PCAP_REC_HDR_LEN + (off_t)h.caplen;
		pcap_dump((unsigned char *)p->dump, &h, txp__ring_buf(r, i));
	}
	if (pcap_dump_flush(p->dump) == 0 && !ferror(pcap_dump_file(p->dump))) {
		p->written = prod;
		p->body = body;
		return;
	}
	p->err = errno ? errno : EIO;
	pcapdrv_failed(r, prod);
}

/*
 * reap: write the posted frames [kicked, prod) to the file, in order, and
 * flush; the frames in the file are sent, the others (after a write
 * error, and all once the device is dead) unsent: tx-error.
 * Synchronization: the completion context only; the slots are read after
 * the acquire of prod in ring_pass().
 * Context: the completion context (or the closing one, after it).
 * Return codes: 0 (a write error kills the device with txp__ring_die()).
 */
static int pcapdrv_reap(struct ring *r, uint64_t cons, uint64_t prod)
{
	struct pcapdrv *p = txp__ring_drv(r);

	if (!p->err)
		pcapdrv_write(r, prod);
	txp__ring_set_kicked(r, prod);
	for (uint64_t i = cons; i < prod; i++) {
		if (i < p->written)
			txp__ring_slot_sent(r, i);
		else
			txp__ring_slot_unsent(r, i, TXP_DROP_TX_ERROR);
	}
	return 0;
}

/* Where the file header goes: the stream's offset before anything is
 * written (the header waits in stdio's buffer); -1 unless a regular file. */
static off_t pcapdrv_start(pcap_dumper_t *dump)
{
	int fd = fileno(pcap_dump_file(dump));
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	return lseek(fd, 0, SEEK_CUR);
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
	.post = txp__ring_post_in_slot,
	.reap = pcapdrv_reap,
	.release = pcapdrv_release,
};

/* The dumper of file: "-" is a copy of standard output's descriptor
 * (what stdout holds goes first); NULL and libpcap's or errno's message in
 * err if it cannot be opened. */
static pcap_dumper_t *pcapdrv_open(pcap_t *dead, const char *file, char *err, size_t errlen)
{
	pcap_dumper_t *dump;
	FILE *f;
	int fd;

	if (!txp_pcap_file_is_stdout(file)) {
		dump = pcap_dump_open(dead, file);
		if (!dump)	/* libpcap's message names the file. */
			snprintf(err, errlen, "cannot write the pcap file: %s", pcap_geterr(dead));
		return dump;
	}
	fflush(stdout);
	fd = dup(STDOUT_FILENO);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write the pcap file to standard output: %s",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* Ethernet has a link type: only writing the header can fail, and
	 * libpcap then closes f itself. */
	dump = pcap_dump_fopen(dead, f);
	if (!dump)
		snprintf(err, errlen, "cannot write the pcap file to standard output: %s",
			 pcap_geterr(dead));
	return dump;
}

static struct ring *pcapdrv_create(const struct netdrv_queue_cfg *c, char *err, size_t errlen)
{
	struct pcapdrv *p = calloc(1, sizeof(*p));
	struct ring_cfg rc = txp__netdrv_ring_cfg(c, &pcapdrv_ring_ops);

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->dead = pcap_open_dead(DLT_EN10MB, 65535);
	if (!p->dead)
		snprintf(err, errlen, "cannot write the pcap file: out of memory");
	else
		p->dump = pcapdrv_open(p->dead, c->net->file, err, errlen);
	if (!p->dump) {
		pcapdrv_release(p);
		return NULL;
	}
	p->start = pcapdrv_start(p->dump);
	if (txp_pcap_file_is_stdout(c->net->file))
		rc.ifname = TXP_PCAP_STDOUT_NAME;
	return txp__netdrv_make_ring(&rc, p, NULL, err, errlen);
}

NETDRV_DEFINE(pcap, pcapdrv_create);

struct txp_dev *txp_pcap_create(const struct txp_pcap_cfg *cfg, char *err, size_t errlen)
{
	struct txp_net_cfg net;
	struct txp_netdrv_cfg base;

	if (!cfg)
		return txp__netdrv_no_cfg(err, errlen);
	net = (struct txp_net_cfg){ .file = cfg->file };
	base = cfg->base;
	if (!base.dev.name && txp_pcap_file_is_stdout(cfg->file))
		base.dev.name = TXP_PCAP_STDOUT_NAME;
	return txp__netdrv_create(&pcap_netdrv, &base, &net, 0, err, errlen);
}
