/* src/report/report.h: the report subsystem's front door: what the
 * commands (src/cmd_*.c) call to turn a file into what people read: report
 * (run.c: one pass, an output per format, out/output.h), dump (dump.c), diff
 * (diff.c) and archive (archive.c); their options and the two input helpers
 * the commands use come from pass/report_opts.h and pass/timespec.h. Formats
 * are specified in doc/report.md; what the passes share is pass/pass.h.
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

#include "src/report/pass/report_opts.h"
#include "symbolize/symbolize.h"

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
	bool no_off_cpu;                  /* leave out the off-CPU time of files with switches */
	double alpha;                     /* family-wise level of the test (0.01) */
	struct fr_symbolizer_opts sym;
};
/* Compare as o says; errors said through fr_err. Returns an exit code. */
int fr_diff__run(const struct fr_diff_opts *o);
/* Two-proportion z-test of a of na against b of nb (pooled standard
 * error): z > 0 when b/nb is the larger share; p two-sided. -EINVAL when a
 * side is empty or a count exceeds its total. */
int fr_diff__ztest(uint64_t a, uint64_t na, uint64_t b, uint64_t nb, double *z, double *p);
/* The |z| whose two-sided p is alpha (standard normal). */
double fr_diff__zcrit(double alpha);

/* ---- out/output.c: the output formats (doc/report.md) ---- */
/* name is an output's (--format=NAME), and one that is not for a terminal. */
bool fr_report__format_known(const char *name);
bool fr_report__format_binary(const char *name);
/* Every name, "a, b or c". */
const char *fr_report__format_names(void);

/* ---- run.c: one report of one file ---- */
/* Report path as o says, on stdout or o->output; errors said through fr_err. Returns an
 * exit code (FR_EXIT_*). */
int fr_report__run(const struct fr_report_opts *o, const char *path);

#endif
