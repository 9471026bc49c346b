/*
 * afxdp.c - an AF_XDP socket's TX ring and UMEM as a transmit ring.
 *
 * A TX-only XSK socket on one queue of the interface (no XDP program is
 * needed to transmit).  The UMEM is a pool of frames, one per ring slot:
 * start_xmit copies the packet's bytes into its UMEM frame and posts a descriptor to
 * the TX ring.  The ring's reaper kicks the kernel with sendto()
 * while the TX ring holds descriptors (copy mode sends a batch per call;
 * zero-copy only when the ring asks for a wakeup), reads the completion
 * ring and gives the frames back to the pool.  The reaper is start_xmit
 * itself at the end of each burst (reap_in_xmit: one kick per burst, and
 * in copy mode the kernel sends the burst inside it, on the producer's
 * CPU, as DPDK's af_xdp PMD and trafgen do), or a producer waiting for
 * its packets (busy polling, txp__ring_busy_poll()), else the completion
 * context, which does so only while the queue is stopped or the
 * producers are quiet, and naps otherwise.  The queue stops when the
 * pool (or, never with the sizes below, the TX ring) runs out, and wakes
 * when completions free room.  Copy mode by default; zero-copy when the
 * interface's driver supports it (--xdp-mode zerocopy).
 *
 * Without txpath's own copy: the UMEM has, after the ring's frames,
 * pool_frames more that txp_afxdp_pool_create() hands to packet pools.  A
 * packet whose head lies in one of them, with no fragments, is posted by
 * the address of its frame: the user wrote the frame where the NIC reads
 * it.  Each such frame remembers the ring slot that posted it, so that
 * its completion (which names the frame) finds the slot.
 *
 * Many queues: an XSK socket per txpath queue, bound to the interface's
 * queues in order from cfg->queue, each with its own TX, fill and
 * completion rings, over one UMEM (XDP_SHARED_UMEM), rather than a UMEM
 * each: a packet pool's frames are then posted in place from whichever
 * queue the packet is sent on, one registration pins the memory once,
 * and each queue's ring has frames of its own in it: [q * slots, (q + 1) *
 * slots), the pools' after all of them.
 *
 * The TX and completion rings are shared with the kernel: their producer
 * and consumer words are read and written through the seam's acquire and
 * release, pairing with the kernel's own (smp_load_acquire and
 * smp_store_release in net/xdp/xsk_queue.h).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "drivers/common/iface.h"
#include "drivers/common/device.h"

/* The UMEM, queue 0's, shared by every queue's socket. */
struct xdp_umem {
	unsigned char *area;
	size_t area_len;
	unsigned frame_size;
	unsigned slots;		/* each queue's ring's frames */
	unsigned nq;		/* queues: their rings' frames are [0, nq * slots) */
	/* The pools' frames: [nq * slots, + pool_frames), carved in order
	 * (pool_carved so far); pool_slot[i]: the ring slot that posted pool
	 * frame i, written by post before the descriptor goes to the kernel,
	 * read by reap once the kernel completed the frame: the kernel orders
	 * the two (its acquire of the TX ring's producer, its release of the
	 * completion ring's), which ThreadSanitizer cannot see, so each slot
	 * is an atomic of its own, relaxed. */
	unsigned pool_frames;
	_Atomic unsigned pool_carved;
	_Atomic uint64_t *pool_slot;
	bool zerocopy;
	struct xsk_umem *umem;
};

/* One queue's socket. */
struct afxdp {
	struct iface ifc;
	struct xdp_umem *um;	/* queue 0's own, the others' queue 0's */
	bool owns_um;
	uint64_t base;		/* its ring's first frame: queue * slots */
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq;
	int fd;
	uint32_t tx_prod;	/* TX ring producer: written serialised (start_xmit) */
	/* Frames the kernel completed without sending them (a kick that
	 * failed with EBUSY), not yet matched to their slot: the ring's
	 * reaper's (its kick and its reap run in one hold of the reaping
	 * bit, so the match below holds). */
	unsigned unsent;
};

static _Atomic uint32_t *ring_word(uint32_t *p)
{
	return (_Atomic uint32_t *)p;
}

/* Is pkt's frame, whole, in one of the pools' UMEM frames?  Then *addr
 * is its UMEM address: posted as it is, no copy. */
static bool xdp_in_pool(const struct xdp_umem *um, const struct ring *r,
			const struct txp_pkt *pkt, uint64_t *addr)
{
	uint64_t off, frame, first = (uint64_t)um->nq * um->slots;

	if (!um->pool_frames || pkt->nr_frags || !pkt->data || pkt->data < um->area)
		return false;
	off = (uint64_t)(pkt->data - um->area);
	frame = off / um->frame_size;
	if (frame < first || frame >= first + um->pool_frames ||
	    pkt->head_len != pkt->len || pkt->len == 0 || pkt->len > txp__ring_max_len(r) ||
	    off % um->frame_size + pkt->len > um->frame_size)
		return false;
	*addr = off;
	return true;
}

/*
 * post: gather the packet's bytes into its UMEM frame and post its
 * descriptor.
 * Synchronization: serialised by txp__ring_start_xmit(): the TX ring's one
 * producer.
 * Context: a producer.
 * A packet of a UMEM pool is posted in place (xdp_in_pool()).
 * Return codes: 0; -EBUSY when the TX ring is full (then nothing was
 * posted): the kernel has consumed descriptors whose slots are free
 * already, and not yet published its consumer; -EMSGSIZE (txp__ring_gather()).
 */
static int xdp_post(struct ring *r, uint64_t idx, struct txp_pkt *pkt)
{
	struct afxdp *x = txp__ring_drv(r);
	struct xdp_umem *um = x->um;
	struct xdp_desc *d;
	uint64_t addr;
	int len;

	/* Acquire: pairs with the kernel's release of the consumer, so the
	 * descriptor slot is free before it is rewritten. */
	if (x->tx_prod - txp_load_acquire(ring_word(x->tx.consumer)) >= x->tx.size)
		return -EBUSY;
	if (xdp_in_pool(um, r, pkt, &addr)) {
		len = (int)pkt->len;
		txp_store_relaxed(&um->pool_slot[addr / um->frame_size - (uint64_t)um->nq * um->slots],
				  idx);
		txp__ring_count_in_place(r);
	} else {
		len = txp__ring_gather(r, pkt, txp__ring_buf(r, idx), um->frame_size);
		if (len < 0)
			return len;
		addr = (x->base + idx % txp__ring_size(r)) * um->frame_size;
	}
	d = &((struct xdp_desc *)x->tx.ring)[x->tx_prod & x->tx.mask];
	d->addr = addr;
	d->len = (uint32_t)len;
	d->options = 0;
	x->tx_prod++;
	/* Release: the frame and descriptor before the producer; pairs with
	 * the kernel's acquire of it in xskq_cons_peek_desc(), and with the
	 * acquire in xdp_reap(). */
	txp_store_release(ring_word(x->tx.producer), x->tx_prod);
	return 0;
}

/* A kick that failed with errno: the device said "later" (congested),
 * dropped a frame (EBUSY), or the link is gone (-errno). */
static int xdp_kick_failed(struct ring *r, struct afxdp *x)
{
	switch (errno) {
	case EAGAIN:
	case ENOBUFS:
	case EINTR:
		txp__ring_set_congested(r, true);
		return 0;
	case EBUSY:
		/* The device dropped the last frame the kernel took in this
		 * call (NET_XMIT_DROP: no carrier, not running, a full
		 * driver queue), and the call stopped there: that frame is
		 * completed, yet not sent (net/xdp/xsk.c, "SKB completed but
		 * not sent").  Its slot is found among the completions. */
		x->unsent++;
		return 0;
	default:
		return -errno;
	}
}

/*
 * Kick the kernel while the TX ring holds descriptors it has not consumed.
 * A copy-mode sendto() sends at most a budget of them (TX_BATCH_SIZE, 32,
 * in net/xdp/xsk.c) and fails with EAGAIN when more are left: no
 * congestion, so the kick goes on while each call consumes some.  EAGAIN
 * with none consumed (the completion ring or the socket's send buffer
 * full, the device busy), ENOBUFS and EINTR are: xdp_kick_failed().
 */
static int xdp_kick(struct ring *r, struct afxdp *x)
{
	for (;;) {
		/* Acquire: pairs with the release in xdp_post() and the kernel's. */
		uint32_t prod = txp_load_acquire(ring_word(x->tx.producer));
		uint32_t cons = txp_load_acquire(ring_word(x->tx.consumer));

		if (prod == cons)
			return 0;
		if (x->um->zerocopy &&
		    !(txp_load_relaxed(ring_word(x->tx.flags)) & XDP_RING_NEED_WAKEUP))
			return 0;
		if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
			break;
		if (errno != EAGAIN || txp_load_acquire(ring_word(x->tx.consumer)) == cons)
			return xdp_kick_failed(r, x);
	}
	txp__ring_set_congested(r, false);
	return 0;
}

/*
 * The frame a failed kick completed unsent is the newest completion at its
 * return: the kernel writes each address when its frame completes
 * (Linux 6.x), and the dropped one completed inside the call.  It is the
 * last slot this pass took (last, or none: the next pass).
 */
static void xdp_match_unsent(struct ring *r, struct afxdp *x, uint64_t last)
{
	if (!x->unsent || last == UINT64_MAX)
		return;
	txp__ring_slot_unsent(r, last, TXP_DROP_TX_ERROR);
	x->unsent--;
}

/* The ring slot (modulo the ring's size) a completed UMEM address was
 * posted by, or UINT64_MAX if it names no frame of this queue's ring
 * (nor of a pool: one of those was posted by this queue, as its
 * completion comes here). */
static uint64_t xdp_slot_of(const struct afxdp *x, uint64_t addr)
{
	const struct xdp_umem *um = x->um;
	uint64_t frame = addr / um->frame_size, pools = (uint64_t)um->nq * um->slots;

	if (frame >= x->base && frame < x->base + um->slots)
		return frame - x->base;
	if (frame >= pools && frame < pools + um->pool_frames)
		return txp_load_relaxed(&um->pool_slot[frame - pools]) % um->slots;
	return UINT64_MAX;
}

/*
 * reap: kick, then take the completion ring's frames back into the pool,
 * whether the kick went through or not (frames the kernel took still
 * complete once the link is gone).
 * Synchronization: the ring's reaper (its reaping bit): the completion
 * ring's one consumer, and the one kicker.
 * Context: start_xmit at the end of a burst (reap_in_xmit), a producer
 * busy polling, or the completion context.  sendto() with MSG_DONTWAIT:
 * never sleeps.
 * Return codes: 0; -ENETDOWN (or another -errno) when the link is gone.
 */
static int xdp_reap(struct ring *r, uint64_t cons, uint64_t prod)
{
	struct afxdp *x = txp__ring_drv(r);
	uint64_t last = UINT64_MAX, size = txp__ring_size(r);
	uint32_t head, tail, i;
	int rc;

	rc = xdp_kick(r, x);
	head = txp_load_relaxed(ring_word(x->cq.consumer));
	/* Acquire: pairs with the kernel's release of the producer after it
	 * wrote the addresses. */
	tail = txp_load_acquire(ring_word(x->cq.producer));
	if (head == tail)
		return rc;
	/* The kernel may complete a frame before start_xmit has published
	 * its slot (prod is released after the descriptor is posted): touch
	 * only published slots (txp__ring_posted(): its acquire makes the
	 * slots' packets visible). */
	prod = txp__ring_posted(r);
	for (i = head; i != tail; i++) {
		uint64_t addr = ((const uint64_t *)x->cq.ring)[i & x->cq.mask];
		uint64_t slot = xdp_slot_of(x, addr);
		uint64_t off = (slot + size - cons % size) % size;

		if (slot == UINT64_MAX) {
			txp__ring_count_error(r);
			continue;
		}
		if (off >= prod - cons)
			break;	/* not published yet: the next pass takes it */
		if (!txp__ring_slot_pkt(r, slot) || txp__ring_slot_done(r, slot)) {
			txp__ring_count_error(r);
		} else {
			txp__ring_slot_sent(r, slot);
			last = slot;
		}
	}
	xdp_match_unsent(r, x, last);
	/* Release: the addresses are read before the kernel may reuse them. */
	txp_store_release(ring_word(x->cq.consumer), i);
	return rc;
}

static bool xdp_link_ok(struct ring *r)
{
	struct afxdp *x = txp__ring_drv(r);

	return txp__iface_link_ok(&x->ifc);
}

static void xdp_umem_free(struct xdp_umem *um)
{
	if (um->umem)
		xsk_umem__delete(um->umem);
	if (um->area && um->area != MAP_FAILED)
		munmap(um->area, um->area_len);
	free(um->pool_slot);
	free(um);
}

/* A queue's socket; queue 0's last, with the UMEM (txp__ring_destroy()
 * frees the other queues first). */
static void xdp_release(void *drv)
{
	struct afxdp *x = drv;

	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->owns_um)
		xdp_umem_free(x->um);
	txp__iface_close(&x->ifc);
	free(x);
}

static const struct ring_ops xdp_ring_ops = {
	.name = "afxdp",
	.post = xdp_post,
	.reap = xdp_reap,
	.reap_in_xmit = true,
	.link_ok = xdp_link_ok,
	.release = xdp_release,
};

static unsigned pow2_at_least(unsigned v)
{
	unsigned p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* A bind that finds the queue still bound (EBUSY): tried again every
 * XDP_BIND_RETRY_MS, for XDP_BIND_WAIT_MS (xdp_socket_setup()). */
#define XDP_BIND_WAIT_MS 1000
#define XDP_BIND_RETRY_MS 5

/* The message for a UMEM or socket set-up that libxdp failed with e. */
static void xdp_error(char *err, size_t errlen, const struct netdrv_queue_cfg *c, int e)
{
	const char *ifname = c->net->ifname;

	e = txp__iface_lib_errno(e);

	if (e == EAFNOSUPPORT)
		snprintf(err, errlen, "%s: XDP not supported: this kernel has no AF_XDP sockets",
			 ifname);
	else if (c->net->xdp_mode == TXP_XDP_ZEROCOPY && (e == EOPNOTSUPP || e == EPROTONOSUPPORT))
		snprintf(err, errlen,
			 "%s: XDP zero-copy not supported by this interface's driver (copy mode is)",
			 ifname);
	else if (e == EOPNOTSUPP || e == EPROTONOSUPPORT)
		snprintf(err, errlen, "%s: XDP not supported on this interface", ifname);
	else if (e == EINVAL)
		snprintf(err, errlen, "%s: cannot bind an AF_XDP socket to queue %u (no such queue?)",
			 ifname, c->net->queue + c->queue);
	else if (e == EBUSY)
		snprintf(err, errlen,
			 "%s: queue %u is bound to another AF_XDP socket (still after %d ms: another txpath's, or another program's)",
			 ifname, c->net->queue + c->queue, XDP_BIND_WAIT_MS);
	else
		txp__iface_sock_error(err, errlen, ifname, "AF_XDP socket", e);
}

/* Queue 0's: the UMEM for every queue's ring and the pools, registered
 * with x's fill and completion rings.  0 or -1 and a message. */
static int xdp_umem_setup(struct afxdp *x, const struct netdrv_queue_cfg *c, char *err,
			  size_t errlen)
{
	struct xsk_umem_config ucfg = {
		.fill_size = 64,
		.comp_size = pow2_at_least(c->slots),
		.frame_headroom = 0,
	};
	struct xdp_umem *um = calloc(1, sizeof(*um));
	int rc;

	if (!um) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	x->um = um;
	x->owns_um = true;
	um->frame_size = c->max_len <= 2048 ? 2048 : 4096;
	ucfg.frame_size = um->frame_size;
	um->slots = c->slots;
	um->nq = c->queues;
	um->pool_frames = c->pool_frames;
	um->zerocopy = c->net->xdp_mode == TXP_XDP_ZEROCOPY;
	um->pool_slot = calloc(um->pool_frames ? um->pool_frames : 1, sizeof(*um->pool_slot));
	if (!um->pool_slot) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	um->area_len = ((size_t)um->nq * c->slots + um->pool_frames) * um->frame_size;
	um->area = mmap(NULL, um->area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (um->area == MAP_FAILED) {
		snprintf(err, errlen, "out of memory for the UMEM");
		return -1;
	}
	rc = xsk_umem__create(&um->umem, um->area, um->area_len, &x->fq, &x->cq, &ucfg);
	if (rc) {
		um->umem = NULL;
		xdp_error(err, errlen, c, -rc);
		return -1;
	}
	return 0;
}

/* Has the interface the queues [queue, queue + queues)?  False and a
 * message if it says it has fewer (an interface that does not say is
 * left to the bind). */
static bool xdp_queues_ok(const struct afxdp *x, const struct netdrv_queue_cfg *c, char *err,
			  size_t errlen)
{
	int has = txp__iface_tx_queues(&x->ifc);

	if (has < 0 || c->net->queue + c->queues <= (unsigned)has)
		return true;
	snprintf(err, errlen,
		 "%s: has %d transmit queue%s, fewer than queues %u-%u need (a veth with more: ip link add ... numtxqueues N numrxqueues N)",
		 c->net->ifname, has, has == 1 ? "" : "s", c->net->queue,
		 c->net->queue + c->queues - 1);
	return false;
}

/* Queue c->queue's socket, on the interface's queue c->net->queue + that,
 * over queue 0's UMEM, with its own fill and completion rings (queue 0's
 * are the UMEM's).  A queue whose socket was just closed, by this process
 * or another, stays bound until the kernel's deferred release clears it
 * (under 50 ms here): its bind fails with EBUSY, and is tried again every
 * XDP_BIND_RETRY_MS for XDP_BIND_WAIT_MS (two runs back to back failed
 * one time in two without it).  0 or -1 and a message. */
static int xdp_socket_setup(struct afxdp *x, const struct netdrv_queue_cfg *c, char *err,
			    size_t errlen)
{
	struct xsk_socket_config scfg = {
		.rx_size = 0,
		.tx_size = pow2_at_least(c->slots),
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP | (x->um->zerocopy ? XDP_ZEROCOPY : XDP_COPY),
	};
	int rc;

	x->base = (uint64_t)c->queue * x->um->slots;
	for (int waited = 0;; waited += XDP_BIND_RETRY_MS) {
		rc = xsk_socket__create_shared(&x->xsk, c->net->ifname, c->net->queue + c->queue,
					       x->um->umem, NULL, &x->tx, &x->fq, &x->cq, &scfg);
		if (rc != -EBUSY || waited >= XDP_BIND_WAIT_MS)
			break;
		nanosleep(&(struct timespec){ 0, XDP_BIND_RETRY_MS * 1000000L }, NULL);
	}
	if (rc) {
		x->xsk = NULL;
		xdp_error(err, errlen, c, -rc);
		return -1;
	}
	x->fd = xsk_socket__fd(x->xsk);
	x->tx_prod = txp_load_relaxed(ring_word(x->tx.producer));
	return 0;
}

/* libbpf and libxdp print their own diagnostics; with quiet_bpf_log the
 * caller gives one line of its own instead. */
static int xdp_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int xdp_quiet_libxdp(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int xdp_max_len_ok(const struct netdrv_queue_cfg *c, char *err, size_t errlen)
{
	if (c->max_len <= 4096)
		return 0;
	snprintf(err, errlen, "%s: AF_XDP frames are at most 4096 bytes, not %u", c->net->ifname,
		 c->max_len);
	return -1;
}

static struct ring *xdp_create(const struct netdrv_queue_cfg *c, char *err, size_t errlen)
{
	struct afxdp *x = calloc(1, sizeof(*x));
	struct ring_cfg rc = txp__netdrv_ring_cfg(c, &xdp_ring_ops);

	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->ifc.ctl_fd = -1;
	if (c->net->quiet_bpf_log) {
		libbpf_set_print(xdp_quiet);
		libxdp_set_print(xdp_quiet_libxdp);
	}
	if (c->first)
		x->um = ((struct afxdp *)txp__ring_drv(c->first))->um;
	if (txp__iface_open(&x->ifc, c->net->ifname, 0, err, errlen) != 0 ||
	    !txp__iface_fits_mtu(&x->ifc, c->max_len, err, errlen) ||
	    !xdp_queues_ok(x, c, err, errlen) || xdp_max_len_ok(c, err, errlen) != 0 ||
	    (!c->first && xdp_umem_setup(x, c, err, errlen) != 0) ||
	    xdp_socket_setup(x, c, err, errlen) != 0) {
		xdp_release(x);
		return NULL;
	}
	rc.buf = x->um->area + x->base * x->um->frame_size;
	rc.slot_size = x->um->frame_size;
	return txp__netdrv_make_ring(&rc, x, x->ifc.mac, err, errlen);
}

NETDRV_DEFINE(afxdp, xdp_create);

struct txp_dev *txp_afxdp_create(const struct txp_afxdp_cfg *cfg, char *err, size_t errlen)
{
	struct txp_net_cfg net;

	if (!cfg)
		return txp__netdrv_no_cfg(err, errlen);
	net = (struct txp_net_cfg){
		.ifname = cfg->ifname,
		.queue = cfg->queue,
		.xdp_mode = cfg->mode,
		.quiet_bpf_log = cfg->quiet_bpf_log,
	};
	return txp__netdrv_create(&afxdp_netdrv, &cfg->base, &net, cfg->pool_frames, err, errlen);
}

struct txp_pkt_pool *txp_afxdp_pool_create(struct txp_dev *dev, unsigned capacity,
					   uint32_t headroom, char *err, size_t errlen)
{
	struct ring *r = txp_dev_priv(dev);
	struct xdp_umem *um = ((struct afxdp *)txp__ring_drv(r))->um;
	struct txp_pkt_pool_cfg pc = {
		.capacity = capacity,
		.buf_size = um->frame_size,
		.headroom = headroom,
	};
	struct txp_pkt_pool *pool;
	/* Relaxed: the frames are only carved here; what is written into
	 * them is ordered by the ring's own release and acquire. */
	unsigned first = txp_load_relaxed(&um->pool_carved);

	do {
		if (!capacity || capacity > um->pool_frames - first) {
			snprintf(err, errlen, "%s: %u UMEM frames asked, %u of %u left",
				 txp_dev_name(dev), capacity, um->pool_frames - first,
				 um->pool_frames);
			return NULL;
		}
	} while (!txp_cas(&um->pool_carved, &first, first + capacity));
	pc.area = um->area + ((size_t)um->nq * um->slots + first) * um->frame_size;
	pool = txp_pkt_pool_create_cfg(&pc);
	if (!pool)
		snprintf(err, errlen, "out of memory, or headroom %u not below %u", headroom,
			 um->frame_size);
	return pool;
}
