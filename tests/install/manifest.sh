# manifest.sh - sourced by the tests that install this build into a
# temporary prefix: a scratch directory in $tmp, removed at exit, and the
# build's install manifest as it was before (a `make install` of this
# build keeps its manifest, for make uninstall) put back at exit.
# Needs BUILD set.
tmp=$(mktemp -d)
manifest=$BUILD/install_manifest.txt
[ -e "$manifest" ] && cp "$manifest" "$tmp/manifest.saved"
restore() {
	if [ -e "$tmp/manifest.saved" ]; then cp "$tmp/manifest.saved" "$manifest"; else rm -f "$manifest"; fi
	rm -rf "$tmp"
}
trap restore EXIT
