/*
 * iface.c - interface look-ups and the real drivers' error messages.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "iface.h"

static int iface_flags(const struct iface *ifc, short *flags)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifc->name);
	*flags = 0;	/* -errno may be 0 as far as the compiler knows (-O3) */
	if (ioctl(ifc->ctl_fd, SIOCGIFFLAGS, &ifr) != 0)
		return -errno;
	*flags = ifr.ifr_flags;
	return 0;
}

int txp__iface_open(struct iface *ifc, const char *ifname, unsigned wait_ms, char *err,
		size_t errlen)
{
	struct ifreq ifr;
	short flags;

	memset(ifc, 0, sizeof(*ifc));
	ifc->ctl_fd = -1;
	if (!ifname || !*ifname) {
		snprintf(err, errlen, "no interface given");
		return -1;
	}
	if (strlen(ifname) >= sizeof(ifc->name)) {
		snprintf(err, errlen, "%s: interface name too long", ifname);
		return -1;
	}
	snprintf(ifc->name, sizeof(ifc->name), "%s", ifname);
	ifc->ifindex = (int)if_nametoindex(ifname);
	if (!ifc->ifindex) {
		snprintf(err, errlen, "%s: no such interface", ifname);
		return -1;
	}
	ifc->ctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ifc->ctl_fd < 0 || iface_flags(ifc, &flags) != 0) {
		snprintf(err, errlen, "%s: cannot read the interface's flags: %s", ifname,
			 strerror(errno));
		txp__iface_close(ifc);
		return -1;
	}
	if (!(flags & IFF_UP)) {
		snprintf(err, errlen, "%s: interface is down (ip link set %s up)", ifname, ifname);
		txp__iface_close(ifc);
		return -1;
	}
	for (; !(flags & IFF_RUNNING) && wait_ms >= 10 && iface_flags(ifc, &flags) == 0;
	     wait_ms -= 10)
		usleep(10000);
	if (!(flags & IFF_RUNNING)) {
		snprintf(err, errlen, "%s: interface has no carrier (link down)", ifname);
		txp__iface_close(ifc);
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(ifc->ctl_fd, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(ifc->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(ifc->ctl_fd, SIOCGIFMTU, &ifr) == 0)
		ifc->mtu = (unsigned)ifr.ifr_mtu;
	return 0;
}

void txp__iface_close(struct iface *ifc)
{
	if (ifc->ctl_fd >= 0)
		close(ifc->ctl_fd);
	ifc->ctl_fd = -1;
}

int txp__iface_tx_queues(const struct iface *ifc)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifc->name);
	ifr.ifr_data = (void *)&ch;
	if (ioctl(ifc->ctl_fd, SIOCETHTOOL, &ifr) != 0)
		return -1;
	return (int)(ch.tx_count + ch.combined_count);
}

bool txp__iface_link_ok(const struct iface *ifc)
{
	short flags;

	if (iface_flags(ifc, &flags) != 0)
		return false;	/* gone altogether */
	return (flags & IFF_UP) && (flags & IFF_RUNNING);
}

void txp__iface_sock_error(char *err, size_t errlen, const char *ifname, const char *what, int e)
{
	if (e == EPERM || e == EACCES)
		snprintf(err, errlen, "%s: %s: permission denied (run as root or with CAP_NET_RAW)",
			 ifname, what);
	else
		snprintf(err, errlen, "%s: %s: %s", ifname, what, strerror(e));
}

bool txp__iface_fits_mtu(const struct iface *ifc, unsigned len, char *err, size_t errlen)
{
	if (ifc->mtu && len > ifc->mtu + 14) {
		snprintf(err, errlen, "%s: %u-byte frames exceed the MTU (%u): at most %u bytes",
			 ifc->name, len, ifc->mtu, ifc->mtu + 14);
		return false;
	}
	return true;
}
