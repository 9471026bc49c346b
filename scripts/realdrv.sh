#!/bin/sh
# Real drivers' transmit paths from a Linux source tree, each built into
# a txpath plugin with nothing but `txpath config`'s flags and the
# driver's own directory on the include path, its files as the tree has
# them (docs/porting.md, section 7).  Today: e1000 and r8169.  The tree
# stays where it is: nothing of it is copied.
#
# usage: realdrv.sh path/to/txpath path/to/linux-tree out-dir [DRIVER...]
#   For each DRIVER (default: all), writes out-dir/DRIVER.so (`txpath
#   config --cflags`: txpath check sees its every plain access) and
#   out-dir/DRIVER-run.so (--run-cflags: full speed under run; check sees
#   its seam operations only).  Each of the driver's files is first
#   compiled alone (-c) and must compile with no error.  CC (default cc)
#   is the compiler.
set -eu
TXPATH=$1
TREE=$2
OUT=$3
shift 3
CC=${CC:-cc}
here=$(cd "$(dirname "$0")/.." && pwd)

# driver NAME: its directory in the tree, its main file (which the glue
# includes), the files built beside the glue, and headers that must be
# there.
driver() {
	case $1 in
	e1000) dir=intel/e1000 main=e1000_main.c others="e1000_hw.c e1000_param.c"
		headers="e1000.h e1000_hw.h e1000_osdep.h" ;;
	r8169) dir=realtek main=r8169_main.c others="r8169_phy_config.c r8169_firmware.c"
		headers="r8169.h r8169_firmware.h" ;;
	*) echo "realdrv.sh: no driver $1 (e1000, r8169)" >&2; exit 2 ;;
	esac
	drv=$TREE/drivers/net/ethernet/$dir
}

# build NAME FLAGS LIBS SO: the driver's files alone, then the plugin.
build() {
	# shellcheck disable=SC2086 # the flags and file lists are words
	for f in $main $others; do
		$CC -std=gnu11 -O2 -g $2 -DKBUILD_MODNAME="\"$1\"" -c -o "$OUT/${f%.c}.o" "$drv/$f"
	done
	# shellcheck disable=SC2086
	(cd "$drv" && $CC -std=gnu11 -O2 -g $2 -DKBUILD_MODNAME="\"$1\"" -I"$drv" -o "$4" \
		"$here/examples/realdrv/$1_txp.c" $others $3)
}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ $# -gt 0 ] || set -- e1000 r8169
for name; do
	driver "$name"
	for f in $main $others $headers; do
		[ -f "$drv/$f" ] || { echo "realdrv.sh: no $drv/$f: not a Linux source tree" >&2; exit 2; }
	done
	build "$name" "$("$TXPATH" config --cflags)" "$("$TXPATH" config --libs)" "$OUT/$name.so"
	echo "realdrv.sh: $OUT/$name.so"
	build "$name" "$("$TXPATH" config --run-cflags)" "$("$TXPATH" config --run-libs)" \
		"$OUT/$name-run.so"
	echo "realdrv.sh: $OUT/$name-run.so"
done
