#!/bin/sh
# The installed library, as an outside program sees it: install the build
# into a temporary prefix; build examples/driver_skeleton.c (C) and
# examples/cxx_consumer.cpp (C++), and a libtxpath-net program, against it
# with `pkg-config --cflags --libs`, and again through find_package(txpath);
# run each and check what it prints; then uninstall and find the prefix
# empty of files.
# usage: consumer.sh BUILD_DIR SOURCE_DIR VERSION CC CXX [FLAGS...]
set -u
BUILD=$1 SRC=$2 VERSION=$3 CC=$4 CXX=$5
shift 5
SANFLAGS="$*"
FLAGS="-Wall -Wextra -Werror -pthread $SANFLAGS"
TXPATH=$BUILD/txpath	# lib.sh names it; only the installed one runs here
. "$SRC/tests/cli/lib.sh"
. "$SRC/tests/install/manifest.sh"
P=$tmp/prefix out=$tmp/out

check "cmake --install into $P" 'cmake --install "$BUILD" --prefix "$P" >"$out" 2>&1'
pc=$(find "$P" -name txpath.pc)
check "txpath.pc installed" '[ -n "$pc" ]'
export PKG_CONFIG_PATH="${pc%/*}"
libdir=$(pkg-config --variable=libdir txpath)
check "pkg-config: txpath $VERSION" '[ "$(pkg-config --modversion txpath)" = "$VERSION" ]'
check "pkg-config: txpath-net $VERSION" '[ "$(pkg-config --modversion txpath-net)" = "$VERSION" ]'
check "libtxpath.so has SONAME libtxpath.so.${VERSION%%.*}" \
	'readelf -d "$libdir/libtxpath.so" | grep -q "SONAME.*\[libtxpath.so.${VERSION%%.*}\]"'
check "libtxpath needs no network library" \
	'! readelf -d "$libdir/libtxpath.so" | grep -E "NEEDED.*(xdp|bpf|pcap)"'
check "the installed txpath prints its version" '[ "$("$P/bin/txpath" --version)" = "txpath $VERSION" ]'
for p in man1/txpath.1 man1/txpath-run.1 man3/txpath.3 man7/txpath-driver.7; do
	check "man page $p installed" '[ -s "$P/share/man/$p" ]'
done

# run WHAT EXE ARGS...: exits 0 and prints its accounted line.
run() {
	what=$1; shift
	cmd="$*"
	detail=$out
	check "$what runs and accounts for every packet" \
		'LD_LIBRARY_PATH="$libdir" $cmd >"$out" 2>&1 && grep -q "^accounted: " "$out" && grep -q "^txpath $VERSION" "$out"'
	sed 's/^/  /' "$out"
	detail=
}

detail=$out
check "driver_skeleton.c builds with pkg-config txpath ($CC)" \
	'$CC -std=c11 $FLAGS "$SRC/examples/driver_skeleton.c" $(pkg-config --cflags --libs txpath) -o "$tmp/skel" >"$out" 2>&1'
check "cxx_consumer.cpp builds with pkg-config txpath ($CXX)" \
	'$CXX -std=c++17 $FLAGS "$SRC/examples/cxx_consumer.cpp" $(pkg-config --cflags --libs txpath) -o "$tmp/cxx" >"$out" 2>&1'
check "a libtxpath-net program builds with pkg-config txpath-net" \
	'$CC -std=c11 $FLAGS "$SRC/tests/install/net_check.c" $(pkg-config --cflags --libs txpath-net) -o "$tmp/net" >"$out" 2>&1'
check "mt_sender.c builds with pkg-config txpath-net ($CC)" \
	'$CC -std=c11 $FLAGS "$SRC/examples/mt_sender.c" $(pkg-config --cflags --libs txpath-net) -lpthread -o "$tmp/mt" >"$out" 2>&1'
detail=
run "driver_skeleton (4 producers)" "$tmp/skel" 4 20000
run "driver_skeleton (1 producer)" "$tmp/skel" 1 5000
run "cxx_consumer" "$tmp/cxx"
check "the libtxpath-net program runs" 'LD_LIBRARY_PATH="$libdir" "$tmp/net" | grep -q "parsed back"'
# mt_sender makes its own namespace and veth pair: as root only (it exits
# 77 otherwise, and says why).
if [ "$(id -u)" = 0 ]; then
	detail=$out
	check "mt_sender (installed, 2 threads through one AF_XDP queue) checks every byte" \
		'LD_LIBRARY_PATH="$libdir" "$tmp/mt" 2 2000 >"$out" 2>&1'
	detail=
else
	echo "skip: mt_sender needs root (a namespace and a veth pair of its own)"
fi

detail=$out
check "find_package(txpath): a CMake project builds against the package" \
	'CC="$CC" CXX="$CXX" CFLAGS="$SANFLAGS" CXXFLAGS="$SANFLAGS" LDFLAGS="$SANFLAGS" cmake -S "$SRC/tests/install/cmake" -B "$tmp/cm" \
		-DCMAKE_PREFIX_PATH="$P" -DTXP_WANT_VERSION="$VERSION" >"$out" 2>&1 &&
	 cmake --build "$tmp/cm" -j 2 >>"$out" 2>&1'
detail=
run "driver_skeleton (find_package, txpath::txpath-static)" "$tmp/cm/driver_skeleton" 2 5000
run "cxx_consumer (find_package, txpath::txpath)" "$tmp/cm/cxx_consumer"
check "net_check (txpath::txpath-net, -static) run" \
	'LD_LIBRARY_PATH="$libdir" "$tmp/cm/net_check" >/dev/null && "$tmp/cm/net_check_static" >/dev/null'

check "make uninstall's script removes every file" \
	'sh "$SRC/scripts/uninstall.sh" "$manifest" && [ -z "$(find "$P" -type f -o -type l)" ]'

echo "consumer: $pass checks passed, $fail failed"
[ "$fail" -eq 0 ]
