#!/bin/sh
# The installed headers from C++ (issue 28, item 9): each compiles alone
# in a C++17 translation unit with -Wall -Wextra -pedantic -Werror, with
# every C++ compiler given; each declares what the libraries define with
# C linkage (a program taking the address of every library symbol the
# header names links: a header without its extern "C" guards would ask
# for mangled names); the structs whose C++ spelling differs
# (txp_spinlock, txp_qdisc) have the same size, alignment and offsets in
# both languages; and TXP_PLUGIN() in C++ defines an entry point that
# dlsym finds, which `txpath run --driver-so` then reads.
# usage: headers_cxx.sh TXPATH INCLUDE_DIR "HEADER..." LIBTXPATH LIBTXPATH_NET CC CXX [CXX...]
set -u
TXPATH=$1 INC=$2 HEADERS=$3 LIB=$4 NETLIB=$5 CC=$6
shift 6
. "$(dirname "$0")/../cli/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
detail=$out
FLAGS="-std=c++17 -Wall -Wextra -pedantic -Werror -I$INC"

# What the libraries define (functions and variables).
nm -D --defined-only "$LIB" "$NETLIB" | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/defined"

for cxx in "$@"; do
	for h in $HEADERS; do
		printf '#include <txpath/%s>\nint main() { return 0; }\n' "$h" >"$tmp/alone.cpp"
		check "txpath/$h compiles alone as C++17 ($cxx)" \
			'$cxx $FLAGS -c "$tmp/alone.cpp" -o "$tmp/alone.o" >"$out" 2>&1'
		# The library symbols the header names, outside its comments.
		$cxx -I"$INC" -fpreprocessed -dD -E -P -x c++ "$INC/txpath/$h" 2>/dev/null |
			grep -o 'txp_[A-Za-z0-9_]*' | sort -u | comm -12 - "$tmp/defined" >"$tmp/names"
		[ -s "$tmp/names" ] || continue
		{
			printf '#include <txpath/%s>\n' "$h"
			printf 'template <class T> static int use(T *p) { T *volatile q = p; return q != nullptr; }\n'
			printf 'int main() {\n\tint n = 0;\n'
			sed 's/.*/\tn += use(\&&);/' "$tmp/names"
			printf '\treturn n == 0;\n}\n'
		} >"$tmp/linkage.cpp"
		check "txpath/$h: its $(wc -l <"$tmp/names") library symbols have C linkage ($cxx)" \
			'$cxx $FLAGS "$tmp/linkage.cpp" "$LIB" "$NETLIB" -Wl,--unresolved-symbols=ignore-in-shared-libs -o "$tmp/linkage" >"$out" 2>&1'
	done

	# The same layout in both languages.
	cat >"$tmp/layout.c" <<'END'
#include <stdalign.h>
#include <stdio.h>
#include <txpath/qdisc.h>
#include <txpath/sync.h>
int main(void)
{
	printf("spinlock %zu %zu %zu %zu %zu\n", sizeof(struct txp_spinlock),
	       alignof(struct txp_spinlock), offsetof(struct txp_spinlock, locked),
	       offsetof(struct txp_spinlock, owner), offsetof(struct txp_spinlock, name));
	printf("qdisc %zu %zu %zu\n", sizeof(struct txp_qdisc), alignof(struct txp_qdisc),
	       offsetof(struct txp_qdisc, priv));
	return 0;
}
END
	cp "$tmp/layout.c" "$tmp/layout.cpp"
	check "the layout program builds in C ($CC)" \
		'$CC -std=c11 -I"$INC" "$tmp/layout.c" -o "$tmp/layout_c" >"$out" 2>&1'
	check "the layout program builds in C++ ($cxx)" \
		'$cxx -std=c++17 -I"$INC" "$tmp/layout.cpp" -o "$tmp/layout_cxx" >"$out" 2>&1'
	"$tmp/layout_c" >"$tmp/layout_c.txt" 2>&1
	"$tmp/layout_cxx" >"$tmp/layout_cxx.txt" 2>&1
	detail=$tmp/layout_cxx.txt
	check "struct txp_spinlock and txp_qdisc: one layout in C and C++ ($cxx)" \
		'[ -s "$tmp/layout_c.txt" ] && cmp -s "$tmp/layout_c.txt" "$tmp/layout_cxx.txt"'
	detail=$out

	# A plugin written in C++: its entry point found by its C name.
	cat >"$tmp/plugin.cpp" <<'END'
#include <txpath/linux.h>
static txp_plugin cxx_plugin = { TXP_PLUGIN_ABI, sizeof(txp_plugin), "cxx", nullptr,
				 TXP_LOCK_CORE, 0, 2, 0, nullptr, 0, nullptr, nullptr, nullptr,
				 nullptr };
TXP_PLUGIN(cxx_plugin)
END
	check "a C++ plugin builds ($cxx)" \
		'$cxx $FLAGS -shared -fPIC "$tmp/plugin.cpp" -o "$tmp/plugin.so" >"$out" 2>&1'
	check "its entry point has C linkage ($cxx)" \
		'nm -D --defined-only "$tmp/plugin.so" | grep -q " T txp_plugin_entry$"'
	"$TXPATH" run --driver-so "$tmp/plugin.so" --packets 1 >"$out" 2>&1
	check "txpath run loads it and reads its struct (it gives no ops: refused for that) ($cxx)" \
		'grep -q "the plugin gives no start_xmit" "$out"'
done

echo "headers_cxx: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
