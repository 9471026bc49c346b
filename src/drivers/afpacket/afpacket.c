/*
 * afpacket.c - a PACKET_TX_RING (TPACKET_V2 or V3) as a transmit ring.
 *
 * Ring slot i is frame i of the mmap'ed TX ring.  start_xmit copies the
 * packet's bytes after the slot's tpacket header and hands the slot to the kernel
 * (status SEND_REQUEST).  The completion context kicks the kernel with
 * send(MSG_DONTWAIT), which transmits every requested frame in order, and
 * takes slots whose status is back to AVAILABLE as completions.  EAGAIN or
 * ENOBUFS from the kick (the kernel's qdisc, or the device, is full; the
 * frame stays requested) stops the queue until a kick goes through.  So
 * does a kick the kernel took only part of: the socket's send buffer
 * (SO_SNDBUF) charges every frame until its skb is freed, and when it
 * runs out after a first frame, send() returns the bytes it sent, no
 * error, the rest still requested (afp_kernel_head()).
 * PACKET_QDISC_BYPASS (optional) skips the kernel's own qdisc.
 *
 * What the kernel does not say: a frame its qdisc holds when the link
 * goes down is purged, and one given to the noop qdisc of a device going
 * down is freed, each with its status back to AVAILABLE and no word to
 * the socket, so it counts as transmitted though never sent.  With the
 * qdisc bypassed the device refuses a frame without carrier
 * (NET_XMIT_DROP), the kernel puts it back as SEND_REQUEST and send fails
 * with ENOBUFS: congestion here, then dev-down.  With PACKET_LOSS (set, or
 * one malformed frame would block the ring) a malformed frame is skipped
 * as AVAILABLE too; txpath's frames are checked against the MTU at
 * set-up, so none is.  TP_STATUS_WRONG_FORMAT, if it ever shows, is
 * dropped as refused (driver).
 *
 * Many queues: a socket and TX ring per txpath queue.  The kernel picks
 * the interface's queue for each frame itself (txpath/netdrv.h says how):
 * a flow keeps one through the qdisc, whichever socket sent it.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "drivers/common/iface.h"
#include "drivers/common/device.h"

#define AFP_PAGE 4096u

struct afpacket {
	struct iface ifc;
	int fd;
	unsigned version;	/* TPACKET_V2 or TPACKET_V3 */
	unsigned data_off;	/* frame data after the slot's header */
	void *map;
	size_t map_len;
};

/* The slot's status word, shared with the kernel. */
static _Atomic uint32_t *afp_status(struct ring *r, uint64_t idx)
{
	struct afpacket *a = txp__ring_drv(r);
	unsigned char *slot = txp__ring_buf(r, idx);

	if (a->version == TPACKET_V3)
		return (_Atomic uint32_t *)&((struct tpacket3_hdr *)(void *)slot)->tp_status;
	return (_Atomic uint32_t *)&((struct tpacket2_hdr *)(void *)slot)->tp_status;
}

/*
 * post: gather the packet's bytes into TX ring frame idx and request its
 * sending.
 * Synchronization: serialised by txp__ring_start_xmit().
 * Context: a producer.
 * Return codes: 0; -EBUSY if the kernel still holds the frame (the
 * device is busy: the ring counts it and backs off); -EMSGSIZE
 * (txp__ring_gather()).
 */
static int afp_post(struct ring *r, uint64_t idx, struct txp_pkt *pkt)
{
	struct afpacket *a = txp__ring_drv(r);
	unsigned char *slot = txp__ring_buf(r, idx);
	_Atomic uint32_t *status = afp_status(r, idx);
	int len;

	/* Acquire: pairs with the kernel's release of AVAILABLE (its
	 * smp_wmb() before the status store), so the frame is ours. */
	if (txp_unlikely(txp_load_acquire(status) != TP_STATUS_AVAILABLE))
		return -EBUSY;
	len = txp__ring_gather(r, pkt, slot + a->data_off, txp__ring_slot_size(r) - a->data_off);
	if (len < 0)
		return len;
	if (a->version == TPACKET_V3) {
		struct tpacket3_hdr *h = (void *)slot;

		h->tp_len = (uint32_t)len;
		h->tp_snaplen = (uint32_t)len;
		h->tp_next_offset = 0;
	} else {
		struct tpacket2_hdr *h = (void *)slot;

		h->tp_len = (uint32_t)len;
		h->tp_snaplen = (uint32_t)len;
	}
	/* Release: the frame before its status; pairs with the kernel's
	 * smp_rmb() after reading SEND_REQUEST in tpacket_snd(). */
	txp_store_release(status, TP_STATUS_SEND_REQUEST);
	return 0;
}

/*
 * Where the kernel stopped taking frames in a kick that went through, of
 * [from, prod) (from: the oldest frame still the driver's to ask about):
 * the first still SEND_REQUEST, or prod when it took them all.  It takes
 * requested frames in order and marks each SENDING before it transmits
 * it; one it could not take (its socket's send buffer full) it leaves
 * SEND_REQUEST, and stops.  Read after send() returned: what it wrote
 * there is seen.
 */
static uint64_t afp_kernel_head(struct ring *r, uint64_t from, uint64_t prod)
{
	/* The newest taken, all were: one read in the common case. */
	if (from == prod || txp_load_relaxed(afp_status(r, prod - 1)) != TP_STATUS_SEND_REQUEST)
		return prod;
	while (txp_load_relaxed(afp_status(r, from)) != TP_STATUS_SEND_REQUEST)
		from++;
	return from;
}

/* Kick the kernel when frames were requested since it last took them all
 * (cons: the oldest not retired): 0, or -errno when the link is gone
 * (ENETDOWN, ENXIO, ENODEV).  A kick it took only part of is congestion:
 * the rest waits, requested, for the next one. */
static int afp_kick(struct ring *r, uint64_t cons, uint64_t prod)
{
	struct afpacket *a = txp__ring_drv(r);
	uint64_t kicked = txp__ring_kicked(r);

	if (kicked != prod) {
		if (send(a->fd, NULL, 0, MSG_DONTWAIT) >= 0) {
			kicked = afp_kernel_head(r, kicked > cons ? kicked : cons, prod);
			txp__ring_set_kicked(r, kicked);
			txp__ring_set_congested(r, kicked != prod);
		} else if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR) {
			txp__ring_set_congested(r, true);
		} else if (errno == ENETDOWN || errno == ENXIO || errno == ENODEV) {
			return -errno;
		} else {
			/* The kernel refused the kick itself: the frames stay
			 * requested, for the next one.  Not a state it should
			 * get into: counted. */
			txp__ring_count_error(r);
		}
	}
	return 0;
}

/*
 * reap: kick the kernel, then mark the frames it handed back — those too
 * when the kick finds the link gone: a frame an earlier kick sent may be
 * handed back only now, and it reached the wire.
 * Synchronization: the completion context only.
 * Context: the completion context.
 * Return codes: 0; -errno when the link is gone (ENETDOWN, ENXIO, ENODEV).
 */
static int afp_reap(struct ring *r, uint64_t cons, uint64_t prod)
{
	int rc = afp_kick(r, cons, prod);

	for (; cons < prod; cons++) {
		uint32_t st;

		if (txp__ring_slot_done(r, cons))
			continue;
		/* Acquire: pairs with the kernel's release of the status in
		 * tpacket_destruct_skb(): it is finished with the frame. */
		st = txp_load_acquire(afp_status(r, cons));
		if (st & (TP_STATUS_SEND_REQUEST | TP_STATUS_SENDING))
			break;
		if (st & TP_STATUS_WRONG_FORMAT)
			txp__ring_slot_unsent(r, cons, TXP_DROP_DRIVER);
		else
			txp__ring_slot_sent(r, cons);
	}
	return rc;
}

/*
 * cancel: a frame still SEND_REQUEST was never taken by the kernel, which
 * reads the status only inside this socket's send(): with the completion
 * context stopped, none runs, so it is handed back (AVAILABLE).  One
 * SENDING is the kernel's until its skb is freed.
 * Synchronization, Context: the watchdog's, txp__ring_tx_timeout().
 * Return codes: true taken back; false the kernel holds it.
 */
static bool afp_cancel(struct ring *r, uint64_t idx)
{
	_Atomic uint32_t *status = afp_status(r, idx);

	if (txp_load_acquire(status) != TP_STATUS_SEND_REQUEST)
		return false;
	txp_store_release(status, TP_STATUS_AVAILABLE);
	return true;
}

static bool afp_link_ok(struct ring *r)
{
	struct afpacket *a = txp__ring_drv(r);

	return txp__iface_link_ok(&a->ifc);
}

static void afp_free(void *drv);

static const struct ring_ops afp_ring_ops = {
	.name = "afpacket",
	.post = afp_post,
	.reap = afp_reap,
	.cancel = afp_cancel,
	.link_ok = afp_link_ok,
	.release = afp_free,
};

static void afp_free(void *drv)
{
	struct afpacket *a = drv;

	if (a->map && a->map != MAP_FAILED)
		munmap(a->map, a->map_len);
	if (a->fd >= 0)
		close(a->fd);
	txp__iface_close(&a->ifc);
	free(a);
}

static unsigned pow2_at_least(unsigned v)
{
	unsigned p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Socket, version, options, ring, mmap, bind.  0 or -1 and a message. */
static int afp_setup(struct afpacket *a, const struct netdrv_queue_cfg *c, unsigned *slots,
		     unsigned *frame_size, char *err, size_t errlen)
{
	const struct txp_net_cfg *nc = c->net;
	int version = a->version == TPACKET_V3 ? TPACKET_V3 : TPACKET_V2, one = 1;
	unsigned hdr = a->version == TPACKET_V3 ? TPACKET3_HDRLEN : TPACKET2_HDRLEN;
	unsigned block, fpb, nblocks;
	struct sockaddr_ll sll;
	union {
		struct tpacket_req req;
		struct tpacket_req3 req3;
	} u;

	a->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (a->fd < 0) {
		txp__iface_sock_error(err, errlen, nc->ifname, "AF_PACKET socket", errno);
		return -1;
	}
	a->data_off = hdr - (unsigned)sizeof(struct sockaddr_ll);
	*frame_size = pow2_at_least(TPACKET_ALIGN(hdr + c->max_len));
	block = *frame_size > AFP_PAGE ? *frame_size : AFP_PAGE;
	fpb = block / *frame_size;
	nblocks = (c->slots + fpb - 1) / fpb;
	*slots = nblocks * fpb;
	memset(&u, 0, sizeof(u));
	u.req.tp_block_size = block;	/* the same first four fields in both */
	u.req.tp_block_nr = nblocks;
	u.req.tp_frame_size = *frame_size;
	u.req.tp_frame_nr = *slots;
	if (setsockopt(a->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) != 0 ||
	    setsockopt(a->fd, SOL_PACKET, PACKET_LOSS, &one, sizeof(one)) != 0 ||
	    (nc->qdisc_bypass &&
	     setsockopt(a->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) != 0) ||
	    setsockopt(a->fd, SOL_PACKET, PACKET_TX_RING, &u,
		       a->version == TPACKET_V3 ? sizeof(u.req3) : sizeof(u.req)) != 0) {
		txp__iface_sock_error(err, errlen, nc->ifname, "PACKET_TX_RING set-up", errno);
		return -1;
	}
	a->map_len = (size_t)block * nblocks;
	a->map = mmap(NULL, a->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0);
	if (a->map == MAP_FAILED) {
		txp__iface_sock_error(err, errlen, nc->ifname, "mmap of the TX ring", errno);
		return -1;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = 0;	/* transmit only: receive nothing */
	sll.sll_ifindex = a->ifc.ifindex;
	if (bind(a->fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		txp__iface_sock_error(err, errlen, nc->ifname, "bind", errno);
		return -1;
	}
	return 0;
}

static struct ring *afp_create(const struct netdrv_queue_cfg *c, char *err, size_t errlen)
{
	struct afpacket *a = calloc(1, sizeof(*a));
	struct ring_cfg rc = txp__netdrv_ring_cfg(c, &afp_ring_ops);

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->fd = -1;
	a->version = c->net->tpacket == 3 ? TPACKET_V3 : TPACKET_V2;
	if (txp__iface_open(&a->ifc, c->net->ifname, 0, err, errlen) != 0 ||
	    !txp__iface_fits_mtu(&a->ifc, c->max_len, err, errlen) ||
	    afp_setup(a, c, &rc.slots, &rc.slot_size, err, errlen) != 0) {
		afp_free(a);
		return NULL;
	}
	rc.buf = a->map;
	return txp__netdrv_make_ring(&rc, a, a->ifc.mac, err, errlen);
}

NETDRV_DEFINE(afpacket, afp_create);

struct txp_dev *txp_afpacket_create(const struct txp_afpacket_cfg *cfg, char *err, size_t errlen)
{
	struct txp_net_cfg net;

	if (!cfg)
		return txp__netdrv_no_cfg(err, errlen);
	net = (struct txp_net_cfg){
		.ifname = cfg->ifname,
		.tpacket = cfg->tpacket,
		.qdisc_bypass = cfg->qdisc_bypass,
	};
	return txp__netdrv_create(&afpacket_netdrv, &cfg->base, &net, 0, err, errlen);
}
