/* tests/report/test_offcpu.c: CUnit suite for the waits of
 * src/report/offcpu/offcpu.c on synthetic switches: a wait's start, wakeup and
 * end; preemption as runnable delay; waits cut at the window's start and end
 * (counted, never dropped or doubled); a missing switch-in; new and dead
 * threads; on + off adding up to each thread's time in the window; prev_state
 * decoding; the off-CPU stacks in ns under their state frame; the text section;
 * the threads a selection (--pid, --tid, --comm) keeps in the totals, stacks
 * and rows; the section and the folded lines of waits of every kind (golden);
 * the stacks of record --off-cpu-thresh, apart and sampled.
 */
#include "config.h"

#include "tests/cunit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/offcpu/offcpu.h"
#include "tests/report/golden.h"

static const struct fr_sym s_main = { "main", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_sleep = { "sleep_here", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_sched = { "schedule", "[kernel.kallsyms]", "[kernel.kallsyms]", true,
				       false, false, 0 };
static const struct fr_sym s_read = { "read_here", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_io = { "io_schedule", "[kernel.kallsyms]", "[kernel.kallsyms]", true,
				    false, false, 0 };
static const struct fr_frame st_sleep[] = { { &s_sched, NULL, 0, 1, 0, 0 },
					    { &s_sleep, NULL, 0, 2, 0, 0 },
					    { &s_main, NULL, 0, 3, 0, 0 } };
static const struct fr_frame st_disk[] = { { &s_io, NULL, 0, 4, 0, 0 },
					   { &s_read, NULL, 0, 5, 0, 0 },
					   { &s_main, NULL, 0, 3, 0, 0 } };

#define MS 1000000ull
#define T0 (1000 * MS)
#define T1 (2000 * MS)

static struct fr_rsample out_sample(uint32_t tid)
{
	return (struct fr_rsample){ .pid = 7, .tid = tid, .comm = "app", .frames = st_sleep,
				    .nr_frames = 3, .has_stack = true };
}

static void check_thread_sums(struct fr_offcpu *oc)
{
	for (size_t i = 0; i < fr_offcpu__nr_threads(oc); i++) {
		struct fr_thread_time t;

		fr_offcpu__thread(oc, i, &t);
		CU_ASSERT_EQUAL(t.on_ns + t.off_ns[0] + t.off_ns[1] + t.off_ns[2] + t.unknown_ns,
				t.end - t.start);
	}
}

static void test_state(void)
{
	enum fr_wait_state st;

	CU_ASSERT(fr_wait_state__of(0, &st) && st == FR_WAIT_R);
	CU_ASSERT(fr_wait_state__of(0x100, &st) && st == FR_WAIT_R);   /* R+: preempted */
	CU_ASSERT(fr_wait_state__of(0x800, &st) && st == FR_WAIT_R);   /* older TASK_STATE_MAX */
	CU_ASSERT(fr_wait_state__of(1, &st) && st == FR_WAIT_S);
	CU_ASSERT(fr_wait_state__of(2, &st) && st == FR_WAIT_D);
	CU_ASSERT(fr_wait_state__of(0x80, &st) && st == FR_WAIT_S);    /* I: idle kthread */
	CU_ASSERT(fr_wait_state__of(0x402, &st) && st == FR_WAIT_D);
	CU_ASSERT(!fr_wait_state__of(0x10, &st));                       /* X: dead */
	CU_ASSERT(!fr_wait_state__of(0x20, &st));                       /* Z */
	CU_ASSERT_EQUAL(fr_wait_state__char(FR_WAIT_D), 'D');
}

/* out S at +100, wakeup at +150, in at +160; preempted at +300, in at +340 */
static void test_wait_and_delay(void)
{
	struct fr_offcpu *oc;
	struct fr_rsample s = out_sample(10);
	struct fr_offcpu_totals t;
	const struct fr_wait *w;
	size_t n;

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, true, &oc) == 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 10, T0 + 100 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wakeup(oc, 10, T0 + 150 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wakeup(oc, 10, T0 + 155 * MS), 0);   /* the first one counts */
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 10, T0 + 160 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 10, T0 + 300 * MS, FR_WAIT_R, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wakeup(oc, 10, T0 + 310 * MS), 0);   /* runnable anyway */
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 10, T0 + 340 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 10, T0 + 340 * MS), 0);   /* told twice */
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	w = fr_offcpu__waits(oc, &n);
	CU_ASSERT_FATAL(n == 2);
	CU_ASSERT(w[0].start == T0 + 100 * MS && w[0].wake == T0 + 150 * MS &&
		  w[0].end == T0 + 160 * MS && w[0].state == FR_WAIT_S && !w[0].cut_start &&
		  !w[0].cut_end);
	CU_ASSERT(w[1].start == T0 + 300 * MS && w[1].end == T0 + 340 * MS &&
		  w[1].state == FR_WAIT_R && !w[1].wake);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.off_ns[FR_WAIT_S], 60 * MS);
	CU_ASSERT_EQUAL(t.off_ns[FR_WAIT_R], 40 * MS);
	CU_ASSERT_EQUAL(t.delay_ns, 10 * MS + 40 * MS);
	/* a thread first seen switching out ran from the window's start */
	CU_ASSERT_EQUAL(t.on_ns, 1000 * MS - 100 * MS);
	CU_ASSERT_EQUAL(t.cut_start + t.cut_end + t.no_switch_in, 0);
	check_thread_sums(oc);
	fr_offcpu__delete(oc);
}

/* Running is only what the switches show: a thread switched in again with
 * no switch-out seen (its records left out: the recorder's own) has its
 * time since the last switch-in unknown, and to the window's end when no
 * switch-out came at all; a thread of which nothing was seen is unknown
 * whole; one that exited before the window has no row. */
static void test_unknown(void)
{
	struct fr_offcpu *oc;
	struct fr_rsample s = out_sample(20);
	struct fr_offcpu_totals t;
	struct fr_thread_time tt;
	size_t n;

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, true, &oc) == 0);
	/* 30: in at +100, in again at +300, +600: no switch-out ever */
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 30, T0 + 100 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 30, T0 + 300 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 30, T0 + 600 * MS), 0);
	/* 20: out at +100 (ran from the start), in at +200, in again at +500
	 * (its switch-out lost), out at +700, in at +800 */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 20, T0 + 100 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 20, T0 + 200 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 20, T0 + 500 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 20, T0 + 700 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 20, T0 + 800 * MS), 0);
	/* 40: born before the window, nothing else seen: not known to run */
	CU_ASSERT_EQUAL(fr_offcpu__fork(oc, 7, 40, T0 - 200 * MS), 0);
	/* 50: born before the window, exited before it */
	CU_ASSERT_EQUAL(fr_offcpu__fork(oc, 7, 50, T0 - 500 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__task_dead(oc, 50, T0 - 100 * MS), 0);
	/* 60, per task: out at +100, in at +200 told by the switch that brought
	 * it in, then by its own record 10 us later: one switch-in; out at
	 * +300 */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 60, T0 + 100 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in_known(oc, 60, T0 + 200 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 60, T0 + 200 * MS + 10000), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 60, T0 + 300 * MS, FR_WAIT_S, &s), 0);
	/* 70: out at +100, a sample of it at +150 (its switch-in lost): the
	 * wait ends there, counted; running to its next switch-out at +250 */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 70, T0 + 100 * MS, FR_WAIT_R, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__ran(oc, 70, T0 + 100 * MS), 0);   /* at the switch: nothing */
	CU_ASSERT_EQUAL(fr_offcpu__ran(oc, 70, T0 + 150 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__ran(oc, 70, T0 + 200 * MS), 0);   /* running: nothing */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 70, T0 + 250 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 70, T0 + 300 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	CU_ASSERT_EQUAL(fr_offcpu__nr_threads(oc), 5);   /* 50 has no row */
	for (size_t i = 0; i < fr_offcpu__nr_threads(oc); i++) {
		fr_offcpu__thread(oc, i, &tt);
		CU_ASSERT(tt.tid != 50);
		if (tt.tid == 30) {   /* off before its first switch-in, then unknown */
			CU_ASSERT_EQUAL(tt.off_ns[FR_WAIT_S], 100 * MS);
			CU_ASSERT_EQUAL(tt.on_ns, 0);
			CU_ASSERT_EQUAL(tt.unknown_ns, 900 * MS);
		} else if (tt.tid == 20) {
			CU_ASSERT_EQUAL(tt.on_ns, 100 * MS + 200 * MS + 200 * MS);
			CU_ASSERT_EQUAL(tt.unknown_ns, 300 * MS);   /* +200 to +500 */
			CU_ASSERT_EQUAL(tt.off_ns[FR_WAIT_S], 100 * MS + 100 * MS);
		} else if (tt.tid == 70) {
			CU_ASSERT_EQUAL(tt.off_ns[FR_WAIT_R], 50 * MS);
			CU_ASSERT_EQUAL(tt.off_ns[FR_WAIT_S], 50 * MS);
			CU_ASSERT_EQUAL(tt.on_ns, 100 * MS + 100 * MS + 700 * MS);
			CU_ASSERT_EQUAL(tt.unknown_ns, 0);
		} else if (tt.tid == 60) {
			CU_ASSERT_EQUAL(tt.unknown_ns, 0);
			CU_ASSERT_EQUAL(tt.on_ns, 100 * MS + 100 * MS);
		} else {
			CU_ASSERT_EQUAL(tt.tid, 40);
			CU_ASSERT_EQUAL(tt.on_ns, 0);
			CU_ASSERT_EQUAL(tt.unknown_ns, 1000 * MS);
		}
	}
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.unknown_ns, 900 * MS + 300 * MS + 1000 * MS);
	CU_ASSERT_EQUAL(t.on_ns, 500 * MS + 200 * MS + 900 * MS);
	CU_ASSERT_EQUAL(t.no_switch_in, 1);   /* 70's */
	fr_offcpu__unknowns(oc, &n);
	CU_ASSERT_EQUAL(n, 3 + 1 + 1);   /* 30: three; 20: one; 40: one */
	check_thread_sums(oc);
	fr_offcpu__delete(oc);
}

/* a wait from before the window (first seen switching in) and one still
 * open at its end: both cut at the edges and said, never dropped */
static void test_cuts(void)
{
	struct fr_offcpu *oc;
	struct fr_rsample s = out_sample(11);
	struct fr_offcpu_totals t;
	const struct fr_wait *w;
	size_t n;

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, true, &oc) == 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 11, T0 + 20 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 11, T0 + 900 * MS, FR_WAIT_D, &s), 0);
	/* outside the window: ignored */
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 11, T1 + 5 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 12, T0 - 5 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	w = fr_offcpu__waits(oc, &n);
	CU_ASSERT_FATAL(n == 2);
	CU_ASSERT(w[0].cut_start && w[0].start == T0 && w[0].end == T0 + 20 * MS);
	CU_ASSERT(w[1].cut_end && w[1].start == T0 + 900 * MS && w[1].end == T1 &&
		  w[1].state == FR_WAIT_D);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.cut_start, 1);
	CU_ASSERT_EQUAL(t.cut_end, 1);
	CU_ASSERT_EQUAL(t.off_ns[FR_WAIT_S] + t.off_ns[FR_WAIT_D], 20 * MS + 100 * MS);
	CU_ASSERT_EQUAL(t.on_ns, 880 * MS);
	CU_ASSERT_EQUAL(fr_offcpu__nr_threads(oc), 1);   /* tid 12's event was before */
	check_thread_sums(oc);
	fr_offcpu__delete(oc);
}

/* out twice (the switch-in lost): the first wait ends at its wakeup, or at
 * the second switch-out without one; counted */
static void test_missing_switch_in(void)
{
	struct fr_offcpu *oc;
	struct fr_rsample s = out_sample(13);
	struct fr_offcpu_totals t;
	const struct fr_wait *w;
	size_t n;

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, true, &oc) == 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 13, T0 + 100 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wakeup(oc, 13, T0 + 130 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 13, T0 + 200 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 13, T0 + 260 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 13, T0 + 270 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	w = fr_offcpu__waits(oc, &n);
	CU_ASSERT_FATAL(n == 3);
	CU_ASSERT(w[0].no_switch_in && w[0].end == T0 + 130 * MS);
	CU_ASSERT(w[1].no_switch_in && w[1].end == T0 + 260 * MS);
	CU_ASSERT(!w[2].no_switch_in && w[2].end == T0 + 270 * MS);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.no_switch_in, 2);
	CU_ASSERT_EQUAL(t.off_ns[FR_WAIT_S], 30 * MS + 60 * MS + 10 * MS);
	check_thread_sums(oc);
	fr_offcpu__delete(oc);
}

/* a thread born in the window: runnable from its fork to its first run;
 * dead at its exit (later events of it ignored); its time is fork to exit.
 * A wakeup of a thread never seen switching makes none. */
static void test_life(void)
{
	struct fr_offcpu *oc;
	struct fr_rsample s = out_sample(14);
	struct fr_thread_time tt;
	struct fr_offcpu_totals t;

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
	CU_ASSERT_EQUAL(fr_offcpu__wakeup(oc, 99, T0 + 1 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in_known(oc, 98, T0 + 1 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__fork(oc, 7, 14, T0 + 100 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 14, T0 + 103 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 14, T0 + 200 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 14, T0 + 300 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__task_dead(oc, 14, T0 + 350 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 14, T0 + 351 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	CU_ASSERT_FATAL(fr_offcpu__nr_threads(oc) == 1);
	fr_offcpu__thread(oc, 0, &tt);
	CU_ASSERT_EQUAL(tt.start, T0 + 100 * MS);
	CU_ASSERT_EQUAL(tt.end, T0 + 350 * MS);
	CU_ASSERT_EQUAL(tt.off_ns[FR_WAIT_R], 3 * MS);
	CU_ASSERT_EQUAL(tt.off_ns[FR_WAIT_S], 100 * MS);
	CU_ASSERT_EQUAL(tt.on_ns, 97 * MS + 50 * MS);
	CU_ASSERT_EQUAL(tt.delay_ns, 3 * MS);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.waits, 2);
	check_thread_sums(oc);
	fr_offcpu__delete(oc);
}

struct fold_seen {
	uint64_t sleep_ns, total;
	int state;
};

static int fold_cb(void *ctx, const char *comm, const struct fr_sym *const *frames, size_t n,
		   uint64_t weight, uint64_t samples, uint64_t period)
{
	struct fold_seen *f = ctx;

	(void)samples;
	(void)period;
	CU_ASSERT_STRING_EQUAL(comm, "app");
	f->total += weight;
	if (n == 4 && frames[1] == &s_sleep) {
		f->sleep_ns += weight;
		f->state = fr_offcpu__frame_state(frames[3]);
	}
	return 0;
}

/* the stacks: ns weights under their state frame, and the text section */
static void test_folded_and_text(void)
{
	struct fr_offcpu *oc;
	struct fr_rsample s = out_sample(15);
	struct fold_seen f = { 0, 0, -1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 100 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 400 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 500 * MS, FR_WAIT_S, &s), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 600 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	CU_ASSERT_EQUAL(fr_folded__for_each(fr_offcpu__folded(oc), fold_cb, &f), 0);
	CU_ASSERT_EQUAL(f.sleep_ns, 400 * MS);
	CU_ASSERT_EQUAL(f.total, 400 * MS);
	CU_ASSERT_EQUAL(f.state, FR_WAIT_S);
	m = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_EQUAL(fr_offcpu__print(oc, "sched:sched_switch", 0, m), 0);
	fclose(m);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "# waits: 2; cut at the window's start: 0, at its end: 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "       400.000 100.00%  S      sleep_here\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  app: schedule <- sleep_here <- main\n"));
	free(buf);
	fr_offcpu__delete(oc);
}

/* pid 7 selected, but not as "sh"; tid 21 is another process's; tid 22 is
 * first seen switching in (the model says pid 7, "app"); tid 23 is pid 7's
 * but named "sh" until its second switch-out (exec): only its waits as
 * "app" count, and its row is shown */
static bool select_pid7(void *ctx, uint32_t pid, uint32_t tid, const char *comm)
{
	int *asked = ctx;

	(*asked)++;
	(void)tid;
	return pid == 7 && comm && strcmp(comm, "sh");
}

static void identify_22(void *ctx, uint32_t tid, uint64_t time, uint32_t *pid, const char **comm)
{
	(void)ctx;
	(void)time;
	if (tid == 22) {
		*pid = 7;
		*comm = "app";
	}
}

static int fold_total(void *ctx, const char *comm, const struct fr_sym *const *frames, size_t n,
		      uint64_t weight, uint64_t samples, uint64_t period)
{
	uint64_t *total = ctx;

	(void)frames;
	(void)n;
	(void)samples;
	(void)period;
	CU_ASSERT_STRING_EQUAL(comm, "app");
	*total += weight;
	return 0;
}

static void test_select(void)
{
	struct fr_offcpu *oc;
	struct fr_rsample s20 = out_sample(20), s21 = out_sample(21), s23 = out_sample(23);
	struct fr_offcpu_totals t;
	struct fr_thread_time tt;
	uint64_t folded = 0;
	uint32_t seen = 0;
	int asked = 0;

	s21.pid = 8;
	s21.comm = "other";
	s23.comm = "sh";
	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
	fr_offcpu__set_select(oc, select_pid7, &asked);
	fr_offcpu__set_identify(oc, identify_22, NULL);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 20, T0 + 100 * MS, FR_WAIT_S, &s20), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 8, 21, T0 + 100 * MS, FR_WAIT_S, &s21), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 23, T0 + 100 * MS, FR_WAIT_S, &s23), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 20, T0 + 200 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 21, T0 + 300 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 22, T0 + 50 * MS), 0);   /* cut: 50 ms */
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 23, T0 + 400 * MS), 0);   /* as sh: 300 ms */
	s23.comm = "app";
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 23, T0 + 500 * MS, FR_WAIT_D, &s23), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 23, T0 + 520 * MS), 0);   /* as app: 20 ms */
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	CU_ASSERT(asked > 0);
	CU_ASSERT_EQUAL(fr_offcpu__nr_all_threads(oc), 4);
	CU_ASSERT_FATAL(fr_offcpu__nr_threads(oc) == 3);
	for (size_t i = 0; i < 3; i++) {
		fr_offcpu__thread(oc, i, &tt);
		CU_ASSERT(tt.tid == 20 || tt.tid == 22 || tt.tid == 23);
		seen |= 1u << (tt.tid - 20);
		if (tt.tid == 23)   /* its row: all of its time */
			CU_ASSERT_EQUAL(tt.off_ns[FR_WAIT_S] + tt.off_ns[FR_WAIT_D], 320 * MS);
	}
	CU_ASSERT_EQUAL(seen, 0xd);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.waits, 3);
	CU_ASSERT_EQUAL(t.cut_start, 1);
	CU_ASSERT_EQUAL(t.off_ns[FR_WAIT_S], 100 * MS + 50 * MS);
	CU_ASSERT_EQUAL(t.off_ns[FR_WAIT_D], 20 * MS);
	/* on-CPU: tid 20 and 22 all but their waits, tid 23 from its wait as
	 * "sh" on (the run its second switch-out ends is named by it) */
	CU_ASSERT_EQUAL(t.on_ns, (1000 - 100) * MS + (1000 - 50) * MS + (1000 - 400 - 20) * MS);
	CU_ASSERT_EQUAL(fr_folded__for_each(fr_offcpu__folded(oc), fold_total, &folded), 0);
	CU_ASSERT_EQUAL(folded, 170 * MS);
	check_thread_sums(oc);
	fr_offcpu__delete(oc);
}

static void golden_identify(void *ctx, uint32_t tid, uint64_t time, uint32_t *pid,
			    const char **comm)
{
	(void)ctx;
	(void)time;
	*pid = 7;
	*comm = tid == 102 ? "worker" : "app";
}

static bool golden_tid101(void *ctx, uint32_t pid, uint32_t tid, const char *comm)
{
	(void)ctx;
	(void)pid;
	(void)comm;
	return tid == 101;
}

/* The waits of one window in every kind: S with a wakeup, D, R, cut at the
 * start (first seen switching in) and at the end, a new thread's first run,
 * a switch-out without a stack; the text section and the folded lines in
 * microseconds, of all threads and of tid 101 alone. */
static void test_golden(void)
{
	struct fr_rsample sl = out_sample(100), dk = out_sample(101);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	dk.frames = st_disk;
	for (int sel = 0; sel < 2; sel++) {
		struct fr_offcpu *oc;

		CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
		fr_offcpu__set_identify(oc, golden_identify, NULL);
		if (sel)
			fr_offcpu__set_select(oc, golden_tid101, NULL);
		CU_ASSERT(fr_offcpu__switch_in(oc, 102, T0 + 50 * MS) == 0);
		CU_ASSERT(fr_offcpu__switch_out(oc, 7, 100, T0 + 100 * MS, FR_WAIT_S, &sl) == 0);
		CU_ASSERT(fr_offcpu__switch_out(oc, 7, 101, T0 + 200 * MS, FR_WAIT_D, &dk) == 0);
		CU_ASSERT(fr_offcpu__switch_in(oc, 101, T0 + 250 * MS) == 0);
		CU_ASSERT(fr_offcpu__wakeup(oc, 100, T0 + 390 * MS) == 0);
		CU_ASSERT(fr_offcpu__switch_in(oc, 100, T0 + 400 * MS) == 0);
		CU_ASSERT(fr_offcpu__switch_out(oc, 7, 101, T0 + 600 * MS, FR_WAIT_R, &dk) == 0);
		CU_ASSERT(fr_offcpu__switch_in(oc, 101, T0 + 610 * MS) == 0);
		CU_ASSERT(fr_offcpu__fork(oc, 7, 103, T0 + 700 * MS) == 0);
		CU_ASSERT(fr_offcpu__switch_in(oc, 103, T0 + 705 * MS) == 0);
		CU_ASSERT(fr_offcpu__switch_out(oc, 7, 103, T0 + 800 * MS, FR_WAIT_S, NULL) == 0);
		CU_ASSERT(fr_offcpu__switch_in(oc, 103, T0 + 820 * MS) == 0);
		CU_ASSERT(fr_offcpu__switch_out(oc, 7, 101, T0 + 900 * MS, FR_WAIT_S, &sl) == 0);
		CU_ASSERT(fr_offcpu__finish(oc) == 0);
		CU_ASSERT(fr_offcpu__print(oc, "sched:sched_switch", 0, f) == 0);
		fputs("--- folded, us\n", f);
		CU_ASSERT(fr_folded__print_scaled(fr_offcpu__folded(oc), 1000, f) == 0);
		fr_offcpu__delete(oc);
	}
	fclose(f);
	check_golden("report_offcpu.golden", buf);
	free(buf);
}

/* record --off-cpu-thresh: the switches carry no stack; each S or D wait's
 * stack comes after its switch-in. A long wait folds at its own length; a
 * short one kept with probability d/thresh stands for its part of the
 * window / that; a short one none came for folds nothing (counted); a long
 * one none came for goes under "[stack not recorded]"; one still going on
 * at the end is said as such, not lost; a stack before the next wait's
 * close still finds its own wait (a thread that switched out again). */
struct fold_names {
	uint64_t sleep_ns, nostack_ns, waiting_ns, total;
};

static int fold_names_cb(void *ctx, const char *comm, const struct fr_sym *const *frames,
			 size_t n, uint64_t weight, uint64_t samples, uint64_t period)
{
	struct fold_names *f = ctx;

	(void)comm;
	(void)samples;
	(void)period;
	f->total += weight;
	if (n == 4 && frames[1] == &s_sleep)
		f->sleep_ns += weight;
	else if (n == 2 && !strcmp(frames[0]->name, "[stack not recorded]"))
		f->nostack_ns += weight;
	else if (n == 2 && strstr(frames[0]->name, "still waiting"))
		f->waiting_ns += weight;
	return 0;
}

static void test_thresh(void)
{
	struct fr_offcpu *oc;
	struct fr_offcpu_totals t;
	struct fold_names f = { 0 };
	struct fr_rsample stack = out_sample(15);

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
	fr_offcpu__set_thresh(oc, 10 * MS);
	/* long: 50 ms, its stack after the switch-in */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 100 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 150 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 50 * MS, 10 * MS, 0, &stack), 0);
	/* its scheduler delay, told at the next switch-out; once */
	CU_ASSERT_EQUAL(fr_offcpu__run_delay(oc, 15, 2 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__run_delay(oc, 15, 7 * MS), 0);
	/* short, sampled: 2 ms stands for 10 ms */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 200 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 202 * MS), 0);
	/* ... whose stack comes after the thread switched out again */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 210 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 2 * MS, 10 * MS, 0, &stack), 0);
	/* short, not sampled: 3 ms, no stack (the next wait's close settles it) */
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 213 * MS), 0);
	/* long, its stack lost: 20 ms */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 300 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 320 * MS), 0);
	/* preempted: no stack ever, folded at once */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 400 * MS, FR_WAIT_R, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 401 * MS), 0);
	/* still waiting at the end: 499 ms */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 501 * MS, FR_WAIT_D, NULL), 0);
	/* a stack for a thread never seen: nothing */
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 99, 50 * MS, 10 * MS, 0, &stack), 0);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.long_stacks, 1);
	CU_ASSERT_EQUAL(t.long_lost, 1);
	CU_ASSERT_EQUAL(t.short_waits, 2);
	CU_ASSERT_EQUAL(t.short_ns, 5 * MS);
	CU_ASSERT_EQUAL(t.short_sampled, 1);
	CU_ASSERT_EQUAL(t.short_weight_ns, 10 * MS);
	CU_ASSERT_EQUAL(fr_folded__for_each(fr_offcpu__folded(oc), fold_names_cb, &f), 0);
	CU_ASSERT_EQUAL(f.sleep_ns, 60 * MS);     /* 50 + the sampled 2 as 10 */
	CU_ASSERT_EQUAL(f.nostack_ns, 21 * MS);   /* the lost 20, the preemption's 1 */
	CU_ASSERT_EQUAL(f.waiting_ns, 499 * MS);
	CU_ASSERT_EQUAL(f.total, 580 * MS);       /* the unsampled 3 ms fold nothing */
	/* delay: the told 2 ms, and the preemption's 1 ms (its length) */
	CU_ASSERT_EQUAL(t.delay_ns, 3 * MS);
	{
		struct fr_thread_time tt;

		CU_ASSERT_EQUAL_FATAL(fr_offcpu__nr_threads(oc), 1);
		fr_offcpu__thread(oc, 0, &tt);
		CU_ASSERT_EQUAL(tt.delay_ns, 3 * MS);
	}
	check_thread_sums(oc);
	fr_offcpu__delete(oc);
}

/* tid 15 out (state st) at T0 + from ms and in at T0 + to ms */
static void wait_ms(struct fr_offcpu *oc, uint64_t from, uint64_t to, enum fr_wait_state st)
{
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + from * MS, st, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + to * MS), 0);
}

/* A stack read before the switch-in that ends its wait (the switch's stamp,
 * from the scheduler's clock, ran late): kept for that close, matched by
 * length, and not given to the short wait before it that had no stack. */
static void test_thresh_early(void)
{
	struct fr_offcpu *oc;
	struct fr_offcpu_totals t;
	struct fold_names f = { 0 };
	struct fr_rsample stack = out_sample(15);

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
	fr_offcpu__set_thresh(oc, 10 * MS);
	/* short, not sampled: 2 ms, its stack never comes */
	wait_ms(oc, 98, 100, FR_WAIT_S);
	/* long: 50 ms, its stack read 20 us before the switch-in's stamp */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 101 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 50 * MS, 10 * MS, 0, &stack), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 151 * MS), 0);
	/* a stack of a length no wait had: dropped at the close */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 200 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 7 * MS, 10 * MS, 0, &stack), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 230 * MS), 0);
	wait_ms(oc, 300, 301, FR_WAIT_R);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.long_stacks, 1);
	CU_ASSERT_EQUAL(t.long_lost, 1);      /* the 30 ms one: its stack did not come */
	CU_ASSERT_EQUAL(t.short_waits, 1);
	CU_ASSERT_EQUAL(t.short_sampled, 0);
	CU_ASSERT_EQUAL(fr_folded__for_each(fr_offcpu__folded(oc), fold_names_cb, &f), 0);
	CU_ASSERT_EQUAL(f.sleep_ns, 50 * MS);
	CU_ASSERT_EQUAL(f.nostack_ns, 31 * MS);   /* the lost 30, the preemption's 1 */
	fr_offcpu__delete(oc);
}

/* Short waits sampled at a CPU's scale above the threshold (the record
 * says it): each weighs its scale; a wait between the threshold and a
 * scale is a long one (always kept, at its length); the scales' range is
 * kept for the error the report states. */
static void test_thresh_scaled(void)
{
	struct fr_offcpu *oc;
	struct fr_offcpu_totals t;
	struct fold_names f = { 0 };
	struct fr_rsample stack = out_sample(15);

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
	fr_offcpu__set_thresh(oc, 10 * MS);
	/* short, sampled at 40 ms: 2 ms stands for 40 */
	wait_ms(oc, 100, 102, FR_WAIT_S);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 2 * MS, 40 * MS, 0, &stack), 0);
	/* 15 ms: long, at the threshold */
	wait_ms(oc, 200, 215, FR_WAIT_S);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 15 * MS, 10 * MS, 0, &stack), 0);
	/* short, sampled at 20 ms: 5 ms stands for 20 */
	wait_ms(oc, 300, 305, FR_WAIT_S);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 5 * MS, 20 * MS, 0, &stack), 0);
	wait_ms(oc, 400, 401, FR_WAIT_R);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.long_stacks, 1);
	CU_ASSERT_EQUAL(t.short_sampled, 2);
	CU_ASSERT_EQUAL(t.short_ns, 7 * MS);
	CU_ASSERT_EQUAL(t.short_weight_ns, 60 * MS);
	CU_ASSERT_EQUAL(t.short_scale_min, 20 * MS);
	CU_ASSERT_EQUAL(t.short_scale_max, 40 * MS);
	CU_ASSERT_EQUAL(fr_folded__for_each(fr_offcpu__folded(oc), fold_names_cb, &f), 0);
	CU_ASSERT_EQUAL(f.sleep_ns, 75 * MS);     /* 40 + 15 + 20 */
	fr_offcpu__delete(oc);
}

/* Stacks with their switch-in's time (kind 5): each goes to the wait that
 * ended there, early or late; its span (the run before, then the wait) is
 * what it was sampled by; a short wait after a long run was kept for sure
 * and weighs its length; a preemption's stack and one whose switch-in ended
 * no wait are not used. */
static void test_thresh_span(void)
{
	struct fr_offcpu *oc;
	struct fr_offcpu_totals t;
	struct fold_names f = { 0 };
	struct fr_rsample stack = out_sample(15);

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
	fr_offcpu__set_thresh(oc, 10 * MS);
	/* long: 50 ms after a 10 ms run */
	wait_ms(oc, 100, 150, FR_WAIT_S);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 60 * MS, 10 * MS, T0 + 150 * MS, &stack), 0);
	/* 2 ms after a 30 ms run: the span kept it for sure, it weighs 2 */
	wait_ms(oc, 200, 202, FR_WAIT_S);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 32 * MS, 10 * MS, T0 + 202 * MS, &stack), 0);
	/* 3 ms in a span of 4 sampled at 20 ms: it weighs 3 * 20 / 4; its stack
	 * comes after a preemption's, which ended no sleep */
	wait_ms(oc, 300, 303, FR_WAIT_S);
	wait_ms(oc, 400, 401, FR_WAIT_R);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 2 * MS, 20 * MS, T0 + 401 * MS, &stack), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 4 * MS, 20 * MS, T0 + 303 * MS, &stack), 0);
	/* 50 ms, its stack read before the switch-in's stamp */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 500 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 70 * MS, 10 * MS, T0 + 550 * MS, &stack), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 550 * MS), 0);
	/* 40 ms, and a stack of a switch-in at another time: the wait's is lost */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 7, 15, T0 + 560 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__wait_stack(oc, 15, 45 * MS, 10 * MS, T0 + 570 * MS, &stack), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 600 * MS), 0);
	wait_ms(oc, 700, 701, FR_WAIT_S);   /* settles the 40 ms one */
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.long_stacks, 2);
	CU_ASSERT_EQUAL(t.long_lost, 1);
	CU_ASSERT_EQUAL(t.short_waits, 3);   /* 2, 3 and the last 1 */
	CU_ASSERT_EQUAL(t.short_sampled, 2);
	CU_ASSERT_EQUAL(t.short_ns, 6 * MS);
	CU_ASSERT_EQUAL(t.short_weight_ns, 17 * MS);
	CU_ASSERT_EQUAL(t.short_scale_min, 20 * MS);
	CU_ASSERT_EQUAL(t.short_scale_max, 20 * MS);
	CU_ASSERT_EQUAL(fr_folded__for_each(fr_offcpu__folded(oc), fold_names_cb, &f), 0);
	CU_ASSERT_EQUAL(f.sleep_ns, 117 * MS);    /* 50 + 2 + 15 + 50 */
	CU_ASSERT_EQUAL(f.nostack_ns, 41 * MS);   /* the lost 40, the preemption's 1 */
	fr_offcpu__delete(oc);
}

/* Long waits with no stack whose stack was not lost: the recorder's own
 * threads' (its programs take none: fr_offcpu__set_unstacked) and one that
 * began before the window (the recording did not see it begin); each
 * counted apart from the lost one, and named in the folded set. */
struct leaf_ns {
	uint64_t own, before, nostack, noin;
};

static int leaf_cb(void *ctx, const char *comm, const struct fr_sym *const *frames, size_t n,
		   uint64_t weight, uint64_t samples, uint64_t period)
{
	struct leaf_ns *l = ctx;

	(void)comm;
	(void)samples;
	(void)period;
	if (n != 2)
		return 0;
	if (!strcmp(frames[0]->name, "[the recorder's own: stack not taken]"))
		l->own += weight;
	else if (!strcmp(frames[0]->name, "[began before the window: stack not recorded]"))
		l->before += weight;
	else if (!strcmp(frames[0]->name, "[stack not recorded]"))
		l->nostack += weight;
	else if (!strcmp(frames[0]->name, "[switch-in not recorded: stack not taken]"))
		l->noin += weight;
	return 0;
}

static void test_thresh_unstacked(void)
{
	struct fr_offcpu *oc;
	struct fr_offcpu_totals t;
	struct leaf_ns l = { 0 };

	CU_ASSERT_FATAL(fr_offcpu__new(T0, T1, false, &oc) == 0);
	fr_offcpu__set_thresh(oc, 10 * MS);
	fr_offcpu__set_unstacked(oc, 42);
	/* thread 15 in at T0 + 40 ms: its wait began before the window */
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 40 * MS), 0);
	/* the recorder's thread 43: 30 ms */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 42, 43, T0 + 100 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 43, T0 + 130 * MS), 0);
	/* thread 15: 20 ms, its stack lost */
	wait_ms(oc, 200, 220, FR_WAIT_S);
	/* thread 15 out at 300 ms and again at 340 ms: the switch-in between
	 * was not recorded, so no stack could be taken for that 40 ms wait */
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 0, 15, T0 + 300 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_out(oc, 0, 15, T0 + 340 * MS, FR_WAIT_S, NULL), 0);
	CU_ASSERT_EQUAL(fr_offcpu__switch_in(oc, 15, T0 + 341 * MS), 0);
	CU_ASSERT_EQUAL(fr_offcpu__finish(oc), 0);
	fr_offcpu__totals(oc, &t);
	CU_ASSERT_EQUAL(t.unstacked_pid, 42);
	CU_ASSERT_EQUAL(t.long_stacks, 0);
	CU_ASSERT_EQUAL(t.long_unstacked, 1);
	CU_ASSERT_EQUAL(t.long_before, 1);
	CU_ASSERT_EQUAL(t.long_lost, 1);
	CU_ASSERT_EQUAL(t.long_no_in, 1);
	CU_ASSERT_EQUAL(t.no_switch_in, 1);
	CU_ASSERT_EQUAL(t.short_waits, 1);
	CU_ASSERT_EQUAL(fr_folded__for_each(fr_offcpu__folded(oc), leaf_cb, &l), 0);
	CU_ASSERT_EQUAL(l.own, 30 * MS);
	CU_ASSERT_EQUAL(l.before, 40 * MS);
	CU_ASSERT_EQUAL(l.nostack, 20 * MS);
	CU_ASSERT_EQUAL(l.noin, 40 * MS);
	fr_offcpu__delete(oc);
}

static const struct fr_test tests[] = {
	{ "prev_state to S, D, R or dead", test_state },
	{ "a wait: switch-out, wakeup, switch-in; preemption is delay", test_wait_and_delay },
	{ "waits cut at the window's start and end, counted", test_cuts },
	{ "unknown where a switch-out was not seen, never running", test_unknown },
	{ "a missing switch-in ends the wait at its wakeup", test_missing_switch_in },
	{ "a thread from fork to exit; on + off = its time", test_life },
	{ "off-CPU stacks in ns under the state frame; the text", test_folded_and_text },
	{ "a selection keeps its threads' waits, stacks and rows", test_select },
	{ "the section and the folded lines (golden)", test_golden },
	{ "--off-cpu-thresh: stacks after the switch-in, short waits sampled", test_thresh },
	{ "--off-cpu-thresh: short waits at a scale above the threshold", test_thresh_scaled },
	{ "--off-cpu-thresh: stacks found by their switch-in, sampled by their span",
	  test_thresh_span },
	{ "--off-cpu-thresh: a stack read before its switch-in", test_thresh_early },
	{ "--off-cpu-thresh: the recorder's own waits, and those begun before", test_thresh_unstacked },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "offcpu", NULL, NULL, tests };
