/*
 * driver_skeleton.c - the smallest correct txpath driver, for someone
 * starting one: public headers only (<txpath/txpath.h>), built against the
 * installed library with `pkg-config --cflags --libs txpath`.
 *
 * The "hardware" is a ring of SKEL_RING slots of its own, one packet per
 * slot, and a completion thread (its "interrupt") that retires what was
 * posted, completes it and wakes the queue.  Lock mode core: the core's
 * xmit lock serialises start_xmit, so only the completion thread runs
 * beside it.  The one race to get right is the stop against the wake
 * (DESIGN.md section 3): start_xmit stops the queue when the ring is
 * full, then a full barrier, then looks at the ring again and wakes the
 * queue if the completion thread made room meanwhile; the completion
 * thread makes room, then a full barrier, then wakes the queue if it is
 * stopped.  Each side's barrier orders its store before its load, so at
 * least one of them sees the other's: the queue is never left stopped
 * with an empty ring (a lost wakeup).  Nothing is lost: every packet is
 * completed, or dropped as dev-down when the device closes.
 *
 * usage: driver_skeleton [THREADS [PACKETS_EACH]]; prints the counters
 * and exits 0 when submitted = transmitted + dropped.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <txpath/txpath.h>

#define SKEL_RING 64u		/* slots; a power of two */
#define SKEL_BATCH 16u		/* packets retired per completion pass */

struct skel {
	struct txp_dev *dev;
	struct txp_pkt *slot[SKEL_RING];
	/* Free-running indexes: head written by start_xmit only, tail by
	 * the completion thread only; head - tail slots are in use. */
	atomic_uint head, tail;
	atomic_bool running;
	atomic_ulong completed;	/* what the completion thread completed */
	pthread_t irq;
};

static unsigned skel_room(struct skel *s)
{
	/* Acquire: pairs with the release of tail in skel_retire(), so a
	 * slot is seen free only once its packet was taken out. */
	unsigned tail = atomic_load_explicit(&s->tail, memory_order_acquire);

	return SKEL_RING - (atomic_load_explicit(&s->head, memory_order_relaxed) - tail);
}

/* Complete up to SKEL_BATCH posted packets; how many. */
static unsigned skel_retire(struct skel *s)
{
	/* Acquire: pairs with the release of head in skel_start_xmit(), so
	 * the slots up to head hold their packets. */
	unsigned head = atomic_load_explicit(&s->head, memory_order_acquire);
	unsigned tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
	unsigned n = 0;

	while (tail != head && n < SKEL_BATCH) {
		struct txp_pkt *pkt = s->slot[tail % SKEL_RING];

		tail++;
		n++;
		txp_pkt_complete(s->dev, pkt);
	}
	/* Release: pairs with the acquire in skel_room(). */
	atomic_store_explicit(&s->tail, tail, memory_order_release);
	atomic_fetch_add_explicit(&s->completed, n, memory_order_relaxed);
	return n;
}

/* The completion context: retire, then wake the queue if start_xmit
 * stopped it, and run what queued up meanwhile. */
static void *skel_irq(void *arg)
{
	struct skel *s = arg;
	struct txp_txq *txq = txp_dev_txq(s->dev, 0);

	while (atomic_load_explicit(&s->running, memory_order_acquire)) {
		if (!skel_retire(s)) {
			sched_yield();
			continue;
		}
		/* Full barrier: the tail stored above before the stopped bit
		 * read below; pairs with the one in skel_start_xmit(). */
		atomic_thread_fence(memory_order_seq_cst);
		if (txp_netif_queue_stopped(txq) && skel_room(s) > 0) {
			txp_netif_wake_queue(txq);
			txp_net_tx_action(s->dev);
		}
	}
	return NULL;
}

static int skel_open(struct txp_dev *dev)
{
	struct skel *s = txp_dev_priv(dev);

	s->dev = dev;
	atomic_store(&s->running, true);
	return pthread_create(&s->irq, NULL, skel_irq, s) ? -1 : 0;
}

/* No producer runs: stop the completion thread, then hand back what the
 * ring still holds. */
static void skel_stop(struct txp_dev *dev)
{
	struct skel *s = txp_dev_priv(dev);
	unsigned tail, head;

	atomic_store_explicit(&s->running, false, memory_order_release);
	pthread_join(s->irq, NULL);
	head = atomic_load(&s->head);
	for (tail = atomic_load(&s->tail); tail != head; tail++)
		txp_pkt_drop(dev, s->slot[tail % SKEL_RING], TXP_DROP_DEV_DOWN);
	atomic_store(&s->tail, tail);
}

/*
 * start_xmit: post the packet in the next slot; stop the queue when that
 * filled the ring.
 * Synchronization: lock mode core: under the xmit lock, so head has one
 * writer; the completion thread runs beside it.
 * Context: any producer, or a context running the queue.
 * Return codes: TXP_TX_OK; TXP_TX_BUSY (the packet stays the core's) only
 * if called on a full ring, which a stopped queue prevents.
 */
static enum txp_tx skel_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct skel *s = txp_dev_priv(txp_txq_dev(txq));
	unsigned head = atomic_load_explicit(&s->head, memory_order_relaxed);

	if (skel_room(s) == 0) {
		txp_netif_stop_queue(txq);
		return TXP_TX_BUSY;
	}
	s->slot[head % SKEL_RING] = pkt;
	/* Release: pairs with the acquire in skel_retire(). */
	atomic_store_explicit(&s->head, head + 1, memory_order_release);
	if (skel_room(s) == 0) {
		txp_netif_stop_queue(txq);
		/* Full barrier: the stopped bit stored before the tail read
		 * below; pairs with the one in skel_irq(). */
		atomic_thread_fence(memory_order_seq_cst);
		if (skel_room(s) > 0)
			txp_netif_wake_queue(txq);
	}
	return TXP_TX_OK;
}

static const struct txp_driver_ops skel_ops = {
	.name = "skeleton",
	.open = skel_open,
	.stop = skel_stop,
	.start_xmit = skel_start_xmit,
};

#define SKEL_SNDBUF 128u	/* packets a producer may have out at once */

struct producer {
	struct txp_dev *dev;
	unsigned flow;
	unsigned long packets;
	struct txp_pkt_pool *pool;	/* its send buffer: the backpressure */
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	p->pool = txp_pkt_pool_create(SKEL_SNDBUF);
	for (unsigned long i = 0; p->pool && i < p->packets; i++) {
		struct txp_pkt *pkt;

		/* All out: wait for completions to bring some home. */
		while (!(pkt = txp_pkt_pool_alloc(p->pool)))
			sched_yield();
		pkt->len = 64;
		pkt->flow = p->flow;
		pkt->seq = i;
		txp_dev_queue_xmit(p->dev, pkt);	/* ours no more, whatever it returns */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
	unsigned long each = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	static struct skel s;
	struct txp_dev_cfg cfg = { .name = "skel0", .lock = TXP_LOCK_CORE, .ops = &skel_ops,
				   .priv = &s };
	struct producer p[64];
	pthread_t tid[64];
	struct txp_dev_stats st;
	char err[128];
	struct txp_dev *dev;

	if (threads < 1 || threads > 64) {
		fprintf(stderr, "driver_skeleton: threads must be 1..64\n");
		return 2;
	}
	dev = txp_dev_create(&cfg, err, sizeof(err));
	if (!dev || txp_dev_open(dev) != 0) {
		fprintf(stderr, "driver_skeleton: %s\n", dev ? "open failed" : err);
		return 1;
	}
	for (unsigned i = 0; i < threads; i++) {
		p[i] = (struct producer){ .dev = dev, .flow = i, .packets = each, .pool = NULL };
		pthread_create(&tid[i], NULL, produce, &p[i]);
	}
	for (unsigned i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	/* Let the backlog and the ring drain (the completion thread wakes
	 * the queue), then close: what is left is dropped as dev-down. */
	for (int spin = 0; spin < 100000 && (txp_dev_backlog(dev) || skel_room(&s) < SKEL_RING);
	     spin++)
		sched_yield();
	txp_dev_close(dev);
	txp_dev_get_stats(dev, &st);
	txp_dev_destroy(dev);
	for (unsigned i = 0; i < threads; i++)
		if (!p[i].pool || !txp_pkt_pool_destroy(p[i].pool)) {
			printf("producer %u: %s\n", i, p[i].pool ? "packets not home" : "no pool");
			return 1;
		}
	printf("txpath %s: %u threads, submitted %llu transmitted %llu dropped %llu "
	       "(completed %lu) stops %llu wakes %llu\n", txp_version(), threads,
	       (unsigned long long)st.submitted, (unsigned long long)st.transmitted,
	       (unsigned long long)txp_dev_stats_dropped(&st),
	       atomic_load(&s.completed), (unsigned long long)st.stops,
	       (unsigned long long)st.wakes);
	if (st.submitted != (unsigned long long)threads * each ||
	    !txp_dev_stats_accounted(&st) || st.transmitted != atomic_load(&s.completed)) {
		printf("NOT accounted\n");
		return 1;
	}
	for (int r = 0; r < TXP_DROP_NR; r++)
		if (st.dropped[r])
			printf("  dropped %s: %llu\n", txp_drop_reason_name((enum txp_drop_reason)r),
			       (unsigned long long)st.dropped[r]);
	printf("accounted: submitted = transmitted + dropped\n");
	return 0;
}
