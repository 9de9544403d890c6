/* tests/record/test_latency.c: --trigger-latency's pair matching
 * (src/record/latency.c) from records given out of order, as the CPUs'
 * rings are read one after the other: pairs across CPUs, an END read before
 * its BEGIN, pairs begun before the recording, the horizon, a loss, many
 * threads.
 */
#include "config.h"

#include "tests/cunit.h"
#include <stdlib.h>

#include "src/record/latency.h"

#define MS 1000000ull

static struct fr_latency *l;

static int init(void)
{
	return fr_latency__new(100 * MS, &l);
}

static int clean(void)
{
	fr_latency__delete(l);
	return 0;
}

/* A pair whose END (CPU 1) is read before its BEGIN (CPU 0): matched in
 * time order; shorter pairs of other threads between are not hits. */
static void test_across_cpus(void)
{
	struct fr_latency_hit hit;
	unsigned more;

	CU_ASSERT_EQUAL(fr_latency__add(l, false, 7, 8, 1, 1000 * MS), 0);   /* CPU 1's ring first */
	CU_ASSERT_EQUAL(fr_latency__add(l, true, 9, 9, 1, 880 * MS), 0);
	CU_ASSERT_EQUAL(fr_latency__add(l, true, 7, 8, 0, 700 * MS), 0);    /* then CPU 0's */
	CU_ASSERT_EQUAL(fr_latency__add(l, false, 9, 9, 0, 890 * MS), 0);
	CU_ASSERT_EQUAL(fr_latency__run(l, 2000 * MS, &hit, &more), 1);
	CU_ASSERT(hit.tid == 8 && hit.pid == 7 && hit.cpu == 1 && hit.begin == 700 * MS &&
		  hit.end == 1000 * MS && more == 0);
	CU_ASSERT_EQUAL(fr_latency__run(l, 3000 * MS, &hit, &more), 0);   /* nothing held */
}

/* Records past the horizon wait for the next run: the END of a long pair
 * is not matched before its time. */
static void test_horizon(void)
{
	struct fr_latency_hit hit;
	unsigned more;

	fr_latency__add(l, true, 1, 10, 0, 4000 * MS);
	fr_latency__add(l, false, 1, 10, 0, 4500 * MS);
	CU_ASSERT_EQUAL(fr_latency__run(l, 4200 * MS, &hit, &more), 0);
	CU_ASSERT_EQUAL(fr_latency__run(l, 4600 * MS, &hit, &more), 1);
	CU_ASSERT(hit.tid == 10 && hit.end - hit.begin == 500 * MS);
}

/* An END without a BEGIN (begun before the recording) is ignored, and a
 * stale BEGIN (read after its END had been matched) is not paired with
 * the thread's next END. */
static void test_unpaired(void)
{
	struct fr_latency_hit hit;
	unsigned more;

	fr_latency__add(l, false, 2, 20, 0, 5000 * MS);   /* begun before */
	CU_ASSERT_EQUAL(fr_latency__run(l, 5001 * MS, &hit, &more), 0);
	fr_latency__add(l, true, 2, 20, 1, 4990 * MS);    /* that END's BEGIN, read late */
	CU_ASSERT_EQUAL(fr_latency__run(l, 5002 * MS, &hit, &more), 0);
	fr_latency__add(l, false, 2, 20, 0, 5500 * MS);   /* the next END: no BEGIN of its own */
	CU_ASSERT_EQUAL(fr_latency__run(l, 6000 * MS, &hit, &more), 0);
}

/* A loss drops what is open; several hits in one run: the first and a count. */
static void test_lost_and_more(void)
{
	struct fr_latency_hit hit;
	unsigned more;
	uint64_t pairs, dropped, d0;

	fr_latency__stats(l, &pairs, &d0);
	fr_latency__add(l, true, 3, 30, 0, 7000 * MS);
	CU_ASSERT_EQUAL(fr_latency__run(l, 7001 * MS, &hit, &more), 0);
	fr_latency__lost(l);
	fr_latency__add(l, false, 3, 30, 0, 7300 * MS);
	CU_ASSERT_EQUAL(fr_latency__run(l, 7400 * MS, &hit, &more), 0);
	fr_latency__stats(l, &pairs, &dropped);
	CU_ASSERT_EQUAL(dropped, d0 + 1);
	for (uint32_t t = 100; t < 103; t++) {
		fr_latency__add(l, true, t, t, 0, 8000 * MS + t);
		fr_latency__add(l, false, t, t, 1, 8200 * MS + t);
	}
	CU_ASSERT_EQUAL(fr_latency__run(l, 9000 * MS, &hit, &more), 1);
	CU_ASSERT(hit.tid == 100 && more == 2);
}

/* More threads with a pair open than the table holds: it starts over,
 * their BEGINs dropped, and pairs go on being matched. */
static void test_many_threads(void)
{
	struct fr_latency_hit hit;
	unsigned more;

	for (uint32_t t = 1; t <= 70000; t++)
		CU_ASSERT_FATAL(fr_latency__add(l, true, t, 1000000 + t, 0, 10000 * MS + t) == 0);
	CU_ASSERT_EQUAL(fr_latency__run(l, 11000 * MS, &hit, &more), 0);
	fr_latency__add(l, true, 5, 5, 0, 12000 * MS);
	fr_latency__add(l, false, 5, 5, 0, 12150 * MS);
	CU_ASSERT_EQUAL(fr_latency__run(l, 13000 * MS, &hit, &more), 1);
	CU_ASSERT(hit.tid == 5 && hit.end - hit.begin == 150 * MS);
}

/* Three CPUs' rings, each read whole in turn: 3000 threads, each BEGIN on
 * one CPU and its END on another; every tenth pair too long. All matched
 * (the runs merged in time order), the long ones counted. */
static void test_three_rings(void)
{
	struct fr_latency_hit hit;
	unsigned more;
	uint64_t p0, p1, d;

	fr_latency__stats(l, &p0, &d);
	for (uint32_t cpu = 0; cpu < 3; cpu++)
		for (uint32_t t = 0; t < 3000; t++) {
			uint64_t b = 20000 * MS + t * MS, e = b + (t % 10 ? 5 * MS : 200 * MS);

			if (t % 3 == cpu)
				fr_latency__add(l, true, 1, 200000 + t, cpu, b);
			if ((t + 1) % 3 == cpu)
				fr_latency__add(l, false, 1, 200000 + t, cpu, e);
		}
	CU_ASSERT_EQUAL(fr_latency__run(l, 30000 * MS, &hit, &more), 1);
	CU_ASSERT(hit.tid == 200000 && hit.end - hit.begin == 200 * MS && more == 299);
	fr_latency__stats(l, &p1, &d);
	CU_ASSERT_EQUAL(p1 - p0, 3000);
}

static const struct fr_test tests[] = {
	{ "a pair across CPUs, its END read first", test_across_cpus },
	{ "records past the horizon wait", test_horizon },
	{ "no BEGIN, a stale BEGIN: no pair", test_unpaired },
	{ "a loss drops open pairs; several hits", test_lost_and_more },
	{ "more threads than the table holds", test_many_threads },
	{ "three rings read in turn: the runs merged", test_three_rings },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "latency", init, clean, tests };
