/* src/report/pass/timespec.h: report --time: its forms parsed (monotonic
 * SEC.NSEC, wall-clock times, trigger-relative offsets, perf's percentages)
 * and resolved against a file into event-clock ranges (timespec.c);
 * wall-clock text and the header's spans (walltime.c).
 */
#ifndef FR_REPORT_TIMESPEC_H
#define FR_REPORT_TIMESPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "src/file/clock.h"

#define FR_TIME_MAX_RANGES 16

enum fr_tpoint_kind { FR_TP_OPEN, FR_TP_MONO, FR_TP_WALL, FR_TP_TRIGGER, FR_TP_PERCENT };

/* One end of a range, as written. */
struct fr_tpoint {
	enum fr_tpoint_kind kind;
	uint64_t ns;            /* MONO: event time; WALL: the fraction of the second */
	int64_t off_ns;         /* TRIGGER: signed offset from the trigger */
	double pct;             /* PERCENT: 0..100 of the file's span */
	int year, mon, mday, hour, min, sec;   /* WALL */
	bool has_date, has_zone;
	int zone_s;             /* WALL with a zone: seconds east of UTC */
};

struct fr_timesel {
	size_t n;
	struct { struct fr_tpoint a, b; } r[FR_TIME_MAX_RANGES];
};

/* Closed event-clock ranges [lo, hi]. */
struct fr_time_ranges {
	size_t n;
	uint64_t lo[FR_TIME_MAX_RANGES], hi[FR_TIME_MAX_RANGES];
};

/* What resolving needs of the file. */
struct fr_time_ctx {
	uint64_t first, last;          /* the span of the file's events */
	bool has_clock, has_trigger;
	struct fr_clock_ref clock;
	uint64_t trigger_ns;
};

/* Parse a --time argument: 0, or -EINVAL with *why a one-line reason. */
int fr_timesel__parse(const char *arg, struct fr_timesel *out, const char **why);
/* Event-clock ranges of sel in a file: 0, or -EINVAL with *why (a form the
 * file cannot answer, START after END). Without a date, a wall-clock time is
 * on the file's date (its first event's, in that time's zone). */
int fr_timesel__resolve(const struct fr_timesel *sel, const struct fr_time_ctx *c,
			struct fr_time_ranges *out, const char **why);
bool fr_time_ranges__has(const struct fr_time_ranges *r, uint64_t t);
/* input.c: "SEC.NSEC" (as dump prints times) to nanoseconds: 0 or -EINVAL. */
int fr_input__parse_time(const char *s, const char *end, uint64_t *ns);

/* ---- walltime.c ---- */
/* real_ns as local time "YYYY-MM-DD HH:MM:SS.frac" with digits (1..9) of the
 * second's fraction (perf script's tod field with 6). */
void fr_walltime__format(uint64_t real_ns, int digits, char *buf, size_t len);
/* An event-clock time as dump prints it (and --time takes it): "SEC.NSEC". */
void fr_walltime__put_mono(FILE *f, uint64_t t);
/* The local zone at real_ns: "+0100 CET". */
void fr_walltime__zone(uint64_t real_ns, char *buf, size_t len);
/* The report header's spans, each named: the recorder's run (record_start_ns
 * to snapshot_time_ns) and the events the file holds (its CPU stats), in
 * local time with date and zone where the file has a clock reference. */
struct fr_reader;
void fr_walltime__header(FILE *f, struct fr_reader *rd);

#endif
