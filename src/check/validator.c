/*
 * validator.c - the lock validator.
 *
 * What it learns is per lock class (the name a lock was given), so one
 * report covers every device; what a context holds is per thread.  Its
 * own tables are guarded by a pthread mutex: it observes the seam and is
 * not part of it, so it is never a scheduling point of the explorer.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check/validator.h"
#include "sync/sync.h"
#include "txpath/check.h"

#define V_CLASSES 32
#define V_HELD 16
#define V_REPORTS 64
#define V_MSG 320

bool txp__validating;

struct v_class {
	const char *name;
	const char *irq_site;		/* acquired in interrupt context there */
	const char *irqs_on_site;	/* acquired with interrupts on there */
	bool irqsafe;			/* used, or declared for use, in interrupts */
	bool reported_irq;
};

struct v_order {
	const char *outer_site, *inner_site;	/* first seen outer -> inner */
	bool seen, reported;
};

struct v_held {
	const struct txp_spinlock *lock;
	int cls;
	const char *site;
	bool nested;
};

struct v_report {
	enum txp_hazard kind;
	char msg[V_MSG];
};

static pthread_mutex_t v_mu = PTHREAD_MUTEX_INITIALIZER;
static struct v_class v_class[V_CLASSES];
static int v_nclass;
static struct v_order v_order[V_CLASSES][V_CLASSES];
static struct v_report v_report[V_REPORTS];
static unsigned v_nreport;
static void (*v_hook)(enum txp_hazard, const char *, void *);
static void *v_hook_arg;

static txp_local struct v_held v_held[V_HELD];
TXP_LOCAL(v_held);
static txp_local int v_nheld;
TXP_LOCAL(v_nheld);

static const struct txp_sync_observer validator_observer = {
	.lock_recursion = txp_validate_recursion,
	.lock_acquired = txp_validate_acquired,
	.lock_release = txp_validate_release,
	.irqs_on = txp_validate_irqs_on,
};

void txp_validator_enable(bool on)
{
	pthread_mutex_lock(&v_mu);
	if (on) {
		/* Only what was used: the explorer turns it on per schedule. */
		for (int i = 0; i < v_nclass; i++)
			memset(v_order[i], 0, (size_t)v_nclass * sizeof(v_order[i][0]));
		memset(v_class, 0, (size_t)v_nclass * sizeof(v_class[0]));
		v_nclass = 0;
		v_nreport = 0;
	}
	txp__validating = on;
	txp_sync_observe(TXP_WATCH_VALIDATOR, on ? &validator_observer : NULL);
	pthread_mutex_unlock(&v_mu);
	v_nheld = 0;
}

bool txp_validator_enabled(void)
{
	return txp__validating;
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
	v_report[v_nreport++] = r;
	if (v_hook)
		v_hook(kind, r.msg, v_hook_arg);
}

/* The class of l, added on first sight.  v_mu held. */
static int class_of(const struct txp_spinlock *l)
{
	const char *name = l->name ? l->name : "(unnamed lock)";
	int i;

	for (i = 0; i < v_nclass; i++)
		if (v_class[i].name == name || !strcmp(v_class[i].name, name))
			return i;
	if (v_nclass == V_CLASSES)
		return V_CLASSES - 1;	/* merged: more classes than any design here */
	v_class[v_nclass].name = name;
	return v_nclass++;
}

static const struct v_held *find_held(const struct txp_spinlock *l)
{
	for (int i = v_nheld - 1; i >= 0; i--)
		if (v_held[i].lock == l)
			return &v_held[i];
	return NULL;
}

static void push_held(const struct txp_spinlock *l, int cls, const char *site, bool nested)
{
	if (v_nheld < V_HELD)
		v_held[v_nheld++] = (struct v_held){ l, cls, site, nested };
}

bool txp_validate_recursion(const struct txp_spinlock *l, const char *site)
{
	const struct v_held *h = find_held(l);
	int cls;

	if (!h)
		return false;
	pthread_mutex_lock(&v_mu);
	cls = class_of(l);
	report(TXP_HAZARD_RECURSION,
	       "recursive locking: '%s' is held by this context (taken in %s) and taken again in %s: a deadlock",
	       v_class[cls].name, h->site, site);
	pthread_mutex_unlock(&v_mu);
	push_held(l, cls, site, true);
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

/* Order rules: every lock held before c was taken outside it.  v_mu held. */
static void check_order(int c, const char *site)
{
	for (int i = 0; i < v_nheld; i++) {
		int o = v_held[i].cls;
		struct v_order *fwd = &v_order[o][c], *rev = &v_order[c][o];

		if (v_held[i].nested || o == c)
			continue;
		if (!fwd->seen) {
			fwd->seen = true;
			fwd->outer_site = v_held[i].site;
			fwd->inner_site = site;
		}
		if (rev->seen && !rev->reported && !fwd->reported) {
			fwd->reported = true;
			report(TXP_HAZARD_LOCK_ORDER,
			       "lock order inversion: '%s' then '%s' (%s, then %s) and '%s' then '%s' (%s, then %s)",
			       v_class[c].name, v_class[o].name, rev->outer_site, rev->inner_site,
			       v_class[o].name, v_class[c].name, v_held[i].site, site);
		}
	}
}

void txp_validate_acquired(const struct txp_spinlock *l, const char *site)
{
	int c;

	pthread_mutex_lock(&v_mu);
	c = class_of(l);
	check_irq_state(c, site);
	check_order(c, site);
	pthread_mutex_unlock(&v_mu);
	push_held(l, c, site, false);
}

bool txp_validate_release(const struct txp_spinlock *l, const char *site)
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

void txp_validate_irqsafe(const struct txp_spinlock *l)
{
	pthread_mutex_lock(&v_mu);
	v_class[class_of(l)].irqsafe = true;
	pthread_mutex_unlock(&v_mu);
}

void txp_validate_irqs_on(const char *site)
{
	pthread_mutex_lock(&v_mu);
	for (int i = 0; i < v_nheld; i++) {
		int c = v_held[i].cls;

		if (v_held[i].nested || !v_class[c].irqsafe)
			continue;
		report(TXP_HAZARD_IRQS_ON_HELD,
		       "interrupts turned on in %s while holding irq-safe '%s' (taken in %s)",
		       site, v_class[c].name, v_held[i].site);
	}
	pthread_mutex_unlock(&v_mu);
}

void txp_validate_free(const char *site)
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
		       site, v_class[v_held[v_nheld - 1].cls].name, v_held[v_nheld - 1].site);
	else
		report(TXP_HAZARD_FREE_IRQS_OFF,
		       "packet freed in %s with interrupts off (since %s)", site, off);
	pthread_mutex_unlock(&v_mu);
}
