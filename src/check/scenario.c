/*
 * scenario.c - the explorer's scenario (check build only): built afresh
 * for every schedule, the scenario's device (the simulated NIC, or a
 * plugin's driver, made as txpath run makes it), its completion contexts
 * ("IRQ"), and the producer contexts ("CPU 1", ...), each sending a few
 * packets of the oracle's; optionally the watchdog's timer (timer.c).
 */
#include <arpa/inet.h>
#include <string.h>

#include "check/oracle.h"
#include "check/runtime/runtime.h"
#include "check/scenario.h"
#include "check/timer.h"
#include "txpath/ctx.h"

struct producer_arg {
	struct scenario *sc;
	uint32_t flow;
};

static struct producer_arg producer_args[RT_MAX_CTX];

/* The bytes of a plugin's packets: a frame of SCENARIO_FRAME bytes each,
 * never written (their content is nobody's concern), so that a driver
 * maps real memory: the head, then the fragments, cut as txpath run
 * cuts them.  Laid out here, outside the checked code: no plain access
 * of the checked code's to explore. */
#define SCENARIO_FRAME 64
static unsigned char frames[RT_MAX_CTX][SCENARIO_MAX_PACKETS][SCENARIO_FRAME];

static void frame_layout(struct txp_pkt *pkt, unsigned char *frame)
{
	uint32_t piece = SCENARIO_FRAME / (pkt->nr_frags + 1u);

	pkt->buf = pkt->data = frame;
	pkt->buf_size = pkt->len = SCENARIO_FRAME;
	pkt->head_len = SCENARIO_FRAME - pkt->nr_frags * piece;
	pkt->data_len = pkt->len - pkt->head_len;
	pkt->protocol = htons(0x0800);	/* as txpath run's frames: IPv4 */
	for (unsigned i = 0; i < pkt->nr_frags; i++)
		pkt->frags[i] = (struct txp_frag){ frame + pkt->head_len + i * piece, piece };
}

/* Burst b (from 0) of a producer: by txp_xmit_burst_try (cfg->send)?
 * What it does not take is handed on by txp_xmit_burst, so that every
 * packet still ends sent or dropped with its reason. */
static bool send_tried(const struct txp_explore_cfg *cfg, unsigned b)
{
	return cfg->send == TXP_EXPLORE_SEND_TRY || (cfg->send == TXP_EXPLORE_SEND_MIXED && b % 2);
}

/* Burst b of a producer, burst[0..n), onto dev: tried or not
 * (send_tried()), and what it leaves sent as queued. */
static void send_burst(const struct txp_explore_cfg *cfg, struct txp_dev *dev,
		       struct txp_pkt **burst, unsigned n, unsigned b)
{
	unsigned took = 0;

	if (send_tried(cfg, b))
		took = txp_xmit_burst_try(dev, burst, n);
	if (took == n)
		return;
	if (n - took == 1)
		txp_dev_queue_xmit(dev, burst[took]);
	else
		txp_xmit_burst(dev, burst + took, n - took);
}

/* The producer's packets, in bursts of the device's bulk size (one at a
 * time through txp_dev_queue_xmit when it is 1), so that a bulk device
 * sees whole batches: bypassed, or enqueued and dequeued together; each
 * burst as cfg->send says. */
static void *producer_main(void *arg)
{
	struct producer_arg *pa = arg;
	const struct txp_explore_cfg *cfg = pa->sc->cfg;
	unsigned span = cfg->frags_max - cfg->frags_min + 1, bulk = cfg->bulk ? cfg->bulk : 1;
	struct txp_pkt *burst[TXP_DEV_BULK_MAX], *mine[SCENARIO_MAX_PACKETS];
	unsigned got = 0;

	txp_ctx_attach();
	/* Its packets, all taken before it sends: from a pool it owns, whose
	 * return stack the others' frees go onto (none is handed out again,
	 * so the oracle knows each by its address); past what the pool
	 * gives (memory short), the oracle's own. */
	if (cfg->pools && (pa->sc->pool[pa->flow] = txp_pkt_pool_create(cfg->packets)))
		got = oracle_pkts_from(pa->sc->pool[pa->flow], pa->flow, mine, cfg->packets);
	for (unsigned k = 0; k < cfg->packets; k++) {
		struct txp_pkt *pkt = k < got ? mine[k] : oracle_pkt(pa->flow, k);

		pkt->flow = pa->flow;
		pkt->seq = k;
		pkt->len = SCENARIO_FRAME;
		pkt->nr_frags = (uint16_t)(cfg->frags_min + (pa->flow + k) % span);
		if (cfg->driver && txp_run_driver_plugin_of(cfg->driver))
			frame_layout(pkt, frames[pa->flow][k]);
		mine[k] = pkt;
	}
	/* XPS: producer i sends on queue i mod the queues.  Set here, for
	 * the context slot this fiber got (which one depends on the order
	 * earlier executions left them in; the default map would follow). */
	txp_dev_set_xps(pa->sc->dev, (unsigned)txp_ctx_self(),
			(int)(pa->flow % txp_dev_num_tx_queues(pa->sc->dev)));
	for (unsigned k = 0, b = 0; k < cfg->packets; b++) {
		unsigned n = 0;

		for (; n < bulk && k < cfg->packets; n++, k++)
			burst[n] = mine[k];
		send_burst(cfg, pa->sc->dev, burst, n, b);
	}
	txp_ctx_detach();
	return NULL;
}

static unsigned ring_size(const struct txp_explore_cfg *cfg)
{
	return cfg->ring ? cfg->ring : txp_sim_min_ring(cfg->frags_max);
}

/* The workload's knobs for the scenario's driver: cfg->driver, or the
 * simulated NIC with cfg's personality.  The validator is always on. */
static struct txp_run_cfg driver_cfg(const struct txp_explore_cfg *cfg)
{
	return (struct txp_run_cfg){
		.driver = cfg->driver ? cfg->driver : txp_run_driver("sim"),
		.personality = cfg->personality,
		.lock = cfg->lock,
		.runner = cfg->runner,
		.qdisc = cfg->qdisc,
		.threads = cfg->producers,
		.ring = cfg->driver ? cfg->ring : ring_size(cfg),
		.frags_min = cfg->frags_min,
		.frags_max = cfg->frags_max,
		.batch = cfg->batch,
		.bulk = cfg->bulk,
		.queues = cfg->queues,
		.bql = cfg->bql,
		.defer = cfg->defer,
		.busylock = cfg->busylock,
		.validate = true,
	};
}

/* Does cfg fit the scenario's driver (its check, as txpath run's)?  False
 * and a message if not. */
bool scenario_fits(const struct txp_explore_cfg *cfg, char *err, size_t errlen)
{
	struct txp_run_cfg rcfg = driver_cfg(cfg);

	return rcfg.driver->check(&rcfg, err, errlen);
}

/* The simulated NIC's doorbell, for the oracle. */
static unsigned sim_unannounced(struct txp_dev *dev, unsigned queue)
{
	return txp_sim_unannounced(txp_dev_priv(dev), queue);
}

/* The oracle's watch on the device: the driver's ops (cfg->ops in place
 * of the simulated NIC's) wrapped, ... */
static const struct txp_driver_ops *scenario_watch_ops(const struct txp_driver_ops *ops, void *arg)
{
	const struct txp_explore_cfg *cfg = ((const struct scenario *)arg)->cfg;

	if (cfg->driver)
		return oracle_begin(ops, cfg->packets, cfg->driver->unannounced);
	return oracle_begin(cfg->ops ? cfg->ops : ops, cfg->packets, sim_unannounced);
}

/* ... and its queues' stopped flags, before it opens. */
static void scenario_watch_dev(struct txp_dev *dev, void *arg)
{
	(void)arg;
	oracle_watch(dev);
}

void scenario_wire(const struct scenario *sc, struct wire_seen *w)
{
	struct txp_run_drv_stats ds;

	sc->driver->stats(sc->drv_priv, &ds);
	*w = (struct wire_seen){ ds.wire.unique, ds.wire.duplicates, ds.ring_errors,
				 ds.wire.reordered, ds.wire.first_reorder };
}

/* Pools that did not have every packet home: not freed (one may be a
 * corrupt list), kept as a deadlock's device is.  Only a violating
 * execution has one, and a search ends at its first: its replays, and
 * the precise re-run, add a few.  Past the table's room they are lost. */
#define LEFT_BEHIND 64
static struct txp_pkt_pool *left_behind[LEFT_BEHIND];
static unsigned nleft_behind;

int scenario_pools_home(struct scenario *sc)
{
	int first = -1;

	for (unsigned i = 0; i < sc->cfg->producers; i++) {
		if (!txp_pkt_pool_destroy(sc->pool[i])) {
			left_behind[nleft_behind++ % LEFT_BEHIND] = sc->pool[i];
			if (first < 0)
				first = (int)i;
		}
		sc->pool[i] = NULL;
	}
	return first;
}

void scenario_free(struct scenario *sc)
{
	txp_run_dev_destroy(sc->driver, sc->dev, sc->drv_priv);
}

/* This search found the producers not alike (scenario_tell_apart()). */
static bool told_apart;

/*
 * Do the producers differ in nothing but their ids?  They send as many
 * packets, with one fragment count, on one queue (else producer i sends
 * on queue i), to the simulated NIC or the explorer's own ring (a plugin
 * may tell packets of one producer from another's; cfg->ops must not); 2
 * to TRACE_SYM_MAX of them.  The reduction then names
 * a state and its images under a permutation of them alike
 * (trace_symmetric()).  Not under arm: the model's part of the name
 * (rt_arm_key()) is not permuted with the trace's.
 */
bool scenario_producers_alike(const struct txp_explore_cfg *cfg)
{
	return cfg->reduce && !(cfg->reduce_without & TXP_EXPLORE_REDUCE_NO_SYMMETRY) && !cfg->arm &&
	       cfg->producers >= 2 && cfg->producers <= TRACE_SYM_MAX && cfg->queues <= 1 &&
	       cfg->frags_min == cfg->frags_max &&
	       (!cfg->driver || !txp_run_driver_plugin_of(cfg->driver)) && !told_apart;
}


void scenario_tell_apart(bool apart)
{
	told_apart = apart;
}

int scenario_setup(struct scenario *sc, const struct txp_explore_cfg *cfg,
			  char *err, size_t errlen)
{
	int ids[RT_MAX_CTX];
	struct txp_run_cfg rcfg = driver_cfg(cfg);
	struct txp_dev_cfg dcfg = txp_run_dev_cfg(&rcfg);
	const struct txp_run_dev_watch watch = {
		.ops = scenario_watch_ops, .made = scenario_watch_dev, .arg = sc,
	};

	memset(sc, 0, sizeof(*sc));
	sc->cfg = cfg;
	sc->driver = rcfg.driver;
	dcfg.name = cfg->driver ? "eth0" : "sim0";
	timer_dev_cfg(&dcfg, cfg->watchdog);
	if (txp_run_dev_create(&rcfg, &dcfg, &watch, &sc->dev, &sc->drv_priv, err, errlen) != 0)
		return -1;
	for (unsigned i = 0; i < cfg->producers; i++) {
		char name[16];

		producer_args[i] = (struct producer_arg){ sc, i };
		snprintf(name, sizeof(name), "CPU %u", i + 1);
		ids[i] = rt_spawn(name, producer_main, &producer_args[i]);
		if (ids[i] < 0) {
			snprintf(err, errlen, "cannot start producer contexts");
			return -1;
		}
	}
	trace_symmetric(ids, scenario_producers_alike(cfg) ? cfg->producers : 0);
	if (cfg->watchdog && timer_start(sc->dev) != 0) {
		snprintf(err, errlen, "cannot start the watchdog's context: too many contexts");
		return -1;
	}
	return 0;
}
