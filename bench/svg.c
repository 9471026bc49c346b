/*
 * svg.c - the bench as a chart: million packets per second against
 * producer threads, one line per configuration, min-max bars at each
 * point.  Two panels with scales of their own, the null driver (with the
 * baselines, which drive it too) and the simulated NIC, so neither is
 * squashed flat by the other; under each a legend ordered by the figure
 * at the most threads, so a line is found at a glance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define W 1000
#define H 600
#define PY0 110		/* plot area, top and bottom */
#define PY1 400
#define LEGEND_Y 470
#define MAX_SERIES 8

struct series {
	const char *name;
	const char *color;
	double width;
	const struct bench_row *pt[TXP_BENCH_MAX_THREADS];	/* by threads - 1 */
	double last;		/* median at the most threads measured */
};

struct panel {
	const char *driver;	/* rows of this driver */
	const char *title;
	double x0, x1;		/* plot area, left and right */
	struct series s[MAX_SERIES];
	size_t ns;
	double top, step;	/* y axis */
};

static const char *config_color(const char *config)
{
	static const struct {
		const char *config, *color;
	} colors[] = {
		{ "mutex", "#bbbbbb" },		{ "mutex-burst", "#222222" },
		{ "ckring", "#8c8c8c" },	{ "rte_ring", "#8c564b" },
		{ "core/concurrent", "#1f77b4" }, { "lltx/concurrent", "#d62728" },
		{ "core/exclusive", "#2ca02c" },	{ "lltx/exclusive", "#ff7f0e" },
	};

	for (size_t i = 0; i < sizeof(colors) / sizeof(colors[0]); i++)
		if (!strcmp(colors[i].config, config))
			return colors[i].color;
	return "#9467bd";
}

static int by_last_desc(const void *a, const void *b)
{
	double x = ((const struct series *)a)->last, y = ((const struct series *)b)->last;

	return (x < y) - (x > y);
}

/* A round axis top above v, and its step: 1, 2 or 5 times a power of ten. */
static double nice_top(double v, double *step)
{
	double p, m;

	if (!(v > 0))
		v = 1;
	p = pow(10, floor(log10(v / 5)));
	m = v / 5 / p;
	*step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
	return ceil(v / *step) * *step;
}

/* Group the panel's rows into lines, scale it, order the legend. */
static void panel_fill(struct panel *p, const struct bench_row *rows, size_t n)
{
	double ymax = 0;

	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];
		size_t k;

		if (r->skipped || strcmp(r->driver, p->driver) || r->threads < 1 ||
		    r->threads > TXP_BENCH_MAX_THREADS)
			continue;
		for (k = 0; k < p->ns && strcmp(p->s[k].name, r->config); k++)
			;
		if (k == p->ns) {
			if (p->ns == MAX_SERIES)
				continue;
			p->s[k] = (struct series){
				.name = r->config,
				.color = config_color(r->config),
				.width = r->kind == BENCH_TXPATH ? 2.5 : 3.5,
			};
			p->ns++;
		}
		p->s[k].pt[r->threads - 1] = r;
		p->s[k].last = r->mpps;		/* rows come by increasing threads */
		if (r->max > ymax)
			ymax = r->max;
	}
	p->top = nice_top(ymax * 1.05, &p->step);
	qsort(p->s, p->ns, sizeof(p->s[0]), by_last_desc);
}

static double px(const struct panel *p, unsigned t, unsigned tmax)
{
	return tmax > 1 ? p->x0 + 25 + (t - 1) * (p->x1 - p->x0 - 50) / (tmax - 1)
			: (p->x0 + p->x1) / 2;
}

static double py(const struct panel *p, double v)
{
	return PY1 - v / p->top * (PY1 - PY0);
}

static void panel_draw(FILE *f, const struct panel *p, unsigned tmax)
{
	fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
		p->x0, PY0 - 14, p->title);
	for (double v = 0; v <= p->top + p->step / 2; v += p->step) {
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			p->x0, py(p, v), p->x1, py(p, v), v == 0 ? "#000" : "#ddd");
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"13\" text-anchor=\"end\">%g</text>\n",
			p->x0 - 8, py(p, v) + 4, v);
	}
	fprintf(f, "<line x1=\"%.0f\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" stroke=\"#000\"/>\n",
		p->x0, PY0, p->x0, PY1);
	for (unsigned t = 1; t <= tmax; t++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"13\" text-anchor=\"middle\">%u</text>\n",
			px(p, t, tmax), PY1 + 20, t);
	fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-size=\"14\" text-anchor=\"middle\">producer threads</text>\n",
		(p->x0 + p->x1) / 2, PY1 + 42);
	fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-size=\"14\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 %.0f %d)\">Mpps</text>\n",
		p->x0 - 48, (PY0 + PY1) / 2, p->x0 - 48, (PY0 + PY1) / 2);

	/* The lines, the best drawn last so it stays on top. */
	for (size_t k = p->ns; k-- > 0;) {
		const struct series *e = &p->s[k];

		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" points=\"",
			e->color, e->width);
		for (unsigned t = 1; t <= tmax; t++)
			if (e->pt[t - 1])
				fprintf(f, "%.1f,%.1f ", px(p, t, tmax), py(p, e->pt[t - 1]->mpps));
		fprintf(f, "\"/>\n");
		for (unsigned t = 1; t <= tmax; t++) {
			const struct bench_row *r = e->pt[t - 1];

			if (!r)
				continue;
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"1.2\"/>\n", px(p, t, tmax), py(p, r->min),
				px(p, t, tmax), py(p, r->max), e->color);
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
				px(p, t, tmax), py(p, r->mpps), e->color);
		}
	}

	/* The legend, best first, with the figure at the most threads. */
	fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-size=\"13\" fill=\"#444\">"
		"Mpps at %u thread%s, best first</text>\n", p->x0, LEGEND_Y - 8, tmax,
		tmax > 1 ? "s" : "");
	for (size_t k = 0; k < p->ns; k++) {
		double y = LEGEND_Y + 10 + 20.0 * (double)(k % 6);
		double x = p->x0 + 200.0 * (double)(k / 6);

		fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
			"stroke-width=\"%.1f\"/>\n", x, y, x + 28, y, p->s[k].color, p->s[k].width);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\">%-s</text>\n",
			x + 36, y + 4, p->s[k].name);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\" text-anchor=\"end\">%.1f</text>\n",
			x + 240, y + 4, p->s[k].last);
	}
}

void bench_svg(FILE *f, const struct bench_cfg *cfg, const struct bench_row *rows, size_t n)
{
	static struct panel panels[2];
	unsigned tmax = cfg->max_threads < TXP_BENCH_MAX_THREADS ? cfg->max_threads
								  : TXP_BENCH_MAX_THREADS;
	size_t np = cfg->sim ? 2 : 1;

	memset(panels, 0, sizeof(panels));
	panels[0] = (struct panel){ .driver = "null", .x0 = 90, .x1 = 460,
		.title = "null driver: the path's own cost, and the baselines" };
	panels[1] = (struct panel){ .driver = "sim", .x0 = 590, .x1 = 960,
		.title = "simulated NIC, no line rate (tg3-2005)" };
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
		W, H, W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"40\" y=\"32\" font-size=\"21\" font-weight=\"bold\">"
		"txpath bench: packets per second against producer threads</text>\n");
	fprintf(f, "<text x=\"40\" y=\"56\" font-size=\"13\" fill=\"#444\">Median of %u run%s of "
		"%.2g s per point; bars: min to max.  Every line in bursts of %u, a doorbell at "
		"least every %u.</text>\n",
		cfg->reps, cfg->reps > 1 ? "s" : "", cfg->seconds, cfg->burst, cfg->bulk);
	fprintf(f, "<text x=\"40\" y=\"76\" font-size=\"13\" fill=\"#444\">mutex-burst: the "
		"lock once a burst (as txpath's root lock); rte_ring: a burst's slots at once; "
		"mutex, ckring: one per packet.</text>\n");
	for (size_t i = 0; i < np; i++) {
		panel_fill(&panels[i], rows, n);
		panel_draw(f, &panels[i], tmax);
	}
	fprintf(f, "</svg>\n");
}
