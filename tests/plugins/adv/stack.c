/*
 * stack.c - a request on start_xmit's stack that the poll completes (an
 * on-stack completion, as drivers wait for a firmware reply): start_xmit
 * publishes &req (smp_store_release), waits for req.done (READ_ONCE,
 * cpu_relax()), then reads req.value plainly.  The poll takes the request
 * (smp_load_acquire), writes value, and releases done.
 * -DSTACK_OK: value before done: correct.
 * -DSTACK_RACE: value after done: a data race on value (start_xmit's plain
 * read against the poll's plain write, unordered).
 */
#include "txpath/linux.h"

struct req {
	u32 value;
	u32 done;
};

struct probe {
	struct req *req __attribute__((aligned(8)));
	u32 got __attribute__((aligned(8)));	/* start_xmit's own */
};

static void probe_xmit(struct probe *p, u32 seq)
{
	struct req req = { 0, 0 };

	if (seq != 1)
		return;
	smp_store_release(&p->req, &req);
	while (!READ_ONCE(req.done))
		cpu_relax();
	p->got = req.value;
	WRITE_ONCE(p->req, NULL);	/* the poll is done with it */
	while (READ_ONCE(req.done) != 2)
		cpu_relax();
}

static void probe_poll(struct probe *p)
{
	struct req *r = smp_load_acquire(&p->req);

	if (!r || READ_ONCE(r->done))
		return;
#if defined(STACK_OK)
	r->value = 42;
	smp_store_release(&r->done, 1);
#elif defined(STACK_RACE)
	smp_store_release(&r->done, 1);
	r->value = 42;
#else
#error "pick a variant: -DSTACK_..."
#endif
	/* Let start_xmit's frame go only once this is done with it. */
	while (READ_ONCE(p->req) == r)
		cpu_relax();
	smp_store_release(&r->done, 2);
}

#define ADV_NAME "adv-stack"
#include "adv_plugin.h"
