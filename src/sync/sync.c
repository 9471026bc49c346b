/*
 * sync.c - spin locks with owners, contexts, threads and time.
 */
#include "sync.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "txpath/ctx.h"

#ifdef TXP_TSAN
_Atomic unsigned txp__mb_word;
#endif

/* -- spinning --------------------------------------------------------- */

#define TXP_SPINS_BEFORE_YIELD 128

void txp_spin_wait(unsigned *spins)
{
	if (++*spins < TXP_SPINS_BEFORE_YIELD) {
		txp_cpu_relax();
		return;
	}
	*spins = 0;
	sched_yield();
}

/* -- spin lock with owner -------------------------------------------- */

void txp_spin_init(struct txp_spinlock *l, const char *name)
{
	atomic_init(&l->locked, 0);
	atomic_init(&l->owner, TXP_NO_OWNER);
	l->name = name;
}

bool txp_spin_trylock(struct txp_spinlock *l)
{
	/* Test first: a failed trylock must not steal the line from the
	 * holder (pairs with the release in txp_spin_unlock()). */
	if (txp_load_relaxed(&l->locked))
		return false;
	if (atomic_exchange_explicit(&l->locked, 1, memory_order_acquire))
		return false;
	txp_store_relaxed(&l->owner, txp_ctx_self());
	return true;
}

void txp_spin_lock(struct txp_spinlock *l)
{
	unsigned spins = 0;

	while (!txp_spin_trylock(l))
		txp_spin_wait(&spins);
}

void txp_spin_unlock(struct txp_spinlock *l)
{
	txp_store_relaxed(&l->owner, TXP_NO_OWNER);
	/* Release: pairs with the acquire in txp_spin_trylock(). */
	atomic_store_explicit(&l->locked, 0, memory_order_release);
}

int txp_spin_owner(const struct txp_spinlock *l)
{
	return txp_load_relaxed(&((struct txp_spinlock *)l)->owner);
}

bool txp_spin_is_locked(const struct txp_spinlock *l)
{
	return txp_load_relaxed(&((struct txp_spinlock *)l)->locked) != 0;
}

/* -- contexts --------------------------------------------------------- */

_Thread_local int txp__ctx_id;
static _Thread_local unsigned txp__irq_off;
static _Atomic uint64_t txp__ctx_used;	/* bit i: id i taken */
static pthread_key_t txp__ctx_key;
static pthread_once_t txp__ctx_once = PTHREAD_ONCE_INIT;

static void txp__ctx_release(void *unused)
{
	(void)unused;
	txp_ctx_detach();
}

static void txp__ctx_key_init(void)
{
	if (pthread_key_create(&txp__ctx_key, txp__ctx_release) != 0)
		abort();
}

int txp_ctx_attach(void)
{
	uint64_t used;

	if (txp__ctx_id)
		return txp__ctx_id - 1;
	pthread_once(&txp__ctx_once, txp__ctx_key_init);
	used = txp_load_relaxed(&txp__ctx_used);
	for (;;) {
		int id;

		if (used == UINT64_MAX)
			return -1;
		id = __builtin_ctzll(~used);
		if (txp_cas(&txp__ctx_used, &used, used | (1ull << id))) {
			txp__ctx_id = id + 1;
			/* Any non-NULL value makes the destructor run. */
			pthread_setspecific(txp__ctx_key, &txp__ctx_id);
			return id;
		}
	}
}

void txp_ctx_detach(void)
{
	int id = txp__ctx_id - 1;

	if (id < 0)
		return;
	txp__ctx_id = 0;
	txp__irq_off = 0;
	pthread_setspecific(txp__ctx_key, NULL);
	txp_fetch_and(&txp__ctx_used, ~(1ull << id));
}

int txp__ctx_attach_slow(void)
{
	int id = txp_ctx_attach();

	if (id < 0) {
		fprintf(stderr, "txpath: more than %d threads use the library at once\n",
			TXP_MAX_CTX);
		abort();
	}
	return id;
}

bool txp_irqs_disabled(void)
{
	return txp__irq_off != 0;
}

void txp_local_irq_disable(void)
{
	txp__irq_off++;
}

void txp_local_irq_enable(void)
{
	if (txp__irq_off)
		txp__irq_off--;
}

/* -- threads ---------------------------------------------------------- */

_Static_assert(sizeof(pthread_t) <= sizeof(unsigned long), "pthread_t fits");

int txp_thread_start(struct txp_thread *t, void *(*fn)(void *), void *arg)
{
	pthread_t th;
	int rc = pthread_create(&th, NULL, fn, arg);

	if (rc == 0)
		t->handle = (unsigned long)th;
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
