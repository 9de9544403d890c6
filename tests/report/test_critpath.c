/* tests/report/test_critpath.c: CUnit suite for report --critical-path
 * (src/report/offcpu/critpath.c) on synthetic switches, wakeups and samples:
 * a wait followed into its waker's time (the waker's own wait and its run,
 * named from its samples), the runnable time after the wakeup, leaf rows
 * that add up to the path; a waker cycle (a hostile file) stopped, not
 * followed; wakers followed at most 8 deep; a thread not seen; a range
 * (--time) cutting the path, waits begun before it named.
 */
#include "config.h"

#include "tests/cunit.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/offcpu/offcpu.h"

static const struct fr_sym s_main = { "main", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_wait = { "wait_lock", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_nap = { "nap", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_hold = { "hold_lock", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_unlock = { "pthread_mutex_unlock", "/usr/lib/libc.so.6",
					"libc.so.6", false, false, false, 0 };
static const struct fr_sym s_sched = { "schedule", "[kernel.kallsyms]", "[kernel.kallsyms]", true,
				       false, false, 0 };
static const struct fr_frame st_wait[] = { { &s_sched, NULL, 0, 1, 0, 0 },
					   { &s_wait, NULL, 0, 2, 0, 0 },
					   { &s_main, NULL, 0, 3, 0, 0 } };
static const struct fr_frame st_nap[] = { { &s_sched, NULL, 0, 1, 0, 0 },
					  { &s_nap, NULL, 0, 4, 0, 0 },
					  { &s_hold, NULL, 0, 5, 0, 0 } };
static const struct fr_frame st_unlock[] = { { &s_unlock, NULL, 0, 6, 0, 0 },
					     { &s_hold, NULL, 0, 7, 0, 0 },
					     { &s_main, NULL, 0, 3, 0, 0 } };
static const struct fr_frame st_hold[] = { { &s_hold, NULL, 0, 8, 0, 0 },
					   { &s_main, NULL, 0, 3, 0, 0 } };

#define MS 1000000ull
#define T0 (1000 * MS)
#define T1 (2000 * MS)

struct fix {
	struct fr_offcpu *oc;
	struct fr_wakers *wk;
	struct fr_critpath *cp;
};

static void fix_new(struct fix *x)
{
	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, true, &x->oc) == 0);
	CU_ASSERT_FATAL(fr_wakers__new(&x->wk) == 0);
	CU_ASSERT_FATAL(fr_critpath__new(&x->cp) == 0);
	fr_wakers__keep_joins(x->wk);
	fr_offcpu__set_wakers(x->oc, x->wk);
}

static void fix_delete(struct fix *x)
{
	fr_critpath__delete(x->cp);
	fr_offcpu__delete(x->oc);
	fr_wakers__delete(x->wk);
}

static void out(struct fix *x, uint32_t tid, uint64_t ms, const struct fr_frame *st, size_t n)
{
	struct fr_rsample s = { .pid = 7, .tid = tid, .comm = "app", .frames = st, .nr_frames = n,
				.has_stack = true };

	CU_ASSERT_EQUAL(fr_offcpu__switch_out(x->oc, 7, tid, T0 + ms * MS, FR_WAIT_S, &s), 0);
}

/* tid woken at ms by waker (its stack: pthread_mutex_unlock <- hold_lock),
 * or by no one known (waker 0: a timer) */
static void wake(struct fix *x, uint32_t tid, uint64_t ms, uint32_t waker)
{
	struct fr_rsample k = { .pid = 7, .tid = waker, .comm = "app", .frames = st_unlock,
				.nr_frames = 3, .has_stack = true };

	if (!waker) {
		CU_ASSERT_EQUAL(fr_offcpu__wakeup(x->oc, tid, T0 + ms * MS), 0);
		return;
	}
	CU_ASSERT_EQUAL(fr_offcpu__woken_by(x->oc, tid, T0 + ms * MS, 7, waker), 0);
	CU_ASSERT_EQUAL(fr_wakers__wakeup(x->wk, tid, T0 + ms * MS, &k), 0);
}

static void in(struct fix *x, uint32_t tid, uint64_t ms)
{
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(x->oc, tid, T0 + ms * MS), 0);
}

static char *print_range(struct fix *x, uint32_t tid, uint64_t from, uint64_t to, int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	*err = fr_critpath__print(x->cp, x->oc, tid, from, to, 0.0, f);
	fclose(f);
	return buf;
}

static char *print(struct fix *x, uint32_t tid, int *err)
{
	return print_range(x, tid, 0, UINT64_MAX, err);
}

/* The table's rows (before the path): the ms of those of tid whose text has
 * what (NULL: every row), and how many rows matched. */
static double rows(const char *buf, uint32_t tid, const char *what, unsigned *n)
{
	const char *end = strstr(buf, "# the path in time order");
	double sum = 0;

	*n = 0;
	for (const char *l = buf; l && *l && (!end || l < end); l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		double ms, pct;
		unsigned t;
		const char *eol = strchr(l, '\n');
		char line[512];
		size_t len = eol ? (size_t)(eol - l) : strlen(l);

		if (l[0] == '#' || len >= sizeof(line))
			continue;
		memcpy(line, l, len);
		line[len] = '\0';
		if (sscanf(line, "%lf %lf%% %u", &ms, &pct, &t) != 3)
			continue;
		if ((tid && t != tid) || (what && !strstr(line, what)))
			continue;
		sum += ms;
		(*n)++;
	}
	return sum;
}

/* A (10) waits in wait_lock from +100 until B (20) wakes it at +400, and
 * runs at +410; B napped from +50 until a timer at +300, ran from +305
 * (sampled in hold_lock) and woke A. A's path: running 100, B's nap 205 (its
 * wakeup not recorded), B running hold_lock 95, A runnable 10, A running
 * 590: 1000 ms. */
static void test_followed(void)
{
	struct fix x;
	struct fr_rsample smp = { .pid = 7, .tid = 20, .comm = "app", .time = T0 + 350 * MS,
				  .frames = st_hold, .nr_frames = 2, .has_stack = true };
	unsigned n;
	int err;
	char *buf;

	fix_new(&x);
	out(&x, 20, 50, st_nap, 3);
	out(&x, 10, 100, st_wait, 3);
	wake(&x, 20, 300, 0);
	in(&x, 20, 305);
	wake(&x, 10, 400, 20);
	in(&x, 10, 410);
	CU_ASSERT_EQUAL(fr_critpath__sample(x.cp, &smp), 0);
	smp.time = T0 + 390 * MS;
	CU_ASSERT_EQUAL(fr_critpath__sample(x.cp, &smp), 0);
	CU_ASSERT_EQUAL(fr_offcpu__finish(x.oc), 0);
	buf = print(&x, 10, &err);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT(strstr(buf, "# critical path of thread 10 (app)") != NULL);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 0, NULL, &n), 1000.0, 0.01);   /* the leaves add up */
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 20, "sleeping in nap <- hold_lock: its wakeup was not", &n),
			       205.0, 0.001);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 20, "running hold_lock (2 samples)", &n), 95.0, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 10, "runnable: woken", &n), 10.0, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 10, "running (no sample)", &n), 690.0, 0.001);
	/* the path: A's wait names its waker in hold_lock, B's time indented under it */
	CU_ASSERT(strstr(buf, "sleeping in wait_lock <- main: woken by 20 app in "
			      "pthread_mutex_unlock <- hold_lock <- main") != NULL);
	CU_ASSERT(strstr(buf, "    20 app") != NULL);
	free(buf);
	/* a range (--time) from inside both waits: B's nap from the range's
	 * start, named by the stack of its switch-out before it */
	buf = print_range(&x, 10, T0 + 200 * MS, T0 + 450 * MS, &err);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 0, NULL, &n), 250.0, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 20, "sleeping in nap <- hold_lock", &n), 105.0, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 20, "running hold_lock", &n), 95.0, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 10, "running (no sample)", &n), 40.0, 0.001);
	free(buf);
	buf = print_range(&x, 10, T1 + MS, T1 + 2 * MS, &err);   /* not alive then */
	CU_ASSERT_EQUAL(err, -ESRCH);
	free(buf);
	fix_delete(&x);
}

/* A file whose wakers make a cycle (B woken by A while A itself waits for
 * B: not possible, but a file is hostile): the cycle is said, not walked,
 * and the leaves still add up. */
static void test_cycle(void)
{
	struct fix x;
	unsigned n;
	int err;
	char *buf;

	fix_new(&x);
	out(&x, 10, 100, st_wait, 3);
	out(&x, 20, 150, st_nap, 3);
	wake(&x, 20, 350, 10);
	in(&x, 20, 350);
	wake(&x, 10, 400, 20);
	in(&x, 10, 400);
	CU_ASSERT_EQUAL(fr_offcpu__finish(x.oc), 0);
	buf = print(&x, 10, &err);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 0, NULL, &n), 1000.0, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 20, "its waker is on the path already", &n), 200.0, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 20, "running", &n), 100.0, 0.001);   /* 100-150, 350-400 */
	free(buf);
	fix_delete(&x);
}

/* Eleven threads each waiting for the next from +100 to +500: eight wakers
 * followed, the ninth's wait left whole. */
static void test_depth(void)
{
	struct fix x;
	unsigned n;
	int err;
	char *buf;

	fix_new(&x);
	for (uint32_t t = 1; t <= 11; t++)
		out(&x, t, 100, st_wait, 3);
	for (uint32_t t = 11; t >= 1; t--) {
		wake(&x, t, 500, t < 11 ? t + 1 : 0);
		in(&x, t, 500);
	}
	CU_ASSERT_EQUAL(fr_offcpu__finish(x.oc), 0);
	buf = print(&x, 1, &err);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 0, NULL, &n), 1000.0, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 9, "wakers followed no deeper", &n), 400.0, 0.001);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_DOUBLE_EQUAL(rows(buf, 10, NULL, &n), 0.0, 0.001);
	CU_ASSERT_EQUAL(n, 0);
	free(buf);
	buf = print(&x, 99, &err);
	CU_ASSERT_EQUAL(err, -ESRCH);
	free(buf);
	fix_delete(&x);
}

static const struct fr_test tests[] = {
	{ "a wait followed into its waker's nap and run; the leaves add up", test_followed },
	{ "a waker cycle (hostile file) said, not walked", test_cycle },
	{ "wakers followed at most 8 deep; a thread not seen", test_depth },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "critpath", NULL, NULL, tests };
