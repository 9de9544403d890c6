/* src/cmd_diff.c: `flightrec diff`: its options (the report's --sort keys,
 * -g, the split of one file), then one call: fr_diff__run (src/report/diff.c).
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/cli.h"
#include "src/util.h"
#include "src/report/report.h"

enum { OPT_PERIOD = 1000, OPT_PERCENT, OPT_FLAMEGRAPH, OPT_SPLIT_TRIGGER, OPT_SPLIT_AT,
       OPT_ALPHA, OPT_NO_HEADER, OPT_SYMFS, OPT_SYMDIR, OPT_NO_DEMANGLE, OPT_CACHE,
       OPT_NO_OFF_CPU };

struct diff_cli {
	struct fr_diff_opts d;
	const char *paths[2];
	size_t nr_paths;
	bool split_at;
	const char *symdirs[FR_REPORT_MAX_SYMDIRS];
	int usage_err;
};

static const struct argp_option diff_options[] = {
	{ "sort", 's', "KEYS", 0, "rows by keys from comm,pid,dso,sym,srcline,tid,cpu, in the order "
	  "given (default comm,dso,sym)", 0 },
	{ NULL, 'g', NULL, 0, "rows are whole call stacks (comm;root;...;leaf)", 0 },
	{ "period", OPT_PERIOD, NULL, 0, "shares by period (the test still counts samples)", 0 },
	{ "percent-limit", OPT_PERCENT, "PCT", 0, "hide rows below PCT percent on both sides", 0 },
	{ "event", 'e', "EVENT", 0, "the event to compare (default: the first sampled one)", 0 },
	{ "alpha", OPT_ALPHA, "A", 0, "the test's level over all rows (Bonferroni; default 0.01)", 0 },
	{ "split-at-trigger", OPT_SPLIT_TRIGGER, NULL, 0, "one FILE: the time before its trigger "
	  "against the time from it", 1 },
	{ "split-at", OPT_SPLIT_AT, "TIME", 0, "one FILE: before TIME (SEC.NSEC, as dump prints "
	  "times) against from TIME", 1 },
	{ "output", 'o', "FILE", 0, "write the table to FILE (default stdout)", 2 },
	{ "flamegraph", OPT_FLAMEGRAPH, "FILE", 0, "the new profile as a flame graph SVG coloured "
	  "by the change (red grew, blue shrank) into FILE", 2 },
	{ "no-header", OPT_NO_HEADER, NULL, 0, "omit the '#' lines about the files and the test", 2 },
	{ "no-off-cpu", OPT_NO_OFF_CPU, NULL, 0, "leave out the off-CPU time of files that recorded "
	  "context switches (per stack and per thread, in ms)", 2 },
	{ "symfs", OPT_SYMFS, "DIR", 0, "look for recorded files under DIR", 3 },
	{ "symdir", OPT_SYMDIR, "DIR", 0, "also look in DIR for files by name, checked by build id "
	  "(repeatable)", 3 },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, 0, "names as the symbol table has them", 3 },
	{ "cache", OPT_CACHE, "DIR", 0, "the build-id cache that flightrec archive fills", 3 },
	{ 0 }
};

static void usage_error(struct diff_cli *c, const char *what, const char *why)
{
	fr_err(what, "%s", why);
	c->usage_err = 1;
}

static double parse_double(const char *arg, double lo, double hi, bool *ok)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	*ok = !errno && end != arg && !*end && v >= lo && v <= hi;
	return v;
}

static error_t diff_parse(int key, char *arg, struct argp_state *st)
{
	struct diff_cli *c = st->input;
	struct fr_diff_opts *o = &c->d;
	bool ok;

	switch (key) {
	case 's':
		if (fr_hist__parse_keys(arg, &o->hist) || o->hist.by_latency)
			usage_error(c, "--sort", "expected keys from comm,pid,dso,sym,srcline,tid,cpu, "
				    "comma separated, each at most once (no latency: diff compares "
				    "samples)");
		break;
	case 'g': o->hist.callchains = true; break;
	case OPT_PERIOD: o->hist.period = true; break;
	case OPT_PERCENT:
		o->hist.percent_limit = parse_double(arg, 0, 100, &ok);
		if (!ok)
			usage_error(c, "--percent-limit", "expected a percentage, 0..100");
		break;
	case 'e': o->event = arg; break;
	case OPT_ALPHA:
		o->alpha = parse_double(arg, 0, 1, &ok);
		if (!ok || o->alpha <= 0 || o->alpha >= 1)
			usage_error(c, "--alpha", "expected a probability between 0 and 1, e.g. 0.01");
		break;
	case OPT_SPLIT_TRIGGER: o->split_trigger = true; break;
	case OPT_SPLIT_AT:
		c->split_at = true;
		if (fr_input__parse_time(arg, arg + strlen(arg), &o->split_ns))
			usage_error(c, "--split-at", "expected a time as SEC.NSEC");
		break;
	case 'o': o->output = arg; break;
	case OPT_FLAMEGRAPH: o->flamegraph = arg; break;
	case OPT_NO_HEADER: o->no_header = true; break;
	case OPT_NO_OFF_CPU: o->no_off_cpu = true; break;
	case OPT_SYMFS: o->sym.symfs = arg; break;
	case OPT_SYMDIR:
		if (o->sym.nr_symdirs == FR_REPORT_MAX_SYMDIRS)
			usage_error(c, "--symdir", "too many directories (at most 16)");
		else
			c->symdirs[o->sym.nr_symdirs++] = arg;
		break;
	case OPT_NO_DEMANGLE: o->sym.no_demangle = true; break;
	case OPT_CACHE: o->sym.cache_dir = arg; break;
	case ARGP_KEY_ARG:
		if (c->nr_paths == 2)
			usage_error(c, arg, "at most two files: OLD NEW");
		else
			c->paths[c->nr_paths++] = arg;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* A directory means its newest *.frec, as report -d. Returns an exit code. */
static int resolve(const char **path, char *buf, size_t len)
{
	const char *newest = NULL;
	struct stat sb;
	int r;

	if (stat(*path, &sb) || !S_ISDIR(sb.st_mode))
		return FR_EXIT_OK;   /* opening it says what is wrong */
	if ((r = fr_input__choose(&newest, *path, buf, len)))
		return r;
	*path = newest;
	return FR_EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	static const char doc[] =
		"What changed between two profiles: OLD and NEW (files, or directories: their "
		"newest *.frec), or one FILE split at its trigger (--split-at-trigger) or at a "
		"time (--split-at). One row per entry of the report's --sort keys (-g: per call "
		"stack) with the baseline share, the new share and the delta; a two-proportion "
		"z-test on the sample counts of each row marks the significant changes (*), which "
		"come first, largest first (see doc/report.md).\v"
		"Examples:\n"
		"  flightrec diff yesterday.frec today.frec\n"
		"  flightrec diff --sort sym -g old.frec new.frec\n"
		"  flightrec diff --flamegraph diff.svg old.frec new.frec\n"
		"  flightrec diff --split-at-trigger FILE     before the trigger against after it\n"
		"  flightrec diff --split-at 1200.5 FILE\n\n"
		"Exit codes: 0 ok; 1 a file is truncated or corrupt (what could be read was "
		"compared); 2 not readable, not a flightrec file, no samples on a side; 64 usage.";
	struct argp a = { diff_options, diff_parse, "OLD NEW | --split-at-trigger FILE", doc, NULL,
			  NULL, NULL };
	struct diff_cli c = { .d = { .alpha = 0.01 } };
	char p0[PATH_MAX], p1[PATH_MAX], cache[PATH_MAX];
	int r;

	c.d.hist.chain_limit = 0.5;
	fr_hist__parse_keys("comm,dso,sym", &c.d.hist);
	c.d.sym.symdirs = c.symdirs;
	r = fr_parse_args(&a, argc, argv, "flightrec diff", &c);
	if (r || c.usage_err)
		return r < 0 ? FR_EXIT_OK : r ? r : FR_EXIT_USAGE;
	if (c.split_at && c.d.split_trigger) {
		fr_err("--split-at", "give --split-at or --split-at-trigger, not both");
		return FR_EXIT_USAGE;
	}
	if ((c.split_at || c.d.split_trigger) != (c.nr_paths == 1) || !c.nr_paths) {
		fr_err("diff", c.nr_paths == 2 ? "two files are compared whole: no --split-at"
		       : "expected OLD NEW, or one FILE with --split-at-trigger or --split-at");
		return FR_EXIT_USAGE;
	}
	if (!c.d.sym.cache_dir)
		c.d.sym.cache_dir = fr_archive__default_dir(cache, sizeof(cache));
	c.d.old_path = c.paths[0];
	c.d.new_path = c.nr_paths == 2 ? c.paths[1] : NULL;
	if ((r = resolve(&c.d.old_path, p0, sizeof(p0))) ||
	    (c.d.new_path && (r = resolve(&c.d.new_path, p1, sizeof(p1)))))
		return r;
	return fr_diff__run(&c.d);
}
