#!/bin/sh
# A driver in the kernel's style (issue 25): examples/drivers/kernel_style.c,
# built from its own kernel include lines with `txpath config --cflags`,
# its descriptor ring consumed by txpath's NIC model up to its writel()
# doorbell, its DMA mappings followed.  Its proofs, txpath run on it, and
# the mutants txpath check must find.
# usage: kernel_style.sh path/to/txpath BUILD_DIR CASE [BOUND [SANFLAGS]]
# SANFLAGS: the build's sanitizer flags, for the program the test links.
set -u
TXPATH=$1 BUILD=$2 CASE=$3 BOUND=${4:-3} SANFLAGS=${5:-}
EX=$BUILD/examples/drivers
SRC=$(dirname "$0")/../..
. "$(dirname "$0")/lib.sh"
out=$(mktemp) err=$(mktemp) tmp=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$tmp"' EXIT
detail=$out

# A proof (lib.sh's) in which the queue stopped.
proven_stopping() {
	proven "$@"
	check "check $*: the queue stopped" '! grep -q "no schedule stopped a queue" "$out"'
}

# found KIND ARGS...: txpath check ARGS finds a violation of KIND.
found() {
	kind=$1
	shift
	run_check 1 "$@"
	check "check $*: $kind" 'grep -q "^VIOLATION $kind after" "$out"'
}

case $CASE in
proven)
	# Packets of 0 to 2 fragments fill its ring of 8 (the stop threshold:
	# the largest packet's 3 descriptors).  One producer and three
	# packets: at BOUND under sc, at 2 at most under tso and arm (bound 3
	# takes minutes there: make prove runs it).
	low=$((BOUND > 1 ? 2 : 1))
	proven_stopping --driver-so "$EX/kernel_style.so" --frags 0-2 --producers 1 --packets 3 --bound "$BOUND"
	for mm in tso arm; do
		proven_stopping --driver-so "$EX/kernel_style.so" --frags 0-2 --producers 1 --packets 3 \
			--bound $low --memory-model $mm
	done
	# Two producers, one runner per queue, as the 6.x kernels the helpers
	# are of (under 2.6.9's concurrent runners a flow's packets may pass
	# each other: the core's window, not the driver's).
	proven_stopping --driver-so "$EX/kernel_style.so" --frags 0-2 --runner exclusive --bound $low --reduce
	# Batches with xmit_more: the doorbell left for the last of them.
	proven_stopping --driver-so "$EX/kernel_style.so" --frags 0-2 --bulk 2 --packets 3 --bound 1
	# Byte queue limits: the stack's stop, the helpers' completion.
	proven_stopping --driver-so "$EX/kernel_style.so" --frags 0-2 --bql on --producers 1 --packets 3 \
		--bound $low
	;;
plain)
	# Every plain load and store of the driver seen: no data race, under
	# each memory model (skipped where the check build has no such
	# instrumentation: the sanitizer builds).
	[ -r "$EX/kernel_style_check.so" ] || { echo "SKIP: no instrumented plugin"; exit 77; }
	for mm in sc tso arm; do
		proven_stopping --driver-so "$EX/kernel_style_check.so" --frags 0-2 --producers 1 --packets 3 \
			--bound 1 --memory-model $mm
	done
	# The doorbell rung before the descriptors are written, or with
	# writel_relaxed() and no barrier: the NIC reads what nothing orders
	# before its read of the tail.
	for m in early_doorbell relaxed_doorbell; do
		found data-race --driver-so "$EX/kernel_style_${m}_check.so" --frags 0-2 --bound 1
		check "$m: the descriptor's write and the NIC's read" \
			'grep -q "plain write by CPU [0-9] in ks_tx_queue .* plain read by IRQ in ks_desc_read" "$out"'
	done
	;;
mutants)
	found dma-double-unmap --driver-so "$EX/kernel_style_double_unmap.so" --frags 0-2 --bound 0
	check "double unmap: where" 'grep -q "ks_unmap_and_free: .* already unmapped in ks_clean_tx_irq" "$out"'
	found dma-never-unmapped --driver-so "$EX/kernel_style_no_unmap.so" --frags 1 --bound 0
	check "never unmapped: where" 'grep -q "mapped in ks_tx_map, still mapped when the device was down" "$out"'
	found dma-use-after-unmap --driver-so "$EX/kernel_style_unmap_early.so" --frags 0-2 --bound 0
	check "use after unmap: where" 'grep -q "the NIC read 64 bytes through descriptor 0, unmapped in ks_tx_map" "$out"'
	# No stop after posting: a batch's packet found no room, and its
	# predecessor, taken with xmit_more, was never announced: the context
	# left the driver owing the doorbell.
	found no-doorbell --driver-so "$EX/kernel_style_no_stop.so" --frags 0-2 --bulk 2 --packets 3 --bound 1
	check "no doorbell: what was owed" \
		'grep -q "sent with xmit_more (more to follow), and none followed: 1 descriptors posted, no doorbell" "$out"'
	schedule=$(sed -n 's/^schedule: //p' "$out")
	verdict=$(grep "^VIOLATION" "$out")
	run_check 1 --driver-so "$EX/kernel_style_no_stop.so" --frags 0-2 --bulk 2 --packets 3 \
		--replay "$schedule"
	check "the replay finds it again" '[ "$(grep "^VIOLATION" "$out")" = "$verdict" ]'
	;;
barriers)
	# The doorbell rung as soon as the descriptors are written, before the
	# stop (e1000's order): the NIC may then have sent everything before
	# the stop, so no completion is bound to come after it, and the stop's
	# recheck and the completion's test of "stopped" each need their
	# barrier (one producer, three packets of three descriptors in a ring
	# of 8: the third waits for the wake).  With both: proved.
	# The sanitizer builds (BOUND below 3) find the tso stall and replay
	# it; the proofs, and the arm stall's 20,000 random schedules, are the
	# plain build's (minutes under TSan).
	ks="--frags 2 --producers 1 --packets 3"
	full=$((BOUND >= 3))
	for mm in sc tso arm; do
		[ $full = 1 ] || break
		proven_stopping --driver-so "$EX/kernel_style_doorbell_first.so" $ks --bound 2 --reduce \
			--memory-model $mm
	done
	# No smp_mb() between the completion's release of next_to_clean and
	# its test of "stopped": store buffering, the release still in the
	# completion's buffer as the stop rechecks.  A stall under tso and arm
	# (the doorbell's landing behind two older stores, one preemption),
	# none under sc; its schedule replays.
	[ $full = 0 ] || proven_stopping --driver-so "$EX/kernel_style_no_wake_mb.so" $ks --bound 2 --reduce
	for mm in tso arm; do
		[ $full = 1 ] || [ $mm = tso ] || continue
		found stall --driver-so "$EX/kernel_style_no_wake_mb.so" $ks --bound 2 --reduce \
			--memory-model $mm
		found_mm=$mm
	done
	schedule=$(sed -n 's/^schedule: //p' "$out")
	verdict=$(grep "^VIOLATION" "$out")
	run_check 1 --driver-so "$EX/kernel_style_no_wake_mb.so" $ks --memory-model "$found_mm" \
		--replay "$schedule"
	check "the replay finds it again" '[ "$(grep "^VIOLATION" "$out")" = "$verdict" ]'
	# No smp_mb__after_atomic() between the stop and its recheck: set_bit()
	# is a locked instruction on x86, a barrier, and orders nothing on
	# arm64.  Proved under sc and tso, a stall under arm: at bound 3 (a
	# minute of the bounded search: docs/checking-your-driver.md), here
	# by random schedules with a fixed seed.
	[ $full = 1 ] || { echo "$CASE: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }
	for mm in sc tso; do
		proven_stopping --driver-so "$EX/kernel_style_no_stop_mb.so" $ks --bound 2 --reduce \
			--memory-model $mm
	done
	found stall --driver-so "$EX/kernel_style_no_stop_mb.so" $ks --memory-model arm --random \
		--runs 20000 --seed 1
	;;
run)
	# Real threads, fragments with real bytes, the NIC a thread's turn:
	# every packet accounted for, none lost or duplicated.
	"$TXPATH" run --driver-so "$EX/kernel_style.so" --threads 4 --packets 100000 --frags 0-2 \
		--ring 64 --json >"$out" 2>"$err"
	check "run exits 0" '[ $? -eq 0 ]'
	check "run: accounted, none lost or duplicated, all sent or dropped by the qdisc" \
		'[ "$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); dr = d[\"dropped\"]; print(d[\"accounted\"] and d[\"lost\"] == 0 and d[\"duplicated\"] == 0 and d[\"transmitted\"] + dr[\"qdisc-limit\"] == 100000 and sum(dr.values()) == dr[\"qdisc-limit\"] and d[\"transmitted\"] > 0 and d[\"stops\"] > 0)" "$out")" = True ]'
	# With byte queue limits: the driver reports what it sent and what
	# completed, and the stack stops the queue at its limit.
	"$TXPATH" run --driver-so "$EX/kernel_style.so" --threads 4 --packets 100000 --frags 0-2 \
		--ring 64 --bql on --json >"$out" 2>"$err"
	check "run --bql on exits 0" '[ $? -eq 0 ]'
	check "run --bql on: accounted, none lost, a limit learnt" \
		'[ "$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(d[\"accounted\"] and d[\"lost\"] == 0 and d[\"duplicated\"] == 0 and d[\"per_queue\"][0][\"bql_limit\"] > 0 and d[\"per_queue\"][0][\"bql_inflight\"] == 0)" "$out")" = True ]'
	;;
headers)
	# As a driver writer builds it: its own kernel include lines, nothing
	# else but config's flags; and the uninstrumented build for run.
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -Wall -Wextra -Werror $("$TXPATH" config --cflags) -o "$tmp/ks.so" \
		"$SRC/examples/drivers/kernel_style.c" $("$TXPATH" config --libs) >"$out" 2>&1
	check "kernel_style.c builds with config --cflags" '[ $? -eq 0 ]'
	"$TXPATH" run --driver-so "$tmp/ks.so" --packets 1000 --threads 2 --frags 2 >"$out" 2>&1
	check "... and runs" '[ $? -eq 0 ]'
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -Wall -Wextra -Werror $("$TXPATH" config --run-cflags) -o "$tmp/ksc.so" \
		"$SRC/examples/drivers/kernel_style.c" $("$TXPATH" config --run-libs) >"$out" 2>&1
	check "kernel_style.c builds with config --run-cflags" '[ $? -eq 0 ]'
	# txpath check takes both: the first with its plain accesses seen, the
	# second with a note that they are not (in the plain build: the
	# sanitizer builds' check sees the seam only, and says nothing).
	if [ -z "$SANFLAGS" ]; then
		"$TXPATH" check --driver-so "$tmp/ks.so" --bound 0 >"$out" 2>&1
		check "check of the --cflags build: clean, no note" \
			'[ $? -eq 0 ] && ! grep -q "note:" "$out"'
		"$TXPATH" check --driver-so "$tmp/ksc.so" --bound 0 >"$out" 2>&1
		check "check of the --run-cflags build: clean, its plain accesses not seen, said once" \
			'[ $? -eq 0 ] && [ "$(grep -c "note: .*ksc.so was built without the instrumentation" "$out")" -eq 1 ]'
	fi
	# The C library's headers that include the kernel's user-space ones
	# (<errno.h>: <linux/errno.h>, <netinet/if_ether.h>: <linux/if_ether.h>,
	# <sys/sysinfo.h>: <linux/kernel.h>) still find those, before and
	# after the driver's: txpath's layout replaces none of them.
	cat >"$tmp/mix.c" <<'END'
#include <errno.h>
#include <netinet/if_ether.h>
#include <sys/sysinfo.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/pci.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <net/netdev_queues.h>
#include <limits.h>
int mix(void);
int mix(void)
{
	struct ethhdr h = { .h_proto = htons(ETH_P_IP) };
	return EAGAIN + IFNAMSIZ + PCI_STD_NUM_BARS + VLAN_FLAG_REORDER_HDR + h.h_proto +
	       (int)sizeof(struct sysinfo) + (int)MAX_SKB_FRAGS + (int)min(1u, 2u);
}
END
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -Wall -Wextra -Werror $("$TXPATH" config --cflags) -c "$tmp/mix.c" \
		-o "$tmp/mix.o" >"$out" 2>&1
	check "the kernel's names beside the C library's and user space's" '[ $? -eq 0 ]'
	# The kernel's htons(), a constant (a case label), and the C
	# library's <netinet/in.h> and <arpa/inet.h>, before the driver's
	# kernel headers or after them, optimised (the library's htons is
	# then a macro) or not.
	for order in before after; do
		{
			[ $order = before ] && printf '#include <netinet/in.h>\n#include <arpa/inet.h>\n'
			printf '#include <linux/netdevice.h>\n'
			[ $order = after ] && printf '#include <netinet/in.h>\n#include <arpa/inet.h>\n'
			cat <<'END'
int in_order(unsigned short p);
int in_order(unsigned short p)
{
	struct sockaddr_in sa = { .sin_port = htons(80) };

	switch (p) {
	case htons(ETH_P_IP):
		return sa.sin_port + ntohs(p);
	default:
		return (int)htonl(INADDR_LOOPBACK) + (int)inet_addr("198.18.0.1");
	}
}
END
		} >"$tmp/in_$order.c"
		for opt in -O0 -O2; do
			# shellcheck disable=SC2046
			${CC:-cc} -std=c11 $opt -Wall -Wextra -Werror $("$TXPATH" config --cflags) -c \
				"$tmp/in_$order.c" -o "$tmp/in.o" >"$out" 2>&1
			check "<netinet/in.h> $order the kernel's headers ($opt)" '[ $? -eq 0 ]'
		done
	done
	# Every name kernel.h provides, used as a driver uses it; the values
	# that need no device, computed (a program: no instrumentation).
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -Wall -Wextra -Werror $("$TXPATH" config --cflags) -c \
		"$SRC/tests/plugins/kernel_names.c" -o "$tmp/names.o" >"$out" 2>&1
	check "every kernel name compiles" '[ $? -eq 0 ]'
	# shellcheck disable=SC2046
	${CC:-cc} -std=c11 -Wall -Wextra -Werror $("$TXPATH" config --run-cflags) $SANFLAGS -DKERNEL_NAMES_MAIN \
		"$SRC/tests/plugins/kernel_names.c" "$BUILD/libtxpath.a" -lpthread -o "$tmp/names" >"$out" 2>&1
	check "the names' values program builds" '[ $? -eq 0 ]'
	"$tmp/names" >"$out" 2>&1
	check "byte order, helpers, atomics: their values" '[ $? -eq 0 ]'
	;;
*)
	echo "unknown case $CASE"
	exit 2
	;;
esac
echo "$CASE: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
