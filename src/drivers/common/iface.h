/*
 * iface.h - looking at a network interface: does it exist, is it up,
 * its MAC and MTU; and the one-line errors every real driver gives.
 */
#ifndef TXP_DRIVERS_IFACE_H
#define TXP_DRIVERS_IFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iface {
	char name[16];
	int ifindex;
	uint8_t mac[6];
	unsigned mtu;
	int ctl_fd;		/* a datagram socket for interface ioctls */
};

/* ifname's index: > 0, or -errno and a message: -EINVAL a name the
 * kernel would refuse (empty, over IFNAMSIZ - 1 characters, with '/', ':'
 * or white space), -ENODEV "no such interface", another -errno when the
 * look-up itself failed (EMFILE: out of file descriptors). */
int txp__iface_index(const char *ifname, char *err, size_t errlen);

/* Find ifname and check it is up with carrier, waiting up to wait_ms for
 * the carrier (a TAP gets it just after being attached, once the kernel's
 * link watch ran); 0, or -1 and a message ("veth9: no such interface",
 * "veth0: interface is down", ...). */
int txp__iface_open(struct iface *ifc, const char *ifname, unsigned wait_ms, char *err,
		size_t errlen);
void txp__iface_close(struct iface *ifc);

/* The interface's transmit queues in use (ethtool's channels: tx plus
 * combined), or -1 if it does not say. */
int txp__iface_tx_queues(const struct iface *ifc);

/* Up and with carrier (IFF_UP and IFF_RUNNING)? */
bool txp__iface_link_ok(const struct iface *ifc);

/* The message for a failed socket()/bind()/setsockopt() of a driver:
 * permission errors say what is needed, EMFILE the descriptor limit. */
void txp__iface_sock_error(char *err, size_t errlen, const char *ifname, const char *what, int e);

/* The errno e that a library's set-up failed with (libxdp's), unless the
 * process is out of descriptors now: EMFILE (or ENFILE) then.  Such a
 * library looks the interface up with if_nametoindex(), whose errno,
 * when its sockets fail, is whatever it tried last (ENOENT), so that e
 * alone would say "No such file or directory". */
int txp__iface_lib_errno(int e);

/* Frames of len bytes fit the interface's MTU?  False and a message if not. */
bool txp__iface_fits_mtu(const struct iface *ifc, unsigned len, char *err, size_t errlen);

#endif
