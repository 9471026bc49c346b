#!/bin/sh
# Builds the probes of this directory as a driver writer would
# (docs/checking-your-driver.md, "Build it once"):
#   tests/plugins/adv/build.sh [TXPATH] [OUTDIR]
# TXPATH: the txpath binary (build/txpath); OUTDIR: build/adv.
set -e
here=$(cd "$(dirname "$0")" && pwd)
txpath=${1:-build/txpath}
out=${2:-build/adv}
mkdir -p "$out"
cflags=$("$txpath" config --cflags)
libs=$("$txpath" config --libs)
# name source defines...
one() {
	name=$1 src=$2
	shift 2
	defs=""
	for d in "$@"; do defs="$defs -D$d"; done
	# shellcheck disable=SC2086
	cc -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-error=tsan $cflags $defs -o "$out/$name.so" "$here/$src" $libs
}
for v in PLAIN_REL_ACQ PLAIN_WMB_RMB PLAIN_NONE PLAIN_WMB_ONLY ONCE_NONE ONCE_WMB_ONLY \
	 ONCE_RMB_ONLY ONCE_WMB_RMB ONCE_REL_ACQ ONCE_REL_ONLY ONCE_MB VOLATILE_NONE \
	 C11_RELAXED C11_REL_ACQ ONCE_C11_REL_ACQ ONCE_C11_FENCES ONCE_SYNC STDATOMIC_RELAXED; do
	one "mp_$(echo $v | tr A-Z a-z)" mp.c "MP_$v"
done
# The same volatile probe as the in-tree txp_plugin() builds it
# (CMakeLists.txt's TXP_CHECK_PLAIN_FLAGS), volatile accesses told apart.
cflags="$cflags --param=tsan-distinguish-volatile=1"
one mp_volatile_none_dv mp.c MP_VOLATILE_NONE
cflags=$("$txpath" config --cflags)
for v in NONE MB SETBIT_NOMB SETBIT_MB SYNC C11_FENCE ONE_MB ONE_MB_X READBACK; do
	one "sb_$(echo $v | tr A-Z a-z)" sb.c "SB_$v"
done
for v in ONCE PLAIN VOLATILE C11 RMW C11_RMW; do
	one "claim_$(echo $v | tr A-Z a-z)" claim.c "CLAIM_$v"
done
cflags="$cflags --param=tsan-distinguish-volatile=1"
one claim_volatile_dv claim.c CLAIM_VOLATILE
cflags=$("$txpath" config --cflags)
one mixed_offset mixed.c MIX_OFFSET
one mixed_sameaddr mixed.c MIX_SAMEADDR
for v in ONCE WIDE C11 HINT; do
	one "wake_$(echo $v | tr A-Z a-z)" wake.c "WAKE_$v"
done
for v in U8 U16 U64 U64_AFTER_BIG U128 BITFIELD ADJ_BYTES UNALIGNED STRUCT_COPY STRUCT_COPY_BIG MEMCPY_SMALL MEMSET_SMALL MEMCPY_BIG REALLOC \
	 MEMSET LOOP_ZERO; do
	one "acc_$(echo $v | tr A-Z a-z)" access.c "ACC_$v"
done
cflags="$cflags --param=tsan-distinguish-volatile=1"	# sink is volatile
for v in LOCKED NOLOCK DATA_RACE ONCE ONCE_PLAIN_READ; do
	one "lk_$(echo $v | tr A-Z a-z)" locks.c "LK_$v"
done
cflags=$("$txpath" config --cflags)
one wide_atomic wide_atomic.c WA_128
one sync_builtins wide_atomic.c WA_SYNC
one ownlock_c11 ownlock.c OL_C11
one ownlock_seam ownlock.c OL_SEAM
one modern_sync modern_sync.c
one modern_ref ../../../examples/drivers/modern_locked.c
# sink is volatile too: not told apart, it is a plain store of the poll's
# own, racing with nothing.
one lk_volatile locks.c LK_VOLATILE
cflags="$cflags --param=tsan-distinguish-volatile=1"
one lk_volatile_dv locks.c LK_VOLATILE
cflags=$("$txpath" config --cflags)
one stack_ok stack.c STACK_OK
one stack_race stack.c STACK_RACE
one dep_once dep.c DEP_ONCE
one dep_acquire dep.c DEP_ACQUIRE
# The kernel's include layout first, as txpath config --cflags gives it.
one ks_no_wake_mb ../../../examples/drivers/kernel_style.c KS_NO_WAKE_MB
one ks_readback ks_readback.c
cflags=$("$txpath" config --cflags)
one packed packed.c
one uaf_poll uaf.c UAF_POLL
one uaf_xmit uaf.c UAF_XMIT
