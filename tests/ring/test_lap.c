/* tests/ring/test_lap.c: a backward ring's lapping reads (ring/stream.c,
 * the protocol in ring.h) against the fake kernel of tests/ring/fake.h:
 * records oldest first, no gap between reads, the newest kept when the
 * reader is lapped, the overwritten counted, nothing torn handed out when
 * the kernel writes during the copy, published or not.
 */
#include "ring/ring.h"
#include "ring/internal.h"

#include "tests/cunit.h"
#include "tests/ring/fake.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct got {
	uint64_t first, last;   /* sequence numbers of the first and last record handed out */
	size_t n;
	uint64_t bytes;
	bool bad, gap;
	int err;
};

/* One lapping read: every record checked whole and consecutive. */
static int read_once(struct fake *f, struct got *g)
{
	const struct perf_event_header *h;
	int ret = fr_ring__read_init(f->ring);

	memset(g, 0, sizeof(*g));
	if (ret)
		return ret;
	while ((h = fr_ring__read_event(f->ring, &g->err))) {
		uint64_t seq;

		if (!record_ok(h, &seq)) {
			g->bad = true;
			continue;
		}
		if (g->n && seq != g->last + 1)
			g->gap = true;
		if (!g->n)
			g->first = seq;
		g->last = seq;
		g->n++;
		g->bytes += h->size;
	}
	fr_ring__read_done(f->ring);
	return 0;
}

static void test_empty(void)
{
	struct fake *f = fake_new(4096, true, 0);
	struct got g;
	uint64_t b, n;

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(read_once(f, &g), -EAGAIN);
	CU_ASSERT_EQUAL(fr_ring__read_overwritten(f->ring, &b, &n), 0);
	fake_delete(f);
}

/* A reader that keeps up: reads follow each other without a gap or a loss,
 * each oldest first, and an idle ring reads nothing. */
static void test_keeps_up(void)
{
	struct fake *f = fake_new(8192, true, 0);
	uint64_t next = 0, b, n;
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	for (int round = 0; round < 200; round++) {
		uint64_t bytes = 0;

		/* under half the ring (the margin of a small ring) a round */
		while (bytes < 3000)
			bytes += fake_write_n(f, 1);
		CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
		CU_ASSERT(!g.bad && !g.gap && g.err == 0);
		CU_ASSERT_EQUAL(g.first, next);
		CU_ASSERT_EQUAL(g.last, f->seq - 1);
		CU_ASSERT_EQUAL(g.bytes, bytes);
		next = f->seq;
		CU_ASSERT_EQUAL(fr_ring__read_overwritten(f->ring, &b, &n), 0);
		CU_ASSERT_EQUAL(read_once(f, &g), -EAGAIN);
	}
	fake_delete(f);
}

/* Lapped: the read holds the newest records, consecutive up to the last
 * written; the bytes it did not get are counted exactly, the records they
 * were estimated within a quarter. */
static void test_lapped(void)
{
	struct fake *f = fake_new(8192, true, 0);
	uint64_t written = 0, b, n, seq0;
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	fake_write_n(f, 10);
	CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
	seq0 = f->seq;
	for (int i = 0; i < 1000; i++)
		written += fake_write_n(f, 1);
	CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
	CU_ASSERT(!g.bad && !g.gap && g.err == 0);
	CU_ASSERT_EQUAL(g.last, f->seq - 1);
	CU_ASSERT(g.bytes <= 8192 / 2 && g.bytes > 8192 / 2 - 256);
	CU_ASSERT_EQUAL(fr_ring__read_overwritten(f->ring, &b, &n), 1);
	CU_ASSERT_EQUAL(b + g.bytes, written);
	CU_ASSERT(n * 4 >= (g.first - seq0) * 3 && n * 4 <= (g.first - seq0) * 5);
	/* told once */
	CU_ASSERT_EQUAL(fr_ring__read_overwritten(f->ring, &b, &n), 0);
	/* and the next read goes on from there */
	fake_write_n(f, 5);
	CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
	CU_ASSERT(!g.bad && !g.gap && g.n == 5 && g.last == f->seq - 1);
	fake_delete(f);
}

/* many short reads in a row, each where the last ended */
static void test_many_reads(void)
{
	struct fake *f = fake_new(4096, true, 0);
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	fake_write_n(f, 3);
	CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
	CU_ASSERT(g.n == 3 && g.first == 0 && !g.bad);
	for (int i = 0; i < 300; i++) {
		fake_write_n(f, 7);
		CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
		CU_ASSERT(g.n == 7 && !g.bad && !g.gap && g.last == f->seq - 1);
	}
	fake_delete(f);
}

/* The kernel writes k records during each chunk's copy, published or (a
 * writer the reader cannot see yet: the earlier calls' published by then)
 * not: what is handed out is whole records, oldest first, ends at the
 * newest record of the read's head; records the copy raced may leave a
 * hole, counted: every byte written before the read is handed out or
 * counted overwritten. */
struct race {
	struct fake *f;
	size_t k;
	bool publish;
	int calls;
};

static void race_hook(struct fr_ring *ring, void *arg)
{
	struct race *r = arg;
	uint8_t rec[256];

	(void)ring;
	r->calls++;
	publish(r->f);
	for (size_t i = 0; i < r->k; i++) {
		if (r->publish) {
			fake_write(r->f, 200);
			continue;
		}
		/* reserved, written, not published: data_head does not show it */
		make_record(rec, r->f->seq, 200);
		memset(rec + 16, 0xab, 200 - 16);   /* a torn record: record_ok fails */
		r->f->head -= 200;
		put_bytes(r->f, r->f->head, rec, 200);
	}
}

static void race_case(size_t size, size_t k, bool publish)
{
	struct fake *f = fake_new(size, true, 0);
	struct race r = { .f = f, .k = k, .publish = publish };
	uint64_t newest, before, b = 0, n = 0;
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	while (0 - f->head < 2 * size)   /* lapped twice: the read is full */
		fake_write_n(f, 1);
	newest = f->seq - 1;
	before = 0 - f->head;
	fr_ring__set_copy_hook(f->ring, race_hook, &r);
	CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
	fr_ring__set_copy_hook(f->ring, NULL, NULL);
	CU_ASSERT(r.calls >= 1);
	CU_ASSERT(!g.bad);
	/* the newest kept, unless the kernel wrote half a ring or more
	 * during the read (then the newer chunks are gone before their copy) */
	CU_ASSERT(!g.n || g.last == newest || (0 - f->head) - before >= size / 2);
	CU_ASSERT(!g.gap || k > 0);
	CU_ASSERT_EQUAL(fr_ring__read_overwritten(f->ring, &b, &n), 1);
	CU_ASSERT_EQUAL(b + g.bytes, before);
	fake_delete(f);
}

static void test_race(void)
{
	for (size_t k = 0; k <= 12; k += 3) {
		race_case(4096, k, true);
		race_case(1u << 20, k * 100, true);
	}
}

/* Writers the reader cannot see (reserved and written, not published: at
 * most 4 records of 64 KiB in flight) overwrite the oldest end of what
 * data_head shows: the margin (2 KiB in a 4 KiB ring) keeps their bytes out
 * of what is handed out, before and during the copy. */
static void unpublished_case(size_t size, size_t k)
{
	struct fake *f = fake_new(size, true, 0);
	uint64_t newest, b, n;
	uint8_t rec[256];
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	while (0 - f->head < 2 * size)
		fake_write_n(f, 1);
	newest = f->seq - 1;
	for (size_t i = 0; i < k; i++) {
		make_record(rec, f->seq, 200);
		memset(rec + 16, 0xab, 200 - 16);   /* torn: record_ok fails */
		f->head -= 200;
		put_bytes(f, f->head, rec, 200);
	}
	CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
	CU_ASSERT(!g.bad && !g.gap && g.n > 0 && g.last == newest);
	CU_ASSERT_EQUAL(fr_ring__read_overwritten(f->ring, &b, &n), 1);
	fake_delete(f);
	/* and during the copy */
	for (size_t m = 1; m <= 2; m++)
		race_case(size, k * m, false);
}

static void test_unpublished(void)
{
	for (size_t k = 1; k <= 5; k++) {
		unpublished_case(4096, k * 2);
		unpublished_case(1u << 20, k * 250);
	}
}

static void test_corrupt(void)
{
	struct fake *f = fake_new(4096, true, 0);
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 12 };
	struct got g;

	CU_ASSERT_FATAL(f != NULL);
	fake_write_n(f, 4);
	/* the oldest record's header made malformed */
	put_bytes(f, f->log[0].pos, &bad, sizeof(bad));
	CU_ASSERT_EQUAL_FATAL(read_once(f, &g), 0);
	CU_ASSERT_EQUAL(g.err, -EBADMSG);
	CU_ASSERT(!g.bad && g.n == 3 && g.last == 3);
	fake_delete(f);
}

static const struct fr_test tests[] = {
	{ "lap: empty ring", test_empty },
	{ "lap: a reader that keeps up loses nothing", test_keeps_up },
	{ "lap: lapped, the newest kept and the rest counted", test_lapped },
	{ "lap: many short reads in a row", test_many_reads },
	{ "lap: the kernel writing during the copy", test_race },
	{ "lap: writers not yet published", test_unpublished },
	{ "lap: malformed header", test_corrupt },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "ring lapping reads", NULL, NULL, tests };
