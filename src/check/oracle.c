/*
 * oracle.c - the explorer's own ground truth (check build only).
 *
 * Packets: the scenario's packets are the oracle's memory, handed to the
 * producers and kept when the core frees them (the pkt.c hook), so each
 * free is noted and a second one is a finding, not a crash.  A free the
 * core did not count first (transmitted or dropped) is a packet gone with
 * no account: the core adds to those counts before it frees.
 *
 * start_xmit: the scheduler watches the queue's stopped flag (the word
 * txp_netif_queue_stopped() reads); a call ran on a stopped queue if
 * another context's stop reached memory after the caller last read the
 * flag (its check before the call) and before the driver returned.
 */
#include <stdio.h>
#include <string.h>

#include "check/oracle.h"
#include "check/runtime/runtime.h"
#include "core/core.h"
#include "txpath/validator.h"

struct pkt_track {
	unsigned frees;		/* while the contexts were explored */
	unsigned teardown;	/* afterwards (free run, tear-down) */
	int by[2];		/* the contexts of the first two frees (-1: tear-down) */
	int unaccounted;	/* freed with no count first: by whom; -2: never */
};

/* A doorbell the driver owed and did not ring. */
struct bell_miss {
	int by;			/* the context; -1: no violation */
	unsigned queue, descs;	/* what it left unannounced */
	int slot;		/* its last packet there */
	bool batch_end;		/* it left the batch (else: a packet without
				 * xmit_more, not announced) */
};

static struct {
	const struct txp_driver_ops *base;
	struct txp_driver_ops ops;
	struct txp_dev *dev;
	int word[RT_WATCH_MAX];	/* the watched stopped flag of each queue */
	unsigned packets;	/* per flow, for the slots' layout */
	/* Every free is counted; only when precise (the same execution
	 * again, when the totals disagree) is each matched with a count of
	 * the core's as it happens, which costs a reading of the counters. */
	bool precise;
	uint64_t frees;
	uint64_t counted;	/* transmitted + dropped, as last read */
	uint64_t matched;	/* frees matched with a count of the core's */
	unsigned on_stopped;
	struct {
		bool on;
		uint64_t (*clock)(void);
		uint64_t timeo;
		uint64_t since[RT_WATCH_MAX];	/* each queue's stop began no earlier */
		int queue;	/* the first false reset's queue, -1: none */
		uint64_t lasted;	/* how long that queue had been stopped, at most */
	} wd;
	/* Drops: the first whose reason's precondition did not hold. */
	struct {
		const char *why;	/* NULL: none yet */
		enum txp_drop_reason reason;
		int by;			/* the context; -1: the tear-down */
		int slot;		/* the packet's; -1: not the oracle's */
		unsigned queue;
		char because[160];
	} drop;
	int in_timeout;		/* the context inside tx_timeout; -2: none */
	/* The doorbell.  NULL: the driver has none the oracle can read. */
	unsigned (*unannounced)(struct txp_dev *dev, unsigned queue);
	unsigned inside[TXP_DEV_MAX_QUEUES];	/* contexts in each queue's start_xmit */
	int owed[RT_MAX_CTX];		/* queue + 1 the context's last packet,
					 * taken with xmit_more, went to; 0: none */
	int owed_slot[RT_MAX_CTX];
	struct bell_miss bell;
	struct txp_pkt pkt[ORACLE_PKTS];
	struct pkt_track track[ORACLE_PKTS];
	/* Each slot's packet from a producer's pool (oracle_pkts_from());
	 * NULL: none, or the slot's own in pkt. */
	struct txp_pkt *pooled[ORACLE_PKTS];
	unsigned npooled;	/* slots below this may be pooled */
} O;

/* The oracle's slot of pkt, or -1. */
static int slot_of(const struct txp_pkt *pkt)
{
	if (pkt >= O.pkt && pkt < O.pkt + ORACLE_PKTS)
		return (int)(pkt - O.pkt);
	for (unsigned i = 0; i < O.npooled; i++)
		if (O.pooled[i] == pkt)
			return (int)i;
	return -1;
}

/* Is the doorbell of queue q someone's to ring still: a context inside
 * its start_xmit (which, holding the driver, announces what it posts
 * and what it finds posted), or between two packets of a batch (its last
 * one taken with xmit_more)? */
static bool bell_someones(unsigned q)
{
	if (O.inside[q])
		return true;
	for (unsigned c = 0; c < RT_MAX_CTX; c++)
		if (O.owed[c] == (int)q + 1)
			return true;
	return false;
}

/* Context who just left queue q's driver (its start_xmit, with packet
 * slot, or its batch): what is posted there and unannounced must be
 * somebody's to ring, or the NIC will never send it. */
static void bell_check(int who, unsigned q, int slot, bool batch_end)
{
	unsigned left;

	if (O.bell.by >= 0 || bell_someones(q) || !(left = O.unannounced(O.dev, q)))
		return;
	O.bell = (struct bell_miss){ who, q, left, slot, batch_end };
}

/* After a call of start_xmit by context who on queue q (packet slot,
 * taken with xmit_more `more` if rc says it was taken). */
static void bell_after_xmit(int who, unsigned q, int slot, bool more, enum txp_tx rc)
{
	if (who < 0 || who >= RT_MAX_CTX)
		return;
	if (rc == TXP_TX_OK) {
		O.owed[who] = more ? (int)q + 1 : 0;
		O.owed_slot[who] = slot;
	}
	bell_check(who, q, slot, false);
}

/* txp__xmit_left: the calling context is done with txq's driver; if its
 * last packet there went with xmit_more, none followed. */
static void bell_xmit_left(struct txp_txq *txq)
{
	int who = rt_current();
	unsigned q = txp_txq_index(txq);

	if (who < 0 || who >= RT_MAX_CTX || O.owed[who] != (int)q + 1)
		return;
	O.owed[who] = 0;
	bell_check(who, q, O.owed_slot[who], true);
}

/* The driver's start_xmit, watched. */
static enum txp_tx watched_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	unsigned q = txp_txq_index(txq);
	int word = q < RT_WATCH_MAX ? O.word[q] : -1;
	struct rt_mark m = word >= 0 ? rt_watch_seen(word) : (struct rt_mark){ 0, 0 };
	/* Read before the call: once it is the driver's, it may be freed. */
	bool more = pkt->xmit_more;
	int slot = slot_of(pkt);
	enum txp_tx rc;

	O.inside[q]++;
	rc = O.base->start_xmit(pkt, txq);
	O.inside[q]--;
	if (word >= 0 && rt_current() >= 0 && rt_watch_rose_since(word, m))
		O.on_stopped++;
	if (O.unannounced)
		bell_after_xmit(rt_current(), q, slot, more, rc);
	return rc;
}

/* The driver's tx_timeout, watched: did the queue time out at all? */
static void watched_tx_timeout(struct txp_dev *dev, unsigned queue)
{
	if (O.wd.on && O.wd.queue < 0 && queue < RT_WATCH_MAX) {
		uint64_t lasted = O.wd.clock() - O.wd.since[queue];

		if (lasted <= O.wd.timeo) {
			O.wd.queue = (int)queue;
			O.wd.lasted = lasted;
		}
	}
	O.in_timeout = rt_current();
	O.base->tx_timeout(dev, queue);
	O.in_timeout = -2;
}

void oracle_precise(bool on)
{
	O.precise = on;
}

static bool oracle_keep(struct txp_pkt *pkt);
static void oracle_drop_seen(struct txp_txq *txq, struct txp_pkt *pkt, enum txp_drop_reason r);

const struct txp_driver_ops *oracle_begin(const struct txp_driver_ops *ops, unsigned packets,
				 unsigned (*unannounced)(struct txp_dev *dev, unsigned queue))
{
	O.packets = packets;
	O.base = ops;
	O.ops = *ops;
	O.ops.start_xmit = watched_start_xmit;
	if (ops->tx_timeout)
		O.ops.tx_timeout = watched_tx_timeout;
	O.wd.on = false;
	O.wd.queue = -1;
	O.dev = NULL;
	O.frees = O.counted = O.matched = 0;
	O.on_stopped = 0;
	O.drop.why = NULL;
	O.in_timeout = -2;
	O.unannounced = unannounced;
	memset(O.owed, 0, sizeof(O.owed));
	memset(O.inside, 0, sizeof(O.inside));
	O.bell.by = -1;
	O.npooled = 0;
	memset(O.pooled, 0, sizeof(O.pooled));	/* the last scenario's, maybe at the same addresses */
	txp__pkt_keep = oracle_keep;
	txp__drop_seen = oracle_drop_seen;
	txp__xmit_left = unannounced ? bell_xmit_left : NULL;
	return &O.ops;
}

static void read_stopped(void *arg)
{
	(void)txp_netif_queue_stopped(arg);
}

void oracle_watch(struct txp_dev *dev)
{
	struct txp_txq *txq;

	O.dev = dev;
	rt_watch_reset();
	for (unsigned i = 0; i < RT_WATCH_MAX; i++)
		O.word[i] = (txq = txp_dev_txq(dev, i)) ? rt_watch_probe(read_stopped, txq) : -1;
}

void oracle_watchdog_start(struct txp_dev *dev, uint64_t start, uint64_t timeo,
			   uint64_t (*clock)(void))
{
	struct txp_txq *txq;

	O.wd.on = true;
	O.wd.clock = clock;
	O.wd.timeo = timeo;
	/* Read by the controller: no scheduling point. */
	for (unsigned i = 0; i < RT_WATCH_MAX; i++)
		O.wd.since[i] = (txq = txp_dev_txq(dev, i)) && !txp_netif_xmit_stopped(txq) ? start : 0;
}

bool oracle_false_timeout(char *detail, size_t len)
{
	if (O.wd.queue < 0)
		return false;
	snprintf(detail, len,
		 "NETDEV WATCHDOG reset transmit queue %d as timed out, but by the explorer's clock "
		 "it had been stopped for %llu ms at most (awake when the scenario began, which it "
		 "did %llu ms after the device's last activity): the timeout is %llu ms",
		 O.wd.queue, (unsigned long long)(O.wd.lasted / 1000000),
		 (unsigned long long)(O.wd.since[O.wd.queue] / 1000000),
		 (unsigned long long)(O.wd.timeo / 1000000));
	return true;
}

/* Slot i of packet k of flow, its track afresh; -1 past the oracle's room. */
static int slot_new(unsigned flow, unsigned k)
{
	unsigned i = flow * O.packets + k;

	if (!O.packets || k >= O.packets || i >= ORACLE_PKTS)
		return -1;
	O.track[i] = (struct pkt_track){ .by = { -1, -1 }, .unaccounted = -2 };
	return (int)i;
}

struct txp_pkt *oracle_pkt(unsigned flow, unsigned k)
{
	int i = slot_new(flow, k);

	if (i < 0)
		return NULL;
	memset(&O.pkt[i], 0, sizeof(O.pkt[i]));
	return &O.pkt[i];
}

unsigned oracle_pkts_from(struct txp_pkt_pool *pool, unsigned flow, struct txp_pkt **pkts,
			  unsigned n)
{
	unsigned got = txp_pkt_pool_alloc_bulk(pool, pkts, n);

	for (unsigned k = 0; k < got; k++) {
		int i = slot_new(flow, k);

		if (i < 0)	/* past ORACLE_PKTS: txp_explore_cfg_valid() refuses it */
			return k;
		O.pooled[i] = pkts[k];
		if ((unsigned)i >= O.npooled)
			O.npooled = (unsigned)i + 1;
	}
	return got;
}

static uint64_t accounted(void)
{
	struct txp_dev_stats st;

	txp_dev_get_stats(O.dev, &st);
	return st.transmitted + txp_dev_stats_dropped(&st);
}

/* txp__pkt_keep: a packet is being freed (its destructor has run).  If it
 * is one of the oracle's, its free is noted (by whom, whether the core
 * counted it transmitted or dropped first), and its memory kept from going
 * back when it is the oracle's own, or a pool's freed again: so that a
 * second free is told, not a crash or a pool corrupted. */
static bool oracle_keep(struct txp_pkt *pkt)
{
	int slot = slot_of(pkt), who;
	struct pkt_track *t;

	if (slot < 0)
		return false;
	t = &O.track[slot];
	who = rt_current();
	if (who >= 0) {
		if (t->frees < 2)
			t->by[t->frees] = who;
		t->frees++;
	} else {
		t->teardown++;
	}
	O.frees++;
	/* Counted before it is freed, or not at all.  Counts only grow: a
	 * count read once covers the frees it is ahead by (a list). */
	if (O.precise) {
		if (O.dev && O.counted <= O.matched)
			O.counted = accounted();
		if (O.counted > O.matched)
			O.matched++;
		else if (t->unaccounted == -2)
			t->unaccounted = who;
	}
	return !pkt->pool || t->frees + t->teardown > 1;
}

/* Packets txq's qdisc can hold now, at most: submitted there and not yet
 * transmitted nor dropped (some may be in the ring, or in a context's
 * hands). */
static uint64_t queue_held_at_most(const struct txp_txq *txq)
{
	struct txp_dev_stats st;
	uint64_t ended;

	txp_txq_get_stats(txq, &st);
	ended = st.transmitted + txp_dev_stats_dropped(&st);
	return st.submitted > ended ? st.submitted - ended : 0;
}

/* Why a drop of a packet of txq for reason r cannot be right, now, in
 * buf; NULL if it can.  The driver's own reasons (driver, tx-error) are
 * its word: a bad packet, a failed descriptor. */
static const char *drop_unjustified(struct txp_txq *txq, enum txp_drop_reason r, char *buf,
				    size_t len)
{
	struct txp_dev *dev = txq->dev;
	uint64_t held;

	switch (r) {
	case TXP_DROP_DEAD_LOOP:
		/* The validator's record of the locks this context took, not
		 * the lock's owner field (which the core compared). */
		return txp_validator_holds(&txq->xmit_lock) ? NULL :
		       "which does not hold the queue's xmit lock: start_xmit did not recurse";
	case TXP_DROP_QDISC_LIMIT:
		held = queue_held_at_most(txq);
		if (held >= dev->txqueuelen)
			return NULL;
		snprintf(buf, len, "with at most %llu packets in the queue, below its limit of %u",
			 (unsigned long long)held, dev->txqueuelen);
		return buf;
	case TXP_DROP_VIRTUAL_BUSY:
		return txq->qdisc->ops == &txp_noqueue_ops ? NULL :
		       "on a queue with a qdisc: only a device without one drops a packet so";
	case TXP_DROP_DEV_DOWN:
		/* Not a scheduling point: the oracle's own look. */
		return !atomic_load_explicit(&dev->up, memory_order_relaxed) ? NULL :
		       "while the device is up";
	case TXP_DROP_TX_TIMEOUT:
		return O.in_timeout >= 0 && O.in_timeout == rt_current() ? NULL :
		       "outside the driver's tx_timeout";
	case TXP_DROP_INTERRUPTED:
		return "though no signal interrupts a check";
	case TXP_DROP_NO_QUEUE:
		return "though every producer of the scenario sends on a queue the device has";
	case TXP_DROP_DRIVER:
	case TXP_DROP_TX_ERROR:
	case TXP_DROP_NR:
		break;
	}
	return NULL;
}

/* txp__drop_seen: the first drop whose reason's precondition does not
 * hold is kept, to be judged. */
static void oracle_drop_seen(struct txp_txq *txq, struct txp_pkt *pkt, enum txp_drop_reason r)
{
	const char *why;

	if (O.drop.why)
		return;
	why = drop_unjustified(txq, r, O.drop.because, sizeof(O.drop.because));
	if (!why)
		return;
	O.drop.why = why;
	O.drop.reason = r;
	O.drop.by = rt_current();
	O.drop.slot = slot_of(pkt);
	O.drop.queue = txp_txq_index(txq);
}

static const char *who_name(int ctx)
{
	return ctx >= 0 ? rt_ctx_name(ctx) : "the tear-down";
}

/* "packet 2 of CPU 1 (flow 0, seq 1)": by its slot, whatever became of it. */
static const char *pkt_name(unsigned i, char *buf, size_t len)
{
	unsigned flow = i / O.packets, seq = i % O.packets;

	snprintf(buf, len, "packet %u of CPU %u (flow %u, seq %u)", seq + 1, flow + 1, flow, seq);
	return buf;
}

void oracle_judge_packets(unsigned producers, unsigned packets, uint64_t wire_duplicates,
			  struct oracle_verdict *v)
{
	unsigned n = producers * packets, twice = n, held_twice = n, lost = n, silent = n;
	char name[80];

	v->kind = NULL;
	v->recheck = false;
	for (unsigned i = 0; i < n; i++) {
		const struct pkt_track *t = &O.track[i];

		if (t->frees >= 2 && twice == n)
			twice = i;
		if (t->frees < 2 && t->frees + t->teardown >= 2 && held_twice == n)
			held_twice = i;
		if (!t->frees && !t->teardown && lost == n)
			lost = i;
		if (t->unaccounted != -2 && silent == n)
			silent = i;
	}
	if (wire_duplicates || held_twice < n) {
		unsigned i = held_twice < n ? held_twice : twice;

		v->kind = "duplicated";
		if (i < n)
			snprintf(v->detail, sizeof(v->detail),
				 "%s held twice: freed by %s and by %s; %llu packets sent twice",
				 pkt_name(i, name, sizeof(name)), who_name(O.track[i].by[0]),
				 who_name(O.track[i].frees >= 2 ? O.track[i].by[1] : -1),
				 (unsigned long long)wire_duplicates);
		else
			snprintf(v->detail, sizeof(v->detail), "%llu packets sent twice",
				 (unsigned long long)wire_duplicates);
	} else if (twice < n) {
		v->kind = "double-completion";
		snprintf(v->detail, sizeof(v->detail), "%s completed twice: freed by %s, then again by %s",
			 pkt_name(twice, name, sizeof(name)), who_name(O.track[twice].by[0]),
			 who_name(O.track[twice].by[1]));
	} else if (!O.precise && O.frees > accounted()) {
		v->recheck = true;
	} else if (silent < n) {
		v->kind = "lost";
		snprintf(v->detail, sizeof(v->detail),
			 "%s freed by %s without being transmitted or dropped: nothing counted it",
			 pkt_name(silent, name, sizeof(name)), who_name(O.track[silent].unaccounted));
	} else if (lost < n) {
		v->kind = "lost";
		snprintf(v->detail, sizeof(v->detail),
			 "%s never freed: neither queued, nor in the ring, nor completed",
			 pkt_name(lost, name, sizeof(name)));
	}
}

unsigned oracle_xmit_on_stopped(void)
{
	return O.on_stopped;
}

/* "packet 2 of CPU 1 (flow 0, seq 1)", or "a packet" not the oracle's. */
static const char *slot_name(int slot, char *buf, size_t len)
{
	if (slot < 0)
		return "a packet";
	return pkt_name((unsigned)slot, buf, len);
}

bool oracle_unjustified_drop(char *detail, size_t len)
{
	char name[80];

	if (!O.drop.why)
		return false;
	snprintf(detail, len, "%s dropped as %s on queue %u by %s, %s",
		 slot_name(O.drop.slot, name, sizeof(name)), txp_drop_reason_name(O.drop.reason),
		 O.drop.queue, who_name(O.drop.by), O.drop.why);
	return true;
}

bool oracle_no_doorbell(char *detail, size_t len)
{
	char name[80];

	if (O.bell.by < 0)
		return false;
	if (O.bell.batch_end)
		snprintf(detail, len,
			 "%s left the driver of queue %u after %s, sent with xmit_more (more to "
			 "follow), and none followed: %u descriptors posted, no doorbell, the NIC "
			 "never told",
			 who_name(O.bell.by), O.bell.queue,
			 slot_name(O.bell.slot, name, sizeof(name)), O.bell.descs);
	else
		snprintf(detail, len,
			 "start_xmit took %s on queue %u without xmit_more, and left %u descriptors "
			 "unannounced: no doorbell, the NIC never told (%s)",
			 slot_name(O.bell.slot, name, sizeof(name)), O.bell.queue, O.bell.descs,
			 who_name(O.bell.by));
	return true;
}
