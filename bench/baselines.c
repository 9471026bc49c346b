/*
 * baselines.c - what a user would write instead of txpath, driving the
 * same null driver: a pthread mutex around "queue the packet and call the
 * driver", and a Concurrency Kit multi-producer ring drained by one
 * dedicated transmit thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ck_ring.h>

#include "bench.h"
#include "../src/sync/sync.h"
#include "txpath/ctx.h"
#include "txpath/run.h"

#define CKRING_SIZE 4096	/* slots, a power of two */
#define CKRING_TX_BATCH 32	/* packets the transmit thread takes at once */

/* The null driver behind a device that only lends it a queue and counts
 * its completions; the core's path is never entered. */
struct base {
	struct txp_dev *dev;
	struct txp_txq *txq;
	const struct txp_driver_ops *ops;
	void *priv;
	const struct txp_run_driver *drv;

	/* mutex: a FIFO under the lock. */
	txp_cacheline_aligned pthread_mutex_t lock;
	struct txp_pkt *head, *tail;

	/* ckring. */
	txp_cacheline_aligned ck_ring_t ring;
	ck_ring_buffer_t *slots;
	atomic_bool producers_done;
};

/* -- mutex ------------------------------------------------------------------ */

static void mutex_loop(struct bench_worker *w)
{
	struct base *b = w->arg;

	while (!bench_stopped(w)) {
		struct txp_pkt *pkts[BENCH_BURST_MAX];
		unsigned n = bench_next_burst(w, pkts);

		w->sent += n;
		for (unsigned i = 0; i < n; i++) {
			struct txp_pkt *pkt;

			pthread_mutex_lock(&b->lock);
			pkts[i]->next = NULL;
			if (b->tail)
				b->tail->next = pkts[i];
			else
				b->head = pkts[i];
			b->tail = pkts[i];
			pkt = b->head;
			b->head = pkt->next;
			if (!b->head)
				b->tail = NULL;
			pkt->xmit_more = 0;
			b->ops->start_xmit(pkt, b->txq);
			pthread_mutex_unlock(&b->lock);
		}
	}
}

/* -- ckring ----------------------------------------------------------------- */

static void ckring_loop(struct bench_worker *w)
{
	struct base *b = w->arg;
	unsigned spins = 0;

	while (!bench_stopped(w)) {
		struct txp_pkt *pkts[BENCH_BURST_MAX];
		unsigned n = bench_next_burst(w, pkts), i = 0;

		while (i < n) {
			if (ck_ring_enqueue_mpsc(&b->ring, b->slots, pkts[i])) {
				i++;
			} else if (bench_stopped(w)) {
				/* Never handed over: home again, not counted. */
				while (i < n)
					txp_pkt_free(pkts[i++]);
				return;
			} else {
				txp_spin_wait(&spins);
			}
		}
		w->sent += n;
	}
}

/* The transmit thread: takes up to a batch off the ring and sends it,
 * xmit_more on all but the last, until the producers are done and the
 * ring is empty. */
static void *ckring_tx_main(void *arg)
{
	struct base *b = arg;

	unsigned spins = 0;

	txp_ctx_attach();
	for (;;) {
		struct txp_pkt *pkts[CKRING_TX_BATCH];
		unsigned n = 0;
		/* Acquire: pairs with the release in bench_case_baseline(),
		 * after the producers were joined: all they enqueued is in. */
		bool last = txp_load_acquire(&b->producers_done);

		while (n < CKRING_TX_BATCH && ck_ring_dequeue_mpsc(&b->ring, b->slots, &pkts[n]))
			n++;
		for (unsigned i = 0; i < n; i++) {
			pkts[i]->xmit_more = i + 1 < n;
			b->ops->start_xmit(pkts[i], b->txq);
		}
		if (!n) {
			if (last)
				break;
			txp_spin_wait(&spins);
		}
	}
	txp_ctx_detach();
	return NULL;
}

/* -- the case ----------------------------------------------------------------- */

static uint64_t base_transmitted(void *arg)
{
	struct base *b = arg;
	struct txp_dev_stats st;

	txp_dev_get_stats(b->dev, &st);
	return st.transmitted;
}

static struct base *base_create(const struct bench_row *row, char *err, size_t errlen)
{
	struct base *b = aligned_alloc(TXP_CACHELINE, sizeof(*b));
	struct txp_run_cfg rcfg;
	struct txp_dev_cfg dcfg;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(b, 0, sizeof(*b));
	txp_run_cfg_init(&rcfg);
	rcfg.threads = row->threads;
	b->drv = txp_run_driver(row->driver);
	if (!b->drv || b->drv->create(&rcfg, &b->ops, &b->priv, err, errlen) != 0) {
		free(b);
		return NULL;
	}
	dcfg = (struct txp_dev_cfg){ .name = "base", .ops = b->ops, .priv = b->priv };
	b->dev = txp_dev_create(&dcfg, err, errlen);
	if (!b->dev || txp_dev_open(b->dev) != 0) {
		txp_dev_destroy(b->dev);
		b->drv->destroy(b->priv);
		free(b);
		snprintf(err, errlen, "cannot make the baseline's device");
		return NULL;
	}
	b->txq = txp_dev_txq(b->dev, 0);
	pthread_mutex_init(&b->lock, NULL);
	b->slots = calloc(CKRING_SIZE, sizeof(*b->slots));
	ck_ring_init(&b->ring, CKRING_SIZE);
	atomic_init(&b->producers_done, false);
	return b;
}

static void base_destroy(struct base *b)
{
	txp_dev_destroy(b->dev);
	b->drv->destroy(b->priv);
	pthread_mutex_destroy(&b->lock);
	free(b->slots);
	free(b);
}

int bench_case_baseline(const struct bench_cfg *cfg, const struct bench_row *row,
			struct bench_result *res, char *err, size_t errlen)
{
	struct bench_worker w[TXP_MAX_CTX];
	struct base *b = base_create(row, err, errlen);
	struct txp_dev_stats st;
	uint64_t sent = 0;
	pthread_t tx;
	int rc;

	if (!b || !b->slots) {
		if (b)
			base_destroy(b);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(w, 0, sizeof(w));
	for (unsigned i = 0; i < row->threads; i++) {
		w[i].loop = row->kind == BENCH_MUTEX ? mutex_loop : ckring_loop;
		w[i].arg = b;
		w[i].burst = cfg->burst;
	}
	if (row->kind == BENCH_CKRING && pthread_create(&tx, NULL, ckring_tx_main, b) != 0) {
		base_destroy(b);
		snprintf(err, errlen, "cannot start the transmit thread");
		return -1;
	}
	rc = bench_window(w, row->threads, cfg, base_transmitted, b, res, err, errlen);
	if (row->kind == BENCH_CKRING) {
		/* Release: the producers' enqueues (ordered by the joins in
		 * bench_window()) before "done". */
		txp_store_release(&b->producers_done, true);
		pthread_join(tx, NULL);
	}
	txp_dev_close(b->dev);
	txp_dev_get_stats(b->dev, &st);
	for (unsigned i = 0; i < row->threads; i++)
		sent += w[i].sent;
	res->accounted = st.transmitted == sent && bench_pools_destroy(w, row->threads);
	base_destroy(b);
	return rc;
}
