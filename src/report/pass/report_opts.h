/* src/report/pass/report_opts.h: what a command fills to ask for a pass over a
 * file: the histogram's sort keys and options (--sort: fr_hist__parse_keys,
 * hist.c), the report's options and its thread filter (report_opts.c), and
 * which file to read (fr_input__choose, input.c). The front door (report.h)
 * passes it on to the commands; the pass, the off-CPU stage and the outputs
 * read it here.
 */
#ifndef FR_REPORT_OPTS_H
#define FR_REPORT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/report/pass/timespec.h"
#include "symbolize/symbolize.h"

/* ---- hist.c: the text report's histogram ---- */
/* What entries are grouped by. --sort also takes "latency", which groups by
 * nothing: it orders the entries by their latency (by_latency below). */
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
	bool latency;            /* a Latency column: each sample weighs 1/its parallelism
				  * (fr_rsample.parallelism; set by the pass, not parsed) */
	bool by_latency;         /* --sort latency: entries ordered by their latency */
};

/* Parse "comm,dso,sym" (keys: comm pid tid cpu dso sym srcline, and latency:
 * by_latency) into keys; "latency" alone keeps comm,dso,sym. 0 or -EINVAL
 * (unknown or repeated key). */
int fr_hist__parse_keys(const char *spec, struct fr_hist_opts *o);

/* ---- input.c: which file ---- */
/* The file a command reads: *input if given, else the newest *.frec of dir
 * (into path); an *input that is a directory stands for dir. Returns an exit
 * code, the error said. */
int fr_input__choose(const char **input, const char *dir, char *path, size_t len);

/* ---- the report's options (run.c reads them) ---- */
#define FR_REPORT_MAX_SYMDIRS 16
#define FR_REPORT_MAX_LIST 64

/* What `flightrec report` was asked for (src/cmd_report.c fills it). */
struct fr_report_opts {
	const char *input, *dir;
	struct fr_hist_opts hist;
	const char *format;      /* --format: an output's name (out/output.c), NULL: text */
	const char *output;      /* -o FILE, NULL: stdout */
	bool raw, no_header, quiet;
	bool off_cpu;            /* --off-cpu: waits from context switches (offcpu_in.c) */
	bool no_off_cpu;         /* --no-off-cpu: not even where the file records switches */
	bool otlp_original;      /* --otlp-original: the file itself in the OTLP request */
	bool wakers;             /* --wakers: the waits with their wakers' stacks (folded, flame) */
	bool latency;            /* --latency: samples weigh period / parallelism (flame graph,
				  * folded, pprof); text: sorted by latency */
	bool crit_path;          /* --critical-path TID (the critical-path output) */
	uint32_t crit_tid;
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

/* report_opts.c: --pid, --tid and --comm keep a thread (none given: every
 * one); an unknown pid (0) or comm (NULL) is kept only where that filter is
 * not given. */
bool fr_report_opts__selects(const struct fr_report_opts *o, uint32_t pid, uint32_t tid,
			     const char *comm);

#endif
