#!/bin/sh
# A real driver's transmit path from a Linux source tree, built into a
# txpath plugin with nothing but `txpath config`'s flags and the driver's
# own directory on the include path, its files as the tree has them
# (docs/porting.md, section 7).  Today: e1000.  The tree stays where it
# is: nothing of it is copied.
#
# usage: realdrv.sh path/to/txpath path/to/linux-tree out-dir
#   Writes out-dir/e1000.so (`txpath config --cflags`: txpath check sees
#   its every plain access) and out-dir/e1000-run.so (--run-cflags: full
#   speed under run; check sees its seam operations only).  Each of the
#   driver's files is first compiled alone (-c) and must compile with no
#   error.  CC (default cc) is the compiler.
set -eu
TXPATH=$1
TREE=$2
OUT=$3
CC=${CC:-cc}
here=$(cd "$(dirname "$0")/.." && pwd)
drv=$TREE/drivers/net/ethernet/intel/e1000
glue=$here/examples/realdrv/e1000_txp.c

for f in e1000_main.c e1000_hw.c e1000_param.c e1000.h e1000_hw.h e1000_osdep.h; do
	[ -f "$drv/$f" ] || { echo "realdrv.sh: no $drv/$f: not a Linux source tree" >&2; exit 2; }
done
mkdir -p "$OUT"

# build FLAGS LIBS SO: the driver's files alone, then the plugin.
build() {
	# shellcheck disable=SC2086 # the flags are words
	for f in e1000_main.c e1000_hw.c e1000_param.c; do
		$CC -std=gnu11 -O2 -g $1 -DKBUILD_MODNAME='"e1000"' -c -o "$OUT/${f%.c}.o" "$drv/$f"
	done
	# shellcheck disable=SC2086
	$CC -std=gnu11 -O2 -g $1 -DKBUILD_MODNAME='"e1000"' -I"$drv" -o "$3" "$glue" \
		"$drv/e1000_hw.c" "$drv/e1000_param.c" $2
}

build "$("$TXPATH" config --cflags)" "$("$TXPATH" config --libs)" "$OUT/e1000.so"
echo "realdrv.sh: $OUT/e1000.so"
build "$("$TXPATH" config --run-cflags)" "$("$TXPATH" config --run-libs)" "$OUT/e1000-run.so"
echo "realdrv.sh: $OUT/e1000-run.so"
