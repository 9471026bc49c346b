/*
 * ring.c - the single-producer transmit ring the real drivers share:
 * start_xmit with the 2005 flow control, and the completion context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

/* A slot: the packet it carries, and what the device did with it. */
struct ring_slot {
	struct txp_pkt *pkt;
	bool done;		/* the device is finished with it (completion side) */
	bool unsent;		/* ... without sending it: retired as dropped, ... */
	uint8_t why;		/* ... with this enum txp_drop_reason */
};

struct ring {
	/* Read-only while the device is up. */
	const struct ring_ops *ops;
	void *drv;
	struct txp_dev *dev;
	struct txp_txq *txq;
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
	/* Single-writer: the completion context. */
	_Atomic uint64_t tx_errors;
	/* Shared: start_xmit refuses too (txp__ring_gather()). */
	_Atomic uint64_t refused;
	_Atomic uint64_t ring_errors;	/* shared: any context may find one */
};

#define RING_LINK_CHECK_NS 10000000u	/* look at the link every 10 ms */
#define RING_IDLE_SPINS 64
#define RING_IDLE_NAP_NS 200000u	/* an idle completion context naps this long */
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
	if (!r->buf || !r->slot) {
		r->drv = NULL;	/* still the caller's */
		txp__ring_destroy(r);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	txp_spin_init(&r->tx_lock, "TX lock");
	return r;
}

void txp__ring_destroy(struct ring *r)
{
	if (!r)
		return;
	if (r->drv && r->ops->release)
		r->ops->release(r->drv);
	if (r->own_buf)
		free(r->buf);
	free(r->slot);
	free(r);
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

void txp__ring_get_stats(struct ring *r, struct txp__ring_stats *st)
{
	*st = (struct txp__ring_stats){
		.ring_full_awake = txp_counter_read(&r->ring_full_awake),
		.ring_full_stopped = txp_counter_read(&r->ring_full_stopped),
		.dev_busy = txp_counter_read(&r->dev_busy),
		.ring_errors = txp_counter_read(&r->ring_errors),
		.refused = txp_counter_read(&r->refused),
		.tx_errors = txp_counter_read(&r->tx_errors),
		.dropped_down = txp_counter_read(&r->dropped_down),
		.in_place = txp_counter_read(&r->in_place),
		.died_drop = txp__ring_dead_cause(r) ? (enum txp_drop_reason)r->dead_why
						      : TXP_DROP_DEV_DOWN,
	};
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

const char *txp__ring_dead_cause(struct ring *r)
{
	/* Acquire: pairs with the release in txp__ring_die(). */
	return txp_load_acquire(&r->dead) ? r->cause : NULL;
}

/* -- start_xmit ------------------------------------------------------------ */

static void ring_tx_unlock(struct ring *r)
{
	if (r->lltx) {
		txp_spin_unlock(&r->tx_lock);
		txp_local_irq_enable();
	}
}

/* No room at entry.  Called serialised; releases tx_lock; always BUSY.
 * Miller's rule (2.6.11): stopped already is the LLTX race, harmless;
 * awake means the driver forgot to stop: a real bug, logged. */
static enum txp_tx ring_full(struct ring *r)
{
	bool stopped = txp_netif_queue_stopped(r->txq);

	txp_counter_add_shared(stopped ? &r->ring_full_stopped : &r->ring_full_awake, 1);
	if (!stopped)
		txp_netif_stop_queue(r->txq);
	ring_tx_unlock(r);
	if (!stopped)
		txp_dev_log_bug(r->dev, "Tx Ring full when queue awake!");
	return TXP_TX_BUSY;
}

/* A free slot, but the device's own ring is busy: backpressure, not the
 * bug ring_full() logs.  Called serialised; releases tx_lock; BUSY.  The
 * queue stops; the completion context's next pass pushes the device and
 * wakes it (ring_retire()). */
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

/*
 * start_xmit of every real driver: one slot per packet (fragments are
 * linearised into it, as a device without scatter-gather needs).
 * Synchronization: LLTX: the ring's own tx_lock by trylock; core: the
 * caller holds the xmit lock.  Either way, the one producer of the ring.
 * Context: a producer, or a context running the queue.  Never sleeps.
 * Return codes: OK (posted; or dropped: once the device is dead, or
 * refused by the driver: ring_refuse()), BUSY (no
 * room: see ring_full(); the device busy: ring_device_busy()), LOCKED
 * (LLTX, tx_lock busy).
 */
enum txp_tx txp__ring_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct ring *r = txp_dev_priv(txp_txq_dev(txq));
	uint64_t prod, cons;
	unsigned avail;
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
	avail = r->size - (unsigned)(prod - cons);
	if (txp_unlikely(avail < 1))
		return ring_full(r);
	r->slot[prod % r->size] = (struct ring_slot){ .pkt = pkt };
	rc = r->ops->post(r, prod, pkt);
	if (txp_unlikely(rc != 0)) {
		r->slot[prod % r->size].pkt = NULL;
		return rc == -EBUSY ? ring_device_busy(r) : ring_refuse(r, pkt);
	}
	/* Release: the slot before the index; pairs with the acquire of prod
	 * in the completion context. */
	txp_store_release(&r->prod, prod + 1);
	if (avail - 1 < 1) {
		txp_netif_stop_queue(txq);
		if (!r->lltx) {
			/* Stop, then recheck: pairs with the barrier between
			 * retiring and testing "stopped" in ring_retire(). */
			txp_smp_mb();
			if (r->size - (unsigned)(prod + 1 - txp_load_acquire(&r->cons)) > r->wake_thresh &&
			    !txp_load_relaxed(&r->congested))
				txp_netif_wake_queue(txq);
		}
	}
	ring_tx_unlock(r);
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

/* Is the queue stopped, the device not congested, and room back?  (cons:
 * as just retired.) */
static bool ring_wants_wake(struct ring *r, uint64_t cons)
{
	return txp_netif_queue_stopped(r->txq) && !txp_load_relaxed(&r->congested) &&
	       r->size - (unsigned)(txp_load_acquire(&r->prod) - cons) > r->wake_thresh;
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
 * Retire the slots the driver marked done, in order: the packets sent onto
 * *sent (a list through pkt->next), those it did not send dropped; then
 * wake the queue if it is stopped and room is back.  Returns the count.
 */
static unsigned ring_retire(struct ring *r, struct txp_pkt **sent, unsigned *nsent)
{
	uint64_t cons = txp_load_relaxed(&r->cons), prod = txp_load_acquire(&r->prod);
	struct txp_pkt **ts = sent;
	unsigned n = 0;

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
		*s = (struct ring_slot){ 0 };
		cons++;
		n++;
	}
	*ts = NULL;
	if (!n && !txp_netif_queue_stopped(r->txq))
		return 0;
	comp_lock(r);
	/* Release: clean slots before the index; pairs with the acquire of
	 * cons in txp__ring_start_xmit(). */
	txp_store_release(&r->cons, cons);
	if (r->lltx) {
		/* Under tx_lock, as start_xmit's stop: the view is current. */
		if (ring_wants_wake(r, cons))
			txp_netif_wake_queue(r->txq);
		ring_tx_unlock(r);
		return n;
	}
	/*
	 * Lockless: the barrier pairs with the one after the stop in
	 * txp__ring_start_xmit().  Its recheck wakes too, so a wake decided here
	 * on a ring it has since refilled and stopped would wake a full
	 * ring: test again under the xmit lock, which it holds.
	 */
	txp_smp_mb();
	if (ring_wants_wake(r, cons)) {
		txp_netif_tx_lock(r->txq);
		if (ring_wants_wake(r, cons))
			txp_netif_wake_queue(r->txq);
		txp_netif_tx_unlock(r->txq);
	}
	return n;
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
	 * sees the queue stopped under a start_xmit in core mode. */
	if (r->lltx) {
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
 * death's reason (dev-down when closed). */
static void ring_abandon(struct ring *r)
{
	uint64_t cons = txp_load_relaxed(&r->cons), prod = txp_load_acquire(&r->prod);
	enum txp_drop_reason why = txp_load_acquire(&r->dead) ? r->dead_why : TXP_DROP_DEV_DOWN;

	for (uint64_t i = cons; i < prod; i++) {
		struct ring_slot *s = &r->slot[i % r->size];

		if (!s->done && s->pkt) {
			txp_counter_add_shared(&r->dropped_down, 1);
			txp_pkt_drop(r->dev, s->pkt, why);
			s->pkt = NULL;
			s->done = true;
		}
	}
}

/* One pass: let the driver push and reap (once the device is dead, only
 * to take its last completions), retire, run the queue (not while
 * closing: nothing may be posted then).
 * Returns the slots retired. */
static unsigned ring_pass(struct ring *r, bool run_queue)
{
	struct txp_pkt *sent;
	uint64_t cons = txp_load_relaxed(&r->cons), prod = txp_load_acquire(&r->prod);
	unsigned n, nsent = 0;

	if (cons != prod) {
		int rc = r->ops->reap(r, cons, prod);

		if (rc < 0)
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
	if (run_queue)
		txp_net_tx_action(r->dev);
	return n;
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
		unsigned retired = ring_pass(r, true);
		uint64_t now = txp_now_ns();

		if (txp_load_relaxed(&r->dead) && ring_drained(r, retired, now, &quiet_since))
			quiet_since = 0;	/* again for what comes later */
		if (retired) {
			idle = 0;
		} else if (++idle < RING_IDLE_SPINS) {
			txp_cpu_relax();
		} else if (r->ops->idle) {
			r->ops->idle(r, RING_IDLE_NAP_NS);
		} else {
			txp_thread_yield();
		}
		if (r->ops->link_ok && now >= next_link_check) {
			next_link_check = now + RING_LINK_CHECK_NS;
			if (!txp_load_relaxed(&r->dead) && !r->ops->link_ok(r))
				txp__ring_set_link_down(r, "no carrier");
		}
	}
	txp_ctx_detach();
	return NULL;
}

int txp__ring_open(struct txp_dev *dev)
{
	struct ring *r = txp_dev_priv(dev);

	r->dev = dev;
	r->txq = txp_dev_txq(dev, 0);
	r->lltx = txp_dev_lock_mode(dev) == TXP_LOCK_LLTX;
	atomic_init(&r->running, true);
	return -txp_thread_start(&r->thread, ring_completion_main, r);
}

/* Stop the completion context, take what the device finishes until no
 * completion came for RING_DRAIN_NS (at most RING_DRAIN_MAX_NS), and drop
 * the rest as dev-down. */
void txp__ring_stop(struct txp_dev *dev)
{
	struct ring *r = txp_dev_priv(dev);
	uint64_t start = txp_now_ns(), now = start, quiet_since = 0;

	/* Release: pairs with the acquire in the loop above. */
	txp_store_release(&r->running, false);
	txp_thread_join(&r->thread);
	while (txp_load_relaxed(&r->cons) != txp_load_acquire(&r->prod) &&
	       now - start < RING_DRAIN_MAX_NS &&
	       !ring_drained(r, ring_pass(r, false), now, &quiet_since)) {
		txp_sleep_ns(RING_IDLE_NAP_NS);
		now = txp_now_ns();
	}
	ring_abandon(r);
	ring_pass(r, false);
}
