/*
 * fault.c - the fault engine: the --fault language, which event of a
 * stream fires, and the simulated NIC's interrupt and carrier faults.
 *
 * A decision depends on (seed, kind, stream, event number) only, through
 * a hash, so the same seed gives the same faults at the same events,
 * however the threads are scheduled.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

#define FAULT_DEFAULT_PCT 1.0
#define FAULT_DEFAULT_DELAY_NS 1000000ull	/* slow-irq: 1 ms late */
#define FAULT_DEFAULT_FLAP_NS 50000000ull	/* link-flap: every 50 ms ... */
#define FAULT_DEFAULT_DOWN_NS 5000000ull	/* ... down for 5 ms */
#define FAULT_MAX_TIME_NS 3600000000000ull	/* an hour */
#define FAULT_GOLDEN 0x9e3779b97f4a7c15ull

static const char *const fault_names[TXP_FAULT_NR] = {
	[TXP_FAULT_LOST_IRQ] = "lost-irq",
	[TXP_FAULT_SLOW_IRQ] = "slow-irq",
	[TXP_FAULT_DESC_ERROR] = "desc-error",
	[TXP_FAULT_LINK_FLAP] = "link-flap",
	[TXP_FAULT_ALLOC_FAIL] = "alloc-fail",
};

const char *txp_fault_name(enum txp_fault_kind k)
{
	return (unsigned)k < TXP_FAULT_NR ? fault_names[k] : NULL;
}

bool txp_fault_any(const struct txp_fault_cfg *c)
{
	for (int k = 0; k < TXP_FAULT_NR; k++)
		if (c->kind[k].on)
			return true;
	return false;
}

/* -- the language ---------------------------------------------------------- */

static int fault_lookup(const char *name, size_t len)
{
	for (int k = 0; k < TXP_FAULT_NR; k++)
		if (strlen(fault_names[k]) == len && strncmp(fault_names[k], name, len) == 0)
			return k;
	return -1;
}

/* A percentage as a chance out of 2^32. */
static uint64_t pct_chance(double pct)
{
	return (uint64_t)(pct / 100.0 * 4294967296.0 + 0.5);
}

/* "P%", 0 < P <= 100 (and not so small that it never fires). */
static bool parse_pct(const char *s, uint64_t *chance)
{
	char *end;
	double p;

	errno = 0;
	p = strtod(s, &end);
	if (end == s || strcmp(end, "%") != 0 || errno || !isfinite(p) || !(p > 0) || p > 100)
		return false;
	*chance = pct_chance(p);
	return *chance > 0;
}

static bool parse_count(const char *s, uint64_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return false;
	n = strtoull(s, &end, 10);
	if (*end || errno || n == 0)
		return false;
	*v = n;
	return true;
}

/* "5ms", "200us", "1.5s", "100ns": more than 0, at most an hour. */
static bool parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || !(v > 0))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			double t = v * units[i].ns;

			if (t < 1 || t > (double)FAULT_MAX_TIME_NS)
				return false;
			*ns = (uint64_t)t;
			return true;
		}
	}
	return false;
}

/* What each kind takes, for the messages. */
static const char *fault_params(enum txp_fault_kind k)
{
	switch (k) {
	case TXP_FAULT_SLOW_IRQ:
		return "P%, every=N, max=N, delay=TIME, passes=N";
	case TXP_FAULT_LINK_FLAP:
		return "P%, every=N, every=TIME, down=TIME, down=N, max=N";
	default:
		return "P%, every=N, max=N";
	}
}

/* N into *count, or (if time) TIME into *ns. */
static bool parse_count_or_time(const char *s, bool time, uint64_t *count, uint64_t *ns)
{
	return parse_count(s, count) || (time && parse_time(s, ns));
}

/* One PARAM of kind k. */
static bool parse_param(enum txp_fault_kind k, struct txp_fault *f, const char *p, char *err,
			size_t errlen)
{
	bool flap = k == TXP_FAULT_LINK_FLAP, slow = k == TXP_FAULT_SLOW_IRQ, ok;
	const char *v = strchr(p, '=');

	if (!v && strchr(p, '%')) {
		ok = parse_pct(p, &f->chance);
	} else if (!v) {
		ok = false;
	} else if (strncmp(p, "every=", 6) == 0) {
		ok = parse_count_or_time(v + 1, flap, &f->every, &f->period_ns);
	} else if (strncmp(p, "max=", 4) == 0) {
		ok = parse_count(v + 1, &f->max);
	} else if (slow && strncmp(p, "delay=", 6) == 0) {
		ok = parse_time(v + 1, &f->delay_ns);
	} else if (slow && strncmp(p, "passes=", 7) == 0) {
		ok = parse_count(v + 1, &f->delay_passes);
	} else if (flap && strncmp(p, "down=", 5) == 0) {
		ok = parse_count_or_time(v + 1, true, &f->delay_passes, &f->delay_ns);
	} else {
		ok = false;
	}
	if (!ok)
		snprintf(err, errlen, "%s: bad parameter '%s' (it takes %s%s)", fault_names[k],
			 p, fault_params(k), slow || flap ? "; TIME as 5ms, 200us, 1s" : "");
	return ok;
}

/* Defaults for what was not given, and the combinations that make no sense. */
static bool finish_kind(enum txp_fault_kind k, struct txp_fault *f, char *err, size_t errlen)
{
	const char *name = fault_names[k];
	bool flap = k == TXP_FAULT_LINK_FLAP;

	if ((f->chance != 0) + (f->every != 0) + (f->period_ns != 0) > 1) {
		snprintf(err, errlen, "%s: give one rate: P%% or every=N%s", name,
			 flap ? " or every=TIME" : ", not both");
		return false;
	}
	if (f->delay_ns && f->delay_passes) {
		snprintf(err, errlen, "%s: give %s=TIME or %s=N, not both", name,
			 flap ? "down" : "delay", flap ? "down" : "passes");
		return false;
	}
	if (flap && !f->chance && !f->every && !f->period_ns)
		f->period_ns = FAULT_DEFAULT_FLAP_NS;
	else if (!f->chance && !f->every && !f->period_ns)
		f->chance = pct_chance(FAULT_DEFAULT_PCT);
	if (!f->delay_ns && !f->delay_passes && k == TXP_FAULT_SLOW_IRQ)
		f->delay_ns = FAULT_DEFAULT_DELAY_NS;
	if (!f->delay_ns && !f->delay_passes && flap)
		f->delay_ns = FAULT_DEFAULT_DOWN_NS;
	if (f->period_ns && f->delay_ns >= f->period_ns) {
		snprintf(err, errlen, "link-flap: down= must be shorter than every=");
		return false;
	}
	return true;
}

/* Start kind named by s[0..len) in c; -1 with a message if it is not one. */
static int begin_kind(struct txp_fault_cfg *c, const char *s, size_t len, char *err,
		      size_t errlen)
{
	int k = fault_lookup(s, len);

	if (k < 0) {
		snprintf(err, errlen,
			 "unknown fault '%.*s' (lost-irq slow-irq desc-error link-flap alloc-fail)",
			 (int)len, s);
		return -1;
	}
	if (c->kind[k].on) {
		snprintf(err, errlen, "%s given twice", fault_names[k]);
		return -1;
	}
	c->kind[k] = (struct txp_fault){ .on = true };
	return k;
}

bool txp_fault_parse(struct txp_fault_cfg *c, const char *spec, char *err, size_t errlen)
{
	char *copy = strdup(spec), *save = NULL, *piece;
	bool ok = true;
	int k = -1;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	if (!*spec || *spec == ',' || spec[strlen(spec) - 1] == ',' || strstr(spec, ",,")) {
		snprintf(err, errlen, "a fault spec is KIND[:PARAM[,PARAM...]][,KIND...], not '%s'",
			 spec);
		ok = false;
	}
	for (piece = strtok_r(copy, ",", &save); ok && piece; piece = strtok_r(NULL, ",", &save)) {
		const char *colon = strchr(piece, ':');
		bool is_kind = colon || fault_lookup(piece, strlen(piece)) >= 0 ||
			       (!strchr(piece, '=') && !strchr(piece, '%'));

		if (is_kind) {
			if (k >= 0 && !finish_kind(k, &c->kind[k], err, errlen))
				ok = false;
			else if ((k = begin_kind(c, piece, colon ? (size_t)(colon - piece)
							       : strlen(piece), err, errlen)) < 0)
				ok = false;
			else if (colon)
				ok = parse_param(k, &c->kind[k], colon + 1, err, errlen);
		} else if (k < 0) {
			snprintf(err, errlen, "'%s' before any fault kind", piece);
			ok = false;
		} else {
			ok = parse_param(k, &c->kind[k], piece, err, errlen);
		}
	}
	if (ok && k >= 0)
		ok = finish_kind(k, &c->kind[k], err, errlen);
	free(copy);
	return ok;
}

/* -- streams ------------------------------------------------------------------ */

/* splitmix64's finaliser: a good 64-bit mix. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void txp_fault_stream_init(struct txp_fault_stream *s, const struct txp_fault_cfg *c,
			   enum txp_fault_kind k, uint64_t stream, _Atomic uint64_t *injected)
{
	s->f = c && c->kind[k].on ? &c->kind[k] : NULL;
	s->key = mix64(c ? c->seed : 0) ^ mix64(FAULT_GOLDEN * (k + 1)) ^ mix64(~stream);
	s->events = 0;
	s->injected = injected;
}

/* Count one injection, unless max of them were made already.  Several
 * streams of a kind share the count: a compare-and-swap, and only when a
 * fault fires. */
static bool fault_take(_Atomic uint64_t *injected, uint64_t max)
{
	uint64_t n = txp_load_relaxed(injected);

	if (!max) {
		txp_counter_inc_shared(injected);
		return true;
	}
	do {
		if (n >= max)
			return false;
	} while (!txp_cas(injected, &n, n + 1));
	return true;
}

bool txp_fault_next(struct txp_fault_stream *s)
{
	const struct txp_fault *f = s->f;
	uint64_t n;
	bool fire;

	if (!f)
		return false;
	n = s->events++;
	if (f->every)
		fire = (n + 1) % f->every == 0;
	else
		fire = mix64(s->key + n * FAULT_GOLDEN) >> 32 < f->chance;
	return fire && fault_take(s->injected, f->max);
}

/* -- the simulated NIC's faults ------------------------------------------------ */

int txp__sim_faults_init(struct sim_faults *f, const struct txp_fault_cfg *cfg, unsigned size,
		    unsigned queue, _Atomic uint64_t *injected)
{
	memset(f, 0, sizeof(*f));
	for (int k = 0; k < TXP_FAULT_NR; k++)
		atomic_init(&f->injected[k], 0);
	if (!injected)
		injected = f->injected;
	f->counts = injected;
	if (cfg)
		f->cfg = *cfg;
	f->cfg.kind[TXP_FAULT_ALLOC_FAIL].on = false;	/* the workload's, not the NIC's */
	f->on = txp_fault_any(&f->cfg);
	txp_fault_stream_init(&f->lost, &f->cfg, TXP_FAULT_LOST_IRQ, queue,
			      &injected[TXP_FAULT_LOST_IRQ]);
	txp_fault_stream_init(&f->slow, &f->cfg, TXP_FAULT_SLOW_IRQ, queue,
			      &injected[TXP_FAULT_SLOW_IRQ]);
	txp_fault_stream_init(&f->desc, &f->cfg, TXP_FAULT_DESC_ERROR, queue,
			      &injected[TXP_FAULT_DESC_ERROR]);
	if (!f->cfg.kind[TXP_FAULT_LINK_FLAP].period_ns)
		txp_fault_stream_init(&f->flap, &f->cfg, TXP_FAULT_LINK_FLAP, queue,
				      &injected[TXP_FAULT_LINK_FLAP]);
	if (!f->on)
		return 0;
	f->status = calloc(size, sizeof(*f->status));
	return f->status ? 0 : -1;
}

void txp__sim_faults_fini(struct sim_faults *f)
{
	free(f->status);
	f->status = NULL;
}

/* When the carrier next goes, timed: a period after it last went (now:
 * when it came back), or never when link-flap goes by packets. */
static uint64_t link_after(const struct sim_faults *f, uint64_t now)
{
	const struct txp_fault *flap = &f->cfg.kind[TXP_FAULT_LINK_FLAP];

	return flap->period_ns ? now + flap->period_ns - flap->delay_ns : UINT64_MAX;
}

void txp__sim_faults_start(struct sim_faults *f, uint64_t t0, uint64_t cons)
{
	f->hw = cons;
	f->irq_pending = false;
	f->link_down = false;
	f->link_next = link_after(f, t0);
}

enum sim_irq txp__sim_fault_irq(struct sim_faults *f, uint64_t now)
{
	const struct txp_fault *slow = &f->cfg.kind[TXP_FAULT_SLOW_IRQ];

	if (txp_fault_next(&f->lost))
		return SIM_IRQ_LOST;
	if (!txp_fault_next(&f->slow))
		return SIM_IRQ_NOW;
	f->irq_pending = true;
	f->irq_due_ns = now + slow->delay_ns;
	f->irq_due_passes = slow->delay_passes;
	return SIM_IRQ_LATE;
}

bool txp__sim_fault_irq_due(struct sim_faults *f, uint64_t now)
{
	if (f->irq_due_passes && --f->irq_due_passes)
		return false;
	if (now < f->irq_due_ns)
		return false;
	f->irq_pending = false;
	return true;
}

/* The carrier goes away at time now, for the length link-flap says. */
static void link_go_down(struct sim_faults *f, uint64_t now)
{
	const struct txp_fault *flap = &f->cfg.kind[TXP_FAULT_LINK_FLAP];

	f->link_down = true;
	f->link_up_at = now + flap->delay_ns;
	f->link_passes = flap->delay_passes;
}

void txp__sim_fault_flap(struct sim_faults *f, uint64_t now)
{
	if (txp_fault_next(&f->flap))
		link_go_down(f, now);
}

enum sim_link txp__sim_fault_link(struct sim_faults *f, uint64_t now)
{
	const struct txp_fault *flap = &f->cfg.kind[TXP_FAULT_LINK_FLAP];

	if (!flap->on)
		return SIM_LINK_SAME;
	if (f->link_down) {
		if ((f->link_passes && --f->link_passes) || now < f->link_up_at)
			return SIM_LINK_SAME;
		f->link_down = false;
		f->link_next = link_after(f, now);
		return SIM_LINK_UP;
	}
	if (now < f->link_next)
		return SIM_LINK_SAME;
	if (!fault_take(&f->counts[TXP_FAULT_LINK_FLAP], flap->max)) {
		f->link_next = UINT64_MAX;
		return SIM_LINK_SAME;
	}
	link_go_down(f, now);
	return SIM_LINK_DOWN;
}
