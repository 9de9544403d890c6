/* tests/record/test_sbstore.c: CUnit suite for the per-CPU sideband store
 * between snapshots (src/record/sideband.c, struct sb_store): appends in
 * order, the oldest block dropped at the cap (half of a one-block store),
 * trims by time keep the newer records intact, LOST counts follow what is
 * held, and a trimmed store gives its memory back.
 */
#include "config.h"

#include "tests/cunit.h"
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "src/record/session_internal.h"

/* sample_id_all trailer: TIME alone */
#define ST PERF_SAMPLE_TIME

struct rec {                 /* a COMM-sized record: header, body, time */
	struct perf_event_header h;
	uint64_t seq;
	uint8_t body[40];
	uint64_t time;
};

static void append(struct sb_store *st, uint64_t seq, size_t cap)
{
	struct rec r = { { PERF_RECORD_COMM, 0, sizeof(r) }, seq, { 0 }, seq };

	memset(r.body, (int)(seq & 0xff), sizeof(r.body));
	CU_ASSERT_EQUAL_FATAL(fr_sb_store__append(st, &r.h, cap), 0);
}

struct run {
	uint64_t want;
	int bad;
};

static int run_cb(void *ctx, const struct perf_event_header *h)
{
	struct run *r = ctx;
	struct rec x;

	if (h->type == PERF_RECORD_LOST)
		return 0;
	memcpy(&x, h, sizeof(x));
	if (x.h.size != sizeof(x) || x.seq != r->want || x.time != r->want ||
	    x.body[7] != (uint8_t)(r->want & 0xff))
		r->bad++;
	r->want++;
	return 0;
}

/* The store holds seq first..last in order, each intact. */
static void check_run(const struct sb_store *st, uint64_t first, uint64_t last)
{
	struct run r = { first, 0 };

	CU_ASSERT_EQUAL(fr_sb_store__for_each(st, run_cb, &r), 0);
	CU_ASSERT_EQUAL(r.bad, 0);
	CU_ASSERT_EQUAL(r.want, last + 1);
}

/* 100 records of 64 bytes, blocks of 4 KiB (64 records): the first block
 * goes whole when the cap is reached. */
static void test_cap_drops_oldest_block(void)
{
	struct sb_store st = { 0 };
	const size_t cap = 100 * sizeof(struct rec);

	for (uint64_t i = 1; i <= 100; i++)
		append(&st, i, cap);
	CU_ASSERT_EQUAL(st.dropped, 0);
	CU_ASSERT_EQUAL(st.nr, 100);
	append(&st, 101, cap);
	CU_ASSERT_EQUAL(st.dropped, 64);
	CU_ASSERT_EQUAL(st.nr, 37);
	CU_ASSERT_EQUAL(st.bytes, 37 * sizeof(struct rec));
	check_run(&st, 65, 101);
	fr_sb_store__free(&st);
	CU_ASSERT_PTR_NULL(st.head);
}

/* A store whose cap fits in one block drops its oldest half. */
static void test_one_block_drops_half(void)
{
	struct sb_store st = { 0 };
	const size_t cap = 40 * sizeof(struct rec);

	for (uint64_t i = 1; i <= 41; i++)
		append(&st, i, cap);
	CU_ASSERT_EQUAL(st.dropped, 20);
	check_run(&st, 21, 41);
	fr_sb_store__free(&st);
}

/* A long storm at the cap: memory stays at the cap plus a few blocks (the
 * emptied ones are reused), every record kept is intact and in order. */
static void test_storm_bounded(void)
{
	struct sb_store st = { 0 };
	const size_t cap = 1u << 20;
	const uint64_t n = (16u << 20) / sizeof(struct rec);

	for (uint64_t i = 1; i <= n; i++)
		append(&st, i, cap);
	CU_ASSERT(st.bytes <= cap);
	CU_ASSERT(st.bytes > cap / 2);
	CU_ASSERT(fr_sb_store__mem(&st) <= cap + 6 * (cap / 8 + 64));
	CU_ASSERT_EQUAL(st.nr + st.dropped, n);
	check_run(&st, n - st.nr + 1, n);
	fr_sb_store__free(&st);
}

static int lost_cb(void *ctx, const struct perf_event_header *h)
{
	uint64_t *sum = ctx;

	if (h->type == PERF_RECORD_LOST)
		*sum += ((const uint64_t *)(h + 1))[1];
	return 0;
}

/* LOST records among the others, through many drops at the cap and a trim:
 * st->lost is always the sum of the LOST records held. */
static void test_lost_follows_held(void)
{
	struct sb_store st = { 0 };
	struct { struct perf_event_header h; uint64_t id, lost, time; } l = {
		{ PERF_RECORD_LOST, 0, sizeof(l) }, 0, 0, 0 };
	const size_t cap = 100 * sizeof(struct rec);
	int off = 0;

	for (uint64_t i = 1; i <= 1000; i++) {
		uint64_t sum = 0;

		if (i % 25 == 0) {
			l.lost = i;
			l.time = i;
			CU_ASSERT_EQUAL_FATAL(fr_sb_store__append(&st, &l.h, cap), 0);
		} else {
			append(&st, i, cap);
		}
		fr_sb_store__for_each(&st, lost_cb, &sum);
		off += sum != st.lost;
	}
	CU_ASSERT_EQUAL(off, 0);
	CU_ASSERT(st.dropped > 0);
	CU_ASSERT(st.lost > 0);
	fr_sb_store__trim_before(&st, 10000, ST);   /* everything is older */
	CU_ASSERT_EQUAL(st.nr, 0);
	CU_ASSERT_EQUAL(st.lost, 0);
	CU_ASSERT_EQUAL(st.bytes, 0);
	fr_sb_store__free(&st);
}

/* A record larger than the blocks gets a block of its own. */
static void test_big_record(void)
{
	struct sb_store st = { 0 };
	uint8_t big[9000] = { 0 };
	struct perf_event_header *h = (void *)big;

	h->type = PERF_RECORD_MMAP2;
	h->size = sizeof(big);
	append(&st, 1, 64u << 10);
	CU_ASSERT_EQUAL(fr_sb_store__append(&st, h, 64u << 10), 0);
	append(&st, 2, 64u << 10);
	CU_ASSERT_EQUAL(st.nr, 3);
	CU_ASSERT_EQUAL(st.bytes, 2 * sizeof(struct rec) + sizeof(big));
	fr_sb_store__free(&st);
}

/* A burst grows the store; a trim leaves the newer records intact, frees
 * the blocks it empties and the spare ones; the store grows again. */
static void test_trim_gives_back(void)
{
	struct sb_store st = { 0 };
	const uint64_t burst = (8u << 20) / sizeof(struct rec);   /* 8 MiB of records */
	size_t peak;

	for (uint64_t i = 1; i <= burst; i++)
		append(&st, i, 64u << 20);
	peak = fr_sb_store__mem(&st);
	CU_ASSERT(peak >= 8u << 20);
	fr_sb_store__trim_before(&st, burst - 999, ST);   /* the newest 1000 stay */
	check_run(&st, burst - 999, burst);
	CU_ASSERT_EQUAL(st.nr, 1000);
	CU_ASSERT(fr_sb_store__mem(&st) <= 2 * ((256u << 10) + 64));
	for (uint64_t i = burst + 1; i <= burst + 30000; i++)
		append(&st, i, 64u << 20);
	check_run(&st, burst - 999, burst + 30000);
	fr_sb_store__trim_before(&st, burst - 900, ST);
	check_run(&st, burst - 900, burst + 30000);
	CU_ASSERT_EQUAL(st.nr, 30901);
	fr_sb_store__free(&st);
}

static const struct fr_test tests[] = {
	{ "over the cap the oldest block goes", test_cap_drops_oldest_block },
	{ "a one-block store drops its oldest half", test_one_block_drops_half },
	{ "a storm at the cap: memory bounded, records intact", test_storm_bounded },
	{ "LOST counts follow the records held", test_lost_follows_held },
	{ "a record larger than a block", test_big_record },
	{ "a trim frees blocks, keeps the newer records", test_trim_gives_back },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "sbstore", NULL, NULL, tests };
