/* src/report/run_internal.h: the state of one report's pass (run.c), which
 * the outputs (out_*.c, output.h) read. Nothing else includes it.
 */
#ifndef FR_REPORT_RUN_INTERNAL_H
#define FR_REPORT_RUN_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "src/file/clock.h"
#include "src/report/pass.h"

struct report {
	const struct fr_report_opts *o;
	struct fr_reader *rd;
	struct fr_resolver *res;
	struct fr_tpdecode *tp;
	const struct fr_output_ops *ops;   /* the output (output.h) */
	void *ost;                   /* its state */
	uint64_t *counts;            /* selected samples per event index */
	bool *selected;              /* per event index */
	size_t nr_events;
	const struct fr_file_event *fold_ev;   /* the one folded (FR_FOLD_ONE) or drawn (html) */
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


#endif
