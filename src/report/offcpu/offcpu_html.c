/* src/report/offcpu/offcpu_html.c: the HTML page's thread timeline for report
 * --off-cpu: one SVG row per thread over the window, its running, runnable,
 * sleeping and blocked spans in colour, the trigger marked.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/offcpu/offcpu.h"

#define W 1200
#define LEFT 200         /* thread labels */
#define ROW_H 12
#define MAX_ROWS 200     /* threads drawn; the page says how many were left out */
#define MIN_PX 0.25      /* narrower spans are not drawn (running shows beneath) */

static const char *const colour[FR_SPAN_NR] = {
	[FR_SPAN_RUNNING] = "#3a9a3a", [FR_SPAN_RUNNABLE] = "#e0402a",
	[FR_SPAN_SLEEPING] = "#5b8fd6", [FR_SPAN_BLOCKED] = "#e39a2b",
};

struct draw {
	FILE *f;
	uint64_t t0, t1;
};

static double xpos(const struct draw *d, uint64_t t)
{
	double w = W - LEFT - 10;

	if (t <= d->t0)
		return LEFT;
	if (t >= d->t1)
		return LEFT + w;
	return LEFT + w * (double)(t - d->t0) / (double)(d->t1 - d->t0);
}

static int span(void *ctx, size_t ti, const struct fr_thread_time *t, enum fr_span kind,
		uint64_t from, uint64_t to)
{
	struct draw *d = ctx;
	double x0 = xpos(d, from), x1 = xpos(d, to), y = 24 + (double)ti * ROW_H;

	if (ti >= MAX_ROWS || x1 - x0 < MIN_PX)
		return 0;
	fprintf(d->f, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
		"<title>%u: %s %.3f ms</title></rect>\n", x0, y, x1 - x0, ROW_H - 2, colour[kind],
		t->tid, fr_span_names[kind], (double)(to - from) / 1e6);
	return ferror(d->f) ? -EIO : 0;
}

int fr_offcpu__html(struct fr_offcpu *oc, FILE *f, bool has_trigger, uint64_t trigger_ns)
{
	size_t nt = fr_offcpu__nr_threads(oc), rows = nt < MAX_ROWS ? nt : MAX_ROWS;
	struct draw d = { f, 0, 0 };
	unsigned h = (unsigned)(24 + rows * ROW_H + 24);
	int err;

	fr_offcpu__window(oc, &d.t0, &d.t1);
	if (d.t1 <= d.t0)
		d.t1 = d.t0 + 1;
	fprintf(f, "<h2>Threads: running, runnable, sleeping, blocked on I/O (--off-cpu)</h2>\n<p>");
	for (int k = 0; k < FR_SPAN_NR; k++)
		fprintf(f, "<span style=\"color:%s\">&#9632;</span> %s &nbsp; ", colour[k],
			fr_span_names[k]);
	if (nt > rows)
		fprintf(f, "<br>the first %zu of %zu threads", rows, nt);
	fprintf(f, "</p>\n<svg id=\"threads\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana,sans-serif\" "
		"font-size=\"10\">\n", W, h, W, h);
	for (int k = 0; k <= 4; k++) {
		double x = LEFT + (W - LEFT - 10.0) * k / 4;

		fprintf(f, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%u\" stroke=\"#ccc\"/>"
			"<text x=\"%.1f\" y=\"14\" text-anchor=\"middle\">+%.3f s</text>\n", x, x, h - 20,
			x, (double)(d.t1 - d.t0) / 1e9 * k / 4);
	}
	for (size_t i = 0; i < rows; i++) {
		struct fr_thread_time t;
		char label[64];

		fr_offcpu__thread(oc, i, &t);
		snprintf(label, sizeof(label), "%u ", t.tid);
		fprintf(f, "<text x=\"4\" y=\"%.0f\">", 24 + (double)i * ROW_H + ROW_H - 3);
		fr_xml__string(f, label);
		fr_xml__string(f, t.comm ? t.comm : "[unknown]");
		fputs("</text>\n", f);
	}
	if ((err = fr_offcpu__spans(oc, span, &d)))
		return err;
	if (has_trigger) {
		double x = xpos(&d, trigger_ns);

		fprintf(f, "<line x1=\"%.1f\" y1=\"18\" x2=\"%.1f\" y2=\"%u\" stroke=\"#e00\" "
			"stroke-width=\"2\"><title>trigger at %llu.%09llu</title></line>"
			"<text x=\"%.1f\" y=\"%u\" fill=\"#e00\" text-anchor=\"middle\">trigger</text>\n",
			x, x, h - 14, (unsigned long long)(trigger_ns / 1000000000ull),
			(unsigned long long)(trigger_ns % 1000000000ull), x, h - 3);
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
