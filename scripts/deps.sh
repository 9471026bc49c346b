#!/bin/sh
# Install the Debian packages txpath needs, only those missing.
set -eu
need=""
# deps.sh bench: valgrind (callgrind), DPDK (rte_ring; dpdk-dev has
# dpdk-testpmd, for bench/e2e/vs.sh) too; deps.sh prove: GNU parallel,
# which runs make prove's rows side by side.
case "${1:-}" in
bench) extra="valgrind libdpdk-dev dpdk-dev" ;;
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
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$need (run as root, or install them)" >&2
	exit 1
fi
echo "deps: installing$need" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $need >/dev/null
