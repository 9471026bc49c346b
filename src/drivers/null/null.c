/*
 * null.c - the null driver.
 *
 * start_xmit posts the packet on the calling context's own pending list;
 * a packet without xmit_more rings the "doorbell" of its queue (one store
 * to a device word, as the MMIO write of a real NIC, which has a doorbell
 * register per queue) and completes the whole list at once.  Each
 * context has its own list, so the driver needs no lock at all: it is
 * safe under LLTX (a fully lockless software device, as LLTX came to
 * mean) and under the core's xmit lock alike.  With byte queue limits it
 * reports its bytes (sent at post, completed at the doorbell), which
 * never find anything in flight between two batches; but a queue's limits
 * are one state, whose sent side must be serialised, and its completions
 * too (dql.h), so under LLTX it then takes a lock of its own per queue
 * around both, as an LLTX driver with BQL does.
 */
#include <stdlib.h>
#include <string.h>

#include "txpath/null.h"
#include "sync/sync.h"

/* Written only by its context; each on lines of its own. */
struct null_pcpu {
	txp_cacheline_aligned struct txp_pkt *head, **tail;	/* posted, no doorbell yet */
	unsigned n, bytes;
	/* The queue they were posted on (one per batch) and its doorbell:
	 * kept after the flush for the next batch, until open forgets them. */
	struct txp_txq *txq;
	_Atomic uint64_t *doorbell;
	_Atomic uint64_t packets, doorbells;
};

struct txp_null {
	struct txp_dev *dev;		/* set by open */
	bool bql;			/* ... and whether it reports to BQL */
	bool own_lock;			/* ... under LLTX: tx_lock serialises it */
	struct null_pcpu pcpu[TXP__CTX_IDS];	/* by context id, the library's own too */
	/* The doorbell registers, one per queue: every context that flushes
	 * a queue writes its own; a queue per producer shares none.  The
	 * lock: taken only with own_lock. */
	struct {
		txp_cacheline_aligned _Atomic uint64_t doorbell;
		struct txp_spinlock tx_lock;
	} queue[TXP_DEV_MAX_QUEUES];
};

struct txp_null *txp_null_create(void)
{
	struct txp_null *nul = aligned_alloc(TXP_CACHELINE, sizeof(*nul));

	if (!nul)
		return NULL;
	memset(nul, 0, sizeof(*nul));
	for (int i = 0; i < TXP__CTX_IDS; i++)
		nul->pcpu[i].tail = &nul->pcpu[i].head;
	for (int i = 0; i < TXP_DEV_MAX_QUEUES; i++)
		txp_spin_init(&nul->queue[i].tx_lock, "&nul->tx_lock");
	return nul;
}

void txp_null_destroy(struct txp_null *nul)
{
	free(nul);
}

void txp_null_get_stats(struct txp_null *nul, struct txp_null_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (int i = 0; i < TXP__CTX_IDS; i++) {
		st->packets += txp_counter_read(&nul->pcpu[i].packets);
		st->doorbells += txp_counter_read(&nul->pcpu[i].doorbells);
	}
}

/* Ring the doorbell: everything this context posted is sent, and done. */
static void null_flush(struct txp_null *nul, struct null_pcpu *c)
{
	struct txp_pkt *list = c->head;
	unsigned n = c->n, bytes = c->bytes;

	if (!list)
		return;
	txp_counter_add(&c->packets, n);
	txp_counter_add(&c->doorbells, 1);
	/* A device register, not synchronisation: it pairs with nothing. */
	txp_store_relaxed(c->doorbell, txp_counter_read(&c->packets));
	*c->tail = NULL;
	c->head = NULL;
	c->tail = &c->head;
	c->n = 0;
	c->bytes = 0;
	if (txp_unlikely(nul->bql))
		txp_netdev_tx_completed_queue(c->txq, n, bytes);
	if (n == 1)
		txp_pkt_complete(nul->dev, list);	/* one at a time: no list to walk */
	else
		txp_pkt_complete_list(nul->dev, list, n);
}

static int null_open(struct txp_dev *dev)
{
	struct txp_null *nul = txp_dev_priv(dev);

	nul->dev = dev;
	nul->bql = txp_dev_bql(dev);
	nul->own_lock = nul->bql && txp_dev_lock_mode(dev) == TXP_LOCK_LLTX;
	for (int i = 0; i < TXP__CTX_IDS; i++)
		nul->pcpu[i].txq = NULL;	/* another device's, perhaps */
	return 0;
}

/* Flush what contexts left posted (none, when every batch ended with a
 * packet without xmit_more).  No producer runs. */
static void null_stop(struct txp_dev *dev)
{
	struct txp_null *nul = txp_dev_priv(dev);

	for (int i = 0; i < TXP__CTX_IDS; i++)
		null_flush(nul, &nul->pcpu[i]);
}

/* Post pkt, and flush at the end of a batch.  With own_lock, caller
 * holds the queue's tx_lock. */
static void null_post(struct txp_null *nul, struct null_pcpu *c, struct txp_pkt *pkt,
		      struct txp_txq *txq)
{
	if (nul->own_lock)
		txp_assert_held(&nul->queue[txp_txq_index(txq)].tx_lock);
	/* A batch is on one queue: the first packet of one on another queue
	 * than the last batch's finds its doorbell. */
	if (!c->head && c->txq != txq) {
		c->txq = txq;
		c->doorbell = &nul->queue[txp_txq_index(txq)].doorbell;
	}
	*c->tail = pkt;
	c->tail = &pkt->next;
	c->n++;
	/* It never stops the queue itself, so the end of a batch, or BQL
	 * stopping it, is all it needs to ring for. */
	if (txp_unlikely(nul->bql)) {
		c->bytes += pkt->len;
		if (txp_netdev_tx_sent_queue_more(txq, pkt->len, pkt->xmit_more))
			null_flush(nul, c);
	} else if (!pkt->xmit_more) {
		null_flush(nul, c);
	}
}

/*
 * start_xmit: post, and flush at the end of a batch.
 * Synchronization: none needed without BQL: the state it writes is the
 * calling context's own.  With BQL under LLTX, the queue's own tx_lock
 * (spin_lock, not trylock: held for a few instructions, not worth a
 * TXP_TX_LOCKED's requeue), around the limits' sent side and the
 * completions of the flush; in core mode the xmit lock does that.
 * Context: any.
 * Return codes: always TXP_TX_OK.
 */
static enum txp_tx null_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct txp_null *nul = txp_dev_priv(txp_txq_dev(txq));
	struct null_pcpu *c = &nul->pcpu[txp_ctx_self()];
	struct txp_spinlock *lock = &nul->queue[txp_txq_index(txq)].tx_lock;

	if (txp_unlikely(nul->own_lock)) {
		txp_spin_lock(lock);
		null_post(nul, c, pkt, txq);
		txp_spin_unlock(lock);
	} else {
		null_post(nul, c, pkt, txq);
	}
	return TXP_TX_OK;
}

const struct txp_driver_ops txp_null_ops = {
	.name = "null",
	.open = null_open,
	.stop = null_stop,
	.start_xmit = null_start_xmit,
};
