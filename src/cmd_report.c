/* src/cmd_report.c: `flightrec report`: its options and filters, then one
 * call: fr_report__run (src/report/run.c), or fr_dump__run for --raw.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cli.h"
#include "src/util.h"
#include "src/report/report.h"

enum {
	OPT_FOLDED = 1000, OPT_FORMAT, OPT_PERIOD, OPT_PID, OPT_TID, OPT_COMM, OPT_TIME,
	OPT_NO_INLINE, OPT_PERCENT, OPT_RAW, OPT_NO_HEADER, OPT_STDIO, OPT_NO_DEMANGLE,
	OPT_CHILDREN, OPT_OFF_CPU, OPT_NO_OFF_CPU, OPT_FLAMEGRAPH, OPT_TOD, OPT_WAITS,
	OPT_OTLP_ORIGINAL, OPT_WAKERS, OPT_LATENCY, OPT_CRIT_PATH,
};

static const struct argp_option report_options[] = {
	{ "sort", 's', "KEYS", 0, "group by keys from comm,pid,dso,sym,srcline,tid,cpu, in the "
	  "order given (default comm,dso,sym); latency among them: entries ordered by their "
	  "latency", 1 },
	{ NULL, 'g', NULL, 0, "show the call paths under each entry", 1 },
	{ "children", OPT_CHILDREN, NULL, 0, "also the inclusive weight of each function "
	  "(Children: samples with it anywhere on the stack), sorted by it", 1 },
	{ "off-cpu", OPT_OFF_CPU, NULL, 0, "wall clock: waits from the recorded context switches "
	  "(record --off-cpu): an off-CPU section (text), off-CPU stacks beside on-CPU ones "
	  "weighted in time (folded: microseconds); the default for a file that recorded "
	  "context switches", 1 },
	{ "no-off-cpu", OPT_NO_OFF_CPU, NULL, 0, "no off-CPU time, even from a file that recorded "
	  "context switches: their samples counted as any event's", 1 },
	{ "latency", OPT_LATENCY, NULL, 0, "wall clock, not CPU time: each sample weighed by "
	  "1/the number of its process's threads on a CPU then, from the recorded context "
	  "switches (record --off-cpu); text: sorted by the Latency column (shown unasked for "
	  "such files); flamegraph, folded, pprof: weights period / parallelism", 1 },
	{ "period", OPT_PERIOD, NULL, 0, "weigh samples by their period (default: count them)", 1 },
	{ "percent-limit", OPT_PERCENT, "PCT", 0, "hide entries below PCT percent", 1 },
	{ "folded", OPT_FOLDED, NULL, 0, "FlameGraph collapsed stacks (--format=folded)", 2 },
	{ "waits", OPT_WAITS, NULL, 0, "every off-CPU wait, one line each (--format=waits)", 2 },
	{ "format", OPT_FORMAT, "FMT", 0, "text (default), folded, flamegraph (SVG), html (timeline "
	  "and flame graph), pprof (gzipped profile.proto, needs -o), perf-script, json (Chrome "
	  "trace event format), waits (every off-CPU wait, one line each) or critical-path "
	  "(with --critical-path TID)", 2 },
	{ "output", 'o', "FILE", 0, "write the report to FILE (default stdout)", 2 },
	{ "flamegraph", OPT_FLAMEGRAPH, "FILE", 0, "the flame graph SVG into FILE "
	  "(--format=flamegraph -o FILE)", 2 },
	{ "quiet", 'q', NULL, 0, "no progress line on the terminal", 2 },
	{ "raw", OPT_RAW, NULL, 0, "list every record, as flightrec dump does", 2 },
	{ "no-header", OPT_NO_HEADER, NULL, 0, "text: omit the '#' lines about the file", 2 },
	{ "wakers", OPT_WAKERS, NULL, 0, "--folded and the flame graph: each off-CPU wait with "
	  "the stack of the thread that woke it (waiter root to leaf, --, waker leaf to root, "
	  "microseconds: bcc offwaketime's lines), from a record --off-cpu -g file", 2 },
	{ "critical-path", OPT_CRIT_PATH, "TID", 0, "who kept thread TID waiting: its time in the "
	  "window (or --time), running, waiting, runnable, and at each wait the waker and what "
	  "the waker did until the wakeup, recursively, from a record --off-cpu -g file "
	  "(--format=critical-path)", 2 },
	{ "otlp-original", OPT_OTLP_ORIGINAL, NULL, 0, "otlp: the flightrec file itself in the "
	  "request too (original_payload, format \"flightrec\")", 2 },
	{ "tod", OPT_TOD, NULL, 0, "perf-script and --raw: each event's local wall-clock time "
	  "too (perf script -F +tod)", 2 },
	{ "stdio", OPT_STDIO, NULL, OPTION_HIDDEN, "", 2 },
	{ "event", 'e', "EVENT", 0, "only samples of these events (repeatable, or comma "
	  "separated)", 3 },
	{ "pid", OPT_PID, "PID[,PID]", 0, "only these processes", 3 },
	{ "tid", OPT_TID, "TID[,TID]", 0, "only these threads", 3 },
	{ "comm", OPT_COMM, "COMM[,COMM]", 0, "only threads of these names", 3 },
	{ "time", OPT_TIME, "START,END", 0, "only samples in [START, END]: SEC.NSEC as dump prints "
	  "them, wall-clock times (14:03:10, 2026-12-04T14:03:10.5Z, +01:00), trigger-2s, or "
	  "perf's percentages (10%-20%, 10%/2); START-END too; either may be empty", 3 },
	{ "no-inline", OPT_NO_INLINE, NULL, 0, "one frame per address: no inline frames", 4 },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, 0, "C++ and Rust names as the symbol table has "
	  "them (mangled)", 4 },
	{ 0 }
};

static void usage_error(struct fr_report_opts *o, const char *what, const char *why)
{
	fr_err(what, "%s", why);
	o->usage_err = 1;
}

/* Split a comma list into list (pointers into arg, which is modified). */
static int split_list(char *arg, const char **list, size_t *n)
{
	char *save = NULL;

	for (char *t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == FR_REPORT_MAX_LIST)
			return -E2BIG;
		list[(*n)++] = t;
	}
	return 0;
}

static void parse_format(const char *arg, struct fr_report_opts *o)
{
	char why[320];

	if (fr_report__format_known(arg)) {
		o->format = arg;
		return;
	}
	snprintf(why, sizeof(why), "expected %s", fr_report__format_names());
	usage_error(o, "--format", why);
}

static void parse_percent(const char *arg, struct fr_report_opts *o)
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

/* What the parse fills: the options, and the inputs of the shared children. */
struct report_args {
	struct fr_report_opts *o;
	struct fr_cli_file file;
	struct fr_cli_symbols symbols;
};

static error_t report_parse(int key, char *arg, struct argp_state *st)
{
	struct report_args *args = st->input;
	struct fr_report_opts *o = args->o;
	int err;

	switch (key) {
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &args->file;
		st->child_inputs[1] = &args->symbols;
		break;
	case 's':
		if (fr_hist__parse_keys(arg, &o->hist))
			usage_error(o, "--sort", "expected keys from comm,pid,dso,sym,srcline,tid,cpu,"
				    "latency, comma separated, each at most once");
		break;
	case 'g': o->hist.callchains = true; break;
	case OPT_PERIOD: o->hist.period = true; break;
	case OPT_LATENCY: o->latency = true; break;
	case OPT_OFF_CPU: o->off_cpu = true; o->no_off_cpu = false; break;
	case OPT_NO_OFF_CPU: o->no_off_cpu = true; o->off_cpu = false; break;
	case OPT_PERCENT: parse_percent(arg, o); break;
	case OPT_FOLDED: o->format = "folded"; break;
	case OPT_WAITS: o->format = "waits"; break;
	case OPT_FORMAT: parse_format(arg, o); break;
	case OPT_RAW: o->raw = true; break;
	case 'o': o->output = arg; break;
	case 'q': o->quiet = true; break;
	case OPT_FLAMEGRAPH:
		o->format = "flamegraph";
		o->output = arg;
		break;
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
	case OPT_TIME: {
		const char *why;

		if (fr_timesel__parse(arg, &o->time, &why))
			usage_error(o, "--time", why);
		else
			o->has_time = true;
		break;
	}
	case OPT_TOD: o->tod = true; break;
	case OPT_OTLP_ORIGINAL: o->otlp_original = true; break;
	case OPT_WAKERS: o->wakers = true; o->off_cpu = true; break;
	case OPT_CRIT_PATH: {
		uint64_t tid;

		if (fr_parse__u64(arg, 1, INT32_MAX, &tid)) {
			usage_error(o, "--critical-path", "expected a thread id, 1..2147483647");
			break;
		}
		o->crit_path = o->off_cpu = true;
		o->crit_tid = (uint32_t)tid;
		break;
	}
	case OPT_NO_INLINE: o->sym.no_inline = true; break;
	case OPT_NO_DEMANGLE: o->sym.no_demangle = true; break;
	case OPT_CHILDREN: o->hist.children = true; break;
	case ARGP_KEY_ARG: fr_cli__one_arg(&o->input, arg, "file", &o->usage_err); break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const char doc[] =
		"Report a flightrec file: a histogram of samples by command, file and "
		"function (symbolized with libdw, user stacks recorded with --call-graph dwarf "
		"unwound with libunwind), per event, or the samples as FlameGraph folded "
		"stacks, a flame graph (SVG or an HTML page with a per-CPU timeline), a pprof "
		"profile, perf script text, or Chrome trace JSON (see doc/report.md).\v"
		"Examples:\n"
		"  flightrec report                          the newest *.frec in .\n"
		"  flightrec report -g --sort sym FILE       functions, with their call paths\n"
		"  flightrec report --folded FILE | flamegraph.pl > out.svg\n"
		"  flightrec report --flamegraph out.svg FILE              (no Perl needed)\n"
		"  flightrec report --format=html -o out.html FILE         (timeline, flame graph)\n"
		"  flightrec report --format=pprof -o cpu.pb.gz FILE       (go tool pprof, Pyroscope)\n"
		"  flightrec report --format=otlp -o req.pb FILE           (OTLP profiles; see push)\n"
		"  flightrec report --format=perf-script FILE > out.perf  (speedscope)\n"
		"  flightrec report --format=json FILE > trace.json       (Perfetto)\n"
		"  flightrec report --comm server --time 1200.5,1201 FILE\n"
		"  flightrec report --time 14:03:10-14:03:14 FILE   (local time, the file's date)\n"
		"  flightrec report --time trigger-2s,trigger+1s FILE\n"
		"  flightrec report --children --sort sym FILE   inclusive and self weights\n"
		"  flightrec report --latency --sort sym FILE    where the wall-clock time went\n"
		"  flightrec report --latency --flamegraph out.svg FILE    (the same, drawn)\n"
		"  flightrec report --symdir DIR FILE        objects from 'flightrec archive -o X.tar', "
		"extracted in DIR\n\n"
		"Exit codes: 0 ok; 1 the file is truncated or corrupt (what could be read was "
		"reported); 2 not readable, not a flightrec file, or out of memory; 64 usage "
		"(also: -g on a file without call chains, --latency or --sort latency on a file "
		"without context switches).";
	static const struct argp_child children[] = {
		{ &fr_cli__file_argp, 0, NULL, 0 }, { &fr_cli__symbols_argp, 0, NULL, 0 }, { 0 }
	};
	struct argp a = { report_options, report_parse, "[FILE]", doc, children, NULL, NULL };
	struct fr_report_opts o = { .dir = "." };
	struct report_args args = {
		&o, { &o.input, &o.dir }, { &o.sym, o.symdirs, &o.usage_err }
	};
	char path[PATH_MAX] = "", cache[PATH_MAX];
	int r;

	o.hist.chain_limit = 0.5;
	fr_hist__parse_keys("comm,dso,sym", &o.hist);
	o.sym.symdirs = o.symdirs;
	r = fr_parse_args(&a, argc, argv, "flightrec report", &args);
	if (r || o.usage_err) {
		r = r < 0 ? FR_EXIT_OK : r ? r : FR_EXIT_USAGE;
		goto out;
	}
	if (!o.sym.cache_dir)
		o.sym.cache_dir = fr_archive__default_dir(cache, sizeof(cache));
	if ((r = fr_input__choose(&o.input, o.dir, path, sizeof(path))))
		goto out;
	if (o.crit_path && o.format && strcmp(o.format, "critical-path")) {
		fr_err("--critical-path", "is an output of its own: not with --format=%s", o.format);
		r = FR_EXIT_USAGE;
		goto out;
	}
	if (o.crit_path && (o.nr_pids || o.nr_tids || o.nr_comms)) {
		fr_err("--critical-path", "follows the waker of each wait into any thread: not with "
		       "--pid, --tid or --comm (--time sets the window)");
		r = FR_EXIT_USAGE;
		goto out;
	}
	if (o.format && !strcmp(o.format, "critical-path") && !o.crit_path) {
		fr_err("--format", "critical-path needs the thread: --critical-path TID");
		r = FR_EXIT_USAGE;
		goto out;
	}
	if (o.crit_path)
		o.format = "critical-path";
	if (o.raw && o.output) {
		fr_err("-o", "--raw writes to stdout only");
		r = FR_EXIT_USAGE;
		goto out;
	}
	if (fr_report__format_binary(o.format) && !o.output && isatty(1)) {
		fr_err("--format", "the %s output is binary: name a file with -o FILE", o.format);
		r = FR_EXIT_USAGE;
		goto out;
	}
	r = o.raw ? fr_dump__run(o.input, !o.no_header, o.tod) : fr_report__run(&o, o.input);
out:
	free(o.pids);
	free(o.tids);
	return r;
}
