#!/bin/sh
# `make install` and `make uninstall` with a PREFIX and an O that the
# shell would split or run (issue 28, item 8; review item 3): a space and
# a quote reach cmake as one word each, for the build step as for the
# install, and install where they say; a ';' with a command after it, in
# PREFIX or in O, is refused before anything runs (CMake would split its
# paths or its install manifest there), running nothing; pkg-config's
# flags for the spaced prefix build and link a program (eval: pkg-config
# escapes the space); `pkg-config --static --libs txpath-net` links
# (libpcap's dbus-1 needs -lsystemd: deps.sh installs libsystemd-dev);
# uninstall leaves each prefix without a file.
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

# O with a space and a quote: a directory whose build is this build.
O="$tmp/o dir's"
mkdir -p "$O" && ln -s "$(cd "$BUILD" && pwd)" "$O/build"

# The make runs its recipes as they are, build step included (deps, the
# packages' check, aside), with a cmake of the test's own first on PATH:
# it logs each call's arguments, one a line, fails unless the tree it is
# given is "$O/build", one word, and installs this build.  It configures
# and builds nothing: through the link, the real one would move this
# build tree to the link's path, and relink it under the tests running.
mkdir "$tmp/bin"
cat >"$tmp/bin/cmake" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >>"$FAKE_LOG"
case $1 in
-S) tree=$4 ;;
--build | --install) tree=$2 ;;
*) tree= ;;
esac
if [ "$tree" != "$FAKE_O/build" ]; then
	echo "cmake $*: the build tree is not '$FAKE_O/build'" >&2
	exit 1
fi
[ "$1" = --install ] || exit 0
shift 2
exec "$FAKE_CMAKE" --install "$FAKE_BUILD" "$@"
EOF
chmod +x "$tmp/bin/cmake"
FAKE_LOG=$tmp/cmake.log FAKE_O=$O FAKE_BUILD=$BUILD FAKE_CMAKE=$(command -v cmake)
export FAKE_LOG FAKE_O FAKE_BUILD FAKE_CMAKE
mk() {
	PATH="$tmp/bin:$PATH" make --no-print-directory -C "$SRC" -o deps "$@"
}

# install PREFIX: make install there, its build step first, which must
# run no command of the prefix's and put txpath there.
install() {
	prefix=$1
	: >"$FAKE_LOG"
	mk install O="$O" PREFIX="$prefix" >"$out" 2>&1
	rc=$?
	check "make install O=\"$O\" PREFIX=\"$prefix\" exits 0 (got $rc)" '[ "$rc" -eq 0 ]'
	check "... runs nothing of the prefix's" '! grep -q "^INJECTED" "$out"'
	check "... configures, builds and installs \"$O/build\" (cmake -B, --build, --install)" \
		'[ "$(grep -cxF -- "$O/build" "$FAKE_LOG")" -eq 3 ]'
	check "... installs txpath there" '[ "$("$prefix/bin/txpath" --version)" = "$("$TXPATH" --version)" ]'
}

# uninstall PREFIX: make uninstall removes every file of the install.
uninstall() {
	prefix=$1
	mk uninstall O="$O" >"$out" 2>&1
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
# The kernel's include layout for driver plugins (issue 25): installed,
# named first by the installed config --cflags, and a driver in the
# kernel's style builds against it (the flags quoted here: the prefix
# holds a space, which $(txpath config --cflags) would split).
inc="$P/include"
check "the kernel's include layout installed" \
	'[ -r "$inc/txpath/kernel/linux/netdevice.h" ] && [ -r "$inc/txpath/kernel/net/netdev_queues.h" ] &&
	 [ -r "$inc/txpath/kernel.h" ] && [ -r "$inc/txpath/nic.h" ]'
check "the installed config --cflags names it first" \
	'[ "$("$P/bin/txpath" config --run-cflags)" = "-I$inc/txpath/kernel -I$inc -fPIC" ] &&
	 case "$("$P/bin/txpath" config --cflags)" in
	 "-I$inc/txpath/kernel -I$inc -fPIC -fsanitize=thread "*) ;; *) false ;; esac'
check "a driver in the kernel's style builds against it" \
	'"$CC" -std=c11 -Wall -Wextra -Werror -I"$inc/txpath/kernel" -I"$inc" -fPIC -fsanitize=thread \
		-o "$tmp/ks.so" "$SRC/examples/drivers/kernel_style.c" \
		$("$P/bin/txpath" config --libs) >"$out" 2>&1'
check "... and the installed txpath runs it" \
	'"$P/bin/txpath" run --driver-so "$tmp/ks.so" --packets 1000 --threads 2 >"$out" 2>&1'
uninstall "$P"

# A quote.
P="$tmp/it's here"
install "$P"
uninstall "$P"

# A ';' and a command after it, in PREFIX or in O: refused in one line
# before anything runs (CMake would split its paths there), nothing run,
# nothing installed.
# refused VAR VALUE WHY: make install with VAR=VALUE (the other one fine).
refused() {
	value=$2 why=$3
	: >"$FAKE_LOG"
	mk install O="$O" PREFIX="$tmp/p" "$1=$2" >"$out" 2>&1
	rc=$?
	check "make install $1=\"$2\" exits 2 (got $rc)" '[ "$rc" -eq 2 ]'
	check "... runs nothing of it" '! grep -q "^INJECTED" "$out"'
	check "... runs nothing at all (no cmake)" '[ ! -s "$FAKE_LOG" ]'
	check "... says why, in one line" \
		'[ "$(wc -l <"$out")" -eq 1 ] && grep -q "holds a .;.: CMake would split $why" "$out"'
	check "... installs nothing" '[ ! -e "$value" ] && [ ! -e "$tmp/p" ]'
}
refused PREFIX "$tmp/x;echo INJECTED" "its install manifest there"
refused O "$tmp/o;echo INJECTED" "the build tree's paths there"

# A manifest naming a relative path (as CMake's, split at a ';'): the
# uninstall script removes nothing.
mkdir "$tmp/cwd" && : >"$tmp/cwd/keep" && printf '%s\n' "$tmp/cwd/keep" keep >"$tmp/bad_manifest"
(cd "$tmp/cwd" && sh "$SRC/scripts/uninstall.sh" "$tmp/bad_manifest") >"$out" 2>&1
rc=$?
check "uninstall.sh of a manifest with a relative path exits 1 (got $rc)" '[ "$rc" -eq 1 ]'
check "... and removes nothing" '[ -e "$tmp/cwd/keep" ]'

echo "make_install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
