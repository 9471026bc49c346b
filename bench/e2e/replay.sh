#!/bin/sh
# bench/e2e/replay.sh - txpath replay --topspeed against tcpreplay
# --topspeed: the same capture onto the same veth pair, in a namespace of
# its own.  The capture: FRAMES frames of SIZE bytes in 8 UDP flows
# (txpath run --driver pcap), sent LOOPS times.  The figure is what
# arrived: veth1's received packets over the command's wall time, best of
# RUNS.  Root only; not a test.
#
# usage: bench/e2e/replay.sh path/to/txpath [FRAMES [SIZE [LOOPS [RUNS]]]]
set -u
TXPATH=$1
FRAMES=${2:-100000}
SIZE=${3:-64}
LOOPS=${4:-5}
RUNS=${5:-3}
. "$(dirname "$0")/../../tests/e2e/lib.sh"
require_root_and_tools
command -v tcpreplay >/dev/null 2>&1 || skip "needs tcpreplay (scripts/deps.sh installs it)"
ns_setup replaybench
veth_setup
"$TXPATH" run --driver pcap --file "$TMP/cap.pcap" --packets "$FRAMES" --threads 8 \
	--size "$SIZE" --txqueuelen 10000 --quiet >/dev/null || fail "cannot make the capture"
TOTAL=$((FRAMES * LOOPS))

now() { date +%s.%N; }

# measure CMD...: frames per second that arrived on veth1, best of RUNS,
# and how many arrived of TOTAL in the best run.
measure() {
	best=0 got=0
	for _ in $(seq "$RUNS"); do
		a=$(rx_packets veth1)
		t0=$(now)
		nsx "$@" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; echo "fail 0"; return; }
		t1=$(now)
		n=$(($(rx_packets veth1) - a))
		r=$(python3 -c "print(round($n / ($t1 - $t0)))")
		[ "$r" -gt "$best" ] && best=$r got=$n
	done
	echo "$best $got"
}

printf '%-34s %12s %12s %s\n' "sender" "pps at peer" "arrived" "of"
set -- $(measure tcpreplay --topspeed --loop "$LOOPS" -i veth0 "$TMP/cap.pcap")
TCPREPLAY=$1
printf '%-34s %12s %12s %s\n' "tcpreplay --topspeed" "$1" "$2" "$TOTAL"
for drv in afpacket afxdp; do
	for threads in 1 2; do
		set -- $(measure "$TXPATH" replay "$TMP/cap.pcap" --dev veth0 --driver $drv \
			--threads $threads --loop "$LOOPS" --topspeed)
		ratio=$(python3 -c "print('%.2fx' % ($1 / $TCPREPLAY))" 2>/dev/null || echo -)
		printf '%-34s %12s %12s %s  %s\n' "txpath replay $drv --threads $threads" "$1" "$2" \
			"$TOTAL" "$ratio"
	done
done
