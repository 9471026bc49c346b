/*
 * access.c - plain accesses of every shape the compiler makes, racing or
 * not: start_xmit writes (or copies, or clears) shared state with no
 * lock, the poll reads or writes the same state with no lock.  Racing
 * variants must be reported as a data-race; the ones marked "no race"
 * touch different memory locations (C11 3.14) and must not be.
 */
#include <stdlib.h>
#include <string.h>

#include "txpath/linux.h"

struct blob { u64 a, b, c, d; };
struct big { u64 w[32]; };

struct probe {
	u8 u8f __attribute__((aligned(8)));
	u16 u16f __attribute__((aligned(8)));
	u64 u64f;
	unsigned __int128 u128f __attribute__((aligned(16)));
	struct {
		unsigned a : 4;	/* start_xmit's */
		unsigned b : 4;	/* the poll's: the same memory location as a */
	} bits __attribute__((aligned(8)));
	u8 bytes[8] __attribute__((aligned(8)));	/* [0] start_xmit's, [1] the poll's */
	struct __attribute__((packed)) {
		u8 pad[6];
		u32 v;		/* bytes 6 to 9: two granules */
	} un __attribute__((aligned(8)));
	struct blob blob;
	struct big big;
	u32 arr[256];
};

static struct blob src_blob __attribute__((unused)) = { 1, 2, 3, 4 };
static struct big src_big __attribute__((unused)) = { { 1 } };

/* start_xmit's own (ACC_U64_AFTER_BIG), global: its stores are kept. */
extern u64 adv_bounce[8192], adv_poll_bounce[8192];
u64 adv_bounce[8192], adv_poll_bounce[8192];	/* the poll's own */

/* Kept from being folded: what the poll reads goes somewhere. */
static volatile u64 sink;

static void probe_xmit(struct probe *p, u32 seq)
{
#if defined(ACC_U8)
	p->u8f = (u8)seq;
#elif defined(ACC_U16)
	p->u16f = (u16)seq;
#elif defined(ACC_U64)
	p->u64f = seq;
#elif defined(ACC_U64_AFTER_BIG)	/* a bounce buffer of its own, 64 KiB, then the race */
	for (int i = 0; i < 8192; i++)
		adv_bounce[i] = seq;
	p->u64f = seq;
#elif defined(ACC_U128)
	p->u128f = (unsigned __int128)seq << 64;
#elif defined(ACC_BITFIELD)
	p->bits.a = seq & 15;
#elif defined(ACC_ADJ_BYTES)	/* no race */
	p->bytes[0] = (u8)seq;
#elif defined(ACC_UNALIGNED)
	p->un.v = seq | 0x01000000u;	/* its top byte is byte 9 */
#elif defined(ACC_STRUCT_COPY)
	src_blob.a = seq;
	p->blob = src_blob;
#elif defined(ACC_STRUCT_COPY_BIG)
	src_big.w[0] = seq;
	p->big = src_big;
#elif defined(ACC_MEMCPY_SMALL)
	u64 v = seq;

	memcpy(&p->u64f, &v, sizeof(v));
#elif defined(ACC_MEMSET)
	memset(p->arr, (int)seq, sizeof(p->arr));
#elif defined(ACC_MEMSET_SMALL)
	memset(&p->u64f, (int)seq, sizeof(p->u64f));
#elif defined(ACC_MEMCPY_BIG)
	src_big.w[0] = seq;
	memcpy(&p->big, &src_big, sizeof(p->big));
#elif defined(ACC_REALLOC)	/* no race: the poll's block is freed by realloc */
	u8 *q = malloc(24);

	(void)p;
	if (q) {
		q[0] = (u8)seq;
		sink = q[0];
		free(q);
	}
#elif defined(ACC_LOOP_ZERO)
	for (int i = 0; i < 256; i++)
		p->arr[i] = 0;
	(void)seq;
#else
#error "pick a variant: -DACC_..."
#endif
}

static void probe_poll(struct probe *p)
{
#if defined(ACC_U8)
	sink = p->u8f;
#elif defined(ACC_U16)
	sink = p->u16f;
#elif defined(ACC_U64) || defined(ACC_MEMCPY_SMALL) || defined(ACC_MEMSET_SMALL)
	sink = p->u64f;
#elif defined(ACC_U64_AFTER_BIG)
	for (int i = 0; i < 8192; i++)
		adv_poll_bounce[i] = i;
	sink = p->u64f;
#elif defined(ACC_U128)
	sink = (u64)(p->u128f >> 64);
#elif defined(ACC_BITFIELD)
	p->bits.b = 3;
#elif defined(ACC_ADJ_BYTES)
	p->bytes[1] = 7;
#elif defined(ACC_UNALIGNED)
	sink = ((u8 *)&p->un)[9];
#elif defined(ACC_STRUCT_COPY)
	sink = p->blob.c;
#elif defined(ACC_STRUCT_COPY_BIG) || defined(ACC_MEMCPY_BIG)
	sink = p->big.w[17];
#elif defined(ACC_REALLOC)
	u8 *b = malloc(24), *n;

	(void)p;
	if (!b)
		return;
	b[0] = 1;
	n = realloc(b, 4000);	/* moves it: the 24 bytes are free again */
	free(n ? n : b);
#elif defined(ACC_MEMSET) || defined(ACC_LOOP_ZERO)
	sink = p->arr[100];
#endif
}

#define ADV_NAME "adv-access"
#include "adv_plugin.h"
