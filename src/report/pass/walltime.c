/* src/report/pass/walltime.c: event times as people say them: local wall-clock
 * text (perf script's tod field) and the report header's spans, each under
 * its own name: the recorder's run, the events the file holds.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "src/util.h"
#include "src/report/pass/pass.h"
#include "src/report/pass/timespec.h"

#define NS 1000000000ull

void fr_walltime__format(uint64_t real_ns, int digits, char *buf, size_t len)
{
	time_t s = (time_t)(real_ns / NS);
	uint64_t frac = real_ns % NS;
	struct tm tm;
	char date[32];

	if (digits < 1 || digits > 9)
		digits = 9;
	for (int i = digits; i < 9; i++)
		frac /= 10;
	if (!localtime_r(&s, &tm) || !strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(date, sizeof(date), "?");
	snprintf(buf, len, "%s.%0*llu", date, digits, (unsigned long long)frac);
}

void fr_walltime__zone(uint64_t real_ns, char *buf, size_t len)
{
	time_t s = (time_t)(real_ns / NS);
	struct tm tm;

	if (!len || !localtime_r(&s, &tm) || !strftime(buf, len, "%z %Z", &tm))
		snprintf(buf, len, "?");
}

void fr_walltime__put_mono(FILE *f, uint64_t t)
{
	fprintf(f, "%llu.%09llu", (unsigned long long)(t / NS), (unsigned long long)(t % NS));
}

/* "NAME: S s, from A to B" with the wall clock when the file has one. */
static void span(FILE *f, const char *name, uint64_t a, uint64_t b, const struct fr_clock_ref *c)
{
	char wa[64], wb[64], zone[64];

	fprintf(f, "# %s: %.3f s, from ", name, (double)(b - a) / 1e9);
	if (c) {
		fr_walltime__format(fr_clock__to_real(c, a), 3, wa, sizeof(wa));
		fr_walltime__format(fr_clock__to_real(c, b), 3, wb, sizeof(wb));
		fr_walltime__zone(fr_clock__to_real(c, a), zone, sizeof(zone));
		fprintf(f, "%s to %s %s (event clock ", wa, wb, zone);
	}
	fr_walltime__put_mono(f, a);
	fputs(" to ", f);
	fr_walltime__put_mono(f, b);
	fputs(c ? ")\n" : "\n", f);
}

void fr_walltime__header(FILE *f, struct fr_reader *rd)
{
	struct fr_clock_ref ref;
	const struct fr_clock_ref *c = fr_clock__of_file(rd, &ref) ? NULL : &ref;
	const char *vs = fr_reader__meta(rd, "record_start_ns");
	const char *ve = fr_reader__meta(rd, "snapshot_time_ns");
	uint64_t start, end, first, last;

	fr_input__window(rd, &first, &last);
	/* start to the snapshot; a forward file's meta is written at its start,
	 * so its run goes on at least to its last record */
	if (vs && ve && !fr_parse__u64(vs, 1, UINT64_MAX, &start) &&
	    !fr_parse__u64(ve, start, UINT64_MAX, &end))
		span(f, "recorder's run", start, last > end ? last : end, c);
	if (first && last >= first)
		span(f, "events in the file", first, last, c);
	if (c) {
		char zone[64];

		fr_walltime__zone(fr_clock__to_real(c, first ? first : 1), zone, sizeof(zone));
		fprintf(f, "# wall clock: local time, UTC%.3s:%.2s (%s), from the file's %s\n",
			zone, zone + 3, zone, c->source);
	}
}
