/* tests/record/test_wrate.c: which waits' stacks the offcpu event keeps
 * (src/record/waits_rate.h, run by waits.bpf.c): every long wait; short
 * ones in proportion to their length at the CPU's scale, which follows the
 * budget under a heavy load and stays at the threshold under a light one;
 * a burst doubling it at once; and the estimate of the short waits' time
 * (each kept one weighs its scale) unbiased through all of it.
 */
#include "config.h"

#include <math.h>

#include "tests/cunit.h"

#include "src/record/waits_rate.h"

#define US 1000ull
#define MS 1000000ull
#define THRESH (10 * MS)
#define TARGET 12u   /* 50 a second, a period of 250 ms */
#define T0 (1000 * 1000 * MS)   /* the first tick's CLOCK_MONOTONIC time */

/* xorshift64*: deterministic, good enough for 32-bit draws */
static __u64 rng = 0x9e3779b97f4a7c15ull;

static __u32 rnd32(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (__u32)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

struct run {
	__u64 kept, kept_long, weight, short_ns, max_scale;
};

/* secs seconds of one CPU: waits of len ns (a short one, or every
 * every_long-th one 50 ms long when every_long > 0), nr_per_tick of them
 * each tick, a tick every tick_ms. */
static void simulate_ticks(struct fr_wrate *r, int secs, unsigned tick_ms, unsigned nr_per_tick,
			   __u64 len, unsigned every_long, struct run *out)
{
	unsigned n = 0;

	for (unsigned tick = 0; tick < secs * 1000u / tick_ms; tick++) {
		for (unsigned i = 0; i < nr_per_tick; i++) {
			__u64 d = every_long && ++n % every_long == 0 ? 50 * MS : len;
			__u64 s = fr_wrate__keep(r, d, THRESH, d < THRESH ? rnd32() : 0, TARGET);

			if (d < THRESH)
				out->short_ns += d;
			if (!s)
				continue;
			out->kept++;
			if (d >= THRESH) {
				CU_ASSERT_EQUAL(s, THRESH);
				out->kept_long++;
				continue;
			}
			CU_ASSERT(s >= THRESH);
			out->weight += s;   /* d kept with probability d / s: it weighs s */
			if (s > out->max_scale)
				out->max_scale = s;
		}
		fr_wrate__tick(r, T0 + (__u64)tick * tick_ms * MS, THRESH, TARGET);
	}
}

/* ... a tick every 10 ms, as the CPU clock's */
static void simulate(struct fr_wrate *r, int secs, unsigned nr_per_tick, __u64 len,
		     unsigned every_long, struct run *out)
{
	simulate_ticks(r, secs, 10, nr_per_tick, len, every_long, out);
}

/* A light load (a wait of 1 ms a tick: 10 stacks a second at the
 * threshold, a fifth of the budget): the scale stays at the threshold,
 * every kept wait weighs it, as without a budget. */
static void test_light(void)
{
	struct fr_wrate r = { 0 };
	struct run o = { 0 };

	simulate(&r, 20, 1, 1 * MS, 0, &o);
	CU_ASSERT_EQUAL(o.max_scale, THRESH);
	CU_ASSERT(r.scale <= THRESH);
	CU_ASSERT(o.kept > 100 && o.kept < 300);
}

/* A heavy load: 400 waits of 200 us a tick (8 s of waits a second, 800
 * stacks a second at the threshold): the kept ones settle near the budget
 * (48 a second: the scale near 170 ms), and their weights still add up to
 * the short waits' time. */
static void test_heavy(void)
{
	struct fr_wrate r = { 0 };
	struct run o = { 0 };
	double rate, err;

	simulate(&r, 60, 400, 200 * US, 0, &o);
	rate = (double)o.kept / 60;
	CU_ASSERT(rate > 35 && rate < 75);
	CU_ASSERT(r.scale > 10 * THRESH && r.scale < 30 * THRESH);
	/* the estimate's sd is sqrt(sum d (s - d)) <= sqrt(max_scale * total) */
	err = fabs((double)o.weight - (double)o.short_ns);
	CU_ASSERT(err < 4 * sqrt((double)o.max_scale * (double)o.short_ns));
	CU_ASSERT(err < 0.1 * (double)o.short_ns);
}

/* Every long wait is kept at the threshold whatever the scale, and none of
 * them counts against the budget. */
static void test_long_always(void)
{
	struct fr_wrate r = { 0 };
	struct run o = { 0 };

	simulate(&r, 10, 40, 200 * US, 10, &o);   /* every 10th wait 50 ms */
	CU_ASSERT_EQUAL(o.kept_long, 10 * 100 * 40 / 10);
	CU_ASSERT(o.kept - o.kept_long < 10 * 100);   /* short ones near the budget */
}

/* A burst within a period (100,000 waits of just under 10 ms, each kept at
 * the threshold): past twice the target the scale doubles at once, up to
 * its maximum, so a few hundred are kept, not 100,000; a quiet period
 * brings it back down. */
static void test_burst(void)
{
	struct fr_wrate r = { 0 };
	unsigned kept = 0;

	for (int i = 0; i < 100000; i++)
		kept += fr_wrate__keep(&r, THRESH - 1, THRESH, rnd32(), TARGET) != 0;
	CU_ASSERT(r.scale <= FR_WRATE_MAX_SCALE);
	CU_ASSERT(r.scale > FR_WRATE_MAX_SCALE / 2);
	/* ~TARGET a doubling (8 of them), then d / 2.56 s of each */
	CU_ASSERT(kept > 100 && kept < 700);
	/* halving (at least) each quiet period */
	for (__u64 t = 0; t <= 40 * FR_WRATE_PERIOD_NS; t += 10 * MS)
		fr_wrate__tick(&r, T0 + t, THRESH, TARGET);
	CU_ASSERT_EQUAL(r.scale, THRESH);
}

/* The same heavy load with a tick every 200 ms (a slow or throttled
 * clock): a period runs to 400 ms and counts for its length, so the budget
 * a second still holds (counted as 250 ms, it would keep 30 a second); and a clock that goes back starts a new period
 * rather than dividing by a period of none. */
static void test_late_ticks(void)
{
	struct fr_wrate r = { 0 };
	struct run o = { 0 };
	double rate;

	simulate_ticks(&r, 60, 200, 8000, 200 * US, 0, &o);
	rate = (double)o.kept / 60;
	CU_ASSERT(rate > 35 && rate < 75);
	CU_ASSERT(r.scale > 10 * THRESH && r.scale < 30 * THRESH);
	fr_wrate__tick(&r, T0, THRESH, TARGET);
	CU_ASSERT_EQUAL(r.start, T0);
	fr_wrate__tick(&r, T0 + MS, THRESH, TARGET);
	CU_ASSERT_EQUAL(r.start, T0);
}

static const struct fr_test tests[] = {
	{ "light load: the threshold", test_light },
	{ "heavy load: the budget, unbiased", test_heavy },
	{ "long waits always", test_long_always },
	{ "a burst", test_burst },
	{ "late ticks: periods by time", test_late_ticks },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "waits_rate", NULL, NULL, tests };
