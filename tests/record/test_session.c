/* tests/record/test_session.c: CUnit suite for the session and the composer
 * (src/record/session.c, composer.c) driven through a fake sample source,
 * without a kernel: an evlist never opened (two CPUs set by hand), the
 * source's stream_into writing known samples, a snapshot composed, and the
 * file read back: its mode meta, its events, every sample in time order
 * with its CPU, the CPU stats the source filled, and a second snapshot a
 * file of its own.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/cunit.h"
#include "ring/event.h"
#include "ring/evlist.h"
#include "src/file/file.h"
#include "src/record/session_internal.h"
#include "src/record/session.h"

#define NR 50   /* samples per CPU */
#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

struct fake {
	struct fr_source src;   /* first, as every source */
	unsigned snapshots, streamed;
};

struct sample {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t time, period;
};

/* CPU index ci's samples: pid 100 + ci, times 1000 + 10 i + ci (ns). */
static int fake_stream_into(struct fr_source *src, struct fr_composer *c,
			    struct fr_streams *out, struct fr_snapshot_stats *st)
{
	struct fake *f = (struct fake *)src;
	size_t ncpu = fr_evlist__nr_cpus(src->s->el);
	int err = 0;

	for (size_t ci = 0; ci < ncpu && !err; ci++) {
		struct fr_writer *app;
		struct fr_cpu_stat *cs = &out->cs[ci];

		if ((err = fr_composer__appender(c, &app)))
			break;
		err = fr_writer__records_begin(app, cs->cpu, FR_STREAM_SAMPLES);
		for (uint32_t i = 0; i < NR && !err; i++) {
			struct sample s = { { PERF_RECORD_SAMPLE, 0, sizeof(s) }, 100 + (uint32_t)ci,
					    100 + (uint32_t)ci, 1000 + 10 * i + ci, 1 };

			err = fr_writer__record(app, &s.h);
			if (!cs->first_time)
				cs->first_time = s.time;
			cs->last_time = s.time;
			cs->nr_samples++;
		}
		if (!err)
			err = fr_writer__records_end(app);
		if (fr_composer__appender_close(c, app) && !err)
			err = -EIO;
	}
	f->streamed++;
	return err;
}

static int fake_snapshot(struct fr_source *src, const struct fr_trigger *tr, char *path,
			 size_t len, struct fr_snapshot_stats *st)
{
	((struct fake *)src)->snapshots++;
	return fr_composer__snapshot(src->s, tr, tr->time, path, len, st);
}

static int fake_say(const struct fr_trigger *tr, const char *path, int err,
		    const struct fr_snapshot_stats *st)
{
	(void)tr;
	(void)path;
	(void)st;
	return err;
}

static void fake_destroy(struct fr_source *src)
{
	(void)src;
}

static void fake_say_start(struct fr_source *src, const char *path, int err)
{
	(void)src;
	(void)path;
	(void)err;
}

static const struct fr_source_ops fake_ops = {
	.name = "fake",
	.size = sizeof(struct fake),
	.snapshot = fake_snapshot,
	.stream_into = fake_stream_into,
	.say = fake_say,
	.say_start = fake_say_start,
	.stop = fr_session_final_snapshot,   /* a composing source's end */
	.say_end = fr_session_say_final,
	.destroy = fake_destroy,
};

struct seen {
	uint64_t samples, last_time;
	bool ordered, cpus_right;
};

static int seen_cb(void *ctx, const struct fr_rec *r)
{
	struct seen *s = ctx;
	const struct sample *x = (const struct sample *)r->h;

	if (r->kind != FR_STREAM_SAMPLES || r->h->type != PERF_RECORD_SAMPLE)
		return 0;
	s->samples++;
	if (r->time < s->last_time)
		s->ordered = false;
	s->last_time = r->time;
	/* CPU 3's (index 1) samples have odd times and pid 101 */
	if (r->h->size != sizeof(*x) || x->time != r->time ||
	    (r->cpu == 3) != (x->time & 1) || x->pid != (r->cpu == 3 ? 101u : 100u))
		s->cpus_right = false;
	return 0;
}

static void test_fake_source(void)
{
	static const int cpus[] = { 0, 3 };
	char dir[] = "/tmp/fr-session-XXXXXX", path[PATH_MAX], path2[PATH_MAX], path3[PATH_MAX];
	struct fr_session_opts so = { .name = "fake", .target_desc = "a fake source",
				      .cmdline = "test_session", .zstd_level = 1,
				      .sb_cap = 1 << 16, .source = &fake_ops };
	struct fr_trigger tr = { .source = "command", .time = 5000 };
	struct fr_snapshot_stats st;
	struct fr_session *s;
	struct fr_evlist *el;
	struct fr_event *ev;
	struct fr_reader *rd;
	struct seen seen = { .ordered = true, .cpus_right = true };
	const char *mode;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	so.outdir = dir;
	CU_ASSERT_PTR_NOT_NULL_FATAL(el = fr_evlist__new());
	CU_ASSERT_EQUAL_FATAL(fr_event__resolve("cpu-clock", &ev), 0);
	ev->attr.sample_type = ST;
	CU_ASSERT_EQUAL_FATAL(fr_evlist__add(el, ev), 0);
	CU_ASSERT_EQUAL_FATAL(fr_evlist__set_cpus(el, cpus, 2), 0);
	CU_ASSERT_EQUAL(fr_evlist__set_cpus(el, cpus, 2), -EBUSY);
	CU_ASSERT_EQUAL_FATAL(fr_session__new(el, &so, &s), 0);
	CU_ASSERT_EQUAL_FATAL(fr_session__snapshot(s, &tr, path, sizeof(path), &st), 0);
	CU_ASSERT_EQUAL(st.samples, 2 * NR);   /* the composer counts the CPU stats */
	CU_ASSERT_EQUAL(fr_session__say_snapshot(s, &tr, path, 0, &st), 0);
	tr.time = 6000;
	CU_ASSERT_EQUAL_FATAL(fr_session__snapshot(s, &tr, path2, sizeof(path2), &st), 0);
	CU_ASSERT_STRING_NOT_EQUAL(path, path2);   /* a file of its own */
	/* the end: --no-final writes nothing, else a final snapshot */
	tr.source = "stop";
	CU_ASSERT_EQUAL(fr_session__end(s, &tr, false, path3, sizeof(path3)), 0);
	CU_ASSERT_STRING_EQUAL(path3, "");
	CU_ASSERT_EQUAL(((struct fake *)s->src)->snapshots, 2);
	CU_ASSERT_EQUAL(fr_session__end(s, &tr, true, path3, sizeof(path3)), 0);
	CU_ASSERT_EQUAL(((struct fake *)s->src)->snapshots, 3);
	CU_ASSERT(path3[0] && strcmp(path3, path2) && !access(path3, R_OK));
	fr_session__delete(s);
	unlink(path3);

	CU_ASSERT_EQUAL_FATAL(fr_reader__open(path, &rd), 0);
	mode = fr_reader__meta(rd, "mode");
	CU_ASSERT(mode && !strcmp(mode, "fake"));
	CU_ASSERT(fr_reader__meta(rd, "target") && !strcmp(fr_reader__meta(rd, "target"),
							    "a fake source"));
	CU_ASSERT_EQUAL(fr_reader__nr_cpu_stats(rd), 2);
	for (size_t i = 0; i < fr_reader__nr_cpu_stats(rd); i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rd, i);

		CU_ASSERT(cs->cpu == 0 || cs->cpu == 3);
		CU_ASSERT_EQUAL(cs->nr_samples, NR);
		CU_ASSERT_EQUAL(cs->first_time, 1000 + (cs->cpu == 3));
		CU_ASSERT_EQUAL(cs->last_time, 1000 + 10 * (NR - 1) + (cs->cpu == 3));
	}
	CU_ASSERT_EQUAL(fr_reader__for_each(rd, seen_cb, &seen), 0);
	CU_ASSERT_EQUAL(seen.samples, 2 * NR);
	CU_ASSERT(seen.ordered);       /* the two CPUs' streams merged by time */
	CU_ASSERT(seen.cpus_right);
	CU_ASSERT_EQUAL(fr_reader__nr_damaged(rd), 0);
	CU_ASSERT(!fr_reader__truncated(rd));
	fr_reader__close(rd);
	unlink(path);
	unlink(path2);
	rmdir(dir);
}

/* The one rule of where the sideband travels, and the rings it asks for. */
static void test_route(void)
{
	struct fr_evlist_opts o = { 0 };

	CU_ASSERT_EQUAL(fr_source__route(fr_source__backward(), true), FR_SB_NAMES_IN_SAMPLES);
	CU_ASSERT_EQUAL(fr_source__route(fr_source__backward(), false), FR_SB_NAMES_IN_SAMPLES);
	CU_ASSERT_EQUAL(fr_source__route(fr_source__forward(), true), FR_SB_SAMPLE_RINGS);
	CU_ASSERT_EQUAL(fr_source__route(fr_source__keep(), true), FR_SB_SAMPLE_RINGS);
	CU_ASSERT_EQUAL(fr_source__route(fr_source__forward(), false), FR_SB_RING);
	CU_ASSERT_EQUAL(fr_source__route(fr_source__keep(), false), FR_SB_RING);
	fr_source__rings(fr_source__keep(), true, &o);
	CU_ASSERT(o.sb_in_samples && o.drained && o.backward && o.data_pages);
	o = (struct fr_evlist_opts){ .data_pages = 16 };
	fr_source__rings(fr_source__backward(), true, &o);
	CU_ASSERT(!o.sb_in_samples && !o.drained && o.backward);
	CU_ASSERT_EQUAL(o.data_pages, 16);   /* -m given: kept */
}

static const struct fr_test tests[] = {
	{ "where the sideband travels, by source and target", test_route },
	{ "a fake source's samples through the session and the composer, read back",
	  test_fake_source },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "session", NULL, NULL, tests };
