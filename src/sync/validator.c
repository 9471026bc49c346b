/*
 * validator.c - the lock validator.
 *
 * What it learns is per lock class (the name a lock was given), so one
 * report covers every device; what a context holds is per thread.  Its
 * own tables are guarded by a pthread mutex: it observes the seam (an
 * observer of txp_sync_observe(), first in order) and is not part of it,
 * so it is never a scheduling point of the explorer.  It sits beside the
 * locks it watches, as lockdep sits in kernel/locking/.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"
#include "txpath/validator.h"

/* Lock classes at most (as lockdep's MAX_LOCKDEP_KEYS): past it, the
 * validator says so and checks no further class instead of merging. */
#define V_CLASSES_MAX 4096
#define V_HELD 16
#define V_REPORTS 64
#define V_MSG 1024

/* On (txp_validator_enable()): set while no context runs. */
static bool v_on;

/* A lock order seen: its class held (at outer_site), then to taken. */
struct v_edge {
	int to;
	const char *outer_site, *inner_site;
};

struct v_class {
	const char *name;
	const char *irq_site;		/* acquired in interrupt context there */
	const char *irqs_on_site;	/* acquired with interrupts on there */
	bool irqsafe;			/* used, or declared for use, in interrupts */
	bool reported_irq;
	struct v_edge *edge;		/* the orders out of this class, first seen */
	int nedge, edgecap;
	/* The order graph's breadth-first search: reached in search
	 * number gen, from class `from` by its edge `via`. */
	unsigned gen;
	int from, via;
};

struct v_held {
	const struct txp_spinlock *lock;
	int cls;			/* -1: a class past the table's limit */
	const char *site;
	bool nested;
};

struct v_report {
	enum txp_hazard kind;
	char msg[V_MSG];
};

static pthread_mutex_t v_mu = PTHREAD_MUTEX_INITIALIZER;
/* The classes of this run (their edge arrays kept from one run to the
 * next), the search's queue, and the limits already reported. */
static struct v_class *v_class;
static int v_nclass, v_classcap;
static int *v_queue;
static unsigned v_gen;
static bool v_full_classes, v_full_held, v_full_memory;
static struct v_report v_report[V_REPORTS];
static unsigned v_nreport;
static void (*v_hook)(enum txp_hazard, const char *, void *);
static void *v_hook_arg;

static txp_local struct v_held v_held[V_HELD];
TXP_LOCAL(v_held);
static txp_local int v_nheld;
TXP_LOCAL(v_nheld);

static bool validate_recursion(const struct txp_spinlock *l, const char *site);
static void validate_acquired(const struct txp_spinlock *l, const char *site);
static bool validate_release(const struct txp_spinlock *l, const char *site);
static void validate_irqs_on(const char *site);
static void validate_free(const char *site);
static void validate_irqsafe(const struct txp_spinlock *l);

static struct txp_sync_observer validator_observer = {
	.order = TXP_OBSERVE_VALIDATOR,
	.lock_recursion = validate_recursion,
	.lock_acquired = validate_acquired,
	.lock_release = validate_release,
	.irqs_on = validate_irqs_on,
	.might_free = validate_free,
	.lock_irqsafe = validate_irqsafe,
};

void txp_validator_enable(bool on)
{
	pthread_mutex_lock(&v_mu);
	if (on) {
		/* Only what was used: the explorer turns it on per schedule. */
		v_nclass = 0;
		v_nreport = 0;
		v_full_classes = v_full_held = v_full_memory = false;
	}
	v_on = on;
	if (on)
		txp_sync_observe(&validator_observer);
	else
		txp_sync_unobserve(&validator_observer);
	pthread_mutex_unlock(&v_mu);
	v_nheld = 0;
}

bool txp_validator_enabled(void)
{
	return v_on;
}

void txp_validator_on_report(void (*fn)(enum txp_hazard, const char *, void *), void *arg)
{
	v_hook = fn;
	v_hook_arg = arg;
}

unsigned txp_validator_count(void)
{
	unsigned n;

	pthread_mutex_lock(&v_mu);
	n = v_nreport;
	pthread_mutex_unlock(&v_mu);
	return n;
}

const char *txp_validator_report(unsigned i, enum txp_hazard *kind)
{
	const char *msg = NULL;

	pthread_mutex_lock(&v_mu);
	if (i < v_nreport) {
		msg = v_report[i].msg;
		if (kind)
			*kind = v_report[i].kind;
	}
	pthread_mutex_unlock(&v_mu);
	return msg;
}

const char *txp_hazard_name(enum txp_hazard h)
{
	static const char *const names[TXP_HAZARD_NR] = {
		[TXP_HAZARD_RECURSION] = "recursion",
		[TXP_HAZARD_IRQ_INCONSISTENT] = "irq-inconsistent",
		[TXP_HAZARD_LOCK_ORDER] = "lock-order",
		[TXP_HAZARD_FREE_IRQS_OFF] = "free-irqs-off",
		[TXP_HAZARD_IRQS_ON_HELD] = "irqs-on-held",
		[TXP_HAZARD_LIMIT] = "limit",
	};

	return (unsigned)h < TXP_HAZARD_NR ? names[h] : "?";
}

/* Record a report unless the same text was reported already.  v_mu held. */
static void report(enum txp_hazard kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(enum txp_hazard kind, const char *fmt, ...)
{
	struct v_report r = { .kind = kind };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r.msg, sizeof(r.msg), fmt, ap);
	va_end(ap);
	for (unsigned i = 0; i < v_nreport; i++)
		if (v_report[i].kind == kind && !strcmp(v_report[i].msg, r.msg))
			return;
	if (v_nreport == V_REPORTS)
		return;
	/* The last slot says the table is full, rather than a report
	 * that would stand for the others left out. */
	if (v_nreport == V_REPORTS - 1) {
		r.kind = TXP_HAZARD_LIMIT;
		snprintf(r.msg, sizeof(r.msg),
			 "lock validator full: more than %d distinct reports; this one and every later one are not kept",
			 V_REPORTS - 1);
	}
	v_report[v_nreport++] = r;
	if (v_hook)
		v_hook(r.kind, r.msg, v_hook_arg);
}

/* Out of memory for a table: said once, and what it would have held is
 * not checked.  v_mu held. */
static void report_no_memory(const char *what)
{
	if (v_full_memory)
		return;
	v_full_memory = true;
	report(TXP_HAZARD_LIMIT, "lock validator out of memory for %s: from here on not every lock order is checked",
	       what);
}

/* Room for one more class (and its search queue entry).  v_mu held. */
static bool class_room(void)
{
	struct v_class *k;
	int *q, cap;

	if (v_nclass < v_classcap)
		return true;
	cap = v_classcap ? v_classcap * 2 : 32;
	if (cap > V_CLASSES_MAX)
		cap = V_CLASSES_MAX;
	k = realloc(v_class, (size_t)cap * sizeof(*k));
	if (k)
		v_class = k;
	q = k ? realloc(v_queue, (size_t)cap * sizeof(*q)) : NULL;
	if (!q) {
		report_no_memory("lock classes");
		return false;
	}
	v_queue = q;
	/* New entries have no edge array yet. */
	memset(&v_class[v_classcap], 0, (size_t)(cap - v_classcap) * sizeof(*k));
	v_classcap = cap;
	return true;
}

/* The class of l (taken at site), added on first sight; -1 past the
 * table's limit, which is reported once.  v_mu held. */
static int class_of(const struct txp_spinlock *l, const char *site)
{
	const char *name = l->name ? l->name : "(unnamed lock)";
	struct v_class *k;
	int i;

	for (i = 0; i < v_nclass; i++)
		if (v_class[i].name == name || !strcmp(v_class[i].name, name))
			return i;
	if (v_nclass == V_CLASSES_MAX) {
		if (!v_full_classes)
			report(TXP_HAZARD_LIMIT,
			       "lock validator full: more than %d lock classes; '%s' (taken in %s) and every later class are not checked",
			       V_CLASSES_MAX, name, site);
		v_full_classes = true;
		return -1;
	}
	if (!class_room())
		return -1;
	k = &v_class[v_nclass];
	*k = (struct v_class){ .name = name, .edge = k->edge, .edgecap = k->edgecap };
	return v_nclass++;
}

static const struct v_held *find_held(const struct txp_spinlock *l)
{
	for (int i = v_nheld - 1; i >= 0; i--)
		if (v_held[i].lock == l)
			return &v_held[i];
	return NULL;
}

bool txp_validator_holds(const struct txp_spinlock *l)
{
	return txp_validator_enabled() && find_held(l) != NULL;
}

/* A lock this context holds from now on; past V_HELD that is said once
 * and the deeper locks are not checked. */
static void push_held(const struct txp_spinlock *l, int cls, const char *site, bool nested)
{
	if (v_nheld < V_HELD) {
		v_held[v_nheld++] = (struct v_held){ l, cls, site, nested };
		return;
	}
	pthread_mutex_lock(&v_mu);
	if (!v_full_held)
		report(TXP_HAZARD_LIMIT,
		       "lock validator full: more than %d locks held at once (taking '%s' in %s); the deeper ones are not checked",
		       V_HELD, l->name ? l->name : "(unnamed lock)", site);
	v_full_held = true;
	pthread_mutex_unlock(&v_mu);
}

static const char *lock_name(const struct txp_spinlock *l)
{
	return l->name ? l->name : "(unnamed lock)";
}

static bool validate_recursion(const struct txp_spinlock *l, const char *site)
{
	const struct v_held *h = find_held(l);

	if (!h)
		return false;
	pthread_mutex_lock(&v_mu);
	report(TXP_HAZARD_RECURSION,
	       "recursive locking: '%s' is held by this context (taken in %s) and taken again in %s: a deadlock",
	       lock_name(l), h->site, site);
	pthread_mutex_unlock(&v_mu);
	push_held(l, h->cls, site, true);
	return true;
}

/* Interrupt-state rules for a fresh acquisition of class c.  v_mu held. */
static void check_irq_state(int c, const char *site)
{
	struct v_class *k = &v_class[c];

	if (txp_in_irq()) {
		k->irqsafe = true;
		if (!k->irq_site)
			k->irq_site = site;
	} else if (!txp_irqs_disabled() && !k->irqs_on_site) {
		k->irqs_on_site = site;
	}
	if (k->irq_site && k->irqs_on_site && !k->reported_irq) {
		k->reported_irq = true;
		report(TXP_HAZARD_IRQ_INCONSISTENT,
		       "inconsistent irq state: '%s' is taken in interrupt context (in %s) and with interrupts on (in %s)",
		       k->name, k->irq_site, k->irqs_on_site);
	}
}

static bool has_edge(const struct v_class *k, int to)
{
	for (int e = 0; e < k->nedge; e++)
		if (k->edge[e].to == to)
			return true;
	return false;
}

/* Record the order o -> c; false if out of memory.  v_mu held. */
static bool add_edge(int o, int c, const char *outer_site, const char *inner_site)
{
	struct v_class *k = &v_class[o];

	if (k->nedge == k->edgecap) {
		int cap = k->edgecap ? k->edgecap * 2 : 4;
		struct v_edge *e = realloc(k->edge, (size_t)cap * sizeof(*e));

		if (!e) {
			report_no_memory("lock orders");
			return false;
		}
		k->edge = e;
		k->edgecap = cap;
	}
	k->edge[k->nedge++] = (struct v_edge){ c, outer_site, inner_site };
	return true;
}

/* Breadth-first over the orders seen: does `from` reach `to`?  Each class
 * reached notes how, for path_text().  v_mu held. */
static bool reaches(int from, int to)
{
	int head = 0, tail = 0;

	v_gen++;
	v_class[from].gen = v_gen;
	v_queue[tail++] = from;
	while (head < tail) {
		int x = v_queue[head++];

		if (x == to)
			return true;
		for (int e = 0; e < v_class[x].nedge; e++) {
			struct v_class *y = &v_class[v_class[x].edge[e].to];

			if (y->gen == v_gen)
				continue;
			y->gen = v_gen;
			y->from = x;
			y->via = e;
			v_queue[tail++] = (int)(y - v_class);
		}
	}
	return false;
}

/* One order of a cycle, as "'X' then 'Y' (site, then site), ". */
static int order_text(char *buf, size_t len, const struct v_class *x, const struct v_class *y,
		      const struct v_edge *e)
{
	return snprintf(buf, len, "'%s' then '%s' (%s, then %s), ", x->name, y->name,
			e->outer_site, e->inner_site);
}

/* The path reaches() found from `from` to `to`, order by order; a path
 * too long for len keeps its first orders and its last, and counts the
 * ones between.  v_mu held. */
static void path_text(int from, int to, char *buf, size_t len)
{
	int n = 0, *path = v_queue;	/* the search is over: its queue is free */
	size_t used = 0, keep = len / 2;
	char one[V_MSG];

	buf[0] = '\0';
	for (int x = to; x != from; x = v_class[x].from)
		path[n++] = x;
	for (int i = n - 1; i >= 0; i--) {
		const struct v_class *y = &v_class[path[i]], *x = &v_class[y->from];
		size_t w = (size_t)order_text(one, sizeof(one), x, y, &x->edge[y->via]);

		if (i > 0 && used + w > keep) {
			used += (size_t)snprintf(buf + used, len - used, "... %d orders more ..., ", i);
			i = 1;	/* on to the last */
			continue;
		}
		if (used + w >= len)
			return;
		memcpy(buf + used, one, w + 1);
		used += w;
	}
}

/*
 * The new order o -> c closes a cycle if c already reaches o: every
 * order of it is named, the ones seen before first, then this one.  A
 * cycle of N classes deadlocks once N contexts each hold one and wait
 * for the next.  v_mu held.
 */
static void check_cycle(int o, int c, const char *outer_site, const char *inner_site)
{
	char chain[V_MSG];
	int locks = 1;

	if (!reaches(c, o))
		return;
	for (int x = o; x != c; x = v_class[x].from)
		locks++;
	path_text(c, o, chain, sizeof(chain));
	report(TXP_HAZARD_LOCK_ORDER,
	       "lock order inversion over %d locks: %sand '%s' then '%s' (%s, then %s)", locks, chain,
	       v_class[o].name, v_class[c].name, outer_site, inner_site);
}

/* Order rules: every lock held before c was taken outside it.  v_mu held. */
static void check_order(int c, const char *site)
{
	for (int i = 0; i < v_nheld; i++) {
		int o = v_held[i].cls;

		if (v_held[i].nested || o < 0 || o == c || has_edge(&v_class[o], c))
			continue;
		/* Searched before it is added: a cycle needs the way back. */
		check_cycle(o, c, v_held[i].site, site);
		if (!add_edge(o, c, v_held[i].site, site))
			return;
	}
}

static void validate_acquired(const struct txp_spinlock *l, const char *site)
{
	int c;

	pthread_mutex_lock(&v_mu);
	c = class_of(l, site);
	if (c >= 0) {
		check_irq_state(c, site);
		check_order(c, site);
	}
	pthread_mutex_unlock(&v_mu);
	push_held(l, c, site, false);
}

static bool validate_release(const struct txp_spinlock *l, const char *site)
{
	(void)site;
	for (int i = v_nheld - 1; i >= 0; i--) {
		bool nested;

		if (v_held[i].lock != l)
			continue;
		nested = v_held[i].nested;
		memmove(&v_held[i], &v_held[i + 1], (size_t)(v_nheld - i - 1) * sizeof(v_held[0]));
		v_nheld--;
		return nested;
	}
	return false;
}

static void validate_irqsafe(const struct txp_spinlock *l)
{
	int c;

	pthread_mutex_lock(&v_mu);
	c = class_of(l, "txp_lock_irqsafe");
	if (c >= 0)
		v_class[c].irqsafe = true;
	pthread_mutex_unlock(&v_mu);
}

static void validate_irqs_on(const char *site)
{
	pthread_mutex_lock(&v_mu);
	for (int i = 0; i < v_nheld; i++) {
		int c = v_held[i].cls;

		if (v_held[i].nested || c < 0 || !v_class[c].irqsafe)
			continue;
		report(TXP_HAZARD_IRQS_ON_HELD,
		       "interrupts turned on in %s while holding irq-safe '%s' (taken in %s)",
		       site, v_class[c].name, v_held[i].site);
	}
	pthread_mutex_unlock(&v_mu);
}

static void validate_free(const char *site)
{
	const char *off = txp_irqs_off_site();

	if (!off)
		return;
	pthread_mutex_lock(&v_mu);
	/* Holding a lock, the lock says where: one report per site and lock,
	 * however interrupts came to be off. */
	if (v_nheld)
		report(TXP_HAZARD_FREE_IRQS_OFF,
		       "packet freed in %s with interrupts off, holding '%s' (taken in %s)",
		       site, lock_name(v_held[v_nheld - 1].lock), v_held[v_nheld - 1].site);
	else
		report(TXP_HAZARD_FREE_IRQS_OFF,
		       "packet freed in %s with interrupts off (since %s)", site, off);
	pthread_mutex_unlock(&v_mu);
}
