/* src/report/run.c: one report: the pass over a file that applies the
 * filters, feeds sideband records to the resolver, switches to the off-CPU
 * stage and resolved samples and waits to the chosen output (out/output.h: it
 * names none), with a progress line on a terminal, in parallel parts where
 * the output merges them.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/util.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/out/output.h"
#include "src/report/pass/pass.h"
#include "src/report/report.h"
#include "src/report/tp/tpdecode.h"

/* The sample, if the filters keep it, to the outputs; one the off-CPU
 * stage took (offcpu: 1) only counted. */
static int report_sample(struct report *rp, const struct fr_rec *r, int offcpu)
{
	const struct fr_report_opts *o = rp->o;
	const struct fr_file_event *e = r->event;
	const struct fr_sample *s = r->sample;   /* parsed once, by the reader */
	struct fr_rsample rs;
	int err;

	if (offcpu) {
		if (e->index < rp->nr_events && (!o->has_time || fr_time_ranges__has(&o->ranges, r->time)))
			rp->counts[e->index]++;
		return 0;
	}
	if (!s)
		return 0;   /* its body does not parse: the reader counted it */
	if (s->raw)   /* every tracepoint record, selected or not: one with a field outside it is counted */
		fr_tpdecode__check(rp->tp, e->name, s->raw, s->raw_size);
	if (e->index >= rp->nr_events || !rp->selected[e->index])
		return 0;
	if (o->has_time && !fr_time_ranges__has(&o->ranges, r->time))
		return 0;
	if ((o->nr_pids || o->nr_tids || o->nr_comms) &&   /* no filter: no call per sample */
	    !fr_report_opts__selects(o, s->pid, s->tid, o->nr_comms ? fr_resolver__comm(rp->res, s->tid,
									        r->time) : NULL))
		return 0;
	err = fr_resolver__sample(rp->res, r, s, rp->need_stack, &rs);
	if (err)
		return err;
	if (rp->latency)
		rs.parallelism = fr_offcpu_in__parallelism(rp->oc, rs.pid, rs.tid);
	if (!rp->samples++)
		rp->first = r->time;
	rp->last = r->time;
	rp->counts[e->index]++;
	return rp->ops->sample(rp->ost, rp, r, &rs);
}

/* An off-CPU wait from the stage, to the output that draws them. */
static int wait_cb(void *ctx, const struct fr_rsample *s)
{
	struct report *rp = ctx;

	return rp->ops->wait ? rp->ops->wait(rp->ost, rp, s) : 0;
}

static double elapsed(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) + (double)(now.tv_nsec - since->tv_nsec) / 1e9;
}

/* "report: N%" on stderr, by how far into the window the merge is, once the
 * pass has taken a second; checked every 64k records. */
static void progress(struct report *rp, uint64_t time)
{
	int pct;

	if (++rp->records & 0xffff || !time || rp->t1 <= rp->t0 || elapsed(&rp->started) < 1.0)
		return;
	pct = time <= rp->t0 ? 0 : time >= rp->t1 ? 99
	      : (int)((double)(time - rp->t0) * 100 / (double)(rp->t1 - rp->t0));
	if (pct != rp->shown) {
		fprintf(stderr, "\rreport: %d%% of the window", pct);
		rp->shown = pct;
	}
}

static int report_cb(void *ctx, const struct fr_rec *r)
{
	struct report *rp = ctx;
	int err = 0, taken = 0;

	if (rp->progress)
		progress(rp, r->time);
	if (!r->event)
		return 0;
	if (rp->oc && (taken = fr_offcpu_in__take(rp->oc, r)) < 0)
		err = taken;
	else if (r->kind == FR_STREAM_SIDEBAND)
		err = fr_resolver__sideband(rp->res, r);
	else if (r->h->type == PERF_RECORD_SAMPLE)
		err = report_sample(rp, r, taken);
	else if (r->h->type == PERF_RECORD_LOST) {
		struct fr_lost l;

		if (!fr_record__lost(r->h, &l)) {
			/* saturated: counts from a file can wrap a plain sum to 0 */
			rp->lost = fr_u64__sat_add(rp->lost, l.lost);
			if (rp->ops->lost)
				rp->ops->lost(rp->ost, r->cpu, r->time, l.lost);
		}
	}
	if (err) {
		rp->err = err;
		return 1;
	}
	return 0;
}

/* -g needs stacks: a file whose selected events recorded none says so
 * rather than printing one-frame "call paths". */
static int check_callchains(struct report *rp)
{
	for (size_t k = 0; k < rp->nr_events; k++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, k);

		if (e->index < rp->nr_events && rp->selected[e->index] &&
		    (e->attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER)))
			return FR_EXIT_OK;
	}
	fr_err("-g", "the file has no call chains (record with -g or --call-graph dwarf)");
	return FR_EXIT_USAGE;
}

/* Which events to report: -e names, else all; an output that folds one
 * event takes the first, html draws the first sampled one of those chosen. */
static int select_events(struct report *rp)
{
	const struct fr_report_opts *o = rp->o;
	size_t chosen = 0, left = 0;
	char names[512] = "";

	for (size_t i = 0; i < o->nr_events; i++) {
		bool found = false;

		for (size_t k = 0; k < rp->nr_events; k++) {
			const struct fr_file_event *e = fr_reader__event(rp->rd, k);

			if (!(e->flags & FR_EVENT_SIDEBAND) && !strcmp(e->name, o->events[i]) &&
			    e->index < rp->nr_events)
				found = rp->selected[e->index] = true;
		}
		if (!found) {
			fr_err(o->events[i], "no such event in the file");
			return FR_EXIT_USAGE;
		}
	}
	for (size_t k = 0; k < rp->nr_events; k++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, k);

		if (e->index >= rp->nr_events || (e->flags & FR_EVENT_SIDEBAND) ||
		    (rp->oc && fr_offcpu_in__event(rp->oc, e)) ||
		    (fr_offcpu_in__stack_event(e) && !rp->selected[e->index]))
			continue;
		if (!o->nr_events)
			rp->selected[e->index] = true;
		if (rp->selected[e->index] && (!rp->fold_ev ||
		    (rp->fold_ev->attr.type == PERF_TYPE_TRACEPOINT &&
		     e->attr.type != PERF_TYPE_TRACEPOINT && rp->ops->fold == FR_FOLD_SAMPLED_FIRST)))
			rp->fold_ev = e;
		if (rp->selected[e->index] && rp->ops->fold == FR_FOLD_ONE && chosen++) {
			size_t n = strlen(names);

			rp->selected[e->index] = false;
			snprintf(names + n, sizeof(names) - n, "%s%s", left++ ? ", " : "", e->name);
		}
	}
	if (rp->oc && !fr_offcpu_in__usable(rp->oc)) {
		fr_err("--off-cpu", "the file has no context switches (record with --off-cpu)");
		return FR_EXIT_USAGE;
	}
	if (left)
		fr_err("--format", "the file has several events; folding only the first (choose "
		       "with -e), left out: %s", names);
	return rp->ops->keyed && o->hist.callchains ? check_callchains(rp) : FR_EXIT_OK;
}

/* What the histogram reads of a frame: source lines only for the srcline
 * key, inline frames only for srcline and call paths (the leaf's function is
 * the one the inline instances are in). Lines and inline instances come from
 * DWARF, often a separate compressed debug file: a report that shows neither
 * never opens it (names come from the symbol table). */
static const struct fr_symbolizer_opts *keyed_sym_opts(const struct report *rp,
						       struct fr_symbolizer_opts *so)
{
	const struct fr_report_opts *o = rp->o;
	bool srcline = false;

	if (!rp->ops->keyed)
		return &o->sym;
	for (int k = 0; k < o->hist.nr_keys; k++)
		srcline |= o->hist.keys[k] == FR_KEY_SRCLINE;
	*so = o->sym;
	so->no_srcline |= !srcline;
	so->no_inline |= !srcline && !o->hist.callchains;
	return so;
}

static int setup(struct report *rp)
{
	const struct fr_report_opts *o = rp->o;
	struct fr_symbolizer_opts so;
	uint64_t ft0, ft1;   /* the file's window */
	int err;

	rp->nr_events = fr_reader__nr_events(rp->rd);
	rp->counts = calloc(rp->nr_events + 1, sizeof(*rp->counts));
	rp->selected = calloc(rp->nr_events + 1, sizeof(*rp->selected));
	if (!rp->counts || !rp->selected || fr_input__tpdecode(rp->rd, &rp->tp))
		return -ENOMEM;
	for (size_t i = 0; i < rp->nr_events; i++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, i);

		if (!(e->flags & FR_EVENT_SIDEBAND) && strlen(e->name) > (size_t)rp->name_width)
			rp->name_width = strlen(e->name) < 256 ? (int)strlen(e->name) : 256;
	}
	rp->need_stack = !rp->ops->keyed || o->hist.callchains;
	for (int k = 0; k < o->hist.nr_keys; k++)
		if (o->hist.keys[k] == FR_KEY_DSO || o->hist.keys[k] == FR_KEY_SYM ||
		    o->hist.keys[k] == FR_KEY_SRCLINE)
			rp->need_stack = true;
	err = fr_resolver__new(rp->rd, keyed_sym_opts(rp, &so), &rp->res);
	if (err)
		return err;
	/* the histogram without call paths keys on the sample's own frames */
	fr_resolver__leaf_only(rp->res, rp->ops->keyed && !o->hist.callchains &&
			       !o->hist.children && !o->off_cpu);
	for (size_t i = 0; i < fr_reader__nr_cpu_stats(rp->rd); i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rp->rd, i);

		if (cs->first_time && (!rp->t0 || cs->first_time < rp->t0))
			rp->t0 = cs->first_time;
		if (cs->last_time > rp->t1)
			rp->t1 = cs->last_time;
	}
	ft0 = rp->t0;
	ft1 = rp->t1;
	if (o->has_time) {
		rp->t0 = o->t0 > rp->t0 ? o->t0 : rp->t0;
		rp->t1 = o->t1 < rp->t1 ? o->t1 : rp->t1;
	}
	/* the off-CPU stage first: the output opens knowing whether it has one
	 * (its waits reach the output's state only once the pass runs); the
	 * critical path's over the whole file: a wait begun before --time's
	 * range keeps its stack and waker (the path is cut to the range) */
	if (o->off_cpu &&
	    (err = fr_offcpu_in__new(rp->rd, rp->res, rp->tp, o->crit_path ? ft0 : rp->t0,
				     o->crit_path ? ft1 : rp->t1,
				     rp->ops->wait ? wait_cb : NULL, rp, rp->ops->wait_intervals,
				     &rp->oc)))
		return err;
	if (rp->oc)
		fr_offcpu_in__select(rp->oc, o);
	/* the latency view: the stage counts who is on a CPU (time_opts
	 * checked that the file's switches say it) */
	if (rp->oc && (o->hist.latency || o->latency)) {
		if ((err = fr_offcpu_in__track_parallelism(rp->oc)))
			return err;
		rp->latency = true;
	}
	return rp->ops->open(rp, &rp->ost);
}

static void teardown(struct report *rp)
{
	rp->ops->close(rp->ost);
	rp->ost = NULL;
	free(rp->counts);
	free(rp->selected);
	fr_offcpu_in__delete(rp->oc);
	fr_resolver__delete(rp->res);
	fr_tpdecode__delete(rp->tp);
	fr_reader__close(rp->rd);
}

/* Files smaller than this are read in the report's thread (readahead.c's
 * thread and batches are for big files; a 1 MiB file holds ~10^5-10^6 events). */
#define READAHEAD_MIN_BYTES (1 << 20)

/* ---- the text histogram in parallel ------------------------------------
 * On this kind of host moving records between CPUs costs more than reading
 * them (doc/design-notes.md): each worker opens the file, walks the sample
 * streams of its share of the CPUs with every sideband record, resolves them
 * with a resolver of its own and fills its own histograms; they are merged by
 * name at the end. The other formats keep one ordered pass. */
#define PAR_MAX 8

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int err = fr_reader__open(w->path, &w->rp.rd);

	if (!err)
		err = setup(&w->rp);
	if (!err && select_events(&w->rp))
		err = -EINVAL;
	if (!err) {
		fr_reader__set_cpu_part(w->rp.rd, w->part, w->nparts);
		err = fr_reader__for_each(w->rp.rd, report_cb, &w->rp);
	}
	/* anything but a clean walk: the report is made again in one pass,
	 * which says what happened as it always does */
	if (!err && (w->rp.err || fr_reader__nr_damaged(w->rp.rd) || fr_reader__truncated(w->rp.rd) ||
		     fr_reader__unusable(w->rp.rd, NULL) || fr_tpdecode__nr_bad(w->rp.tp)))
		err = w->rp.err ? w->rp.err : -EBADMSG;
	w->err = err;
	return NULL;
}

/* How many workers (big: a file of READAHEAD_MIN_BYTES or more): 0 for one
 * ordered pass. */
static unsigned par_parts(const struct report *rp, bool big)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = fr_reader__nr_cpu_stats(rp->rd);

	if (!rp->ops->merge || rp->o->off_cpu || getenv("FLIGHTREC_REPORT_ONE_PASS") ||
	    ncpu < 2 || !big ||
	    fr_reader__nr_damaged(rp->rd) || fr_reader__truncated(rp->rd))
		return 0;
	if (n > (size_t)ncpu)
		n = (size_t)ncpu;
	if (n > PAR_MAX)
		n = PAR_MAX;
	return n >= 2 ? (unsigned)n : 0;
}

static void par_free(struct report *rp)
{
	for (unsigned i = 0; i < rp->nworkers; i++)
		teardown(&rp->workers[i].rp);
	free(rp->workers);
	rp->workers = NULL;
	rp->nworkers = 0;
}

/* The workers' figures and histograms into rp: 0, or non-zero when the
 * report must be made in one pass instead. */
static int par_run(struct report *rp, const char *path, unsigned n)
{
	struct worker *w = calloc(n, sizeof(*w));
	pthread_t th[PAR_MAX];
	bool started[PAR_MAX] = { false };
	int err = 0;

	if (!w)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		w[i] = (struct worker){ { .o = rp->o, .ops = rp->ops, .out = rp->out, .shown = -1 },
					path, i, n, 0 };
	for (unsigned i = 1; i < n; i++)
		started[i] = !pthread_create(&th[i], NULL, worker_main, &w[i]);
	worker_main(&w[0]);
	for (unsigned i = 1; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			worker_main(&w[i]);
	}
	rp->workers = w;
	rp->nworkers = n;
	for (unsigned i = 0; i < n && !err; i++)
		err = w[i].err;
	for (unsigned i = 0; i < n && !err; i++) {
		struct report *x = &w[i].rp;

		if (x->samples && (!rp->samples || x->first < rp->first))
			rp->first = x->first;
		if (x->samples && x->last > rp->last)
			rp->last = x->last;
		rp->samples += x->samples;
		rp->lost = fr_u64__sat_add(rp->lost, x->lost);
		for (size_t k = 0; k < rp->nr_events; k++)
			rp->counts[k] += x->counts[k];
		err = rp->ops->merge(rp->ost, x->ost);
	}
	if (err) {   /* back to nothing: one pass makes it */
		for (size_t k = 0; k < rp->nr_events; k++)
			rp->counts[k] = 0;
		rp->ops->close(rp->ost);
		rp->ost = NULL;
		if (rp->ops->open(rp, &rp->ost))
			return -ENOMEM;
		rp->samples = rp->lost = rp->first = rp->last = 0;
		par_free(rp);
	}
	return err;
}

/* The output failed (a write refused: -o on a full disk, a closed pipe):
 * said naming the output, with the write's own errno. */
static bool output_failed(struct report *rp, const struct fr_outfile *of, const char *out_name)
{
	int err = fr_outfile__err(of);

	if (!err && rp->out && ferror(rp->out))
		err = -EIO;
	if (err)
		fr_err(out_name, "%s", strerror(-err));
	return err != 0;
}

/* The latency view: a column of the text report wherever the file's
 * switches give each sample's parallelism; --latency and --sort latency
 * where they cannot is a usage error, said (1), as is an output without
 * one. */
static int latency_opts(struct report *rp, struct fr_report_opts *ro)
{
	const char *opt = ro->latency ? "--latency" : "--sort latency";
	bool asked = ro->latency || (ro->hist.by_latency && rp->ops->keyed);   /* --sort: text's */
	const char *why = NULL;

	if (asked && !rp->ops->latency)
		why = "the text, flamegraph, folded and pprof outputs have a latency view, "
		      "not this one";
	else if (asked && ro->no_off_cpu)
		why = "it reads the context switches that --no-off-cpu leaves out";
	else if (asked || (ro->off_cpu && rp->ops->keyed))
		why = fr_offcpu_in__no_latency(rp->rd);
	if (why && asked) {
		fr_err(opt, "%s", why);
		return 1;
	}
	/* (the outputs with a latency view read the switches by default, so
	 * the off-CPU stage is there); the text report shows the column */
	ro->hist.by_latency |= ro->latency;
	ro->hist.latency = !why && ro->off_cpu && rp->ops->keyed;
	return 0;
}

/* --wakers: an output that draws them, a file that recorded them (the
 * text report shows them unasked where it did). 1 after a usage error said. */
static int wakers_opts(struct report *rp, const struct fr_report_opts *ro)
{
	const char *opt = ro->crit_path ? "--critical-path" : "--wakers";
	const char *why = !ro->wakers && !ro->crit_path ? NULL
			  : !rp->ops->wakers ? "the folded and flamegraph outputs draw the waits with "
					       "their wakers (the text report lists them unasked)"
			  : ro->no_off_cpu ? "it reads the context switches that --no-off-cpu leaves out"
			  : fr_offcpu_in__no_wakers(rp->rd);

	if (why)
		fr_err(opt, "%s", why);
	return why != NULL;
}

/* --time against the file and --tod's clock: an exit code, the error said. */
static int time_opts(struct report *rp, const struct fr_report_opts *o, struct fr_report_opts *ro)
{
	const char *why = "";

	*ro = *o;
	rp->o = ro;
	if (o->has_time) {
		if (fr_input__time_ranges(rp->rd, &o->time, &ro->ranges, &why)) {
			fr_err("--time", "%s", why);
			return FR_EXIT_USAGE;
		}
		ro->t0 = UINT64_MAX;
		ro->t1 = 0;
		for (size_t i = 0; i < ro->ranges.n; i++) {
			ro->t0 = ro->ranges.lo[i] < ro->t0 ? ro->ranges.lo[i] : ro->t0;
			ro->t1 = ro->ranges.hi[i] > ro->t1 ? ro->ranges.hi[i] : ro->t1;
		}
	}
	/* a file that recorded why threads waited shows it, as perf shows
	 * every event it recorded (--no-off-cpu leaves it out); perf-script
	 * prints the records themselves, and the JSON trace's state slices
	 * do not nest with its samples' frames yet (asked for, they are there) */
	if (!o->off_cpu && !o->no_off_cpu && rp->ops->offcpu_default &&
	    fr_offcpu_in__in_file(rp->rd))
		ro->off_cpu = true;
	if (latency_opts(rp, ro) || wakers_opts(rp, ro))
		return FR_EXIT_USAGE;
	if (o->tod && rp->ops->tod) {
		if (fr_clock__of_file(rp->rd, &rp->clock)) {
			fr_err("--tod", "the file has no wall-clock reference (no clock_pair_* or "
			       "realtime_offset_ns meta)");
			return FR_EXIT_USAGE;
		}
		rp->tod = &rp->clock;
	}
	return FR_EXIT_OK;
}

int fr_report__run(const struct fr_report_opts *o, const char *path)
{
	struct fr_report_opts ro;
	struct stat sb;
	struct report rp = { .o = o, .ops = fr_output__find(o->format), .out = stdout, .shown = -1 };
	const char *out_name = o->output ? o->output : "stdout";
	struct fr_outfile *of = NULL;
	int ret = fr_input__open(path, &rp.rd), err;
	FILE *real = stdout, *safe = NULL;
	unsigned nparts;
	bool sized, held;

	if (ret)
		return ret;
	if ((ret = time_opts(&rp, o, &ro)))
		goto out;
	o = &ro;
	err = fr_outfile__open(o->output, &of);
	if (err) {
		fr_err(out_name, "%s", strerror(-err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	rp.out = real = fr_outfile__stream(of);
	/* names from the file go out escaped in the text formats (JSON, SVG and
	 * HTML escape their own; pprof is binary) */
	if (rp.ops->escaped && (safe = fr_input__escaping(real)))
		rp.out = safe;
	rp.progress = !o->quiet && isatty(2);
	clock_gettime(CLOCK_MONOTONIC, &rp.started);
	err = setup(&rp);
	if (err) {
		fr_err(path, "%s", strerror(-err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	ret = select_events(&rp);
	if (ret)
		goto out;
	/* a second thread reads ahead only where there is much to read: for a
	 * small file, starting it and its 4 MiB of batches costs more */
	sized = stat(path, &sb) == 0;
	if ((nparts = par_parts(&rp, sized && sb.st_size >= READAHEAD_MIN_BYTES)) &&
	    !par_run(&rp, path, nparts))
		err = 0;
	else if (sized && sb.st_size < READAHEAD_MIN_BYTES)
		err = fr_reader__for_each(rp.rd, report_cb, &rp);
	else
		err = fr_readahead__for_each(rp.rd, report_cb, &rp);
	if (rp.shown >= 0)
		fputs("\r\033[K", stderr);
	if (!rp.err && rp.oc)
		rp.err = fr_offcpu_in__finish(rp.oc);
	if (rp.err) {
		if (!output_failed(&rp, of, out_name))   /* else the input is to blame */
			fr_err(path, "%s", strerror(-rp.err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	/* filters that select nothing: what the file holds instead (JSON
	 * still closes its document) */
	held = !rp.samples && (o->has_time || o->nr_pids || o->nr_tids || o->nr_comms) &&
	       (!rp.oc || !fr_offcpu_in__nr_threads(rp.oc));
	if (!held || rp.ops->finish_empty)
		rp.err = rp.ops->finish(rp.ost, &rp, path);
	if (safe) {
		rp.out = real;
		if (fclose(safe) && !rp.err)
			rp.err = -EIO;
		safe = NULL;
	}
	fflush(rp.out);
	if (output_failed(&rp, of, out_name)) {
		ret = FR_EXIT_ERROR;
	} else if (rp.err == -ESRCH && o->crit_path) {
		fr_err(path, "--critical-path: thread %u was not seen in the window (no switch of "
		       "it recorded)", o->crit_tid);
		ret = FR_EXIT_PARTIAL;
	} else if (rp.err) {
		fr_err(out_name, "%s", strerror(-rp.err));
		ret = FR_EXIT_ERROR;
	} else if (!(ret = fr_input__walk_verdict(rp.rd, path, err, "reported")) && held &&
		   !fr_reader__truncated(rp.rd)) {
		struct fr_symbolizer_opts so = o->sym;

		ret = fr_held__say(path, &so);
	}
	if (ret != FR_EXIT_ERROR && fr_input__content_verdict(rp.rd, path, rp.tp, rp.lost) &&
	    ret == FR_EXIT_OK)
		ret = FR_EXIT_PARTIAL;
out:
	if (safe)
		fclose(safe);
	teardown(&rp);
	par_free(&rp);
	/* -o FILE takes the new report's place only when it is whole */
	if (of && (ret == FR_EXIT_OK || ret == FR_EXIT_PARTIAL)) {
		err = fr_outfile__commit(of);
		if (err) {
			fr_err(out_name, "%s", strerror(-err));
			ret = FR_EXIT_ERROR;
		}
	} else {
		fr_outfile__abort(of);
	}
	return ret;
}

bool fr_report__format_known(const char *name)
{
	return name && fr_output__find(name);
}

bool fr_report__format_binary(const char *name)
{
	const struct fr_output_ops *op = fr_output__find(name);

	return op && op->binary;
}

const char *fr_report__format_names(void)
{
	static char buf[256];
	const struct fr_output_ops *op;
	size_t n = 0;

	while (fr_output__at(n))
		n++;
	buf[0] = '\0';
	for (size_t i = 0; (op = fr_output__at(i)); i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
			 i ? (i + 1 == n ? " or " : ", ") : "", op->name);
	return buf;
}
