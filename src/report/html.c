/* src/report/html.c: --format=html, one self-contained page: a per-CPU
 * timeline of the window (sample and event density, the trigger marked) as
 * SVG, and the flame graph of flame.c inlined.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"

#define BINS 300
#define TL_W 1200
#define LEFT 90          /* row labels */
#define ROW_H 14

struct fr_timeline {
	uint64_t t0, t1;
	uint32_t nr_cpus;
	uint32_t *counts;    /* [cpu][2][BINS]: samples, then tracepoint events */
	bool any_events;
};

int fr_timeline__new(uint64_t t0, uint64_t t1, uint32_t nr_cpus, struct fr_timeline **out)
{
	struct fr_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl || !(tl->counts = calloc((size_t)nr_cpus * 2 * BINS + 1, sizeof(*tl->counts)))) {
		free(tl);
		return -ENOMEM;
	}
	tl->t0 = t0;
	tl->t1 = t1 > t0 ? t1 : t0 + 1;
	tl->nr_cpus = nr_cpus;
	*out = tl;
	return 0;
}

void fr_timeline__delete(struct fr_timeline *tl)
{
	if (!tl)
		return;
	free(tl->counts);
	free(tl);
}

static size_t bin(const struct fr_timeline *tl, uint64_t t)
{
	if (t <= tl->t0)
		return 0;
	if (t >= tl->t1)
		return BINS - 1;
	return (size_t)((double)(t - tl->t0) * BINS / (double)(tl->t1 - tl->t0));
}

void fr_timeline__add(struct fr_timeline *tl, uint32_t cpu, uint64_t time, bool tracepoint)
{
	if (cpu >= tl->nr_cpus)
		return;
	tl->counts[((size_t)cpu * 2 + tracepoint) * BINS + bin(tl, time)]++;
	tl->any_events |= tracepoint;
}

static double xpos(const struct fr_timeline *tl, uint64_t t)
{
	double w = TL_W - LEFT - 10;

	if (t <= tl->t0)
		return LEFT;
	if (t >= tl->t1)
		return LEFT + w;
	return LEFT + w * (double)(t - tl->t0) / (double)(tl->t1 - tl->t0);
}

/* One heat row: a rect per non-empty bin, opacity by its share of the max. */
static void row(FILE *f, const struct fr_timeline *tl, const uint32_t *c, uint32_t max,
		const char *what, uint32_t cpu, double y, const char *rgb)
{
	double bw = (TL_W - LEFT - 10.0) / BINS, span = (double)(tl->t1 - tl->t0) / 1e9;

	fprintf(f, "<text x=\"4\" y=\"%.0f\">cpu %u %s</text>\n", y + ROW_H - 3, cpu, what);
	fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"#f0f0f0\"/>\n",
		LEFT, y, TL_W - LEFT - 10, ROW_H - 2);
	for (size_t i = 0; i < BINS; i++) {
		if (!c[i])
			continue;
		fprintf(f, "<rect class=\"bin\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
			"fill=\"%s\" fill-opacity=\"%.2f\"><title>cpu %u, +%.3f s: %u %s</title></rect>\n",
			LEFT + bw * (double)i, y, bw, ROW_H - 2, rgb,
			0.15 + 0.85 * (double)c[i] / (double)max, cpu, span * (double)i / BINS, c[i], what);
	}
}

static void timeline(FILE *f, const struct fr_timeline *tl, const struct fr_html_info *in)
{
	uint32_t per = tl->any_events ? 2 : 1, max[2] = { 1, 1 };
	uint32_t h = 30 + tl->nr_cpus * per * ROW_H + 20;
	double span = (double)(tl->t1 - tl->t0) / 1e9;

	for (size_t i = 0; i < (size_t)tl->nr_cpus * 2 * BINS; i++)
		if (tl->counts[i] > max[(i / BINS) & 1])
			max[(i / BINS) & 1] = tl->counts[i];
	fprintf(f, "<svg id=\"timeline\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana,sans-serif\" "
		"font-size=\"11\">\n", TL_W, h, TL_W, h);
	for (int k = 0; k <= 4; k++) {
		double x = LEFT + (TL_W - LEFT - 10.0) * k / 4;

		fprintf(f, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%u\" stroke=\"#ccc\"/>"
			"<text x=\"%.1f\" y=\"14\" text-anchor=\"middle\">+%.3f s</text>\n", x, x, h - 20,
			x, span * k / 4);
	}
	for (uint32_t cpu = 0; cpu < tl->nr_cpus; cpu++) {
		double y = 24 + (double)cpu * per * ROW_H;

		row(f, tl, &tl->counts[(size_t)cpu * 2 * BINS], max[0], "samples", cpu, y, "#d2452a");
		if (per == 2)
			row(f, tl, &tl->counts[((size_t)cpu * 2 + 1) * BINS], max[1], "events", cpu,
			    y + ROW_H, "#2a6fd2");
	}
	if (in->has_trigger) {
		double x = xpos(tl, in->trigger_ns);

		fprintf(f, "<line id=\"trigger\" x1=\"%.1f\" y1=\"18\" x2=\"%.1f\" y2=\"%u\" "
			"stroke=\"#e00\" stroke-width=\"2\"><title>trigger at %llu.%09llu</title></line>"
			"<text x=\"%.1f\" y=\"%u\" fill=\"#e00\" text-anchor=\"middle\">trigger</text>\n",
			x, x, h - 14, (unsigned long long)(in->trigger_ns / 1000000000ull),
			(unsigned long long)(in->trigger_ns % 1000000000ull), x, h - 3);
	}
	fputs("</svg>\n", f);
}

int fr_html__write(FILE *f, const struct fr_html_info *in, const struct fr_timeline *tl,
		   struct fr_folded *fo)
{
	struct fr_flame_opts fl = { in->event, in->unit, 0, false };
	int err;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>flightrec: ", f);
	fr_xml__string(f, in->file ? in->file : "");
	fputs("</title>\n<style>body{font-family:Verdana,sans-serif;font-size:13px;margin:12px}"
	      "h1{font-size:18px}h2{font-size:15px;margin:18px 0 6px}svg{max-width:100%;height:auto}</style>\n</head><body>\n"
	      "<h1>flightrec report</h1>\n<p>file: ", f);
	fr_xml__string(f, in->file ? in->file : "");
	fprintf(f, "<br>samples: %llu", (unsigned long long)in->samples);
	if (tl)
		fprintf(f, ", window %llu.%09llu to %llu.%09llu (%.3f s)",
			(unsigned long long)(tl->t0 / 1000000000ull),
			(unsigned long long)(tl->t0 % 1000000000ull),
			(unsigned long long)(tl->t1 / 1000000000ull),
			(unsigned long long)(tl->t1 % 1000000000ull), (double)(tl->t1 - tl->t0) / 1e9);
	if (in->has_trigger)
		fprintf(f, "<br>trigger at %llu.%09llu",
			(unsigned long long)(in->trigger_ns / 1000000000ull),
			(unsigned long long)(in->trigger_ns % 1000000000ull));
	fputs("</p>\n<h2>Timeline: samples and events per CPU</h2>\n", f);
	if (tl)
		timeline(f, tl, in);
	if (in->more && (err = in->more(in->more_ctx, f, in)))
		return err;
	fputs("<h2>Flame graph: ", f);
	fr_xml__string(f, in->event ? in->event : "");
	fputs(" (click a frame to zoom, Search to highlight)</h2>\n", f);
	err = fr_flame__svg(fo, &fl, f);
	if (err)
		return err;
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
