/*
 * tap.c - a TAP device (IFF_TAP | IFF_NO_PI) as the wire.
 *
 * The ring's slots are frame buffers; start_xmit copies the packet's bytes
 * into its slot, and the completion context (the "DMA engine") writes posted
 * frames to the TAP file descriptor, non-blocking, in ring order: a frame
 * written is a frame the kernel took, a completion.  A write that would
 * block (EAGAIN) stops the queue; the completion context waits for the
 * descriptor to be writable again and wakes it.  The frames arrive on the
 * TAP interface as received frames.
 *
 * Many queues: a TAP made multi_queue takes a descriptor per queue
 * (IFF_MULTI_QUEUE); each queue's ring writes to its own, and the kernel
 * receives each descriptor's frames in the writer's context, in order.
 *
 * Copy, then write, rather than writev() of the packet's own head and
 * fragments: measured on a TAP device (2 threads, 400k frames, best of
 * 3), writev was no faster for 64-byte frames (0.28-0.31 against
 * 0.27-0.40 Mpps) and slower for 1500-byte ones in fragments (0.23
 * against 0.29-0.41 Mpps): the kernel copies either way, and one flat
 * buffer is its cheapest case.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "drivers/common/iface.h"
#include "drivers/common/device.h"

struct tapdrv {
	struct iface ifc;
	int fd;
};

/*
 * reap: write the posted frames [kicked, prod), in order, until one would
 * block.
 * Synchronization: the completion context only.
 * Context: the completion context.
 * Return codes: 0; -EIO (the interface is down) or another -errno when
 * the device is gone.
 */
static int tap_reap(struct ring *r, uint64_t cons, uint64_t prod)
{
	struct tapdrv *t = txp__ring_drv(r);
	uint64_t i = txp__ring_kicked(r);
	int rc = 0;

	(void)cons;
	for (; i < prod; i++) {
		unsigned len = txp__ring_slot_len(r, i);
		ssize_t n;

		if (!len)
			continue;	/* dropped already */
		n = write(t->fd, txp__ring_buf(r, i), len);

		if (n < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
			txp__ring_set_congested(r, true);
			break;
		}
		if (n < 0 && (errno == EIO || errno == EBADFD || errno == ENODEV)) {
			rc = -errno;	/* frame i stays unwritten: dropped by the death */
			break;
		}
		/* Any other failed or short write: the kernel did not take
		 * the frame, which is dropped, not sent. */
		if (n != (ssize_t)len)
			txp__ring_slot_unsent(r, i, TXP_DROP_TX_ERROR);
		else
			txp__ring_slot_sent(r, i);
		txp__ring_set_congested(r, false);
	}
	txp__ring_set_kicked(r, i);	/* what was written is never written again */
	return rc;
}

/*
 * cancel: a slot not yet written was never seen by the kernel: taken
 * back.  (Those written are marked finished as they are written.)
 * Synchronization, Context: the watchdog's, txp__ring_tx_timeout().
 * Return codes: true.
 */
static bool tap_cancel(struct ring *r, uint64_t idx)
{
	return idx >= txp__ring_kicked(r);
}

/* Nothing moved: wait for the descriptor to take frames again. */
static void tap_idle(struct ring *r, uint64_t ns)
{
	struct tapdrv *t = txp__ring_drv(r);
	struct pollfd p = { .fd = t->fd, .events = POLLOUT };

	if (txp__ring_congested(r))
		poll(&p, 1, (int)(ns / 1000000u) + 1);
	else
		txp_sleep_ns(ns);
}

static bool tap_link_ok(struct ring *r)
{
	struct tapdrv *t = txp__ring_drv(r);

	return txp__iface_link_ok(&t->ifc);
}

static void tap_release(void *drv)
{
	struct tapdrv *t = drv;

	if (t->fd >= 0)
		close(t->fd);
	txp__iface_close(&t->ifc);
	free(t);
}

static const struct ring_ops tap_ring_ops = {
	.name = "tap",
	.post = txp__ring_post_in_slot,
	.reap = tap_reap,
	.cancel = tap_cancel,
	.link_ok = tap_link_ok,
	.idle = tap_idle,
	.release = tap_release,
};

/* Attach a descriptor to the existing TAP interface ifname: its only one,
 * or with many queues (multi), one of them.  One queue takes a multi_queue
 * TAP too, with a descriptor of its own. */
static int tap_attach(struct tapdrv *t, const char *ifname, bool multi, char *err, size_t errlen)
{
	struct ifreq ifr;
	int rc;

	rc = txp__iface_index(ifname, err, errlen);
	if (rc == -ENODEV)
		snprintf(err, errlen, "%s: no such interface (ip tuntap add dev %s mode tap)",
			 ifname, ifname);
	if (rc < 0)
		return -1;
	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		txp__iface_sock_error(err, errlen, ifname, "open /dev/net/tun", errno);
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | (multi ? IFF_MULTI_QUEUE : 0);
	rc = ioctl(t->fd, TUNSETIFF, &ifr);
	if (rc != 0 && errno == EINVAL && !multi) {
		ifr.ifr_flags |= IFF_MULTI_QUEUE;	/* one queue of a multi_queue TAP */
		rc = ioctl(t->fd, TUNSETIFF, &ifr);
	}
	if (rc != 0) {
		if (errno == EINVAL && multi)
			snprintf(err, errlen,
				 "%s: not a multi-queue TAP device (ip tuntap add dev %s mode tap multi_queue)",
				 ifname, ifname);
		else if (errno == EINVAL)
			snprintf(err, errlen, "%s: not a TAP device (ip tuntap add dev %s mode tap)",
				 ifname, ifname);
		else
			txp__iface_sock_error(err, errlen, ifname, "TUNSETIFF", errno);
		return -1;
	}
	return 0;
}

static struct ring *tap_create(const struct netdrv_queue_cfg *c, char *err, size_t errlen)
{
	struct tapdrv *t = calloc(1, sizeof(*t));
	struct ring_cfg rc = txp__netdrv_ring_cfg(c, &tap_ring_ops);

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->fd = -1;
	t->ifc.ctl_fd = -1;
	/* Attach first: a TAP has carrier only while a descriptor holds it. */
	if (tap_attach(t, c->net->ifname, c->queues > 1, err, errlen) != 0 ||
	    txp__iface_open(&t->ifc, c->net->ifname, 2000, err, errlen) != 0 ||
	    !txp__iface_fits_mtu(&t->ifc, c->max_len, err, errlen)) {
		tap_release(t);
		return NULL;
	}
	return txp__netdrv_make_ring(&rc, t, t->ifc.mac, err, errlen);
}

NETDRV_DEFINE(tap, tap_create);

struct txp_dev *txp_tap_create(const struct txp_tap_cfg *cfg, char *err, size_t errlen)
{
	struct txp_net_cfg net;

	if (!cfg)
		return txp__netdrv_no_cfg(err, errlen);
	net = (struct txp_net_cfg){ .ifname = cfg->ifname };
	return txp__netdrv_create(&tap_netdrv, &cfg->base, &net, 0, err, errlen);
}
