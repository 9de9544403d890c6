/* tests/ring/test_stream.c: CUnit suite for the streamed copy of a backward
 * ring (ring/ring.c, fr_ring__stream_begin/next) on the fake kernel of
 * tests/ring/fake.h: only the written region is read, chunks hold whole
 * records oldest first within chunk_max, the result equals the whole-ring
 * snapshot's, and records the kernel overwrites during the stream are
 * dropped, never delivered torn.
 */
#include "ring/ring.h"
#include "ring/internal.h"

#include "tests/cunit.h"
#include "tests/ring/fake.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a stream delivered, oldest first. */
struct got {
	uint64_t *seq;
	size_t n, cap;
	size_t chunks, max_len;
	bool bad;          /* a record that is not whole and intact */
	bool out_of_order; /* sequence numbers not increasing */
};

static void got_free(struct got *g)
{
	free(g->seq);
	memset(g, 0, sizeof(*g));
}

static void got_add(struct got *g, uint64_t seq)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 1024;
		uint64_t *n = realloc(g->seq, cap * sizeof(*n));

		if (!n)
			abort();
		g->seq = n;
		g->cap = cap;
	}
	if (g->n && seq <= g->seq[g->n - 1])
		g->out_of_order = true;
	g->seq[g->n++] = seq;
}

/* Check one chunk: whole records back to back, exactly len bytes, nr of them. */
static void got_chunk(struct got *g, const uint8_t *recs, size_t len, size_t nr)
{
	size_t off = 0, k = 0;

	g->chunks++;
	if (len > g->max_len)
		g->max_len = len;
	while (off + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)(recs + off);
		uint64_t seq;

		if (!record_ok(h, &seq) || off + h->size > len) {
			g->bad = true;
			return;
		}
		got_add(g, seq);
		off += h->size;
		k++;
	}
	CU_ASSERT_EQUAL(off, len);
	CU_ASSERT_EQUAL(k, nr);
}

/* Stream the ring to its end into g. Returns begin's error or next's. */
static int stream_all(struct fake *f, size_t chunk_max, struct fr_ring_stream *st, struct got *g)
{
	uint8_t *buf = malloc(chunk_max);
	int err;

	CU_ASSERT_FATAL(buf != NULL);
	memset(g, 0, sizeof(*g));
	err = fr_ring__stream_begin(f->ring, chunk_max, st);
	while (!err) {
		const uint8_t *recs;
		size_t len, nr;
		int rc = fr_ring__stream_next(f->ring, st, buf, &recs, &len, &nr);

		if (rc <= 0) {
			err = rc;
			break;
		}
		CU_ASSERT(recs >= buf && recs + len <= buf + chunk_max);
		got_chunk(g, recs, len, nr);
	}
	free(buf);
	return err;
}

/* The stream must equal the whole-ring snapshot of the same (quiet) ring,
 * reversed: same records, head, length, flags. */
static void check_against_snapshot(struct fake *f, const struct fr_ring_stream *st,
				   const struct got *g)
{
	struct fr_ring_snapshot s;

	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(st->head, s.head);
	CU_ASSERT_EQUAL(st->nr, s.nr);
	CU_ASSERT_EQUAL(g->n, s.nr);
	CU_ASSERT_EQUAL(st->len, s.len);
	CU_ASSERT_EQUAL(st->full, s.full);
	CU_ASSERT_EQUAL(st->corrupt, s.corrupt);
	CU_ASSERT_EQUAL(st->raced, 0);
	CU_ASSERT(!g->bad);
	CU_ASSERT(!g->out_of_order);
	for (size_t i = 0; i < s.nr && i < g->n; i++) {
		uint64_t seq = 0;

		record_ok(fr_ring_snapshot__record(&s, s.nr - 1 - i), &seq);
		if (g->seq[i] != seq) {
			CU_FAIL("stream and snapshot disagree");
			break;
		}
	}
}

static void test_empty(void)
{
	struct fake *f = fake_new(4096, true, 0);
	struct fr_ring_stream st;
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(stream_all(f, FR_RING_CHUNK_MIN, &st, &g), 0);
	CU_ASSERT_EQUAL(g.n, 0);
	CU_ASSERT_EQUAL(st.nr, 0);
	CU_ASSERT_EQUAL(st.head, 0);
	CU_ASSERT(!st.full && !st.corrupt);
	CU_ASSERT(g.chunks <= 1);
	got_free(&g);
	fake_delete(f);
}

/* A ring not yet full holds only what was written since start: stale
 * records in the never-written part (which a kernel's zeroed pages would
 * not have) are never read, by the stream or by the whole-ring snapshot. */
static void test_partly_written(void)
{
	struct fake *f = fake_new(1 << 18, true, 0);
	struct fr_ring_stream st;
	struct got g;
	uint64_t bytes;
	size_t unwritten;
	uint8_t rec[64];

	CU_ASSERT_FATAL(f != NULL);
	bytes = fake_write_n(f, 300);
	unwritten = f->size - (size_t)bytes;
	/* stale but well-formed records (seq 1000000+) right below the oldest */
	for (size_t off = 0; off + 64 <= unwritten; off += 64) {
		make_record(rec, 1000000 + off / 64, 64);
		memcpy(f->data + off, rec, 64);
	}
	CU_ASSERT_EQUAL(stream_all(f, FR_RING_CHUNK_MIN, &st, &g), 0);
	CU_ASSERT_EQUAL(g.n, 300);
	CU_ASSERT(g.n == 300 && g.seq[0] == 0 && g.seq[299] == 299);
	CU_ASSERT_EQUAL(st.len, bytes);
	CU_ASSERT(!st.full);
	check_against_snapshot(f, &st, &g);
	got_free(&g);
	fake_delete(f);
}

/* Full rings, wrapped many times, in many chunks: records straddling the
 * end of the data area, chunk bounds anywhere in the record stream. */
static void full_case(size_t ring, size_t chunk_max)
{
	struct fake *f = fake_new(ring, true, 0);
	struct fr_ring_stream st;
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	while ((uint64_t)0 - f->head < 3 * (uint64_t)ring + 777)
		fake_write_n(f, 1);
	CU_ASSERT_EQUAL_FATAL(stream_all(f, chunk_max, &st, &g), 0);
	CU_ASSERT(st.full);
	CU_ASSERT(!st.corrupt);
	CU_ASSERT(g.max_len <= chunk_max);
	/* every chunk but the last holds more than chunk_max - 200 bytes */
	CU_ASSERT(g.chunks >= ring / chunk_max);
	CU_ASSERT(g.chunks <= ring / (chunk_max - 200) + 1);
	CU_ASSERT(g.n > 0 && g.seq[g.n - 1] == f->seq - 1);   /* the newest is there */
	CU_ASSERT(st.len > ring - 200);
	check_against_snapshot(f, &st, &g);
	got_free(&g);
	fake_delete(f);
}

static void test_full(void)
{
	full_case(1 << 20, FR_RING_CHUNK_MIN);
	full_case(1 << 20, FR_RING_CHUNK_MIN + 8);
	full_case(1 << 19, 200000);
	full_case(1 << 18, 1 << 18);    /* one chunk is the whole ring */
	full_case(1 << 18, 1 << 20);    /* chunk larger than the ring */
	full_case(4096, FR_RING_CHUNK_MIN);
}

/* The head anywhere (chunk bounds and straddlers land everywhere). */
static void test_wrapped_anywhere(void)
{
	struct fake *f = fake_new(1 << 18, true, 0);

	CU_ASSERT_FATAL(f != NULL);
	for (int i = 0; i < 40; i++) {
		struct fr_ring_stream st;
		struct got g;

		fake_write_n(f, 1 + (size_t)(rnd(f) % 3000));
		CU_ASSERT_EQUAL_FATAL(stream_all(f, FR_RING_CHUNK_MIN, &st, &g), 0);
		CU_ASSERT(g.n > 0 && g.seq[g.n - 1] == f->seq - 1);
		check_against_snapshot(f, &st, &g);
		got_free(&g);
	}
	fake_delete(f);
}

/* A fake kernel writing during the stream: at call `at` of the copy hook
 * (1: begin's walk, 2: the oldest chunk's copy, ...), `bytes` more. */
struct racer {
	struct fake *f;
	int calls, at;
	bool every;  /* at every call from at on */
	uint64_t bytes, written;
};

static void racer_hook(struct fr_ring *ring, void *arg)
{
	struct racer *r = arg;

	(void)ring;
	if (++r->calls == r->at || (r->every && r->calls > r->at)) {
		uint64_t start = r->f->head;

		while (start - r->f->head < r->bytes)
			fake_write_n(r->f, 1);
		r->written = start - r->f->head;
	}
}

/* Racing writes at the oldest end: what they touched before its copy is
 * dropped (counted in raced), never delivered; the newest records stay. */
static void race_case(int at, uint64_t bytes)
{
	struct fake *f = fake_new(1 << 19, true, 0);
	struct racer r = { .at = at, .bytes = bytes };
	struct fr_ring_stream st;
	struct got g;
	uint64_t newest, first_after;
	uint8_t *buf = malloc(FR_RING_CHUNK_MIN);

	CU_ASSERT_FATAL(f != NULL && buf != NULL);
	r.f = f;
	while ((uint64_t)0 - f->head < 2 * (uint64_t)f->size)
		fake_write_n(f, 1);
	newest = f->seq - 1;
	f->touched = calloc(1, f->size);
	CU_ASSERT_FATAL(f->touched != NULL);
	fr_ring__set_copy_hook(f->ring, racer_hook, &r);
	memset(&g, 0, sizeof(g));
	CU_ASSERT_EQUAL_FATAL(fr_ring__stream_begin(f->ring, FR_RING_CHUNK_MIN, &st), 0);
	first_after = f->seq;
	for (;;) {
		const uint8_t *recs;
		size_t len, nr, off = 0;
		int rc = fr_ring__stream_next(f->ring, &st, buf, &recs, &len, &nr);

		if (rc <= 0) {
			CU_ASSERT_EQUAL(rc, 0);
			break;
		}
		/* right after its copy's check: nothing delivered had been
		 * touched by the racing writes (the log is indexed by seq) */
		while (off < len) {
			const struct perf_event_header *h = (const void *)(recs + off);
			uint64_t seq;

			if (record_ok(h, &seq) && seq < first_after && seq < f->nlog) {
				const struct logrec *l = &f->log[seq];

				CU_ASSERT_EQUAL(l->seq, seq);
				for (size_t b = 0; b < h->size; b++)
					if (f->touched[(l->pos + b) & f->mask]) {
						CU_FAIL("delivered a record the racing writes had touched");
						break;
					}
			}
			off += h->size;
		}
		got_chunk(&g, recs, len, nr);
	}
	CU_ASSERT(!g.bad);
	CU_ASSERT(!g.out_of_order);
	CU_ASSERT(g.n > 0 && g.seq[g.n - 1] == newest);   /* the newest is never lost */
	for (size_t i = 0; i < g.n; i++)
		CU_ASSERT(g.seq[i] < first_after);         /* nothing newer than begin's head */
	CU_ASSERT(st.full);
	CU_ASSERT(!st.corrupt);
	CU_ASSERT_EQUAL(st.nr, g.n);
	if (r.written) {
		CU_ASSERT(st.raced > 0);
		/* what was dropped is at most what the racing writes covered, plus
		 * one record each side */
		CU_ASSERT(st.raced <= r.written + 400);
	}
	fr_ring__set_copy_hook(f->ring, NULL, NULL);
	free(buf);
	got_free(&g);
	fake_delete(f);
}

static void test_race(void)
{
	race_case(1, 1000);          /* during begin's walk */
	race_case(1, 200000);        /* more than the oldest chunk */
	race_case(2, 5000);          /* during the oldest chunk's copy */
	race_case(3, 300000);        /* later: laps chunks already delivered */
	race_case(5, (1 << 19) - 9000);
}

/* The kernel writing a whole ring during the walk: try again, -EAGAIN
 * after 3 tries. */
static void test_eagain(void)
{
	struct fake *f = fake_new(1 << 18, true, 0);
	struct racer r = { .at = 1, .bytes = 1 << 18 };
	struct fr_ring_stream st;
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	r.f = f;
	fake_write_n(f, 100);
	fr_ring__set_copy_hook(f->ring, racer_hook, &r);
	/* once: the second walk is of the ring as it is then */
	CU_ASSERT_EQUAL(fr_ring__stream_begin(f->ring, FR_RING_CHUNK_MIN, &st), 0);
	CU_ASSERT_EQUAL(r.calls, 2);
	CU_ASSERT_EQUAL(st.head, f->head);
	fr_ring__set_copy_hook(f->ring, NULL, NULL);
	CU_ASSERT_EQUAL(stream_all(f, FR_RING_CHUNK_MIN, &st, &g), 0);
	CU_ASSERT(st.full && g.n > 0 && g.seq[g.n - 1] == f->seq - 1);
	got_free(&g);
	/* every time */
	r = (struct racer){ .f = f, .at = 1, .every = true, .bytes = 1 << 18 };
	fr_ring__set_copy_hook(f->ring, racer_hook, &r);
	CU_ASSERT_EQUAL(fr_ring__stream_begin(f->ring, FR_RING_CHUNK_MIN, &st), -EAGAIN);
	CU_ASSERT_EQUAL(r.calls, 3);
	fake_delete(f);
}

static void test_invalid(void)
{
	struct fake *f = fake_new(4096, false, 0), *b = fake_new(4096, true, 0);
	struct fr_ring_stream st;
	uint8_t buf[64];
	const uint8_t *recs;
	size_t len, nr;

	CU_ASSERT_FATAL(f != NULL && b != NULL);
	CU_ASSERT_EQUAL(fr_ring__stream_begin(f->ring, FR_RING_CHUNK_MIN, &st), -EINVAL);
	CU_ASSERT_EQUAL(fr_ring__stream_begin(b->ring, FR_RING_CHUNK_MIN - 8, &st), -EINVAL);
	memset(&st, 0, sizeof(st));
	CU_ASSERT_EQUAL(fr_ring__stream_next(b->ring, &st, buf, &recs, &len, &nr), -EINVAL);
	fake_delete(f);
	fake_delete(b);
}

/* A malformed header ends the walk: corrupt, the newer records delivered. */
static void test_corrupt(void)
{
	struct fake *f = fake_new(1 << 18, true, 0);
	struct perf_event_header h = { .type = 0, .size = 32 };
	struct fr_ring_stream st;
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	for (int i = 0; i < 4000; i++)
		CU_ASSERT(fake_write(f, 32));
	put_bytes(f, f->log[1000].pos, &h, sizeof(h));
	CU_ASSERT_EQUAL(stream_all(f, FR_RING_CHUNK_MIN, &st, &g), 0);
	CU_ASSERT(st.corrupt);
	CU_ASSERT(!st.full);
	CU_ASSERT_EQUAL(g.n, 2999);
	CU_ASSERT(g.n == 2999 && g.seq[0] == 1001 && g.seq[2998] == 3999);
	check_against_snapshot(f, &st, &g);
	got_free(&g);
	fake_delete(f);
}

/* ---- clones (fr_ring__clone_*) ---------------------------------------------- */

/* Stream ring r (begun in *st or not) to its end into g. */
static int stream_ring(struct fr_ring *r, size_t chunk_max, struct fr_ring_stream *st,
		       struct got *g, bool begun)
{
	uint8_t *buf = malloc(chunk_max);
	int err = 0;

	CU_ASSERT_FATAL(buf != NULL);
	if (!begun) {
		memset(g, 0, sizeof(*g));
		err = fr_ring__stream_begin(r, chunk_max, st);
	}
	while (!err) {
		const uint8_t *recs;
		size_t len, nr;
		int rc = fr_ring__stream_next(r, st, buf, &recs, &len, &nr);

		if (rc <= 0) {
			err = rc;
			break;
		}
		got_chunk(g, recs, len, nr);
	}
	free(buf);
	return err;
}

/* Precopies with the kernel writing between them (wrap counts: none, some,
 * more than a ring), then the paused copy: the clone holds the ring's head
 * and every written byte, and streams exactly as the quiet ring does. */
static void clone_case(uint64_t fill, size_t w1, size_t w2)
{
	struct fake *f = fake_new(1 << 19, true, 0);
	struct fr_ring *c = NULL;
	struct fr_ring_stream st, st2;
	struct got g, g2;
	size_t lim;

	CU_ASSERT_FATAL(f != NULL);
	while ((uint64_t)0 - f->head < fill)
		fake_write_n(f, 1);
	CU_ASSERT_EQUAL_FATAL(fr_ring__clone_new(f->ring, FR_RING_CHUNK_MIN, &c), 0);
	fr_ring__clone_precopy(f->ring, c);
	fake_write_n(f, w1);
	fr_ring__clone_precopy(f->ring, c);
	fake_write_n(f, w2);
	fr_ring__clone_copy(f->ring, c);   /* "paused": the fake writes nothing now */
	CU_ASSERT_EQUAL(fr_ring__control(c)->data_head, f->head);
	lim = (uint64_t)0 - f->head < f->size ? (size_t)((uint64_t)0 - f->head) : f->size;
	for (size_t k = 0; k < lim; k++) {
		size_t pos = (size_t)((f->head + k) & f->mask);

		if (((const uint8_t *)fr_ring__control(c) + f->ctl->data_offset)[pos] != f->data[pos]) {
			CU_FAIL("the clone differs from the ring in its written region");
			break;
		}
	}
	CU_ASSERT_EQUAL(stream_ring(c, FR_RING_CHUNK_MIN, &st, &g, false), 0);
	CU_ASSERT_EQUAL(stream_ring(f->ring, FR_RING_CHUNK_MIN, &st2, &g2, false), 0);
	CU_ASSERT(!g.bad && !g.out_of_order);
	CU_ASSERT_EQUAL(g.n, g2.n);
	CU_ASSERT(g.n > 0 && g.n == g2.n && !memcmp(g.seq, g2.seq, g.n * sizeof(*g.seq)));
	CU_ASSERT_EQUAL(st.raced, 0);
	CU_ASSERT_EQUAL(st.full, st2.full);
	got_free(&g);
	got_free(&g2);
	fr_ring__delete(c);
	fake_delete(f);
}

static void test_clone(void)
{
	clone_case(100000, 0, 0);            /* not wrapped, quiet */
	clone_case(100000, 300, 20);         /* not wrapped, written between */
	clone_case(3u << 19, 2000, 100);     /* wrapped, laps of the oldest end */
	clone_case(3u << 19, 20000, 5000);   /* more than a ring between the precopies */
	clone_case(3u << 19, 5, 20000);      /* ... and before the paused copy */
}

/* A stream begun on the ring goes on on its clone: what the kernel wrote
 * since begin is not delivered, what it overwrote is dropped (raced), the
 * rest is intact and in order. */
static void test_clone_goes_on(void)
{
	struct fake *f = fake_new(1 << 19, true, 0);
	struct fr_ring *c = NULL;
	struct fr_ring_stream st;
	struct got g;
	uint64_t newest, first_after;

	CU_ASSERT_FATAL(f != NULL);
	while ((uint64_t)0 - f->head < 2 * (uint64_t)f->size)
		fake_write_n(f, 1);
	newest = f->seq - 1;
	memset(&g, 0, sizeof(g));
	CU_ASSERT_EQUAL_FATAL(fr_ring__stream_begin(f->ring, FR_RING_CHUNK_MIN, &st), 0);
	first_after = f->seq;
	CU_ASSERT_EQUAL_FATAL(fr_ring__clone_new(f->ring, FR_RING_CHUNK_MIN, &c), 0);
	fake_write_n(f, 1000);
	fr_ring__clone_precopy(f->ring, c);
	fake_write_n(f, 500);
	fr_ring__clone_copy(f->ring, c);
	CU_ASSERT_EQUAL(stream_ring(c, FR_RING_CHUNK_MIN, &st, &g, true), 0);
	CU_ASSERT(!g.bad && !g.out_of_order);
	CU_ASSERT(g.n > 0 && g.seq[g.n - 1] == newest);
	for (size_t i = 0; i < g.n; i++)
		CU_ASSERT(g.seq[i] < first_after);
	CU_ASSERT(st.raced > 0);
	CU_ASSERT(st.full);
	got_free(&g);
	fr_ring__delete(c);
	fake_delete(f);
}

static const struct fr_test tests[] = {
	{ "stream: empty ring", test_empty },
	{ "stream: a ring not yet full is read only where written", test_partly_written },
	{ "stream: full rings in chunks, bounds anywhere", test_full },
	{ "stream: head anywhere, against the whole-ring snapshot", test_wrapped_anywhere },
	{ "stream: the kernel overwriting during the stream", test_race },
	{ "stream: whole ring overwritten during the walk", test_eagain },
	{ "stream: invalid calls", test_invalid },
	{ "stream: malformed header", test_corrupt },
	{ "clone: precopies, paused copy, the clone streams as the ring", test_clone },
	{ "clone: a stream begun on the ring goes on on its clone", test_clone_goes_on },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "ring stream", NULL, NULL, tests };
