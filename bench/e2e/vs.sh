#!/bin/sh
# bench/e2e/vs.sh - txpath's afxdp against trafgen (netsniff-ng) and DPDK's
# dpdk-testpmd in txonly mode over its net_af_xdp PMD, on one veth pair of
# 2 queues in a network namespace of its own, one thread and two.  Each
# sender runs until stopped; the figure is what arrived: the peer veth1's
# received packets over WINDOW seconds of wall time, from WARM seconds
# after its first frame arrived (so DPDK's start-up is left out).  The
# senders take turns (A B C A B C ...) for RUNS rounds, so that a slow
# spell of the machine falls on all of them; each row is a sender's
# median, its range and spread ((max - min) / median), the ratios of
# medians against trafgen and testpmd with the same thread count, and
# the sender's CPU per frame (user, system) and the machine's softirq
# time; the issue's goals follow each table (the better txpath row), and
# where perf can sample, a profile of one more round per sender: how its
# kernel time splits between sending and veth1's receive, which runs in
# its context, and the kernel functions most sampled.  Root only; not a
# test; `make bench-e2e` runs it with its defaults.
#
# usage: bench/e2e/vs.sh path/to/txpath [WINDOW [SIZE [RUNS]]]
#
# The senders, at N = 1, 2 threads:
#   trafgen --cpus N, txpath's frame byte for byte (qdisc bypass, its
#     default), --num 0: until stopped.
#   txpath run --driver afxdp --threads N --queues N (N = 1: no --queues).
#   dpdk-testpmd --forward-mode=txonly on N net_af_xdp ports, port i on
#     veth0's queue i: its own Ethernet/IPv4/UDP packet of the same size,
#     the same MACs, addresses (198.18.0.1 -> 198.18.0.2) and ports (9 -> 9);
#     what differs: the IP ID and TTL, and the payload (testpmd leaves it
#     as the mbuf had it, txpath writes a flow id, sequence and pattern).
#
# Pitfalls met on Debian 12 (DPDK 22.11, kernel 6.x), and the way out:
# - dpdk-testpmd is in Debian's dpdk-dev, not dpdk (dpdk is the init
#   scripts and dpdk-devbind); scripts/deps.sh bench installs both.
# - --no-huge implies legacy memory, which --in-memory refuses; without
#   hugepages use --no-shconf (no /var/run/dpdk config shared).
# - -m 256 with --no-huge is too little for testpmd's default mbuf pool
#   (155456 x 2176 bytes: "Creation of mbuf pool ... failed"): a pool of
#   --total-num-mbufs=16384 fits in -m 256.
# - -l 0 fails ("No cores defined for forwarding"): the main lcore does not
#   forward, so N forwarding cores need N + 1 lcores; on 2 CPUs --lcores
#   maps them (the main lcore shares CPU 0 with forwarding lcore 1; it
#   only sleeps between its stats prints).
# - net_af_xdp takes queue_count from ethtool's combined channels, which a
#   veth does not have (it has rx/tx): queue_count=2 fails with "Specified
#   queue count 2 is larger than combined queue count 1".  So N ports of
#   one queue each, net_af_xdpI,iface=veth0,start_queue=I,queue_count=1,
#   one forwarding core per port (--port-topology=loop: each port sends
#   its own stream).
# - without --stats-period, non-interactive testpmd waits for Enter on
#   stdin, and with no terminal exits at once; with it, it runs until
#   SIGTERM/SIGINT and then stops cleanly (exit 0, "Bye...").
# - testpmd's default --eth-peer is 02:00:00:00:00:00 (veth1 would count
#   such frames, then drop them as for another host): --eth-peer gives
#   veth1's MAC, so every sender's frames are alike to the peer.
# - libxdp warns "No bpffs found at /sys/fs/bpf" in the namespace and
#   loads its XDP program without the dispatcher: harmless here.
# - dpdk-testpmd's main lcore spends about 0.3 s of CPU at start-up (EAL,
#   256 MB of --no-huge memory) and then sleeps between its stats prints:
#   its forwarding lcore is the sender (all but 1-2 % of its CPU in the
#   kernel, under its AF_XDP kicks).
# - a background job of a non-interactive sh ignores SIGINT, and
#   trafgen --cpus N's children ignore their parent's SIGTERM: every sender
#   gets a process group (setsid) and the group gets SIGTERM
#   (measure.sh's window_rate).
set -u
TXPATH=$1
WINDOW=${2:-3}
SIZE=${3:-64}
RUNS=${4:-5}
WARM=1
. "$(dirname "$0")/../../tests/e2e/lib.sh"
require_root_and_tools
command -v trafgen >/dev/null 2>&1 || skip "needs trafgen (Debian netsniff-ng; scripts/deps.sh installs it)"
command -v dpdk-testpmd >/dev/null 2>&1 ||
	skip "needs dpdk-testpmd (Debian dpdk-dev; scripts/deps.sh bench installs it)"
ns_setup vs
veth_setup 2
. "$(dirname "$0")/measure.sh"
frame_setup "$SIZE"

# testpmd_cmd N: testpmd's txonly on N net_af_xdp ports, one per queue of
# veth0, N forwarding lcores (lcore i on CPU i - 1 mod 2), sending until stopped.
testpmd_cmd() {
	vdevs="" lcores="0@0" peers=""
	for i in $(seq 0 $(($1 - 1))); do
		vdevs="$vdevs --vdev net_af_xdp$i,iface=veth0,start_queue=$i,queue_count=1"
		lcores="$lcores,$((i + 1))@$((i % 2))"
		peers="$peers --eth-peer=$i,$(nsx cat /sys/class/net/veth1/address)"
	done
	echo "dpdk-testpmd --lcores $lcores --no-huge -m 256 --no-pci --no-shconf$vdevs" \
		"-- --forward-mode=txonly --port-topology=loop --nb-cores=$1 --txq=1 --rxq=1" \
		"--txpkts=$SIZE --total-num-mbufs=16384 --stats-period 1$peers"
}

echo "txpath afxdp vs trafgen and dpdk-testpmd (net_af_xdp) on veth ($(uname -r)), 2 queues,"
echo "$SIZE-byte frames, pps at the peer over ${WINDOW} s after ${WARM} s: the senders interleaved"
echo "(A B C A B C ...), median of $RUNS rounds, the range and spread; ratios of medians"
for n in 1 2; do
	echo
	senders_reset
	# shellcheck disable=SC2086
	sender "trafgen --cpus $n" "$n" $TRAFGEN --num 0 --cpus "$n"
	# shellcheck disable=SC2046
	sender "dpdk-testpmd txonly, $n lcore(s), $n queue(s)" "$n" $(testpmd_cmd "$n")
	queues=""
	[ "$n" -gt 1 ] && queues="--queues $n"
	for lock in core lltx; do
		# A refusal of --queues fails the row, with txpath's error on stderr.
		# shellcheck disable=SC2086
		sender "txpath afxdp --lock $lock ${queues:-(1 queue)}" "$n" $TXRUN \
			--threads "$n" --seconds 600 --driver afxdp --lock "$lock" $queues
	done
	interleaved "window_rate $WINDOW" "$RUNS"
	print_senders 1:trafgen 2:testpmd
	if [ "$n" = 1 ]; then
		goal "1 producer vs testpmd, 1 lcore" 1.0 2 3 4
		goal "1 producer vs trafgen" 1.5 1 3 4
	else
		goal "2 threads, 2 queues vs trafgen" 1.3 1 3 4
		goal "2 threads, 2 queues vs testpmd" 1.0 2 3 4
	fi
	profile_senders "window_rate $WINDOW"
done
echo
cpu_legend
