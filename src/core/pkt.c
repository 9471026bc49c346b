/*
 * pkt.c - packets: from the heap, or from per-thread pools.
 *
 * A pool is a free list owned by one thread plus a return stack any
 * thread may push onto.  The owner allocates from its list with no atomic
 * at all; when the list runs dry it takes the whole return stack with one
 * exchange.  A packet freed by its owner goes straight onto the list; one
 * freed elsewhere (the completion context, a context that ran another
 * producer's packets through the qdisc) is pushed onto the return stack
 * with one compare-and-swap, a whole run of packets at a time when they
 * are freed as a list.  The owner only ever takes the whole stack, never
 * one entry, so the push has no ABA problem.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "sync/sync.h"
#include "txpath/pkt.h"

#define POOL_CHUNK 256u		/* packets added when an unbounded pool grows */

/* What the core, the qdiscs and the drivers touch per packet: one line. */
#define PKT_HOT_LEN offsetof(struct txp_pkt, sk)
_Static_assert(PKT_HOT_LEN == TXP_CACHELINE, "struct txp_pkt: the hot fields fill its first line");

/* Each packet on lines of its own: two packets handled by two contexts at
 * once never share a line. */
struct pool_slot {
	txp_cacheline_aligned struct txp_pkt pkt;
};

struct pool_chunk {
	struct pool_chunk *next;
	unsigned n;		/* slots */
	struct pool_slot slot[];
};

struct txp_pkt_pool {
	/* The owner's line: only the owning thread touches these after
	 * creation (owner and capacity are read-only, read by any thread). */
	txp_cacheline_aligned struct txp_pkt *free;	/* home, owner's list */
	uint64_t owner;		/* thread token of the owner */
	unsigned capacity;	/* 0: unbounded */
	unsigned created;	/* packets made so far */
	uint32_t buf_size;	/* head buffer per packet; 0: none */
	uint32_t headroom;
	unsigned char *area;	/* the caller's buffers; NULL: the chunks' */
	struct pool_chunk *chunks;

	/* The return line: written by every thread that frees a packet of
	 * this pool, read by the owner when its list runs dry. */
	txp_cacheline_aligned _Atomic(struct txp_pkt *) remote;
};

/* A token per thread, never reused (thread ids and TLS addresses are). */
static _Atomic uint64_t pool_next_token = 1;
static txp_local uint64_t pool_token;
TXP_LOCAL(pool_token);

static inline uint64_t thread_token(void)
{
	/* Relaxed, outside the seam: only unique, ordered with nothing (and
	 * in the check build no scheduling point). */
	if (txp_unlikely(!pool_token))
		pool_token = atomic_fetch_add_explicit(&pool_next_token, 1, memory_order_relaxed);
	return pool_token;
}

/* -- heap packets ------------------------------------------------------- */

struct txp_pkt *txp_pkt_alloc(void)
{
	return calloc(1, sizeof(struct txp_pkt));
}

/* -- bytes ---------------------------------------------------------------- */

unsigned char *txp_pkt_put(struct txp_pkt *pkt, uint32_t n)
{
	unsigned char *tail = pkt->data + pkt->head_len;

	if (!pkt->data || txp_pkt_tailroom(pkt) < n)
		return NULL;
	pkt->head_len += n;
	pkt->len += n;
	return tail;
}

unsigned char *txp_pkt_push(struct txp_pkt *pkt, uint32_t n)
{
	if (!pkt->data || txp_pkt_headroom(pkt) < n)
		return NULL;
	pkt->data -= n;
	pkt->head_len += n;
	pkt->len += n;
	return pkt->data;
}

int txp_pkt_add_frag(struct txp_pkt *pkt, void *data, uint32_t len)
{
	if (pkt->nr_frags >= TXP_MAX_FRAGS)
		return -ENOSPC;
	pkt->frags[pkt->nr_frags++] = (struct txp_frag){ .data = data, .len = len };
	pkt->len += len;
	pkt->data_len += len;
	return 0;
}

int txp_pkt_attach_head(struct txp_pkt *pkt, void *buf, uint32_t size, uint32_t headroom,
			uint32_t len)
{
	if (!buf || headroom > size || len > size - headroom)
		return -EINVAL;
	pkt->buf = buf;
	pkt->buf_size = size;
	pkt->data = pkt->buf + headroom;
	pkt->head_len = len;
	pkt->len = len;
	pkt->data_len = 0;
	pkt->nr_frags = 0;
	return 0;
}

bool txp_pkt_bytes_ok(const struct txp_pkt *pkt)
{
	uint64_t sum = pkt->head_len;

	if ((pkt->head_len && !pkt->data) || pkt->nr_frags > TXP_MAX_FRAGS)
		return false;
	for (unsigned i = 0; i < pkt->nr_frags; i++) {
		if (pkt->frags[i].len && !pkt->frags[i].data)
			return false;
		sum += pkt->frags[i].len;
	}
	return sum == pkt->len && sum > 0;
}

uint32_t txp_pkt_gather(const struct txp_pkt *pkt, void *dst, uint32_t cap)
{
	unsigned char *d = dst;

	if (pkt->len > cap || !txp_pkt_bytes_ok(pkt))
		return 0;
	memcpy(d, pkt->data, pkt->head_len);
	d += pkt->head_len;
	for (unsigned i = 0; i < pkt->nr_frags; i++) {
		memcpy(d, pkt->frags[i].data, pkt->frags[i].len);
		d += pkt->frags[i].len;
	}
	return pkt->len;
}

#ifdef TXP_CHECK
bool (*txp__pkt_keep)(struct txp_pkt *pkt);
#endif

/* In the check build, is pkt's memory kept from going back (its free
 * noted by the explorer's oracle, which keeps its own packets, and a
 * pool's packet freed a second time, so that a second free is a finding,
 * not a corrupted pool)? */
static inline bool kept(struct txp_pkt *pkt)
{
#ifdef TXP_CHECK
	return txp__pkt_keep && txp__pkt_keep(pkt);
#else
	(void)pkt;
	return false;
#endif
}

/* A heap packet's memory goes back. */
static inline void heap_free(struct txp_pkt *pkt)
{
	if (!kept(pkt))
		free(pkt);
}

/* -- going home ----------------------------------------------------------- */

/* Give back first..last (linked through ->next) to pool.  Any thread. */
static void pool_put(struct txp_pkt_pool *pool, struct txp_pkt *first, struct txp_pkt *last)
{
	struct txp_pkt *head;

	if (pool->owner == thread_token()) {
		last->next = pool->free;
		pool->free = first;
		return;
	}
	head = txp_load_relaxed(&pool->remote);
	do {
		last->next = head;
		/* Release on success: the packets' contents and links before
		 * they are visible; pairs with the exchange in pool_refill(). */
	} while (!txp_cas(&pool->remote, &head, first));
}

#ifdef TXP_CHECK
/* The check build: first..last without the packets kept(), relinked;
 * their first, or NULL if none is left, and *last. */
static struct txp_pkt *run_unkept(struct txp_pkt *first, struct txp_pkt **last)
{
	struct txp_pkt *head = NULL, **tail = &head, *end = *last, *next;

	for (struct txp_pkt *p = first;; p = next) {
		next = p->next;
		if (!kept(p)) {
			*tail = p;
			tail = &p->next;
			*last = p;
		}
		if (p == end)
			break;
	}
	return head;
}
#endif

/* first..last, all of first's pool (or all from the heap), go home. */
static void pool_free_run(struct txp_pkt *first, struct txp_pkt *last)
{
	struct txp_pkt *next;

	if (first->pool) {
#ifdef TXP_CHECK
		if (!(first = run_unkept(first, &last)))
			return;
#endif
		pool_put(first->pool, first, last);
		return;
	}
	for (last->next = NULL; first; first = next) {
		next = first->next;
		heap_free(first);
	}
}

void txp_pkt_free(struct txp_pkt *pkt)
{
	if (txp_unlikely(!pkt))
		return;
	if (pkt->destructor)
		pkt->destructor(pkt);
	if (!pkt->pool)
		heap_free(pkt);
	else if (!kept(pkt))
		pool_put(pkt->pool, pkt, pkt);
}

void txp_pkt_free_list(struct txp_pkt *list)
{
	struct txp_pkt *first = list, *prev = NULL, *next;

	if (list && !list->next) {
		txp_pkt_free(list);	/* one packet: the common completion */
		return;
	}
	/* Cut the list into runs of one pool each; a run needs no relinking,
	 * it goes home as it stands. */
	for (struct txp_pkt *pkt = list; pkt; prev = pkt, pkt = next) {
		next = pkt->next;
		if (txp_unlikely(pkt->destructor != NULL))
			pkt->destructor(pkt);
		if (pkt->pool == first->pool)
			continue;
		pool_free_run(first, prev);
		first = pkt;
	}
	if (first)
		pool_free_run(first, prev);
}

/* -- pools ---------------------------------------------------------------- */

struct txp_pkt_pool *txp_pkt_pool_create_cfg(const struct txp_pkt_pool_cfg *cfg)
{
	struct txp_pkt_pool *pool;

	if (!cfg || (cfg->buf_size && cfg->headroom >= cfg->buf_size) ||
	    (cfg->area && (!cfg->capacity || !cfg->buf_size)))
		return NULL;
	pool = aligned_alloc(TXP_CACHELINE, sizeof(*pool));
	if (!pool)
		return NULL;
	memset(pool, 0, sizeof(*pool));
	pool->owner = thread_token();
	pool->capacity = cfg->capacity;
	pool->buf_size = cfg->buf_size;
	pool->headroom = cfg->headroom;
	pool->area = cfg->area;
	atomic_init(&pool->remote, NULL);
	return pool;
}

struct txp_pkt_pool *txp_pkt_pool_create(unsigned capacity)
{
	return txp_pkt_pool_create_cfg(&(struct txp_pkt_pool_cfg){ .capacity = capacity });
}

/* Bytes a chunk of n packets needs for their buffers (none with an area):
 * whole lines each, so that no two buffers share one. */
static size_t chunk_buf_stride(const struct txp_pkt_pool *pool)
{
	return pool->area ? 0 : (pool->buf_size + TXP_CACHELINE - 1) / TXP_CACHELINE * TXP_CACHELINE;
}

/* Add up to POOL_CHUNK new packets; returns them as a list, or NULL at
 * capacity or when memory is short.  Owner only. */
static struct txp_pkt *pool_grow(struct txp_pkt_pool *pool)
{
	unsigned n = POOL_CHUNK;
	struct pool_chunk *c;
	struct txp_pkt *list = NULL;
	unsigned char *bufs;
	size_t stride;

	if (pool->capacity) {
		if (pool->created >= pool->capacity)
			return NULL;
		if (n > pool->capacity - pool->created)
			n = pool->capacity - pool->created;
	}
	stride = chunk_buf_stride(pool);
	c = aligned_alloc(TXP_CACHELINE, sizeof(*c) + n * (sizeof(struct pool_slot) + stride));
	if (!c)
		return NULL;
	bufs = pool->area ? pool->area + (size_t)pool->created * pool->buf_size
			  : (unsigned char *)&c->slot[n];
	if (pool->area)
		stride = pool->buf_size;
	c->next = pool->chunks;
	c->n = n;
	pool->chunks = c;
	pool->created += n;
	for (unsigned i = n; i-- > 0;) {
		memset(&c->slot[i].pkt, 0, sizeof(c->slot[i].pkt));
		c->slot[i].pkt.next = list;
		c->slot[i].pkt.home_buf = pool->buf_size ? bufs + i * stride : NULL;
		list = &c->slot[i].pkt;
	}
	return list;
}

/* The owner's list is empty: take what came home, else grow.  Owner only. */
static struct txp_pkt *pool_refill(struct txp_pkt_pool *pool)
{
	/* Test first, so an owner waiting for its packets does not take
	 * the return line away from the threads giving them back. */
	if (txp_load_relaxed(&pool->remote))
		/* Acquire: pairs with the release of the CAS in pool_put(). */
		return txp_xchg(&pool->remote, NULL);
	return pool_grow(pool);
}

/* Each packet's own buffer afresh, data at the headroom, empty. */
static void pool_give_buffers(const struct txp_pkt_pool *pool, struct txp_pkt **pkts, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		pkts[i]->buf = pkts[i]->home_buf;
		pkts[i]->buf_size = pool->buf_size;
		pkts[i]->data = pkts[i]->buf + pool->headroom;
	}
}

/* The hot line zeroed but pool (the cold one is read only as data and
 * nr_frags say). */
_Static_assert(offsetof(struct txp_pkt, pool) + sizeof(void *) == PKT_HOT_LEN,
	       "pool ends the hot line");

/* The kernel's offload fields but cb (skb->cb, the driver's scratch area):
 * zero in every packet a pool gives, as in a new one, whatever its last
 * user set. */
#define PKT_OFFLOAD_START offsetof(struct txp_pkt, data_len)
#define PKT_OFFLOAD_LEN (offsetof(struct txp_pkt, cb) - PKT_OFFLOAD_START)

/* *slot = p, its hot line zeroed but pool, and its offload fields;
 * returns the packet after p. */
static inline struct txp_pkt *pool_take(struct txp_pkt_pool *pool, struct txp_pkt *p,
					struct txp_pkt **slot)
{
	struct txp_pkt *next = p->next;

	*slot = p;
	memset(p, 0, offsetof(struct txp_pkt, pool));
	memset((char *)p + PKT_OFFLOAD_START, 0, PKT_OFFLOAD_LEN);
	p->pool = pool;
	return next;
}

/* pkts[i..n) once the owner's list ran dry: refilled as it goes.  How
 * many of pkts[0..n) are had.  Owner only. */
static __attribute__((noinline)) unsigned pool_alloc_rest(struct txp_pkt_pool *pool,
							 struct txp_pkt **pkts, unsigned n,
							 unsigned i)
{
	struct txp_pkt *p = NULL;

	for (; i < n; i++) {
		if (!p && !(p = pool_refill(pool)))
			break;
		p = pool_take(pool, p, &pkts[i]);
	}
	pool->free = p;
	return i;
}

unsigned txp_pkt_pool_alloc_bulk(struct txp_pkt_pool *pool, struct txp_pkt **pkts, unsigned n)
{
	struct txp_pkt *p;
	unsigned i;

	if (txp_unlikely(!pool || !pkts))
		return 0;
	p = pool->free;

	/* From the owner's list, with no call: the common case. */
	for (i = 0; i < n && p; i++)
		p = pool_take(pool, p, &pkts[i]);
	pool->free = p;
	if (txp_unlikely(i < n))
		i = pool_alloc_rest(pool, pkts, n, i);
	if (pool->buf_size)
		pool_give_buffers(pool, pkts, i);
	return i;
}

struct txp_pkt *txp_pkt_pool_alloc(struct txp_pkt_pool *pool)
{
	struct txp_pkt *pkt;

	return txp_pkt_pool_alloc_bulk(pool, &pkt, 1) ? pkt : NULL;
}

/* The length of list p, counted up to max + 1 at most (a packet freed
 * twice may have made it a cycle). */
static unsigned list_len(const struct txp_pkt *p, unsigned max)
{
	unsigned n = 0;

	for (; p && n <= max; p = p->next)
		n++;
	return n;
}

/* A chunk's slots, as addresses. */
struct chunk_span {
	uintptr_t start, end;
};

static int span_cmp(const void *a, const void *b)
{
	const struct chunk_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Is pkt a slot of one of the n chunks of spans (sorted)? */
static bool in_spans(const struct chunk_span *spans, unsigned n, const struct txp_pkt *pkt)
{
	uintptr_t at = (uintptr_t)pkt;
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (at < spans[mid].start)
			hi = mid;
		else if (at >= spans[mid].end)
			lo = mid + 1;
		else
			return (at - spans[mid].start) % sizeof(struct pool_slot) == 0;
	}
	return false;
}

/* Is every packet of the list a slot of pool's own chunks (none freed
 * into it from another pool, or from the heap)?  O(n log chunks), once,
 * at destroy. */
static bool all_own(const struct txp_pkt_pool *pool, const struct txp_pkt *list)
{
	struct chunk_span *spans;
	unsigned n = 0, i = 0;
	bool own = true;

	for (const struct pool_chunk *c = pool->chunks; c; c = c->next)
		n++;
	spans = malloc((n ? n : 1) * sizeof(*spans));
	if (!spans)
		return false;
	for (const struct pool_chunk *c = pool->chunks; c; c = c->next)
		spans[i++] = (struct chunk_span){ (uintptr_t)&c->slot[0], (uintptr_t)&c->slot[c->n] };
	qsort(spans, n, sizeof(*spans), span_cmp);
	for (; list && own; list = list->next)
		own = in_spans(spans, n, list);
	free(spans);
	return own;
}

bool txp_pkt_pool_destroy(struct txp_pkt_pool *pool)
{
	struct txp_pkt *back, *last;
	struct pool_chunk *c, *next;

	if (!pool)
		return true;
	/* Everything home goes onto one list: the return stack too (acquire:
	 * pairs with the CAS in pool_put()). */
	back = txp_xchg(&pool->remote, NULL);
	if (back) {
		/* More packets than were made: one freed twice by another
		 * thread is on it twice, maybe a cycle (not walked). */
		if (list_len(back, pool->created) > pool->created) {
			txp_store_relaxed(&pool->remote, back);	/* as it was */
			return false;
		}
		for (last = back; last->next; last = last->next)
			;
		last->next = pool->free;
		pool->free = back;
	}
	if (list_len(pool->free, pool->created) != pool->created || !all_own(pool, pool->free))
		return false;
	for (c = pool->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(pool);
	return true;
}
