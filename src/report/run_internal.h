/* src/report/run_internal.h: the state of one report's pass (run.c), shared
 * with its text output's header and notes (run_print.c). Nothing outside
 * src/report/run*.c includes it.
 */
#ifndef FR_REPORT_RUN_INTERNAL_H
#define FR_REPORT_RUN_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "src/file/clock.h"
#include "src/report/report.h"

struct report {
	const struct fr_report_opts *o;
	struct fr_reader *rd;
	struct fr_resolver *res;
	struct fr_tpdecode *tp;
	struct fr_hist **hists;      /* per event index */
	uint64_t *counts;            /* selected samples per event index */
	bool *selected;              /* per event index */
	size_t nr_events;
	struct fr_folded *folded;
	const struct fr_file_event *fold_ev;   /* folded for pprof, html */
	struct fr_folded **flames;   /* the flame graph's: per event index */
	struct fr_timeline *timeline;
	struct fr_json *json;
	struct fr_pprof *pprof;
	int name_width;              /* perf-script: the longest event name */
	const struct fr_clock_ref *tod;   /* perf-script: its tod field, or NULL */
	struct fr_clock_ref clock;
	struct offcpu_in *oc;        /* --off-cpu (offcpu_in.c), or NULL */
	FILE *out;
	uint64_t first, last, samples, lost;
	uint64_t t0, t1;             /* the file's window, from its CPU stats */
	bool need_stack;
	/* progress on a terminal */
	bool progress;
	int shown;
	struct timespec started;
	uint64_t records;
	int err;
	struct worker *workers;      /* a parallel text report's (par_run), or NULL */
	unsigned nworkers;
};

/* One worker of a parallel text report (par_run, below). */
struct worker {
	struct report rp;
	const char *path;
	unsigned part, nparts;
	int err;
};

/* run_print.c: the text output: the '#' header, each event's histogram, the
 * off-CPU section, the notes (files not symbolized, kernel symbols, unwinds,
 * JIT frames). 0 or -errno. */
int fr_report_print_text(struct report *rp, const char *path);

#endif
