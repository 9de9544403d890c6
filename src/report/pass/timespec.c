/* src/report/pass/timespec.c: report --time: each form parsed with end pointers
 * and range checks, then resolved against a file's span, trigger and clock
 * pair into event-clock ranges (doc/report.md, "Choosing a time range").
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/util.h"
#include "src/report/pass/timespec.h"

#define NS 1000000000ll

/* Exactly n digits at *p (before end) into v. */
static bool digits(const char **p, const char *end, int n, int *v)
{
	int x = 0;

	if (end - *p < n)
		return false;
	for (int i = 0; i < n; i++) {
		char c = (*p)[i];

		if (c < '0' || c > '9')
			return false;
		x = x * 10 + (c - '0');
	}
	*p += n;
	*v = x;
	return true;
}

static bool lit(const char **p, const char *end, char c)
{
	if (*p < end && **p == c) {
		(*p)++;
		return true;
	}
	return false;
}

/* [YYYY-MM-DDT]HH:MM[:SS[.F]][Z|(+|-)HH[:]MM] */
static int parse_wall(const char *s, const char *end, struct fr_tpoint *t)
{
	const char *p = s;
	int zh, zm;

	*t = (struct fr_tpoint){ .kind = FR_TP_WALL };
	if (end - p >= 10 && p[4] == '-') {
		if (!digits(&p, end, 4, &t->year) || !lit(&p, end, '-') ||
		    !digits(&p, end, 2, &t->mon) || !lit(&p, end, '-') ||
		    !digits(&p, end, 2, &t->mday) || !lit(&p, end, 'T'))
			return -EINVAL;
		if (t->year < 1970 || t->mon < 1 || t->mon > 12 || t->mday < 1 || t->mday > 31)
			return -EINVAL;
		t->has_date = true;
	}
	if (!digits(&p, end, 2, &t->hour) || !lit(&p, end, ':') || !digits(&p, end, 2, &t->min))
		return -EINVAL;
	if (lit(&p, end, ':')) {
		if (!digits(&p, end, 2, &t->sec))
			return -EINVAL;
		if (lit(&p, end, '.')) {
			int n = 0;

			for (; p < end && *p >= '0' && *p <= '9'; p++, n++) {
				if (n == 9)
					return -EINVAL;
				t->ns = t->ns * 10 + (uint64_t)(*p - '0');
			}
			if (!n)
				return -EINVAL;
			for (; n < 9; n++)
				t->ns *= 10;
		}
	}
	if (t->hour > 23 || t->min > 59 || t->sec > 59)
		return -EINVAL;
	if (lit(&p, end, 'Z')) {
		t->has_zone = true;
	} else if (p < end && (*p == '+' || *p == '-')) {
		int sign = *p++ == '-' ? -1 : 1;

		if (!digits(&p, end, 2, &zh))
			return -EINVAL;
		lit(&p, end, ':');
		if (!digits(&p, end, 2, &zm) || zh > 14 || zm > 59)
			return -EINVAL;
		t->zone_s = sign * (zh * 3600 + zm * 60);
		t->has_zone = true;
	}
	return p == end ? 0 : -EINVAL;
}

/* "trigger", "trigger+DUR", "trigger-DUR" (DUR: fr_parse__duration). */
static int parse_trigger(const char *s, const char *end, struct fr_tpoint *t)
{
	char buf[64];
	size_t n = (size_t)(end - s);
	uint64_t d;

	*t = (struct fr_tpoint){ .kind = FR_TP_TRIGGER };
	if (n == 7)
		return 0;
	if ((s[7] != '+' && s[7] != '-') || n - 8 >= sizeof(buf) || n == 8)
		return -EINVAL;
	memcpy(buf, s + 8, n - 8);
	buf[n - 8] = '\0';
	if (fr_parse__duration(buf, &d))
		return -EINVAL;
	t->off_ns = s[7] == '-' ? -(int64_t)d : (int64_t)d;
	return 0;
}

/* One end of a range in [s, end); empty: open. */
static int parse_point(const char *s, const char *end, struct fr_tpoint *t)
{
	if (s == end) {
		*t = (struct fr_tpoint){ .kind = FR_TP_OPEN };
		return 0;
	}
	if (end - s >= 7 && !strncmp(s, "trigger", 7))
		return parse_trigger(s, end, t);
	if (memchr(s, ':', (size_t)(end - s)))
		return parse_wall(s, end, t);
	*t = (struct fr_tpoint){ .kind = FR_TP_MONO };
	return fr_input__parse_time(s, end, &t->ns);
}

/* A percentage "P%" in [s, end): 0..100. */
static int parse_pct(const char *s, const char *end, double *v)
{
	char buf[32], *e;
	size_t n = (size_t)(end - s);

	if (n < 2 || n > sizeof(buf) || end[-1] != '%' || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	memcpy(buf, s, n - 1);
	buf[n - 1] = '\0';
	if (strspn(buf, "0123456789.") != n - 1)   /* decimal only: no 1e1, 0x10 */
		return -EINVAL;
	errno = 0;
	*v = strtod(buf, &e);
	return errno || *e || !(*v >= 0 && *v <= 100) ? -EINVAL : 0;
}

/* perf's percent forms, comma separated: "A%-B%" or "A%/N" (the Nth slice of A%). */
static int parse_percents(const char *arg, struct fr_timesel *out, const char **why)
{
	const char *p = arg;

	*why = "expected perf's percentages: A%-B% or A%/N, comma separated (e.g. 10%-20%, 10%/2)";
	while (1) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
		const char *dash = memchr(p, '-', (size_t)(end - p));
		const char *slash = memchr(p, '/', (size_t)(end - p));
		double a, b;

		if (out->n == FR_TIME_MAX_RANGES) {
			*why = "too many ranges (at most 16)";
			return -EINVAL;
		}
		if (dash && !slash) {
			if (parse_pct(p, dash, &a) || parse_pct(dash + 1, end, &b))
				return -EINVAL;
			if (a > b) {
				*why = "START is after END";
				return -EINVAL;
			}
		} else if (slash && !dash) {
			uint64_t nth;
			char buf[16];

			if (parse_pct(p, slash, &a) || !(a > 0) || end - slash - 1 <= 0 ||
			    (size_t)(end - slash - 1) >= sizeof(buf))
				return -EINVAL;
			memcpy(buf, slash + 1, (size_t)(end - slash - 1));
			buf[end - slash - 1] = '\0';
			if (fr_parse__u64(buf, 1, 100000, &nth))
				return -EINVAL;
			b = a * (double)nth;
			a = b - a;
			if (b > 100.0 + 1e-9) {
				*why = "the slice A%/N ends past 100%";
				return -EINVAL;
			}
			b = b > 100 ? 100 : b;
		} else {
			return -EINVAL;
		}
		out->r[out->n].a = (struct fr_tpoint){ .kind = FR_TP_PERCENT, .pct = a };
		out->r[out->n++].b = (struct fr_tpoint){ .kind = FR_TP_PERCENT, .pct = b };
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* One range in [s, end): "START,END" (either may be empty), else
 * "START-END" split at the first '-' that leaves two valid ends. */
static int parse_range(const char *s, const char *end, struct fr_tpoint *a, struct fr_tpoint *b)
{
	const char *comma = memchr(s, ',', (size_t)(end - s));

	if (comma)
		return memchr(comma + 1, ',', (size_t)(end - comma - 1)) ||
		       parse_point(s, comma, a) || parse_point(comma + 1, end, b) ? -EINVAL : 0;
	for (const char *d = s + 1; d < end - 1; d++)
		if (*d == '-' && !parse_point(s, d, a) && !parse_point(d + 1, end, b) &&
		    a->kind != FR_TP_OPEN && b->kind != FR_TP_OPEN)
			return 0;
	return -EINVAL;
}

int fr_timesel__parse(const char *arg, struct fr_timesel *out, const char **why)
{
	const char *p = arg;

	*out = (struct fr_timesel){ 0 };
	if (strchr(arg, '%'))
		return parse_percents(arg, out, why);
	*why = "expected START,END (or START-END), each SEC.NSEC, a wall-clock time "
	       "([YYYY-MM-DDT]HH:MM:SS[.F][Z|+HH:MM]) or trigger[+-]DURATION; either may be "
	       "empty; several ranges: space separated";
	while (*p == ' ')
		p++;
	if (!*p)
		return -EINVAL;
	while (*p) {
		const char *end = strchr(p, ' ');

		end = end ? end : p + strlen(p);
		if (out->n == FR_TIME_MAX_RANGES) {
			*why = "too many ranges (at most 16)";
			return -EINVAL;
		}
		if (parse_range(p, end, &out->r[out->n].a, &out->r[out->n].b))
			return -EINVAL;
		out->n++;
		for (p = end; *p == ' '; p++)
			;
	}
	return 0;
}

/* The date a wall-clock time without one takes: the file's first event's,
 * in the zone the time is given in (local when none). */
static bool file_date(const struct fr_tpoint *t, const struct fr_time_ctx *c, struct tm *tm)
{
	time_t s = (time_t)(fr_clock__to_real(&c->clock, c->first) / NS);

	if (t->has_zone) {
		s += t->zone_s;
		return gmtime_r(&s, tm) != NULL;
	}
	return localtime_r(&s, tm) != NULL;
}

/* Seconds since the epoch of t on the date of tm (tm's fields are kept when
 * t has its own date): false when the date does not exist. */
static bool wall_secs(const struct fr_tpoint *t, const struct tm *date, int64_t *out)
{
	struct tm tm = { 0 }, chk;
	time_t s;

	tm.tm_year = t->has_date ? t->year - 1900 : date->tm_year;
	tm.tm_mon = t->has_date ? t->mon - 1 : date->tm_mon;
	tm.tm_mday = t->has_date ? t->mday : date->tm_mday;
	tm.tm_hour = t->hour;
	tm.tm_min = t->min;
	tm.tm_sec = t->sec;
	tm.tm_isdst = -1;
	chk = tm;
	s = t->has_zone ? timegm(&tm) : mktime(&tm);
	if (s == (time_t)-1 || tm.tm_mday != chk.tm_mday || tm.tm_mon != chk.tm_mon)
		return false;
	*out = (int64_t)s - (t->has_zone ? t->zone_s : 0);
	return true;
}

static int resolve_wall(const struct fr_tpoint *t, const struct fr_time_ctx *c, uint64_t *ns,
			const char **why)
{
	struct tm date = { 0 };
	int64_t s;
	uint64_t real, first_real;

	if (!c->has_clock) {
		*why = "the file has no wall-clock reference (no clock_pair_* or realtime_offset_ns "
		       "meta): give event-clock times (SEC.NSEC)";
		return -EINVAL;
	}
	if ((!t->has_date && !file_date(t, c, &date)) || !wall_secs(t, &date, &s) || s < 0) {
		*why = "no such date";
		return -EINVAL;
	}
	real = (uint64_t)s * NS + t->ns;
	first_real = fr_clock__to_real(&c->clock, c->first);
	/* a time of day before the file's first event, in a file that runs
	 * past midnight: the next day's */
	if (!t->has_date && real < first_real && real + 86400 * NS <= fr_clock__to_real(&c->clock, c->last))
		real += 86400 * NS;
	if (!fr_clock__to_mono(&c->clock, real, ns))
		*ns = 0;
	return 0;
}

static int resolve(const struct fr_tpoint *t, bool end, const struct fr_time_ctx *c, uint64_t *ns,
		   const char **why)
{
	switch (t->kind) {
	case FR_TP_OPEN:
		*ns = end ? UINT64_MAX : 0;
		return 0;
	case FR_TP_MONO:
		*ns = t->ns;
		return 0;
	case FR_TP_WALL:
		return resolve_wall(t, c, ns, why);
	case FR_TP_TRIGGER:
		if (!c->has_trigger) {
			*why = "the file has no trigger (trigger_time_ns of a TRIGGER blob)";
			return -EINVAL;
		}
		*ns = t->off_ns < 0 && (uint64_t)-t->off_ns > c->trigger_ns ? 0
		      : c->trigger_ns + (uint64_t)t->off_ns;
		return 0;
	case FR_TP_PERCENT: {
		uint64_t span = c->last > c->first ? c->last - c->first : 0;

		*ns = c->first + (uint64_t)((double)span * t->pct / 100.0 + 0.5);
		if (*ns > c->last)
			*ns = c->last;
		return 0;
	}
	}
	return -EINVAL;
}

int fr_timesel__resolve(const struct fr_timesel *sel, const struct fr_time_ctx *c,
			struct fr_time_ranges *out, const char **why)
{
	out->n = 0;
	for (size_t i = 0; i < sel->n; i++) {
		uint64_t lo, hi;

		if (resolve(&sel->r[i].a, false, c, &lo, why) || resolve(&sel->r[i].b, true, c, &hi, why))
			return -EINVAL;
		if (lo > hi) {
			*why = "START is after END";
			return -EINVAL;
		}
		out->lo[out->n] = lo;
		out->hi[out->n++] = hi;
	}
	return 0;
}

bool fr_time_ranges__has(const struct fr_time_ranges *r, uint64_t t)
{
	for (size_t i = 0; i < r->n; i++)
		if (t >= r->lo[i] && t <= r->hi[i])
			return true;
	return false;
}
