#!/bin/sh
# `make install` and `make uninstall` with a PREFIX (and an O) that the
# shell would split or run (issue 28, item 8): a space and a quote
# install where they say; a ';' with a command after it is refused (CMake
# would split its install manifest there), running nothing; pkg-config's flags for the spaced prefix build and link a
# program (eval: pkg-config escapes the space); `pkg-config --static
# --libs txpath-net` links (libpcap's dbus-1 needs -lsystemd: deps.sh
# installs libsystemd-dev); uninstall leaves each prefix without a file.
# usage: make_install.sh SOURCE_DIR BUILD_DIR CC [FLAGS...]
set -u
SRC=$1 BUILD=$2 CC=$3
shift 3
SANFLAGS="$*"
TXPATH=$BUILD/txpath	# lib.sh names it; the installed one runs here
. "$SRC/tests/cli/lib.sh"
. "$SRC/tests/install/manifest.sh"
out=$tmp/out
detail=$out
# make's own variables from a make above this test are not this make's.
unset MAKEFLAGS MAKELEVEL MFLAGS

# O with a space: a directory whose build is this build.
O="$tmp/o dir"
mkdir -p "$O" && ln -s "$(cd "$BUILD" && pwd)" "$O/build"

# install PREFIX: make install there (the build taken as done), which
# must run no command of the prefix's and put txpath there.
install() {
	prefix=$1
	make -C "$SRC" -o build install O="$O" PREFIX="$prefix" >"$out" 2>&1
	rc=$?
	check "make install PREFIX=\"$prefix\" exits 0 (got $rc)" '[ "$rc" -eq 0 ]'
	check "... runs nothing of the prefix's" '! grep -q "^INJECTED" "$out"'
	check "... installs txpath there" '[ "$("$prefix/bin/txpath" --version)" = "$("$TXPATH" --version)" ]'
}

# uninstall PREFIX: make uninstall removes every file of the install.
uninstall() {
	prefix=$1
	make -C "$SRC" uninstall O="$O" >"$out" 2>&1
	rc=$?
	check "make uninstall exits 0 (got $rc)" '[ "$rc" -eq 0 ]'
	check "... and \"$prefix\" holds no file" '[ -z "$(find "$prefix" -type f -o -type l)" ]'
}

P="$tmp/a b"
install "$P"
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
[ -d "$PKG_CONFIG_PATH" ] || PKG_CONFIG_PATH=$(dirname "$(find "$P" -name txpath.pc)")
libdir="$P/lib"
[ -d "$libdir" ] || libdir=$(dirname "$(find "$P" -name libtxpath.so)")
check "pkg-config --static --libs txpath-net answers" 'pkg-config --static --libs txpath-net >"$out" 2>&1'
check "a libtxpath-net program links with pkg-config --static --libs txpath-net" \
	'eval "\"\$CC\" -std=c11 -Wall -Wextra -Werror \$SANFLAGS \"\$SRC/tests/install/net_check.c\" \
		$(pkg-config --cflags txpath-net) $(pkg-config --static --libs txpath-net) \
		-o \"\$tmp/net\"" >"$out" 2>&1'
check "... and runs" 'LD_LIBRARY_PATH="$libdir" "$tmp/net" | grep -q "parsed back"'
uninstall "$P"

# A quote.
P="$tmp/it's here"
install "$P"
uninstall "$P"

# A ';' and a command after it: refused in one line (CMake would split
# its manifest there), nothing run, nothing installed.
P="$tmp/x;echo INJECTED"
make -C "$SRC" -o build install O="$O" PREFIX="$P" >"$out" 2>&1
rc=$?
check "make install PREFIX=\"$P\" exits 2 (got $rc)" '[ "$rc" -eq 2 ]'
check "... runs nothing of the prefix's" '! grep -q "^INJECTED" "$out"'
check "... says why" 'grep -q "holds a .;.: CMake would split its install manifest there" "$out"'
check "... installs nothing" '[ ! -e "$P" ]'

# A manifest naming a relative path (as CMake's, split at a ';'): the
# uninstall script removes nothing.
mkdir "$tmp/cwd" && : >"$tmp/cwd/keep" && printf '%s\n' "$tmp/cwd/keep" keep >"$tmp/bad_manifest"
(cd "$tmp/cwd" && sh "$SRC/scripts/uninstall.sh" "$tmp/bad_manifest") >"$out" 2>&1
rc=$?
check "uninstall.sh of a manifest with a relative path exits 1 (got $rc)" '[ "$rc" -eq 1 ]'
check "... and removes nothing" '[ -e "$tmp/cwd/keep" ]'

echo "make_install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
