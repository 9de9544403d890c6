/* tests/file/test_file.c: the file format (src/file/write.c, read.c) without a
 * kernel: hand-built perf records are written, read back and merged; files are cut,
 * corrupted and hand-crafted to check the trust rules of doc/format.md.
 */
#include "src/file/delta.h"
#include "src/file/file.h"
#include "src/file/internal.h"

#include "tests/cunit.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

static char tmpdir[] = "/tmp/test_file.XXXXXX";
static unsigned int file_no;

static const char *tmp_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/f%u.frec", tmpdir, file_no++);
	return buf;
}

/* ---- hand-built records ------------------------------------------------- */

#define ST_SAMPLE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define ST_SIDE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define TYPE_NOTIME 70u  /* a user record type: no sample_id trailer, no time */

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* SAMPLE: [IDENTIFIER] pid tid time, raw(u32 size + 4 + 8*words bytes); the last
 * u64 of the record is seq. */
static struct perf_event_header *mk_sample(uint8_t *b, bool ident, uint64_t id, uint64_t time,
					   uint64_t seq, unsigned int words)
{
	struct perf_event_header *h = (void *)b;
	uint8_t *p = b + sizeof(*h);
	uint32_t raw_size = 4 + 8 * words, i;

	if (ident) {
		fr_put64(p, id);
		p += 8;
	}
	fr_put32(p, 42);
	fr_put32(p + 4, (uint32_t)seq);
	fr_put64(p + 8, time);
	fr_put32(p + 16, raw_size);
	p += 20;
	for (i = 0; i + 8 < raw_size; i += 8)
		fr_put64(p + i, rnd64());
	fr_put64(p + raw_size - 8, seq);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(p + raw_size - b);
	return h;
}

/* COMM with a TID|TIME sample_id trailer; tid is seq. */
static struct perf_event_header *mk_comm(uint8_t *b, uint64_t time, uint64_t seq)
{
	struct perf_event_header *h = (void *)b;

	memset(b, 0, 48);
	h->type = PERF_RECORD_COMM;
	h->size = 48;
	fr_put32(b + 8, 42);
	fr_put32(b + 12, (uint32_t)seq);
	memcpy(b + 16, "worker", 7);
	fr_put32(b + 32, 42);
	fr_put32(b + 36, (uint32_t)seq);
	fr_put64(b + 40, time);
	return h;
}

static struct perf_event_header *mk_notime(uint8_t *b, uint64_t seq)
{
	struct perf_event_header *h = (void *)b;

	h->type = TYPE_NOTIME;
	h->misc = 0;
	h->size = 16;
	fr_put64(b + 8, seq);
	return h;
}

static uint64_t rec_seq(const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_COMM)
		return fr_get32((const uint8_t *)h + 12);
	return fr_get64((const uint8_t *)h + h->size - 8);
}

static uint64_t ids_samples[] = { 100, 101 }, ids_side[] = { 200, 201 };
static const char fmt_text[] = "name: sched_switch\nID: 316\nformat:\n\tfield:int pid;\n";

static struct fr_file_event ev_make(uint32_t index, bool sideband, uint64_t st,
				    const uint64_t *ids, uint32_t nr_ids)
{
	struct fr_file_event ev = { .index = index, .ids = ids, .nr_ids = nr_ids };

	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = sideband ? PERF_TYPE_SOFTWARE : PERF_TYPE_TRACEPOINT;
	ev.attr.config = sideband ? PERF_COUNT_SW_DUMMY : 316;
	ev.attr.sample_type = st;
	ev.attr.sample_id_all = 1;
	ev.attr.write_backward = 1;
	ev.flags = sideband ? FR_EVENT_SIDEBAND : 0;
	ev.name = sideband ? "dummy" : "sched:sched_switch";
	ev.format = sideband ? NULL : fmt_text;
	ev.format_len = sideband ? 0 : sizeof(fmt_text) - 1;
	return ev;
}

static struct fr_writer *open_writer(char *path, size_t len)
{
	struct fr_writer *w = NULL;

	CU_ASSERT_EQUAL_FATAL(fr_writer__open(tmp_path(path, len), 3, &w), 0);
	return w;
}

static void write_std_events(struct fr_writer *w)
{
	struct fr_file_event s = ev_make(0, false, ST_SAMPLE, ids_samples, 2);
	struct fr_file_event d = ev_make(1, true, ST_SIDE, ids_side, 2);

	CU_ASSERT_EQUAL(fr_writer__event(w, &s), 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &d), 0);
}

/* ---- collecting the merge ----------------------------------------------- */

struct got {
	uint32_t cpu, kind;
	uint64_t time, seq;
	int ev;              /* the event's index, -1: none (rec->event dies with the reader) */
	uint32_t ev_flags;
};

struct coll {
	struct got *v;
	size_t n, cap;
	size_t stop_after;  /* 0: never */
};

static int collect(void *ctx, const struct fr_rec *rec)
{
	struct coll *c = ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!c->v)
			abort();
	}
	c->v[c->n++] = (struct got){ rec->cpu, rec->kind, rec->time, rec_seq(rec->h),
				     rec->event ? (int)rec->event->index : -1,
				     rec->event ? rec->event->flags : 0 };
	return c->stop_after && c->n == c->stop_after ? 1234 : 0;
}

static int read_all(const char *path, struct coll *c, bool *truncated)
{
	struct fr_reader *r;
	int err;

	memset(c, 0, sizeof(*c));
	err = fr_reader__open(path, &r);
	if (err)
		return err;
	err = fr_reader__for_each(r, collect, c);
	*truncated = fr_reader__truncated(r);
	fr_reader__close(r);
	return err;
}

/* ---- round trip --------------------------------------------------------- */

static void check_events(struct fr_reader *r)
{
	struct fr_file_event s = ev_make(0, false, ST_SAMPLE, ids_samples, 2);
	const struct fr_file_event *e0 = fr_reader__event(r, 0), *e1 = fr_reader__event(r, 1);

	CU_ASSERT_EQUAL_FATAL(fr_reader__nr_events(r), 2);
	CU_ASSERT_PTR_NULL(fr_reader__event(r, 2));
	CU_ASSERT_EQUAL(memcmp(&e0->attr, &s.attr, sizeof(s.attr)), 0);
	CU_ASSERT(e0->index == 0 && e0->flags == 0 && !strcmp(e0->name, "sched:sched_switch"));
	CU_ASSERT(e0->format_len == sizeof(fmt_text) - 1 && e0->format &&
		  !memcmp(e0->format, fmt_text, sizeof(fmt_text)));  /* NUL-terminated */
	CU_ASSERT(e0->nr_ids == 2 && e0->ids[0] == 100 && e0->ids[1] == 101);
	CU_ASSERT(e1->index == 1 && e1->flags == FR_EVENT_SIDEBAND && !strcmp(e1->name, "dummy"));
	CU_ASSERT(!e1->format && e1->nr_ids == 2 && e1->ids[1] == 201);
	CU_ASSERT_EQUAL(e1->attr.config, PERF_COUNT_SW_DUMMY);
}

#define NR_STATS 20000u  /* more than one CPUSTAT chunk holds; the last of a CPU id
			  * past FR_CPU_MAX: not usable, counted */

static void test_round_trip(void)
{
	struct fr_cpu_stat *st = calloc(NR_STATS, sizeof(*st));
	struct fr_unusable u;
	struct fr_reader *r;
	struct fr_writer *w;
	char path[256];
	struct stat sb;
	uint64_t bytes;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	for (i = 0; i < NR_STATS; i++)
		st[i] = (struct fr_cpu_stat){ (uint32_t)i % FR_CPU_MAX, FR_CPU_FULL, i, i + 1, i * 3, 7, 1, 2, 3 };
	st[NR_STATS - 1].cpu = FR_CPU_MAX;
	w = open_writer(path, sizeof(path));
	CU_ASSERT_EQUAL(fr_writer__meta(w, "host", "box1"), 0);
	CU_ASSERT_EQUAL(fr_writer__meta(w, "kernel.release", "6.1.0-13-amd64 = x"), 0);
	CU_ASSERT_EQUAL(fr_writer__meta(w, "Bad", "x"), -EINVAL);
	CU_ASSERT_EQUAL(fr_writer__meta(w, "", "x"), -EINVAL);
	CU_ASSERT_EQUAL(fr_writer__meta(w, "a=b", "x"), -EINVAL);
	CU_ASSERT_EQUAL(fr_writer__meta(w, "ok", "two\nlines"), -EINVAL);
	write_std_events(w);
	CU_ASSERT_EQUAL(fr_writer__meta(w, "late", ""), 0);  /* emitted at close */
	CU_ASSERT_EQUAL(fr_writer__cpu_stats(w, st, NR_STATS), 0);
	bytes = fr_writer__bytes(w);
	CU_ASSERT_EQUAL(fr_writer__close(w), 0);
	CU_ASSERT_EQUAL(stat(path, &sb), 0);
	CU_ASSERT((uint64_t)sb.st_size > bytes);  /* + meta + END */

	CU_ASSERT_EQUAL_FATAL(fr_reader__open(path, &r), 0);
	CU_ASSERT_FALSE(fr_reader__truncated(r));
	CU_ASSERT_STRING_EQUAL(fr_reader__meta(r, "host"), "box1");
	CU_ASSERT_STRING_EQUAL(fr_reader__meta(r, "kernel.release"), "6.1.0-13-amd64 = x");
	CU_ASSERT_STRING_EQUAL(fr_reader__meta(r, "late"), "");
	CU_ASSERT_PTR_NULL(fr_reader__meta(r, "ok"));
	check_events(r);
	CU_ASSERT_EQUAL_FATAL(fr_reader__nr_cpu_stats(r), NR_STATS - 1);
	for (i = 0; i < NR_STATS - 1; i++)
		if (memcmp(fr_reader__cpu_stat(r, i), &st[i], sizeof(st[i])))
			break;
	CU_ASSERT_EQUAL(i, NR_STATS - 1);
	CU_ASSERT_EQUAL(fr_reader__unusable(r, &u), 1);
	CU_ASSERT_EQUAL(u.bad_cpu, 1);
	CU_ASSERT_EQUAL(fr_reader__for_each(r, collect, &(struct coll){ 0 }), 0);
	fr_reader__close(r);
	free(st);
}

/* ---- merge order -------------------------------------------------------- */

struct spec {
	uint32_t cpu;
	enum fr_stream_kind kind;
	char what;      /* 's' sample, 'c' comm, 'n' no time */
	uint64_t time, seq;
};

static void write_spec(struct fr_writer *w, const struct spec *sp, size_t n)
{
	uint8_t b[256];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct spec *s = &sp[i];
		struct perf_event_header *h;

		if (i == 0 || s->cpu != sp[i - 1].cpu || s->kind != sp[i - 1].kind) {
			if (i)
				CU_ASSERT_EQUAL(fr_writer__records_end(w), 0);
			CU_ASSERT_EQUAL(fr_writer__records_begin(w, s->cpu, s->kind), 0);
		}
		if (s->what == 's')
			h = mk_sample(b, false, 0, s->time, s->seq, 1);
		else if (s->what == 'c')
			h = mk_comm(b, s->time, s->seq);
		else
			h = mk_notime(b, s->seq);
		CU_ASSERT_EQUAL(fr_writer__record(w, h), 0);
	}
	CU_ASSERT_EQUAL(fr_writer__records_end(w), 0);
}

static void test_merge_order(void)
{
	static const struct spec sp[] = {  /* file order is not time order */
		{ 1, FR_STREAM_SAMPLES, 's', 20, 4 }, { 1, FR_STREAM_SAMPLES, 'n', 0, 5 },
		{ 1, FR_STREAM_SAMPLES, 's', 30, 6 }, { 1, FR_STREAM_SAMPLES, 's', 40, 7 },
		{ FR_CPU_NONE, FR_STREAM_SIDEBAND, 'c', 0, 10 },
		{ FR_CPU_NONE, FR_STREAM_SIDEBAND, 'c', 30, 11 },
		{ 0, FR_STREAM_SAMPLES, 's', 10, 1 }, { 0, FR_STREAM_SAMPLES, 's', 30, 2 },
		{ 0, FR_STREAM_SAMPLES, 's', 50, 3 },
		{ 1, FR_STREAM_SIDEBAND, 'c', 30, 12 },
		{ 0, FR_STREAM_SIDEBAND, 'c', 5, 8 }, { 0, FR_STREAM_SIDEBAND, 'c', 30, 9 },
	};
	static const uint64_t want[] = { 10, 8, 1, 4, 5, 11, 9, 12, 2, 6, 7, 3 };
	struct fr_writer *w;
	struct coll c;
	char path[256];
	bool trunc;
	size_t i;

	w = open_writer(path, sizeof(path));
	write_std_events(w);
	write_spec(w, sp, sizeof(sp) / sizeof(sp[0]));
	CU_ASSERT_EQUAL_FATAL(fr_writer__close(w), 0);
	CU_ASSERT_EQUAL_FATAL(read_all(path, &c, &trunc), 0);
	CU_ASSERT_FALSE(trunc);
	CU_ASSERT_EQUAL_FATAL(c.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < c.n; i++) {
		CU_ASSERT_EQUAL(c.v[i].seq, want[i]);
		CU_ASSERT_EQUAL(c.v[i].ev, c.v[i].kind == FR_STREAM_SIDEBAND ? 1 : 0);
		CU_ASSERT_EQUAL(c.v[i].ev_flags, c.v[i].kind == FR_STREAM_SIDEBAND ? 1u : 0u);
	}
	CU_ASSERT(c.v[0].cpu == FR_CPU_NONE && c.v[0].kind == FR_STREAM_SIDEBAND);
	CU_ASSERT(c.v[4].cpu == 1 && c.v[4].time == 0);  /* no time: in its stream's place */
	CU_ASSERT(c.v[11].cpu == 0 && c.v[11].time == 50);
	free(c.v);
}

/* ---- a bigger file: multi-chunk streams, cuts, corruption --------------- */

#define BIG_CPU0 12000u  /* 128-byte samples: about 1.5 MiB, 2 chunks */

static uint64_t big_seq;

static void big_samples(struct fr_writer *w, uint32_t cpu, uint64_t n, uint64_t t0, uint64_t dt)
{
	uint8_t b[256];
	uint64_t i;

	CU_ASSERT_EQUAL(fr_writer__records_begin(w, cpu, FR_STREAM_SAMPLES), 0);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_writer__record(w, mk_sample(b, false, 0, t0 + i * dt, big_seq++, 12)),
				0);
	CU_ASSERT_EQUAL(fr_writer__records_end(w), 0);
}

static void big_comms(struct fr_writer *w, uint32_t cpu, uint64_t n, uint64_t t0, uint64_t dt)
{
	uint8_t b[64];
	uint64_t i;

	CU_ASSERT_EQUAL(fr_writer__records_begin(w, cpu, FR_STREAM_SIDEBAND), 0);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_writer__record(w, mk_comm(b, t0 + i * dt, big_seq++)), 0);
	CU_ASSERT_EQUAL(fr_writer__records_end(w), 0);
}

static void write_big(char *path, size_t len)
{
	struct fr_cpu_stat st[2] = { { .cpu = 0, .nr_samples = BIG_CPU0 }, { .cpu = 1 } };
	struct fr_writer *w = open_writer(path, len);

	big_seq = 0;
	CU_ASSERT_EQUAL(fr_writer__meta(w, "host", "big"), 0);
	write_std_events(w);
	big_samples(w, 0, BIG_CPU0, 10, 10);
	big_samples(w, 1, 100, 15, 100);
	big_comms(w, 0, 50, 1, 1000);
	big_samples(w, 1, 100, 10015, 100);  /* the same stream again, later in the file */
	big_comms(w, FR_CPU_NONE, 20, 0, 0);
	CU_ASSERT_EQUAL(fr_writer__cpu_stats(w, st, 2), 0);
	CU_ASSERT_EQUAL_FATAL(fr_writer__close(w), 0);
}

struct chunk_info {
	uint64_t off, end;       /* header offset, end of frame */
	struct fr_disk_chunk ch;
	uint64_t seq_first, nr;  /* RECORDS: indexes into seqs[] */
};

static uint64_t seqs[BIG_CPU0 + 1000];

/* Walk a file's chunks independently of the reader (and decode the records). */
static size_t scan(const char *path, struct chunk_info *ci, size_t max)
{
	int fd = open(path, O_RDONLY);
	uint64_t off = FR_HEADER_SIZE, nseq = 0;
	size_t n = 0;
	uint8_t *comp = malloc(FR_CHUNK_COMP_MAX), *raw = malloc(FR_RECORDS_PAYLOAD_MAX);

	while (n < max && pread(fd, &ci[n].ch, 32, (off_t)off) == 32) {
		struct chunk_info *c = &ci[n++];
		size_t pos;

		c->off = off;
		c->end = off + 32 + c->ch.comp_size;
		c->seq_first = nseq;
		c->nr = 0;
		if (c->ch.type == FR_CHUNK_RECORDS) {
			CU_ASSERT(pread(fd, comp, c->ch.comp_size, (off_t)off + 32) ==
				  (ssize_t)c->ch.comp_size);
			CU_ASSERT(ZSTD_decompress(raw, FR_RECORDS_PAYLOAD_MAX, comp, c->ch.comp_size) ==
				  c->ch.raw_size);
			/* version 2 and later: every RECORDS chunk the writer makes is coded */
			CU_ASSERT_EQUAL(c->ch.flags, FR_CHUNK_F_CODED);
			if (c->ch.flags == FR_CHUNK_F_CODED) {
				uint64_t nr = 0;

				CU_ASSERT_EQUAL_FATAL(fr_delta__decode(raw + 16, c->ch.raw_size - 16,
									fr_delta__words(FR_FILE_VERSION), &nr), 0);
				CU_ASSERT_EQUAL(nr, fr_get64(raw + 8));
			}
			for (pos = 16; pos < c->ch.raw_size; pos += ((struct perf_event_header *)(raw + pos))->size)
				seqs[nseq++] = rec_seq((void *)(raw + pos));
			c->nr = nseq - c->seq_first;
			CU_ASSERT_EQUAL(c->nr, fr_get64(raw + 8));
		}
		off = c->end;
	}
	free(comp);
	free(raw);
	close(fd);
	return n;
}

/* Delivered records are exactly seqs[] of the chunks selected by keep[]. */
static void check_delivered(const struct coll *c, const struct chunk_info *ci, size_t n,
			    const bool *keep)
{
	uint8_t *seen = calloc(big_seq, 1), *want = calloc(big_seq, 1);
	size_t i, j, nwant = 0;

	for (i = 0; i < n; i++)
		for (j = 0; keep[i] && j < ci[i].nr; j++, nwant++)
			want[seqs[ci[i].seq_first + j]] = 1;
	CU_ASSERT_EQUAL(c->n, nwant);
	for (i = 0; i < c->n; i++) {
		CU_ASSERT_FATAL(c->v[i].seq < big_seq);
		seen[c->v[i].seq]++;
		if (i)
			CU_ASSERT(c->v[i].time >= c->v[i - 1].time);
	}
	CU_ASSERT_EQUAL(memcmp(seen, want, big_seq), 0);
	free(seen);
	free(want);
}

static void test_multi_chunk(void)
{
	struct chunk_info ci[32];
	struct fr_reader *r;
	bool keep[32], trunc;
	size_t n, i, cpu0 = 0;
	struct coll c;
	char path[256];

	write_big(path, sizeof(path));
	n = scan(path, ci, 32);
	for (i = 0; i < n; i++) {
		keep[i] = true;
		cpu0 += ci[i].ch.type == FR_CHUNK_RECORDS && ci[i].ch.stream == 0 && ci[i].ch.kind == 0;
		CU_ASSERT(ci[i].ch.raw_size <= fr_payload_max(ci[i].ch.type));
	}
	CU_ASSERT_EQUAL(cpu0, 2);
	CU_ASSERT_EQUAL(ci[n - 1].ch.type, FR_CHUNK_END);
	CU_ASSERT_EQUAL_FATAL(read_all(path, &c, &trunc), 0);
	CU_ASSERT_FALSE(trunc);
	check_delivered(&c, ci, n, keep);
	c.n = 0;
	c.stop_after = 100;  /* a callback's non-zero value stops the walk */
	CU_ASSERT_EQUAL_FATAL(fr_reader__open(path, &r), 0);
	CU_ASSERT_EQUAL(fr_reader__for_each(r, collect, &c), 1234);
	CU_ASSERT_EQUAL(c.n, 100);
	c.n = c.stop_after = 0;
	CU_ASSERT_EQUAL(fr_reader__for_each(r, collect, &c), 0);  /* again from the start */
	check_delivered(&c, ci, n, keep);
	CU_ASSERT_STRING_EQUAL(fr_reader__meta(r, "host"), "big");
	fr_reader__close(r);
	free(c.v);
}

static void copy_prefix(const char *from, const char *to, uint64_t len)
{
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char *buf = malloc(len + 1);

	CU_ASSERT(pread(in, buf, len, 0) == (ssize_t)len);
	CU_ASSERT(write(out, buf, len) == (ssize_t)len);
	free(buf);
	close(in);
	close(out);
}

static void check_cut(const char *path, const struct chunk_info *ci, size_t n, uint64_t cut)
{
	bool keep[32], trunc = false;
	struct coll c;
	char cpath[256];
	size_t i;

	copy_prefix(path, tmp_path(cpath, sizeof(cpath)), cut);
	for (i = 0; i < n; i++)
		keep[i] = ci[i].end <= cut;
	CU_ASSERT_EQUAL(read_all(cpath, &c, &trunc), 0);
	CU_ASSERT_EQUAL(trunc, cut < ci[n - 1].end);
	check_delivered(&c, ci, n, keep);
	free(c.v);
	unlink(cpath);
}

static void test_truncated(void)
{
	struct chunk_info ci[32];
	struct fr_reader *r;
	char path[256], cpath[256];
	size_t n, i;

	write_big(path, sizeof(path));
	n = scan(path, ci, 32);
	for (i = 0; i < n; i++) {
		check_cut(path, ci, n, ci[i].off);
		check_cut(path, ci, n, ci[i].off + 1);
		check_cut(path, ci, n, ci[i].off + 31);
		check_cut(path, ci, n, ci[i].off + 32);
		check_cut(path, ci, n, (ci[i].off + ci[i].end) / 2);
		check_cut(path, ci, n, ci[i].end - 1);
	}
	check_cut(path, ci, n, ci[n - 1].end);
	for (i = 0; i < FR_HEADER_SIZE; i += 8) {  /* inside the file header */
		copy_prefix(path, tmp_path(cpath, sizeof(cpath)), i);
		CU_ASSERT_EQUAL(fr_reader__open(cpath, &r), -EBADMSG);
	}
}

static void flip(const char *path, uint64_t off)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	CU_ASSERT(pread(fd, &b, 1, (off_t)off) == 1);
	b ^= 0x10;
	CU_ASSERT(pwrite(fd, &b, 1, (off_t)off) == 1);
	close(fd);
}

static void test_flipped_byte(void)
{
	struct chunk_info ci[32];
	bool keep[32], trunc;
	size_t n, i, bad = 0, nr_cpu0 = 0;
	struct coll c;
	char path[256];

	write_big(path, sizeof(path));
	n = scan(path, ci, 32);
	for (i = 0; i < n; i++) {  /* the second chunk of CPU 0's samples */
		keep[i] = true;
		if (ci[i].ch.type == FR_CHUNK_RECORDS && ci[i].ch.stream == 0 &&
		    ci[i].ch.kind == FR_STREAM_SAMPLES && ++nr_cpu0 == 2)
			bad = i;
	}
	CU_ASSERT_FATAL(bad > 0);
	keep[bad] = false;
	flip(path, ci[bad].off + 32 + ci[bad].ch.comp_size / 2);
	CU_ASSERT_EQUAL(read_all(path, &c, &trunc), -EBADMSG);
	CU_ASSERT_TRUE(trunc);
	check_delivered(&c, ci, n, keep);
	free(c.v);

	/* a flipped byte in an EVENT chunk: it and everything after it are gone */
	write_big(path, sizeof(path));
	n = scan(path, ci, 32);
	CU_ASSERT_EQUAL_FATAL(ci[2].ch.type, FR_CHUNK_EVENT);
	flip(path, ci[2].off + 32 + ci[2].ch.comp_size / 2);
	CU_ASSERT_EQUAL(read_all(path, &c, &trunc), 0);
	CU_ASSERT(trunc && c.n == 0);
	free(c.v);
}

/* ---- two events in one ring --------------------------------------------- */

static void test_identifier(void)
{
	static const uint64_t ida[] = { 1000, 1001 }, idb[] = { 2000, 2001 };
	static const uint64_t ids[] = { 1000, 2000, 1001, 2001, 9999 };
	const uint64_t st = ST_SAMPLE | PERF_SAMPLE_IDENTIFIER;
	struct fr_file_event a = ev_make(0, false, st, ida, 2), b = ev_make(1, false, st, idb, 2);
	struct fr_writer *w;
	uint8_t buf[256];
	char path[256];
	struct coll c;
	bool trunc;
	size_t i;

	b.name = "cpu-clock";
	w = open_writer(path, sizeof(path));
	CU_ASSERT_EQUAL(fr_writer__event(w, &a), 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &b), 0);
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 3, FR_STREAM_SAMPLES), 0);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(fr_writer__record(w, mk_sample(buf, true, ids[i], 10 * i + 10, i, 1)), 0);
	CU_ASSERT_EQUAL(fr_writer__close(w), 0);  /* closes the open stream too */
	CU_ASSERT_EQUAL_FATAL(read_all(path, &c, &trunc), 0);
	CU_ASSERT_EQUAL_FATAL(c.n, 5);
	for (i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(c.v[i].seq, i);
		CU_ASSERT_EQUAL(c.v[i].cpu, 3);
	}
	CU_ASSERT(c.v[0].ev == 0 && c.v[0].time == 10);
	CU_ASSERT(c.v[1].ev == 1 && c.v[1].time == 20);
	CU_ASSERT(c.v[2].ev == 0 && c.v[2].time == 30);
	CU_ASSERT(c.v[3].ev == 1 && c.v[3].time == 40);
	CU_ASSERT(c.v[4].ev == -1 && c.v[4].time == 0);  /* unknown id: no event, no time */
	free(c.v);
}

/* Events opened after the EVENT chunks (a CPU back online, a CPU new since
 * the start): their ids in `event_ids` META lines written later in the file,
 * through an appender as a forward recorder does; lines that do not parse
 * or name no sample event add nothing. */
static void test_event_ids_meta(void)
{
	static const uint64_t ida[] = { 1000 }, idb[] = { 2000 };
	static const uint64_t ids[] = { 1000, 2000, 1001, 2001, 3001, 3002, 3003, 3004, 3005 };
	static const int want[] = { 0, 1, 0, 1, -1, -1, -1, -1, -1 };
	const uint64_t st = ST_SAMPLE | PERF_SAMPLE_IDENTIFIER;
	struct fr_file_event a = ev_make(0, false, st, ida, 1), b = ev_make(1, false, st, idb, 1);
	struct fr_file_event d = ev_make(2, true, ST_SIDE, ids_side, 2);
	struct fr_writer *w, *app;
	uint8_t buf[256];
	char path[256];
	struct coll c;
	bool trunc;
	size_t i;

	b.name = "cpu-clock";
	w = open_writer(path, sizeof(path));
	CU_ASSERT_EQUAL(fr_writer__event(w, &a), 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &b), 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &d), 0);
	CU_ASSERT_EQUAL(fr_writer__meta(w, "x", "y"), 0);
	CU_ASSERT_EQUAL(fr_writer__meta_flush(w), 0);
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 3, FR_STREAM_SAMPLES), 0);
	for (i = 0; i < 9; i++)
		CU_ASSERT_EQUAL(fr_writer__record(w, mk_sample(buf, true, ids[i], 10 * i + 10, i, 1)), 0);
	CU_ASSERT_EQUAL(fr_writer__records_end(w), 0);
	CU_ASSERT_EQUAL_FATAL(fr_writer__appender_of(w, &app), 0);
	CU_ASSERT_EQUAL(fr_writer__meta(app, "event_ids", "0:1001"), 0);
	CU_ASSERT_EQUAL(fr_writer__meta(app, "event_ids", "1:2001"), 0);
	CU_ASSERT_EQUAL(fr_writer__meta(app, "event_ids", "2:3001"), 0);     /* sideband */
	CU_ASSERT_EQUAL(fr_writer__meta(app, "event_ids", "7:3002"), 0);     /* no such event */
	CU_ASSERT_EQUAL(fr_writer__meta(app, "event_ids", "0:3003,x"), 0);   /* does not parse */
	CU_ASSERT_EQUAL(fr_writer__meta(app, "event_ids", "-1:3004"), 0);
	CU_ASSERT_EQUAL(fr_writer__meta(app, "event_ids", "0:-3005"), 0);
	CU_ASSERT_EQUAL(fr_writer__meta_flush(app), 0);
	fr_writer__add_chunks(w, fr_writer__chunks(app));   /* END counts them (composer's way) */
	CU_ASSERT_EQUAL(fr_writer__close(app), 0);
	CU_ASSERT_EQUAL(fr_writer__close(w), 0);
	CU_ASSERT_EQUAL_FATAL(read_all(path, &c, &trunc), 0);
	CU_ASSERT_FALSE(trunc);
	CU_ASSERT_EQUAL_FATAL(c.n, 9);
	for (i = 0; i < 9; i++)
		CU_ASSERT_EQUAL(c.v[i].ev, want[i]);
	free(c.v);
}

/* ---- hand-crafted files ------------------------------------------------- */

static void put_header(int fd, uint32_t version)
{
	struct fr_disk_header h = { .version = version, .header_size = FR_HEADER_SIZE };

	memcpy(h.magic, FR_FILE_MAGIC, 8);
	CU_ASSERT(write(fd, &h, sizeof(h)) == sizeof(h));
}

static void put_chunk_flags(int fd, uint16_t type, uint16_t flags, uint32_t stream, uint32_t kind,
			    const void *p, size_t len)
{
	struct fr_disk_chunk ch = { FR_CHUNK_MAGIC, type, flags, stream, kind, 0, len };
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint8_t *out = malloc(ZSTD_compressBound(len));

	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	ch.comp_size = ZSTD_compress2(cc, out, ZSTD_compressBound(len), p, len);
	CU_ASSERT(write(fd, &ch, sizeof(ch)) == sizeof(ch));
	CU_ASSERT(write(fd, out, ch.comp_size) == (ssize_t)ch.comp_size);
	ZSTD_freeCCtx(cc);
	free(out);
}

static void put_chunk(int fd, uint16_t type, uint32_t stream, uint32_t kind, const void *p,
		      size_t len)
{
	put_chunk_flags(fd, type, 0, stream, kind, p, len);
}

static void put_records(int fd, uint64_t nr, uint16_t bad_size)
{
	uint8_t p[16 + 3 * 48];
	struct perf_event_header *h;

	fr_put32(p, 0);
	fr_put32(p + 4, FR_STREAM_SIDEBAND);
	fr_put64(p + 8, nr);
	mk_comm(p + 16, 1, 1);
	mk_comm(p + 64, 2, 2);
	h = mk_comm(p + 112, 3, 3);
	if (bad_size)
		h->size = bad_size;
	put_chunk(fd, FR_CHUNK_RECORDS, 0, FR_STREAM_SIDEBAND, p, sizeof(p));
}

static void test_bad_records(void)
{
	static const struct { uint64_t nr; uint16_t size; } bad[] = {
		{ 4, 0 }, { 2, 0 }, { 3, 44 }, { 3, 4 }, { 3, 56 },
	};
	char path[256];
	struct coll c;
	bool trunc;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);

		put_header(fd, 1);
		put_records(fd, 3, 0);
		put_records(fd, bad[i].nr, bad[i].size);
		put_records(fd, 3, 0);
		close(fd);
		CU_ASSERT_EQUAL(read_all(path, &c, &trunc), -EBADMSG);
		CU_ASSERT_TRUE(trunc);
		CU_ASSERT_EQUAL(c.n, 3);  /* the first chunk only: the stream ends */
		free(c.v);
	}
}

/* Three COMMs in a RECORDS chunk with the given flags, coded when the flags
 * say so; bad_size: the third's size before coding. */
static void put_coded(int fd, uint16_t flags, uint16_t bad_size)
{
	uint8_t p[16 + 3 * 48], q[16 + 3 * 48];
	struct perf_event_header *h;

	fr_put32(p, 0);
	fr_put32(p + 4, FR_STREAM_SIDEBAND);
	fr_put64(p + 8, 3);
	mk_comm(p + 16, 1, 1);
	mk_comm(p + 64, 2, 2);
	h = mk_comm(p + 112, 3, 3);
	memcpy(q, p, sizeof(q));
	CU_ASSERT_EQUAL(fr_delta__encode(p + 16, q + 16, sizeof(p) - 16, fr_delta__words(FR_FILE_VERSION)),
			0);
	if (bad_size) {   /* code the third header so that it decodes to bad_size */
		struct perf_event_header b = *h;
		uint64_t want, prev, coded;

		b.size = bad_size;
		memcpy(&want, &b, 8);
		memcpy(&prev, p + 64, 8);
		coded = want ^ prev;
		memcpy(q + 112, &coded, 8);
	}
	put_chunk_flags(fd, FR_CHUNK_RECORDS, flags, 0, FR_STREAM_SIDEBAND,
			flags & FR_CHUNK_F_CODED ? q : p, sizeof(p));
}

/* Version 1 has no chunk flags; version 2 has FR_CHUNK_F_CODED on RECORDS
 * only: a coded chunk reads back as written, a flag a version does not
 * define (or a coding that breaks a record's size) ends the stream there. */
static void test_chunk_flags(void)
{
	/* rc: a bad chunk header ends the scan at open (the rest unread, the
	 * file truncated, the walk fine); a bad coding ends the stream in the walk */
	static const struct { uint32_t version; uint16_t flags, bad_size; size_t n; int rc; } cases[] = {
		{ 2, FR_CHUNK_F_CODED, 0, 9, 0 },        /* plain, coded, plain */
		{ 1, 0, 0, 9, 0 },
		{ 1, FR_CHUNK_F_CODED, 0, 3, 0 },        /* v1: no flags */
		{ 2, 0x2, 0, 3, 0 },                     /* an unknown flag */
		{ 2, FR_CHUNK_F_CODED, 4, 3, -EBADMSG }, /* decodes to a size < 8 */
		{ 2, FR_CHUNK_F_CODED, 52, 3, -EBADMSG },/* not a multiple of 8 */
		{ 2, FR_CHUNK_F_CODED, 56, 3, -EBADMSG },/* past the end */
	};
	char path[256];
	struct coll c;
	bool trunc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);

		put_header(fd, cases[i].version);
		put_records(fd, 3, 0);
		put_coded(fd, cases[i].flags, cases[i].bad_size);
		put_records(fd, 3, 0);
		close(fd);
		CU_ASSERT_EQUAL(read_all(path, &c, &trunc), cases[i].rc);
		CU_ASSERT_TRUE(trunc);   /* no END in any */
		CU_ASSERT_EQUAL(c.n, cases[i].n);
		for (size_t k = 0; k < c.n; k++)
			CU_ASSERT_EQUAL(c.v[k].seq, (uint64_t)(k % 3 + 1));
		free(c.v);
	}
	/* a flag on a chunk other than RECORDS */
	{
		int fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);
		struct fr_reader *r = NULL;

		put_header(fd, 2);
		put_chunk_flags(fd, FR_CHUNK_META, FR_CHUNK_F_CODED, 0, 0, "a=b\n", 4);
		close(fd);
		CU_ASSERT_EQUAL_FATAL(fr_reader__open(path, &r), 0);
		CU_ASSERT_TRUE(fr_reader__truncated(r));
		CU_ASSERT_PTR_NULL(fr_reader__meta(r, "a"));
		fr_reader__close(r);
	}
}

/* An EVENT written by an older (64-byte attr) or newer (longer attr) writer. */
static void check_attr_size(uint32_t attr_size)
{
	uint8_t p[512] = { 0 }, *q = p + 12 + attr_size;
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .sample_type = ST_SIDE };
	const struct fr_file_event *ev;
	struct fr_reader *r;
	char path[256];
	int fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);

	attr.size = attr_size;
	attr.sample_id_all = 1;
	attr.config2 = 7;  /* beyond 64 bytes: comes back only from a long attr */
	fr_put32(p, 5);
	fr_put32(p + 4, FR_EVENT_SIDEBAND);
	fr_put32(p + 8, attr_size);
	memcpy(p + 12, &attr, attr_size < sizeof(attr) ? attr_size : sizeof(attr));
	memset(p + 12 + sizeof(attr), 0xee, attr_size > sizeof(attr) ? attr_size - sizeof(attr) : 0);
	fr_put32(q, 3);
	memcpy(q + 4, "abc", 3);
	fr_put32(q + 7, 0);
	fr_put32(q + 11, 1);
	fr_put64(q + 15, 77);
	put_header(fd, 1);
	put_chunk(fd, FR_CHUNK_EVENT, 0, 0, p, (size_t)(q + 23 - p));
	close(fd);
	CU_ASSERT_EQUAL_FATAL(fr_reader__open(path, &r), 0);
	CU_ASSERT_TRUE(fr_reader__truncated(r));  /* no END */
	CU_ASSERT_EQUAL_FATAL(fr_reader__nr_events(r), 1);
	ev = fr_reader__event(r, 0);
	CU_ASSERT(ev->index == 5 && !strcmp(ev->name, "abc") && !ev->format);
	CU_ASSERT(ev->nr_ids == 1 && ev->ids[0] == 77);
	CU_ASSERT(ev->attr.sample_type == ST_SIDE && ev->attr.sample_id_all);
	CU_ASSERT_EQUAL(ev->attr.config2, attr_size > 64 ? 7u : 0u);
	fr_reader__close(r);
}

static void test_attr_size(void)
{
	check_attr_size(64);                        /* PERF_ATTR_SIZE_VER0 */
	check_attr_size(sizeof(struct perf_event_attr) + 16);
}

static void patch(const char *path, uint64_t off, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY);

	CU_ASSERT(pwrite(fd, p, n, (off_t)off) == (ssize_t)n);
	close(fd);
}

static void test_bad_header(void)
{
	struct fr_reader *r = NULL;
	struct fr_writer *w;
	char path[256];
	uint32_t v;

	w = open_writer(path, sizeof(path));
	CU_ASSERT_EQUAL_FATAL(fr_writer__close(w), 0);
	CU_ASSERT_EQUAL(fr_reader__open(path, &r), 0);
	CU_ASSERT_FALSE(r && fr_reader__truncated(r));
	fr_reader__close(r);
	v = FR_FILE_VERSION + 1;
	patch(path, 8, &v, 4);
	CU_ASSERT_EQUAL(fr_reader__open(path, &r), -EPROTONOSUPPORT);
	CU_ASSERT_PTR_NULL(r);
	v = 2;   /* versions 2 and 1 still read */
	patch(path, 8, &v, 4);
	CU_ASSERT_EQUAL(fr_reader__open(path, &r), 0);
	fr_reader__close(r);
	r = NULL;
	v = 1;
	patch(path, 8, &v, 4);
	CU_ASSERT_EQUAL(fr_reader__open(path, &r), 0);
	fr_reader__close(r);
	r = NULL;
	patch(path, 0, "FLIGHTRX", 8);
	CU_ASSERT_EQUAL(fr_reader__open(path, &r), -EBADMSG);
	CU_ASSERT_EQUAL(fr_reader__open("/nonexistent/x.frec", &r), -ENOENT);
}

/* ---- writer errors ------------------------------------------------------ */

static void test_mode_excl_abort(void)
{
	struct fr_writer *w, *w2 = NULL;
	char path[256];
	struct stat sb;
	mode_t old = umask(0);

	w = open_writer(path, sizeof(path));
	umask(old);
	CU_ASSERT_EQUAL(stat(path, &sb), 0);
	CU_ASSERT_EQUAL(sb.st_mode & 07777, 0600);
	CU_ASSERT_EQUAL(fr_writer__bytes(w), FR_HEADER_SIZE);
	CU_ASSERT_EQUAL(fr_writer__open(path, 3, &w2), -EEXIST);
	CU_ASSERT_PTR_NULL(w2);
	CU_ASSERT_EQUAL(stat(path, &sb), 0);  /* the existing file is left alone */
	CU_ASSERT_EQUAL(fr_writer__open(path, 1000, &w2), -EEXIST);
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 0, 7), -EINVAL);
	CU_ASSERT_EQUAL(fr_writer__record(w, &(struct perf_event_header){ 9, 0, 16 }), -EINVAL);
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 0, FR_STREAM_SAMPLES), 0);
	CU_ASSERT_EQUAL(fr_writer__record(w, &(struct perf_event_header){ 9, 0, 12 }), -EINVAL);
	fr_writer__abort(w);
	CU_ASSERT(stat(path, &sb) < 0 && errno == ENOENT);
	CU_ASSERT_EQUAL(fr_writer__open(tmp_path(path, sizeof(path)), 1000, &w2), -EINVAL);
	CU_ASSERT(stat(path, &sb) < 0 && errno == ENOENT);
}

static void test_enospc(void)
{
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC), fd;
	struct fr_writer *w = NULL;
	uint8_t b[64];
	char path[256];

	CU_ASSERT_FATAL(full >= 0);
	CU_ASSERT_EQUAL(fr_writer__fdopen(full, 3, &w), -ENOSPC);
	CU_ASSERT_PTR_NULL(w);
	/* a writer whose fd turns into /dev/full after the header */
	fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);
	CU_ASSERT_EQUAL_FATAL(fr_writer__fdopen(fd, 3, &w), 0);
	CU_ASSERT_EQUAL(dup2(full, fd), fd);
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 0, FR_STREAM_SIDEBAND), 0);
	CU_ASSERT_EQUAL(fr_writer__record(w, mk_comm(b, 1, 1)), 0);  /* buffered */
	CU_ASSERT_EQUAL(fr_writer__records_end(w), -ENOSPC);
	CU_ASSERT_EQUAL(fr_writer__meta(w, "a", "b"), -ENOSPC);       /* sticky */
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 0, FR_STREAM_SIDEBAND), -ENOSPC);
	CU_ASSERT_EQUAL(fr_writer__bytes(w), FR_HEADER_SIZE);
	CU_ASSERT_EQUAL(fr_writer__close(w), -ENOSPC);
	close(full);
}

/* Liveness is the writer's OFD lock, not a pid: held while a writer (or a
 * dup of its fd: appenders) has the file open, gone once it is closed; a
 * fork that inherited nothing of it does not hold it. */
static void test_being_written(void)
{
	struct fr_writer *w, *app = NULL;
	struct fr_reader *r = NULL;
	char path[256];

	w = open_writer(path, sizeof(path));
	CU_ASSERT_EQUAL(fr_writer__flush(w), 0);
	CU_ASSERT_EQUAL_FATAL(fr_reader__open(path, &r), 0);
	CU_ASSERT(fr_reader__truncated(r));
	CU_ASSERT(fr_reader__being_written(r));
	CU_ASSERT_EQUAL(fr_writer__appender_of(w, &app), 0);
	fr_writer__abort(w);                      /* the appender's dup still holds it */
	CU_ASSERT(fr_reader__being_written(r));
	CU_ASSERT_EQUAL(fr_writer__close(app), 0);
	CU_ASSERT_FALSE(fr_reader__being_written(r));  /* as after kill -9 */
	fr_reader__close(r);
	/* a complete file: not being written once closed */
	w = open_writer(path, sizeof(path));
	CU_ASSERT_EQUAL(fr_writer__close(w), 0);
	CU_ASSERT_EQUAL_FATAL(fr_reader__open(path, &r), 0);
	CU_ASSERT_FALSE(fr_reader__truncated(r));
	CU_ASSERT_FALSE(fr_reader__being_written(r));
	fr_reader__close(r);
	unlink(path);
}

/* Only regular files are read: a FIFO without a writer, a directory. */
static void test_not_regular(void)
{
	struct fr_reader *r = (struct fr_reader *)1;
	char path[256];

	tmp_path(path, sizeof(path));
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	CU_ASSERT_EQUAL(fr_reader__open(path, &r), -ENODEV);   /* returns, no writer needed */
	CU_ASSERT_PTR_NULL(r);
	unlink(path);
	CU_ASSERT_EQUAL(fr_reader__open("/", &r), -ENODEV);
	CU_ASSERT_EQUAL(fr_reader__open("/dev/null", &r), -ENODEV);
}

/* A file size limit: the write crossing it is short, the next fails (EFBIG). */
static void test_short_write_efbig(void)
{
	struct rlimit old, lim;
	struct fr_writer *w;
	struct coll c;
	char path[256];
	struct stat sb;
	bool trunc;
	int err;

	big_seq = 0;
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	w = open_writer(path, sizeof(path));
	write_std_events(w);
	big_comms(w, 0, 30, 1, 1);
	lim = old;
	lim.rlim_cur = 300000;
	CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_FSIZE, &lim), 0);
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 1, FR_STREAM_SAMPLES), 0);
	do
		err = fr_writer__record(w, mk_sample((uint8_t[256]){ 0 }, false, 0, 5, 999, 12));
	while (!err);
	CU_ASSERT_EQUAL(err, -EFBIG);
	CU_ASSERT_EQUAL(fr_writer__bytes(w), 300000);
	CU_ASSERT_EQUAL(fr_writer__close(w), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	CU_ASSERT(stat(path, &sb) == 0 && sb.st_size == 300000);
	CU_ASSERT_EQUAL(read_all(path, &c, &trunc), 0);
	CU_ASSERT(trunc && c.n == 30);
	free(c.v);
}

/* ---- main --------------------------------------------------------------- */

static void test_blobs(void)
{
	static const char a[] = "first", b[] = "second kind-1 blob", c[] = "kind 2";
	uint32_t kind = 0;
	struct fr_writer *w = NULL;
	struct fr_reader *r = NULL;
	char path[256];
	void *data = NULL;
	size_t len = 0;

	tmp_path(path, sizeof(path));
	CU_ASSERT_FATAL(fr_writer__open(path, 1, &w) == 0);
	CU_ASSERT_EQUAL(fr_writer__blob(w, 0, a, sizeof(a)), -EINVAL);
	CU_ASSERT_EQUAL(fr_writer__blob(w, 1, a, FR_CHUNK_RAW_MAX + 1), -E2BIG);
	CU_ASSERT_EQUAL(fr_writer__blob(w, 1, a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(fr_writer__blob(w, 2, c, sizeof(c)), 0);
	CU_ASSERT_EQUAL(fr_writer__blob(w, 1, b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(fr_writer__blob(w, 77, c, 0), 0);   /* a kind this reader does not know */
	CU_ASSERT_FATAL(fr_writer__close(w) == 0);
	CU_ASSERT_FATAL(fr_reader__open(path, &r) == 0);
	CU_ASSERT_FALSE(fr_reader__truncated(r));
	CU_ASSERT_EQUAL(fr_reader__unknown_blobs(r, &kind), 1);   /* said, not damage */
	CU_ASSERT_EQUAL(kind, 77);
	CU_ASSERT_EQUAL(fr_reader__nr_damaged(r), 0);
	CU_ASSERT_EQUAL(fr_reader__nr_blobs(r, 1), 2);
	CU_ASSERT_EQUAL(fr_reader__nr_blobs(r, 2), 1);
	CU_ASSERT_EQUAL(fr_reader__nr_blobs(r, 3), 0);
	CU_ASSERT_EQUAL(fr_reader__blob(r, 1, 1, &data, &len), 0);
	CU_ASSERT(len == sizeof(b) && data && !memcmp(data, b, len));
	free(data);
	data = NULL;
	CU_ASSERT_EQUAL(fr_reader__blob(r, 2, 0, &data, &len), 0);
	CU_ASSERT(len == sizeof(c) && data && !memcmp(data, c, len));
	free(data);
	CU_ASSERT_EQUAL(fr_reader__blob(r, 1, 2, &data, &len), -ENOENT);
	CU_ASSERT_EQUAL(fr_reader__blob(r, 3, 0, &data, &len), -ENOENT);
	fr_reader__close(r);
}


/* ---- damage accounting and bounds (issue 9) ----------------------------- */

/* An EVENT payload: index, no attr bytes, name, no format, no ids. */
static size_t mk_event(uint8_t *p, uint32_t index, const char *name)
{
	size_t n = strlen(name);

	fr_put32(p, index);
	fr_put32(p + 4, 0);
	fr_put32(p + 8, 0);
	fr_put32(p + 12, (uint32_t)n);
	memcpy(p + 16, name, n);
	fr_put32(p + 16 + n, 0);
	fr_put32(p + 20 + n, 0);
	return 24 + n;
}

static void test_damage_blob(void)
{
	static const char good[] = "kind=good\n", bad[] = "kind=bad\n";
	const struct fr_damage *d;
	struct fr_reader *r = NULL;
	char path[256], text[256];
	struct stat st;
	uint8_t x;
	int fd = open(tmp_path(path, sizeof(path)), O_RDWR | O_CREAT | O_EXCL, 0600);

	put_header(fd, 1);
	put_chunk(fd, FR_CHUNK_BLOB, 0, FR_BLOB_TRIGGER, bad, sizeof(bad) - 1);
	CU_ASSERT_FATAL(fstat(fd, &st) == 0);
	put_chunk(fd, FR_CHUNK_BLOB, 0, FR_BLOB_TRIGGER, good, sizeof(good) - 1);
	/* the last byte of the first frame is in its content checksum */
	CU_ASSERT(pread(fd, &x, 1, st.st_size - 1) == 1);
	x ^= 0x40;
	CU_ASSERT(pwrite(fd, &x, 1, st.st_size - 1) == 1);
	close(fd);
	CU_ASSERT_FATAL(fr_reader__open(path, &r) == 0);
	CU_ASSERT_EQUAL(fr_reader__nr_blobs(r, FR_BLOB_TRIGGER), 1);  /* the good one */
	CU_ASSERT_EQUAL_FATAL(fr_reader__nr_damaged(r), 1);
	d = fr_reader__damage(r, 0);
	CU_ASSERT(d->chunk == 0 && d->offset == FR_HEADER_SIZE && d->type == FR_CHUNK_BLOB &&
		  d->kind == FR_BLOB_TRIGGER && !strcmp(d->why, "checksum mismatch"));
	fr_damage__describe(d, text, sizeof(text));
	CU_ASSERT_STRING_EQUAL(text, "chunk 0 (BLOB TRIGGER) at offset 32: checksum mismatch "
			       "(skipped)");
	/* a parser of the caller rejects the good one: damage too, once */
	fr_reader__blob_damaged(r, FR_BLOB_TRIGGER, 0, "malformed payload");
	fr_reader__blob_damaged(r, FR_BLOB_TRIGGER, 0, "malformed payload");
	CU_ASSERT_EQUAL(fr_reader__nr_damaged(r), 2);
	CU_ASSERT(fr_reader__damage(r, 1) && fr_reader__damage(r, 1)->chunk == 1);
	CU_ASSERT_PTR_NULL(fr_reader__damage(r, 2));
	fr_reader__close(r);
}

static void test_duplicate_event_index(void)
{
	struct fr_reader *r = NULL;
	uint8_t p[64];
	char path[256];
	int fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);

	put_header(fd, 1);
	put_chunk(fd, FR_CHUNK_EVENT, 0, 0, p, mk_event(p, 3, "first"));
	put_chunk(fd, FR_CHUNK_EVENT, 0, 0, p, mk_event(p, 3, "again"));
	put_chunk(fd, FR_CHUNK_EVENT, 0, 0, p, mk_event(p, FR_EVENT_INDEX_MAX, "huge"));
	put_chunk(fd, FR_CHUNK_EVENT, 0, 0, p, mk_event(p, 4, "second"));
	close(fd);
	CU_ASSERT_FATAL(fr_reader__open(path, &r) == 0);
	CU_ASSERT_EQUAL_FATAL(fr_reader__nr_events(r), 2);
	CU_ASSERT_STRING_EQUAL(fr_reader__event(r, 0)->name, "first");
	CU_ASSERT_STRING_EQUAL(fr_reader__event(r, 1)->name, "second");
	CU_ASSERT_EQUAL_FATAL(fr_reader__nr_damaged(r), 2);
	CU_ASSERT_STRING_EQUAL(fr_reader__damage(r, 0)->why, "duplicate event index");
	CU_ASSERT_EQUAL(fr_reader__damage(r, 0)->chunk, 1);
	CU_ASSERT_STRING_EQUAL(fr_reader__damage(r, 1)->why, "event index out of range");
	fr_reader__close(r);
}

static void test_stream_bounds(void)
{
	struct fr_reader *r = NULL;
	uint8_t p[16];
	char path[256];
	struct coll c;
	bool trunc;
	int fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);

	put_header(fd, 1);
	put_records(fd, 3, 0);  /* cpu 0: read */
	fr_put32(p, FR_CPU_MAX);
	fr_put32(p + 4, 0);
	fr_put64(p + 8, 0);
	put_chunk(fd, FR_CHUNK_RECORDS, FR_CPU_MAX, 0, p, sizeof(p));  /* a CPU too many */
	put_records(fd, 3, 0);  /* after it: unread */
	close(fd);
	CU_ASSERT_EQUAL(read_all(path, &c, &trunc), 0);
	CU_ASSERT_TRUE(trunc);
	CU_ASSERT_EQUAL(c.n, 3);
	free(c.v);
	CU_ASSERT_FATAL(fr_reader__open(path, &r) == 0);
	CU_ASSERT_EQUAL_FATAL(fr_reader__nr_damaged(r), 1);
	CU_ASSERT(fr_reader__damage(r, 0)->type == 0 &&
		  !strcmp(fr_reader__damage(r, 0)->why, "bad chunk header"));
	fr_reader__close(r);
}

/* Decoded bytes the merge would hold are bounded by the file size: 64
 * streams of 1 MiB of zeros compress to a few KiB each. */
static void test_merge_memory_bound(void)
{
	uint8_t *p = calloc(1, FR_RECORDS_PAYLOAD_MAX);
	struct fr_reader *r = NULL;
	char path[256];
	int fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);

	CU_ASSERT_FATAL(p != NULL);
	put_header(fd, 1);
	for (uint32_t cpu = 0; cpu < 64; cpu++) {
		fr_put32(p, cpu);
		put_chunk(fd, FR_CHUNK_RECORDS, cpu, 0, p, FR_RECORDS_PAYLOAD_MAX);
	}
	close(fd);
	free(p);
	CU_ASSERT_FATAL(fr_reader__open(path, &r) == 0);
	/* 16 MiB floor: 16 chunks of 1 MiB + 16 bytes fit but the 16th */
	CU_ASSERT(fr_reader__nr_damaged(r) >= 48);
	CU_ASSERT_STRING_EQUAL(fr_reader__damage(r, 0)->why,
			       "decoded size out of proportion to the file size");
	fr_reader__close(r);
}

/* The one proportion budget covers every chunk kind (issue 32): 8 META, 8
 * EVENT, 8 CPUSTAT and 8 BLOB chunks of ~1 MiB each (a few KiB of file):
 * what fits the 16 MiB floor is read, every other chunk is skipped as damage
 * for its size, whatever its kind; nothing stops the read. */
static void test_budget_every_kind(void)
{
	enum { PER = 8, SZ = FR_CHUNK_RAW_MAX - 64 };
	static const uint16_t types[] = { FR_CHUNK_META, FR_CHUNK_EVENT, FR_CHUNK_CPUSTAT, FR_CHUNK_BLOB };
	uint8_t *p = calloc(1, FR_CHUNK_RAW_MAX);
	size_t seen[7] = { 0 }, n;
	struct fr_reader *r = NULL;
	char path[256];
	int fd = open(tmp_path(path, sizeof(path)), O_WRONLY | O_CREAT | O_EXCL, 0600);

	CU_ASSERT_FATAL(p != NULL && fd >= 0);
	put_header(fd, 2);
	for (int i = 0; i < PER; i++)
		for (size_t t = 0; t < 4; t++) {
			size_t len = SZ;

			memset(p, 'a', SZ);
			if (types[t] == FR_CHUNK_META) {
				memcpy(p, "k=", 2);
				p[SZ - 1] = '\n';
			} else if (types[t] == FR_CHUNK_EVENT) {   /* index i, a long format */
				memset(p, 0, 24);
				fr_put32(p, (uint32_t)i);
				fr_put32(p + 12, 1);
				fr_put32(p + 17, SZ - 25);
				fr_put32(p + SZ - 4, 0);
			} else if (types[t] == FR_CHUNK_CPUSTAT) {
				n = (SZ - FR_CPUSTAT_HDR_SIZE) / FR_CPUSTAT_ENTRY_SIZE;
				len = FR_CPUSTAT_HDR_SIZE + n * FR_CPUSTAT_ENTRY_SIZE;
				memset(p, 0, len);
				fr_put32(p, (uint32_t)n);
			}
			put_chunk(fd, types[t], 0, types[t] == FR_CHUNK_BLOB ? FR_BLOB_TRIGGER : 0, p, len);
		}
	close(fd);
	free(p);
	CU_ASSERT_FATAL(fr_reader__open(path, &r) == 0);
	n = fr_reader__nr_damaged(r);
	CU_ASSERT(n >= 4 * PER - 16 && n <= 4 * PER - 15);   /* 15 or 16 MiB-ish chunks fit */
	for (size_t i = 0; fr_reader__damage(r, i); i++) {
		CU_ASSERT_STRING_EQUAL(fr_reader__damage(r, i)->why,
				       "decoded size out of proportion to the file size");
		seen[fr_reader__damage(r, i)->type]++;
	}
	for (size_t t = 0; t < 4; t++)   /* the chunks are interleaved: every kind refused */
		CU_ASSERT(seen[types[t]] >= 3);
	CU_ASSERT(fr_reader__nr_events(r) >= 3 && fr_reader__nr_events(r) <= 5);
	fr_reader__close(r);
}

/* Opening n chunks and fetching every blob costs O(n log n) index steps (it
 * was O(n^2): a linear stream search per chunk, a linear blob search per
 * fetch). Counted, not timed. */
static void test_open_linear(void)
{
	enum { N = 100000 };
	static const char blob[] = "k=v\n";
	uint8_t rec[16], cb[256], cr[256];
	struct fr_disk_chunk hb = { FR_CHUNK_MAGIC, FR_CHUNK_BLOB, 0, 0, FR_BLOB_TRIGGER, 0,
				    sizeof(blob) - 1 };
	struct fr_disk_chunk hr = { FR_CHUNK_MAGIC, FR_CHUNK_RECORDS, 0, 0, 0, 0, sizeof(rec) };
	struct fr_disk_header h = { .version = 1, .header_size = FR_HEADER_SIZE };
	struct fr_reader *r = NULL;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	char path[256];
	size_t nb = 0;
	FILE *f = fopen(tmp_path(path, sizeof(path)), "wx");

	CU_ASSERT_FATAL(f && cc);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	hb.comp_size = ZSTD_compress2(cc, cb, sizeof(cb), blob, sizeof(blob) - 1);
	memcpy(h.magic, FR_FILE_MAGIC, 8);
	fwrite(&h, sizeof(h), 1, f);
	for (uint32_t i = 0; i < N; i++) {
		if (i % 2) {
			fwrite(&hb, sizeof(hb), 1, f);
			fwrite(cb, hb.comp_size, 1, f);
			nb++;
			continue;
		}
		hr.stream = (i / 2) % FR_CPU_MAX;  /* 4096 streams */
		fr_put32(rec, hr.stream);
		fr_put32(rec + 4, 0);
		fr_put64(rec + 8, 0);
		hr.comp_size = ZSTD_compress2(cc, cr, sizeof(cr), rec, sizeof(rec));
		fwrite(&hr, sizeof(hr), 1, f);
		fwrite(cr, hr.comp_size, 1, f);
	}
	ZSTD_freeCCtx(cc);
	CU_ASSERT_FATAL(fclose(f) == 0);
	CU_ASSERT_FATAL(fr_reader__open(path, &r) == 0);
	CU_ASSERT_EQUAL(fr_reader__nr_damaged(r), 0);
	CU_ASSERT_EQUAL_FATAL(fr_reader__nr_blobs(r, FR_BLOB_TRIGGER), nb);
	for (size_t i = 0; i < nb; i++) {
		void *data = NULL;
		size_t len = 0;

		CU_ASSERT_EQUAL(fr_reader__blob(r, FR_BLOB_TRIGGER, i, &data, &len), 0);
		free(data);
	}
	/* log2(50000) < 17 binary search steps per fetch, 1 per records chunk */
	CU_ASSERT(fr_reader__index_steps(r) <= (uint64_t)N * 20);
	fr_reader__close(r);
}

static int suite_init(void)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int suite_clean(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[512];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	return rmdir(tmpdir);
}

static const struct fr_test tests[] = {
	{ "round trip: meta, events, cpu stats", test_round_trip },
	{ "merge: 2 CPUs, sideband, synthesized, ties, no-time record", test_merge_order },
	{ "merge: multi-chunk streams; callback stops; walk again", test_multi_chunk },
	{ "merge: two events told apart by PERF_SAMPLE_IDENTIFIER", test_identifier },
	{ "merge: ids of events opened later, from event_ids meta", test_event_ids_meta },
	{ "truncated at every chunk boundary and mid-chunk", test_truncated },
	{ "flipped byte in a compressed payload", test_flipped_byte },
	{ "bad records: count, size, alignment", test_bad_records },
	{ "event with a shorter or longer attr", test_attr_size },
	{ "bad magic, a version too new, versions 2 and 1, missing file", test_bad_header },
	{ "chunk flags by version: coded records, unknown flags, bad coding", test_chunk_flags },
	{ "writer: mode 0600, O_EXCL, EINVAL, abort unlinks", test_mode_excl_abort },
	{ "writer: /dev/full gives ENOSPC, sticky", test_enospc },
	{ "writer: its OFD lock says being written, gone with its last fd", test_being_written },
	{ "reader: a FIFO, a directory, a device are refused (ENODEV)", test_not_regular },
	{ "writer: short write then EFBIG; partial file reads", test_short_write_efbig },
	{ "blobs: kinds, order, limits, unknown kinds", test_blobs },
	{ "damage: a bad blob is skipped and recorded; callers add theirs", test_damage_blob },
	{ "damage: duplicate and out-of-range event indexes", test_duplicate_event_index },
	{ "bounds: a RECORDS stream of cpu >= 4096 is a bad header", test_stream_bounds },
	{ "bounds: merge memory bounded by the file size", test_merge_memory_bound },
	{ "bounds: one proportion budget for every chunk kind", test_budget_every_kind },
	{ "open: 100k chunks in O(n log n) index steps", test_open_linear },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "file", suite_init, suite_clean, tests };
