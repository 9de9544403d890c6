/* tests/record/test_wclock.c: the offcpu event's switch times
 * (src/record/waits_clock.h, run by waits.bpf.c): the rq clock put on
 * CLOCK_MONOTONIC through the freshest calibration, a stale rq clock
 * refused, drift followed, and no CPU's times going back.
 */
#include "config.h"

#include "tests/cunit.h"

#include "src/record/waits_clock.h"

#define US 1000ull
#define MS 1000000ull
#define OFF (5 * MS)   /* CLOCK_MONOTONIC ahead of the rq clock, as on the development VM */

/* Fresh pairs: a switch's time is its rq clock plus the offset. */
static void test_fresh(void)
{
	struct fr_wclock c = { 0 };

	fr_wclock__calibrate(&c, 1000 * MS + OFF, 1000 * MS);
	CU_ASSERT_EQUAL(c.off, (__s64)OFF);
	CU_ASSERT_EQUAL(fr_wclock__time(&c, 1000 * MS + 250 * US, 0), 1000 * MS + 250 * US + OFF);
	CU_ASSERT_EQUAL(fr_wclock__time(&c, 1001 * MS, 0), 1001 * MS + OFF);
}

/* A calibration whose rq clock was not updated (0.4 ms behind) would put
 * the batch 0.4 ms late: refused, the offset kept; a fresher one, read
 * sooner after the update than the first, lowers it. */
static void test_stale_refused(void)
{
	struct fr_wclock c = { 0 };

	fr_wclock__calibrate(&c, 1000 * MS + OFF + 2 * US, 1000 * MS);   /* read 2 us after */
	fr_wclock__calibrate(&c, 1010 * MS + OFF, 1010 * MS - 400 * US);  /* stale */
	CU_ASSERT_EQUAL(c.off, (__s64)(OFF + 2 * US));
	CU_ASSERT_EQUAL(c.at, 1000 * MS + OFF + 2 * US);
	CU_ASSERT_EQUAL(fr_wclock__time(&c, 1010 * MS, 0), 1010 * MS + OFF + 2 * US);
	fr_wclock__calibrate(&c, 1020 * MS + OFF + 1 * US, 1020 * MS);    /* fresher */
	CU_ASSERT_EQUAL(c.off, (__s64)(OFF + 1 * US));
}

/* CLOCK_MONOTONIC gaining 500 ppm on the rq clock (NTP's most): each
 * fresh calibration is taken, so times stay within the calibrations'
 * spacing times the drift; a rise past the allowance is refused. */
static void test_drift(void)
{
	struct fr_wclock c = { 0 };
	__u64 clk = 1000 * MS, kt = clk + OFF;

	fr_wclock__calibrate(&c, kt, clk);
	for (int i = 0; i < 100; i++) {
		clk += 10 * MS;
		kt += 10 * MS + 5 * US;   /* 500 ppm */
		fr_wclock__calibrate(&c, kt, clk);
		CU_ASSERT_EQUAL_FATAL(c.at, kt);
		CU_ASSERT_EQUAL(fr_wclock__time(&c, clk, 0), kt);
	}
	/* 20 us in 10 ms (2000 ppm): no clock drifts so; the rq clock was stale */
	fr_wclock__calibrate(&c, kt + 10 * MS + 20 * US, clk + 10 * MS);
	CU_ASSERT_EQUAL(c.at, kt);
}

/* No CPU's times go back: a stale rq clock after a fresh one, a lowered
 * offset, and the CLOCK_MONOTONIC fallback (clk 0) all give at least the
 * CPU's last. */
static void test_monotonic(void)
{
	struct fr_wclock c = { 0 };
	__u64 t;

	fr_wclock__calibrate(&c, 1000 * MS + OFF + 3 * US, 1000 * MS);
	t = fr_wclock__time(&c, 1000 * MS + 100 * US, 0);
	CU_ASSERT_EQUAL(fr_wclock__time(&c, 1000 * MS + 20 * US, 0), t);
	fr_wclock__calibrate(&c, 1000 * MS + 200 * US + OFF, 1000 * MS + 200 * US);
	CU_ASSERT_EQUAL(c.off, (__s64)OFF);
	CU_ASSERT(fr_wclock__time(&c, 1000 * MS + 101 * US, 0) >= t);
	CU_ASSERT_EQUAL(fr_wclock__time(&c, 0, 1000 * MS), c.last);
	CU_ASSERT_EQUAL(fr_wclock__time(&c, 0, 1002 * MS + OFF), 1002 * MS + OFF);
}

static const struct fr_test tests[] = {
	{ "fresh calibration", test_fresh },
	{ "stale rq clock refused", test_stale_refused },
	{ "drift followed", test_drift },
	{ "times never go back", test_monotonic },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "waits_clock", NULL, NULL, tests };
