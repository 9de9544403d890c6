/* src/report/out/out_text.c: the text output (the default): each selected
 * event's histogram (hist.c), merged from a parallel pass's parts; printed
 * with the '#' header (the file, its spans, samples per event), the off-CPU
 * section and the notes on what could not be named.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/out/output.h"

struct text {
	struct fr_hist **hists;   /* by event index, made at its first sample */
	size_t nr_events;
	const struct fr_hist_opts *o;
};

static void print_header(struct report *rp, const char *path)
{
	static const char *keys[] = { "hostname", "kernel_release", "target", "trigger" };
	const struct fr_report_opts *o = rp->o;
	char note[1024];

	fputs("# flightrec report: ", rp->out);
	fr_text__put_escaped(rp->out, path);
	fputc('\n', rp->out);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = fr_reader__meta(rp->rd, keys[i]);

		if (!strcmp(keys[i], "trigger") && fr_input__trigger_note(rp->rd, note, sizeof(note)))
			fprintf(rp->out, "# %s\n", note);   /* the blob says more: who, how long */
		else if (v)
			fprintf(rp->out, "# %s: %s\n", keys[i], v);
	}
	fr_walltime__header(rp->out, rp->rd);
	fprintf(rp->out, "# samples: %llu", (unsigned long long)rp->samples);
	if (rp->samples) {
		fprintf(rp->out, ", from ");
		fr_walltime__put_mono(rp->out, rp->first);
		fprintf(rp->out, " to ");
		fr_walltime__put_mono(rp->out, rp->last);
		fprintf(rp->out, " (%.3f s)", (double)(rp->last - rp->first) / 1e9);
	}
	fprintf(rp->out, "; lost: %llu\n", (unsigned long long)fr_input__lost(rp->rd, rp->lost));
	if (fr_input__wrap_note(rp->rd, note, sizeof(note)))
		fprintf(rp->out, "# %s\n", note);
	if (fr_input__hotplug_note(rp->rd, note, sizeof(note)))
		fprintf(rp->out, "# %s\n", note);
	if (o->has_time || o->nr_pids || o->nr_tids || o->nr_comms || o->nr_events)
		fprintf(rp->out, "# (selected with --time, --pid, --tid, --comm or -e)\n");
	fprintf(rp->out, "#\n# samples per event\n");
	for (size_t k = 0; k < rp->nr_events; k++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, k);

		if (!(e->flags & FR_EVENT_SIDEBAND) && e->index < rp->nr_events)
			fprintf(rp->out, "# %12llu  %s\n", (unsigned long long)rp->counts[e->index], e->name);
	}
	if (rp->oc)
		fr_offcpu_in__summary(rp->oc, rp->out);
	fprintf(rp->out, "#\n");
}

struct note {
	const char *path, *used;
	enum fr_dso_status st;
};

static int cmp_note(const void *a, const void *b)
{
	return strcmp(((const struct note *)a)->path, ((const struct note *)b)->path);
}

static struct fr_resolver *resolver_of(struct report *rp, unsigned i)
{
	return rp->nworkers ? rp->workers[i].rp.res : rp->res;
}

/* Files not (fully) used, in path order (of every worker's resolver in a
 * parallel report, each once), missing kernel symbols, failed unwinds. */
static void print_notes(struct report *rp, FILE *f)
{
	unsigned nres = rp->nworkers ? rp->nworkers : 1;
	struct note *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t unwind = 0, jit_named = 0, jit_unnamed = 0;
	bool ksyms = false;

	for (unsigned r = 0; r < nres; r++) {
		struct fr_resolver *res = resolver_of(rp, r);
		struct fr_symbolizer *s = fr_resolver__symbolizer(res);

		for (size_t i = 0; i < fr_symbolizer__nr_dsos(s); i++) {
			struct note x;

			if (fr_symbolizer__dso_status(s, i, &x.path, &x.st, &x.used) ||
			    x.st == FR_DSO_OK || x.st == FR_DSO_SPECIAL)
				continue;
			if (fr_grow(&v, &cap, n + 1, sizeof(*v), 16))
				break;
			v[n++] = x;
		}
		uint64_t named, unnamed;

		ksyms |= fr_resolver__missed_ksyms(res);
		unwind += fr_resolver__unwind_failures(res);
		fr_resolver__jit_stats(res, &named, &unnamed);
		jit_named += named;
		jit_unnamed += unnamed;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_note);
	for (size_t i = 0; i < n; i++) {
		if (i && !strcmp(v[i].path, v[i - 1].path))
			continue;
		if (!i)
			fprintf(f, "# files not (fully) symbolized:\n");
		fputs("#   ", f);
		fr_text__put_escaped(f, v[i].path);
		fprintf(f, ": %s%s%s\n", fr_dso_status__str(v[i].st),
			v[i].used ? ", used " : "", v[i].used ? v[i].used : "");
	}
	free(v);
	if (ksyms && (fr_reader__nr_blobs(rp->rd, FR_BLOB_KSYMS) || fr_reader__nr_damaged(rp->rd)))
		fprintf(f, "# the kernel symbols of the file (KSYMS blob) are damaged or missing: "
			"kernel addresses are [unknown]\n");
	else if (ksyms)
		fprintf(f, "# no kernel symbols in the file (KSYMS blob): kernel addresses are "
			"[unknown]\n");
	if (unwind)
		fprintf(f, "# %llu samples: the user stack did not unwind past the sampled ip\n",
			(unsigned long long)unwind);
	if (jit_unnamed)
		fprintf(f, "# %llu frames in anonymous memory (JIT code) not named: no perf map "
			"entry covers them (%llu JIT frames named)\n", (unsigned long long)jit_unnamed,
			(unsigned long long)jit_named);
}

static void close_text(void *st)
{
	struct text *t = st;

	if (!t)
		return;
	for (size_t i = 0; t->hists && i < t->nr_events; i++)
		fr_hist__delete(t->hists[i]);
	free(t->hists);
	free(t);
}

static int open_text(struct report *rp, void **st)
{
	struct text *t = calloc(1, sizeof(*t));

	if (!t || !(t->hists = calloc(rp->nr_events + 1, sizeof(*t->hists)))) {
		free(t);
		return -ENOMEM;
	}
	t->nr_events = rp->nr_events;
	t->o = &rp->o->hist;
	*st = t;
	return 0;
}

static int add(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	struct text *t = st;
	size_t i = r->event->index;
	int err;

	if (i >= t->nr_events)
		return 0;
	if (!t->hists[i] && (err = fr_hist__new(t->o, &t->hists[i])))
		return err;
	return fr_hist__add(t->hists[i], rs);
}

static int merge(void *st, void *part)
{
	struct text *t = st, *x = part;
	int err = 0;

	for (size_t k = 0; k < t->nr_events && k < x->nr_events && !err; k++) {
		if (!x->hists[k])
			continue;
		if (!t->hists[k])
			err = fr_hist__new(t->o, &t->hists[k]);
		if (!err)
			err = fr_hist__merge(t->hists[k], x->hists[k]);
	}
	return err;
}

static int finish(void *st, struct report *rp, const char *path)
{
	struct text *t = st;
	int err = 0;

	if (!rp->o->no_header)
		print_header(rp, path);
	for (size_t k = 0; k < rp->nr_events && !err; k++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, k);

		if (e->index < t->nr_events && t->hists[e->index])
			err = fr_hist__print(t->hists[e->index], e->name, rp->out);
	}
	if (!err && rp->oc)
		err = fr_offcpu_in__print(rp->oc, rp->o->hist.percent_limit, rp->out);
	if (!err && !rp->o->no_header)
		print_notes(rp, rp->out);
	return err;
}

const struct fr_output_ops fr_output_text = {
	.name = "text", .fold = FR_FOLD_EACH, .keyed = true, .escaped = true, .offcpu_default = true,
	.latency = true,
	.open = open_text, .sample = add, .merge = merge, .finish = finish, .close = close_text,
};
