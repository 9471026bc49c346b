#!/bin/sh
# uninstall.sh - remove what `make install` installed: the files listed in
# the build's install_manifest.txt, then txpath's own directories
# (include/txpath, lib/cmake/txpath) once empty.  Nothing else.
# usage: uninstall.sh BUILD/install_manifest.txt
set -eu
manifest=$1
[ -r "$manifest" ] || { echo "uninstall: no $manifest (nothing installed from this build)" >&2; exit 1; }
while IFS= read -r f || [ -n "$f" ]; do
	rm -f "$f"
done <"$manifest"
while IFS= read -r f || [ -n "$f" ]; do
	d=$(dirname "$f")
	case $d in */txpath) rmdir "$d" 2>/dev/null || true ;; esac
done <"$manifest"
