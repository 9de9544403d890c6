/* src/report/report.h: the report subsystem's front door: what the
 * commands (src/cmd_*.c) call to turn a file into what people read: report
 * (run.c: one pass, an output per format, output.h), dump (dump.c), diff
 * (diff.c) and archive (archive.c), with their options, and the two input
 * helpers the commands use. Formats are specified in doc/report.md; what the
 * passes and the outputs share is src/report/pass.h.
 *
 * May include: src/file/, src/proc/, symbolize/, ring/record.h, src/util.h.
 * Never: src/record/, src/cli.h or the cmd_*.c front doors. Writes the report
 * itself to the FILE it is given; errors go through fr_err (src/util.h).
 */
#ifndef FR_REPORT_H
#define FR_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/report/timespec.h"
#include "symbolize/symbolize.h"

/* ---- hist.c: the text report's histogram ---- */
enum fr_sort_key { FR_KEY_COMM, FR_KEY_PID, FR_KEY_DSO, FR_KEY_SYM, FR_KEY_SRCLINE, FR_KEY_CPU,
		   FR_KEY_TID, FR_NR_KEYS };

struct fr_hist_opts {
	enum fr_sort_key keys[FR_NR_KEYS];
	int nr_keys;
	bool period;             /* weigh by period instead of samples */
	bool callchains;         /* -g: call paths under each entry */
	bool children;           /* --children: inclusive weight of each function too */
	double percent_limit;    /* hide entries below this share */
	double chain_limit;      /* hide call path branches below this share */
};

/* Parse "comm,dso,sym" (keys: comm pid tid cpu dso sym srcline) into keys: 0 or -EINVAL (unknown or repeated key). */
int fr_hist__parse_keys(const char *spec, struct fr_hist_opts *o);

/* ---- input.c: which file ---- */
/* The file a command reads: *input if given, else the newest *.frec of dir
 * (into path); an *input that is a directory stands for dir. Returns an exit
 * code, the error said. */
int fr_input__choose(const char **input, const char *dir, char *path, size_t len);
/* "SEC.NSEC" (as dump prints times) to nanoseconds: 0 or -EINVAL. */
int fr_input__parse_time(const char *s, const char *end, uint64_t *ns);

/* ---- dump.c: every record, merged by time (flightrec dump, report --raw) ---- */
int fr_dump__file(const char *path, bool header);
/* tod: each record's local wall-clock time after its event time. */
int fr_dump__run(const char *path, bool header, bool tod);

/* ---- archive.c: the build-id cache (flightrec archive) ---- */
/* The default cache directory into buf: $XDG_CACHE_HOME/flightrec, else
 * $HOME/.cache/flightrec, /var/cache/flightrec for root. NULL if none. */
const char *fr_archive__default_dir(char *buf, size_t len);
/* Copy the objects the samples of path hit into cache_dir/.build-id/xx/yyyy
 * (tar: also write them, relative to cache_dir, into that tarball). Says
 * what it did through fr_info, errors through fr_err; returns an exit code. */
int fr_archive__run(const char *path, const char *cache_dir, const char *tar,
		    const struct fr_symbolizer_opts *so);

/* ---- diff.c: two profiles compared (flightrec diff) ---- */
struct fr_diff_opts {
	const char *old_path, *new_path;  /* new_path NULL: old_path split in two */
	bool split_trigger;               /* split at the file's trigger, else at split_ns */
	uint64_t split_ns;
	struct fr_hist_opts hist;         /* keys; callchains: rows are whole stacks */
	const char *event;                /* -e, NULL: the first sampled event */
	const char *output, *flamegraph;  /* NULL: stdout / no flame graph */
	bool no_header;
	double alpha;                     /* family-wise level of the test (0.01) */
	struct fr_symbolizer_opts sym;
};
/* Compare as o says; errors said through fr_err. Returns an exit code. */
int fr_diff__run(const struct fr_diff_opts *o);

/* ---- run.c: one report of one file ---- */
#define FR_REPORT_MAX_SYMDIRS 16
#define FR_REPORT_MAX_LIST 64

enum fr_report_fmt { FMT_TEXT, FMT_FOLDED, FMT_SCRIPT, FMT_JSON, FMT_FLAME, FMT_HTML, FMT_PPROF };

/* What `flightrec report` was asked for (src/cmd_report.c fills it). */
struct fr_report_opts {
	const char *input, *dir;
	struct fr_hist_opts hist;
	enum fr_report_fmt fmt;
	const char *output;      /* -o FILE, NULL: stdout */
	bool raw, no_header, quiet;
	bool off_cpu;            /* --off-cpu: waits from context switches (offcpu_in.c) */
	bool no_off_cpu;         /* --no-off-cpu: not even where the file records switches */
	int *pids, *tids;
	size_t nr_pids, nr_tids;
	const char *comms[FR_REPORT_MAX_LIST], *events[FR_REPORT_MAX_LIST];
	size_t nr_comms, nr_events;
	bool has_time, tod;      /* tod: perf-script's and --raw's wall-clock field */
	struct fr_timesel time;  /* --time as given */
	struct fr_time_ranges ranges;   /* resolved against the file (fr_report__run) */
	uint64_t t0, t1;         /* the lowest and highest time the ranges hold */
	struct fr_symbolizer_opts sym;
	const char *symdirs[FR_REPORT_MAX_SYMDIRS];
	int usage_err;
};

/* Report path as o says, on stdout or o->output; errors said through fr_err. Returns an
 * exit code (FR_EXIT_*). */
int fr_report__run(const struct fr_report_opts *o, const char *path);

#endif
