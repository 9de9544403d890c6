/* tests/record/test_sbstore.c: CUnit suite for the per-CPU sideband store
 * between snapshots (src/record/sideband.c, struct sb_store): appends in
 * order, the oldest half dropped at the cap, trims by time keep the newer
 * records intact, and a store emptied by a trim gives its memory back.
 */
#include "config.h"

#include "tests/cunit.h"
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "src/record/internal.h"

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

/* The store holds seq first..last in order, each intact. */
static void check_run(const struct sb_store *st, uint64_t first, uint64_t last)
{
	size_t off = 0;
	uint64_t want = first;

	CU_ASSERT_EQUAL(st->nr, last - first + 1);
	while (off < st->len) {
		struct rec r;

		memcpy(&r, st->buf + off, sizeof(r));
		CU_ASSERT_EQUAL_FATAL(r.h.size, sizeof(r));
		CU_ASSERT_EQUAL(r.seq, want);
		CU_ASSERT_EQUAL(r.time, want);
		CU_ASSERT_EQUAL(r.body[7], (uint8_t)(want & 0xff));
		off += r.h.size;
		want++;
	}
	CU_ASSERT_EQUAL(want, last + 1);
}

static void test_cap_drops_oldest_half(void)
{
	struct sb_store st = { 0 };
	const size_t cap = 100 * sizeof(struct rec);

	for (uint64_t i = 1; i <= 100; i++)
		append(&st, i, cap);
	CU_ASSERT_EQUAL(st.dropped, 0);
	append(&st, 101, cap);   /* over the cap: 1..50 go */
	CU_ASSERT_EQUAL(st.dropped, 50);
	check_run(&st, 51, 101);
	free(st.buf);
}

/* A burst grows the store; once a trim leaves it under a quarter full it
 * shrinks to twice what it holds (at least 1 MiB), and what it holds is
 * unchanged. */
static void test_trim_shrinks(void)
{
	struct sb_store st = { 0 };
	const uint64_t burst = (8u << 20) / sizeof(struct rec);   /* 8 MiB of records */
	size_t peak;

	for (uint64_t i = 1; i <= burst; i++)
		append(&st, i, 64u << 20);
	peak = st.cap;
	CU_ASSERT(peak >= 8u << 20);
	fr_sb_store__trim_before(&st, burst - 999, ST);   /* the newest 1000 stay */
	check_run(&st, burst - 999, burst);
	CU_ASSERT(st.cap < peak / 4);
	CU_ASSERT_EQUAL(st.cap, 1u << 20);    /* 2 x 64 KB is under the 1 MiB floor */
	/* it grows again as needed */
	for (uint64_t i = burst + 1; i <= burst + 30000; i++)
		append(&st, i, 64u << 20);
	check_run(&st, burst - 999, burst + 30000);
	/* a trim that keeps most of it does not shrink it */
	peak = st.cap;
	fr_sb_store__trim_before(&st, burst - 900, ST);
	CU_ASSERT_EQUAL(st.cap, peak);
	check_run(&st, burst - 900, burst + 30000);
	free(st.buf);
}

static const struct fr_test tests[] = {
	{ "over the cap the oldest half goes", test_cap_drops_oldest_half },
	{ "a trimmed store gives memory back, keeps its records", test_trim_shrinks },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "sbstore", NULL, NULL, tests };
