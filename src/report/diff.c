/* src/report/diff.c: `flightrec diff`: two profiles (two files, or one file
 * split at its trigger or a time) as rows of the report's keys or stacks with
 * the baseline share, the new share, the delta and a two-proportion z-test on
 * the sample counts, and the differential flame graph's colours.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hmap.h"
#include "src/util.h"
#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"
#include "src/report/report.h"

#define SEP '\x1f'   /* between the parts of a row's key */

struct row {
	char *key;
	uint64_t n[2], w[2];    /* samples, weight: baseline, new */
	double z, p, delta;     /* delta: new share - baseline share */
	bool sig;
};

struct table {
	struct row *rows;
	size_t nr, cap;
	struct fr_hmap index;
	double zcrit;           /* |z| at least this: significant */
	double maxdelta;        /* largest |delta| of the significant rows */
};

/* One side of the comparison. */
struct side {
	struct fr_hist *hist;
	struct fr_folded *folded;
	uint64_t samples, weight, first, last;
};

struct pass {
	const struct fr_diff_opts *o;
	struct fr_reader *rd;
	struct fr_resolver *res;
	const struct fr_file_event *ev;
	struct side *sides[2];
	int split;                  /* 1: by time at split_ns, else all to sides[0] */
	uint64_t split_ns;
	uint64_t lost;              /* PERF_RECORD_LOST counts, saturated */
	int err;
};

/* ---- the test ---------------------------------------------------------- */

int fr_diff__ztest(uint64_t a, uint64_t na, uint64_t b, uint64_t nb, double *z, double *p)
{
	double p1, p2, pool, se;

	if (!na || !nb || a > na || b > nb)
		return -EINVAL;
	p1 = (double)a / (double)na;
	p2 = (double)b / (double)nb;
	pool = ((double)a + (double)b) / ((double)na + (double)nb);
	se = sqrt(pool * (1 - pool) * (1 / (double)na + 1 / (double)nb));
	if (se == 0) {          /* never or always in both: no difference to test */
		*z = 0;
		*p = 1;
		return 0;
	}
	*z = (p2 - p1) / se;
	*p = erfc(fabs(*z) / sqrt(2.0));
	return 0;
}

double fr_diff__zcrit(double alpha)
{
	double lo = 0, hi = 40;

	if (!(alpha > 0 && alpha < 1))
		return alpha >= 1 ? 0 : hi;
	for (int i = 0; i < 200; i++) {   /* erfc(z/sqrt 2) falls with z */
		double mid = (lo + hi) / 2;

		if (erfc(mid / sqrt(2.0)) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* ---- the table of rows -------------------------------------------------- */

static struct row *row_of(struct table *t, const char *key)
{
	uint64_t h = fr_hash__str(0, key);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&t->index, h, &it, &i); ok; ok = fr_hmap__next(&t->index, &it, &i))
		if (!strcmp(t->rows[i].key, key))
			return &t->rows[i];
	if (t->nr >= UINT32_MAX - 1 || fr_grow(&t->rows, &t->cap, t->nr + 1, sizeof(*t->rows), 256))
		return NULL;
	t->rows[t->nr] = (struct row){ .key = strdup(key) };
	if (!t->rows[t->nr].key)
		return NULL;
	if (fr_hmap__add(&t->index, h, (uint32_t)t->nr)) {
		free(t->rows[t->nr].key);
		return NULL;
	}
	return &t->rows[t->nr++];
}

static void table_exit(struct table *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->rows[i].key);
	free(t->rows);
	fr_hmap__exit(&t->index);
}

/* Into the growing buffer *buf at *len: s, then sep if sep. */
static int put(char **buf, size_t *cap, size_t *len, const char *s, char sep)
{
	size_t n = strlen(s);

	if (fr_grow(buf, cap, *len + n + 2, 1, 256))
		return -ENOMEM;
	memcpy(*buf + *len, s, n);
	*len += n;
	if (sep)
		(*buf)[(*len)++] = sep;
	(*buf)[*len] = '\0';
	return 0;
}

struct add_ctx {
	struct table *t;
	int side;
	bool prefixes;          /* every prefix of a stack its own row (the flame graph) */
	char *buf;
	size_t cap;
};

static int add_hist_row(void *ctx, const char *const *text, int nr_keys, uint64_t samples,
			uint64_t weight)
{
	struct add_ctx *a = ctx;
	size_t len = 0;
	struct row *r;

	for (int k = 0; k < nr_keys; k++)
		if (put(&a->buf, &a->cap, &len, text[k], k + 1 < nr_keys ? SEP : 0))
			return -ENOMEM;
	if (!(r = row_of(a->t, len ? a->buf : "")))
		return -ENOMEM;
	r->n[a->side] += samples;
	r->w[a->side] += weight;
	return 0;
}

/* A stack as a row ("comm SEP root SEP ... SEP leaf"), or as every prefix
 * of it (the flame graph's frames: inclusive weights). */
static int add_stack_row(void *ctx, const char *comm, const struct fr_sym *const *frames, size_t n,
			 uint64_t weight, uint64_t samples, uint64_t period)
{
	struct add_ctx *a = ctx;
	size_t len = 0;
	struct row *r;

	(void)period;
	if (put(&a->buf, &a->cap, &len, comm, 0))
		return -ENOMEM;
	for (size_t i = n + 1; i-- > 0;) {
		if (a->prefixes || i == 0) {
			if (!(r = row_of(a->t, a->buf)))
				return -ENOMEM;
			r->n[a->side] += samples;
			r->w[a->side] += weight;
		}
		if (i && (put(&a->buf, &a->cap, &len, "", SEP) ||
			  put(&a->buf, &a->cap, &len, frames[i - 1]->name, 0)))
			return -ENOMEM;
	}
	return 0;
}

/* Shares, deltas and the test of every row; significant: p below alpha over
 * the number of rows (Bonferroni). */
static void score(struct table *t, struct side *const *s, double alpha)
{
	t->zcrit = fr_diff__zcrit(t->nr ? alpha / (double)t->nr : alpha);
	t->maxdelta = 0;
	for (size_t i = 0; i < t->nr; i++) {
		struct row *r = &t->rows[i];
		double s0 = s[0]->weight ? (double)r->w[0] / (double)s[0]->weight : 0;
		double s1 = s[1]->weight ? (double)r->w[1] / (double)s[1]->weight : 0;

		r->delta = s1 - s0;
		r->z = 0;
		r->p = 1;
		fr_diff__ztest(r->n[0], s[0]->samples, r->n[1], s[1]->samples, &r->z, &r->p);
		r->sig = fabs(r->z) >= t->zcrit;
		if (r->sig && fabs(r->delta) > t->maxdelta)
			t->maxdelta = fabs(r->delta);
	}
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->sig != y->sig)
		return x->sig ? -1 : 1;
	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) > fabs(y->delta) ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* ---- one pass over a file ---------------------------------------------- */

static int pass_cb(void *ctx, const struct fr_rec *r)
{
	struct pass *ps = ctx;
	struct fr_rsample rs;
	struct side *sd;
	int err = 0;

	if (!r->event)
		return 0;
	if (r->h->type == PERF_RECORD_LOST) {
		struct fr_lost l;

		if (!fr_record__lost(r->h, &l))
			ps->lost = fr_u64__sat_add(ps->lost, l.lost);
		return 0;
	}
	if (r->kind == FR_STREAM_SIDEBAND)
		err = fr_resolver__sideband(ps->res, r);
	else if (r->h->type == PERF_RECORD_SAMPLE && r->event == ps->ev && r->sample) {
		sd = ps->sides[ps->split && r->time >= ps->split_ns];
		err = fr_resolver__sample(ps->res, r, r->sample, true, &rs);
		if (!err && sd->hist)
			err = fr_hist__add(sd->hist, &rs);
		if (!err && sd->folded)
			err = fr_folded__add(sd->folded, &rs);
		if (!err) {
			if (!sd->samples++)
				sd->first = r->time;
			sd->last = r->time;
			sd->weight += ps->o->hist.period ? rs.period : 1;
		}
	}
	if (err) {
		ps->err = err;
		return 1;
	}
	return 0;
}

/* The sampled event of rd named name, else the first sampled one. */
static const struct fr_file_event *pick_event(struct fr_reader *rd, const char *name)
{
	const struct fr_file_event *first = NULL;

	for (size_t k = 0; k < fr_reader__nr_events(rd); k++) {
		const struct fr_file_event *e = fr_reader__event(rd, k);

		if (e->flags & FR_EVENT_SIDEBAND)
			continue;
		if (name && !strcmp(e->name, name))
			return e;
		if (!first)
			first = e;
	}
	return name ? NULL : first;
}

static int side_new(const struct fr_diff_opts *o, struct side *s)
{
	*s = (struct side){ 0 };
	if (!o->hist.callchains && !o->flamegraph && fr_hist__new(&o->hist, &s->hist))
		return -ENOMEM;
	if ((o->hist.callchains || o->flamegraph) && fr_folded__new(o->hist.period, &s->folded))
		return -ENOMEM;
	return 0;
}

static void side_delete(struct side *s)
{
	fr_hist__delete(s->hist);
	fr_folded__delete(s->folded);
}

/* Read path into sides (two when split); *event: the event's name, in and
 * out (NULL: the first sampled event). Returns an exit code, said. */
/* ps's reader and resolver stay open: the sides' symbols are theirs. */
static int read_file(const struct fr_diff_opts *o, const char *path, struct side *a, struct side *b,
		     const char **event, char *evname, size_t evlen, struct pass *pp)
{
	struct pass ps = { .o = o, .sides = { a, b ? b : a } };
	struct fr_symbolizer_opts so = o->sym;
	int ret = fr_input__open(path, &ps.rd), err;

	if (ret)
		return ret;
	if (!(ps.ev = pick_event(ps.rd, *event)) && o->event) {
		fr_err(path, "no event %s in the file", o->event);
		ret = FR_EXIT_USAGE;
		goto out;
	}
	if (!ps.ev)
		ps.ev = pick_event(ps.rd, NULL);
	if (!ps.ev) {
		fr_err(path, "no sampled event in the file");
		ret = FR_EXIT_ERROR;
		goto out;
	}
	snprintf(evname, evlen, "%s", ps.ev->name);
	*event = evname;
	if (o->hist.callchains && !(ps.ev->attr.sample_type &
				    (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER))) {
		fr_err("-g", "%s has no call chains (record with -g or --call-graph dwarf)", path);
		ret = FR_EXIT_USAGE;
		goto out;
	}
	if (b) {
		ps.split = 1;
		ps.split_ns = o->split_ns;
		if (o->split_trigger && !fr_input__trigger_time(ps.rd, &ps.split_ns)) {
			fr_err(path, "the file has no trigger (TRIGGER blob): split it with --split-at");
			ret = FR_EXIT_USAGE;
			goto out;
		}
	}
	so.no_srcline = true;
	for (int k = 0; k < o->hist.nr_keys; k++)
		so.no_srcline &= o->hist.keys[k] != FR_KEY_SRCLINE;
	so.no_inline |= so.no_srcline && !o->hist.callchains && !o->flamegraph;
	if ((err = fr_resolver__new(ps.rd, &so, &ps.res))) {
		fr_err(path, "%s", strerror(-err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	fr_resolver__leaf_only(ps.res, !o->hist.callchains && !o->flamegraph);
	err = fr_reader__for_each(ps.rd, pass_cb, &ps);
	if (ps.err) {
		fr_err(path, "%s", strerror(-ps.err));
		ret = FR_EXIT_ERROR;
	} else {
		ret = fr_input__walk_verdict(ps.rd, path, err, "compared");
	}
	if (b && !ret && (!a->samples || !b->samples)) {
		fr_err(path, "no samples %s the split point", a->samples ? "after" : "before");
		ret = FR_EXIT_ERROR;
	} else if (!b && !ret && !a->samples) {
		fr_err(path, "no samples of %s: nothing to compare", ps.ev ? ps.ev->name : "its event");
		ret = FR_EXIT_ERROR;
	}
	/* a lossy side: compared all the same, said, and the exit is 1 (as report's) */
	if (ret != FR_EXIT_ERROR && fr_input__content_verdict(ps.rd, path, NULL, ps.lost) && !ret)
		ret = FR_EXIT_PARTIAL;
out:
	*pp = ps;
	return ret;
}

static void pass_close(struct pass *ps)
{
	fr_resolver__delete(ps->res);
	if (ps->rd)
		fr_reader__close(ps->rd);
}

/* ---- output ------------------------------------------------------------- */

static void put_time(FILE *f, uint64_t t)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(t / 1000000000ull),
		(unsigned long long)(t % 1000000000ull));
}

static void print_side(FILE *f, const char *what, const char *name, const struct side *s)
{
	fprintf(f, "# %s: ", what);
	fr_text__put_escaped(f, name);
	fprintf(f, ": %llu samples", (unsigned long long)s->samples);
	if (s->samples) {
		fputs(", ", f);
		put_time(f, s->first);
		fputs(" to ", f);
		put_time(f, s->last);
	}
	fputc('\n', f);
}

/* One row's key, its parts SEP-separated: as columns padded to width[]
 * (the last one not), or for stacks joined by ';'. */
static void put_key(FILE *f, const char *key, bool stack, const size_t *width, int nr)
{
	size_t col = 0;
	int k = 0;

	for (const char *p = key;; p++) {
		if (*p == SEP || !*p) {
			if (!*p)
				break;
			if (stack) {
				fputc(';', f);
				continue;
			}
			for (; k < nr && col < width[k]; col++)
				fputc(' ', f);
			fputs("  ", f);
			col = 0;
			k++;
			continue;
		}
		fputc((unsigned char)*p < 0x20 || *p == 0x7f ? '_' : *p, f);
		col += ((unsigned char)*p & 0xc0) != 0x80;   /* characters, not bytes */
	}
}

/* The widest part k of the keys (and its header), in characters. */
static void key_widths(const struct fr_diff_opts *o, const struct table *t, size_t *width)
{
	for (int k = 0; k < o->hist.nr_keys; k++)
		width[k] = strlen(fr_hist__key_header(o->hist.keys[k]));
	for (size_t i = 0; i < t->nr; i++) {
		size_t col = 0;
		int k = 0;

		for (const char *p = t->rows[i].key;; p++) {
			if (*p == SEP || !*p) {
				if (k < o->hist.nr_keys && col > width[k])
					width[k] = col;
				if (!*p)
					break;
				k++;
				col = 0;
				continue;
			}
			col += ((unsigned char)*p & 0xc0) != 0x80;
		}
	}
}

static int print_table(const struct fr_diff_opts *o, struct table *t, struct side *const *s,
		       const char *const *names, const char *event, FILE *f)
{
	size_t nsig = 0, width[FR_NR_KEYS] = { 0 };

	if (t->nr)   /* qsort of a NULL array (none) is UB */
		qsort(t->rows, t->nr, sizeof(*t->rows), cmp_row);
	for (size_t i = 0; i < t->nr; i++)
		nsig += t->rows[i].sig;
	if (!o->no_header) {
		fputs("# flightrec diff", f);
		fprintf(f, " (event %s, shares by %s)\n", event, o->hist.period ? "period" : "samples");
		print_side(f, "baseline", names[0], s[0]);
		print_side(f, "new", names[1], s[1]);
		fprintf(f, "# test: two-proportion z-test on each row's sample counts; significant "
			"(*): |z| >= %.2f, two-sided p < %g/%zu rows (Bonferroni)\n", t->zcrit,
			o->alpha, t->nr);
		fprintf(f, "# %zu of %zu rows changed significantly; largest change first\n#\n",
			nsig, t->nr);
	}
	fprintf(f, "#%10s %10s %10s %9s  %-19s  ", "Baseline", "New", "Delta", "z", "Samples old/new");
	if (o->hist.callchains) {
		fputs("Stack (comm;root;...;leaf)", f);
	} else {
		key_widths(o, t, width);
		for (int k = 0; k < o->hist.nr_keys; k++)
			fprintf(f, "%-*s", k + 1 < o->hist.nr_keys ? (int)width[k] + 2 : 0,
				fr_hist__key_header(o->hist.keys[k]));
	}
	fputs("\n#\n", f);
	for (size_t i = 0; i < t->nr; i++) {
		const struct row *r = &t->rows[i];
		double s0 = s[0]->weight ? 100.0 * (double)r->w[0] / (double)s[0]->weight : 0;
		double s1 = s[1]->weight ? 100.0 * (double)r->w[1] / (double)s[1]->weight : 0;

		if (s0 < o->hist.percent_limit && s1 < o->hist.percent_limit)
			continue;
		fprintf(f, "%10.2f%% %9.2f%% %+9.2f%% %9.2f%c %9llu/%-9llu  ", s0, s1, 100 * r->delta,
			r->z, r->sig ? '*' : ' ', (unsigned long long)r->n[0],
			(unsigned long long)r->n[1]);
		put_key(f, r->key, o->hist.callchains, width, o->hist.nr_keys);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* The flame graph's fill: red grew, blue shrank (significant rows only, by
 * their delta against the largest), a pale grey unchanged. */
static void diff_fill(void *ctx, const char *const *path, size_t n, uint64_t weight,
		      unsigned rgb[3], char *note, size_t note_len)
{
	struct table *t = ctx;
	char *key = NULL;
	size_t cap = 0, len = 0;
	const struct row *r = NULL;

	(void)weight;
	rgb[0] = rgb[1] = rgb[2] = 225;
	for (size_t i = 1; i < n; i++)   /* path[0] is "all" */
		if (put(&key, &cap, &len, path[i], i + 1 < n ? SEP : 0))
			goto out;
	if (n > 1 && key) {
		uint64_t h = fr_hash__str(0, key);
		struct fr_hmap_it it;
		uint32_t i;

		for (bool ok = fr_hmap__first(&t->index, h, &it, &i); ok && !r;
		     ok = fr_hmap__next(&t->index, &it, &i))
			if (!strcmp(t->rows[i].key, key))
				r = &t->rows[i];
	}
	if (!r)
		goto out;
	snprintf(note, note_len, "%+.2f%% vs baseline, z %.1f%s", 100 * r->delta, r->z,
		 r->sig ? "" : ", not significant");
	if (r->sig && t->maxdelta > 0) {
		unsigned v = 40 + (unsigned)(180 * fabs(r->delta) / t->maxdelta);

		rgb[0] = r->delta > 0 ? 255 : 255 - v;
		rgb[1] = 255 - v;
		rgb[2] = r->delta > 0 ? 255 - v : 255;
	}
out:
	free(key);
}

/* ---- the whole diff ------------------------------------------------------ */

static int write_out(const struct fr_diff_opts *o, struct table *t, struct side *const *s,
		     const char *const *names, const char *event)
{
	const char *out_name = o->flamegraph ? o->flamegraph : o->output ? o->output : "stdout";
	struct fr_outfile *of = NULL;
	FILE *f, *safe = NULL;
	char title[512];
	int err = fr_outfile__open(o->flamegraph ? o->flamegraph : o->output, &of);

	if (err) {
		fr_err(out_name, "%s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	f = fr_outfile__stream(of);
	if (o->flamegraph) {
		struct fr_flame_opts fl = { .title = title, .unit = o->hist.period ? "period" : "samples",
					    .standalone = true, .fill = diff_fill, .fill_ctx = t };

		snprintf(title, sizeof(title), "Differential Flame Graph: %s (red grew, blue shrank "
			 "against the baseline)", event);
		err = fr_flame__svg(s[1]->folded, &fl, f);
	} else {
		if ((safe = fr_input__escaping(f)))
			f = safe;
		err = print_table(o, t, s, names, event, f);
		if (safe && fclose(safe) && !err)
			err = -EIO;
	}
	if (!err)
		err = fr_outfile__err(of);
	if (err) {
		fr_err(out_name, "%s", strerror(-err));
		fr_outfile__abort(of);
		return FR_EXIT_ERROR;
	}
	if ((err = fr_outfile__commit(of))) {
		fr_err(out_name, "%s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	return FR_EXIT_OK;
}

int fr_diff__run(const struct fr_diff_opts *o)
{
	struct side a, b;
	struct side *s[2] = { &a, &b };
	struct table t = { 0 };
	char ev0[256], ev1[256], tbuf[64];
	const char *event = o->event, *names[2];
	struct add_ctx ac = { &t, 0, o->flamegraph != NULL, NULL, 0 };
	struct pass ps[2] = { { 0 }, { 0 } };
	int ret, err = 0, r2 = FR_EXIT_OK;

	if (side_new(o, &a) || side_new(o, &b)) {
		fr_err("diff", "%s", strerror(ENOMEM));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	if (o->new_path) {
		names[0] = o->old_path;
		names[1] = o->new_path;
		ret = read_file(o, o->old_path, &a, NULL, &event, ev0, sizeof(ev0), &ps[0]);
		if (ret == FR_EXIT_OK || ret == FR_EXIT_PARTIAL)
			r2 = read_file(o, o->new_path, &b, NULL, &event, ev1, sizeof(ev1), &ps[1]);
	} else {
		snprintf(tbuf, sizeof(tbuf), "the time %s", o->split_trigger ? "from the trigger"
			 : "from --split-at");
		names[0] = "the time before the split";
		names[1] = tbuf;
		ret = read_file(o, o->old_path, &a, &b, &event, ev0, sizeof(ev0), &ps[0]);
	}
	if (ret != FR_EXIT_OK && ret != FR_EXIT_PARTIAL)
		goto out;
	if (r2 != FR_EXIT_OK && r2 != FR_EXIT_PARTIAL) {
		ret = r2;
		goto out;
	}
	ret = ret ? ret : r2;
	for (int i = 0; i < 2 && !err; i++) {
		ac.side = i;
		err = o->hist.callchains || o->flamegraph
		      ? fr_folded__for_each(s[i]->folded, add_stack_row, &ac)
		      : fr_hist__for_each(s[i]->hist, add_hist_row, &ac);
	}
	free(ac.buf);
	if (err) {
		fr_err("diff", "%s", strerror(-err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	score(&t, s, o->alpha);
	err = write_out(o, &t, s, names, event ? event : "");
	if (err)
		ret = err;
out:
	table_exit(&t);
	side_delete(&a);
	side_delete(&b);
	pass_close(&ps[0]);
	pass_close(&ps[1]);
	return ret;
}
