/*
 * sync.c - spin locks with owners, contexts, threads and time.
 */
#include "sync.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "txpath/ctx.h"

#ifdef TXP_TSAN
_Atomic unsigned txp__mb_word;
#endif

/* -- spinning --------------------------------------------------------- */

#define TXP_SPINS_BEFORE_YIELD 128

#ifdef TXP_CHECK
void txp_spin_wait(unsigned *spins)
{
	(void)spins;
	txp_rt_spin();
}
#else
void txp_spin_wait(unsigned *spins)
{
	if (++*spins < TXP_SPINS_BEFORE_YIELD) {
		txp_cpu_relax();
		return;
	}
	*spins = 0;
	sched_yield();
}
#endif

/* -- spin lock with owner -------------------------------------------- */

void txp_spin_init(struct txp_spinlock *l, const char *name)
{
	atomic_init(&l->locked, 0);
	atomic_init(&l->owner, TXP_NO_OWNER);
	l->name = name;
}

/* -- observers ----------------------------------------------------------- */

/* The observers, by increasing order (txp_sync_observe()). */
static struct txp_sync_observer *observers;
/* Any observer at all: the one test on the lock's fast path (sync.h). */
bool txp__sync_watched;

void txp_sync_observe(struct txp_sync_observer *o)
{
	struct txp_sync_observer **at = &observers;

	for (const struct txp_sync_observer *p = observers; p; p = p->next)
		if (p == o)
			return;
	while (*at && (*at)->order <= o->order)
		at = &(*at)->next;
	o->next = *at;
	*at = o;
	txp__sync_watched = true;
}

void txp_sync_unobserve(struct txp_sync_observer *o)
{
	for (struct txp_sync_observer **at = &observers; *at; at = &(*at)->next)
		if (*at == o) {
			*at = o->next;
			o->next = NULL;
			break;
		}
	txp__sync_watched = observers != NULL;
}

/* Each observer o in order that has member m: STMT. */
#define each_observer(o, m) \
	for (const struct txp_sync_observer *o = observers; o; o = o->next) if (o->m)

/* An observer that lets a taking of l pass as nested, if any does. */
static bool observe_recursion(const struct txp_spinlock *l, const char *site)
{
	each_observer(o, lock_recursion)
		if (o->lock_recursion(l, site))
			return true;
	return false;
}

/* In decreasing order (struct txp_sync_observer): the list backwards. */
static void acquired_from(const struct txp_sync_observer *o, const struct txp_spinlock *l,
			  const char *site)
{
	if (!o)
		return;
	acquired_from(o->next, l, site);
	if (o->lock_acquired)
		o->lock_acquired(l, site);
}

static void observe_acquired(const struct txp_spinlock *l, const char *site)
{
	acquired_from(observers, l, site);
}

/* True if an observer says this release undoes a nested hold. */
static bool observe_release(const struct txp_spinlock *l, const char *site)
{
	each_observer(o, lock_release)
		if (o->lock_release(l, site))
			return true;
	return false;
}

static void observe_released(const struct txp_spinlock *l, const char *site)
{
	each_observer(o, lock_released)
		o->lock_released(l, site);
}

static void observe_irqs_on(const char *site)
{
	each_observer(o, irqs_on)
		o->irqs_on(site);
}

void txp__sync_might_free(const char *site)
{
	each_observer(o, might_free)
		o->might_free(site);
}

void txp__sync_lock_irqsafe(const struct txp_spinlock *l)
{
	each_observer(o, lock_irqsafe)
		o->lock_irqsafe(l);
}

#ifdef TXP_CHECK
void txp_event_at(const char *event, const char *site)
{
	each_observer(o, event)
		o->event(event, site);
}
#else
void txp_event_at(const char *event, const char *site)
{
	(void)event;
	(void)site;
}
#endif

bool txp_spin_trylock_at(struct txp_spinlock *l, const char *site)
{
	if (!txp__spin_trylock_raw(l))
		return false;
	if (txp_unlikely(txp__sync_watched))
		observe_acquired(l, site);
	return true;
}

void txp_spin_lock_at(struct txp_spinlock *l, const char *site)
{
	unsigned spins = 0;

	/* The validator reports taking a lock this context holds, and lets
	 * it pass as a nested hold instead of spinning forever. */
	if (txp_unlikely(txp__sync_watched) && observe_recursion(l, site))
		return;
	while (!txp__spin_trylock_raw(l))
		txp_spin_wait(&spins);
	if (txp_unlikely(txp__sync_watched))
		observe_acquired(l, site);
}

void txp_spin_unlock_at(struct txp_spinlock *l, const char *site)
{
	if (txp_unlikely(txp__sync_watched) && observe_release(l, site))
		return;
	txp__spin_unlock_raw(l);
	if (txp_unlikely(txp__sync_watched))
		observe_released(l, site);
}

void txp_spin_lock_irq_at(struct txp_spinlock *l, const char *site)
{
	txp_local_irq_disable_at(site);
	txp_spin_lock_at(l, site);
}

void txp_spin_unlock_irq_at(struct txp_spinlock *l, const char *site)
{
	txp_spin_unlock_at(l, site);
	txp_local_irq_enable_at(site);
}

unsigned long txp_spin_lock_irqsave_at(struct txp_spinlock *l, const char *site)
{
	unsigned long flags = txp_local_irq_save_at(site);

	txp_spin_lock_at(l, site);
	return flags;
}

bool txp_spin_trylock_irqsave_at(struct txp_spinlock *l, unsigned long *flags, const char *site)
{
	*flags = txp_local_irq_save_at(site);
	if (txp_spin_trylock_at(l, site))
		return true;
	txp_local_irq_restore_at(*flags, site);
	return false;
}

void txp_spin_unlock_irqrestore_at(struct txp_spinlock *l, unsigned long flags, const char *site)
{
	txp_spin_unlock_at(l, site);
	txp_local_irq_restore_at(flags, site);
}

#ifdef TXP_ASSERT_LOCKS
void txp__assert_held_failed(const char *lock, const char *func)
{
	fprintf(stderr, "txpath: %s() needs %s held, and this context does not hold it\n", func,
		lock);
	abort();
}
#endif

int txp_spin_owner(const struct txp_spinlock *l)
{
	return txp__spin_owner_raw(l);
}

bool txp_spin_is_locked(const struct txp_spinlock *l)
{
	return txp_load_relaxed(&((struct txp_spinlock *)l)->locked) != 0;
}

/* -- contexts --------------------------------------------------------- */

txp_local int txp__ctx_id;
TXP_LOCAL(txp__ctx_id);
static txp_local bool txp__irq_off;
TXP_LOCAL(txp__irq_off);
static txp_local const char *txp__irq_off_site;
TXP_LOCAL(txp__irq_off_site);
static txp_local unsigned txp__in_irq;
TXP_LOCAL(txp__in_irq);
/* Bit i % 64 of word i / 64: id i taken. */
#define CTX_WORDS ((TXP__CTX_IDS + 63) / 64)
_Static_assert(TXP_MAX_CTX % 64 == 0 && TXP__CTX_IDS % 64 == 0, "the ranges are whole words");
static _Atomic uint64_t txp__ctx_used[CTX_WORDS];
static _Atomic uint64_t txp__ctx_ever[CTX_WORDS];	/* txp__ctx_id_next() */
static pthread_key_t txp__ctx_key;
static pthread_once_t txp__ctx_once = PTHREAD_ONCE_INIT;

static void txp__ctx_release(void *unused)
{
	(void)unused;
	txp_ctx_detach();
}

static bool txp__ctx_key_ok;	/* else ids are given back by txp_ctx_detach() only */

static void txp__ctx_key_init(void)
{
	txp__ctx_key_ok = pthread_key_create(&txp__ctx_key, txp__ctx_release) == 0;
}

int txp__ctx_id_next(int from)
{
	for (int w = from / 64; from < TXP__CTX_IDS; w++, from = w * 64) {
		uint64_t ever = atomic_load_explicit(&txp__ctx_ever[w], memory_order_relaxed) >>
				(from % 64);

		if (ever)
			return from + __builtin_ctzll(ever);
	}
	return -1;
}

/* Take a free id of lo..hi - 1 (whole words); -EBUSY if none.  Context
 * ids are bookkeeping, not part of any protocol: plain atomics, never
 * scheduling points. */
static int ctx_take(int lo, int hi)
{
	for (int w = lo / 64; w < hi / 64; w++) {
		uint64_t used = atomic_load_explicit(&txp__ctx_used[w], memory_order_relaxed);

		while (used != UINT64_MAX) {
			int bit = __builtin_ctzll(~used), id = w * 64 + bit;

			/* Seq_cst: acquires what the id's last owner wrote to
			 * its per-context slots; pairs with the release in
			 * ctx_give_back(). */
			if (!atomic_compare_exchange_weak(&txp__ctx_used[w], &used,
							  used | (1ull << bit)))
				continue;
			if (!(atomic_load_explicit(&txp__ctx_ever[w], memory_order_relaxed) &
			      (1ull << bit)))
				atomic_fetch_or_explicit(&txp__ctx_ever[w], 1ull << bit,
							 memory_order_relaxed);
			return id;
		}
	}
	return -EBUSY;
}

/* Make id (taken) the calling thread's. */
static void ctx_adopt(int id)
{
	pthread_once(&txp__ctx_once, txp__ctx_key_init);
	txp__ctx_id = id + 1;
	/* Any non-NULL value makes the destructor run. */
	if (txp__ctx_key_ok)
		pthread_setspecific(txp__ctx_key, &txp__ctx_id);
}

/* Id free again.  Seq_cst (a release): what its owner wrote to its
 * per-context slots before reaches the next ctx_take() of it. */
static void ctx_give_back(int id)
{
	atomic_fetch_and(&txp__ctx_used[id / 64], ~(1ull << (id % 64)));
}

int txp_ctx_attach(void)
{
	int id;

	if (txp__ctx_id)
		return txp__ctx_id - 1;
	id = ctx_take(0, TXP_MAX_CTX);
	if (id >= 0)
		ctx_adopt(id);
	return id;
}

void txp_ctx_detach(void)
{
	int id = txp__ctx_id - 1;

	if (id < 0)
		return;
	txp__ctx_id = 0;
	txp__irq_off = false;
	txp__in_irq = 0;
	if (txp__ctx_key_ok)
		pthread_setspecific(txp__ctx_key, NULL);
	ctx_give_back(id);
}

/* A thread's first call with every id taken: it waits for one to be
 * given back (txp_ctx.h).  The callers index per-context state with the
 * id, so there is no error to return here. */
int txp__ctx_attach_slow(void)
{
	int id;

	while ((id = txp_ctx_attach()) < 0)
		sched_yield();
	return id;
}

bool txp_irqs_disabled(void)
{
	return txp__irq_off;
}

bool txp_in_irq(void)
{
	return txp__in_irq != 0;
}

/* Interrupts go from off to on: the validator's moment. */
static void irqs_on(const char *site)
{
	if (txp__irq_off) {
		txp__irq_off = false;
		if (txp_unlikely(txp__sync_watched))
			observe_irqs_on(site);
	}
}

static void irqs_off(const char *site)
{
	if (!txp__irq_off) {
		txp__irq_off = true;
		txp__irq_off_site = site;
	}
}

void txp_local_irq_disable_at(const char *site)
{
	irqs_off(site);
}

void txp_local_irq_enable_at(const char *site)
{
	irqs_on(site);
}

unsigned long txp_local_irq_save_at(const char *site)
{
	unsigned long was_off = txp__irq_off;

	irqs_off(site);
	return was_off;
}

void txp_local_irq_restore_at(unsigned long flags, const char *site)
{
	if (!flags)
		irqs_on(site);
}

const char *txp_irqs_off_site(void)
{
	return txp__irq_off ? txp__irq_off_site : NULL;
}

void txp_irq_enter(void)
{
	txp__in_irq++;
}

void txp_irq_exit(void)
{
	txp__in_irq--;
}

/* -- threads ---------------------------------------------------------- */

_Static_assert(sizeof(pthread_t) <= sizeof(unsigned long), "pthread_t fits");

/* An internal thread: its id, then its function. */
static void *internal_main(void *arg)
{
	struct txp_thread *t = arg;
	void *ret;

	ctx_adopt(t->id);
	ret = t->fn(t->arg);
	txp_ctx_detach();
	return ret;
}

int txp_thread_start_internal(struct txp_thread *t, const char *name,
			      void *(*fn)(void *), void *arg)
{
	int id = ctx_take(TXP_MAX_CTX, TXP__CTX_IDS), rc;

	if (id < 0)
		return EBUSY;
	t->fn = fn;
	t->arg = arg;
	t->id = id;
	rc = txp_thread_start_named(t, name, internal_main, t);
	if (rc)
		ctx_give_back(id);
	return rc;
}

#ifdef TXP_CHECK
int txp_thread_start_named(struct txp_thread *t, const char *name,
			   void *(*fn)(void *), void *arg)
{
	return txp_rt_thread_start(t, name, fn, arg);
}

void txp_thread_join(struct txp_thread *t)
{
	txp_rt_thread_join(t);
}

void txp_thread_yield(void)
{
	txp_rt_idle();
}
#else
int txp_thread_start_named(struct txp_thread *t, const char *name,
			   void *(*fn)(void *), void *arg)
{
	pthread_t th;
	int rc = pthread_create(&th, NULL, fn, arg);

	(void)name;
	if (rc == 0) {
		t->handle = (unsigned long)th;
		t->ctx = -1;
	}
	return rc;
}

void txp_thread_join(struct txp_thread *t)
{
	pthread_join((pthread_t)t->handle, NULL);
}

void txp_thread_yield(void)
{
	sched_yield();
}
#endif

/* -- time ------------------------------------------------------------- */

uint64_t txp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void txp_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u),
		.tv_nsec = (long)(ns % 1000000000u),
	};

	while (nanosleep(&ts, &ts) != 0)
		;
}
