#!/bin/sh
# The man pages of the build: one per command `txpath --help` lists, and
# txpath(1), txpath(3), txpath-driver(7); each renders without a groff
# warning; each page made from --help has every option its --help names,
# and txpath-driver(7) every op of driver.h (with its Synchronization and
# Context) and every name it declares.
# usage: man_pages.sh TXPATH MANDIR DRIVER_H
set -u
TXPATH=$1 MAN=$2 DRIVER_H=$3
. "$(dirname "$0")/../cli/lib.sh"
text=$(mktemp) help=$(mktemp) warn=$(mktemp)
trap 'rm -f "$text" "$help" "$warn"' EXIT

# render PAGE: its text, one long line per paragraph, unhyphenated.
render() {
	groff -man -Tascii -rLL=2000n -rHY=0 -ww -P-cbou "$1" 2>"$warn" >"$text"
}

# has_all PAGE WORDS-FILE: every word is in the page's text.
has_all() {
	missing=""
	for w in $(sort -u "$2"); do
		grep -qF -- "$w" "$text" || missing="$missing $w"
	done
	check "$1 has every name of its source (missing:${missing:- none})" '[ -z "$missing" ]'
}

cmds=$("$TXPATH" --help | awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
check "txpath --help lists commands" '[ -n "$cmds" ]'
for page in txpath $(for c in $cmds; do echo "txpath-$c"; done); do
	f=$MAN/man1/$page.1
	check "$f exists" '[ -s "$f" ]'
	[ -s "$f" ] || continue
	render "$f"
	check "$page(1) renders without warnings: $(head -1 "$warn")" '[ ! -s "$warn" ]'
	case $page in
	txpath) "$TXPATH" --help ;;
	*) "$TXPATH" "${page#txpath-}" --help ;;
	esac | grep -oE -- '--[a-z][a-z-]*' >"$help"
	check "txpath ${page#txpath} --help names options" '[ -s "$help" ] || [ "$page" = txpath ]'
	has_all "$page(1)" "$help"
done

render "$MAN/man3/txpath.3"
check "txpath(3) renders without warnings: $(head -1 "$warn")" '[ ! -s "$warn" ]'

f=$MAN/man7/txpath-driver.7
render "$f"
check "txpath-driver(7) renders without warnings: $(head -1 "$warn")" '[ ! -s "$warn" ]'
grep -oE '\(\*[a-z_]+\)\(' "$DRIVER_H" | tr -d '(*)' >"$help"
check "driver.h has ops" '[ -s "$help" ]'
for op in $(cat "$help"); do
	# The op's section: from its title to the next one.
	sect=$(awk -v op="$op" '$0 == "   " op { on = 1; next } on && /^   [^ ]/ { exit } on' "$text")
	check "txpath-driver(7) documents $op with its Synchronization and Context" \
		'printf "%s\n" "$sect" | grep -q Synchronization && printf "%s\n" "$sect" | grep -q Context'
done
grep -oE '\b(txp_|TXP_)[A-Za-z0-9_]+' "$DRIVER_H" | grep -v '^TXPATH_' >"$help"
has_all "txpath-driver(7)" "$help"

echo "man pages: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
