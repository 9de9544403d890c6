/* tests/report/test_timespec.c: CUnit suite for report --time's parser and
 * resolver (src/report/pass/timespec.c), the wall-clock text (walltime.c) and
 * the clock pairs of a file (src/file/clock.c): taking, meta text, fallback.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/cunit.h"
#include "src/file/clock.h"
#include "src/file/file.h"
#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"

#define S 1000000000ull
/* 2026-12-04T14:03:10Z in seconds since the epoch */
#define WALL_1403 1796392990ull

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static int bad(const char *arg)
{
	struct fr_timesel sel;
	const char *why = NULL;
	int err = fr_timesel__parse(arg, &sel, &why);

	if (err && (!why || !*why || strchr(why, '\n')))
		return -1;   /* an error must say why, on one line */
	return err;
}

static void test_parse_bad(void)
{
	static const char *v[] = {
		"", " ", "12x", "1,2,3", "1.", ".5,", "1.0123456789,", "99999999999999999999,",
		"25:00,", "14:60,", "14:03:61,", "14:03:10.,", "14:03:10.1234567890,", "14:03,x",
		"14:03:10+15:00,", "14:03:10+01:60,", "14:03:10Q,", "2026-13-01T00:00,",
		"2026-00-01T00:00,", "2026-1-01T00:00,", "1969-12-31T23:59Z,", "2026-12-04 14:03,",
		"trigger+", "trigger+1x,", "triggerx,", "trigger+8d,", "trigger-,", "14:03:10",
		"-5", "5-", "%", "10%", "10%-", "-10%", "10%-20", "120%-130%", "10%/0", "10%/",
		"0%/2", "60%/2", "10%/x", "10%-20%/2", "10%-20%,", "1%,2%", "-1%-2%", "10%-20% 50%/10", "nan%-5%", "0x10%-20%", "1e1%-20%",
		"1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2 1,2",
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int err = bad(v[i]);

		if (err != -EINVAL)
			fprintf(stderr, "accepted or badly refused: '%s' (%d)\n", v[i], err);
		CU_ASSERT_EQUAL(err, -EINVAL);
	}
}

static void test_parse_forms(void)
{
	struct fr_timesel sel;
	const char *why;

	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("1200.5,1201", &sel, &why), 0);
	CU_ASSERT_EQUAL(sel.n, 1);
	CU_ASSERT_EQUAL(sel.r[0].a.kind, FR_TP_MONO);
	CU_ASSERT_EQUAL(sel.r[0].a.ns, 1200500000000ull);
	CU_ASSERT_EQUAL(sel.r[0].b.ns, 1201 * S);
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse(",5", &sel, &why), 0);
	CU_ASSERT_EQUAL(sel.r[0].a.kind, FR_TP_OPEN);
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("1.5-2 3,", &sel, &why), 0);
	CU_ASSERT_EQUAL(sel.n, 2);
	CU_ASSERT_EQUAL(sel.r[0].b.ns, 2 * S);
	CU_ASSERT_EQUAL(sel.r[1].b.kind, FR_TP_OPEN);
	/* wall clock: the dash that leaves two valid ends splits */
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("2026-12-04T14:03:10.25Z-2026-12-04T15:03:14+01:00",
						&sel, &why), 0);
	CU_ASSERT_EQUAL(sel.n, 1);
	CU_ASSERT(sel.r[0].a.has_date && sel.r[0].a.has_zone && !sel.r[0].a.zone_s);
	CU_ASSERT_EQUAL(sel.r[0].a.ns, 250000000ull);
	CU_ASSERT_EQUAL(sel.r[0].b.zone_s, 3600);
	CU_ASSERT_EQUAL(sel.r[0].b.hour, 15);
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("14:03:10-14:03:14", &sel, &why), 0);
	CU_ASSERT(!sel.r[0].a.has_date && !sel.r[0].a.has_zone);
	CU_ASSERT_EQUAL(sel.r[0].b.sec, 14);
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("14:03:10-0530,", &sel, &why), 0);
	CU_ASSERT_EQUAL(sel.r[0].a.zone_s, -(5 * 3600 + 30 * 60));
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("trigger-2s,trigger+500ms", &sel, &why), 0);
	CU_ASSERT_EQUAL(sel.r[0].a.off_ns, -2 * (int64_t)S);
	CU_ASSERT_EQUAL(sel.r[0].b.off_ns, 500000000);
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("trigger-2s-trigger", &sel, &why), 0);
	CU_ASSERT_EQUAL(sel.r[0].b.off_ns, 0);
	/* perf's percentages */
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("10%/2", &sel, &why), 0);
	CU_ASSERT_DOUBLE_EQUAL(sel.r[0].a.pct, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sel.r[0].b.pct, 20, 1e-9);
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("0%-10%,30%-40%", &sel, &why), 0);
	CU_ASSERT_EQUAL(sel.n, 2);
	CU_ASSERT_DOUBLE_EQUAL(sel.r[1].a.pct, 30, 1e-9);
	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse("25%/4", &sel, &why), 0);
	CU_ASSERT_DOUBLE_EQUAL(sel.r[0].b.pct, 100, 1e-9);
}

static struct fr_time_ctx ctx(void)
{
	/* events from mono 1000 s to 1100 s; wall = mono + (WALL_1403 - 1000 s) */
	struct fr_time_ctx c = { 1000 * S, 1100 * S, true, true,
				 { (int64_t)((WALL_1403 - 1000) * S), "test" }, 1050 * S };
	return c;
}

static int resolve(const char *arg, const struct fr_time_ctx *c, struct fr_time_ranges *r,
		   const char **why)
{
	struct fr_timesel sel;

	CU_ASSERT_EQUAL_FATAL(fr_timesel__parse(arg, &sel, why), 0);
	return fr_timesel__resolve(&sel, c, r, why);
}

static void test_resolve(void)
{
	struct fr_time_ctx c = ctx();
	struct fr_time_ranges r;
	const char *why;

	set_tz("UTC0");
	CU_ASSERT_EQUAL_FATAL(resolve("14:03:10-14:03:14.5", &c, &r, &why), 0);
	CU_ASSERT_EQUAL(r.lo[0], 1000 * S);
	CU_ASSERT_EQUAL(r.hi[0], 1004 * S + 500000000);
	CU_ASSERT_EQUAL_FATAL(resolve("2026-12-04T15:03:20+01:00,", &c, &r, &why), 0);
	CU_ASSERT_EQUAL(r.lo[0], 1010 * S);
	CU_ASSERT_EQUAL(r.hi[0], UINT64_MAX);
	/* local time: the zone of TZ, on the file's date in that zone */
	set_tz("CET-1CEST,M3.5.0,M10.5.0/3");
	CU_ASSERT_EQUAL_FATAL(resolve("15:03:11,15:03:12", &c, &r, &why), 0);
	CU_ASSERT_EQUAL(r.lo[0], 1001 * S);
	CU_ASSERT_EQUAL(r.hi[0], 1002 * S);
	set_tz("UTC0");
	CU_ASSERT_EQUAL_FATAL(resolve("trigger-2s,trigger+1s", &c, &r, &why), 0);
	CU_ASSERT_EQUAL(r.lo[0], 1048 * S);
	CU_ASSERT_EQUAL(r.hi[0], 1051 * S);
	CU_ASSERT(fr_time_ranges__has(&r, 1050 * S));
	CU_ASSERT(!fr_time_ranges__has(&r, 1051 * S + 1));
	CU_ASSERT_EQUAL_FATAL(resolve("10%-20%,10%/10", &c, &r, &why), 0);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_EQUAL(r.lo[0], 1010 * S);
	CU_ASSERT_EQUAL(r.hi[0], 1020 * S);
	CU_ASSERT_EQUAL(r.lo[1], 1090 * S);
	CU_ASSERT_EQUAL(r.hi[1], 1100 * S);
	CU_ASSERT(!fr_time_ranges__has(&r, 1050 * S));
	/* what the file cannot answer, and ends the wrong way round */
	CU_ASSERT_EQUAL(resolve("14:03:14,14:03:10", &c, &r, &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "START is after END");
	c.has_clock = false;
	CU_ASSERT_EQUAL(resolve("14:03:10,", &c, &r, &why), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "wall-clock"));
	c.has_trigger = false;
	CU_ASSERT_EQUAL(resolve("trigger,", &c, &r, &why), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "trigger"));
	c = ctx();
	CU_ASSERT_EQUAL(resolve("2026-02-30T00:00Z,", &c, &r, &why), -EINVAL);
	/* a wall time before the event clock's 0: from the start */
	CU_ASSERT_EQUAL_FATAL(resolve("1999-01-01T00:00Z,", &c, &r, &why), 0);
	CU_ASSERT_EQUAL(r.lo[0], 0);
}

static void test_walltime(void)
{
	char buf[64];

	set_tz("UTC0");
	fr_walltime__format(WALL_1403 * S + 123456789, 6, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "2026-12-04 14:03:10.123456");
	fr_walltime__format(WALL_1403 * S + 5, 9, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "2026-12-04 14:03:10.000000005");
	set_tz("CET-1CEST,M3.5.0,M10.5.0/3");
	fr_walltime__format(WALL_1403 * S, 3, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "2026-12-04 15:03:10.000");
	fr_walltime__zone(WALL_1403 * S, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "+0100 CET");
	set_tz("UTC0");
}

static void test_clock_pair(void)
{
	struct fr_clock_pair p, q;
	struct timespec m, r;
	char text[FR_CLOCK_PAIR_TEXT];

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	CU_ASSERT_EQUAL_FATAL(fr_clock__pair(&p), 0);
	CU_ASSERT(p.mono_ns >= (uint64_t)m.tv_sec * S + (uint64_t)m.tv_nsec);
	CU_ASSERT(p.real_ns >= (uint64_t)r.tv_sec * S + (uint64_t)r.tv_nsec);
	CU_ASSERT(p.bracket_ns < S);
	fr_clock__format(&p, text, sizeof(text));
	CU_ASSERT_EQUAL_FATAL(fr_clock__parse(text, &q), 0);
	CU_ASSERT_EQUAL(q.mono_ns, p.mono_ns);
	CU_ASSERT_EQUAL(q.real_ns, p.real_ns);
	CU_ASSERT_EQUAL(q.bracket_ns, p.bracket_ns);
	CU_ASSERT_EQUAL(fr_clock__parse("1 2 3", &q), 0);
	CU_ASSERT_EQUAL(fr_clock__parse("1 2", &q), -EINVAL);
	CU_ASSERT_EQUAL(fr_clock__parse("1 2 3 ", &q), -EINVAL);
	CU_ASSERT_EQUAL(fr_clock__parse("1  2 3", &q), -EINVAL);
	CU_ASSERT_EQUAL(fr_clock__parse("-1 2 3", &q), -EINVAL);
	CU_ASSERT_EQUAL(fr_clock__parse("1 2 99999999999999999999", &q), -EINVAL);
	CU_ASSERT_EQUAL(fr_clock__parse("1 2 9223372036854775808", &q), -EINVAL);
	CU_ASSERT_EQUAL(fr_clock__parse(NULL, &q), -EINVAL);
}

/* A file with the given meta (key, value pairs, NULL ended): its clock reference. */
static int clock_of(const char **meta, struct fr_clock_ref *ref)
{
	char dir[] = "/tmp/test_timespec.XXXXXX", path[64];
	struct fr_writer *w;
	struct fr_reader *rd;
	int ret;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/f.frec", dir);
	CU_ASSERT_EQUAL_FATAL(fr_writer__open(path, 1, &w), 0);
	for (; *meta; meta += 2) {
		int err = !strcmp(meta[1], "now")   /* as the recorder writes it */
			  ? fr_clock__put_meta(w, meta[0], NULL) : fr_writer__meta(w, meta[0], meta[1]);

		CU_ASSERT_EQUAL(err, 0);
	}
	CU_ASSERT_EQUAL_FATAL(fr_writer__close(w), 0);
	CU_ASSERT_EQUAL_FATAL(fr_reader__open(path, &rd), 0);
	ret = fr_clock__of_file(rd, ref);
	fr_reader__close(rd);
	unlink(path);
	rmdir(dir);
	return ret;
}

static void test_clock_of_file(void)
{
	const char *both[] = { "realtime_offset_ns", "7", FR_META_CLOCK_START, "100 250 3",
			       FR_META_CLOCK_SNAPSHOT, "1000 1900 2", NULL };
	const char *start[] = { "realtime_offset_ns", "7", FR_META_CLOCK_START, "100 250 3", NULL };
	const char *old[] = { "realtime_offset_ns", "-7", FR_META_CLOCK_SNAPSHOT, "x", NULL };
	const char *none[] = { "realtime_offset_ns", "7x", NULL };
	const char *now[] = { FR_META_CLOCK_SNAPSHOT, "now", NULL };
	struct fr_clock_ref ref;
	struct timespec m, r;
	int64_t want;
	uint64_t t;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	want = ((int64_t)r.tv_sec - (int64_t)m.tv_sec) * (int64_t)S + (r.tv_nsec - m.tv_nsec);
	CU_ASSERT_EQUAL_FATAL(clock_of(now, &ref), 0);
	CU_ASSERT_STRING_EQUAL(ref.source, FR_META_CLOCK_SNAPSHOT);
	/* the same offset within 10 ms (no clock step during the test) */
	CU_ASSERT(ref.real_minus_mono - want < 10000000 && want - ref.real_minus_mono < 10000000);

	CU_ASSERT_EQUAL_FATAL(clock_of(both, &ref), 0);
	CU_ASSERT_EQUAL(ref.real_minus_mono, 900);
	CU_ASSERT_STRING_EQUAL(ref.source, FR_META_CLOCK_SNAPSHOT);
	CU_ASSERT_EQUAL(fr_clock__to_real(&ref, 1000), 1900);
	CU_ASSERT(fr_clock__to_mono(&ref, 1900, &t) && t == 1000);
	CU_ASSERT(!fr_clock__to_mono(&ref, 899, &t));
	CU_ASSERT_EQUAL_FATAL(clock_of(start, &ref), 0);
	CU_ASSERT_EQUAL(ref.real_minus_mono, 150);
	CU_ASSERT_EQUAL_FATAL(clock_of(old, &ref), 0);
	CU_ASSERT_EQUAL(ref.real_minus_mono, -7);
	CU_ASSERT_STRING_EQUAL(ref.source, "realtime_offset_ns");
	CU_ASSERT_EQUAL(fr_clock__to_real(&ref, 3), 0);
	CU_ASSERT_EQUAL(clock_of(none, &ref), -ENOENT);
}

/* perf-script: a tid of -1 (an exiting task) as perf prints it, and the tod
 * field of --tod between the CPU and the time. */
static void test_script_tod(void)
{
	struct fr_clock_ref ref = { (int64_t)((WALL_1403 - 1) * S), "test" };
	struct fr_rsample rs = { .event = NULL, .pid = UINT32_MAX, .tid = UINT32_MAX, .cpu = 3,
				 .time = 1500000000ull, .comm = ":-1" };
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	set_tz("UTC0");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fr_script__sample(f, &rs, NULL, 9), 0);
	CU_ASSERT_EQUAL(fr_script__sample_tod(f, &rs, NULL, 9, &ref), 0);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf,
		"             :-1    -1 [003]     1.500000: [unknown]: \n"
		"             :-1    -1 [003] 2026-12-04 14:03:10.500000     1.500000: [unknown]: \n");
	free(buf);
}

static const struct fr_test tests[] = {
	{ "--time: bad values refused with a reason", test_parse_bad },
	{ "--time: every form parsed", test_parse_forms },
	{ "--time: resolved against a file", test_resolve },
	{ "wall-clock text", test_walltime },
	{ "clock pair: taken, meta text", test_clock_pair },
	{ "clock reference of a file, old files too", test_clock_of_file },
	{ "perf-script: tid -1 and --tod", test_script_tod },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "timespec", NULL, NULL, tests };
