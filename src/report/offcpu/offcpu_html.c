/* src/report/offcpu/offcpu_html.c: the HTML page's thread timeline for report
 * --off-cpu: one SVG row per thread, the most off-CPU first, on the page's
 * time axis, each pixel coloured by the state (running, runnable, sleeping,
 * blocked) its thread spent the most of it in, each wait a pixel or wider
 * titled with its waker where the file recorded it, the trigger marked.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/offcpu/offcpu.h"

#define W FR_HTML_TL_W    /* the page's timeline geometry: one time axis */
#define LEFT FR_HTML_LEFT  /* thread labels */
#define ROW_H 12
#define MAX_ROWS 200     /* threads drawn, the most off-CPU first; the page says how many were left out */
#define NPX (W - LEFT - 10)  /* a row's pixel columns */
#define MAX_TITLED 5000  /* waits titled with their waker; the page says how many more */

static const char *const colour[FR_SPAN_NR] = {
	[FR_SPAN_RUNNING] = "#3a9a3a", [FR_SPAN_RUNNABLE] = "#e0402a",
	[FR_SPAN_SLEEPING] = "#5b8fd6", [FR_SPAN_BLOCKED] = "#e39a2b",
};

/* Each drawn row's time per pixel column and state: a pixel takes the
 * state its thread spent the most of it in, so that a busy thread's spans,
 * each narrower than a pixel, still draw (not a blank lane). */
struct draw {
	FILE *f;
	uint64_t t0, t1;
	size_t rows;
	float (*px)[NPX][FR_SPAN_NR];   /* per row */
	const struct fr_thread_time *ord;  /* per row: its thread */
	size_t *row;                    /* per thread index: its row, or SIZE_MAX (not drawn) */
};

static double xpos(const struct draw *d, uint64_t t)
{
	double w = NPX;

	if (t <= d->t0)
		return LEFT;
	if (t >= d->t1)
		return LEFT + w;
	return LEFT + w * (double)(t - d->t0) / (double)(d->t1 - d->t0);
}

/* A span into its row's pixels, each its share of the span's time. */
static int span(void *ctx, size_t ti, const struct fr_thread_time *t, enum fr_span kind,
		uint64_t from, uint64_t to)
{
	struct draw *d = ctx;
	double x0 = xpos(d, from) - LEFT, x1 = xpos(d, to) - LEFT;
	double ns_per_px = (double)(d->t1 - d->t0) / NPX;

	if (d->row[ti] == SIZE_MAX || x1 <= x0)
		return 0;
	ti = d->row[ti];
	for (size_t p = (size_t)x0; p < NPX && (double)p < x1; p++) {
		double a = x0 > (double)p ? x0 : (double)p, b = x1 < (double)(p + 1) ? x1 : (double)(p + 1);

		if (b > a)
			d->px[ti][p][kind] += (float)((b - a) * ns_per_px);
	}
	return 0;
}

static int dominant(const float *v)
{
	int best = -1;

	for (int k = 0; k < FR_SPAN_NR; k++)
		if (v[k] > 0 && (best < 0 || v[k] > v[best]))
			best = k;
	return best;
}

/* Row ti: runs of pixels of one dominant state as one rect each, titled
 * with the time of that state in it. */
static void draw_row(const struct draw *d, size_t ti)
{
	double y = 24 + (double)ti * ROW_H;

	for (size_t p = 0; p < NPX;) {
		int k = dominant(d->px[ti][p]);
		size_t q = p + 1;
		double ns;

		if (k < 0) {
			p++;
			continue;
		}
		ns = d->px[ti][p][k];
		while (q < NPX && dominant(d->px[ti][q]) == k)
			ns += d->px[ti][q++][k];
		fprintf(d->f, "<rect x=\"%zu\" y=\"%.0f\" width=\"%zu\" height=\"%d\" fill=\"%s\">"
			"<title>%u: %s %.3f ms</title></rect>\n", LEFT + p, y, q - p, ROW_H - 2,
			colour[k], d->ord[ti].tid, fr_span_names[k], ns / 1e6);
		p = q;
	}
}

/* Each wait of a drawn row a pixel or wider whose waker is known: a clear
 * rect over it, titled with its stack and its waker's (hovered, it names
 * who ended the wait). */
static int waker_titles(const struct draw *d, struct fr_offcpu *oc, size_t nt)
{
	const struct fr_wakers *wk = fr_offcpu__wakers(oc);
	struct fr_thread_time *r;   /* the threads by tid, then start */
	const struct fr_wait *w;
	size_t nw, titled = 0, more = 0;

	if (!wk)
		return 0;
	if (!(r = malloc((nt + 1) * sizeof(*r))))
		return -ENOMEM;
	if (nt)
		memcpy(r, d->ord, nt * sizeof(*r));
	fr_thread_times__sort(r, nt);
	w = fr_offcpu__waits(oc, &nw);
	for (size_t i = 0; i < nw; i++) {
		const struct fr_thread_time *t = fr_thread_times__at(r, nt, w[i].tid, w[i].start), *k;
		double x0 = xpos(d, w[i].start), x1 = xpos(d, w[i].end);
		char a[160] = "", b[160] = "", line[480];
		struct fr_waker_join j;
		size_t row = t ? d->row[t->index] : SIZE_MAX;

		if (!w[i].waker_tid || !w[i].wake || row == SIZE_MAX || x1 - x0 < 1)
			continue;
		if (titled == MAX_TITLED) {
			more++;
			continue;
		}
		titled++;
		if (!fr_wakers__join(wk, w[i].tid, w[i].start, &j)) {
			fr_wait__where(a, sizeof(a), j.w, j.wn);
			fr_wait__where(b, sizeof(b), j.k, j.kn);
		}
		k = fr_thread_times__at(r, nt, w[i].waker_tid, w[i].wake);
		snprintf(line, sizeof(line), "%u: %s %.3f ms in %s, woken by %u %s in %s", w[i].tid,
			 w[i].state == FR_WAIT_D ? "blocked" : "sleeping",
			 (double)(w[i].end - w[i].start) / 1e6, a[0] ? a : "[no stack]",
			 w[i].waker_tid, k && k->comm ? k->comm : "[unknown]", b[0] ? b : "[no stack]");
		fprintf(d->f, "<rect class=\"woken\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
			"height=\"%d\" fill=\"transparent\"><title>", x0,
			24 + (double)row * ROW_H, x1 - x0, ROW_H - 2);
		fr_xml__string(d->f, line);
		fputs("</title></rect>\n", d->f);
	}
	if (more)
		fprintf(d->f, "<!-- %zu more waits with a waker, not titled -->\n", more);
	free(r);
	return 0;
}

int fr_offcpu__html(struct fr_offcpu *oc, FILE *f, const struct fr_html_info *hi)
{
	size_t nt, rows;
	struct fr_thread_time *ord = fr_offcpu__by_off(oc, &nt);   /* the rows' order */
	struct draw d = { f, hi->t0, hi->t1, 0, NULL, ord, NULL };
	unsigned h;
	bool has_trigger = hi->has_trigger;
	uint64_t trigger_ns = hi->trigger_ns;
	int err;

	d.rows = rows = nt < MAX_ROWS ? nt : MAX_ROWS;
	h = (unsigned)(24 + rows * ROW_H + 24);
	if (d.t1 <= d.t0)   /* no page axis given: the stage's window */
		fr_offcpu__window(oc, &d.t0, &d.t1);
	if (d.t1 <= d.t0)
		d.t1 = d.t0 + 1;
	d.px = calloc(rows + 1, sizeof(*d.px));
	d.row = calloc(nt + 1, sizeof(*d.row));
	if (!d.px || !d.row || !ord) {
		free(d.px);
		free(d.row);
		free(ord);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nt; i++)
		d.row[i] = SIZE_MAX;
	for (size_t r = 0; r < rows; r++)
		d.row[ord[r].index] = r;
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
		double x = LEFT + (double)NPX * k / 4;

		fprintf(f, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%u\" stroke=\"#ccc\"/>"
			"<text x=\"%.1f\" y=\"14\" text-anchor=\"middle\">+%.3f s</text>\n", x, x, h - 20,
			x, (double)(d.t1 - d.t0) / 1e9 * k / 4);
	}
	for (size_t i = 0; i < rows; i++) {
		char label[64];

		snprintf(label, sizeof(label), "%u ", ord[i].tid);
		fprintf(f, "<text x=\"4\" y=\"%.0f\">", 24 + (double)i * ROW_H + ROW_H - 3);
		fr_xml__string(f, label);
		fr_xml__string(f, ord[i].comm ? ord[i].comm : "[unknown]");
		fputs("</text>\n", f);
	}
	err = fr_offcpu__spans(oc, span, &d);
	for (size_t i = 0; i < rows && !err; i++)
		draw_row(&d, i);
	if (!err)
		err = waker_titles(&d, oc, nt);
	free(d.px);
	free(d.row);
	free(ord);
	if (err)
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
