#!/bin/sh
# The plugin loader refuses, in one line naming the plugin and with exit
# 2, what it used to crash on or name badly (issue 28, item 6): the
# plugins of bad_load_plugin.c, under `txpath run` and `txpath check`.
# usage: bad_load_errors.sh path/to/txpath BUILD_DIR
set -u
TXPATH=$1 BUILD=$2
BAD=$BUILD/tests/plugins
. "$(dirname "$0")/../cli/lib.sh"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
detail=$err

# refused NAME PATTERN: run and check on bad_load_NAME.so each say one
# line naming the plugin and matching PATTERN, and exit 2.
refused() {
	name=$1 says=$2
	so=$BAD/bad_load_$name.so
	for cmd in "run --packets 100" "check --packets 2 --bound 0"; do
		# shellcheck disable=SC2086
		"$TXPATH" $cmd --driver-so "$so" >"$out" 2>"$err"
		rc=$?
		check "$name ($cmd) exits 2 (got $rc)" '[ "$rc" -eq 2 ]'
		check "$name ($cmd): one line" '[ "$(wc -l <"$err")" -eq 1 ]'
		check "$name ($cmd) names the plugin" 'grep -qF "bad_load_$name.so" "$err"'
		check "$name ($cmd) says '$says'" 'grep -qF -- "$says" "$err"'
	done
}

# The well-formed one loads, runs and takes its knob: the checks refuse
# nothing a plugin may do.
"$TXPATH" run --driver-so "$BAD/bad_load_ok.so" --driver-arg depth=3 --packets 1000 >"$out" 2>"$err"
check "the well-formed plugin runs (got $?)" '[ $? -eq 0 ]'
"$TXPATH" check --driver-so "$BAD/bad_load_ok.so" --packets 2 --bound 1 >"$out" 2>"$err"
check "the well-formed plugin is checked (got $?)" '[ $? -eq 0 ]'

# The same in an object of over 16 PT_LOAD segments, its knob's variable
# in the last: a loader that looked at 16 refused it ("no variable for
# its value").  However many segments: it loads, runs and takes its knob.
so=$BAD/bad_load_many_segments.so
if command -v readelf >/dev/null 2>&1; then
	# Which PT_LOAD segment (from 1) holds the knob's variable.
	at=$((0x$(readelf -sW "$so" | awk '$8 == "knob" { print $2; exit }')))
	n=0 seg=
	# shellcheck disable=SC2034
	while read -r type off vaddr paddr filesz memsz rest; do
		[ "$type" = LOAD ] || continue
		n=$((n + 1))
		[ "$at" -ge $((vaddr)) ] && [ "$at" -lt $((vaddr + memsz)) ] && seg=$n
	done <<EOF
$(readelf -lW "$so")
EOF
	check "bad_load_many_segments.so: the knob in PT_LOAD segment 17 or later (got ${seg:-none})" \
		'[ "${seg:-0}" -gt 16 ]'
else
	echo "note: no readelf: the segments of bad_load_many_segments.so not counted"
fi
"$TXPATH" run --driver-so "$so" --driver-arg depth=3 --packets 1000 >"$out" 2>"$err"
check "a plugin of many segments runs (got $?)" '[ $? -eq 0 ]'
"$TXPATH" check --driver-so "$so" --driver-arg depth=3 --packets 2 --bound 1 >"$out" 2>"$err"
check "a plugin of many segments is checked (got $?)" '[ $? -eq 0 ]'

refused priv_wrap "priv_size 18446744073709551607 bytes, at most 2147483647"
refused priv_huge "priv_size 70368744177664 bytes, at most 2147483647"
refused printk_entry "txp_plugin_entry() called printk (\"txp_plugin_entry: bad_load: hello"
# The other host calls from the entry point: refused as printk is, not a
# crash on the device that does not exist.
refused free_entry "txp_plugin_entry() called dev_kfree_skb() (in txp_plugin_entry): a plugin"
refused free_irq_entry "txp_plugin_entry() called dev_kfree_skb_irq() (in txp_plugin_entry)"
refused priv_entry "txp_plugin_entry() called netdev_priv(): a plugin calls the host from its ops"
refused knob_no_name "knob 0 has no name"
refused knob_no_value "knob depth: no variable for its value"
refused knob_empty "knob depth: its range 10..1 is empty (min > max)"
refused entry_null "txp_plugin_entry() returned NULL"
refused entry_odd "not aligned for a struct txp_plugin"
refused entry_wild "returned 0x10000, not the address of a struct in the plugin's shared object"
refused entry_mmap "not the address of a struct in the plugin's shared object"

echo "bad_load_errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
