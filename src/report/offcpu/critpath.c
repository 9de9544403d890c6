/* src/report/offcpu/critpath.c: one thread's critical path over a window
 * (report --critical-path TID): its running time, its waits, and at each wait
 * whose waker is known what that waker did until the wakeup, recursively;
 * printed as a table of where the time went and as the path in time order.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/report/offcpu/offcpu.h"

#define MAX_DEPTH 8          /* wakers followed at most this deep */
#define WHERE_MAX 320        /* a segment's "what", as printed */

struct smp {                 /* a sample: what its thread ran then */
	uint32_t tid;
	uint64_t time;
	const struct fr_sym *sym;
};

struct fr_critpath {
	struct smp *smp;
	size_t nr_smp, cap_smp;
	bool sorted;
};

enum iv_kind { IV_WAIT, IV_UNKNOWN };

struct iv {                  /* a thread's wait or unknown time, in tid then time order */
	enum iv_kind kind;
	const struct fr_wait *w;
};

enum seg_kind {
	SEG_RUN,        /* running (its top sampled function) */
	SEG_WOKEN,      /* a wait whose waker is followed (the segments under it) */
	SEG_SLEEP,      /* a wait left as it is (why: no waker, a cycle, too deep) */
	SEG_RUNNABLE,   /* woken, waiting for a CPU */
	SEG_PREEMPTED,  /* runnable all along */
	SEG_UNKNOWN,    /* a switch-out not recorded */
	SEG_ABSENT,     /* the thread was not alive (or not seen) */
};

struct seg {
	enum seg_kind kind;
	unsigned depth;
	uint32_t tid;
	uint64_t s, e;
	const struct fr_wait *w;     /* SEG_WOKEN, SEG_SLEEP */
	const char *why;             /* SEG_SLEEP */
	const struct fr_sym *top;    /* SEG_RUN: the most sampled function, or NULL */
	uint32_t samples;
};

struct path {
	struct fr_offcpu *oc;
	const struct fr_wakers *wk;
	struct fr_critpath *cp;
	struct iv *iv;
	size_t nr_iv;
	struct fr_thread_time *thr;  /* by tid then start */
	size_t nr_thr;
	struct seg *seg;
	size_t nr_seg, cap_seg;
	uint32_t chain[MAX_DEPTH + 1];
};

int fr_critpath__new(struct fr_critpath **out)
{
	return (*out = calloc(1, sizeof(**out))) ? 0 : -ENOMEM;
}

void fr_critpath__delete(struct fr_critpath *cp)
{
	if (!cp)
		return;
	free(cp->smp);
	free(cp);
}

int fr_critpath__sample(struct fr_critpath *cp, const struct fr_rsample *rs)
{
	const struct fr_sym *sym = NULL;

	for (size_t i = 0; i < rs->nr_frames && !sym; i++)
		if (!rs->frames[i].sym->kernel)
			sym = rs->frames[i].sym;   /* the user code it ran, where there is some */
	if (!sym && rs->nr_frames)
		sym = rs->frames[0].sym;
	if (!sym)
		return 0;
	if (fr_grow(&cp->smp, &cp->cap_smp, cp->nr_smp + 1, sizeof(*cp->smp), 1024))
		return -ENOMEM;
	cp->smp[cp->nr_smp++] = (struct smp){ rs->tid, rs->time, sym };
	cp->sorted = false;
	return 0;
}

static int by_tid_time(const void *x, const void *y)
{
	const struct smp *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->time < b->time ? -1 : a->time > b->time;
}

static int by_iv(const void *x, const void *y)
{
	const struct fr_wait *a = ((const struct iv *)x)->w, *b = ((const struct iv *)y)->w;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int by_sym(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)*(const struct fr_sym *const *)x;
	uintptr_t b = (uintptr_t)*(const struct fr_sym *const *)y;

	return a < b ? -1 : a > b;
}

/* The most sampled function of tid in [s, e), and how many samples it has. */
static int top_sym(struct fr_critpath *cp, uint32_t tid, uint64_t s, uint64_t e,
		   const struct fr_sym **top, uint32_t *count)
{
	size_t lo = 0, hi = cp->nr_smp, n = 0, best = 0;
	const struct fr_sym **v;

	*top = NULL;
	*count = 0;
	while (lo < hi) {   /* the first of tid at or after s */
		size_t mid = lo + (hi - lo) / 2;
		const struct smp *m = &cp->smp[mid];

		if (m->tid < tid || (m->tid == tid && m->time < s))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < cp->nr_smp && cp->smp[hi].tid == tid && cp->smp[hi].time < e; hi++)
		n++;
	if (!n)
		return 0;
	if (!(v = malloc(n * sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = cp->smp[lo + i].sym;
	qsort(v, n, sizeof(*v), by_sym);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (j - i > best) {
			best = j - i;
			*top = v[i];
		}
	}
	*count = (uint32_t)(best < UINT32_MAX ? best : UINT32_MAX);
	free(v);
	return 0;
}

static int add_seg(struct path *p, const struct seg *sg)
{
	if (sg->e <= sg->s)
		return 0;
	if (fr_grow(&p->seg, &p->cap_seg, p->nr_seg + 1, sizeof(*p->seg), 256))
		return -ENOMEM;
	p->seg[p->nr_seg++] = *sg;
	return 0;
}

/* tid's life in the window that holds time, or NULL. */
static const struct fr_thread_time *life(const struct path *p, uint32_t tid, uint64_t time)
{
	const struct fr_thread_time *t = fr_thread_times__at(p->thr, p->nr_thr, tid, time);

	return t && time <= t->end ? t : NULL;
}

/* tid running (or not alive) over [s, e): its segments at depth. */
static int running(struct path *p, uint32_t tid, uint64_t s, uint64_t e, unsigned depth)
{
	const struct fr_thread_time *t = life(p, tid, s);
	uint64_t a = s, b = e;
	struct seg sg = { .kind = SEG_RUN, .depth = depth, .tid = tid };
	int err;

	if (!t) {   /* born inside [s, e)? */
		t = life(p, tid, e > s ? e - 1 : s);
		if (!t || t->start >= e)
			return add_seg(p, &(struct seg){ .kind = SEG_ABSENT, .depth = depth,
							.tid = tid, .s = s, .e = e });
	}
	if (t->start > a) {
		if ((err = add_seg(p, &(struct seg){ .kind = SEG_ABSENT, .depth = depth, .tid = tid,
						    .s = a, .e = t->start })))
			return err;
		a = t->start;
	}
	b = t->end < b ? t->end : b;
	sg.s = a;
	sg.e = b;
	if ((err = top_sym(p->cp, tid, a, b, &sg.top, &sg.samples)) || (err = add_seg(p, &sg)))
		return err;
	if (b < e)
		return add_seg(p, &(struct seg){ .kind = SEG_ABSENT, .depth = depth, .tid = tid,
						.s = b, .e = e });
	return 0;
}

static bool on_chain(const struct path *p, unsigned depth, uint32_t tid)
{
	for (unsigned d = 0; d <= depth; d++)
		if (p->chain[d] == tid)
			return true;
	return false;
}

static int walk(struct path *p, uint32_t tid, uint64_t a, uint64_t b, unsigned depth);

/* One wait of tid, cut to [s, e). */
static int wait_seg(struct path *p, const struct fr_wait *w, uint64_t s, uint64_t e, unsigned depth)
{
	struct seg sg = { .kind = SEG_SLEEP, .depth = depth, .tid = w->tid, .s = s, .e = e, .w = w };
	uint64_t wk;
	int err;

	if (w->state == FR_WAIT_R) {
		sg.kind = SEG_PREEMPTED;
		return add_seg(p, &sg);
	}
	if (!w->waker_tid || !w->wake) {
		sg.why = w->cut_end ? "still waiting at the window's end"
			 : "its wakeup was not recorded (a timer, an interrupt, or before the window)";
		return add_seg(p, &sg);
	}
	wk = w->wake < s ? s : w->wake > e ? e : w->wake;
	sg.e = wk;
	if (depth >= MAX_DEPTH)
		sg.why = "wakers followed no deeper";
	else if (on_chain(p, depth, w->waker_tid))
		sg.why = "its waker is on the path already";
	else
		sg.kind = SEG_WOKEN;
	if ((err = add_seg(p, &sg)))
		return err;
	if (sg.kind == SEG_WOKEN && wk > s) {
		p->chain[depth + 1] = w->waker_tid;
		if ((err = walk(p, w->waker_tid, s, wk, depth + 1)))
			return err;
	}
	return add_seg(p, &(struct seg){ .kind = SEG_RUNNABLE, .depth = depth, .tid = w->tid,
					.s = wk, .e = e, .w = w });
}

/* tid over [a, b): its waits and unknown times in order, running between. */
static int walk(struct path *p, uint32_t tid, uint64_t a, uint64_t b, unsigned depth)
{
	size_t lo = 0, hi = p->nr_iv;
	uint64_t t = a;
	int err = 0;

	while (lo < hi) {   /* the first of tid that starts at or after a */
		size_t mid = lo + (hi - lo) / 2;

		if (p->iv[mid].w->tid < tid || (p->iv[mid].w->tid == tid && p->iv[mid].w->start < a))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && p->iv[lo - 1].w->tid == tid && p->iv[lo - 1].w->end > a)
		lo--;   /* one begun before a, still going on at a */
	for (size_t i = lo; i < p->nr_iv && p->iv[i].w->tid == tid && !err; i++) {
		const struct iv *v = &p->iv[i];
		uint64_t s = v->w->start > t ? v->w->start : t, e = v->w->end < b ? v->w->end : b;

		if (s >= b)
			break;
		if (e <= s)
			continue;
		if (s > t && (err = running(p, tid, t, s, depth)))
			break;
		if (v->kind == IV_UNKNOWN)
			err = add_seg(p, &(struct seg){ .kind = SEG_UNKNOWN, .depth = depth,
							.tid = tid, .s = s, .e = e });
		else
			err = wait_seg(p, v->w, s, e, depth);
		t = e;
	}
	if (!err && t < b)
		err = running(p, tid, t, b, depth);
	return err;
}

static int collect(struct path *p)
{
	size_t nw, nu;
	const struct fr_wait *w = fr_offcpu__waits(p->oc, &nw), *u = fr_offcpu__unknowns(p->oc, &nu);

	if (!(p->iv = calloc(nw + nu + 1, sizeof(*p->iv))) ||
	    !(p->thr = fr_offcpu__by_off(p->oc, &p->nr_thr)))
		return -ENOMEM;
	for (size_t i = 0; i < nw; i++)
		p->iv[p->nr_iv++] = (struct iv){ IV_WAIT, &w[i] };
	for (size_t i = 0; i < nu; i++)
		p->iv[p->nr_iv++] = (struct iv){ IV_UNKNOWN, &u[i] };
	if (p->nr_iv)
		qsort(p->iv, p->nr_iv, sizeof(*p->iv), by_iv);
	fr_thread_times__sort(p->thr, p->nr_thr);
	if (!p->cp->sorted && p->cp->nr_smp)
		qsort(p->cp->smp, p->cp->nr_smp, sizeof(*p->cp->smp), by_tid_time);
	p->cp->sorted = true;
	return 0;
}

/* ---- printing ---- */

/* A name for a stack's place, leaf first: up to three of its user frames,
 * from the library function its program called (where the leaf is in a
 * library); kernel frames past the scheduler's where it has no user ones. */
void fr_wait__where(char *buf, size_t len, const struct fr_sym *const *s, size_t n)
{
	size_t user[64], nu = 0, start = 0, out = 0;
	int w;

	buf[0] = '\0';
	if (n && fr_offcpu__frame_state(s[n - 1]) >= 0)
		n--;   /* the state frame: said apart */
	for (size_t i = 0; i < n && nu < 64; i++)
		if (!s[i]->kernel)
			user[nu++] = i;
	if (nu) {
		for (size_t k = 0; k < nu; k++) {
			const char *d = s[user[k]]->dso_short ? s[user[k]]->dso_short : "";

			if (strncmp(d, "lib", 3) && strncmp(d, "ld-", 3) && strcmp(d, "[vdso]")) {
				start = k ? k - 1 : 0;   /* the program's frame, and what it called */
				break;
			}
		}
		for (size_t k = start; k < nu && out < 3 && len > 1; k++, out++) {
			w = snprintf(buf, len, "%s%s", out ? " <- " : "", s[user[k]]->name);
			if (w < 0 || (size_t)w >= len)
				break;
			buf += w;
			len -= (size_t)w;
		}
		return;
	}
	for (size_t i = 0; i < n && out < 3 && len > 1; i++) {
		if (strstr(s[i]->name, "schedule") || !strncmp(s[i]->name, "__switch_to", 11) ||
		    !strcmp(s[i]->name, "finish_task_switch"))
			continue;
		w = snprintf(buf, len, "%s%s", out++ ? " <- " : "", s[i]->name);
		if (w < 0 || (size_t)w >= len)
			break;
		buf += w;
		len -= (size_t)w;
	}
}

static const char *comm_of(const struct path *p, uint32_t tid, uint64_t time)
{
	/* its life begun by then (alive or not), else (born later) its newest */
	const struct fr_thread_time *t = fr_thread_times__at(p->thr, p->nr_thr, tid, time);

	if (!t)
		t = fr_thread_times__at(p->thr, p->nr_thr, tid, UINT64_MAX);
	return t && t->comm ? t->comm : "[unknown]";
}

/* What a segment was: "running f (n samples)", "sleeping in X: woken by ...". */
static void describe(const struct path *p, const struct seg *sg, char *buf, size_t len)
{
	char a[WHERE_MAX / 2] = "", b[WHERE_MAX / 2] = "";
	struct fr_waker_join j;
	bool joined = sg->w && p->wk && !fr_wakers__join(p->wk, sg->w->tid, sg->w->start, &j);
	const char *st = sg->w && sg->w->state == FR_WAIT_D ? "blocked" : "sleeping";

	switch (sg->kind) {
	case SEG_RUN:
		if (sg->top)
			snprintf(buf, len, "running %s (%u samples)", sg->top->name, sg->samples);
		else
			snprintf(buf, len, "running (no sample)");
		return;
	case SEG_WOKEN:
		if (joined)
			fr_wait__where(a, sizeof(a), j.w, j.wn);
		if (joined && j.kcomm)
			fr_wait__where(b, sizeof(b), j.k, j.kn);
		snprintf(buf, len, "%s in %s: woken by %u %s in %s", st, a[0] ? a : "[no stack]",
			 sg->w->waker_tid, comm_of(p, sg->w->waker_tid, sg->e),
			 b[0] ? b : "[no stack]");
		return;
	case SEG_SLEEP:
		if (joined)
			fr_wait__where(a, sizeof(a), j.w, j.wn);
		if (sg->w->waker_tid && sg->w->wake)
			snprintf(buf, len, "%s in %s: woken by %u %s (%s)", st, a[0] ? a : "[no stack]",
				 sg->w->waker_tid, comm_of(p, sg->w->waker_tid, sg->e), sg->why);
		else
			snprintf(buf, len, "%s in %s: %s", st, a[0] ? a : "[no stack]", sg->why);
		return;
	case SEG_RUNNABLE:
		snprintf(buf, len, "runnable: woken, waiting for a CPU");
		return;
	case SEG_PREEMPTED:
		snprintf(buf, len, "runnable: preempted");
		return;
	case SEG_UNKNOWN:
		snprintf(buf, len, "not known (a switch-out was not recorded)");
		return;
	case SEG_ABSENT:
		snprintf(buf, len, "not alive (or not seen) then");
		return;
	}
}

struct sum {                 /* the leaf segments of one thread and description */
	uint32_t tid;
	char *what;
	uint64_t ns;
};

static int by_ns_desc(const void *x, const void *y)
{
	const struct sum *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static void put_thread(FILE *f, const struct path *p, unsigned indent, uint32_t tid, uint64_t t)
{
	const char *c = comm_of(p, tid, t);
	int w = fprintf(f, "%*s%u ", (int)indent * 2, "", tid);

	fr_put_name(f, c);
	w += (int)strlen(c);
	fprintf(f, "%*s", w < 28 ? 28 - w : 1, "");
}

static int summary(const struct path *p, uint64_t total, FILE *f)
{
	struct sum *v = calloc(p->nr_seg + 1, sizeof(*v));
	struct fr_hmap index = { 0 };
	size_t n = 0;
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_seg && !err; i++) {
		const struct seg *sg = &p->seg[i];
		char what[WHERE_MAX];
		struct fr_hmap_it it;
		uint64_t h;
		uint32_t k;
		bool found = false;

		if (sg->kind == SEG_WOKEN)
			continue;   /* its time is the segments under it */
		describe(p, sg, what, sizeof(what));
		h = fr_hash__str(fr_hash__u64(sg->tid), what);
		for (bool ok = fr_hmap__first(&index, h, &it, &k); ok && !found;
		     ok = fr_hmap__next(&index, &it, &k))
			if (v[k].tid == sg->tid && !strcmp(v[k].what, what)) {
				v[k].ns += sg->e - sg->s;
				found = true;
			}
		if (found)
			continue;
		if (!(v[n].what = strdup(what)) || fr_hmap__add(&index, h, (uint32_t)n)) {
			free(v[n].what);
			err = -ENOMEM;
			break;
		}
		v[n].tid = sg->tid;
		v[n++].ns = sg->e - sg->s;
	}
	if (!err && n)
		qsort(v, n, sizeof(*v), by_ns_desc);
	fprintf(f, "#\n# where the time went (the path's leaf segments: they add up to it)\n"
		"#         ms        %%  thread                      what\n");
	for (size_t i = 0; i < n && !err; i++) {
		fprintf(f, "  %11.3f  %6.2f%%  ", (double)v[i].ns / 1e6,
			total ? 100.0 * (double)v[i].ns / (double)total : 0.0);
		put_thread(f, p, 0, v[i].tid, 0);
		fr_put_name(f, v[i].what);
		fputc('\n', f);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].what);
	free(v);
	fr_hmap__exit(&index);
	return err;
}

static void timeline(const struct path *p, uint64_t t0, uint64_t total, double min_pct, FILE *f)
{
	uint64_t min_ns = (uint64_t)((double)total * min_pct / 100.0), left_ns = 0, left = 0;

	fprintf(f, "#\n# the path in time order (indented: what the waker did while the thread "
		"above waited; segments under %.2f%% of the path not listed)\n"
		"#   +seconds           ms  thread                      what\n", min_pct);
	for (size_t i = 0; i < p->nr_seg; i++) {
		const struct seg *sg = &p->seg[i];
		char what[WHERE_MAX];

		if (sg->e - sg->s < min_ns) {
			if (sg->kind != SEG_WOKEN) {
				left++;
				left_ns += sg->e - sg->s;
			}
			continue;
		}
		describe(p, sg, what, sizeof(what));
		fprintf(f, "  %+11.6f  %11.3f  ", (double)(sg->s - t0) / 1e9,
			(double)(sg->e - sg->s) / 1e6);
		put_thread(f, p, sg->depth, sg->tid, sg->s);
		fr_put_name(f, what);
		fputc('\n', f);
	}
	if (left)
		fprintf(f, "# %llu shorter segments, %.3f ms, not listed\n",
			(unsigned long long)left, (double)left_ns / 1e6);
}

int fr_critpath__print(struct fr_critpath *cp, struct fr_offcpu *oc, uint32_t tid,
		       uint64_t from, uint64_t to, double min_pct, FILE *f)
{
	struct path p = { .oc = oc, .wk = fr_offcpu__wakers(oc), .cp = cp };
	uint64_t t0, t1;
	const struct fr_thread_time *t;
	int err;

	if ((err = collect(&p)))
		goto out;
	t = NULL;   /* the thread's time in the window (its longest life, a tid reused) */
	for (size_t i = 0; i < p.nr_thr; i++)
		if (!tid ? !t || fr_thread_time__off(&p.thr[i]) > fr_thread_time__off(t)
			 : p.thr[i].tid == tid &&
			   (!t || p.thr[i].end - p.thr[i].start > t->end - t->start))
			t = &p.thr[i];
	if (t)
		tid = t->tid;
	if (!t) {
		err = -ESRCH;
		goto out;
	}
	t0 = t->start > from ? t->start : from;
	t1 = t->end < to ? t->end : to;
	if (t1 <= t0) {
		err = -ESRCH;   /* not alive in the range */
		goto out;
	}
	p.chain[0] = tid;
	if ((err = walk(&p, tid, t0, t1, 0)))
		goto out;
	fprintf(f, "# critical path of thread %u (", tid);
	fr_put_name(f, t->comm ? t->comm : "[unknown]");
	fprintf(f, ") from ");
	fr_walltime__put_mono(f, t0);
	fputs(" to ", f);
	fr_walltime__put_mono(f, t1);
	fprintf(f, " (%.3f ms): its own time, and at each wait what its waker did until the "
		"wakeup, recursively (at most %d wakers deep)\n", (double)(t1 - t0) / 1e6, MAX_DEPTH);
	if ((err = summary(&p, t1 - t0, f)))
		goto out;
	timeline(&p, t0, t1 - t0, min_pct, f);
out:
	free(p.iv);
	free(p.thr);
	free(p.seg);
	return err;
}
