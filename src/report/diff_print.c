/* src/report/diff_print.c: `flightrec diff` written out: the table of rows
 * (shares, delta, test; the off-CPU time per stack and per thread), or the
 * differential flame graph coloured by the significant rows.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"
#include "src/report/pass/pass.h"
#include "src/report/diff_internal.h"

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->sig != y->sig)
		return x->sig ? -1 : 1;
	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) > fabs(y->delta) ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void print_side(FILE *f, const char *what, const char *name, const struct side *s)
{
	fprintf(f, "# %s: ", what);
	fr_text__put_escaped(f, name);
	fprintf(f, ": %llu samples", (unsigned long long)s->samples);
	if (s->samples) {
		fputs(", ", f);
		fr_walltime__put_mono(f, s->first);
		fputs(" to ", f);
		fr_walltime__put_mono(f, s->last);
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

static int cmp_wrow(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double dx = fabs((double)x->w[1] - (double)x->w[0]), dy = fabs((double)y->w[1] - (double)y->w[0]);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* One table of off-CPU rows, the largest change in time first; rows below
 * --percent-limit of their side's off-CPU time on both sides hidden. */
static void print_wtable(const struct fr_diff_opts *o, struct table *t, const struct waits *w,
			 const char *what, bool stack, FILE *f)
{
	size_t width[2] = { 4, 3 };

	if (t->nr)   /* qsort of a NULL array (none) is UB */
		qsort(t->rows, t->nr, sizeof(*t->rows), cmp_wrow);
	fprintf(f, "#\n# off-CPU per %s, the largest change in time first\n#%12s %12s %12s  %-15s  %s\n",
		what, "Baseline ms", "New ms", "Delta ms", "Waits old/new",
		stack ? "Stack (comm;[off-cpu: state];root;...;leaf)" : "Comm  Tid");
	for (size_t i = 0; i < t->nr; i++) {
		const struct row *r = &t->rows[i];
		double s0 = w->ns[0] ? 100.0 * (double)r->w[0] / (double)w->ns[0] : 0;
		double s1 = w->ns[1] ? 100.0 * (double)r->w[1] / (double)w->ns[1] : 0;

		if (s0 < o->hist.percent_limit && s1 < o->hist.percent_limit)
			continue;
		fprintf(f, "%13.3f %12.3f %+12.3f  %6llu/%-8llu  ", (double)r->w[0] / 1e6,
			(double)r->w[1] / 1e6, ((double)r->w[1] - (double)r->w[0]) / 1e6,
			(unsigned long long)r->n[0], (unsigned long long)r->n[1]);
		put_key(f, r->key, stack, width, 2);
		fputc('\n', f);
	}
}

/* The off-CPU time of both sides, where the files recorded switches. */
static void print_waits(const struct fr_diff_opts *o, struct waits *w, FILE *f)
{
	if (!w->any)
		return;
	fprintf(f, "#\n# off-CPU time, from the recorded context switches (--no-off-cpu leaves it "
		"out): baseline %.3f ms in %llu waits, new %.3f ms in %llu waits; no test (a wait's "
		"length is no count): rows by the change in time\n", (double)w->ns[0] / 1e6,
		(unsigned long long)w->n[0], (double)w->ns[1] / 1e6, (unsigned long long)w->n[1]);
	print_wtable(o, &w->stacks, w, "stack", true, f);
	print_wtable(o, &w->threads, w, "thread", false, f);
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
		if (fr_diff_put(&key, &cap, &len, path[i], i + 1 < n ? SEP : 0))
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

int fr_diff_write(const struct fr_diff_opts *o, struct table *t, struct side *const *s,
		  const char *const *names, const char *event, struct waits *w)
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
		if (!err) {
			print_waits(o, w, f);
			err = ferror(f) ? -EIO : 0;
		}
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
