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

struct pkt_track {
	unsigned frees;		/* while the contexts were explored */
	unsigned teardown;	/* afterwards (free run, tear-down) */
	int by[2];		/* the contexts of the first two frees (-1: tear-down) */
	int unaccounted;	/* freed with no count first: by whom; -2: never */
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
	struct txp_pkt pkt[ORACLE_PKTS];
	struct pkt_track track[ORACLE_PKTS];
} O;

/* The driver's start_xmit, watched. */
static enum txp_tx watched_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	unsigned q = txp_txq_index(txq);
	int word = q < RT_WATCH_MAX ? O.word[q] : -1;
	struct rt_mark m = word >= 0 ? rt_watch_seen(word) : (struct rt_mark){ 0, 0 };
	enum txp_tx rc = O.base->start_xmit(pkt, txq);

	if (word >= 0 && rt_current() >= 0 && rt_watch_rose_since(word, m))
		O.on_stopped++;
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
	O.base->tx_timeout(dev, queue);
}

void oracle_precise(bool on)
{
	O.precise = on;
}

static bool oracle_keep(struct txp_pkt *pkt);

const struct txp_driver_ops *oracle_begin(const struct txp_driver_ops *ops, unsigned packets)
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
	txp__pkt_keep = oracle_keep;
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

struct txp_pkt *oracle_pkt(unsigned flow, unsigned k)
{
	unsigned i = flow * O.packets + k;

	if (!O.packets || k >= O.packets || i >= ORACLE_PKTS)
		return NULL;
	memset(&O.pkt[i], 0, sizeof(O.pkt[i]));
	O.track[i] = (struct pkt_track){ .by = { -1, -1 }, .unaccounted = -2 };
	return &O.pkt[i];
}

static uint64_t accounted(void)
{
	struct txp_dev_stats st;

	txp_dev_get_stats(O.dev, &st);
	return st.transmitted + txp_dev_stats_dropped(&st);
}

/* txp__pkt_keep: a heap packet is being freed (its destructor has run).
 * True if it is one of the oracle's, whose free is then noted (by whom,
 * whether the core counted it transmitted or dropped first) and whose
 * memory stays the oracle's, so that a second free is told, not a crash. */
static bool oracle_keep(struct txp_pkt *pkt)
{
	struct pkt_track *t;
	int who;

	if (pkt < O.pkt || pkt >= O.pkt + ORACLE_PKTS)
		return false;
	t = &O.track[pkt - O.pkt];
	who = rt_current();
	if (who >= 0) {
		if (t->frees < 2)
			t->by[t->frees] = who;
		t->frees++;
	} else {
		t->teardown++;
	}
	O.frees++;
	if (!O.precise)
		return true;
	/* Counted before it is freed, or not at all.  Counts only grow: a
	 * count read once covers the frees it is ahead by (a list). */
	if (O.dev && O.counted <= O.matched)
		O.counted = accounted();
	if (O.counted > O.matched)
		O.matched++;
	else if (t->unaccounted == -2)
		t->unaccounted = who;
	return true;
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
