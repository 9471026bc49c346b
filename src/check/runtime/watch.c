/*
 * watch.c - the watched words (check build only): flags whose rises are
 * counted as they reach memory, for the oracle's own ground truth.
 */
#include <string.h>

#include "check/runtime/rt.h"

/*
 * The watched words (rt_watch_probe()): flags whose rises, 0 to
 * nonzero, are counted as they reach memory, by writer, and what each
 * context had seen of them when it last read the word.  One per queue.
 */
struct watched {
	const volatile void *addr;
	size_t size;
	uint64_t val;		/* in memory now */
	unsigned rises, own[RT_MAX_CTX];
	struct rt_mark seen[RT_MAX_CTX];	/* at each context's last read */
};

static struct {
	bool probing;
	unsigned n;
	struct watched w[RT_WATCH_MAX];
} W;

/* The watched word at addr, or NULL. */
static inline struct watched *watched_at(const volatile void *addr)
{
	for (unsigned i = 0; i < W.n; i++)
		if (W.w[i].addr == addr)
			return &W.w[i];
	return NULL;
}

void rt_watch_point(const volatile void *addr, size_t size)
{
	if (txp_unlikely(W.probing) && W.n < RT_WATCH_MAX) {
		W.w[W.n].addr = addr;
		W.w[W.n].size = size;
		W.n++;
		W.probing = false;
	}
}

void rt_watch_load(const volatile void *addr)
{
	struct watched *w = W.n ? watched_at(addr) : NULL;

	if (w)
		w->seen[rt.me->id] = (struct rt_mark){ w->rises, w->own[rt.me->id] };
}

static void watch_landed(struct watched *w, const struct rt_ctx *writer)
{
	uint64_t v = rt_raw_load(w->addr, w->size);

	if (v && !w->val) {
		w->rises++;
		if (writer)
			w->own[writer->id]++;
	}
	w->val = v;
}

void rt_watch_landed(const volatile void *addr, const struct rt_ctx *writer)
{
	struct watched *w = watched_at(addr);

	if (w)
		watch_landed(w, writer);
}

void rt_watch_reset(void)
{
	memset(&W, 0, sizeof(W));
}

int rt_watch_probe(void (*read)(void *), void *arg)
{
	unsigned i = W.n;

	if (i == RT_WATCH_MAX)
		return -1;
	W.probing = true;
	read(arg);
	W.probing = false;
	if (W.n == i)
		return -1;
	W.w[i].val = rt_raw_load(W.w[i].addr, W.w[i].size);
	return (int)i;
}

struct rt_mark rt_watch_seen(int word)
{
	const struct watched *w = &W.w[word];

	return rt.me ? w->seen[rt.me->id] : (struct rt_mark){ w->rises, 0 };
}

bool rt_watch_rose_since(int word, struct rt_mark m)
{
	const struct watched *w = &W.w[word];
	unsigned own = rt.me ? w->own[rt.me->id] : 0;

	/* What has landed on the word so far: a read of it. */
	if (rt_tracing())
		trace_read(w->addr);

	return w->rises - m.rises > own - m.own;
}
