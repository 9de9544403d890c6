/* src/report/fmt/html.c: --format=html, one self-contained page: a timeline of
 * the window (sample and event density per CPU and per thread, the trigger
 * marked) as SVG, the flame graph of flame.c inlined, and the samples of the
 * folded event by time bin, thread and stack, from which the page's script
 * (html_js.c) redraws the flame graph and the tables for a range chosen on
 * the timeline.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"
#include "src/util.h"
#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"

#define BINS 300
#define TL_W FR_HTML_TL_W
#define LEFT FR_HTML_LEFT  /* row labels */
#define ROW_H 14
#define MAX_LANES 32     /* thread rows drawn: the busiest */

struct lane {            /* a thread under one name */
	uint32_t tid;
	const char *comm;
	uint64_t total;
	uint32_t counts[BINS];
};

struct hnode {           /* a frame under its caller: a stack, by its leaf */
	uint32_t parent;     /* index + 1, 0: the root */
	const struct fr_sym *sym;
};

struct cell {            /* the folded event's weight of one stack of one thread in one bin */
	uint32_t bin, lane, node;
	uint64_t weight;
};

#define MAX_HOLES 64     /* losses marked on the timeline: the first ones */

struct hole {            /* a LOST record: records lost on a CPU at a time */
	uint32_t cpu;
	uint64_t time, lost;
};

struct fr_timeline {
	uint64_t t0, t1;
	struct hole holes[MAX_HOLES];
	size_t nr_holes;
	struct hole offline[MAX_HOLES];   /* time: from, lost: to (0: to the end) */
	size_t nr_offline;
	uint64_t lost;       /* every loss, marked or not */
	uint32_t nr_cpus;
	uint32_t *counts;    /* [cpu][2][BINS]: samples, then tracepoint events */
	bool any_events, by_period;
	struct lane *lanes;
	size_t nr_lanes, lanes_cap;
	struct fr_hmap lane_index;
	struct hnode *nodes;
	size_t nr_nodes, nodes_cap;
	struct fr_hmap node_index;
	struct cell *cells;
	size_t nr_cells, cells_cap;
	struct fr_hmap cell_index;
};

int fr_timeline__new(uint64_t t0, uint64_t t1, uint32_t nr_cpus, bool by_period,
		     struct fr_timeline **out)
{
	struct fr_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl || !(tl->counts = calloc((size_t)nr_cpus * 2 * BINS + 1, sizeof(*tl->counts)))) {
		free(tl);
		return -ENOMEM;
	}
	tl->t0 = t0;
	tl->t1 = t1 > t0 ? t1 : t0 + 1;
	tl->nr_cpus = nr_cpus;
	tl->by_period = by_period;
	*out = tl;
	return 0;
}

void fr_timeline__offline(struct fr_timeline *tl, uint32_t cpu, uint64_t from, uint64_t to)
{
	if (tl->nr_offline < MAX_HOLES && cpu < tl->nr_cpus)
		tl->offline[tl->nr_offline++] = (struct hole){ cpu, from, to };
}

void fr_timeline__lost(struct fr_timeline *tl, uint32_t cpu, uint64_t time, uint64_t lost)
{
	tl->lost = fr_u64__sat_add(tl->lost, lost);
	if (tl->nr_holes < MAX_HOLES)
		tl->holes[tl->nr_holes++] = (struct hole){ cpu, time, lost };
}

void fr_timeline__delete(struct fr_timeline *tl)
{
	if (!tl)
		return;
	free(tl->counts);
	free(tl->lanes);
	free(tl->nodes);
	free(tl->cells);
	fr_hmap__exit(&tl->lane_index);
	fr_hmap__exit(&tl->node_index);
	fr_hmap__exit(&tl->cell_index);
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

/* The index of the thread tid named comm, added on first use; -ENOMEM. */
static long lane_of(struct fr_timeline *tl, uint32_t tid, const char *comm)
{
	uint64_t h = fr_hash__str(fr_hash__u64(tid), comm);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&tl->lane_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&tl->lane_index, &it, &i))
		if (tl->lanes[i].tid == tid && !strcmp(tl->lanes[i].comm, comm))
			return i;
	if (tl->nr_lanes >= UINT32_MAX ||
	    fr_grow(&tl->lanes, &tl->lanes_cap, tl->nr_lanes + 1, sizeof(*tl->lanes), 16) ||
	    fr_hmap__add(&tl->lane_index, h, (uint32_t)tl->nr_lanes))
		return -ENOMEM;
	memset(&tl->lanes[tl->nr_lanes], 0, sizeof(*tl->lanes));
	tl->lanes[tl->nr_lanes].tid = tid;
	tl->lanes[tl->nr_lanes].comm = comm;
	return (long)tl->nr_lanes++;
}

/* The node of sym under parent, added on first use: index + 1; 0 on ENOMEM. */
static uint32_t node_of(struct fr_timeline *tl, uint32_t parent, const struct fr_sym *sym)
{
	uint64_t h = fr_hash__mix(fr_hash__u64(parent), (uint64_t)(uintptr_t)sym);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&tl->node_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&tl->node_index, &it, &i))
		if (tl->nodes[i].parent == parent && tl->nodes[i].sym == sym)
			return i + 1;
	if (tl->nr_nodes >= UINT32_MAX - 1 ||
	    fr_grow(&tl->nodes, &tl->nodes_cap, tl->nr_nodes + 1, sizeof(*tl->nodes), 256) ||
	    fr_hmap__add(&tl->node_index, h, (uint32_t)tl->nr_nodes))
		return 0;
	tl->nodes[tl->nr_nodes] = (struct hnode){ parent, sym };
	return (uint32_t)++tl->nr_nodes;
}

static int add_cell(struct fr_timeline *tl, uint32_t b, uint32_t lane, uint32_t node, uint64_t w)
{
	uint64_t h = fr_hash__mix(fr_hash__mix(fr_hash__u64(b), lane), node);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&tl->cell_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&tl->cell_index, &it, &i))
		if (tl->cells[i].bin == b && tl->cells[i].lane == lane && tl->cells[i].node == node) {
			tl->cells[i].weight += w;
			return 0;
		}
	if (tl->nr_cells >= UINT32_MAX ||
	    fr_grow(&tl->cells, &tl->cells_cap, tl->nr_cells + 1, sizeof(*tl->cells), 256) ||
	    fr_hmap__add(&tl->cell_index, h, (uint32_t)tl->nr_cells))
		return -ENOMEM;
	tl->cells[tl->nr_cells++] = (struct cell){ b, lane, node, w };
	return 0;
}

int fr_timeline__add(struct fr_timeline *tl, const struct fr_rsample *s, uint64_t time,
		     bool tracepoint, bool fold)
{
	size_t b = bin(tl, time), n = s->nr_frames < FR_MAX_FRAMES ? s->nr_frames : FR_MAX_FRAMES;
	long lane = lane_of(tl, s->tid, s->comm ? s->comm : "");
	uint32_t node = 0;

	if (s->cpu < tl->nr_cpus)
		tl->counts[((size_t)s->cpu * 2 + tracepoint) * BINS + b]++;
	tl->any_events |= tracepoint;
	if (lane < 0)
		return (int)lane;
	tl->lanes[lane].counts[b]++;
	tl->lanes[lane].total++;
	if (!fold)
		return 0;
	for (size_t i = n; i-- > 0;)
		if (!(node = node_of(tl, node, s->frames[i].sym)))
			return -ENOMEM;
	return add_cell(tl, (uint32_t)b, (uint32_t)lane, node, tl->by_period ? s->period : 1);
}

int fr_timeline__wait(struct fr_timeline *tl, const struct fr_rsample *s)
{
	size_t n = s->nr_frames < FR_MAX_FRAMES ? s->nr_frames : FR_MAX_FRAMES;
	uint64_t from = s->time > tl->t0 ? s->time : tl->t0, end = s->time + s->period, left;
	long lane = lane_of(tl, s->tid, s->comm ? s->comm : "");
	uint32_t node = 0;
	double span = (double)(tl->t1 - tl->t0) / BINS;
	int err = 0;

	if (lane < 0)
		return (int)lane;
	if (end > tl->t1)
		end = tl->t1;
	if (end <= from || !span)
		return 0;
	for (size_t i = n; i-- > 0;)
		if (!(node = node_of(tl, node, s->frames[i].sym)))
			return -ENOMEM;
	left = end - from;
	for (size_t b = bin(tl, from); b < BINS && left && !err; b++) {
		uint64_t bend = b + 1 == BINS ? tl->t1 : tl->t0 + (uint64_t)(span * (double)(b + 1));
		uint64_t part = (bend < end ? bend : end) - from;

		if (bend <= from)
			continue;
		part = part > left ? left : part;
		err = add_cell(tl, (uint32_t)b, (uint32_t)lane, node, part);
		from += part;
		left -= part;
	}
	return err;
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
		const char *what, const char *name, double y, const char *rgb)
{
	double bw = (TL_W - LEFT - 10.0) / BINS, span = (double)(tl->t1 - tl->t0) / 1e9;
	char label[32];

	snprintf(label, sizeof(label), "%s", name);   /* what fits LEFT px */
	fprintf(f, "<text x=\"4\" y=\"%.0f\">", y + ROW_H - 3);
	fr_xml__string(f, label);
	fprintf(f, " %s<title>", what);
	fr_xml__string(f, name);
	fprintf(f, "</title></text>\n<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" "
		"fill=\"#f0f0f0\"/>\n", LEFT, y, TL_W - LEFT - 10, ROW_H - 2);
	for (size_t i = 0; i < BINS; i++) {
		if (!c[i])
			continue;
		fprintf(f, "<rect class=\"bin\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" "
			"fill=\"%s\" fill-opacity=\"%.2f\"><title>", LEFT + bw * (double)i, y, bw,
			ROW_H - 2, rgb, 0.15 + 0.85 * (double)c[i] / (double)max);
		fr_xml__string(f, name);
		fprintf(f, ", +%.3f s: %u %s</title></rect>\n", span * (double)i / BINS, c[i], what);
	}
}

static const struct fr_timeline *sort_tl;

static int cmp_lane(const void *a, const void *b)
{
	const struct lane *x = &sort_tl->lanes[*(const uint32_t *)a];
	const struct lane *y = &sort_tl->lanes[*(const uint32_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The thread rows from y on, the busiest first: how many were drawn. */
static uint32_t thread_rows(FILE *f, const struct fr_timeline *tl, double y)
{
	uint32_t *order = calloc(tl->nr_lanes + 1, sizeof(*order)), n = 0, max = 1;
	char name[64];

	if (!order)
		return 0;
	for (uint32_t i = 0; i < tl->nr_lanes; i++)
		order[i] = i;
	sort_tl = tl;
	qsort(order, tl->nr_lanes, sizeof(*order), cmp_lane);
	for (size_t i = 0; i < tl->nr_lanes; i++)
		for (size_t b = 0; b < BINS; b++)
			max = tl->lanes[i].counts[b] > max ? tl->lanes[i].counts[b] : max;
	for (; n < tl->nr_lanes && n < MAX_LANES; n++) {
		const struct lane *l = &tl->lanes[order[n]];

		snprintf(name, sizeof(name), "%s %u", l->comm, l->tid);
		fputs("<g class=\"lane\">", f);
		row(f, tl, l->counts, max, "", name, y + (double)n * ROW_H, "#8a4fc2");
		fputs("</g>\n", f);
	}
	free(order);
	return n;
}

static void timeline(FILE *f, const struct fr_timeline *tl, const struct fr_html_info *in)
{
	uint32_t per = tl->any_events ? 2 : 1, max[2] = { 1, 1 };
	uint32_t lanes = tl->nr_lanes < MAX_LANES ? (uint32_t)tl->nr_lanes : MAX_LANES;
	uint32_t h = 30 + tl->nr_cpus * per * ROW_H + 10 + lanes * ROW_H + 20;
	double span = (double)(tl->t1 - tl->t0) / 1e9;
	char name[32];

	for (size_t i = 0; i < (size_t)tl->nr_cpus * 2 * BINS; i++)
		if (tl->counts[i] > max[(i / BINS) & 1])
			max[(i / BINS) & 1] = tl->counts[i];
	fprintf(f, "<svg id=\"timeline\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana,sans-serif\" "
		"font-size=\"11\" data-left=\"%d\" data-right=\"%d\" data-bins=\"%d\" "
		"data-span=\"%.9f\">\n", TL_W, h, TL_W, h, LEFT, TL_W - 10, BINS, span);
	for (int k = 0; k <= 4; k++) {
		double x = LEFT + (TL_W - LEFT - 10.0) * k / 4;

		fprintf(f, "<line x1=\"%.1f\" y1=\"20\" x2=\"%.1f\" y2=\"%u\" stroke=\"#ccc\"/>"
			"<text x=\"%.1f\" y=\"14\" text-anchor=\"%s\">+%.3f s</text>\n", x, x, h - 20,
			x, k == 4 ? "end" : "middle", span * k / 4);
	}
	for (uint32_t cpu = 0; cpu < tl->nr_cpus; cpu++) {
		double y = 24 + (double)cpu * per * ROW_H;

		snprintf(name, sizeof(name), "cpu %u", cpu);
		row(f, tl, &tl->counts[(size_t)cpu * 2 * BINS], max[0], "samples", name, y, "#d2452a");
		if (per == 2)
			row(f, tl, &tl->counts[((size_t)cpu * 2 + 1) * BINS], max[1], "events", name,
			    y + ROW_H, "#2a6fd2");
	}
	thread_rows(f, tl, 24 + (double)tl->nr_cpus * per * ROW_H + 10);
	for (size_t i = 0; i < tl->nr_offline; i++) {   /* a CPU offline: a grey band */
		const struct hole *o = &tl->offline[i];
		uint64_t to = o->lost && o->lost < tl->t1 ? o->lost : tl->t1;
		double x0 = xpos(tl, o->time > tl->t0 ? o->time : tl->t0), x1 = xpos(tl, to);

		if (to <= tl->t0 || o->time >= tl->t1)
			continue;
		fprintf(f, "<rect class=\"offline\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%u\" fill=\"#888\" fill-opacity=\"0.35\"><title>cpu %u offline "
			"from %llu.%09llu%s: nothing recorded on it</title></rect>\n", x0,
			24 + (double)o->cpu * per * ROW_H, x1 - x0 > 1 ? x1 - x0 : 1, per * ROW_H,
			o->cpu, (unsigned long long)(o->time / 1000000000ull),
			(unsigned long long)(o->time % 1000000000ull), o->lost ? "" : " to the end");
	}
	for (size_t i = 0; i < tl->nr_holes; i++) {   /* a loss: an orange mark on its CPU's row */
		const struct hole *o = &tl->holes[i];
		double x = xpos(tl, o->time), y = 24 + (double)(o->cpu < tl->nr_cpus ? o->cpu : 0) *
						      per * ROW_H;

		fprintf(f, "<rect class=\"hole\" x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"%u\" "
			"fill=\"#f90\"><title>cpu %u: %llu records lost after %llu.%09llu</title></rect>\n",
			x - 1, y, per * ROW_H, o->cpu, (unsigned long long)o->lost,
			(unsigned long long)(o->time / 1000000000ull),
			(unsigned long long)(o->time % 1000000000ull));
	}
	if (in->has_trigger) {
		double x = xpos(tl, in->trigger_ns);

		/* the label inside the picture, at either end too */
		fprintf(f, "<line id=\"trigger\" x1=\"%.1f\" y1=\"18\" x2=\"%.1f\" y2=\"%u\" "
			"stroke=\"#e00\" stroke-width=\"2\"><title>trigger at %llu.%09llu</title></line>"
			"<text x=\"%.1f\" y=\"%u\" fill=\"#e00\" text-anchor=\"%s\">trigger</text>\n",
			x, x, h - 14, (unsigned long long)(in->trigger_ns / 1000000000ull),
			(unsigned long long)(in->trigger_ns % 1000000000ull), x, h - 3,
			x > TL_W - 40 ? "end" : x < LEFT + 30 ? "start" : "middle");
	}
	fprintf(f, "<rect id=\"sel\" x=\"0\" y=\"20\" width=\"0\" height=\"%u\" fill=\"#36c\" "
		"fill-opacity=\"0.18\" stroke=\"#36c\" style=\"display:none\"/>\n</svg>\n", h - 40);
}

/* The folded event's samples for the page's script: threads, the stack
 * tree, and the weight per (bin, thread, stack). */
static void data(FILE *f, const struct fr_timeline *tl, const struct fr_html_info *in)
{
	fputs("<script>\nvar FRD={\"unit\":", f);
	fr_json__string_html(f, in->unit ? in->unit : "samples");
	fputs(",\n\"lanes\":[", f);
	for (size_t i = 0; i < tl->nr_lanes; i++) {
		fprintf(f, "%s[%u,", i ? "," : "", tl->lanes[i].tid);
		fr_json__string_html(f, tl->lanes[i].comm);
		fputc(']', f);
	}
	fputs("],\n\"nodes\":[", f);
	for (size_t i = 0; i < tl->nr_nodes; i++) {
		fprintf(f, "%s[%u,", i ? ",\n" : "", tl->nodes[i].parent);
		fr_json__string_html(f, tl->nodes[i].sym->name);
		fputc(']', f);
	}
	fputs("],\n\"cells\":[", f);
	for (size_t i = 0; i < tl->nr_cells; i++)
		fprintf(f, "%s[%u,%u,%u,%llu]", i ? (i % 8 ? "," : ",\n") : "", tl->cells[i].bin,
			tl->cells[i].lane, tl->cells[i].node, (unsigned long long)tl->cells[i].weight);
	fputs("]};\n</script>\n", f);
}

int fr_html__write(FILE *f, const struct fr_html_info *in, const struct fr_timeline *tl,
		   struct fr_folded *fo)
{
	struct fr_flame_opts fl = { .title = in->event, .unit = in->unit };
	int err;

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>flightrec: ", f);
	fr_xml__string(f, in->file ? in->file : "");
	fputs("</title>\n<style>body{font-family:Verdana,sans-serif;font-size:13px;margin:12px}"
	      "h1{font-size:18px}h2{font-size:15px;margin:18px 0 6px}svg{max-width:100%;height:auto}"
	      "#timeline{cursor:crosshair;user-select:none}table{border-collapse:collapse;"
	      "display:inline-table;vertical-align:top;margin-right:24px}td,th{padding:1px 8px;"
	      "text-align:right}td:last-child,th:last-child{text-align:left}"
	      "tr:nth-child(even){background:#f4f4f4}</style>\n</head><body>\n"
	      "<h1>flightrec report</h1>\n<p>file: ", f);
	fr_xml__string(f, in->file ? in->file : "");
	fprintf(f, "<br>samples: %llu", (unsigned long long)in->samples);
	if (tl)
		fprintf(f, ", window %llu.%09llu to %llu.%09llu (%.3f s)",
			(unsigned long long)(tl->t0 / 1000000000ull),
			(unsigned long long)(tl->t0 % 1000000000ull),
			(unsigned long long)(tl->t1 / 1000000000ull),
			(unsigned long long)(tl->t1 % 1000000000ull), (double)(tl->t1 - tl->t0) / 1e9);
	if (tl && tl->lost)
		fprintf(f, "<br><b>lost: %llu records while recording (orange marks: where)</b>",
			(unsigned long long)tl->lost);
	if (in->has_trigger)
		fprintf(f, "<br>trigger at %llu.%09llu",
			(unsigned long long)(in->trigger_ns / 1000000000ull),
			(unsigned long long)(in->trigger_ns % 1000000000ull));
	fputs("</p>\n<h2>Timeline: samples and events per CPU, samples per thread "
	      "(drag to choose a range, click to reset)</h2>\n", f);
	if (tl)
		timeline(f, tl, in);
	if (in->more) {   /* on the same time axis */
		struct fr_html_info hi = *in;

		if (tl) {
			hi.t0 = tl->t0;
			hi.t1 = tl->t1;
		}
		if ((err = in->more(in->more_ctx, f, &hi)))
			return err;
	}
	fputs("<p id=\"range\">range: the whole window</p>\n", f);
	if (tl)   /* the range's redraw of the threads named so */
		fputs("<p>threads: <input id=\"filter\" size=\"30\" placeholder=\"comm or tid (part of)\">"
		      " (the flame graph and the tables of the range: these threads only)</p>\n", f);
	fputs("<h2>Flame graph: ", f);
	fr_xml__string(f, in->event ? in->event : "");
	fputs(" (click a frame to zoom, Search to highlight)</h2>\n", f);
	err = fr_flame__svg(fo, &fl, f);
	if (err)
		return err;
	fputs("<h2>Functions and threads in the range</h2>\n<div id=\"tables\"></div>\n", f);
	if (tl) {
		data(f, tl, in);
		fprintf(f, "<script>\n%s</script>\n", fr_html_script);
	}
	fputs("</body></html>\n", f);
	return ferror(f) ? -EIO : 0;
}
