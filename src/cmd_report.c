/* src/cmd_report.c: `flightrec report`: options, filters and the one pass
 * over a file that feeds sideband records to the resolver and resolved
 * samples to the chosen output (text histogram, folded, perf-script, JSON).
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "src/flightrec.h"
#include "src/parse.h"
#include "src/report/report.h"
#include "src/report/tpdecode.h"

#define MAX_SYMDIRS 16
#define MAX_LIST 64

enum fmt { FMT_TEXT, FMT_FOLDED, FMT_SCRIPT, FMT_JSON };

enum {
	OPT_FOLDED = 1000, OPT_FORMAT, OPT_PERIOD, OPT_PID, OPT_TID, OPT_COMM, OPT_TIME,
	OPT_SYMFS, OPT_SYMDIR, OPT_NO_INLINE, OPT_PERCENT, OPT_RAW, OPT_NO_HEADER, OPT_STDIO,
};

struct report_opts {
	const char *input, *dir;
	struct fr_hist_opts hist;
	enum fmt fmt;
	bool raw, no_header;
	int *pids, *tids;
	size_t nr_pids, nr_tids;
	const char *comms[MAX_LIST], *events[MAX_LIST];
	size_t nr_comms, nr_events;
	bool has_time;
	uint64_t t0, t1;
	struct fr_symbolizer_opts sym;
	const char *symdirs[MAX_SYMDIRS];
	int usage_err;
};

struct report {
	const struct report_opts *o;
	struct fr_reader *rd;
	struct fr_resolver *res;
	struct fr_tpdecode *tp;
	struct fr_hist **hists;      /* per event index */
	uint64_t *counts;            /* selected samples per event index */
	bool *selected;              /* per event index */
	size_t nr_events;
	struct fr_folded *folded;
	struct fr_json *json;
	uint64_t first, last, samples, lost;
	bool need_stack;
	int err;
};

static const struct argp_option report_options[] = {
	{ "input", 'i', "FILE", 0, "the file (default: the newest *.frec in the directory)", 0 },
	{ "dir", 'd', "DIR", 0, "where to look for the newest file (default .)", 0 },
	{ "sort", 's', "KEYS", 0, "group by keys from comm,pid,dso,sym,srcline, in the order "
	  "given (default comm,dso,sym)", 1 },
	{ NULL, 'g', NULL, 0, "show the call paths under each entry", 1 },
	{ "period", OPT_PERIOD, NULL, 0, "weigh samples by their period (default: count them)", 1 },
	{ "percent-limit", OPT_PERCENT, "PCT", 0, "hide entries below PCT percent", 1 },
	{ "folded", OPT_FOLDED, NULL, 0, "FlameGraph collapsed stacks (--format=folded)", 2 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default), folded, perf-script or json "
	  "(Chrome trace event format)", 2 },
	{ "raw", OPT_RAW, NULL, 0, "list every record, as flightrec dump does", 2 },
	{ "no-header", OPT_NO_HEADER, NULL, 0, "text: omit the '#' lines about the file", 2 },
	{ "stdio", OPT_STDIO, NULL, OPTION_HIDDEN, "", 2 },
	{ "event", 'e', "EVENT", 0, "only samples of these events (repeatable, or comma "
	  "separated)", 3 },
	{ "pid", OPT_PID, "PID[,PID]", 0, "only these processes", 3 },
	{ "tid", OPT_TID, "TID[,TID]", 0, "only these threads", 3 },
	{ "comm", OPT_COMM, "COMM[,COMM]", 0, "only threads of these names", 3 },
	{ "time", OPT_TIME, "START,END", 0, "only samples in [START, END], times as dump prints "
	  "them (SEC.NSEC); either may be empty", 3 },
	{ "symfs", OPT_SYMFS, "DIR", 0, "look for recorded files under DIR", 4 },
	{ "symdir", OPT_SYMDIR, "DIR", 0, "also look in DIR for files by name, checked by build id "
	  "(repeatable)", 4 },
	{ "no-inline", OPT_NO_INLINE, NULL, 0, "one frame per address: no inline frames", 4 },
	{ 0 }
};

static void usage_error(struct report_opts *o, const char *what, const char *why)
{
	fr_err(what, "%s", why);
	o->usage_err = 1;
}

/* Split a comma list into list (pointers into arg, which is modified). */
static int split_list(char *arg, const char **list, size_t *n)
{
	char *save = NULL;

	for (char *t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_LIST)
			return -E2BIG;
		list[(*n)++] = t;
	}
	return 0;
}

static int parse_time_range(const char *arg, struct report_opts *o)
{
	const char *comma = strchr(arg, ',');
	const char *end = arg + strlen(arg);

	if (!comma || strchr(comma + 1, ','))
		return -EINVAL;
	o->t0 = 0;
	o->t1 = UINT64_MAX;
	if (comma > arg && fr_input__parse_time(arg, comma, &o->t0))
		return -EINVAL;
	if (comma + 1 < end && fr_input__parse_time(comma + 1, end, &o->t1))
		return -EINVAL;
	if (o->t0 > o->t1)
		return -ERANGE;
	o->has_time = true;
	return 0;
}

static void parse_format(const char *arg, struct report_opts *o)
{
	if (!strcmp(arg, "text"))
		o->fmt = FMT_TEXT;
	else if (!strcmp(arg, "folded"))
		o->fmt = FMT_FOLDED;
	else if (!strcmp(arg, "perf-script"))
		o->fmt = FMT_SCRIPT;
	else if (!strcmp(arg, "json"))
		o->fmt = FMT_JSON;
	else
		usage_error(o, "--format", "expected text, folded, perf-script or json");
}

static void parse_percent(const char *arg, struct report_opts *o)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0 && v <= 100))
		usage_error(o, "--percent-limit", "expected a percentage, 0..100");
	else
		o->hist.percent_limit = v;
}

static error_t report_parse(int key, char *arg, struct argp_state *st)
{
	struct report_opts *o = st->input;
	int err;

	switch (key) {
	case 'i': o->input = arg; break;
	case 'd': o->dir = arg; break;
	case 's':
		if (fr_hist__parse_keys(arg, &o->hist))
			usage_error(o, "--sort", "expected keys from comm,pid,dso,sym,srcline, "
				    "comma separated, each at most once");
		break;
	case 'g': o->hist.callchains = true; break;
	case OPT_PERIOD: o->hist.period = true; break;
	case OPT_PERCENT: parse_percent(arg, o); break;
	case OPT_FOLDED: o->fmt = FMT_FOLDED; break;
	case OPT_FORMAT: parse_format(arg, o); break;
	case OPT_RAW: o->raw = true; break;
	case OPT_NO_HEADER: o->no_header = true; break;
	case OPT_STDIO: break;
	case 'e':
		if (split_list(arg, o->events, &o->nr_events))
			usage_error(o, "-e", "too many events (at most 64)");
		break;
	case OPT_PID:
	case OPT_TID:
		free(key == OPT_PID ? o->pids : o->tids);
		err = fr_parse__pids(arg, key == OPT_PID ? &o->pids : &o->tids,
				     key == OPT_PID ? &o->nr_pids : &o->nr_tids);
		if (err)
			usage_error(o, key == OPT_PID ? "--pid" : "--tid",
				    "expected a comma separated list of numbers");
		break;
	case OPT_COMM:
		if (split_list(arg, o->comms, &o->nr_comms))
			usage_error(o, "--comm", "too many names (at most 64)");
		break;
	case OPT_TIME:
		err = parse_time_range(arg, o);
		if (err)
			usage_error(o, "--time", err == -ERANGE ? "START is after END"
				    : "expected START,END as SEC.NSEC (either may be empty)");
		break;
	case OPT_SYMFS: o->sym.symfs = arg; break;
	case OPT_SYMDIR:
		if (o->sym.nr_symdirs == MAX_SYMDIRS)
			usage_error(o, "--symdir", "too many directories (at most 16)");
		else
			o->symdirs[o->sym.nr_symdirs++] = arg;
		break;
	case OPT_NO_INLINE: o->sym.no_inline = true; break;
	case ARGP_KEY_ARG:
		if (o->input)
			usage_error(o, arg, "one file at a time");
		o->input = arg;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static bool in_list(const int *list, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if ((uint32_t)list[i] == v)
			return true;
	return false;
}

static bool comm_selected(const struct report_opts *o, const char *comm)
{
	for (size_t i = 0; i < o->nr_comms; i++)
		if (!strcmp(o->comms[i], comm))
			return true;
	return !o->nr_comms;
}

/* The sample, if the filters keep it, to the outputs. */
static int report_sample(struct report *rp, const struct fr_rec *r)
{
	const struct report_opts *o = rp->o;
	const struct fr_file_event *e = r->event;
	struct fr_rsample rs;
	struct fr_sample s;
	int err;

	if (e->index >= rp->nr_events || !rp->selected[e->index])
		return 0;
	if (o->has_time && (r->time < o->t0 || r->time > o->t1))
		return 0;
	if (fr_record__parse_sample(r->h, e->attr.sample_type, e->attr.sample_regs_user, &s))
		return 0;   /* a record shorter than its fields: the reader checked the chunk */
	if ((o->nr_pids && !in_list(o->pids, o->nr_pids, s.pid)) ||
	    (o->nr_tids && !in_list(o->tids, o->nr_tids, s.tid)))
		return 0;
	if (o->nr_comms && !comm_selected(o, fr_resolver__comm(rp->res, s.tid, r->time)))
		return 0;
	err = fr_resolver__sample(rp->res, r, &s, rp->need_stack, &rs);
	if (err)
		return err;
	if (!rp->samples++)
		rp->first = r->time;
	rp->last = r->time;
	rp->counts[e->index]++;
	switch (o->fmt) {
	case FMT_TEXT:
		if (!rp->hists[e->index] && (err = fr_hist__new(&o->hist, &rp->hists[e->index])))
			return err;
		return fr_hist__add(rp->hists[e->index], &rs);
	case FMT_FOLDED: return fr_folded__add(rp->folded, &rs);
	case FMT_SCRIPT: return fr_script__sample(stdout, &rs, rp->tp);
	case FMT_JSON: return fr_json__sample(rp->json, &rs);
	}
	return 0;
}

static int report_cb(void *ctx, const struct fr_rec *r)
{
	struct report *rp = ctx;
	int err = 0;

	if (!r->event)
		return 0;
	if (r->kind == FR_STREAM_SIDEBAND)
		err = fr_resolver__sideband(rp->res, r);
	else if (r->h->type == PERF_RECORD_SAMPLE)
		err = report_sample(rp, r);
	else if (r->h->type == PERF_RECORD_LOST) {
		struct fr_lost l;

		if (!fr_record__lost(r->h, &l))
			rp->lost += l.lost;
	}
	if (err) {
		rp->err = err;
		return 1;
	}
	return 0;
}

/* Which events to report: -e names, else all; --folded folds one event. */
static int select_events(struct report *rp)
{
	const struct report_opts *o = rp->o;
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

		if (e->index >= rp->nr_events || (e->flags & FR_EVENT_SIDEBAND))
			continue;
		if (!o->nr_events)
			rp->selected[e->index] = true;
		if (rp->selected[e->index] && o->fmt == FMT_FOLDED && chosen++) {
			size_t n = strlen(names);

			rp->selected[e->index] = false;
			snprintf(names + n, sizeof(names) - n, "%s%s", left++ ? ", " : "", e->name);
		}
	}
	if (left)
		fr_err("--folded", "the file has several events; folding only the first (choose "
		       "with -e), left out: %s", names);
	return FR_EXIT_OK;
}

static void print_time(FILE *f, uint64_t t)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(t / 1000000000ull),
		(unsigned long long)(t % 1000000000ull));
}

static void print_header(struct report *rp, const char *path)
{
	static const char *keys[] = { "hostname", "kernel_release", "target", "trigger" };
	const struct report_opts *o = rp->o;

	printf("# flightrec report: %s\n", path);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = fr_reader__meta(rp->rd, keys[i]);

		if (v)
			printf("# %s: %s\n", keys[i], v);
	}
	printf("# samples: %llu", (unsigned long long)rp->samples);
	if (rp->samples) {
		printf(", from ");
		print_time(stdout, rp->first);
		printf(" to ");
		print_time(stdout, rp->last);
		printf(" (%.3f s)", (double)(rp->last - rp->first) / 1e9);
	}
	printf("; lost: %llu\n", (unsigned long long)rp->lost);
	if (o->has_time || o->nr_pids || o->nr_tids || o->nr_comms || o->nr_events)
		printf("# (selected with --time, --pid, --tid, --comm or -e)\n");
	printf("#\n# samples per event\n");
	for (size_t k = 0; k < rp->nr_events; k++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, k);

		if (!(e->flags & FR_EVENT_SIDEBAND) && e->index < rp->nr_events)
			printf("# %12llu  %s\n", (unsigned long long)rp->counts[e->index], e->name);
	}
	printf("#\n");
}

static void print_notes(struct report *rp, FILE *f)
{
	struct fr_symbolizer *s = fr_resolver__symbolizer(rp->res);
	bool any = false;

	for (size_t i = 0; i < fr_symbolizer__nr_dsos(s); i++) {
		enum fr_dso_status st;
		const char *path, *used;

		if (fr_symbolizer__dso_status(s, i, &path, &st, &used) || st == FR_DSO_OK ||
		    st == FR_DSO_SPECIAL)
			continue;
		if (!any)
			fprintf(f, "# files not (fully) symbolized:\n");
		any = true;
		fprintf(f, "#   %s: %s%s%s\n", path, fr_dso_status__str(st), used ? ", used " : "",
			used ? used : "");
	}
	if (fr_resolver__missed_ksyms(rp->res))
		fprintf(f, "# no kernel symbols in the file (KSYMS blob): kernel addresses are "
			"[unknown]\n");
	if (fr_resolver__unwind_failures(rp->res))
		fprintf(f, "# %llu samples: the user stack did not unwind past the sampled ip\n",
			(unsigned long long)fr_resolver__unwind_failures(rp->res));
}

static int print_text(struct report *rp, const char *path)
{
	int err = 0;

	if (!rp->o->no_header)
		print_header(rp, path);
	for (size_t k = 0; k < rp->nr_events && !err; k++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, k);

		if (e->index < rp->nr_events && rp->hists[e->index])
			err = fr_hist__print(rp->hists[e->index], e->name, stdout);
	}
	if (!err && !rp->o->no_header)
		print_notes(rp, stdout);
	return err;
}

static int setup(struct report *rp)
{
	const struct report_opts *o = rp->o;
	int err;

	rp->nr_events = fr_reader__nr_events(rp->rd);
	rp->hists = calloc(rp->nr_events + 1, sizeof(*rp->hists));
	rp->counts = calloc(rp->nr_events + 1, sizeof(*rp->counts));
	rp->selected = calloc(rp->nr_events + 1, sizeof(*rp->selected));
	if (!rp->hists || !rp->counts || !rp->selected || fr_tpdecode__new(&rp->tp))
		return -ENOMEM;
	for (size_t i = 0; i < rp->nr_events; i++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, i);

		if (e->format && e->format_len)
			fr_tpdecode__add(rp->tp, e->name, e->format, e->format_len);
	}
	err = fr_resolver__new(rp->rd, &o->sym, &rp->res);
	if (err)
		return err;
	rp->need_stack = o->fmt != FMT_TEXT || o->hist.callchains;
	for (int k = 0; k < o->hist.nr_keys; k++)
		if (o->hist.keys[k] == FR_KEY_DSO || o->hist.keys[k] == FR_KEY_SYM ||
		    o->hist.keys[k] == FR_KEY_SRCLINE)
			rp->need_stack = true;
	if (o->fmt == FMT_FOLDED)
		return fr_folded__new(o->hist.period, &rp->folded);
	if (o->fmt == FMT_JSON)
		return fr_json__new(stdout, rp->tp, &rp->json);
	return 0;
}

static void teardown(struct report *rp)
{
	for (size_t i = 0; rp->hists && i < rp->nr_events; i++)
		fr_hist__delete(rp->hists[i]);
	free(rp->hists);
	free(rp->counts);
	free(rp->selected);
	fr_folded__delete(rp->folded);
	fr_json__delete(rp->json);
	fr_resolver__delete(rp->res);
	fr_tpdecode__delete(rp->tp);
	fr_reader__close(rp->rd);
}

static int run(const struct report_opts *o, const char *path)
{
	struct report rp = { .o = o };
	int ret = fr_input__open(path, &rp.rd), err;

	if (ret)
		return ret;
	err = setup(&rp);
	if (err) {
		fr_err(path, "%s", strerror(-err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	ret = select_events(&rp);
	if (ret)
		goto out;
	err = fr_reader__for_each(rp.rd, report_cb, &rp);
	if (rp.err) {
		fr_err(path, "%s", strerror(-rp.err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	if (o->fmt == FMT_TEXT)
		rp.err = print_text(&rp, path);
	else if (o->fmt == FMT_FOLDED)
		rp.err = fr_folded__print(rp.folded, stdout);
	else if (o->fmt == FMT_JSON) {
		rp.err = fr_json__finish(rp.json, path);
		rp.json = NULL;
	}
	if (fflush(stdout) || ferror(stdout) || rp.err) {
		fr_err("stdout", "%s", strerror(rp.err ? -rp.err : EIO));
		ret = FR_EXIT_ERROR;
	} else if (err < 0) {
		fr_err(path, "corrupt chunk: %s (records before it were reported)", strerror(-err));
		ret = FR_EXIT_PARTIAL;
	} else if (fr_reader__truncated(rp.rd)) {
		fr_err(path, "truncated: the file ends before its last chunk (records of complete "
		       "chunks were reported)");
		ret = FR_EXIT_PARTIAL;
	}
out:
	teardown(&rp);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	static const char doc[] =
		"Report a flightrec file: a histogram of samples by command, file and "
		"function (symbolized with libdw, user stacks recorded with --call-graph dwarf "
		"unwound with libunwind), per event, or the samples as FlameGraph folded "
		"stacks, perf script text, or Chrome trace JSON (see doc/report.md).\v"
		"Examples:\n"
		"  flightrec report                          the newest *.frec in .\n"
		"  flightrec report -g --sort sym FILE       functions, with their call paths\n"
		"  flightrec report --folded FILE | flamegraph.pl > out.svg\n"
		"  flightrec report --format=perf-script FILE > out.perf  (speedscope)\n"
		"  flightrec report --format=json FILE > trace.json       (Perfetto)\n"
		"  flightrec report --comm server --time 1200.5,1201 FILE\n\n"
		"Exit codes: 0 ok; 1 the file is truncated or corrupt (what could be read was "
		"reported); 2 not readable, not a flightrec file, or out of memory; 64 usage.";
	struct argp a = { report_options, report_parse, "[FILE]", doc, NULL, NULL, NULL };
	struct report_opts o = { .dir = "." };
	char path[PATH_MAX] = "";
	int r;

	o.hist.chain_limit = 0.5;
	fr_hist__parse_keys("comm,dso,sym", &o.hist);
	o.sym.symdirs = o.symdirs;
	r = fr_parse_args(&a, argc, argv, "flightrec report", &o);
	if (r || o.usage_err) {
		r = r < 0 ? FR_EXIT_OK : r ? r : FR_EXIT_USAGE;
		goto out;
	}
	if (!o.input) {
		int err = fr_input__newest(o.dir, path, sizeof(path));

		if (err) {
			fr_err(o.dir, "no flightrec file (*.frec) here: %s", strerror(-err));
			r = FR_EXIT_ERROR;
			goto out;
		}
		o.input = path;
	}
	r = o.raw ? fr_dump__file(o.input, !o.no_header) : run(&o, o.input);
out:
	free(o.pids);
	free(o.tids);
	return r;
}
