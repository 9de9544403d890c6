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
#include "src/report/offcpu/offcpu.h"
#include "src/report/pass/pass.h"
#include "src/report/report.h"
#include "src/report/diff_internal.h"
#include "src/report/tp/tpdecode.h"

struct pass {
	const struct fr_diff_opts *o;
	struct fr_reader *rd;
	struct fr_resolver *res;
	const struct fr_file_event *ev;
	struct side *sides[2];
	int split;                  /* 1: by time at split_ns, else all to sides[0] */
	uint64_t split_ns;
	uint64_t lost;              /* PERF_RECORD_LOST counts, saturated */
	struct fr_tpdecode *tp;     /* the off-CPU stages' (sched_switch's fields) */
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

struct row *fr_diff_row(struct table *t, const char *key)
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

void fr_diff_table_exit(struct table *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->rows[i].key);
	free(t->rows);
	fr_hmap__exit(&t->index);
}

/* Into the growing buffer *buf at *len: s, then sep if sep. */
int fr_diff_put(char **buf, size_t *cap, size_t *len, const char *s, char sep)
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
		if (fr_diff_put(&a->buf, &a->cap, &len, text[k], k + 1 < nr_keys ? SEP : 0))
			return -ENOMEM;
	if (!(r = fr_diff_row(a->t, len ? a->buf : "")))
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
	if (fr_diff_put(&a->buf, &a->cap, &len, comm, 0))
		return -ENOMEM;
	for (size_t i = n + 1; i-- > 0;) {
		if (a->prefixes || i == 0) {
			if (!(r = fr_diff_row(a->t, a->buf)))
				return -ENOMEM;
			r->n[a->side] += samples;
			r->w[a->side] += weight;
		}
		if (i && (fr_diff_put(&a->buf, &a->cap, &len, "", SEP) ||
			  fr_diff_put(&a->buf, &a->cap, &len, frames[i - 1]->name, 0)))
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


/* ---- one pass over a file ---------------------------------------------- */

/* A wait of side sd, as it ends (rs->period its ns, frames leaf first, its
 * state frame outermost): into its stack's row and its thread's. */
static int wait_row(void *ctx, const struct fr_rsample *rs)
{
	struct side *sd = ctx;
	const char *comm = rs->comm ? rs->comm : "[unknown]";
	char tid[16];
	size_t len = 0;
	struct row *r;

	if (fr_diff_put(&sd->buf, &sd->cap, &len, comm, 0))
		return -ENOMEM;
	for (size_t i = rs->nr_frames; i-- > 0;)   /* the state frame first, then root to leaf */
		if (fr_diff_put(&sd->buf, &sd->cap, &len, "", SEP) ||
		    fr_diff_put(&sd->buf, &sd->cap, &len, rs->frames[i].sym->name, 0))
			return -ENOMEM;
	if (!(r = fr_diff_row(&sd->waits->stacks, sd->buf)))
		return -ENOMEM;
	r->n[sd->index]++;
	r->w[sd->index] += rs->period;
	len = 0;
	snprintf(tid, sizeof(tid), "%u", rs->tid);
	if (fr_diff_put(&sd->buf, &sd->cap, &len, comm, SEP) ||
	    fr_diff_put(&sd->buf, &sd->cap, &len, tid, 0) ||
	    !(r = fr_diff_row(&sd->waits->threads, sd->buf)))
		return -ENOMEM;
	r->n[sd->index]++;
	r->w[sd->index] += rs->period;
	sd->waits->ns[sd->index] += rs->period;
	sd->waits->n[sd->index]++;
	return 0;
}

/* The record to each side's off-CPU stage (the two of a split file each
 * take their own window of it): 1 when it was one of the stages' samples. */
static int feed_offcpu(struct pass *ps, const struct fr_rec *r, int *err)
{
	int sides = ps->sides[1] != ps->sides[0] ? 2 : 1, taken = 0;

	for (int k = 0; k < sides && !*err; k++) {
		int t = ps->sides[k]->oc ? fr_offcpu_in__take(ps->sides[k]->oc, r) : 0;

		if (t < 0)
			*err = t;
		taken |= t > 0;
	}
	return taken;
}

static int pass_cb(void *ctx, const struct fr_rec *r)
{
	struct pass *ps = ctx;
	struct fr_rsample rs;
	struct side *sd;
	int err = 0;

	if (!r->event)
		return 0;
	if (feed_offcpu(ps, r, &err) || err)
		goto out;
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
out:
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
	fr_offcpu_in__delete(s->oc);
	free(s->buf);
}

/* Where the file recorded context switches (and --no-off-cpu did not leave
 * them out): an off-CPU stage per side, over its window (a split file: before
 * and from the split). 0 or -errno. */
static int offcpu_stages(struct pass *ps, struct side *a, struct side *b)
{
	uint64_t first, last, split = ps->split_ns;
	int err;

	if (ps->o->no_off_cpu || !fr_offcpu_in__in_file(ps->rd))
		return 0;
	if (fr_input__tpdecode(ps->rd, &ps->tp))
		return -ENOMEM;
	fr_input__window(ps->rd, &first, &last);
	a->waits->any = true;
	if (b && split < first)
		split = first;
	if (b && split > last)
		split = last;
	err = fr_offcpu_in__new(ps->rd, ps->res, ps->tp, first, b ? split : last, wait_row, a,
				false, &a->oc);
	if (!err && b)
		err = fr_offcpu_in__new(ps->rd, ps->res, ps->tp, split, last, wait_row, b, false,
					&b->oc);
	return err;
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
	if ((err = offcpu_stages(&ps, a, b))) {
		fr_err(path, "%s", strerror(-err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	err = fr_reader__for_each(ps.rd, pass_cb, &ps);
	for (int k = 0; k < 2 && !ps.err; k++)   /* what is open at the windows' ends */
		if ((k ? b : a) && (k ? b : a)->oc)
			ps.err = fr_offcpu_in__finish((k ? b : a)->oc);
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
	fr_tpdecode__delete(ps->tp);
	fr_resolver__delete(ps->res);
	if (ps->rd)
		fr_reader__close(ps->rd);
}

/* ---- the whole diff ------------------------------------------------------ */


int fr_diff__run(const struct fr_diff_opts *o)
{
	struct side a, b;
	struct side *s[2] = { &a, &b };
	struct table t = { 0 };
	char ev0[256], ev1[256], tbuf[64];
	const char *event = o->event, *names[2];
	struct add_ctx ac = { &t, 0, o->flamegraph != NULL, NULL, 0 };
	struct pass ps[2] = { { 0 }, { 0 } };
	struct waits w = { 0 };
	int ret, err = 0, r2 = FR_EXIT_OK;

	if (side_new(o, &a) || side_new(o, &b)) {
		fr_err("diff", "%s", strerror(ENOMEM));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	a.waits = b.waits = &w;
	b.index = 1;
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
	err = fr_diff_write(o, &t, s, names, event ? event : "", &w);
	if (err)
		ret = err;
out:
	fr_diff_table_exit(&t);
	fr_diff_table_exit(&w.stacks);
	fr_diff_table_exit(&w.threads);
	side_delete(&a);
	side_delete(&b);
	pass_close(&ps[0]);
	pass_close(&ps[1]);
	return ret;
}
