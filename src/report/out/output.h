/* src/report/out/output.h: what each output format of a report provides: one
 * table row (its properties and operations, in out_*.c), found by its name
 * (fr_output__find, output.c); the pass (run.c) calls them and never names a
 * format. What the rows are given: the state of one report's pass (struct
 * report, which run.c fills).
 */
#ifndef FR_REPORT_OUTPUT_H
#define FR_REPORT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "src/file/clock.h"
#include "src/report/pass/pass.h"

struct report;

/* Which events an output folds. */
enum fr_output_fold {
	FR_FOLD_EACH,           /* every selected event (text, flame graph, script, json) */
	FR_FOLD_ONE,            /* the first selected one; the others said and left out */
	FR_FOLD_SAMPLED_FIRST,  /* every one, the first sampled (not tracepoint) one drawn (html) */
};

struct fr_output_ops {
	const char *name;
	enum fr_output_fold fold;
	bool keyed;           /* the histogram: frames read as --sort's keys and -g need them */
	bool escaped;         /* text: names from the file go out escaped */
	bool tod;             /* takes --tod (a wall-clock field) */
	bool offcpu_default;  /* off-CPU time where the file recorded switches, unasked */
	bool wait_intervals;  /* the waits kept as intervals (its timelines) */
	bool finish_empty;    /* finished even where the filters selected nothing */
	bool binary;          /* not for a terminal: -o FILE or a pipe */
	bool latency;         /* takes --latency: its samples then carry their parallelism */
	bool wakers;          /* takes --wakers: draws the waits joined to their wakers */
	/* state for one report (rp set up: reader, resolver, window) */
	int (*open)(struct report *rp, void **st);
	/* a selected, resolved sample (r: its record) */
	int (*sample)(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs);
	/* an off-CPU wait (rs->period: its ns), or NULL: waits are not drawn */
	int (*wait)(void *st, struct report *rp, const struct fr_rsample *rs);
	/* records lost on cpu at time, or NULL */
	void (*lost)(void *st, uint32_t cpu, uint64_t time, uint64_t n);
	/* part's (a parallel worker's) into st, or NULL: one ordered pass */
	int (*merge)(void *st, void *part);
	/* write it out (path: the input's name) */
	int (*finish)(void *st, struct report *rp, const char *path);
	void (*close)(void *st);
};

/* The row named name (NULL: text's), or NULL when there is none. */
const struct fr_output_ops *fr_output__find(const char *name);
/* The rows in --help's order: the ith, or NULL past the last. */
const struct fr_output_ops *fr_output__at(size_t i);

/* ---- the state of one report's pass (run.c), which the rows read ---- */
struct report {
	const struct fr_report_opts *o;
	struct fr_reader *rd;
	struct fr_resolver *res;
	struct fr_tpdecode *tp;
	const struct fr_output_ops *ops;   /* the output (its row, above) */
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
	bool latency;                /* samples carry their parallelism (the stage counts it) */
	/* progress on a terminal */
	bool progress;
	int shown;
	struct timespec started;
	uint64_t records;
	int err;
	struct worker *workers;      /* a parallel text report's (par_run), or NULL */
	unsigned nworkers;
};

/* One worker of a parallel text report (par_run, run.c). */
struct worker {
	struct report rp;
	const char *path;
	unsigned part, nparts;
	int err;
};

#endif
