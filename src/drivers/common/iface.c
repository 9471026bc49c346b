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
#include <sys/resource.h>
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

/* A name the kernel would take (its dev_valid_name()): 0, or -EINVAL
 * and a message. */
static int iface_name_check(const char *ifname, char *err, size_t errlen)
{
	if (!ifname || !*ifname) {
		snprintf(err, errlen, "no interface given");
		return -EINVAL;
	}
	if (strlen(ifname) >= IFNAMSIZ) {
		snprintf(err, errlen, "%s: interface name too long: %zu characters, at most %d",
			 ifname, strlen(ifname), IFNAMSIZ - 1);
		return -EINVAL;
	}
	if (!strcmp(ifname, ".") || !strcmp(ifname, "..") || ifname[strcspn(ifname, "/: \t\n\v\f\r")]) {
		snprintf(err, errlen, "'%s': not an interface name (no '/', ':' or white space; not . or ..)",
			 ifname);
		return -EINVAL;
	}
	return 0;
}

/* Its own socket and SIOCGIFINDEX rather than if_nametoindex(), whose
 * errno, when its socket fails (EMFILE), is whatever it tried last. */
int txp__iface_index(const char *ifname, char *err, size_t errlen)
{
	int rc = iface_name_check(ifname, err, errlen), fd;
	struct ifreq ifr;

	if (rc)
		return rc;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = errno;
		txp__iface_sock_error(err, errlen, ifname, "interface look-up", rc);
		return -rc;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	rc = ioctl(fd, SIOCGIFINDEX, &ifr) == 0 ? 0 : errno;
	close(fd);
	if (!rc && ifr.ifr_ifindex > 0)
		return ifr.ifr_ifindex;
	if (!rc || rc == ENODEV || rc == ENXIO) {
		snprintf(err, errlen, "%s: no such interface", ifname);
		return -ENODEV;
	}
	snprintf(err, errlen, "%s: interface look-up: %s", ifname, strerror(rc));
	return -rc;
}

int txp__iface_open(struct iface *ifc, const char *ifname, unsigned wait_ms, char *err,
		size_t errlen)
{
	struct ifreq ifr;
	short flags;
	int rc;

	memset(ifc, 0, sizeof(*ifc));
	ifc->ctl_fd = -1;
	ifc->ifindex = txp__iface_index(ifname, err, errlen);
	if (ifc->ifindex < 0)
		return -1;
	snprintf(ifc->name, sizeof(ifc->name), "%s", ifname);
	ifc->ctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ifc->ctl_fd < 0) {
		txp__iface_sock_error(err, errlen, ifname, "control socket", errno);
		return -1;
	}
	rc = iface_flags(ifc, &flags);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot read the interface's flags: %s", ifname,
			 strerror(-rc));
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
	struct rlimit rl;

	if (e == EPERM || e == EACCES)
		snprintf(err, errlen, "%s: %s: permission denied (run as root or with CAP_NET_RAW)",
			 ifname, what);
	else if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0)
		snprintf(err, errlen, "%s: %s: out of file descriptors (ulimit -n is %llu: "
			 "raise it, or use fewer queues)", ifname, what, (unsigned long long)rl.rlim_cur);
	else if (e == EMFILE || e == ENFILE)
		snprintf(err, errlen, "%s: %s: out of file descriptors (%s)", ifname, what,
			 strerror(e));
	else
		snprintf(err, errlen, "%s: %s: %s", ifname, what, strerror(e));
}

int txp__iface_lib_errno(int e)
{
	int fd;

	if (e == EMFILE || e == ENFILE)
		return e;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno == EMFILE || errno == ENFILE ? errno : e;
	close(fd);
	return e;
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
