/*
 * memory.c - memory and the store buffers (check build only): a store
 * waits in its context's buffer under tso and arm until it lands, oldest
 * first under tso (arm.c picks under arm); a context reads its own newest
 * buffered store.
 */
#include <string.h>

#include "check/runtime/rt.h"

void rt_raw_store(volatile void *addr, size_t size, uint64_t v)
{
	switch (size) {
	case 1: __atomic_store_n((volatile uint8_t *)addr, (uint8_t)v, __ATOMIC_SEQ_CST); break;
	case 2: __atomic_store_n((volatile uint16_t *)addr, (uint16_t)v, __ATOMIC_SEQ_CST); break;
	case 4: __atomic_store_n((volatile uint32_t *)addr, (uint32_t)v, __ATOMIC_SEQ_CST); break;
	default: __atomic_store_n((volatile uint64_t *)addr, v, __ATOMIC_SEQ_CST); break;
	}
}

uint64_t rt_raw_load(const volatile void *addr, size_t size)
{
	switch (size) {
	case 1: return __atomic_load_n((const volatile uint8_t *)addr, __ATOMIC_SEQ_CST);
	case 2: return __atomic_load_n((const volatile uint16_t *)addr, __ATOMIC_SEQ_CST);
	case 4: return __atomic_load_n((const volatile uint32_t *)addr, __ATOMIC_SEQ_CST);
	default: return __atomic_load_n((const volatile uint64_t *)addr, __ATOMIC_SEQ_CST);
	}
}

/* Does c's buffered store k meet size bytes at addr? */
bool rt_buf_meets(const struct rt_ctx *c, int k, const volatile void *addr, size_t size)
{
	uintptr_t s = (uintptr_t)c->buf[k].addr, a = (uintptr_t)addr;

	return s < a + size && a < s + c->buf[k].size;
}

/* c's newest buffered store meeting size bytes at addr, -1 if none. */
int rt_buf_last_meeting(const struct rt_ctx *c, const volatile void *addr, size_t size)
{
	for (int k = c->nbuf - 1; k >= 0; k--)
		if (rt_buf_meets(c, k, addr, size))
			return k;
	return -1;
}

/* c's buffered stores land, oldest first, up to the newest meeting size
 * bytes at addr (coherence: the bytes are then its own newest). */
void rt_land_meeting(struct rt_ctx *c, const volatile void *addr, size_t size)
{
	for (int k = rt_buf_last_meeting(c, addr, size); k >= 0; k--)
		rt_flush_one(c);
}

/* The bytes of store s that meet size bytes at addr, over *v (little
 * endian: a value's first byte is at its address). */
static void overlay(uint64_t *v, const volatile void *addr, size_t size, const struct store *s)
{
	uintptr_t a = (uintptr_t)addr, b = (uintptr_t)s->addr;
	uintptr_t from = a > b ? a : b, to = a + size < b + s->size ? a + size : b + s->size;

	for (uintptr_t i = from; i < to; i++) {
		uint64_t byte = (s->v >> (8 * (i - b))) & 0xff;

		*v = (*v & ~(0xffull << (8 * (i - a)))) | byte << (8 * (i - a));
	}
}

/* What c would read of size bytes at addr now: each byte its own newest
 * buffered store's to it, else memory's. */
uint64_t rt_seen_value(const struct rt_ctx *c, const volatile void *addr, size_t size)
{
	int last = rt_buf_last_meeting(c, addr, size);
	uint64_t v;

	if (last >= 0 && c->buf[last].addr == addr && c->buf[last].size == size)
		return c->buf[last].v;
	v = rt_raw_load(addr, size);
	for (int k = 0; k <= last; k++)
		if (rt_buf_meets(c, k, addr, size))
			overlay(&v, addr, size, &c->buf[k]);
	return v;
}

/* Store k of c's buffer reaches memory. */
void rt_flush_at(struct rt_ctx *c, int k)
{
	struct store s = c->buf[k];

	memmove(&c->buf[k], &c->buf[k + 1], (size_t)(c->nbuf - k - 1) * sizeof(c->buf[0]));
	c->nbuf--;
	if (rt.tracing && !rt.freerun) {
		trace_write(s.addr);
		trace_write(c->buf);	/* the buffer: its stores and landings in order */
	}
	rt_arm_before_write(s.addr, s.size);
	rt_raw_store(s.addr, s.size, s.v);
	rt_arm_landed(c, s.addr);
	rt_wake_readers(s.addr, c);
}

void rt_flush_one(struct rt_ctx *c)
{
	rt_flush_at(c, 0);
}

void rt_drain(struct rt_ctx *c)
{
	while (c->nbuf)
		rt_flush_one(c);
}

/* -- the port's store-buffer calls (port.h) ------------------------------ */

/* A load of size bytes at addr, by the running context: its own newest
 * buffered store to exactly those bytes is what it reads (forwarded,
 * true); one that meets them otherwise lands first, with every store
 * older than it, and the load reads memory (false), as plain.c's do. */
bool txp_rt_forward(const volatile void *addr, size_t size, uint64_t *v)
{
	int last;

	if (!rt.me || (last = rt_buf_last_meeting(rt.me, addr, size)) < 0)
		return false;
	if (rt.me->buf[last].addr == addr && rt.me->buf[last].size == size) {
		*v = rt.me->buf[last].v;
		return true;
	}
	rt_land_meeting(rt.me, addr, size);
	return false;
}

bool txp_rt_buffer(volatile void *addr, size_t size, uint64_t v, bool release,
		   const char *what)
{
	if (!rt.me || rt.mm == RT_SC || rt.freerun)
		return false;
	if (rt.me->nbuf == RT_BUF)
		rt_flush_one(rt.me);
	if (rt_tracing())
		trace_write(rt.me->buf);
	rt.me->buf[rt.me->nbuf++] = (struct store){ addr, size, v, what, release, rt.me->wepoch };
	/* Made now, in program order, as race.c sees it. */
	rt_race_sync(rt.me->id, addr, false, true, release ? __ATOMIC_RELEASE : __ATOMIC_RELAXED);
	rt_race_access(rt.me->id, addr, size, RACE_WRITE | RACE_MARKED,
		       __builtin_return_address(0));
	return true;
}

