/*
 * ring_kernel.c - the real drivers' ring (src/drivers/common/ring.c)
 * under the explorer, against a modelled kernel endpoint (check build
 * only): `txpath check --driver ring`.
 *
 * What the ring's ops (ring.h) talk to in afxdp is an AF_XDP socket: a TX
 * ring the driver produces and the kernel consumes, a completion ring the
 * kernel produces and the driver consumes, and sendto() to wake the
 * kernel.  Here the socket is this file's, and the kernel behind it is a
 * context of the explorer ("kernel", one per queue), as the simulated
 * NIC's interrupt is one: once woken by a kick, it takes the posted
 * descriptors in order, sends each frame to a wire that records its flow
 * and sequence (so the explorer's oracles judge what reached it), frees
 * the descriptor and puts the slot on the completion ring, each step a
 * scheduling point.  The four ring words are read and written through
 * the seam with the kernel's own orders (smp_load_acquire and
 * smp_store_release in net/xdp/xsk_queue.h), so --memory-model tso and
 * arm apply to both sides.  Everything else is ring.c as afxdp runs it:
 * its start_xmit, LLTX lock and Miller's rule, its stop and wake helpers,
 * its reaper (the producers at the end of a burst, reap_in_xmit, and its
 * completion context, "IRQ").  What the model leaves out: a kick never
 * fails (no congestion, no EBUSY drop), the link never goes, and the
 * kernel holds whatever was posted (no cancel, as afxdp).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check/explore.h"
#include "drivers/common/ring.h"
#include "run/run.h"
#include "txpath/ctx.h"

/* A frame as the kernel reads it: the packet's identity, as its bytes. */
struct xsk_frame {
	uint32_t flow;
	uint64_t seq;
};

#define XSK_MAX_LEN 64u		/* the scenario's packets are 64 bytes */

/* One queue's socket, and the kernel's side of it. */
struct xsk {
	struct ring *r;
	unsigned entries;	/* of each ring: a power of two, at least the slots */
	uint64_t *tx;		/* descriptors: the ring slot posted */
	uint64_t *cq;		/* completions: the ring slot done */
	uint32_t tx_prod_own;	/* the producer's copy: written serialised (post) */
	uint32_t tx_cons_own, cq_prod_own;	/* the kernel's copies: its own */
	/* The rings' words, shared with the kernel. */
	_Atomic uint32_t tx_prod, tx_cons, cq_prod, cq_cons;
	/* sendto(): the TX producer the last kick saw (the reaper's, one at
	 * a time); the kernel sends up to it. */
	_Atomic uint32_t doorbell;
	atomic_bool running;
	struct txp_thread kernel;
	struct txp_wire *wire;	/* written by the kernel only */
};

/*
 * post: the frame into slot idx's buffer and its descriptor onto the TX
 * ring, as xdp_post() does.
 * Synchronization: serialised by txp__ring_start_xmit(): the TX ring's one
 * producer.
 * Context: a producer.
 * Return codes: 0; -EBUSY when the TX ring is full.
 */
static int xsk_post(struct ring *r, uint64_t idx, struct txp_pkt *pkt)
{
	struct xsk *x = txp__ring_drv(r);
	struct xsk_frame f = { pkt->flow, pkt->seq };

	/* Acquire: pairs with the kernel's release of the consumer, so the
	 * descriptor is free before it is rewritten. */
	if (x->tx_prod_own - txp_load_acquire(&x->tx_cons) >= x->entries)
		return -EBUSY;
	memcpy(txp__ring_buf(r, idx), &f, sizeof(f));
	x->tx[x->tx_prod_own % x->entries] = idx;
	x->tx_prod_own++;
	/* Release: the frame and descriptor before the producer; pairs with
	 * the acquires of it in xsk_kick() and the kernel's. */
	txp_store_release(&x->tx_prod, x->tx_prod_own);
	return 0;
}

/*
 * sendto(): have the kernel send what the TX ring holds, if it holds
 * descriptors no kick asked for yet (the kernel consumes up to the
 * doorbell, so none it has not consumed either).  The kernel sends up to
 * the producer seen here (a copy-mode sendto() sends what the ring holds
 * when it is called); a kick asks for nothing twice, so that a reaper
 * polling a ring the kernel has not served yet waits for it instead of
 * kicking again.  The reaper's.
 */
static void xsk_kick(struct xsk *x)
{
	/* Acquire: pairs with the release in xsk_post(). */
	uint32_t prod = txp_load_acquire(&x->tx_prod);

	if (prod == txp_load_relaxed(&x->doorbell))
		return;
	/* Release: pairs with the kernel's acquire in xsk_kernel_pass(). */
	txp_store_release(&x->doorbell, prod);
}

/*
 * reap: kick, then mark the slots on the completion ring sent, as
 * xdp_reap() does; a completion of a slot start_xmit has not published
 * yet (the kernel may take a descriptor before the ring's own index is
 * released) is left for the next pass.
 * Synchronization: the ring's reaper: the completion ring's one consumer.
 * Context: a producer at the end of a burst (reap_in_xmit), or the
 * completion context.
 * Return codes: 0.
 */
static int xsk_reap(struct ring *r, uint64_t cons, uint64_t prod)
{
	struct xsk *x = txp__ring_drv(r);
	uint32_t head, tail, i;

	xsk_kick(x);
	head = txp_load_relaxed(&x->cq_cons);
	/* Acquire: pairs with the kernel's release of the producer after it
	 * wrote the slots. */
	tail = txp_load_acquire(&x->cq_prod);
	if (head == tail)
		return 0;
	prod = txp__ring_posted(r);
	for (i = head; i != tail; i++) {
		uint64_t slot = x->cq[i % x->entries];

		if (slot >= prod)
			break;	/* not published yet: the next pass takes it */
		if (slot < cons || !txp__ring_slot_pkt(r, slot) || txp__ring_slot_done(r, slot))
			txp__ring_count_error(r);
		else
			txp__ring_slot_sent(r, slot);
	}
	/* Release: the slots read before the kernel may reuse the entries
	 * (a kernel that tests for room acquires it; this one never lacks
	 * room, xsk_kernel_pass()). */
	txp_store_release(&x->cq_cons, i);
	return 0;
}

/* An idle completion context waits for a write, not for time. */
static void xsk_idle(struct ring *r, uint64_t ns)
{
	(void)r;
	(void)ns;
	txp_thread_yield();
}

static void xsk_release(void *drv)
{
	struct xsk *x = drv;

	txp_wire_destroy(x->wire);
	free(x->tx);
	free(x->cq);
	free(x);
}

static const struct ring_ops xsk_ring_ops = {
	.name = "ring",
	.post = xsk_post,
	.reap = xsk_reap,
	.reap_in_xmit = true,
	.idle = xsk_idle,
	.release = xsk_release,
};

/* -- the kernel ------------------------------------------------------------- */

/*
 * One step of the kernel: send the oldest descriptor of the TX ring that
 * a kick asked for (the frame to the wire), free it, and complete its
 * slot.  False when no descriptor is asked for.  The completion ring has
 * room: it has as many entries as the TX ring, and holds no more than
 * the slots posted and not yet retired.
 */
static bool xsk_kernel_pass(struct xsk *x)
{
	/* Acquire: pairs with the release in xsk_kick(), which acquired the
	 * producer after xsk_post() released it: the descriptors up to it
	 * are written. */
	uint32_t bell = txp_load_acquire(&x->doorbell);
	struct xsk_frame f;
	uint64_t slot;

	if (x->tx_cons_own == bell)
		return false;
	slot = x->tx[x->tx_cons_own % x->entries];
	memcpy(&f, txp__ring_buf(x->r, slot), sizeof(f));
	txp_wire_record(x->wire, f.flow, f.seq);
	/* Release: the descriptor read before it may be rewritten; pairs
	 * with the acquire in xsk_post(). */
	txp_store_release(&x->tx_cons, ++x->tx_cons_own);
	x->cq[x->cq_prod_own % x->entries] = slot;
	/* Release: the slot before the producer; pairs with the acquire in
	 * xsk_reap(). */
	txp_store_release(&x->cq_prod, ++x->cq_prod_own);
	return true;
}

static void *xsk_kernel_main(void *arg)
{
	struct xsk *x = arg;

	txp_ctx_attach();
	for (;;) {
		if (xsk_kernel_pass(x))
			continue;
		/* Acquire: pairs with the release in xsk_kernel_stop(). */
		if (!txp_load_acquire(&x->running))
			break;
		txp_cpu_relax();
	}
	txp_ctx_detach();
	return NULL;
}

static int xsk_kernel_start(struct xsk *x)
{
	atomic_init(&x->running, true);
	return -txp_thread_start_internal(&x->kernel, "kernel", xsk_kernel_main, x);
}

static void xsk_kernel_stop(struct xsk *x)
{
	/* Release: pairs with the acquire in xsk_kernel_main(). */
	txp_store_release(&x->running, false);
	txp_thread_join(&x->kernel);
}

/* -- the device ----------------------------------------------------------- */

/* Stop the kernels of first's device's queues [0, n). */
static void xsk_kernels_stop(struct ring *first, unsigned n)
{
	while (n-- > 0)
		xsk_kernel_stop(txp__ring_drv(txp__ring_queue(first, n)));
}

/* Each queue's kernel, then the ring's completion contexts. */
static int xsk_open(struct txp_dev *dev)
{
	struct ring *first = txp_dev_priv(dev), *r;
	unsigned q = 0;
	int rc = 0;

	while (rc == 0 && (r = txp__ring_queue(first, q)) != NULL) {
		rc = xsk_kernel_start(txp__ring_drv(r));
		q += rc == 0;
	}
	if (rc == 0 && (rc = txp__ring_open(dev)) == 0)
		return 0;
	xsk_kernels_stop(first, q);
	return rc;
}

/* The ring's close (which takes the last completions), then the kernels. */
static void xsk_stop(struct txp_dev *dev)
{
	txp__ring_stop(dev);
	xsk_kernels_stop(txp_dev_priv(dev), txp_dev_num_tx_queues(dev));
}

static const struct txp_driver_ops xsk_driver_ops = {
	.name = "ring",
	.open = xsk_open,
	.stop = xsk_stop,
	.start_xmit = txp__ring_start_xmit,
	.tx_timeout = txp__ring_tx_timeout,
};

/* -- the explorer's driver ------------------------------------------------- */

static unsigned xsk_slots(const struct txp_run_cfg *cfg)
{
	return cfg->ring ? cfg->ring : TXP_EXPLORE_RING_SLOTS;
}

static unsigned xsk_queues(const struct txp_run_cfg *cfg)
{
	return cfg->queues ? cfg->queues : 1;
}

static bool xsk_check(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	if (xsk_slots(cfg) < 2) {
		snprintf(err, errlen, "driver ring needs a ring of at least 2 slots, not %u",
			 cfg->ring);
		return false;
	}
	if (cfg->threads + 2 * xsk_queues(cfg) > TXP_EXPLORE_MAX_CTX) {
		snprintf(err, errlen,
			 "driver ring: %u producers and %u queues (a completion context and a "
			 "kernel each) pass the explorer's %d contexts",
			 cfg->threads, xsk_queues(cfg), TXP_EXPLORE_MAX_CTX);
		return false;
	}
	return true;
}

/* One queue's socket and ring; NULL and a message. */
static struct ring *xsk_ring(const struct txp_run_cfg *cfg, char *err, size_t errlen)
{
	struct xsk *x = calloc(1, sizeof(*x));
	struct ring *r;
	unsigned entries = 1;

	while (entries < xsk_slots(cfg))
		entries <<= 1;
	if (x) {
		x->entries = entries;
		x->tx = calloc(entries, sizeof(*x->tx));
		x->cq = calloc(entries, sizeof(*x->cq));
		x->wire = txp_wire_create(cfg->threads);
	}
	if (!x || !x->tx || !x->cq || !x->wire) {
		if (x)
			xsk_release(x);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r = txp__ring_create(&(struct ring_cfg){ .ops = &xsk_ring_ops, .drv = x,
						  .slots = xsk_slots(cfg), .slot_size = XSK_MAX_LEN,
						  .max_len = XSK_MAX_LEN, .ifname = "eth0",
						  .log = cfg->log },
			     err, errlen);
	if (!r)
		xsk_release(x);
	else
		x->r = r;
	return r;
}

/* Queue 0's ring, holding the others': the device's priv. */
static int xsk_create(const struct txp_run_cfg *cfg, const struct txp_driver_ops **ops,
		      void **priv, char *err, size_t errlen)
{
	struct ring *first = xsk_ring(cfg, err, errlen), *r;

	*priv = first;
	*ops = &xsk_driver_ops;
	for (unsigned q = 1; first && q < xsk_queues(cfg); q++) {
		r = xsk_ring(cfg, err, errlen);
		if (!r || txp__ring_add_queue(first, r, err, errlen) != 0) {
			txp__ring_destroy(r);
			txp__ring_destroy(first);
			*priv = NULL;
			return -1;
		}
	}
	return first ? 0 : -1;
}

/* The wires of every queue, and the ring's counts. */
static void xsk_stats(void *priv, struct txp_run_drv_stats *st)
{
	struct txp__ring_stats rs;
	struct ring *r;

	txp__ring_get_stats(priv, &rs);
	*st = (struct txp_run_drv_stats){
		.wire_measured = true,
		.ring_full_awake = rs.ring_full_awake,
		.ring_full_stopped = rs.ring_full_stopped,
		.ring_errors = rs.ring_errors,
		.device_busy = rs.dev_busy,
	};
	for (unsigned q = 0; (r = txp__ring_queue(priv, q)) != NULL; q++)
		txp_wire_stats_add(&st->wire, ((struct xsk *)txp__ring_drv(r))->wire);
}

static void xsk_destroy(void *priv)
{
	txp__ring_destroy(priv);
}

static const struct txp_run_driver xsk_run_driver = {
	.name = "ring",
	.summary = "the real drivers' ring (afxdp, afpacket, tap, pcap) against a modelled "
		   "AF_XDP kernel endpoint",
	.check = xsk_check,
	.create = xsk_create,
	.stats = xsk_stats,
	.destroy = xsk_destroy,
};

const struct txp_run_driver *txp_explore_driver(const char *name)
{
	return strcmp(name, xsk_run_driver.name) == 0 ? &xsk_run_driver : NULL;
}
