#!/bin/sh
# uninstall.sh - remove what `make install` installed: the files listed in
# the build's install_manifest.txt, then txpath's own directories
# (include/txpath, lib/cmake/txpath) once empty.  Nothing else.
# usage: uninstall.sh BUILD/install_manifest.txt
set -eu
manifest=$1
[ -r "$manifest" ] || { echo "uninstall: no $manifest (nothing installed from this build)" >&2; exit 1; }
# Every line an absolute path, or nothing is removed (a manifest CMake
# split at a ';' would name relative paths and other files).
if grep -q '^[^/]' "$manifest"; then
	echo "uninstall: $manifest names a path that is not absolute ('$(grep '^[^/]' "$manifest" | head -n 1)'): removing nothing" >&2
	exit 1
fi
while IFS= read -r f || [ -n "$f" ]; do
	rm -f "$f"
done <"$manifest"
while IFS= read -r f || [ -n "$f" ]; do
	d=$(dirname "$f")
	case $d in */txpath) rmdir "$d" 2>/dev/null || true ;; esac
done <"$manifest"
