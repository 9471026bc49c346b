#!/bin/sh
# man.sh - the pages made from their sources, so they cannot say other
# than these do: txpath(1) and txpath-CMD(1) from the binary's own --help
# (scripts/help2man.awk; one page for `txpath --help`, one per command it
# lists), txpath-driver(7) from include/txpath/driver.h
# (scripts/header2man.awk), into OUTDIR/man1 and OUTDIR/man7.
# usage: man.sh TXPATH DRIVER_H OUTDIR
set -eu
TXPATH=$1 DRIVER_H=$2 OUT=$3
DIR=$(dirname "$0")
version=$("$TXPATH" --version)
help=$(mktemp) cmdhelp=$(mktemp)
trap 'rm -f "$help" "$cmdhelp"' EXIT
mkdir -p "$OUT/man1" "$OUT/man7"
rm -f "$OUT"/man1/txpath*.1
awk -v page=txpath-driver -v section=7 -v version="$version" -v see='.BR txpath (3),
.BR txpath (1)' -f "$DIR/roff.awk" -f "$DIR/header2man.awk" "$DRIVER_H" >"$OUT/man7/txpath-driver.7"

"$TXPATH" --help >"$help"
# The commands: the "commands:" block's "  NAME  summary" lines.
cmds=$(awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$help")
[ -n "$cmds" ] || { echo "man.sh: no commands in $TXPATH --help" >&2; exit 1; }
see=""
for c in $cmds; do
	see="$see${see:+,
}.BR txpath\\-$c (1)"
done
awk -v page=txpath -v section=1 -v version="$version" \
	-v summary="$(sed -n 3p "$help" | sed "s/:.*//")" \
	-v see="$see,
.BR txpath (3),
.BR txpath\\-driver (7)" -f "$DIR/roff.awk" -f "$DIR/help2man.awk" "$help" >"$OUT/man1/txpath.1"

for c in $cmds; do
	summary=$(awk -v c="$c" '/^commands:$/ { on = 1; next } on && $1 == c {
		sub(/^ *[^ ]+ +/, ""); print; exit }' "$help")
	"$TXPATH" "$c" --help >"$cmdhelp"
	awk -v page="txpath-$c" -v section=1 -v version="$version" -v summary="$summary" \
		-v see=".BR txpath (1)" -f "$DIR/roff.awk" -f "$DIR/help2man.awk" "$cmdhelp" >"$OUT/man1/txpath-$c.1"
done
