#!/bin/sh
# Runs every probe of build.sh under txpath check and compares its verdict
# with what Linux's memory model (and x86-TSO, ARMv8) says is due:
#   tests/plugins/adv/run.sh [TXPATH] [SODIR]
# Each line: OK or MISMATCH, the probe, the model, due, got.  Exit 1 on a
# mismatch.  About two minutes on a 2-core host.
txpath=${1:-build/txpath}
dir=${2:-build/adv}
bad=0
# probe model due args...   (due: ok, race, bug, stall, lost; any: a violation)
probe() {
	so=$1 mm=$2 due=$3
	shift 3
	out=$(timeout 120 "$txpath" check --driver-so "$dir/$so.so" --memory-model "$mm" "$@" 2>&1)
	case $out in
	*"VIOLATION data-race"*) got=race ;;
	*"VIOLATION bug-log"*) got=bug ;;
	*"VIOLATION stall"*) got=stall ;;
	*"VIOLATION lost"*) got=lost ;;
	*VIOLATION*) got=other ;;
	*"no violation"*) got=ok ;;
	*) got="error: $(echo "$out" | head -1)" ;;
	esac
	if [ "$got" = "$due" ] || { [ "$due" = any ] && [ "$got" != ok ]; }; then
		res=OK
	else
		res=MISMATCH
		bad=1
	fi
	printf '%-8s %-22s %-3s due %-5s got %s\n' "$res" "$so" "$mm" "$due" "$got"
}
mp="--producers 1 --packets 3 --bound 2"
for m in sc tso arm; do
	probe mp_plain_rel_acq $m ok $mp
	probe mp_plain_wmb_rmb $m ok $mp
	probe mp_plain_none $m race $mp
	probe mp_plain_wmb_only $m race $mp
	probe mp_once_wmb_rmb $m ok $mp
	probe mp_once_rel_acq $m ok $mp
	probe mp_once_mb $m ok $mp
	probe mp_c11_rel_acq $m ok $mp
done
for v in once_none once_wmb_only once_rmb_only once_rel_only volatile_none_dv c11_relaxed stdatomic_relaxed; do
	probe mp_$v sc ok $mp
	probe mp_$v tso ok $mp
	probe mp_$v arm bug $mp
done
for m in sc tso arm; do
	probe mp_volatile_none $m ok $mp	# as built by txpath config --cflags
	probe mp_once_c11_rel_acq $m ok $mp
	probe mp_once_c11_fences $m ok $mp
	probe mp_once_sync $m ok $mp
done
sb="--producers 1 --packets 2 --bound 2"
for m in sc tso arm; do
	probe sb_mb $m ok $sb
	probe sb_setbit_mb $m ok $sb
	probe sb_sync $m ok $sb
	probe sb_c11_fence $m ok $sb
done
for v in none one_mb one_mb_x readback; do
	probe sb_$v sc ok $sb
	probe sb_$v tso bug $sb
	probe sb_$v arm bug $sb
done
probe sb_setbit_nomb sc ok $sb
probe sb_setbit_nomb tso ok $sb
probe sb_setbit_nomb arm bug $sb
cl="--producers 2 --packets 1 --bound 2"
probe claim_once sc lost $cl
probe claim_plain sc race $cl
probe claim_volatile_dv sc lost $cl
probe claim_c11 sc lost $cl
probe claim_rmw sc ok $cl
probe claim_c11_rmw sc ok $cl
for v in offset sameaddr; do
	for m in sc tso arm; do
		probe mixed_$v $m ok --producers 1 --packets 2 --bound 1
	done
done
for v in once wide c11 hint; do
	probe wake_$v sc ok --producers 1 --packets 3 --bound 2
done
ac="--producers 1 --packets 2 --bound 1"
for v in u8 u16 u64 u128 bitfield unaligned struct_copy struct_copy_big memcpy_small loop_zero \
	 memset memset_small memcpy_big; do
	probe acc_$v sc race $ac
done
probe acc_u64_after_big sc race $ac
probe acc_adj_bytes sc ok $ac
probe acc_realloc sc ok $ac
lk="--producers 1 --packets 3 --bound 2"
probe lk_locked sc ok $lk
probe lk_nolock sc race $lk
probe lk_data_race sc ok $lk
probe lk_once sc ok $lk
probe lk_once_plain_read sc race $lk
probe lk_volatile sc ok $lk	# as built by txpath config --cflags
probe lk_volatile_dv sc ok $lk
probe sync_builtins sc ok --producers 1 --packets 2 --bound 1
probe ownlock_seam sc ok --producers 1 --packets 2 --bound 2
probe ownlock_c11 sc ok --producers 1 --packets 2 --bound 2
probe modern_ref tso ok --producers 1 --packets 3 --bound 3 --reduce
probe modern_sync tso ok --producers 1 --packets 3 --bound 3 --reduce
probe modern_sync arm ok --producers 1 --packets 3 --random --runs 20000 --seed 1
probe dep_acquire sc ok --producers 1 --packets 3 --bound 2
probe dep_once sc ok --producers 1 --packets 3 --bound 2
probe stack_ok sc ok --producers 1 --packets 2 --bound 2
probe stack_race sc race --producers 1 --packets 2 --bound 2
ks="--frags 2 --producers 1 --packets 3"
probe ks_no_wake_mb tso stall $ks --bound 2 --reduce
probe ks_readback tso stall $ks --bound 3 --reduce
probe packed sc ok --producers 1 --packets 3 --bound 2
# Not a claimed check: a packet read after its free (KASAN's use-after-free).
probe uaf_poll sc any --producers 1 --packets 3 --bound 2
probe uaf_xmit sc any --producers 1 --packets 3 --bound 2
exit $bad
