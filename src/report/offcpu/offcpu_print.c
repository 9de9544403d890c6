/* src/report/offcpu/offcpu_print.c: the text report's off-CPU section: per
 * thread (on-CPU + off-CPU = its time in the window), per function by state
 * (inclusive), per stack by state with its top wakers; times in ms with
 * their share; the wait states of sched_switch's prev_state.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/report/offcpu/offcpu.h"

#define TOP_WAKERS 3   /* under each off-CPU stack of the text */

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? (double)part * 100.0 / (double)whole : 0.0;
}

bool fr_wait_state__of(uint64_t prev_state, enum fr_wait_state *st)
{
	/* TASK_REPORT bits: 0x1 S, 0x2 D, 0x4 T, 0x8 t, 0x10 X, 0x20 Z, 0x40 P,
	 * 0x80 I; 0 or TASK_REPORT_MAX (0x100 and up, by kernel): preempted */
	uint64_t low = prev_state & 0xff;

	if (!low)
		*st = FR_WAIT_R;
	else if (low & 0x30)
		return false;
	else if (low & 0x2)
		*st = FR_WAIT_D;
	else
		*st = FR_WAIT_S;
	return true;
}

char fr_wait_state__char(enum fr_wait_state st)
{
	return st == FR_WAIT_D ? 'D' : st == FR_WAIT_R ? 'R' : 'S';
}

struct fn {
	const struct fr_sym *sym;
	int state;
	uint64_t ns;
};

struct st {
	const char *comm;
	const struct fr_sym *const *frames;   /* leaf first, state frame last */
	size_t n;
	int state;
	uint64_t ns;
};

struct acc {
	struct fn *fn;
	size_t nr_fn, cap_fn;
	struct fr_hmap index;
	struct st *st;
	size_t nr_st, cap_st;
	uint64_t total;
};

static uint64_t fn_hash(const struct fr_sym *sym, int state)
{
	return fr_hash__mix(fr_hash__u64((uintptr_t)sym), (uint64_t)state);
}

static int add_fn(struct acc *a, const struct fr_sym *sym, int state, uint64_t ns)
{
	uint64_t h = fn_hash(sym, state);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&a->index, h, &it, &i); ok; ok = fr_hmap__next(&a->index, &it, &i))
		if (a->fn[i].sym == sym && a->fn[i].state == state) {
			a->fn[i].ns += ns;
			return 0;
		}
	if (fr_grow(&a->fn, &a->cap_fn, a->nr_fn + 1, sizeof(*a->fn), 64) ||
	    fr_hmap__add(&a->index, h, (uint32_t)a->nr_fn))
		return -ENOMEM;
	a->fn[a->nr_fn++] = (struct fn){ sym, state, ns };
	return 0;
}

static int collect(void *ctx, const char *comm, const struct fr_sym *const *frames, size_t n,
		   uint64_t weight, uint64_t samples, uint64_t period)
{
	struct acc *a = ctx;
	int state = n ? fr_offcpu__frame_state(frames[n - 1]) : -1;

	(void)samples;
	(void)period;
	if (state < 0)
		return 0;
	if (fr_grow(&a->st, &a->cap_st, a->nr_st + 1, sizeof(*a->st), 64))
		return -ENOMEM;
	a->st[a->nr_st++] = (struct st){ comm, frames, n, state, weight };
	a->total += weight;
	/* inclusive: each function of the stack once (recursion counts once) */
	for (size_t i = 0; i + 1 < n; i++) {
		bool seen = false;
		int err;

		for (size_t j = 0; j < i && !seen; j++)
			seen = frames[j] == frames[i];
		if (!seen && (err = add_fn(a, frames[i], state, weight)))
			return err;
	}
	return 0;
}

/* By state (S, D, R), then heaviest first, then name. */
static int cmp_fn(const void *x, const void *y)
{
	const struct fn *a = x, *b = y;

	if (a->state != b->state)
		return a->state < b->state ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->sym->name, b->sym->name);
}

static int cmp_st(const void *x, const void *y)
{
	const struct st *a = x, *b = y;

	if (a->state != b->state)
		return a->state < b->state ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->comm, b->comm);
}

/* the most-waiting threads first, then by pid, tid and start */
static int cmp_thread(const void *x, const void *y)
{
	const struct fr_thread_time *a = x, *b = y;
	uint64_t oa = fr_thread_time__off(a), ob = fr_thread_time__off(b);

	if (oa != ob)
		return oa > ob ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

struct fr_thread_time *fr_offcpu__by_off(const struct fr_offcpu *oc, size_t *n)
{
	struct fr_thread_time *v;

	*n = fr_offcpu__nr_threads(oc);
	if (!(v = calloc(*n + 1, sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < *n; i++)
		fr_offcpu__thread(oc, i, &v[i]);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_thread);
	return v;
}

static int by_thr(const void *x, const void *y)
{
	const struct fr_thread_time *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

void fr_thread_times__sort(struct fr_thread_time *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), by_thr);
}

const struct fr_thread_time *fr_thread_times__at(const struct fr_thread_time *v, size_t n,
						 uint32_t tid, uint64_t time)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {   /* past the last of tid begun by time */
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].tid < tid || (v[mid].tid == tid && v[mid].start <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && v[lo - 1].tid == tid ? &v[lo - 1] : NULL;
}

static int print_threads(struct fr_offcpu *oc, FILE *f)
{
	size_t n;
	struct fr_thread_time *v = fr_offcpu__by_off(oc, &n);

	if (!v)
		return -ENOMEM;
	fprintf(f, "# per thread, the most off-CPU first: time in the window = on-CPU + off-CPU (S sleeping, D blocked "
		"uninterruptible, R preempted) + unknown (switch-outs not recorded); sched delay: "
		"runnable to running\n");
	fprintf(f, "#     pid      tid  %-16s %10s %10s %10s %10s %10s %10s %10s %7s %10s\n", "comm",
		"window ms", "on-CPU ms", "off ms", "S ms", "D ms", "R ms", "delay ms", "waits",
		"unknown ms");
	for (size_t i = 0; i < n; i++) {
		const struct fr_thread_time *t = &v[i];
		uint64_t off = fr_thread_time__off(t);

		fprintf(f, "  %7u  %7u  ", t->pid, t->tid);
		fr_put_name(f, t->comm ? t->comm : "[unknown]");
		fprintf(f, "%*s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %7llu %10.3f\n",
			(int)(16 - (t->comm ? (strlen(t->comm) < 16 ? strlen(t->comm) : 16) : 9)), "",
			ms(t->end - t->start), ms(t->on_ns), ms(off), ms(t->off_ns[FR_WAIT_S]),
			ms(t->off_ns[FR_WAIT_D]), ms(t->off_ns[FR_WAIT_R]), ms(t->delay_ns),
			(unsigned long long)t->waits, ms(t->unknown_ns));
	}
	free(v);
	return 0;
}

/* One waker of a stack's waits, under it: its name and stack (or that
 * none was recorded), ms and % of the stack's time. */
struct waker_line {
	FILE *f;
	uint64_t of;                 /* the stack's ns */
};

static int print_waker(void *ctx, const char *kcomm, const struct fr_sym *const *frames, size_t n,
		       uint64_t ns, uint64_t waits)
{
	struct waker_line *wl = ctx;

	fprintf(wl->f, "  %12.3f %6.2f%%         woken by ", ms(ns), pct(ns, wl->of));
	if (!kcomm) {
		fprintf(wl->f, "[no wakeup recorded] (%llu waits)\n", (unsigned long long)waits);
		return 0;
	}
	fr_put_name(wl->f, kcomm);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? " <- " : ": ", wl->f);
		fr_put_name(wl->f, frames[i]->name);
	}
	fprintf(wl->f, " (%llu waits)\n", (unsigned long long)waits);
	return 0;
}

static void print_stack(FILE *f, const struct st *s)
{
	fputs("  ", f);
	fr_put_name(f, s->comm);
	for (size_t i = 0; i + 1 < s->n; i++) {
		fputs(i ? " <- " : ": ", f);
		fr_put_name(f, s->frames[i]->name);
	}
	fputc('\n', f);
}

/* record --off-cpu-thresh: which waits have their stack, and the error of
 * the short waits' estimate (each sampled one stands for its scale, thresh
 * or more: a stack's time S from short waits has variance at most
 * scale * S, the largest scale bounding it). */
static void print_sampling(const struct fr_offcpu *oc, const struct fr_offcpu_totals *t, FILE *f)
{
	double th = ms(fr_offcpu__thresh(oc));
	double lo = t->short_scale_min ? ms(t->short_scale_min) : th;
	double hi = t->short_scale_max ? ms(t->short_scale_max) : th;

	fprintf(f, "# stacks of waits (record --off-cpu-thresh %.3f ms): every S and D wait of %.3f "
		"ms or more: %llu with their stack, %llu whose stack was not recorded", th, th,
		(unsigned long long)t->long_stacks, (unsigned long long)t->long_lost);
	if (t->long_before)
		fprintf(f, "; %llu that began before the window without one (a stack is taken "
			"only for a wait the recorder saw begin)", (unsigned long long)t->long_before);
	if (t->long_no_in)
		fprintf(f, "; %llu whose switch-in was not recorded (a stack is taken at the "
			"switch-in)", (unsigned long long)t->long_no_in);
	if (t->long_unstacked)
		fprintf(f, "; %llu of the recorder's own threads (pid %u), whose stacks it does "
			"not take", (unsigned long long)t->long_unstacked, t->unstacked_pid);
	fputc('\n', f);
	fprintf(f, "# shorter waits: %llu, %.3f ms; %llu sampled (probability length / ",
		(unsigned long long)t->short_waits, ms(t->short_ns),
		(unsigned long long)t->short_sampled);
	if (lo == hi)
		fprintf(f, "%.3f ms)", hi);
	else
		fprintf(f, "scale, %.3f to %.3f ms by CPU and time)", lo, hi);
	fprintf(f, ", standing for %.3f ms: a stack's time S from them is within "
		"+-1.96*sqrt(%.3f ms * S) at 95%%\n", ms(t->short_weight_ns), hi);
}

int fr_offcpu__summary(struct fr_offcpu *oc, size_t top, FILE *f)
{
	size_t n;
	struct fr_thread_time *v = fr_offcpu__by_off(oc, &n);
	struct fr_offcpu_totals t;

	if (!v)
		return -ENOMEM;
	fr_offcpu__totals(oc, &t);
	fprintf(f, "# off-CPU: %.3f ms in %llu waits of %zu threads (the section after the "
		"histograms)", ms(t.off_ns[0] + t.off_ns[1] + t.off_ns[2]),
		(unsigned long long)t.waits, n);
	for (size_t i = 0; i < n && i < top && fr_thread_time__off(&v[i]); i++) {
		fputs(i ? ", " : "; most waiting: ", f);
		fr_put_name(f, v[i].comm ? v[i].comm : "[unknown]");
		fprintf(f, " (tid %u) %.3f ms", v[i].tid, ms(fr_thread_time__off(&v[i])));
	}
	fputc('\n', f);
	free(v);
	return 0;
}

int fr_offcpu__print(struct fr_offcpu *oc, const char *source, double percent_limit, FILE *f)
{
	struct fr_offcpu_totals t;
	struct acc a = { 0 };
	int err;

	fr_offcpu__totals(oc, &t);
	fprintf(f, "\n# off-CPU: switch-out to switch-in of each thread, from %s\n", source);
	if (fr_offcpu__nr_threads(oc) < fr_offcpu__nr_all_threads(oc))
		fprintf(f, "# threads: %zu of %zu, as selected: the waits and sums here are theirs\n", fr_offcpu__nr_threads(oc),
			fr_offcpu__nr_all_threads(oc));
	fprintf(f, "# waits: %llu; cut at the window's start: %llu, at its end: %llu; "
		"switch-in not recorded: %llu\n", (unsigned long long)t.waits,
		(unsigned long long)t.cut_start, (unsigned long long)t.cut_end,
		(unsigned long long)t.no_switch_in);
	fprintf(f, "# off-CPU %.3f ms (S %.3f, D %.3f, R %.3f), on-CPU %.3f ms, sched delay "
		"%.3f ms, unknown %.3f ms\n#\n", ms(t.off_ns[0] + t.off_ns[1] + t.off_ns[2]),
		ms(t.off_ns[0]), ms(t.off_ns[1]), ms(t.off_ns[2]), ms(t.on_ns), ms(t.delay_ns),
		ms(t.unknown_ns));
	if (fr_offcpu__wakers(oc)) {
		struct fr_wakers_totals wt;

		fr_wakers__totals(fr_offcpu__wakers(oc), &wt);
		fprintf(f, "# wakers (sched_waking's stacks): %llu S and D waits, %.3f ms, joined to "
			"the wakeup that ended them; %llu, %.3f ms, with no wakeup recorded (before "
			"the window, or not recorded: not guessed)\n", (unsigned long long)wt.woken,
			ms(wt.woken_ns), (unsigned long long)wt.unwoken, ms(wt.unwoken_ns));
	}
	if (fr_offcpu__thresh(oc))
		print_sampling(oc, &t, f);
	if ((err = print_threads(oc, f)))
		return err;
	err = fr_folded__for_each(fr_offcpu__folded(oc), collect, &a);
	if (!err) {
		if (a.nr_fn)   /* qsort of a NULL array (none) is UB */
			qsort(a.fn, a.nr_fn, sizeof(*a.fn), cmp_fn);
		if (a.nr_st)
			qsort(a.st, a.nr_st, sizeof(*a.st), cmp_st);
		fprintf(f, "#\n# off-CPU per function (inclusive), by state; %% of all off-CPU time\n");
		fprintf(f, "# %12s %7s  state  function\n", "ms", "%");
		for (size_t i = 0; i < a.nr_fn; i++) {
			if (pct(a.fn[i].ns, a.total) < percent_limit)
				continue;
			fprintf(f, "  %12.3f %6.2f%%  %c      ", ms(a.fn[i].ns), pct(a.fn[i].ns, a.total),
				fr_wait_state__char((enum fr_wait_state)a.fn[i].state));
			fr_put_name(f, a.fn[i].sym->name);
			fputc('\n', f);
		}
		fprintf(f, "#\n# off-CPU per stack, by state (comm: leaf <- callers)%s\n",
			fr_offcpu__wakers(oc) ? "; under each, its top wakers (% of the stack's time)" : "");
		fprintf(f, "# %12s %7s  state\n", "ms", "%");
		for (size_t i = 0; i < a.nr_st; i++) {
			if (pct(a.st[i].ns, a.total) < percent_limit)
				continue;
			fprintf(f, "  %12.3f %6.2f%%  %c", ms(a.st[i].ns), pct(a.st[i].ns, a.total),
				fr_wait_state__char((enum fr_wait_state)a.st[i].state));
			print_stack(f, &a.st[i]);
			if (fr_offcpu__wakers(oc) && a.st[i].state != FR_WAIT_R &&
			    (err = fr_wakers__each_of(fr_offcpu__wakers(oc), a.st[i].comm,
						      a.st[i].frames, a.st[i].n, TOP_WAKERS,
						      print_waker, &(struct waker_line){ f, a.st[i].ns })))
				break;
		}
	}
	free(a.fn);
	free(a.st);
	fr_hmap__exit(&a.index);
	return err ? err : ferror(f) ? -EIO : 0;
}

static int cmp_wait(const void *x, const void *y)
{
	const struct fr_wait *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

const char *const fr_span_names[FR_SPAN_NR] = {
	[FR_SPAN_RUNNING] = "running", [FR_SPAN_RUNNABLE] = "runnable",
	[FR_SPAN_SLEEPING] = "sleeping", [FR_SPAN_BLOCKED] = "blocked on I/O",
};

/* One wait: its blocked part, then runnable from its wakeup. */
static int wait_spans(const struct fr_thread_time *t, size_t ti, const struct fr_wait *w,
		      fr_span_cb cb, void *ctx)
{
	uint64_t wake = w->state != FR_WAIT_R && w->wake > w->start && w->wake < w->end ? w->wake
										     : w->end;
	enum fr_span kind = w->state == FR_WAIT_R ? FR_SPAN_RUNNABLE
			    : w->state == FR_WAIT_D ? FR_SPAN_BLOCKED : FR_SPAN_SLEEPING;
	int err = cb(ctx, ti, t, kind, w->start, wake);

	return !err && wake < w->end ? cb(ctx, ti, t, FR_SPAN_RUNNABLE, wake, w->end) : err;
}

int fr_offcpu__spans(struct fr_offcpu *oc, fr_span_cb cb, void *ctx)
{
	size_t n, nu, nt = fr_offcpu__nr_threads(oc);
	const struct fr_wait *src = fr_offcpu__waits(oc, &n);
	const struct fr_wait *unk = fr_offcpu__unknowns(oc, &nu);
	struct fr_wait *w = malloc((n + nu + 1) * sizeof(*w));
	int err = 0;

	if (!w)
		return -ENOMEM;
	if (n)   /* (src NULL when there are none) */
		memcpy(w, src, n * sizeof(*w));
	/* the times not known: no span (never "running") */
	for (size_t i = 0; i < nu; i++) {
		w[n + i] = unk[i];
		w[n + i].state = FR_WAIT_NR;
	}
	n += nu;
	qsort(w, n, sizeof(*w), cmp_wait);
	for (size_t i = 0; i < nt && !err; i++) {
		struct fr_thread_time t;
		size_t lo = 0, hi = n;
		uint64_t at;

		fr_offcpu__thread(oc, i, &t);
		while (lo < hi) {   /* the first wait of the thread's tid */
			size_t mid = lo + (hi - lo) / 2;

			if (w[mid].tid < t.tid)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* running in the gaps between its waits, from its start to its end */
		at = t.start;
		for (size_t k = lo; k < n && w[k].tid == t.tid && !err; k++) {
			if (w[k].start < t.start || w[k].end > t.end)
				continue;   /* an earlier thread of the same tid */
			if (w[k].start > at)
				err = cb(ctx, i, &t, FR_SPAN_RUNNING, at, w[k].start);
			if (!err && w[k].state != FR_WAIT_NR)
				err = wait_spans(&t, i, &w[k], cb, ctx);
			at = w[k].end;
		}
		if (!err && t.end > at)
			err = cb(ctx, i, &t, FR_SPAN_RUNNING, at, t.end);
	}
	free(w);
	return err;
}

struct jspan {
	struct fr_json *j;
	uint64_t t1;   /* the window's end */
};

/* A running slice 1 ns wider at each end, so that the flame chart's frames
 * in it (sample times, closed at the switch-out) nest inside in viewers; one
 * that runs to the window's end runs to the end of its last sample's period
 * where that is later (around its frames); the other states 2 ns narrower at
 * each end, so that no two slices of a thread overlap, not even as a viewer
 * computes ts + dur in doubles (speedscope refuses a trace whose slices
 * cross). */
static int json_span(void *ctx, size_t ti, const struct fr_thread_time *t, enum fr_span kind,
		     uint64_t from, uint64_t to)
{
	struct jspan *js = ctx;

	(void)ti;
	if (kind == FR_SPAN_RUNNING) {
		uint64_t fe = to >= js->t1 ? fr_json__frames_end(js->j, t->tid) : 0;

		to = fe > to ? fe : to;
		from -= from > 0;
		to += to < UINT64_MAX;
	} else {
		from += 2;
		to -= to > 1 ? 2 : to;
		if (to <= from)
			return 0;   /* 4 ns or less: within the running slices' widening */
	}
	return fr_json__slice(js->j, fr_span_names[kind], t->pid, t->tid, from, to);
}

/* An arrow from each waker to the wait it ended (recorded sched_waking),
 * at the wakeup: from the waker's running slice to the wakee's runnable one. */
static int json_flows(struct fr_offcpu *oc, struct fr_json *j)
{
	size_t n;
	const struct fr_wait *w = fr_offcpu__waits(oc, &n);
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		if (w[i].waker_tid && w[i].wake > w[i].start && w[i].wake <= w[i].end)
			err = fr_json__flow(j, i + 1, w[i].waker_pid, w[i].waker_tid, w[i].pid,
					    w[i].tid, w[i].wake);
	return err;
}

int fr_offcpu__json(struct fr_offcpu *oc, struct fr_json *j)
{
	struct jspan js = { .j = j };
	uint64_t t0;

	/* a thread that exited: its last frames end at its exit, not a sample
	 * period later, within its last running slice */
	fr_offcpu__window(oc, &t0, &js.t1);
	for (size_t i = 0; i < fr_offcpu__nr_threads(oc); i++) {
		struct fr_thread_time t;

		fr_offcpu__thread(oc, i, &t);
		if (t.end < js.t1)
			fr_json__switched_out(j, t.tid, t.end);
	}
	int err = fr_offcpu__spans(oc, json_span, &js);

	return err ? err : json_flows(oc, j);
}
