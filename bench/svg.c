/*
 * svg.c - the bench as a chart: million packets per second against
 * producer threads, one line per configuration, min-max bars at each
 * point, and a legend ordered by the last point so a line is found at a
 * glance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define W 900
#define H 520
#define PX0 80		/* plot area */
#define PX1 590
#define PY0 80
#define PY1 450

struct series {
	char name[40];
	const char *color;
	const char *dash;	/* NULL: solid */
	double width;
	const struct bench_row *pt[64];	/* by threads - 1 */
	double last;		/* median at the most threads measured */
};

static const char *config_color(const char *config)
{
	static const struct {
		const char *config, *color;
	} colors[] = {
		{ "mutex", "#222222" },		{ "ckring", "#8c8c8c" },
		{ "core/concurrent", "#1f77b4" }, { "lltx/concurrent", "#d62728" },
		{ "core/exclusive", "#2ca02c" },	{ "lltx/exclusive", "#ff7f0e" },
	};

	for (size_t i = 0; i < sizeof(colors) / sizeof(colors[0]); i++)
		if (!strcmp(colors[i].config, config))
			return colors[i].color;
	return "#9467bd";
}

/* Group the rows into lines; returns how many. */
static size_t make_series(const struct bench_row *rows, size_t n, struct series *s, size_t max)
{
	size_t ns = 0;

	for (size_t i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];
		char name[40];
		size_t k;

		if (r->skipped || r->threads < 1 || r->threads > 64)
			continue;
		if (r->kind == BENCH_TXPATH)
			snprintf(name, sizeof(name), "txpath %s %s", r->driver, r->config);
		else
			snprintf(name, sizeof(name), "%s (null)", r->config);
		for (k = 0; k < ns && strcmp(s[k].name, name); k++)
			;
		if (k == ns) {
			if (ns == max)
				continue;
			memset(&s[ns], 0, sizeof(s[ns]));
			snprintf(s[ns].name, sizeof(s[ns].name), "%s", name);
			s[ns].color = config_color(r->config);
			s[ns].dash = !strcmp(r->driver, "sim") ? "7 4" : NULL;
			s[ns].width = r->kind == BENCH_TXPATH ? 2.2 : 3.2;
			ns++;
		}
		s[k].pt[r->threads - 1] = r;
	}
	for (size_t k = 0; k < ns; k++)
		for (int t = 63; t >= 0; t--)
			if (s[k].pt[t]) {
				s[k].last = s[k].pt[t]->mpps;
				break;
			}
	return ns;
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

void bench_svg(FILE *f, const struct bench_cfg *cfg, const struct bench_row *rows, size_t n)
{
	struct series s[32];
	size_t ns = make_series(rows, n, s, 32);
	unsigned tmax = cfg->max_threads;
	double ymax = 0, step, top;

	for (size_t i = 0; i < n; i++)
		if (!rows[i].skipped && rows[i].max > ymax)
			ymax = rows[i].max;
	top = nice_top(ymax * 1.05, &step);
	qsort(s, ns, sizeof(s[0]), by_last_desc);

#define X(t) (tmax > 1 ? PX0 + 20 + ((double)(t) - 1) * (PX1 - PX0 - 40) / (tmax - 1) : (PX0 + PX1) / 2.0)
#define Y(v) (PY1 - (v) / top * (PY1 - PY0))
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
		W, H, W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"32\" font-size=\"20\" font-weight=\"bold\">"
		"txpath bench: packets per second against producer threads</text>\n", PX0);
	fprintf(f, "<text x=\"%d\" y=\"56\" font-size=\"13\" fill=\"#444\">median of %u runs of "
		"%.2g s each, bars min to max; bursts of %u, bulk %u; solid: null driver, "
		"dashed: simulated NIC (tg3-2005, no line rate)</text>\n",
		PX0, cfg->reps, cfg->seconds, cfg->burst, cfg->bulk);

	/* Grid and axes. */
	for (double v = 0; v <= top + step / 2; v += step) {
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			PX0, Y(v), PX1, Y(v), v == 0 ? "#000" : "#ddd");
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"13\" text-anchor=\"end\">%g</text>\n",
			PX0 - 8, Y(v) + 4, v);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n",
		PX0, PY0, PX0, PY1);
	for (unsigned t = 1; t <= tmax; t++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"13\" text-anchor=\"middle\">%u</text>\n",
			X(t), PY1 + 20, t);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\" text-anchor=\"middle\">producer threads</text>\n",
		(PX0 + PX1) / 2, PY1 + 44);
	fprintf(f, "<text x=\"22\" y=\"%d\" font-size=\"14\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 22 %d)\">million packets per second (Mpps)</text>\n",
		(PY0 + PY1) / 2, (PY0 + PY1) / 2);

	/* The lines, the best drawn last so it stays on top. */
	for (size_t k = ns; k-- > 0;) {
		const struct series *e = &s[k];

		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s%s points=\"",
			e->color, e->width, e->dash ? " stroke-dasharray=\"" : "",
			e->dash ? e->dash : "", e->dash ? "\"" : "");
		for (unsigned t = 1; t <= tmax; t++)
			if (e->pt[t - 1])
				fprintf(f, "%.1f,%.1f ", X(t), Y(e->pt[t - 1]->mpps));
		fprintf(f, "\"/>\n");
		for (unsigned t = 1; t <= tmax; t++) {
			const struct bench_row *r = e->pt[t - 1];

			if (!r)
				continue;
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"1.2\"/>\n", X(t), Y(r->min), X(t), Y(r->max), e->color);
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
				X(t), Y(r->mpps), e->dash ? "white" : e->color);
			if (e->dash)
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" "
					"stroke=\"%s\" stroke-width=\"2\"/>\n", X(t), Y(r->mpps), e->color);
		}
	}

	/* The legend, best first, with the figure at the most threads. */
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#444\">at %u thread%s, best first</text>\n",
		PX1 + 24, PY0 - 4, tmax, tmax > 1 ? "s" : "");
	for (size_t k = 0; k < ns; k++) {
		double y = PY0 + 16 + 22.0 * (double)k;

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"%.1f\"%s%s%s/>\n", PX1 + 24, y, PX1 + 54, y, s[k].color,
			s[k].width, s[k].dash ? " stroke-dasharray=\"" : "", s[k].dash ? s[k].dash : "",
			s[k].dash ? "\"" : "");
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"13\">%s  %.1f</text>\n",
			PX1 + 62, y + 4, s[k].name, s[k].last);
	}
	fprintf(f, "</svg>\n");
#undef X
#undef Y
}
