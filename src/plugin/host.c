/*
 * host.c - a plugin driver's device: its ops wrapped, its completion
 * context, its frees and its log (txpath/plugin.h).
 *
 * The same file serves `txpath run` and `txpath check`: the completion
 * context is a txp_thread, which is a thread in libtxpath and one of the
 * explorer's contexts in libtxpath_check.  What the plugin sent is
 * recorded on a wire, as the simulated NIC's is, so that loss and
 * duplication are measured.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/host.h"
#ifdef TXP_CHECK
#include "check/doorbell.h"
#endif
#include "txpath/ctx.h"

#define HOST_IDLE_SPINS 32

/* The device of the plugin that is up: a plugin's frees and log lines
 * name no device (dev_kfree_skb(skb), printk), and one is up at a time. */
static struct plugin_dev *up;

struct plugin_dev *plugin_up(void)
{
	return up;
}

/* Is the calling context inside the plugin's poll? */
static txp_local bool in_poll;
TXP_LOCAL(in_poll);

/* The plugin's op the calling thread is inside ("start_xmit"), NULL if
 * none, and the plugin it belongs to: what a crash handler names. */
static txp_local const char *in_op;
TXP_LOCAL(in_op);
static txp_local const struct plugin_host *in_op_of;
TXP_LOCAL(in_op_of);

#ifndef TXP_CHECK
/* The alternate signal stack of a thread that entered a plugin's op, and
 * whether it was looked at. */
#define OP_ALTSTACK (64 * 1024)
static txp_local unsigned char op_altstack[OP_ALTSTACK];
static txp_local bool op_altstack_seen;

/* Give the calling thread an alternate signal stack if it has none, once:
 * a crash handler installed with SA_ONSTACK (txpath's) then runs, and
 * names the op, even when the op overflowed the thread's own stack.  A
 * stack the thread has already (the sanitizers', a caller's) is kept.
 * The check build's contexts are fibers of the explorer's thread, which
 * has its own. */
static void op_altstack_once(void)
{
	stack_t old;

	if (op_altstack_seen)
		return;
	op_altstack_seen = true;
	if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE))
		(void)sigaltstack(&(stack_t){ .ss_sp = op_altstack, .ss_size = OP_ALTSTACK }, NULL);
}
#else
static void op_altstack_once(void)
{
}
#endif

/* Enter op of pd's plugin; returns the op entered before, for op_leave(). */
static const char *op_enter(const struct plugin_dev *pd, const char *op)
{
	const char *was = in_op;

	op_altstack_once();
	in_op_of = pd->h;
	in_op = op;
	return was;
}

static void op_leave(const char *was)
{
	in_op = was;
}

const char *txp_run_driver_plugin_op(const char **name)
{
	const char *op = in_op;

	*name = op ? in_op_of->name : NULL;
	return op;
}

/* Plugin misbehaviour that the contract does not allow: one line, exit 2. */
static _Noreturn void contract_broken(const struct plugin_dev *pd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static _Noreturn void contract_broken(const struct plugin_dev *pd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "txpath: driver %s: ", pd->h->p->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* Other contexts are running: end at once, without atexit's work. */
	fflush(stderr);
	_exit(2);
}

/* With no device up (the entry point's call), the calls below are
 * refused (plugin_call_nodev()): they touch nothing, NULL and 0. */

void *txp_plugin_priv(const struct txp_dev *dev)
{
	if (!up) {
		plugin_call_nodev("netdev_priv()", NULL, NULL);
		return NULL;
	}
	return ((struct plugin_dev *)txp_dev_priv(dev))->drv;
}

unsigned txp_plugin_ring(const struct txp_dev *dev)
{
	if (!up) {
		plugin_call_nodev("txp_plugin_ring()", NULL, NULL);
		return 0;
	}
	return ((struct plugin_dev *)txp_dev_priv(dev))->ring;
}

/* -- packets leaving the plugin ------------------------------------------------ */

/* Sent: on the wire, then completed.  The completion context only. */
static void sent(struct plugin_dev *pd, struct txp_pkt *skb, const char *site)
{
	txp_wire_record(pd->wire, skb->flow, skb->seq);
	txp_pkt_complete_at(pd->dev, skb, site);
}

static enum txp_drop_reason drop_reason(const struct plugin_dev *pd)
{
	return pd->stopping ? TXP_DROP_DEV_DOWN : TXP_DROP_DRIVER;
}

void txp_plugin_free_at(struct txp_pkt *skb, const char *site)
{
	if (!up) {
		plugin_call_nodev("dev_kfree_skb()", site, NULL);
		return;
	}
	txp_event_at("dev_kfree_skb()", site);
#ifdef TXP_CHECK
	check_doorbell_freed(skb);
#endif
	if (in_poll)
		sent(up, skb, site);
	else
		txp_pkt_drop_at(up->dev, skb, drop_reason(up), site);
}

void txp_plugin_free_deferred_at(struct txp_pkt *skb, const char *site)
{
	struct txp_pkt *head;

	if (!up) {
		plugin_call_nodev("dev_kfree_skb_irq()", site, NULL);
		return;
	}
	txp_event_at("dev_kfree_skb_irq()", site);
#ifdef TXP_CHECK
	check_doorbell_freed(skb);
#endif
	if (in_poll) {
		/* Completion context only: no lock. */
		skb->next = up->sent_later;
		up->sent_later = skb;
		return;
	}
	/* Any context, interrupts off perhaps: a lock-free push.  Release:
	 * skb->next before the head; pairs with the acquire in free_later(). */
	head = txp_load_relaxed(&up->drop_later);
	do
		skb->next = head;
	while (!txp_cas(&up->drop_later, &head, skb));
}

/* What was freed with dev_kfree_skb_irq/_any, now with interrupts on. */
static void free_later(struct plugin_dev *pd)
{
	struct txp_pkt *skb, *next;

	for (skb = pd->sent_later, pd->sent_later = NULL; skb; skb = next) {
		next = skb->next;
		sent(pd, skb, "dev_kfree_skb_irq");
	}
	/* Acquire: pairs with the release in txp_plugin_free_deferred_at(). */
	skb = txp_load_acquire(&pd->drop_later) ? txp_xchg(&pd->drop_later, NULL) : NULL;
	for (; skb; skb = next) {
		next = skb->next;
		txp_pkt_drop(pd->dev, skb, drop_reason(pd));
	}
}

/* -- the log ---------------------------------------------------------------------- */

void txp_plugin_printk_at(const char *site, const char *fmt, ...)
{
	char line[256];
	const char *bug;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* The KERN_ level, and the trailing newline, are not the message. */
	memmove(line, line + (line[0] == '\001' && line[1] ? 2 : 0), sizeof(line) - 2);
	line[strcspn(line, "\n")] = '\0';
	if (!up) {
		plugin_call_nodev("printk", site, line);
		return;
	}
	bug = strstr(line, "BUG");
	if (bug) {
		bug += strspn(bug, "BUG! ");
		txp_dev_log_bug(up->dev, bug);
	} else if (up->log) {
		fprintf(up->log, "%s: %s: %s\n", up->h->p->name, site, line);
	}
}

int txp_plugin_ratelimit(void)
{
#ifdef TXP_CHECK
	return 1;
#else
	static _Atomic uint64_t second, lines;
	uint64_t now = txp_now_ns() / 1000000000u;

	/* Statistics, never synchronisation: plain relaxed atomics. */
	if (atomic_exchange_explicit(&second, now, memory_order_relaxed) != now)
		atomic_store_explicit(&lines, 0, memory_order_relaxed);
	return atomic_fetch_add_explicit(&lines, 1, memory_order_relaxed) < 10;
#endif
}

/* -- the completion context --------------------------------------------------------- */

/* The driver's NAPI poll, once: the packets it retired. */
static int poll_once(struct plugin_dev *pd, int budget)
{
	struct txp_napi *napi = pd->nic.napi ? pd->nic.napi : &pd->napi;
	int (*poll)(struct txp_napi *, int) = pd->nic.poll ? pd->nic.poll : pd->h->p->poll;
	const char *was = op_enter(pd, "poll");
	int n;

	in_poll = true;
	n = poll(napi, budget);
	in_poll = false;
	op_leave(was);
	if (n < 0 || n > budget)
		contract_broken(pd, "poll returned %d: the packets it retired, 0..%d", n, budget);
	free_later(pd);
	return n;
}

static void *completion_main(void *arg)
{
	struct plugin_dev *pd = arg;
	int budget = (int)pd->budget;
	unsigned idle = 0;
	/* Set up by open, before this context started: read once. */
	bool nic = pd->nic.ops != NULL, napi = pd->nic.napi != NULL;

	txp_ctx_attach();
	while (txp_load_acquire(&pd->running)) {
		int n = nic ? (int)plugin_nic_run(pd) : 0;

		if (!napi || plugin_nic_napi_scheduled(pd))
			n += poll_once(pd, budget);
		txp_net_tx_action(pd->dev);
		if (n)
			idle = 0;
		else if (++idle < HOST_IDLE_SPINS)
			txp_cpu_relax();
		else
			txp_thread_yield();
	}
	txp_ctx_detach();
	return NULL;
}

/* -- the ops -------------------------------------------------------------------------- */

static int host_open(struct txp_dev *dev)
{
	struct plugin_dev *pd = txp_dev_priv(dev);
	int rc;

	pd->dev = dev;
	pd->napi.dev = dev;
	up = pd;
	if (pd->h->p->open) {
		const char *was = op_enter(pd, "open");

		rc = pd->h->p->open(dev);
		op_leave(was);
		if (rc)
			return rc;
	}
	atomic_init(&pd->running, true);
	rc = txp_thread_start_internal(&pd->thread, "IRQ", completion_main, pd);
	if (rc) {	/* undo what open did, as Linux calls ndo_stop */
		const char *was = op_enter(pd, "stop");

		pd->h->p->stop(dev);
		op_leave(was);
	}
	return -rc;
}

static void host_stop(struct txp_dev *dev)
{
	struct plugin_dev *pd = txp_dev_priv(dev);
	const char *was;

	/* Release: pairs with the acquire in completion_main(). */
	txp_store_release(&pd->running, false);
	txp_thread_join(&pd->thread);
	pd->stopping = true;
	free_later(pd);
	was = op_enter(pd, "stop");
	pd->h->p->stop(dev);
	op_leave(was);
	free_later(pd);
}

static enum txp_tx host_start_xmit(struct txp_pkt *pkt, struct txp_txq *txq)
{
	struct txp_dev *dev = txp_txq_dev(txq);
	struct plugin_dev *pd = txp_dev_priv(dev);
	const char *was = op_enter(pd, "start_xmit");
	int rc;

	plugin_nic_xmit_more(pkt->xmit_more);
#ifdef TXP_CHECK
	check_doorbell_xmit(pkt);
#endif
	rc = pd->h->p->start_xmit(pkt, dev);
#ifdef TXP_CHECK
	check_doorbell_xmit_end(rc == TXP_TX_OK);
#endif
	plugin_nic_xmit_more(false);
	op_leave(was);
	if (rc == TXP_TX_OK || rc == TXP_TX_BUSY ||
	    (rc == TXP_TX_LOCKED && pd->h->p->lock == TXP_LOCK_LLTX))
		return (enum txp_tx)rc;
	contract_broken(pd, "start_xmit returned %d: NETDEV_TX_OK (0), NETDEV_TX_BUSY (1)%s only", rc,
			pd->h->p->lock == TXP_LOCK_LLTX ? " or NETDEV_TX_LOCKED (-1)"
							 : " (NETDEV_TX_LOCKED is for lltx drivers)");
}

void plugin_host_ops(struct plugin_host *h)
{
	snprintf(h->name, sizeof(h->name), "%s", h->p->name);
	h->ops = (struct txp_driver_ops){
		.name = h->p->name,
		.open = host_open,
		.stop = host_stop,
		.start_xmit = host_start_xmit,
	};
}

/* -- the device's state ------------------------------------------------------------------ */

struct plugin_dev *plugin_dev_create(const struct plugin_host *h, unsigned ring, unsigned budget,
				     unsigned flows, FILE *log)
{
	struct plugin_dev *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	/* Aligned as the driver's own struct may ask (a cache line). */
	pd->drv = aligned_alloc(TXP_CACHELINE, (h->p->priv_size + TXP_CACHELINE) &
				~(size_t)(TXP_CACHELINE - 1));
	if (!pd->drv || !(pd->wire = txp_wire_create(flows))) {
		free(pd->drv);
		free(pd);
		return NULL;
	}
	memset(pd->drv, 0, h->p->priv_size);
	pd->h = h;
	pd->ring = ring;
	pd->budget = budget ? budget : 1;
	pd->log = log;
	return pd;
}

void plugin_dev_destroy(struct plugin_dev *pd)
{
	if (!pd)
		return;
	if (up == pd)
		up = NULL;
	txp_wire_destroy(pd->wire);
	free(pd->drv);
	free(pd);
}
