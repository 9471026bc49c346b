/*
 * ring.c - the single-producer transmit ring the real drivers share:
 * start_xmit with the 2005 flow control, and the completion context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/ring_full.h"
#include "ring.h"

/* A slot: the packet it carries, and what the device did with it. */
struct ring_slot {
	struct txp_pkt *pkt;
	bool done;		/* the device is finished with it (completion side) */
	bool unsent;		/* ... without sending it: retired as dropped, ... */
	uint8_t why;		/* ... with this enum txp_drop_reason */
	uint32_t len;		/* bytes reported to BQL for it */
};

struct ring {
	/* Read-only while the device is up. */
	const struct ring_ops *ops;
	void *drv;
	struct txp_dev *dev;
	struct txp_txq *txq;
	unsigned queue;		/* the device's queue it serves */
	/* Queue 0's ring, the device's priv, holds every queue's: [nq]. */
	struct ring **queues;
	unsigned nq;
	struct ring_slot *slot;
	unsigned char *buf;
	bool own_buf;
	unsigned size, slot_size, max_len;
	unsigned wake_thresh;	/* wake when more than this many slots are free */
	bool lltx;		/* own tx_lock, Miller's rule */
	bool has_mac;
	uint8_t mac[6];
	char ifname[32];
	FILE *log;

	/* Producer side: written under tx_lock (LLTX) or the xmit lock. */
	txp_cacheline_aligned _Atomic uint64_t prod;	/* slots posted, ever */
	struct txp_spinlock tx_lock;			/* the driver's own (tp->tx_lock) */
	/* Shared counters (txp_counter_add_shared): LLTX producers bump them
	 * in turn, dropped_down the completion context too. */
	_Atomic uint64_t ring_full_awake, ring_full_stopped, dev_busy, dropped_down;
	_Atomic uint64_t in_place;	/* posted where they were, no copy */

	/* Completion side. */
	txp_cacheline_aligned _Atomic uint64_t cons;	/* slots retired, ever */
	_Atomic uint64_t kicked;	/* slots handed to the device (driver's use) */
	atomic_bool dead;		/* latched: the device is gone (txp__ring_die()) */
	uint8_t dead_why;		/* enum txp_drop_reason for what is left */
	char cause[96];			/* why it died; written before dead */
	atomic_bool congested;		/* the device said "later" (EAGAIN, ENOBUFS) */
	_Atomic uint64_t congestions;
	atomic_bool running;
	struct txp_thread thread;
	/* The reaping bit: set while a context owns the completion side
	 * (ring_reap_trylock()); reap_wanted: a start_xmit found it taken. */
	atomic_bool reaping, reap_wanted;
	bool in_xmit;		/* the reaper is start_xmit (the reaper's own) */
	/* Passes start_xmit made as the reaper (reap_in_xmit; not a busy
	 * poll's, so that producers that only wait leave their reap's errors
	 * to the completion context): written under the reaping bit; read by
	 * the completion context, which notes it (reaps_seen, its own) when
	 * it finds it moved, and naps (ring_completion_idle()): unchanged
	 * since, the producers went quiet (ring_pass_wanted()). */
	_Atomic uint64_t xmit_reaps, reaps_seen;
	/* Single-writer: the completion context. */
	_Atomic uint64_t tx_errors;
	/* Shared: start_xmit refuses too (txp__ring_gather()). */
	_Atomic uint64_t refused;
	_Atomic uint64_t ring_errors;	/* shared: any context may find one */
};

#define RING_LINK_CHECK_NS 10000000u	/* look at the link every 10 ms */
#define RING_IDLE_SPINS 64
#define RING_IDLE_NAP_NS 200000u	/* an idle completion context naps this long */
/* ... or, for a ring whose producers reap (reap_in_xmit), from this long,
 * doubling up to RING_IDLE_NAP_NS. */
#define RING_NAP_MIN_NS 10000u
/* Once the device is dead, completions still come for what it had taken:
 * held slots are dropped only after none came for this long ... */
#define RING_DRAIN_NS 20000000u
/* ... or, when closing, after this long in all. */
#define RING_DRAIN_MAX_NS 1000000000u

struct ring *txp__ring_create(const struct ring_cfg *cfg, char *err, size_t errlen)
{
	struct ring *r;

	if (cfg->slots < 2 || cfg->max_len < TXP_FRAME_MIN_LEN) {
		snprintf(err, errlen, "ring of %u slots cannot carry %u-byte frames",
			 cfg->slots, cfg->max_len);
		return NULL;
	}
	r = aligned_alloc(TXP_CACHELINE, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->ops = cfg->ops;
	r->drv = cfg->drv;
	r->size = cfg->slots;
	r->slot_size = cfg->slot_size;
	r->max_len = cfg->max_len;
	r->log = cfg->log;
	if (cfg->mac) {
		memcpy(r->mac, cfg->mac, 6);
		r->has_mac = true;
	}
	snprintf(r->ifname, sizeof(r->ifname), "%s", cfg->ifname ? cfg->ifname : "-");
	/* Wake with a quarter of the ring free, as tg3's TG3_TX_WAKEUP_THRESH. */
	r->wake_thresh = r->size / 4;
	r->buf = cfg->buf;
	if (!r->buf) {
		r->buf = calloc(r->size, r->slot_size);
		r->own_buf = true;
	}
	r->slot = calloc(r->size, sizeof(*r->slot));
	r->queues = calloc(1, sizeof(*r->queues));
	if (!r->buf || !r->slot || !r->queues) {
		r->drv = NULL;	/* still the caller's */
		txp__ring_destroy(r);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->queues[0] = r;
	r->nq = 1;
	txp_spin_init(&r->tx_lock, "TX lock");
	return r;
}

int txp__ring_add_queue(struct ring *first, struct ring *r, char *err, size_t errlen)
{
	struct ring **q;

	if (first->nq >= TXP_DEV_MAX_QUEUES) {
		snprintf(err, errlen, "at most %u queues", TXP_DEV_MAX_QUEUES);
		return -1;
	}
	q = realloc(first->queues, (first->nq + 1) * sizeof(*q));
	if (!q) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->queue = first->nq;
	q[first->nq++] = r;
	first->queues = q;
	return 0;
}

struct ring *txp__ring_queue(const struct ring *first, unsigned queue)
{
	return queue < first->nq ? first->queues[queue] : NULL;
}

unsigned txp__ring_index(const struct ring *r)
{
	return r->queue;
}

/* One ring and its driver's state. */
static void ring_free(struct ring *r)
{
	if (r->drv && r->ops->release)
		r->ops->release(r->drv);
	if (r->own_buf)
		free(r->buf);
	free(r->slot);
	free(r->queues);
	free(r);
}

void txp__ring_destroy(struct ring *r)
{
	if (!r)
		return;
	/* The other queues' first: their driver states may use queue 0's
	 * (afxdp's shared UMEM). */
	while (r->nq > 1)
		ring_free(r->queues[--r->nq]);
	ring_free(r);
}

/* -- accessors ----------------------------------------------------------------- */

void *txp__ring_drv(const struct ring *r)
{
	return r->drv;
}

unsigned char *txp__ring_buf(const struct ring *r, uint64_t idx)
{
	return r->buf + (size_t)(idx % r->size) * r->slot_size;
}

unsigned txp__ring_size(const struct ring *r)
{
	return r->size;
}

unsigned txp__ring_slot_size(const struct ring *r)
{
	return r->slot_size;
}

unsigned txp__ring_max_len(const struct ring *r)
{
	return r->max_len;
}

uint64_t txp__ring_posted(struct ring *r)
{
	/* Acquire: pairs with the release of prod in txp__ring_start_xmit(). */
	return txp_load_acquire(&r->prod);
}

struct txp_pkt *txp__ring_slot_pkt(const struct ring *r, uint64_t idx)
{
	return r->slot[idx % r->size].pkt;
}

bool txp__ring_slot_done(const struct ring *r, uint64_t idx)
{
	return r->slot[idx % r->size].done;
}

unsigned txp__ring_slot_len(const struct ring *r, uint64_t idx)
{
	const struct txp_pkt *pkt = r->slot[idx % r->size].pkt;

	return pkt ? pkt->len : 0;
}

void txp__ring_slot_sent(struct ring *r, uint64_t idx)
{
	r->slot[idx % r->size].done = true;
}

void txp__ring_slot_unsent(struct ring *r, uint64_t idx, enum txp_drop_reason why)
{
	struct ring_slot *s = &r->slot[idx % r->size];

	s->unsent = true;
	s->why = (uint8_t)why;
	s->done = true;
}

uint64_t txp__ring_kicked(struct ring *r)
{
	return txp_load_relaxed(&r->kicked);
}

void txp__ring_set_kicked(struct ring *r, uint64_t kicked)
{
	txp_store_relaxed(&r->kicked, kicked);
}

bool txp__ring_congested(struct ring *r)
{
	return txp_load_relaxed(&r->congested);
}

void txp__ring_count_in_place(struct ring *r)
{
	txp_counter_add_shared(&r->in_place, 1);
}

void txp__ring_count_error(struct ring *r)
{
	txp_counter_add_shared(&r->ring_errors, 1);
}

void txp__ring_log(const struct ring *r, const char *msg)
{
	if (r->log)
		fprintf(r->log, "%s: %s: %s\n", r->ops->name, r->ifname, msg);
}

const uint8_t *txp__ring_mac(const struct ring *r)
{
	return r->has_mac ? r->mac : NULL;
}

/* A dead queue of the device whose ring is first (queue 0's), or NULL. */
static struct ring *ring_dead_queue(struct ring *first)
{
	for (unsigned i = 0; i < first->nq; i++)
		/* Acquire: pairs with the release in txp__ring_die(). */
		if (txp_load_acquire(&first->queues[i]->dead))
			return first->queues[i];
	return NULL;
}

void txp__ring_get_stats(struct ring *first, struct txp__ring_stats *st)
{
	struct ring *dead = ring_dead_queue(first);

	*st = (struct txp__ring_stats){
		.died_drop = dead ? (enum txp_drop_reason)dead->dead_why : TXP_DROP_DEV_DOWN,
	};
	for (unsigned i = 0; i < first->nq; i++) {
		struct ring *r = first->queues[i];

		st->ring_full_awake += txp_counter_read(&r->ring_full_awake);
		st->ring_full_stopped += txp_counter_read(&r->ring_full_stopped);
		st->dev_busy += txp_counter_read(&r->dev_busy);
		st->ring_errors += txp_counter_read(&r->ring_errors);
		st->refused += txp_counter_read(&r->refused);
		st->tx_errors += txp_counter_read(&r->tx_errors);
		st->dropped_down += txp_counter_read(&r->dropped_down);
		st->in_place += txp_counter_read(&r->in_place);
	}
}

int txp__ring_gather(const struct ring *r, const struct txp_pkt *pkt, void *dst, unsigned cap)
{
	uint32_t n = txp_pkt_gather(pkt, dst, cap < r->max_len ? cap : r->max_len);

	return n ? (int)n : -EMSGSIZE;
}

/*
 * post for tap and pcap: the frame is gathered into its slot; the
 * completion context sends it from there.
 * Synchronization: serialised by txp__ring_start_xmit().
 * Context: a producer.
 * Return codes: 0; -EMSGSIZE (txp__ring_gather()).
 */
int txp__ring_post_in_slot(struct ring *r, uint64_t idx, struct txp_pkt *pkt)
{
	int n = txp__ring_gather(r, pkt, txp__ring_buf(r, idx), r->slot_size);

	return n < 0 ? n : 0;
}

void txp__ring_die(struct ring *r, enum txp_drop_reason why, const char *cause)
{
	if (txp_load_relaxed(&r->dead))
		return;
	r->dead_why = (uint8_t)why;
	snprintf(r->cause, sizeof(r->cause), "%s", cause);
	/* Release: the cause and reason before the flag; pairs with the
	 * acquires in txp__ring_start_xmit() (a producer that sees it drops
	 * instead of posting) and txp__ring_dead_cause(). */
	txp_store_release(&r->dead, true);
}

void txp__ring_set_link_down(struct ring *r, const char *why)
{
	char cause[80];

	if (txp_load_relaxed(&r->dead))
		return;
	if (r->log)
		fprintf(r->log, "%s: %s: NIC Link is Down (%s)\n", r->ops->name, r->ifname, why);
	snprintf(cause, sizeof(cause), "link down (%s)", why);
	txp__ring_die(r, TXP_DROP_DEV_DOWN, cause);
}

const char *txp__ring_dead_cause(struct ring *first)
{
	struct ring *dead = ring_dead_queue(first);

	return dead ? dead->cause : NULL;
}

/* -- the reaper ------------------------------------------------------------ */

/*
 * One context at a time owns a ring's completion side: the driver's reap,
 * the retiring of done slots, BQL's completed count and the wake test
 * after it, and the driver's own completion state (afxdp's unsent
 * count).  It owns it by the reaping bit, as NAPI_STATE_SCHED makes one
 * poll own a queue's completions: taken by test-and-set, and never waited
 * for by a context holding a lock (start_xmit only tries it; the
 * completion context tries it each pass; stop and tx_timeout, which hold
 * nothing, wait for it), so it cannot deadlock with the locks its holder
 * takes (tx_lock, the xmit lock).
 */
static bool ring_reap_trylock(struct ring *r)
{
	/* Test first, so a failed try does not steal the line; the exchange
	 * acquires: pairs with the release in ring_reap_unlock(). */
	if (txp_load_relaxed(&r->reaping) || txp_xchg(&r->reaping, true))
		return false;
	txp_store_relaxed(&r->reap_wanted, false);
	return true;
}

static void ring_reap_lock(struct ring *r)
{
	unsigned spins = 0;

	while (!ring_reap_trylock(r))
		txp_spin_wait(&spins);
}

static void ring_reap_unlock(struct ring *r)
{
	/* Release: what this reaper wrote (slots, cons, the driver's state)
	 * before the next one takes the bit. */
	txp_store_release(&r->reaping, false);
	/* Full barrier: the bit cleared before reap_wanted is read (by the
	 * completion context, after this); pairs with the one in
	 * ring_xmit_reap(): either its second try gets the bit, or the
	 * completion context sees reap_wanted and passes again at once. */
	txp_smp_mb();
}

/* start_xmit took the reaping bit (reap_in_xmit): counted, for the
 * completion context.  Under the bit: one writer at a time, ordered by
 * the bit's acquire and release; relaxed, a hint. */
static void ring_count_xmit_reap(struct ring *r)
{
	txp_store_relaxed(&r->xmit_reaps, txp_load_relaxed(&r->xmit_reaps) + 1);
}

/* -- start_xmit ------------------------------------------------------------ */

/* The ring of txq (the device's priv is queue 0's, which holds them all). */
static inline struct ring *ring_of(struct txp_txq *txq)
{
	struct ring *first = txp_dev_priv(txp_txq_dev(txq));

	return first->queues[txp_txq_index(txq)];
}

/* The slots the device may take now, prod posted and cons retired: none
 * while it said "later" (congested).  The helpers' get_desc. */
static inline unsigned ring_room(struct ring *r, uint64_t prod, uint64_t cons)
{
	return txp_load_relaxed(&r->congested) ? 0 : r->size - (unsigned)(prod - cons);
}

static void ring_tx_unlock(struct ring *r)
{
	if (r->lltx) {
		txp_spin_unlock(&r->tx_lock);
		txp_local_irq_enable();
	}
}

/* No room at entry: Miller's rule (txp__ring_full()), not drawn.  Called
 * serialised; releases tx_lock; always BUSY. */
static enum txp_tx ring_full(struct ring *r)
{
	const char *bug = txp__ring_full(r->txq, TXP_SIM_FULL_CHECK_STOPPED, &r->ring_full_stopped,
					 &r->ring_full_awake, false);

	ring_tx_unlock(r);
	if (bug)
		txp_dev_log_bug(r->dev, bug);
	return TXP_TX_BUSY;
}

/* A free slot, but the device's own ring is busy: backpressure, not the
 * bug ring_full() logs.  Called serialised; releases tx_lock; BUSY.  The
 * queue stops; the completion context's next pass pushes the device and
 * wakes it (ring_wake()). */
static enum txp_tx ring_device_busy(struct ring *r)
{
	txp_counter_add_shared(&r->dev_busy, 1);
	txp_netif_stop_queue(r->txq);
	ring_tx_unlock(r);
	return TXP_TX_BUSY;
}

/* The driver refused pkt (its bytes do not add up or do not fit): dropped
 * as driver, counted.  Called serialised; releases tx_lock; OK. */
static enum txp_tx ring_refuse(struct ring *r, struct txp_pkt *pkt)
{
	ring_tx_unlock(r);
	txp_counter_add_shared(&r->refused, 1);
	txp_pkt_drop(r->dev, pkt, TXP_DROP_DRIVER);
	return TXP_TX_OK;
}

static void ring_xmit_reap(struct ring *r, struct txp_pkt **sent, unsigned *nsent);

/*
 * start_xmit of every real driver: one slot per packet (fragments are
 * linearised into it, as a device without scatter-gather needs), on the
 * ring of txq's queue.  With reap_in_xmit, the last packet of a burst
 * (no xmit_more), or one after which the ring would stop, rings the
 * doorbell and takes the completions in (ring_xmit_reap()), before the
 * stop test, which then sees the room they freed; the packets they
 * carried are completed after tx_lock is released.
 * Synchronization: LLTX: the ring's own tx_lock by trylock; core: the
 * caller holds the xmit lock.  Either way, the one producer of the ring;
 * its reaper too if it gets the reaping bit.
 * Context: a producer, or a context running the queue.  Never sleeps.
 * Return codes: OK (posted; or dropped: once the device is dead, or
 * refused by the driver: ring_refuse()), BUSY (no
 * room: see ring_full(); the device busy: ring_device_busy()), LOCKED
 * (LLTX, tx_lock busy).
 */
enum txp_tx txp__ring_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct ring *r = ring_of(txq);
	struct txp_pkt *sent = NULL;
	uint64_t prod, cons;
	unsigned len = pkt->len, nsent = 0;
	bool last = !pkt->xmit_more;	/* read now: pkt may be retired once posted */
	int rc;

	if (r->lltx) {
		txp_local_irq_disable();
		if (!txp_spin_trylock(&r->tx_lock)) {
			txp_local_irq_enable();
			return TXP_TX_LOCKED;
		}
	}
	/* Acquire: pairs with the release in txp__ring_die(). */
	if (txp_unlikely(txp_load_acquire(&r->dead))) {
		ring_tx_unlock(r);
		txp_counter_add_shared(&r->dropped_down, 1);
		txp_pkt_drop(r->dev, pkt, r->dead_why);
		return TXP_TX_OK;
	}
	prod = txp_load_relaxed(&r->prod);
	/* Acquire: pairs with the release of cons in ring_retire(): retired
	 * slots are free before they are reused. */
	cons = txp_load_acquire(&r->cons);
	if (txp_unlikely(prod - cons >= r->size))
		return ring_full(r);
	r->slot[prod % r->size] = (struct ring_slot){ .pkt = pkt, .len = len };
	rc = r->ops->post(r, prod, pkt);
	if (txp_unlikely(rc != 0)) {
		r->slot[prod % r->size].pkt = NULL;
		return rc == -EBUSY ? ring_device_busy(r) : ring_refuse(r, pkt);
	}
	/* BQL counts the bytes before the completion may retire them (from
	 * the release below on). */
	txp_netdev_tx_sent_queue(txq, len);
	/* Release: the slot before the index; pairs with the acquire of prod
	 * in the completion context. */
	txp_store_release(&r->prod, prod + 1);
	if (r->ops->reap_in_xmit &&
	    (last || ring_room(r, prod + 1, txp_load_acquire(&r->cons)) < 1))
		ring_xmit_reap(r, &sent, &nsent);
	/* Full: stop, barrier, recheck (the helper's barrier pairs with the
	 * one of the completion's, in ring_wake()); restarted if the
	 * completion freed room meanwhile. */
	txp_netif_txq_maybe_stop(txq, ring_room(r, prod + 1, txp_load_acquire(&r->cons)), 1,
				 r->wake_thresh + 1);
	ring_tx_unlock(r);
	if (sent)
		txp_pkt_complete_list(r->dev, sent, nsent);
	return TXP_TX_OK;
}

/* -- the completion context ------------------------------------------------- */

static void comp_lock(struct ring *r)
{
	if (r->lltx) {
		txp_local_irq_disable();
		txp_spin_lock(&r->tx_lock);
	}
}

/* Wake the queue if it is stopped and room is back (cons: as just
 * retired).  Called under what serialises start_xmit's stop (tx_lock, the
 * xmit lock): the view is current. */
static void ring_wake_locked(struct ring *r, uint64_t cons)
{
	if (txp_netif_queue_stopped(r->txq) &&
	    ring_room(r, txp_load_acquire(&r->prod), cons) > r->wake_thresh)
		txp_netif_wake_queue(r->txq);
}

/*
 * After retiring n slots of `bytes` (cons: as retired): report them to
 * BQL and wake the queue if it is stopped with room back, through the
 * helper, this context its one waker.  LLTX: called under tx_lock, which
 * start_xmit's stop holds, so the helper wakes (tg3).  Core: the helper's
 * barrier pairs with the one of start_xmit's stop, but its wake is left to
 * a second test under the xmit lock (down_cond): start_xmit restarts the
 * queue when its recheck finds room, so a wake decided here on a view of
 * the ring it has since refilled and stopped would wake a full ring (the
 * stale wake).  A pass that retired nothing (the queue stopped for the
 * device's backpressure) wakes under the lock as well.
 */
static void ring_wake(struct ring *r, uint64_t cons, unsigned n, unsigned bytes)
{
	int rc = txp_netif_txq_completed_wake_unless(
		r->txq, n, bytes, ring_room(r, txp_load_acquire(&r->prod), cons),
		r->wake_thresh + 1, !r->lltx);

	if (r->lltx) {
		if (!n)
			ring_wake_locked(r, cons);
		return;
	}
	/* rc 1: room, the queue running or left stopped; tested after the
	 * helper's barrier. */
	if ((!n || rc == 1) && txp_netif_queue_stopped(r->txq)) {
		txp_netif_tx_lock(r->txq);
		ring_wake_locked(r, cons);
		txp_netif_tx_unlock(r->txq);
	}
}

/* A packet the device did not send: dropped with its slot's reason, and
 * counted by it.  Completion side. */
static void ring_drop_unsent(struct ring *r, const struct ring_slot *s)
{
	if (s->why == TXP_DROP_DRIVER)
		txp_counter_add_shared(&r->refused, 1);
	else
		txp_counter_add(&r->tx_errors, 1);
	txp_pkt_drop(r->dev, s->pkt, s->why);
}

/*
 * Take the slots the driver marked done, in order, from cons on (*cons:
 * past them): the packets sent onto *sent (a list through pkt->next),
 * those it did not send dropped; *bytes: what they had reported to BQL.
 * Returns the count.  The reaper's; cons is published by the caller.
 */
static unsigned ring_take_done(struct ring *r, uint64_t *consp, struct txp_pkt **sent,
			       unsigned *nsent, unsigned *bytesp)
{
	uint64_t cons = *consp, prod = txp_load_acquire(&r->prod);
	struct txp_pkt **ts = sent;
	unsigned n = 0, bytes = 0;

	while (cons < prod) {
		struct ring_slot *s = &r->slot[cons % r->size];

		if (!s->done)
			break;
		if (!s->pkt) {
			/* dropped already by ring_abandon() */
		} else if (s->unsent) {
			ring_drop_unsent(r, s);
		} else {
			*ts = s->pkt;
			ts = &s->pkt->next;
			(*nsent)++;
		}
		bytes += s->len;
		*s = (struct ring_slot){ 0 };
		cons++;
		n++;
	}
	*ts = NULL;
	*consp = cons;
	*bytesp = bytes;
	return n;
}

/*
 * Retire the slots the driver marked done (ring_take_done()), then report
 * them and wake the queue (ring_wake()).  Returns the count.  The
 * completion context's (or the closing one's), holding the reaping bit.
 */
static unsigned ring_retire(struct ring *r, struct txp_pkt **sent, unsigned *nsent)
{
	uint64_t cons = txp_load_relaxed(&r->cons);
	unsigned bytes, n = ring_take_done(r, &cons, sent, nsent, &bytes);

	if (!n && !txp_netif_queue_stopped(r->txq))
		return 0;
	comp_lock(r);
	/* Release: clean slots before the index; pairs with the acquire of
	 * cons in txp__ring_start_xmit(). */
	txp_store_release(&r->cons, cons);
	ring_wake(r, cons, n, bytes);
	ring_tx_unlock(r);
	return n;
}

/*
 * After retiring n slots of `bytes` in start_xmit (cons: as retired), which
 * holds what serialises it: LLTX, as the completion context under tx_lock
 * (ring_wake(): a queue stopped by the LLTX race is woken here).  Core:
 * the queue is awake while start_xmit runs (its driver's stops come after
 * this, the completion context's under the xmit lock), so the helper only
 * reports to BQL (and clears BQL's own stop if room is back), its wake
 * held back by down_cond.
 */
static void ring_xmit_wake(struct ring *r, uint64_t cons, unsigned n, unsigned bytes)
{
	if (r->lltx) {
		txp_assert_held(&r->tx_lock);
		ring_wake(r, cons, n, bytes);
		return;
	}
	(void)txp_netif_txq_completed_wake_unless(
		r->txq, n, bytes, ring_room(r, txp_load_relaxed(&r->prod), cons),
		r->wake_thresh + 1, true);
}

/*
 * start_xmit's reap (reap_in_xmit): the driver's reap (its kick is the
 * burst's doorbell; an error is left to the completion context, which
 * meets it again), then the done slots retired (ring_xmit_wake()), their
 * sent packets onto *sent for the caller to complete once it released
 * tx_lock.  Only as the reaper: if the completion context holds the
 * reaping bit, reap_wanted makes it pass once more at once, for this.
 * Called serialised (the xmit lock or tx_lock).
 */
static void ring_xmit_reap(struct ring *r, struct txp_pkt **sent, unsigned *nsent)
{
	uint64_t cons;
	unsigned n, bytes;

	if (!ring_reap_trylock(r)) {
		txp_store_relaxed(&r->reap_wanted, true);
		/* Full barrier: pairs with the one in ring_reap_unlock(). */
		txp_smp_mb();
		if (!ring_reap_trylock(r))
			return;
	}
	ring_count_xmit_reap(r);
	cons = txp_load_relaxed(&r->cons);
	r->in_xmit = true;
	(void)r->ops->reap(r, cons, txp_load_relaxed(&r->prod));
	r->in_xmit = false;
	n = ring_take_done(r, &cons, sent, nsent, &bytes);
	if (n) {
		/* Release: as ring_retire()'s. */
		txp_store_release(&r->cons, cons);
		ring_xmit_wake(r, cons, n, bytes);
	}
	ring_reap_unlock(r);
}

void txp__ring_set_congested(struct ring *r, bool congested)
{
	if (txp_load_relaxed(&r->congested) == congested)
		return;
	txp_store_relaxed(&r->congested, congested);
	if (!congested)
		return;	/* the next ring_retire() wakes the queue */
	txp_counter_add(&r->congestions, 1);
	/* Stop under the lock that serialises start_xmit, so the core never
	 * sees the queue stopped under a start_xmit in core mode: start_xmit
	 * reaping (reap_in_xmit) holds it already. */
	if (r->in_xmit) {
		txp_netif_stop_queue(r->txq);
	} else if (r->lltx) {
		comp_lock(r);
		txp_netif_stop_queue(r->txq);
		ring_tx_unlock(r);
	} else {
		txp_netif_tx_lock(r->txq);
		txp_netif_stop_queue(r->txq);
		txp_netif_tx_unlock(r->txq);
	}
}

/* The device is dead (or closed) and its last completions are in:
 * everything posted and not done will never be sent, dropped with the
 * death's reason (dev-down when closed).  The slots keep their length,
 * for BQL, until retired. */
static void ring_abandon(struct ring *r)
{
	uint64_t cons, prod;
	enum txp_drop_reason why = txp_load_acquire(&r->dead) ? r->dead_why : TXP_DROP_DEV_DOWN;

	ring_reap_lock(r);
	cons = txp_load_relaxed(&r->cons);
	prod = txp_load_acquire(&r->prod);
	for (uint64_t i = cons; i < prod; i++) {
		struct ring_slot *s = &r->slot[i % r->size];

		if (!s->done && s->pkt) {
			txp_counter_add_shared(&r->dropped_down, 1);
			txp_pkt_drop(r->dev, s->pkt, why);
			s->pkt = NULL;
			s->done = true;
		}
	}
	ring_reap_unlock(r);
}

/* One pass, as the reaper: let the driver push and reap (once the device
 * is dead, only to take its last completions), retire, complete.  A
 * producer's (busy polling) leaves a reap's error to the completion
 * context, which meets it again (txp__ring_die()'s context).
 * Returns the slots retired. */
static unsigned ring_reap_pass(struct ring *r, bool producer)
{
	struct txp_pkt *sent;
	uint64_t cons = txp_load_relaxed(&r->cons), prod = txp_load_acquire(&r->prod);
	unsigned n, nsent = 0;

	if (cons != prod) {
		int rc = r->ops->reap(r, cons, prod);

		if (rc < 0 && !producer)
			txp__ring_set_link_down(r, strerror(-rc));
	}
	if (txp_load_acquire(&r->dead)) {
		/* Nothing more will be sent; the queue stays awake so that the
		 * qdisc drains into start_xmit's drops, as the kernel's noop
		 * qdisc does for a device without carrier. */
		txp_store_relaxed(&r->congested, false);
	}
	n = ring_retire(r, &sent, &nsent);
	if (sent)
		txp_pkt_complete_list(r->dev, sent, nsent);
	return n;
}

/* A pass by a context that holds no lock (closing, the watchdog's),
 * waiting for the reaping bit.  Returns the slots retired. */
static unsigned ring_pass(struct ring *r)
{
	unsigned n;

	ring_reap_lock(r);
	n = ring_reap_pass(r, false);
	ring_reap_unlock(r);
	return n;
}

/* txp__ring_busy_poll() on one ring: a producer's pass as the reaper if
 * the bit is free, then the queue run, which a wake scheduled.  Not
 * counted with start_xmit's reaps (xmit_reaps): producers that only wait
 * are quiet, so the completion context passes as well, and meets the
 * reap errors a busy poll leaves to it.  Returns the slots retired. */
static unsigned ring_busy_poll_one(struct ring *r)
{
	unsigned n = 0;

	if (ring_reap_trylock(r)) {
		n = ring_reap_pass(r, true);
		ring_reap_unlock(r);
	}
	txp_net_tx_action_txq(r->txq);
	return n;
}

unsigned txp__ring_busy_poll(struct ring *first, int queue)
{
	unsigned n = 0;

	if (!first->ops->reap_in_xmit)
		return 0;
	if (queue >= 0)
		return (unsigned)queue < first->nq ? ring_busy_poll_one(first->queues[queue]) : 0;
	for (unsigned i = 0; i < first->nq; i++)
		n += ring_busy_poll_one(first->queues[i]);
	return n;
}

/* Is there work for a pass of the completion context: a stopped queue to
 * wake, a start_xmit that left its reap to it (reap_wanted), a dead
 * device, or slots posted and not retired, which a ring whose producers
 * reap (reap_in_xmit) leaves to them unless they went quiet: no
 * start_xmit of theirs took the reaping bit since this context last
 * noted that one did (ring_producers_reap(), before a nap).  A pass taken while they reap
 * holds the bit they need for their doorbell: preempted with it, it held
 * their kicks back until their packets ran out (afxdp on veth, one
 * producer, before this: 3-11 % of a run spent so, some 240 descriptors
 * unkicked at each spell's start).  Read unordered: a stale answer costs
 * a pass, or delays one to the next (the context polls). */
static bool ring_pass_wanted(struct ring *r)
{
	if (txp_netif_queue_stopped(r->txq) || txp_load_relaxed(&r->reap_wanted) ||
	    txp_load_relaxed(&r->dead))
		return true;
	if (txp_load_relaxed(&r->cons) == txp_load_acquire(&r->prod))
		return false;
	return !r->ops->reap_in_xmit ||
	       txp_load_relaxed(&r->xmit_reaps) == txp_load_relaxed(&r->reaps_seen);
}

/* The completion context's pass: as the reaper if there is work and the
 * bit is free (else its holder is reaping: nothing to do here), then run
 * the queue.  An idle ring's bit is left alone, so the producers reaping
 * (reap_in_xmit) find it free.  Returns the slots retired. */
static unsigned ring_completion_pass(struct ring *r)
{
	unsigned n = 0;

	if (ring_pass_wanted(r) && ring_reap_trylock(r)) {
		n = ring_reap_pass(r, false);
		ring_reap_unlock(r);
	}
	txp_net_tx_action_txq(r->txq);
	return n;
}

/* A nap of the completion context: ns, or the driver's idle. */
static void ring_nap(struct ring *r, uint64_t ns)
{
	if (r->ops->idle)
		r->ops->idle(r, ns);
	else
		txp_sleep_ns(ns);
}

/* Have the producers of a running ring that reap (reap_in_xmit) taken
 * the reaping bit in start_xmit since the completion context last looked?  Then it
 * notes how far they got (reaps_seen): a pass is not wanted of it until
 * they stop (ring_pass_wanted()).  Relaxed: hints; through the seam, so
 * that the explorer sees the note change what the next pass decides. */
static bool ring_producers_reap(struct ring *r)
{
	uint64_t reaps;

	if (!r->ops->reap_in_xmit || txp_netif_xmit_stopped(r->txq) ||
	    txp_load_relaxed(&r->congested))
		return false;
	reaps = txp_load_relaxed(&r->xmit_reaps);
	if (reaps == txp_load_relaxed(&r->reaps_seen))
		return false;
	txp_store_relaxed(&r->reaps_seen, reaps);
	return true;
}

/*
 * An idle completion context (nothing retired for `idle` passes) before
 * its next pass: none while a start_xmit wants one (reap_wanted, read
 * after ring_reap_unlock()'s barrier); spinning, then the driver's idle
 * (or a yield), as it pushes the device on and its queue waits for it; a
 * ring whose producers reap (reap_in_xmit) needs it only while its queue
 * is stopped (by the driver, BQL, or the device's "later"), and naps
 * otherwise, doubling from RING_NAP_MIN_NS to RING_IDLE_NAP_NS (in the
 * driver's idle, if it has one); while its producers reap (they took
 * the reaping bit since it last looked: ring_producers_reap()), it naps
 * RING_IDLE_NAP_NS at once.
 * Returns the idle count to go on with.
 */
static unsigned ring_completion_idle(struct ring *r, unsigned idle)
{
	unsigned naps, nap;

	if (txp_load_relaxed(&r->reap_wanted))
		return 0;
	if (ring_producers_reap(r)) {
		ring_nap(r, RING_IDLE_NAP_NS);
		return idle;
	}
	if (++idle < RING_IDLE_SPINS) {
		txp_cpu_relax();
		return idle;
	}
	if (!r->ops->reap_in_xmit || txp_netif_xmit_stopped(r->txq) ||
	    txp_load_relaxed(&r->congested)) {
		if (r->ops->idle)
			r->ops->idle(r, RING_IDLE_NAP_NS);
		else
			txp_thread_yield();
		return idle;
	}
	naps = idle - RING_IDLE_SPINS;
	nap = naps < 5 ? RING_NAP_MIN_NS << naps : RING_IDLE_NAP_NS;
	ring_nap(r, nap);
	return idle;
}

/* No completion for RING_DRAIN_NS since quiet_since (updated here): drop
 * what is held.  Returns true once it did. */
static bool ring_drained(struct ring *r, unsigned retired, uint64_t now, uint64_t *quiet_since)
{
	if (retired || !*quiet_since) {
		*quiet_since = now;
		return false;
	}
	if (now - *quiet_since < RING_DRAIN_NS)
		return false;
	ring_abandon(r);
	return true;
}

static void *ring_completion_main(void *arg)
{
	struct ring *r = arg;
	uint64_t next_link_check = 0, quiet_since = 0;
	unsigned idle = 0;

	txp_ctx_attach();
	while (txp_load_acquire(&r->running)) {
		unsigned retired = ring_completion_pass(r);
		uint64_t now = txp_now_ns();

		if (txp_load_relaxed(&r->dead) && ring_drained(r, retired, now, &quiet_since))
			quiet_since = 0;	/* again for what comes later */
		idle = retired ? 0 : ring_completion_idle(r, idle);
		if (r->ops->link_ok && now >= next_link_check) {
			next_link_check = now + RING_LINK_CHECK_NS;
			if (!txp_load_relaxed(&r->dead) && !r->ops->link_ok(r))
				txp__ring_set_link_down(r, "no carrier");
		}
	}
	txp_ctx_detach();
	return NULL;
}

/* Start and stop a queue's completion context (its "interrupt"). */
static int ring_completion_start(struct ring *r)
{
	atomic_init(&r->running, true);
	return -txp_thread_start_internal(&r->thread, "IRQ", ring_completion_main, r);
}

static void ring_completion_stop(struct ring *r)
{
	/* Release: pairs with the acquire in ring_completion_main(). */
	txp_store_release(&r->running, false);
	txp_thread_join(&r->thread);
}

int txp__ring_open(struct txp_dev *dev)
{
	struct ring *first = txp_dev_priv(dev);
	unsigned i;
	int rc = 0;

	if (txp_dev_num_tx_queues(dev) != first->nq)
		return -EINVAL;
	for (i = 0; i < first->nq && rc == 0; i++) {
		struct ring *r = first->queues[i];

		r->dev = dev;
		r->txq = txp_dev_txq(dev, i);
		r->lltx = txp_dev_lock_mode(dev) == TXP_LOCK_LLTX;
		rc = ring_completion_start(r);
	}
	if (rc != 0)
		for (i--; i-- > 0;)
			ring_completion_stop(first->queues[i]);
	return rc;
}

/* Stop a queue's completion context, take what the device finishes until
 * no completion came for RING_DRAIN_NS (at most RING_DRAIN_MAX_NS), and
 * drop the rest as dev-down. */
static void ring_stop_queue(struct ring *r)
{
	uint64_t start = txp_now_ns(), now = start, quiet_since = 0;

	ring_completion_stop(r);
	while (txp_load_relaxed(&r->cons) != txp_load_acquire(&r->prod) &&
	       now - start < RING_DRAIN_MAX_NS &&
	       !ring_drained(r, ring_pass(r), now, &quiet_since)) {
		txp_sleep_ns(RING_IDLE_NAP_NS);
		now = txp_now_ns();
	}
	ring_abandon(r);
	ring_pass(r);
}

void txp__ring_stop(struct txp_dev *dev)
{
	struct ring *first = txp_dev_priv(dev);

	for (unsigned i = 0; i < first->nq; i++)
		ring_stop_queue(first->queues[i]);
}

/* -- tx_timeout ------------------------------------------------------------- */

/*
 * Take back, newest first, the posted slots the device never started on
 * (ops->cancel), onto *list (through pkt->next), and move prod back over
 * them, so the next post lands where the device looks next.  *bytes: what
 * they had reported to BQL.  Returns how many.
 * Synchronization: the completion context stopped, start_xmit excluded.
 */
static unsigned ring_cancel(struct ring *r, struct txp_pkt **list, unsigned *bytes)
{
	uint64_t cons = txp_load_relaxed(&r->cons), prod = txp_load_relaxed(&r->prod);
	unsigned n = 0;

	while (r->ops->cancel && prod > cons) {
		struct ring_slot *s = &r->slot[(prod - 1) % r->size];

		if (s->done || !r->ops->cancel(r, prod - 1))
			break;
		if (s->pkt) {
			s->pkt->next = *list;
			*list = s->pkt;
		}
		*bytes += s->len;
		*s = (struct ring_slot){ 0 };
		prod--;
		n++;
	}
	/* Release: the cleared slots before the index, as start_xmit's. */
	txp_store_release(&r->prod, prod);
	if (txp__ring_kicked(r) > prod)
		txp__ring_set_kicked(r, prod);
	return n;
}

/* After a reset: does the device still hold the whole ring, or what BQL
 * stopped the queue for?  Then the queue is stopped again (or as well), so
 * that its watchdog clock restarts (netif_trans_update() in Linux's
 * tx_timeout ops), and the completions that come wake it. */
static bool ring_still_stuck(struct ring *r)
{
	uint64_t prod = txp_load_relaxed(&r->prod), cons = txp_load_relaxed(&r->cons);

	return !ring_room(r, prod, cons) || (prod != cons && txp_netif_xmit_stopped(r->txq));
}

/*
 * tx_timeout: the queue stayed stopped.  Its completion context is
 * stopped while the ring is reset: what the device finished is reclaimed
 * as it finished it, what it never started on and never will (the
 * driver's cancel) is dropped as tx-timeout, BQL forgets it (reset, once
 * the ring is empty), and the queue is woken; stopped again at once, its
 * watchdog clock restarted, if the device still holds what it stopped for
 * (ring_still_stuck()).
 * Synchronization: the core froze every queue (no start_xmit in core
 * mode); in LLTX one under way is excluded by tx_lock from the reset, and
 * from reaping by the reaping bit, held throughout (BQL's one completer).
 * Context: the watchdog.
 */
void txp__ring_tx_timeout(struct txp_dev *dev, unsigned queue)
{
	struct ring *first = txp_dev_priv(dev), *r = first->queues[queue];
	struct txp_pkt *cancelled = NULL, *next;
	unsigned n, bytes = 0;

	ring_completion_stop(r);
	/* The reaper until the end: a start_xmit under way (LLTX) reaps not. */
	ring_reap_lock(r);
	ring_reap_pass(r, false);
	comp_lock(r);
	n = ring_cancel(r, &cancelled, &bytes);
	ring_tx_unlock(r);
	for (; cancelled; cancelled = next) {
		next = cancelled->next;
		txp_pkt_drop(dev, cancelled, TXP_DROP_TX_TIMEOUT);
	}
	txp_netdev_tx_completed_queue(r->txq, n, bytes);
	if (txp_load_relaxed(&r->cons) == txp_load_relaxed(&r->prod))
		txp_netdev_tx_reset_queue(r->txq);
	comp_lock(r);
	txp_netif_wake_queue(r->txq);
	if (ring_still_stuck(r))
		txp_netif_stop_queue(r->txq);
	ring_tx_unlock(r);
	ring_reap_unlock(r);
	if (ring_completion_start(r) != 0)
		txp_dev_log_bug(dev, "tx_timeout: the completion context did not restart");
}
