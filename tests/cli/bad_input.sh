#!/bin/sh
# The command's contract for bad input: one clear line on stderr, exit 2,
# nothing on stdout; and --help for every command exits 0.
# usage: bad_input.sh path/to/txpath
set -u
TXPATH=$1
out=$(mktemp) err=$(mktemp) dir=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$dir"' EXIT
pass=0 fail=0

# expect_exit STATUS WORDS-EXPECTED-IN-MESSAGE -- ARGS...: exit STATUS,
# one line on stderr with the words, nothing on stdout.
expect_exit() {
	status=$1 want=$2; shift 2
	"$TXPATH" "$@" >"$out" 2>"$err" </dev/null
	rc=$?
	lines=$(wc -l <"$err")
	if [ "$rc" -eq "$status" ] && [ "$lines" -eq 1 ] && [ ! -s "$out" ] &&
	   grep -q -- "$want" "$err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: txpath $* -> exit $rc, $lines stderr lines (want $status, 1 line with '$want'):"
		cat "$err"
	fi
}

# expect_usage WORDS-EXPECTED-IN-MESSAGE -- ARGS...: a usage error.
expect_usage() {
	expect_exit 2 "$@"
}

expect_ok() {
	want=$1; shift
	"$TXPATH" "$@" >"$out" 2>"$err" </dev/null
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q -- "$want" "$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: txpath $* -> exit $rc, stdout lacks '$want'"
		cat "$err"
	fi
}

expect_usage "unknown command" bogus
expect_usage "threads must be" run --threads 0
expect_usage "threads must be" run --threads 100000
expect_usage "too small" run --ring 4 --frags 0-3
expect_usage "unknown era" run --era 2.7
expect_usage "unknown personality" run --personality foo
expect_usage "needs --lock core" run --lock lltx --personality locked
expect_usage "needs --lock core" run --personality rc2 --era 2.6.9
expect_usage "MIN <= MAX" run --frags 3-1
expect_usage "--frags" run --frags 0-99
expect_usage "whole number" run --packets -5
expect_usage "whole number" run --packets abc
expect_usage "whole number" run --packets 12x
expect_usage "seconds" run --seconds 0
expect_usage "seconds" run --seconds nan
expect_usage "--size" run --size 10
expect_usage "--lock is core or lltx" run --lock none
expect_usage "--runner" run --runner parallel
expect_usage "--qdisc" run --qdisc sfq
expect_usage "unknown driver" run --driver nic9
expect_usage "unknown option" run --bogus
expect_usage "needs a value" run --threads
expect_usage "unexpected argument" run extra
expect_usage "unknown option" demo --era 2.6.9
expect_usage "unknown option" demo --lock core
# No option is taken for another by a prefix of its name (getopt_long's
# abbreviations: demo --qdisc was --qdisc-bypass); one without a value
# given one says so.
expect_usage "unknown option '--qdisc' (options are written in full: --qdisc-bypass?)" demo --qdisc
expect_usage "unknown option '--bou' (options are written in full: --bound?)" check --bou 1
expect_usage "unknown option '--pack' (options are written in full: --packets?)" run --pack=10
expect_usage "unknown option '--fi'" recv --fi /dev/null
expect_usage "--json takes no value, got '--json=1'" run --json=1
expect_usage "--file given twice" recv --file /dev/null --file /dev/null
expect_usage "--burst" run --burst 0
expect_usage "--bulk" run --bulk 65
expect_usage "--validate" run --personality rc2-naive --lock core --packets 10
expect_usage "unknown personality" check --personality foo
# A scenario in which no schedule stops a queue proves nothing of stop and
# wake: check says so (text and JSON), and says nothing when one does.
expect_ok "^warning: no schedule stopped a queue, so no stop or wake raced anything: a ring of 16 never filled" \
	check --era 2.6.8 --ring 16 --bound 1
expect_ok '"warnings":\["no schedule stopped a queue' check --era 2.6.8 --ring 16 --bound 1 --json
expect_ok '"warnings":\[\]' check --era 2.6.8 --bound 1 --json
# BQL's stop counts: 6.x's queues stop by their byte limit, not a full ring.
expect_ok '"warnings":\[\]' check --era 6.x --bound 1 --json
expect_usage "whole number" check --bound x
expect_usage "malformed schedule" check --era 2.6.9 --replay 12:x
expect_usage "sc, tso or arm" check --memory-model power
expect_usage "queue, try or mixed" check --send later
expect_usage "choose one of" check --bound 2 --pct 3
expect_usage "--producers" check --producers 9
expect_usage "needs --lock core" check --era 2.6.9 --personality rc2
expect_usage "predates byte queue limits" check --personality tg3-2004 --bql on
expect_usage "unexpected argument" check extra
# check --driver: the simulated NIC or the real drivers' ring, nothing else
expect_usage "is sim (the simulated NIC, the default) or ring" check --driver afxdp
expect_usage "not of --driver ring" check --driver ring --era 2.6.9
expect_usage "not of --driver ring" check --driver ring --personality modern
expect_usage "choose one of --driver, --driver-so" check --driver ring --driver-so x.so
expect_usage "at least 2 slots" check --driver ring --ring 1
expect_usage "pass the explorer's 8 contexts" check --driver ring --producers 6 --queues 2
expect_ok '"driver":"ring"' check --driver ring --bound 0 --json
expect_ok '"ring":8' check --driver ring --ring 8 --bound 0 --json
expect_ok '"warnings":\["no schedule stopped a queue' check --driver ring --ring 8 --bound 0 --json
expect_usage "takes asleep and symmetry" check --reduce --reduce-without asleep,sleep
expect_usage "takes asleep and symmetry" check --reduce --reduce-without asleep,
expect_usage "needs the reduction (--reduce)" check --reduce-without asleep

# check (issue 8)
# Replay strings: out of the scenario, past any index, or malformed.
expect_usage "pair 1 '-1:0'" check --era 2.6.9 --replay -1:0
expect_usage "'4294967295:0': no branch point" check --era 2.6.9 --replay 4294967295:0
expect_usage "'99999999999999999999:0': index past" check --era 2.6.9 --replay 99999999999999999999:0
expect_usage "'4294967296:0': index past" check --era 2.6.9 --replay 4294967296:0
expect_usage "'1000000000:0': no branch point" check --era 2.6.9 --replay 1000000000:0
expect_usage "'48:3': context 3 cannot run" check --era 2.6.9 --replay 29:0,48:3,83:1
expect_usage "'2:f1': context 1 has no store waiting" check --era 2.6.9 --replay 2:f1
expect_usage "pair 2 is empty" check --era 2.6.9 --replay 1:0,,2:0
expect_usage "pair 2 is empty" check --era 2.6.9 --replay 1:0,
expect_usage "malformed schedule: empty" check --era 2.6.9 --replay ''
expect_usage "index not after 5" check --era 2.6.9 --replay 5:0,3:1
expect_usage "index not after 5" check --era 2.6.9 --replay 5:0,5:1
# The replay line a violation prints runs as printed: the search's own
# options left out (it kept --jobs, which a replay refuses).
ck=$(mktemp -u)
hint=$("$TXPATH" check --era 2.6.9 --bound=2 --jobs 2 --progress --checkpoint "$ck" \
	--checkpoint-every=5 2>/dev/null | sed -n 's/^replay: txpath check //p')
rm -f "$ck"
# shellcheck disable=SC2086
"$TXPATH" check $hint >"$out" 2>"$err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "^VIOLATION bug-log" "$out" && [ ! -s "$err" ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL: the replay line 'txpath check $hint' -> exit $rc:"
	cat "$err"
fi
# a position that could not be saved is said before the search, not at
# its first checkpoint; a device or directory in its place is never replaced
expect_usage "cannot write /nonexistent-txpath-dir/pos.part" \
	check --era 2.6.8 --bound 1 --checkpoint /nonexistent-txpath-dir/pos
# (txpath 0.4.0 renamed its position over /dev/null, run as root: a FIFO
# and a directory of the test's own stand in for it here)
mkfifo "$dir/fifo" && mkdir "$dir/sub"
expect_usage "--checkpoint $dir/fifo: not a regular file" check --era 2.6.8 --bound 1 --checkpoint "$dir/fifo"
expect_usage "--checkpoint $dir/sub: not a regular file" check --era 2.6.8 --bound 1 --checkpoint "$dir/sub"
# a shard's file or position that is no text is refused at once, not read
# until memory runs out (0.4.0 read /dev/zero for ever)
expect_usage "/dev/zero: byte 0 is NUL: not a shard's file" check --merge /dev/zero
expect_usage "/dev/zero: byte 0 is NUL: not a shard's file" check --era 2.6.8 --bound 1 --resume /dev/zero
# a FIFO with no writer reads as empty, at once (it was waited on for ever)
expect_usage "$dir/fifo: at byte 0: expected a value" check --merge "$dir/fifo"
expect_usage "$dir/fifo: at byte 0: expected a value" check --era 2.6.8 --bound 1 --resume "$dir/fifo"
expect_usage "pair 1 '1:0?2:0'" check --era 2.6.9 --replay "$(printf '1:0\n2:0')"
# Options that apply only with others, or twice.
expect_usage "--runs applies to --pct or --random" check --runs 5
expect_usage "--runs applies to --pct or --random" check --bound 2 --runs 5
expect_usage "--seed applies to --pct or --random" check --seed 3
expect_usage "--seed applies to --pct or --random" check --replay - --seed 3
expect_usage "choose one of" check --replay - --bound 1
expect_usage "choose one of" check --replay - --random
expect_usage "choose one of" check --pct 3 --random
expect_usage "--lock given twice" check --lock core --lock lltx
expect_usage "--era given twice" check --era 2.6.9 --era 2.6.11
expect_usage "--bound given twice" check --bound 1 --bound=2
expect_usage "--qdisc is one of pfifo_fast noqueue nolock" check --qdisc sfq
expect_ok '"violation":null' check --era 2.6.8 --pct 2 --runs 5 --seed 3 --json
# No qdisc: the exclusive runner does not keep LLTX producers apart.
expect_ok '"qdisc":"noqueue","personality":"tg3-2005"' check --era 2.6.18 --qdisc noqueue --bound 1 --json
expect_ok '"xmit_on_stopped_reachable":true' check --era 2.6.18 --qdisc noqueue --bound 1 --json
expect_ok '"xmit_on_stopped_reachable":false' check --era 2.6.18 --bound 1 --json

expect_ok "usage: txpath <command>" --help
expect_ok "usage: txpath run" run --help
expect_ok "usage: txpath demo" demo -h
expect_ok "usage: txpath check" check --help
expect_ok '"violation":null' check --era 2.6.11 --bound 1 --json
expect_ok '"validated":true,"hazards":\[\]' run --era 2.6.11-rc2 --validate --packets 2000 --json
expect_ok '"kind":"recursion"' run --personality rc2-naive --lock core --validate --packets 2000 --json
expect_ok '"submitted":3001,"transmitted":3001,' run --packets 3001 --threads 2 --burst 1 --bulk 1 --json
expect_ok '"xmit_on_stopped":' run --packets 2000 --threads 2 --json
expect_ok '"submitted":2000,' run --packets 2000 --threads 2 --json
expect_ok "verdict" run --packets 2000 --era 2.6.8
# The modern device's knobs (issue 9).
expect_usage "--queues must be 1..64, got 0" run --queues 0 --packets 10
expect_usage "--queues must be 1..64, got 65" run --queues 65 --packets 10
expect_usage "--xps is off or a list of queue numbers" run --xps garbage --packets 10
expect_usage "--xps is off or a list of queue numbers" run --xps 0,x --packets 10
expect_usage "but the device has 1 queue (" run --xps 0,5 --packets 10
expect_usage "--xps is off or a list of queue numbers like 0,1,0,1, got ''" run --xps '' --packets 10
expect_usage "--xps takes at most 64 queue numbers (one per producer)" \
	run --xps "$(seq -s, 0 65 | sed 's/[0-9]*/0/g')" --packets 10
expect_usage "--bql is on or off, got 'maybe'" run --bql maybe --packets 10
expect_usage "predates byte queue limits" run --personality tg3-2004 --bql on --packets 10
expect_usage "--defer is on, drain or off" run --defer maybe --packets 10
# docs/run.md's watchdog example: the queue stopped by lost interrupts is
# reset by the watchdog and the run goes on to its end, not STALLED.
expect_ok '"tx_timeouts":[1-9][0-9]*,.*"stalled":false,' \
	run --fault lost-irq:100%,max=16 --ring 8 --watchdog-ms 100 --packets 200000 --json
# The defer list waits on the root lock: none without one.
expect_usage "--defer on is for a root-locked qdisc (pfifo_fast): qdisc noqueue has no root lock" \
	run --qdisc noqueue --defer on --packets 10
expect_usage "qdisc nolock has no root lock" run --qdisc nolock --defer on --packets 10
expect_ok "qdisc noqueue\$" run --qdisc noqueue --defer off --packets 10
expect_ok "qdisc pfifo_fast with defer list" run --defer on --packets 10
# check by the same rule, whether the qdisc is given or the era's.
expect_usage "txpath check: --defer on is for a root-locked qdisc (pfifo_fast): qdisc noqueue has no root lock" \
	check --qdisc noqueue --defer on --bound 0
expect_usage "qdisc nolock-5.13 has no root lock" check --era 5.13-missed --defer on --bound 0
expect_ok "qdisc pfifo_fast with defer list" check --defer on --bound 0
# The busylock: the eras of 2.6.36 to 6.17 have it; forced on, only where
# a producer can find the queue running behind a root lock.
expect_usage "--busylock is on or off, got 'maybe'" run --busylock maybe --packets 10
expect_usage "--busylock on needs --runner exclusive" run --busylock on --runner concurrent --packets 10
expect_usage "--busylock on and --defer on: 6.18's defer list replaced the busylock" \
	run --era 6.x --busylock on --defer on --packets 10
expect_usage "qdisc nolock has no root lock" run --era 6.x --busylock on --qdisc nolock --packets 10
expect_usage "txpath check: --busylock on needs --runner exclusive" check --era 2.6.8 --busylock on --bound 0
expect_ok "qdisc pfifo_fast with busylock\$" run --era 3.18 --packets 10
expect_ok "qdisc pfifo_fast\$" run --era 3.18 --busylock off --packets 10
expect_ok "qdisc pfifo_fast with defer list\$" run --era 6.x --defer on --packets 10
expect_ok "qdisc pfifo_fast with busylock," check --era 6.x --bound 0
expect_ok '"busylock":true' run --runner exclusive --busylock on --packets 10 --json
expect_usage "--watchdog-ms wants a whole number, got '-1'" run --watchdog-ms -1 --packets 10
expect_usage "--watchdog-ms is for drivers sim afpacket afxdp tap pcap, not null" \
	run --driver null --watchdog-ms 100 --packets 10
# An era, then knobs that override it, in either order.
expect_ok '"lock":"core","runner":"concurrent","driver":"sim","personality":"tg3-2004"' \
	run --lock core --era 2.6.9 --packets 1000 --json
expect_ok '"lock":"lltx","runner":"exclusive","driver":"sim","personality":"tg3-2004"' \
	run --era 2.6.9 --runner exclusive --packets 1000 --json

# run/demo/bench (issue 8)
# Were a refusal to regress, nothing may be sent or written outside: no
# such interface, files in a directory of our own, the shortest bench.
dir=$(mktemp -d)
F=$dir/x.pcap
BENCH="bench --quick --no-sim --threads 1 --seconds 0.01"
# An option the chosen driver does not use is an error naming both.
expect_usage "--file is for driver pcap, not sim" run --file "$F" --packets 10
expect_usage "--dev is for drivers afpacket afxdp tap, not sim" run --dev nosuch0 --packets 10
expect_usage "--dev is for drivers afpacket afxdp tap, not pcap" \
	run --driver pcap --file "$F" --dev nosuch0 --packets 10
expect_usage "--dev is for drivers afpacket afxdp tap, not pcap" \
	run --dev nosuch0 --driver pcap --file "$F" --packets 10
expect_usage "--file is for driver pcap, not afpacket" run --driver afpacket --dev nosuch0 --file "$F" --packets 10
expect_usage "--tpacket is for driver afpacket, not pcap" run --driver pcap --file "$F" --tpacket 3 --packets 10
# An empty name names nothing: refused as such, before any socket or file.
expect_usage "--dev needs an interface name, got ''" recv --dev ''
expect_usage "--file needs a path, got ''" recv --file ''
expect_usage "--dev needs an interface name, got ''" run --driver afpacket --dev '' --packets 10
expect_usage "--file needs a path, got ''" run --driver pcap --file '' --packets 10
# A frame's source MAC is unicast; its destination may be a group.
expect_usage "--src-mac 01:00:5e:00:00:01 is a multicast address: a frame's source must be unicast" \
	run --driver pcap --file "$F" --src-mac 01:00:5e:00:00:01 --packets 10
expect_usage "--src-mac ff:ff:ff:ff:ff:ff is a multicast address" \
	run --driver afpacket --dev nosuch0 --src-mac ff:ff:ff:ff:ff:ff --packets 10
expect_ok "submitted 10 = transmitted 10" \
	run --driver pcap --file "$dir/dst.pcap" --dst-mac 01:00:5e:00:00:01 --packets 10
expect_usage "--qdisc-bypass is for driver afpacket, not afxdp" \
	run --driver afxdp --dev nosuch0 --qdisc-bypass
expect_usage "--xdp-mode is for driver afxdp, not afpacket" \
	run --driver afpacket --dev nosuch0 --xdp-mode copy
expect_usage "--queue is for driver afxdp, not tap" run --driver tap --dev nosuch0 --queue 1
expect_usage "--personality is for driver sim, not pcap" \
	run --driver pcap --file "$F" --personality tg3-2005 --packets 10
expect_usage "--personality is for driver sim, not null" run --driver null --personality locked --packets 10
expect_usage "--frags is for drivers sim afpacket afxdp tap pcap, not null" run --driver null --frags 0-3 --packets 10
expect_usage "--ring is for drivers sim afpacket afxdp tap pcap, not null" run --driver null --ring 64 --packets 10
expect_usage "--line-rate is for driver sim, not pcap" run --driver pcap --file "$F" --line-rate 1000 --packets 10
expect_usage "--batch is for driver sim, not afpacket" run --driver afpacket --dev nosuch0 --batch 8
expect_usage "--src-ip is for drivers afpacket afxdp tap pcap, not sim" run --src-ip 198.18.0.5 --packets 10
expect_usage "--dst-mac is for drivers afpacket afxdp tap pcap, not null" \
	run --driver null --dst-mac 02:00:00:00:00:02 --packets 10
expect_usage "--file is for driver pcap, not sim" demo --file "$F" --packets 100
# Each option once: a repeat is refused, never a silent override.
expect_usage "--lock given twice" run --lock core --lock lltx --packets 10
expect_usage "--lock given twice" run --lock core --era 2.6.9 --lock core --packets 10
expect_usage "--era given twice" run --era 2.6.9 --era 2.6.11 --packets 10
expect_usage "--json given twice" run --json --json --packets 10
expect_usage "--driver given twice" run --driver null --driver sim --packets 10
expect_usage "--packets and --seconds" run --packets 10 --seconds 1
expect_usage "--packets and --seconds" run --seconds 1 --packets 10
expect_usage "--threads given twice" demo --threads 2 --threads 3 --packets 100
expect_usage "--reps given twice" $BENCH --reps 2 --reps 3
expect_usage "--svg given twice" $BENCH --svg "$dir/a.svg" --svg "$dir/b.svg"
# An explicit knob still overrides its era's preset, wherever it stands.
expect_ok '"lock":"lltx","runner":"concurrent","driver":"sim","personality":"tg3-2005"' \
	run --personality tg3-2005 --era 2.6.9 --packets 1000 --json
# ... as --threads, --reps and --seconds override bench --quick's.
expect_ok "2 runs of 0.01 s per case" $BENCH --reps 2
# With a driver other than the sim an era is its lock and runner only.
expect_ok '"era":"2.6.9","lock":"lltx","runner":"concurrent","driver":"null","personality":null' \
	run --driver null --era 2.6.9 --packets 1000 --json
# demo checks every row before it prints anything (expect_usage: no stdout).
expect_usage "ring of 4 descriptors too small" demo --packets 100 --ring 4
expect_usage "give --file PATH" demo --driver pcap --packets 100
expect_usage "--file /dev/null is not a regular file" demo --driver pcap --file /dev/null
# ... nor standard output, which run takes: its rows would be files -.2.6.8, ...
expect_usage "--file - (standard output) cannot hold a capture per row" \
	demo --driver pcap --file - --packets 100
# demo on another driver: a row per lock and runner, the driver named, no
# rc2 rows (their driver is the sim's) and no validator verdict unasked.
expect_demo_rows() {
	want_rows=$1; shift
	"$TXPATH" demo "$@" >"$out" 2>"$err" </dev/null
	rc=$?
	rows=$(grep -c '^2\.6\.' "$out")
	if [ "$rc" -eq 0 ] && [ "$rows" -eq "$want_rows" ] && ! grep -q "rc2\|lock hazard" "$out" &&
		[ "$(grep '^2\.6\.' "$out" | awk '{print $4}' | sort -u)" = "$DRIVER" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: txpath demo $* -> exit $rc, $rows rows (want $want_rows, driver $DRIVER):"
		cat "$out" "$err"
	fi
}
DRIVER=null expect_demo_rows 4 --driver null --packets 2000
DRIVER=pcap expect_demo_rows 4 --driver pcap --file "$dir/d.pcap" --packets 2000
# ... and with pcap a file per row, each with every packet of its row.
for era in 2.6.8 2.6.9 2.6.18; do
	f=$dir/d.$era.pcap
	if [ -f "$f" ] && [ $(( ($(wc -c <"$f") - 24) / (16 + 64) )) -eq 2000 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: demo --driver pcap: $f missing or not 2000 frames"
	fi
done
rm -rf "$dir"
# The sim's demo keeps its personalities in the driver column.
expect_ok "2.6.11-rc2    core  concurrent  rc2-naive" demo --packets 2000
# faults (issue 8)
expect_usage "--fault: unknown fault 'bogus'" run --fault bogus
expect_usage "--fault: lost-irq: bad parameter 'x'" run --fault lost-irq:x
expect_usage "bad parameter '0%'" run --fault desc-error:0%
expect_usage "bad parameter '101%'" run --fault desc-error:101%
expect_usage "bad parameter 'passes=2'" run --fault link-flap:passes=2
expect_usage "give one rate" run --fault link-flap:5%,every=5ms
expect_usage "down=TIME or down=N" run --fault link-flap:down=1ms,down=3
expect_usage "bad parameter 'delay=5'" run --fault slow-irq:delay=5
expect_usage "bad parameter 'max=0'" run --fault alloc-fail:max=0
expect_usage "not both" run --fault lost-irq:1%,every=3
expect_usage "not both" run --fault slow-irq:delay=1ms,passes=2
expect_usage "shorter than every" run --fault link-flap:every=5ms,down=5ms
expect_usage "lost-irq given twice" run --fault lost-irq,lost-irq:2%
expect_usage "--fault given twice" run --fault lost-irq --fault desc-error
expect_usage "before any fault kind" run --fault every=3
expect_usage "--fault: a fault spec is KIND" run --fault lost-irq,
expect_usage "--fault: a fault spec is KIND" run --fault ,lost-irq
expect_usage "--fault: a fault spec is KIND" run --fault lost-irq,,desc-error
expect_usage "--fault: a fault spec is KIND" run --fault ''
expect_usage "needs a value" run --fault
expect_usage "--fault is for driver sim, not null" run --driver null --fault lost-irq
expect_usage "--fault is for driver sim, not pcap" run --driver pcap --file /dev/null --fault desc-error:1%
expect_usage "--seed wants a whole number" run --seed x --fault lost-irq
expect_usage "it needs --fault" run --seed 3 --packets 10
expect_usage "it needs --fault" demo --seed 3 --packets 10
expect_usage "--stall-seconds" run --stall-seconds 0
expect_ok '"faults":{"lost-irq":0,"slow-irq":0,"desc-error":0,"link-flap":0,"alloc-fail":0}' \
	run --packets 1000 --json
expect_ok '"desc-error":20,"link-flap":0,"alloc-fail":0,"seed":3}' \
	run --packets 1000 --fault desc-error:every=50 --seed 3 --json
expect_ok '"dropped":{[^}]*"tx-error":20,' run --packets 1000 --fault desc-error:every=50 --json
expect_ok 'faults injected (--seed 9): desc-error 10, alloc-fail' \
	run --packets 1000 --fault desc-error:every=100,alloc-fail:1% --seed 9

# txpath replay: usage errors (exit 2), and captures it cannot send
# (exit 1, one line naming the problem).
# expect_fail WORDS-EXPECTED-IN-MESSAGE -- ARGS...: a failure (exit 1).
expect_fail() {
	expect_exit 1 "$@"
}
# pcap_file PATH LINKTYPE FRAMELEN: a capture of one frame of FRAMELEN bytes.
pcap_file() {
	python3 -c 'import struct, sys
n = int(sys.argv[3])
open(sys.argv[1], "wb").write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, int(sys.argv[2]))
    + struct.pack("<IIII", 0, 0, n, n) + bytes(n))' "$@"
}
rdir=$(mktemp -d)
R=$rdir/replay.pcap
pcap_file "$R" 1 100
expect_ok "usage: txpath replay FILE.pcap" replay --help
expect_ok "replay  send a pcap" --help
expect_usage "give the capture first" replay
expect_usage "give the capture first" replay --dev veth0
expect_usage "--dev IFNAME" replay "$R"
expect_usage "--driver must be afpacket, afxdp or tap, got 'pcap'" replay "$R" --dev x --driver pcap
expect_usage "--threads must be" replay "$R" --dev x --threads 0
expect_usage "--loop must be" replay "$R" --dev x --loop 0
expect_usage "at most one of --pps, --mbps" replay "$R" --dev x --pps 10 --topspeed
expect_usage "--mbps must be from 0.001 to 1e+09, got '-1'" replay "$R" --dev x --mbps -1
expect_usage "--multiplier wants a number, got '2x'" replay "$R" --dev x --multiplier 2x
expect_usage "--pps must be from 0.001 to 1e+09, got '1e-300'" replay "$R" --dev x --pps 1e-300
expect_usage "--mbps must be from 0.001 to 1e+09, got '0'" replay "$R" --dev x --mbps 0
expect_usage "--multiplier must be from 0.001 to 1e+09, got '1e999'" replay "$R" --dev x \
	--multiplier 1e999
expect_usage "--pps wants a number, got 'nan'" replay "$R" --dev x --pps nan
expect_usage "--rewrite-src-mac 01:00:5e:00:00:01 is a multicast address" replay "$R" --dev x \
	--rewrite-src-mac 01:00:5e:00:00:01
expect_usage "--rewrite-src-mac ff:ff:ff:ff:ff:ff is a multicast address" replay "$R" --dev x \
	--rewrite-src-mac ff:ff:ff:ff:ff:ff
expect_usage "--rewrite-dst-ip" replay "$R" --dev x --rewrite-dst-ip 10.0.0.1
expect_usage "--rewrite-src-mac" replay "$R" --dev x --rewrite-src-mac 1:2:3
expect_usage "--dev given twice" replay "$R" --dev x --dev y
expect_usage "--dev needs an interface name, got ''" replay "$R" --dev ''
expect_fail "cannot read $rdir/none.pcap" replay "$rdir/none.pcap" --dev x
printf 'not a capture at all' >"$rdir/junk.pcap"
expect_fail "cannot read $rdir/junk.pcap" replay "$rdir/junk.pcap" --dev x
pcap_file "$rdir/raw.pcap" 101 100
expect_fail "link type RAW (12) is not supported: only Ethernet" replay "$rdir/raw.pcap" --dev x
pcap_file "$rdir/sll.pcap" 113 100
expect_fail "link type LINUX_SLL (113) is not supported" replay "$rdir/sll.pcap" --dev x
expect_fail "txp-no-such0: no such interface" replay "$R" --dev txp-no-such0
# Ten frames at the slowest rate, a million times: over the 100 years a
# schedule may last (its nanoseconds would overflow long before 1e-300).
python3 -c 'import struct, sys
open(sys.argv[1], "wb").write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
    + 10 * (struct.pack("<IIII", 0, 0, 60, 60) + bytes(60)))' "$rdir/ten.pcap"
expect_fail "at this pace the replay would last 317 years, more than the 100 it may" \
	replay "$rdir/ten.pcap" --dev x --pps 0.001 --loop 1000000

rm -rf "$rdir"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
