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

/* What c would read at addr now: its own newest buffered store, or memory. */
uint64_t rt_seen_value(const struct rt_ctx *c, const volatile void *addr, size_t size)
{
	for (int i = c->nbuf - 1; i >= 0; i--)
		if (c->buf[i].addr == addr)
			return c->buf[i].v;
	return rt_raw_load(addr, size);
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

bool txp_rt_forward(const volatile void *addr, size_t size, uint64_t *v)
{
	(void)size;
	if (!rt.me)
		return false;
	for (int i = rt.me->nbuf - 1; i >= 0; i--)
		if (rt.me->buf[i].addr == addr) {
			*v = rt.me->buf[i].v;
			return true;
		}
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

