/* tests/keep/test_keep.c: record --keep's in-memory window (src/record/keep.c)
 * without a kernel: eviction by age and by size, order, the counts of what
 * dropped chunks held, views that outlive evictions, and chunks from a sink
 * writer copied into a file as they are and read back.
 */
#include "src/record/keep.h"
#include "src/file/file.h"
#include "src/file/internal.h"

#include "tests/cunit.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fake chunk of len bytes filled with tag; times first..last. */
static int add(struct fr_keep *k, size_t ci, uint8_t tag, size_t len, uint64_t first,
	       uint64_t last, uint64_t nr, uint64_t lost)
{
	uint8_t buf[4096];
	struct fr_keep_chunk c = { .data = buf, .len = len, .first_ns = first, .last_ns = last,
				   .nr_records = nr, .lost = lost };

	memset(buf, tag, len);
	return fr_keep__add(k, ci, &c);
}

static void test_age(void)
{
	struct fr_keep *k;
	struct fr_keep_cpu st;

	CU_ASSERT_FATAL(fr_keep__new(1, 10, 1u << 20, &k) == 0);
	for (uint64_t i = 0; i < 5; i++)   /* [0,9] [10,19] ... [40,49] */
		CU_ASSERT(add(k, 0, (uint8_t)i, 100, i * 10, i * 10 + 9, 10, i) == 0);
	/* newest 49: cutoff 39; chunks whose newest record is older go */
	fr_keep__cpu(k, 0, &st);
	CU_ASSERT_EQUAL(st.chunks, 2);
	CU_ASSERT_EQUAL(st.bytes, 200);
	CU_ASSERT_EQUAL(st.records, 20);
	CU_ASSERT_EQUAL(st.lost, 3 + 4);
	CU_ASSERT_EQUAL(st.evicted_chunks, 3);
	CU_ASSERT_EQUAL(st.evicted_by_size, 0);   /* all by age */
	CU_ASSERT_EQUAL(st.evicted_records, 30);
	CU_ASSERT_EQUAL(st.evicted_lost, 0 + 1 + 2);
	CU_ASSERT_EQUAL(st.oldest_ns, 30);
	CU_ASSERT_EQUAL(fr_keep__bytes(k), 200);
	CU_ASSERT_EQUAL(fr_keep__floor(k), 30);
	fr_keep__delete(k);
}

/* The newest time of any CPU ages every CPU's chunks; an idle CPU's old
 * chunk goes once another CPU moves on. */
static void test_age_across_cpus(void)
{
	struct fr_keep *k;
	struct fr_keep_cpu a, b;

	CU_ASSERT_FATAL(fr_keep__new(2, 100, 1u << 20, &k) == 0);
	CU_ASSERT(add(k, 1, 1, 64, 5, 50, 1, 0) == 0);
	CU_ASSERT(add(k, 0, 2, 64, 60, 140, 1, 0) == 0);   /* cutoff 40: CPU 1's stays */
	fr_keep__cpu(k, 1, &b);
	CU_ASSERT_EQUAL(b.chunks, 1);
	CU_ASSERT_EQUAL(fr_keep__floor(k), 0);            /* nothing dropped yet */
	CU_ASSERT(add(k, 0, 3, 64, 141, 151, 1, 0) == 0);   /* cutoff 51: it goes */
	fr_keep__cpu(k, 0, &a);
	fr_keep__cpu(k, 1, &b);
	CU_ASSERT_EQUAL(a.chunks, 2);
	CU_ASSERT_EQUAL(b.chunks, 0);
	CU_ASSERT_EQUAL(b.evicted_chunks, 1);
	CU_ASSERT_EQUAL(b.oldest_ns, 0);
	CU_ASSERT_EQUAL(fr_keep__floor(k), 60);
	fr_keep__delete(k);
}

/* Over the byte budget the chunk whose newest record is oldest goes, on
 * whichever CPU; each CPU keeps its order. */
static void test_size(void)
{
	struct fr_keep *k;
	struct fr_keep_view *v;
	struct fr_keep_cpu a, b;

	CU_ASSERT_FATAL(fr_keep__new(2, 0, 300, &k) == 0);   /* no time limit */
	CU_ASSERT(add(k, 0, 'a', 100, 1, 10, 5, 1) == 0);
	CU_ASSERT(add(k, 1, 'b', 100, 2, 5, 5, 2) == 0);
	CU_ASSERT(add(k, 0, 'c', 100, 11, 20, 5, 0) == 0);
	CU_ASSERT_EQUAL(fr_keep__bytes(k), 300);
	CU_ASSERT(add(k, 1, 'd', 100, 21, 30, 5, 0) == 0);   /* 'b' (newest 5) goes */
	fr_keep__cpu(k, 1, &b);
	CU_ASSERT_EQUAL(b.evicted_chunks, 1);
	CU_ASSERT_EQUAL(b.evicted_lost, 2);
	CU_ASSERT(add(k, 1, 'e', 150, 31, 40, 5, 0) == 0);   /* 450 > 300: 'a', then 'c' */
	fr_keep__cpu(k, 0, &a);
	fr_keep__cpu(k, 1, &b);
	CU_ASSERT_EQUAL(a.chunks, 0);
	CU_ASSERT_EQUAL(a.evicted_chunks, 2);
	CU_ASSERT_EQUAL(a.evicted_by_size, 2);
	CU_ASSERT_EQUAL(b.evicted_by_size, 1);
	CU_ASSERT_EQUAL(a.evicted_lost, 1);
	CU_ASSERT_EQUAL(b.chunks, 2);
	CU_ASSERT_EQUAL(fr_keep__bytes(k), 250);
	CU_ASSERT_FATAL(fr_keep__view(k, &v) == 0);
	CU_ASSERT_EQUAL(fr_keep_view__nr(v, 0), 0);
	CU_ASSERT_EQUAL_FATAL(fr_keep_view__nr(v, 1), 2);
	CU_ASSERT_EQUAL(((const uint8_t *)fr_keep_view__chunk(v, 1, 0)->data)[0], 'd');
	CU_ASSERT_EQUAL(((const uint8_t *)fr_keep_view__chunk(v, 1, 1)->data)[149], 'e');
	CU_ASSERT_EQUAL(fr_keep_view__chunk(v, 1, 1)->len, 150);
	fr_keep_view__release(k, v);
	fr_keep__delete(k);
}

/* A chunk bigger than the whole budget stays (the newest is never dropped),
 * and pushes every other one out. */
static void test_newest_stays(void)
{
	struct fr_keep *k;
	struct fr_keep_cpu a;

	CU_ASSERT_FATAL(fr_keep__new(1, 0, 100, &k) == 0);
	CU_ASSERT(add(k, 0, 1, 50, 1, 1, 1, 0) == 0);
	CU_ASSERT(add(k, 0, 2, 500, 2, 2, 1, 0) == 0);
	fr_keep__cpu(k, 0, &a);
	CU_ASSERT_EQUAL(a.chunks, 1);
	CU_ASSERT_EQUAL(a.bytes, 500);
	CU_ASSERT_EQUAL(a.evicted_chunks, 1);
	fr_keep__delete(k);
}

/* A view's chunks stay readable while later adds evict them. */
static void test_view_defers(void)
{
	struct fr_keep *k;
	struct fr_keep_view *v;

	CU_ASSERT_FATAL(fr_keep__new(1, 0, 1000, &k) == 0);
	for (int i = 0; i < 5; i++)
		CU_ASSERT(add(k, 0, (uint8_t)('0' + i), 200, (uint64_t)i, (uint64_t)i, 1, 0) == 0);
	CU_ASSERT_FATAL(fr_keep__view(k, &v) == 0);
	for (int i = 5; i < 20; i++)
		CU_ASSERT(add(k, 0, (uint8_t)('0' + i), 200, (uint64_t)i, (uint64_t)i, 1, 0) == 0);
	CU_ASSERT_EQUAL_FATAL(fr_keep_view__nr(v, 0), 5);
	for (size_t i = 0; i < 5; i++) {
		const struct fr_keep_chunk *c = fr_keep_view__chunk(v, 0, i);

		CU_ASSERT_EQUAL(((const uint8_t *)c->data)[199], '0' + i);
		CU_ASSERT_EQUAL(c->first_ns, i);
	}
	CU_ASSERT_EQUAL(fr_keep__bytes(k), 1000);
	fr_keep_view__release(k, v);
	fr_keep__delete(k);
}

static void test_bad_args(void)
{
	struct fr_keep *k;

	CU_ASSERT_EQUAL(fr_keep__new(0, 1, 1, &k), -EINVAL);
	CU_ASSERT_EQUAL(fr_keep__new(1, 1, 0, &k), -EINVAL);
	CU_ASSERT_FATAL(fr_keep__new(1, 1, 10, &k) == 0);
	CU_ASSERT_EQUAL(add(k, 1, 0, 8, 1, 1, 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(add(k, 0, 0, 0, 1, 1, 1, 0), -EINVAL);
	fr_keep__delete(k);
}

/* ---- sink writer -> window -> file, chunks as they are ------------------- */

struct sample_rec {
	struct perf_event_header h;
	uint64_t time;
	uint64_t n;
	uint64_t noise;             /* incompressible: the chunks fill the budget */
};

static struct fr_keep *sink_keep;
static uint64_t sink_first, sink_last, sink_nr, sink_seen;

static int sink(void *ctx, const void *chunk, size_t len)
{
	struct fr_keep_chunk c = { .data = chunk, .len = len, .first_ns = sink_first,
				   .last_ns = sink_last, .nr_records = sink_nr };

	(void)ctx;
	sink_first = 0;
	sink_nr = 0;
	return fr_keep__add(sink_keep, 0, &c);
}

static int count_cb(void *ctx, const struct fr_rec *r)
{
	const struct sample_rec *s = (const void *)r->h;
	uint64_t *expect = ctx;

	if (r->kind != FR_STREAM_SAMPLES)
		return 0;
	if (s->n != *expect)
		return -EBADMSG;   /* a gap or a repeat */
	(*expect)++;
	sink_seen++;
	return 0;
}

static void test_sink_to_file(void)
{
	char dir[] = "/tmp/test_keep.XXXXXX", path[64];
	struct fr_file_event ev = { .index = 0, .name = "test" };
	struct fr_writer *app, *w;
	struct fr_keep_view *v;
	struct fr_reader *r;
	struct fr_keep_cpu st;
	uint64_t expect, x = 88172645463325252ull;
	const uint64_t total = 200000;   /* 32 B each: several 1 MiB chunks */

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	/* keep 1 MiB (the 200k records code and compress to about 1.7 MB):
	 * the oldest chunks go, the rest is one gap-free run */
	CU_ASSERT_FATAL(fr_keep__new(1, 0, 1u << 20, &sink_keep) == 0);
	CU_ASSERT_FATAL(fr_writer__sink(sink, NULL, 1, &app) == 0);
	CU_ASSERT_FATAL(fr_writer__records_begin(app, 0, FR_STREAM_SAMPLES) == 0);
	for (uint64_t i = 0; i < total; i++) {
		struct sample_rec s = { { PERF_RECORD_SAMPLE, 0, sizeof(s) }, 1000 + i, i, 0 };

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s.noise = x;
		CU_ASSERT_FATAL(fr_writer__record(app, &s.h) == 0);
		if (!sink_first)
			sink_first = s.time;
		sink_last = s.time;
		sink_nr++;
	}
	CU_ASSERT(fr_writer__records_end(app) == 0);
	CU_ASSERT(fr_writer__close(app) == 0);
	fr_keep__cpu(sink_keep, 0, &st);
	CU_ASSERT(st.evicted_chunks > 0);
	CU_ASSERT(st.chunks > 1);
	CU_ASSERT_EQUAL(st.records + st.evicted_records, total);

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_type = PERF_SAMPLE_TIME;
	snprintf(path, sizeof(path), "%s/k.frec", dir);
	CU_ASSERT_FATAL(fr_writer__open(path, 1, &w) == 0);
	CU_ASSERT(fr_writer__event(w, &ev) == 0);
	CU_ASSERT_FATAL(fr_keep__view(sink_keep, &v) == 0);
	for (size_t i = 0; i < fr_keep_view__nr(v, 0); i++) {
		const struct fr_keep_chunk *c = fr_keep_view__chunk(v, 0, i);

		CU_ASSERT(fr_writer__raw_chunk(w, c->data, c->len) == 0);
	}
	/* not a RECORDS chunk: refused */
	CU_ASSERT_EQUAL(fr_writer__raw_chunk(w, "garbage garbage garbage garbage garbage", 40),
			-EINVAL);
	fr_keep_view__release(sink_keep, v);
	CU_ASSERT(fr_writer__close(w) == 0);

	CU_ASSERT_FATAL(fr_reader__open(path, &r) == 0);
	CU_ASSERT(!fr_reader__truncated(r));
	expect = st.evicted_records;   /* the first record kept */
	sink_seen = 0;
	CU_ASSERT_EQUAL(fr_reader__for_each(r, count_cb, &expect), 0);
	CU_ASSERT_EQUAL(sink_seen, st.records);
	CU_ASSERT_EQUAL(expect, total);
	fr_reader__close(r);
	fr_keep__delete(sink_keep);
	unlink(path);
	rmdir(dir);
}

/* ---- many small raw chunks: staged, written in order --------------------- */

#define NSMALL 400
static uint8_t *small[NSMALL];
static size_t small_len[NSMALL], nsmall;

static int small_sink(void *ctx, const void *chunk, size_t len)
{
	(void)ctx;
	if (nsmall == NSMALL)
		return -ENOSPC;
	small[nsmall] = malloc(len);
	if (!small[nsmall])
		return -ENOMEM;
	memcpy(small[nsmall], chunk, len);
	small_len[nsmall++] = len;
	return 0;
}

/* The file's chunks in order, after the header: 'R' + the index of the small
 * chunk it equals, 'M' meta, 'A' another RECORDS chunk, 'E' event, 'S' cpu
 * stats, 'X' end; -1 when the file does not parse. */
static int file_order(const char *path, int *seq, size_t max, size_t *n)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[FR_CHUNK_COMP_MAX + FR_CHUNK_HDR_SIZE];
	struct fr_disk_chunk ch;
	size_t next = 0;

	*n = 0;
	if (!f || fseek(f, FR_HEADER_SIZE, SEEK_SET))
		goto bad;
	while (fread(&ch, sizeof(ch), 1, f) == 1) {
		int v;

		if (ch.magic != FR_CHUNK_MAGIC || ch.comp_size > FR_CHUNK_COMP_MAX || *n == max)
			goto bad;
		memcpy(buf, &ch, sizeof(ch));
		if (fread(buf + sizeof(ch), 1, ch.comp_size, f) != ch.comp_size)
			goto bad;
		switch (ch.type) {
		case FR_CHUNK_RECORDS:
			v = 'A';
			if (next < nsmall && small_len[next] == sizeof(ch) + ch.comp_size &&
			    !memcmp(small[next], buf, small_len[next]))
				v = 'R' + (int)next++;
			break;
		case FR_CHUNK_META: v = 'M'; break;
		case FR_CHUNK_EVENT: v = 'E'; break;
		case FR_CHUNK_CPUSTAT: v = 'S'; break;
		case FR_CHUNK_END: v = 'X'; break;
		default: v = '?';
		}
		seq[(*n)++] = v;
	}
	fclose(f);
	return 0;
bad:
	if (f)
		fclose(f);
	return -1;
}

static void test_small_chunks_order(void)
{
	char dir[] = "/tmp/test_keep.XXXXXX", path[64];
	struct fr_file_event ev = { .index = 0, .name = "test" };
	struct fr_writer *app, *w, *a2;
	uint64_t x = 88172645463325252ull, total = 0, n = 0;
	int seq[NSMALL + 16] = { 0 };
	size_t ns, i;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	/* 400 chunks of 256 incompressible records (~8 KiB each, 3 MiB in
	 * all): more than one stage buffer, so it fills and flushes */
	nsmall = 0;
	CU_ASSERT_FATAL(fr_writer__sink(small_sink, NULL, 1, &app) == 0);
	CU_ASSERT_FATAL(fr_writer__records_begin(app, 0, FR_STREAM_SAMPLES) == 0);
	for (i = 0; i < NSMALL * 256; i++) {
		struct sample_rec s = { { PERF_RECORD_SAMPLE, 0, sizeof(s) }, 1000 + n, n, 0 };

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s.noise = x;
		n++;
		CU_ASSERT_FATAL(fr_writer__record(app, &s.h) == 0);
		if (n % 256 == 0)
			CU_ASSERT_FATAL(fr_writer__flush(app) == 0);
	}
	CU_ASSERT(fr_writer__records_end(app) == 0);
	CU_ASSERT(fr_writer__close(app) == 0);
	CU_ASSERT_FATAL(nsmall == NSMALL);

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_type = PERF_SAMPLE_TIME;
	snprintf(path, sizeof(path), "%s/s.frec", dir);
	CU_ASSERT_FATAL(fr_writer__open(path, 1, &w) == 0);
	CU_ASSERT(fr_writer__event(w, &ev) == 0);
	for (i = 0; i < NSMALL; i++) {
		if (i == 100)   /* meta between raw chunks: written after chunk 99 */
			CU_ASSERT(fr_writer__meta(w, "k", "v") == 0);
		if (i == 200) {   /* an appender writes after what is staged */
			struct sample_rec s = { { PERF_RECORD_SAMPLE, 0, sizeof(s) }, 1, 1, 1 };

			CU_ASSERT_FATAL(fr_writer__appender_of(w, &a2) == 0);
			CU_ASSERT(fr_writer__records_begin(a2, 1, FR_STREAM_SAMPLES) == 0);
			CU_ASSERT(fr_writer__record(a2, &s.h) == 0);
			CU_ASSERT(fr_writer__close(a2) == 0);
		}
		CU_ASSERT(fr_writer__raw_chunk(w, small[i], small_len[i]) == 0);
		total += small_len[i];
	}
	/* what is staged counts as written */
	CU_ASSERT(fr_writer__bytes(w) >= total + FR_HEADER_SIZE);
	CU_ASSERT(fr_writer__close(w) == 0);

	CU_ASSERT_FATAL(file_order(path, seq, sizeof(seq) / sizeof(seq[0]), &ns) == 0);
	/* E, R0..R99, M?, R100..R199, A, R200..R399, [M], S?, X */
	{
		size_t k = 0, r = 0;
		bool meta_at_100 = false, app_at_200 = false;

		CU_ASSERT_FATAL(ns > NSMALL + 2);
		CU_ASSERT_EQUAL(seq[k++], 'E');
		for (; k < ns && r < NSMALL; k++) {
			if (seq[k] == 'M' && r == 100)
				meta_at_100 = true;
			else if (seq[k] == 'A' && r == 200)
				app_at_200 = true;
			else if (seq[k] == (int)('R' + r))
				r++;
			else
				break;
		}
		CU_ASSERT_EQUAL(r, NSMALL);   /* every chunk, byte for byte, in order */
		CU_ASSERT(meta_at_100);
		CU_ASSERT(app_at_200);
		CU_ASSERT_EQUAL(seq[ns - 1], 'X');
	}
	for (i = 0; i < NSMALL; i++)
		free(small[i]);
	unlink(path);
	rmdir(dir);
}

/* A big chunk and its data's address (as a number, kept past its free). */
static uintptr_t add_big(struct fr_keep *k, uint8_t tag, size_t len, uint64_t t)
{
	uint8_t *buf = malloc(len);
	struct fr_keep_chunk c = { .data = buf, .len = len, .first_ns = t, .last_ns = t,
				   .nr_records = 1 };
	struct fr_keep_view *v;
	uintptr_t at = 0;

	CU_ASSERT_FATAL(buf != NULL);
	memset(buf, tag, len);
	CU_ASSERT(fr_keep__add(k, 0, &c) == 0);
	free(buf);
	CU_ASSERT_FATAL(fr_keep__view(k, &v) == 0);
	for (size_t i = 0; i < fr_keep_view__nr(v, 0); i++) {
		const struct fr_keep_chunk *ch = fr_keep_view__chunk(v, 0, i);

		if (ch->first_ns == t) {
			at = (uintptr_t)ch->data;
			CU_ASSERT(ch->len == len && ((const uint8_t *)ch->data)[len - 1] == tag);
		}
	}
	fr_keep_view__release(k, v);
	return at;
}

/* Evicted chunks of 256 KiB or more hold the next ones added that need no
 * more and waste at most a quarter; a smaller one, or one that would waste
 * more, gets a buffer of its own. Contents and counts as ever. */
static void test_spare(void)
{
	struct fr_keep *k;
	struct fr_keep_cpu st;
	uintptr_t a, b, c, d, e;

	CU_ASSERT_FATAL(fr_keep__new(1, 0, 400u << 10, &k) == 0);   /* one chunk at a time */
	a = add_big(k, 1, 300u << 10, 1);
	b = add_big(k, 2, 310u << 10, 2);   /* evicts a: the spare */
	CU_ASSERT(a && b && b != a);
	c = add_big(k, 3, 290u << 10, 3);   /* a's buffer (320 KiB) */
	CU_ASSERT_EQUAL(c, a);
	d = add_big(k, 4, 150u << 10, 4);   /* b's 320 KiB would waste over a quarter */
	CU_ASSERT(d && d != b);             /* evicts c: a spare beside b */
	e = add_big(k, 5, 300u << 10, 5);   /* the first spare that fits: b's (d, small, is freed) */
	CU_ASSERT_EQUAL(e, b);
	fr_keep__cpu(k, 0, &st);
	CU_ASSERT_EQUAL(st.chunks, 1);
	CU_ASSERT_EQUAL(st.bytes, 300u << 10);
	CU_ASSERT_EQUAL(st.evicted_chunks, 4);
	CU_ASSERT_EQUAL(fr_keep__bytes(k), 300u << 10);
	fr_keep__delete(k);
}

static const struct fr_test tests[] = {
	{ "age: chunks older than newest - duration go, counted", test_age },
	{ "age: the newest time of any CPU ages every CPU", test_age_across_cpus },
	{ "size: the oldest chunk across CPUs goes; order kept", test_size },
	{ "size: the chunk just added stays", test_newest_stays },
	{ "view: chunks outlive their eviction until released", test_view_defers },
	{ "spare: an evicted big chunk holds the next one that fits", test_spare },
	{ "bad arguments", test_bad_args },
	{ "sink writer -> window -> file as is, gap-free", test_sink_to_file },
	{ "small raw chunks: staged, in order around meta and an appender", test_small_chunks_order },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "keep", NULL, NULL, tests };
