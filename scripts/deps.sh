#!/bin/sh
# Install the Debian packages txpath needs, only those missing.
set -eu
need=""
# deps.sh bench: valgrind (callgrind), DPDK (rte_ring; dpdk-dev has
# dpdk-testpmd, for bench/e2e/vs.sh), linux-perf (the e2e benches'
# profiles) too; deps.sh prove: GNU parallel, which runs make prove's
# rows side by side.
case "${1:-}" in
bench) extra="valgrind libdpdk-dev dpdk-dev linux-perf" ;;
prove) extra="parallel" ;;
*) extra="" ;;
esac
# libxdp/libbpf/libpcap: the real drivers; libdw (elfutils): check
# --plain-points reads the debug information's line tables with it; netsniff-ng (trafgen), iproute2,
# ethtool, python3, util-linux (setpriv): the end-to-end tests and bench on
# veth pairs; libclang-rt-dev (libclang-rt-14-dev on Debian 12, for the
# default clang; only recommended by clang, so not there with
# --no-install-recommends): libFuzzer and clang's sanitizer runtimes, for
# the fuzz targets; groff-base: the man pages test renders them.  tcpdump,
# netcat-openbsd: the replay test's real traffic and captures; tcpreplay:
# the replay bench's baseline.  libsystemd-dev: `pkg-config --static
# --libs txpath-net` names -lsystemd (libpcap's dbus-1 needs it), which
# links only with it there.
# shellcheck disable=SC2086
for pkg in build-essential cmake clang libclang-rt-dev libcmocka-dev libck-dev pkg-config \
	libxdp-dev libbpf-dev libpcap-dev libsystemd-dev libdw-dev groff-base netsniff-ng iproute2 ethtool python3 util-linux \
	tcpdump netcat-openbsd tcpreplay $extra; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || need="$need $pkg"
done
export DEBIAN_FRONTEND=noninteractive
if [ -n "$need" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps: missing Debian packages:$need (run as root, or install them)" >&2
		exit 1
	fi
	echo "deps: installing$need" >&2
	apt-get update -q >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $need >/dev/null
fi

# Linux's own e1000 and r8169, which the real-driver tests build unchanged
# (tests/cli/realdrv.sh): Debian's linux-source-6.12 (its security suite),
# and of its tarball only those two drivers' directories, unpacked under
# /usr/src as Debian's kernel sources are.  Optional: where the package
# cannot be had, or not as root, the tests skip and say why.
LINUX_SRC=linux-source-6.12
tree=/usr/src/$LINUX_SRC
[ -d "$tree/drivers/net/ethernet/intel/e1000" ] && [ -d "$tree/drivers/net/ethernet/realtek" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: no $tree (not root): the real-driver tests will skip" >&2
	exit 0
fi
if ! dpkg-query -W -f='${Status}' $LINUX_SRC 2>/dev/null | grep -q "ok installed"; then
	echo "deps: installing $LINUX_SRC (the real-driver tests' e1000 and r8169)" >&2
	apt-get install -y -q --no-install-recommends $LINUX_SRC >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $LINUX_SRC >/dev/null 2>&1; } ||
		{ echo "deps: $LINUX_SRC cannot be installed here: the real-driver tests will skip" >&2; exit 0; }
fi
tar -C /usr/src -xJf "/usr/src/$LINUX_SRC.tar.xz" "$LINUX_SRC/drivers/net/ethernet/intel/e1000" \
	"$LINUX_SRC/drivers/net/ethernet/realtek" ||
	echo "deps: /usr/src/$LINUX_SRC.tar.xz did not unpack: the real-driver tests will skip" >&2
