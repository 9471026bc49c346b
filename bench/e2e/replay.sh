#!/bin/sh
# bench/e2e/replay.sh - txpath replay --topspeed against tcpreplay
# --topspeed: the same capture onto the same veth pair, in a namespace of
# its own.  The capture: FRAMES frames of SIZE bytes in 8 UDP flows
# (txpath run --driver pcap), sent LOOPS times.  The figure is what
# arrived: veth1's received packets from the first frame's arrival to the
# command's end (start-up left out: tcpreplay takes 60-80 ms, txpath
# 20-50 ms; a run that does not deliver every frame shows "fail"); the
# senders take turns (A B C A B C ...) for RUNS rounds, each row a
# sender's median, range and spread, the ratio of medians against
# tcpreplay, and its CPU per frame; the issue's goal follows, and where
# perf can sample, a profile of one more round per sender.  Root only;
# not a test; `make bench-e2e` runs it with its defaults.
#
# usage: bench/e2e/replay.sh path/to/txpath [FRAMES [SIZE [LOOPS [RUNS]]]]
set -u
TXPATH=$1
FRAMES=${2:-100000}
SIZE=${3:-64}
LOOPS=${4:-5}
RUNS=${5:-5}
. "$(dirname "$0")/../../tests/e2e/lib.sh"
require_root_and_tools
command -v tcpreplay >/dev/null 2>&1 || skip "needs tcpreplay (scripts/deps.sh installs it)"
ns_setup replaybench
veth_setup
"$TXPATH" run --driver pcap --file "$TMP/cap.pcap" --packets "$FRAMES" --threads 8 \
	--size "$SIZE" --txqueuelen 10000 --quiet >/dev/null || fail "cannot make the capture"
TOTAL=$((FRAMES * LOOPS))

. "$(dirname "$0")/measure.sh"

echo "txpath replay vs tcpreplay on veth ($(uname -r)): $TOTAL frames a run, pps at the peer"
echo "from the first frame to the command's end: the senders interleaved (A B C A B C ...),"
echo "median of $RUNS rounds, the range and spread; ratios of medians"
senders_reset
sender "tcpreplay --topspeed" 1 tcpreplay --topspeed --loop "$LOOPS" -i veth0 "$TMP/cap.pcap"
for drv in afpacket afxdp; do
	for threads in 1 2; do
		sender "txpath replay --driver $drv --threads $threads" "$threads" "$TXPATH" replay "$TMP/cap.pcap" \
			--dev veth0 --driver $drv --threads $threads --loop "$LOOPS" --topspeed
	done
done
interleaved "count_rate $TOTAL" "$RUNS"
print_senders 1:tcpreplay
goal "replay vs tcpreplay --topspeed" 2.0 1 2 3 4 5
profile_senders "count_rate $TOTAL"
echo
cpu_legend
