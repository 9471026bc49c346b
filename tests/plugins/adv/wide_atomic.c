/*
 * wide_atomic.c - a 16-byte C11 atomic in a plugin (a descriptor's two
 * words published at once): what the build and the load make of it.
 * -DWA_SYNC: the legacy __sync builtins on 4 bytes instead.
 */
#include "txpath/linux.h"

struct probe {
	unsigned __int128 pair __attribute__((aligned(16)));
	u32 n __attribute__((aligned(8)));
};

static volatile u64 sink;

static void probe_xmit(struct probe *p, u32 seq)
{
#ifdef WA_SYNC
	__sync_fetch_and_add(&p->n, seq);
#else
	__atomic_store_n(&p->pair, (unsigned __int128)seq << 64 | seq, __ATOMIC_RELEASE);
#endif
}

static void probe_poll(struct probe *p)
{
#ifdef WA_SYNC
	sink = __sync_val_compare_and_swap(&p->n, 0, 0);
#else
	sink = (u64)__atomic_load_n(&p->pair, __ATOMIC_ACQUIRE);
#endif
}

#define ADV_NAME "adv-wide-atomic"
#include "adv_plugin.h"
