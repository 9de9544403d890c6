/* tests/report/test_parallel.c: CUnit suite for the latency view's
 * parallelism (src/report/offcpu/parallel.c) on synthetic switches: one
 * thread alone, then four on two CPUs; a sample's own thread counted once
 * whatever was told; processes apart; a thread's process from its switches,
 * its fork or asked once; per-task switch-ins of threads not ours; deaths
 * and reused tids; one thread per CPU (a switch-out not told ends where
 * another comes in there); a per-task recording's records replayed as
 * offcpu_in.c tells them, a dying thread switched back to after its EXIT
 * among them; and what the text histogram makes of it (the Latency column,
 * --sort latency, the memo of repeated stacks, the weight of the flame graph
 * and pprof).
 */
#include "config.h"

#include "tests/cunit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/offcpu/offcpu.h"

struct asked {
	uint32_t tid[16], pid[16];
	size_t n, calls;
};

/* pid_of: the process model's answer for the threads it knows */
static uint32_t pid_of(void *ctx, uint32_t tid)
{
	struct asked *a = ctx;

	a->calls++;
	for (size_t i = 0; i < a->n; i++)
		if (a->tid[i] == tid)
			return a->pid[i];
	return 0;
}

/* The workload of tests/e2e/report_latency.sh, told as switches: 101 burns
 * alone (main, 100, asleep in join), then 102..105 are born and share two
 * CPUs, preempting each other. */
static void test_alone_then_together(void)
{
	struct fr_par *p;

	CU_ASSERT_FATAL(fr_par__new(NULL, NULL, &p) == 0);
	CU_ASSERT_EQUAL(fr_par__born(p, 100, 101), 0);
	CU_ASSERT_EQUAL(fr_par__off(p, 100, 100), 0);   /* main: into join */
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 101, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 101), 1);
	fr_par__dead(p, 101);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 101), 1);   /* a late sample counts itself */
	for (uint32_t t = 102; t <= 105; t++)
		CU_ASSERT_EQUAL(fr_par__born(p, 100, t), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 102, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 102), 1);
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 0, 103, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 102), 2);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 103), 2);
	/* 102 preempted by 104, 103 by 105, and back */
	CU_ASSERT_EQUAL(fr_par__off(p, 100, 102), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 104, false), 0);
	CU_ASSERT_EQUAL(fr_par__off(p, 100, 103), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 0, 105, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 104), 2);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 105), 2);
	/* a sample of 102 read before it is told on a CPU: itself and the two */
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 102), 3);
	/* told (its sample, on CPU 0: its switch-in and 104's switch-out
	 * lost): 104 is off CPU 0 */
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 100, 102, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 102), 2);
	CU_ASSERT_EQUAL(fr_par__off(p, 100, 102), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 100, 105), 1);
	fr_par__delete(p);
}

/* A switch-in told twice (per task: by the switch that brought it in, then
 * by its own record) counts once; off twice, once; the idle task and an
 * exiting task's sample (pid -1) are 1; a sample of a thread never told is
 * itself. */
static void test_once(void)
{
	struct fr_par *p;

	CU_ASSERT_FATAL(fr_par__new(NULL, NULL, &p) == 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 7, 70), 1);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 7, 70, false), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 7, 70, false), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 7, 71, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 7, 70), 2);
	CU_ASSERT_EQUAL(fr_par__off(p, 7, 70), 0);
	CU_ASSERT_EQUAL(fr_par__off(p, 7, 70), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 7, 71), 1);
	CU_ASSERT_EQUAL(fr_par__on(p, 2, 0, 0, false), 0);   /* the idle task */
	CU_ASSERT_EQUAL(fr_par__of(p, 0, 0), 1);
	CU_ASSERT_EQUAL(fr_par__of(p, UINT32_MAX, UINT32_MAX), 1);
	CU_ASSERT_EQUAL(fr_par__off(p, 0, 999), 0);        /* never seen, no process: nothing */
	fr_par__delete(p);
}

/* Processes are counted apart: a machine-wide count would be 3 here. */
static void test_processes(void)
{
	struct fr_par *p;

	CU_ASSERT_FATAL(fr_par__new(NULL, NULL, &p) == 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 10, 11, false), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 10, 12, false), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 2, 20, 21, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 10, 11), 2);
	CU_ASSERT_EQUAL(fr_par__of(p, 20, 21), 1);
	/* a sample that names another process than the one told: itself there */
	CU_ASSERT_EQUAL(fr_par__of(p, 20, 11), 2);
	fr_par__delete(p);
}

/* A thread first seen switching in (sched_switch's next_pid: no process)
 * is looked up once; one the model does not know is on but counted under
 * no process, until a switch-out names its process. */
static void test_pid_of(void)
{
	struct asked a = { { 31, 32 }, { 30, 30 }, 2, 0 };
	struct fr_par *p;

	CU_ASSERT_FATAL(fr_par__new(pid_of, &a, &p) == 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 31, false), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 0, 32, false), 0);
	CU_ASSERT_EQUAL(a.calls, 2);
	CU_ASSERT_EQUAL(fr_par__of(p, 30, 31), 2);
	CU_ASSERT_EQUAL(fr_par__off(p, 0, 31), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 31, false), 0);
	CU_ASSERT_EQUAL(a.calls, 2);   /* known since */
	CU_ASSERT_EQUAL(fr_par__on(p, 2, 0, 33, false), 0);   /* unknown to the model */
	CU_ASSERT_EQUAL(a.calls, 3);
	CU_ASSERT_EQUAL(fr_par__of(p, 30, 31), 2);
	CU_ASSERT_EQUAL(fr_par__off(p, 0, 33), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 2, 0, 33, false), 0);
	CU_ASSERT_EQUAL(a.calls, 3);   /* asked once, whatever the answer */
	/* its switch-out names it: from its next switch-in it counts there */
	CU_ASSERT_EQUAL(fr_par__off(p, 30, 33), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 2, 0, 33, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 30, 31), 3);
	fr_par__delete(p);
}

/* Per task, a switch's next task may be anyone's: known_only counts only
 * threads told of before (their own switch-out, fork or sample). */
static void test_known_only(void)
{
	struct asked a = { { 41 }, { 40 }, 1, 0 };
	struct fr_par *p;

	CU_ASSERT_FATAL(fr_par__new(pid_of, &a, &p) == 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 41, true), 0);
	CU_ASSERT_EQUAL(a.calls, 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 40, 42), 1);
	CU_ASSERT_EQUAL(fr_par__off(p, 40, 41), 0);   /* its own switch-out */
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 41, true), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 40, 42), 2);
	CU_ASSERT_EQUAL(a.calls, 0);
	fr_par__delete(p);
}

/* A thread on a CPU told of another process (the process model was wrong,
 * or the tid was reused after a death not seen) moves there; a dead tid
 * born again in another process counts there. */
static void test_moves(void)
{
	struct asked a = { { 51 }, { 50 }, 1, 0 };
	struct fr_par *p;

	CU_ASSERT_FATAL(fr_par__new(pid_of, &a, &p) == 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 51, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 50, 52), 2);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 60, 51, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 50, 52), 1);
	CU_ASSERT_EQUAL(fr_par__of(p, 60, 61), 2);
	fr_par__dead(p, 51);
	CU_ASSERT_EQUAL(fr_par__of(p, 60, 61), 1);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 51, true), 0);   /* its last switch */
	CU_ASSERT_EQUAL(fr_par__of(p, 60, 61), 1);
	CU_ASSERT_EQUAL(fr_par__born(p, 70, 51), 0);  /* born again, in 70 */
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 51, true), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 70, 71), 2);
	CU_ASSERT_EQUAL(fr_par__of(p, 60, 61), 1);
	fr_par__delete(p);
}

/* Each CPU runs one thread: a thread told on a CPU takes it from the one
 * told there before (whose switch-out was lost), moves from a CPU it was
 * still told on, and the idle task or a thread not ours coming in frees
 * it; a record of no CPU (FR_CPU_NONE) counts as before, on no CPU. */
static void test_one_per_cpu(void)
{
	struct fr_par *p;

	CU_ASSERT_FATAL(fr_par__new(NULL, NULL, &p) == 0);
	for (uint32_t t = 81; t <= 84; t++)
		CU_ASSERT_EQUAL(fr_par__born(p, 80, t), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 80, 81, false), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 80, 82, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 81), 2);
	/* 81's switch-out lost: 83 comes in on CPU 0, 84 on CPU 1 */
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 80, 83, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 83), 2);
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 80, 84, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 84), 2);
	/* 83 sampled on CPU 1 (its switch-out of CPU 0 and 84's lost): one
	 * thread of ours runs, there */
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 80, 83, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 83), 1);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 80, 81, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 83), 2);
	/* the idle task on CPU 0, a thread not ours (per task) on CPU 1 */
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 0, 0, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 83), 1);
	CU_ASSERT_EQUAL(fr_par__on(p, 1, 0, 999, true), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 82), 1);   /* itself */
	/* no CPU told: counted, on none */
	CU_ASSERT_EQUAL(fr_par__on(p, FR_CPU_NONE, 80, 81, false), 0);
	CU_ASSERT_EQUAL(fr_par__on(p, FR_CPU_NONE, 80, 82, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 81), 2);
	CU_ASSERT_EQUAL(fr_par__on(p, 0, 80, 83, false), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 81), 3);
	CU_ASSERT_EQUAL(fr_par__off(p, 80, 82), 0);
	CU_ASSERT_EQUAL(fr_par__of(p, 80, 81), 2);
	fr_par__delete(p);
}

/* Records of a per-task recording (record --off-cpu -- PROG: sched_switch
 * samples of our threads going out, each thread's own PERF_RECORD_SWITCH,
 * FORK, EXIT, cpu-clock samples), each on the CPU whose stream held it,
 * told as offcpu_in.c tells them. */
enum { R_FORK, R_EXIT, R_IN, R_OUT, R_SWITCH, R_SAMPLE };

struct frec {
	int kind;
	uint32_t cpu, pid, tid;
	uint32_t next;     /* R_SWITCH: sched_switch's next_pid */
	unsigned par;      /* R_SAMPLE: the parallelism it must get */
};

static void replay(struct fr_par *p, const struct frec *r, size_t n)
{
	for (size_t i = 0; i < n; i++, r++) {
		switch (r->kind) {
		case R_FORK:
			CU_ASSERT_EQUAL(fr_par__born(p, r->pid, r->tid), 0);
			break;
		case R_EXIT:
			fr_par__dead(p, r->tid);
			break;
		case R_IN:
			CU_ASSERT_EQUAL(fr_par__on(p, r->cpu, r->pid, r->tid, false), 0);
			break;
		case R_OUT:
			CU_ASSERT_EQUAL(fr_par__off(p, r->pid, r->tid), 0);
			break;
		case R_SWITCH:   /* prev (the sample's thread) out, next in: a thread seen before */
			CU_ASSERT_EQUAL(fr_par__off(p, r->pid, r->tid), 0);
			CU_ASSERT_EQUAL(fr_par__on(p, r->cpu, 0, r->next, r->next != 0), 0);
			break;
		default:
			CU_ASSERT_EQUAL(fr_par__on(p, r->cpu, r->pid, r->tid, false), 0);
			if (fr_par__of(p, r->pid, r->tid) != r->par)
				fprintf(stderr, "\n  record %zu: a sample of %u on CPU %u: parallelism %u, "
					"not %u\n", i, r->tid, r->cpu, fr_par__of(p, r->pid, r->tid),
					r->par);
			CU_ASSERT_EQUAL(fr_par__of(p, r->pid, r->tid), r->par);
		}
	}
}

/* The failure of report_latency.sh under load (together weighed as if 2.67
 * of its threads ran at once on 2 CPUs), as recorded: alone's thread 101
 * wrote its EXIT (per task its events go there) but was preempted before
 * its last switch; 102, just born, came in on its CPU and switched back to
 * it, and the sched_switch sample's next_pid (101, a thread seen before)
 * counted the dying thread as running, for good: its last switch-out is
 * never recorded. A dead thread switched to is on its way out; and the
 * next thread told on CPU 0 takes it from whichever was told there. */
static void test_dying_switched_to(void)
{
	static const struct frec recs[] = {
		{ R_FORK, 0, 100, 101, 0, 0 },
		{ R_IN, 0, 100, 101, 0, 0 },
		{ R_SAMPLE, 0, 100, 101, 0, 1 },      /* alone() */
		{ R_EXIT, 0, 100, 101, 0, 0 },        /* still on CPU 0, to its last switch */
		{ R_IN, 1, 100, 100, 0, 0 },          /* main, out of join */
		{ R_FORK, 1, 100, 102, 0, 0 },
		{ R_FORK, 1, 100, 103, 0, 0 },
		{ R_FORK, 1, 100, 104, 0, 0 },
		{ R_FORK, 1, 100, 105, 0, 0 },
		{ R_IN, 0, 100, 102, 0, 0 },          /* preempts the dying 101 (not recorded) */
		{ R_SWITCH, 0, 100, 102, 101, 0 },    /* ... and gives CPU 0 back to it */
		{ R_OUT, 0, 100, 102, 0, 0 },
		{ R_SWITCH, 1, 100, 100, 103, 0 },    /* main into join */
		{ R_OUT, 1, 100, 100, 0, 0 },
		{ R_IN, 1, 100, 103, 0, 0 },
		{ R_SAMPLE, 1, 100, 103, 0, 1 },      /* together(): 101 does not run it */
		{ R_IN, 0, 100, 104, 0, 0 },          /* 101 went, unrecorded */
		{ R_SAMPLE, 0, 100, 104, 0, 2 },
		{ R_SAMPLE, 1, 100, 103, 0, 2 },
		{ R_SWITCH, 1, 100, 103, 105, 0 },
		{ R_OUT, 1, 100, 103, 0, 0 },
		{ R_IN, 1, 100, 105, 0, 0 },
		{ R_SAMPLE, 1, 100, 105, 0, 2 },
		{ R_SWITCH, 0, 100, 104, 101, 0 },    /* once more, were it told again */
		{ R_OUT, 0, 100, 104, 0, 0 },
		{ R_SAMPLE, 1, 100, 105, 0, 1 },
		{ R_IN, 0, 100, 102, 0, 0 },
		{ R_SAMPLE, 0, 100, 102, 0, 2 },
		{ R_SWITCH, 0, 100, 102, 0, 0 },      /* to the idle task */
		{ R_OUT, 0, 100, 102, 0, 0 },
		{ R_SAMPLE, 1, 100, 105, 0, 1 },
		{ R_FORK, 1, 100, 101, 0, 0 },        /* the tid born again */
		{ R_IN, 0, 100, 101, 0, 0 },
		{ R_SAMPLE, 1, 100, 105, 0, 2 },
	};
	struct fr_par *p;

	CU_ASSERT_FATAL(fr_par__new(NULL, NULL, &p) == 0);
	replay(p, recs, sizeof(recs) / sizeof(recs[0]));
	fr_par__delete(p);
}

static void test_weight(void)
{
	struct fr_rsample s = { .period = 1000 };

	CU_ASSERT_EQUAL(fr_rsample__latency(&s), 1000);   /* not known */
	s.parallelism = 1;
	CU_ASSERT_EQUAL(fr_rsample__latency(&s), 1000);
	s.parallelism = 3;
	CU_ASSERT_EQUAL(fr_rsample__latency(&s), 333);
	s.period = 1001;
	s.parallelism = 2;
	CU_ASSERT_EQUAL(fr_rsample__latency(&s), 501);   /* rounded */
}

static const struct fr_sym s_alone = { "alone", "/usr/bin/app", "app", false, false, false, 0 };
static const struct fr_sym s_together = { "together", "/usr/bin/app", "app", false, false, false,
					   0 };

/* n samples of sym with parallelism par, each of a stack id (the memo's
 * path after 4096 samples) */
static void add_n(struct fr_hist *h, const struct fr_sym *sym, uint32_t tid, unsigned par, int n)
{
	struct fr_frame f = { sym, NULL, 0, 0x1000, 0x1000, 0 };
	struct fr_rsample s = { .pid = 100, .tid = tid, .comm = "app", .frames = &f, .nr_frames = 1,
				.has_stack = true, .period = 1000000, .stack_id = (uintptr_t)sym,
				.parallelism = par };

	for (int i = 0; i < n; i++)
		CU_ASSERT_EQUAL(fr_hist__add(h, &s), 0);
}

/* Each row of the text: its Overhead, Latency and symbol */
static void rows(const char *text, double *ov, double *lat, char names[2][32])
{
	const char *l = text;
	int n = 0;

	while (l && *l && n < 2) {
		double a, b;
		unsigned long long c;
		char name[32];

		if (*l != '#' && sscanf(l, " %lf%% %lf%% %llu %*s %31s", &a, &b, &c, name) == 4) {
			ov[n] = a;
			lat[n] = b;
			snprintf(names[n], 32, "%s", name);
			n++;
		}
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	CU_ASSERT_EQUAL(n, 2);
}

/* alone: 3000 samples alone; together: 6000 at two at a time. Overhead
 * 33/67, Latency 50/50 (each half of the wall clock); --sort latency with a
 * heavier alone puts it first. */
static void test_column(void)
{
	struct fr_hist_opts o = { 0 };
	struct fr_hist *h;
	double ov[2], lat[2];
	char names[2][32];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CU_ASSERT_FATAL(fr_hist__parse_keys("sym", &o) == 0);
	o.latency = true;
	CU_ASSERT_FATAL(fr_hist__new(&o, &h) == 0);
	add_n(h, &s_alone, 101, 1, 3000);
	add_n(h, &s_together, 102, 2, 3000);
	add_n(h, &s_together, 103, 2, 3000);
	f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fr_hist__print(h, "cpu-clock", f), 0);
	fclose(f);
	CU_ASSERT(strstr(buf, "# Overhead     Latency    Samples  Symbol\n") != NULL);
	CU_ASSERT(strstr(buf, "latency by samples / parallelism") != NULL);
	rows(buf, ov, lat, names);
	CU_ASSERT_STRING_EQUAL(names[0], "together");   /* by overhead */
	CU_ASSERT_DOUBLE_EQUAL(ov[0], 66.67, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(lat[0], 50.0, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(lat[1], 50.0, 0.001);
	free(buf);
	fr_hist__delete(h);

	/* --sort sym,latency: ordered by latency (alone's 3000 against
	 * together's 4000 / 2), overhead notwithstanding */
	CU_ASSERT_FATAL(fr_hist__parse_keys("sym,latency", &o) == 0);
	CU_ASSERT(o.by_latency && o.nr_keys == 1);
	CU_ASSERT_FATAL(fr_hist__new(&o, &h) == 0);
	add_n(h, &s_alone, 101, 1, 3000);
	add_n(h, &s_together, 102, 2, 4000);
	buf = NULL;
	f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fr_hist__print(h, "cpu-clock", f), 0);
	fclose(f);
	rows(buf, ov, lat, names);
	CU_ASSERT_STRING_EQUAL(names[0], "alone");
	CU_ASSERT_DOUBLE_EQUAL(lat[0], 60.0, 0.001);
	CU_ASSERT_DOUBLE_EQUAL(ov[0], 42.86, 0.001);
	free(buf);
	fr_hist__delete(h);
}

/* --sort latency alone groups as the default; latency twice, a stray comma
 * are refused; without the pass's latency, no column */
static void test_keys(void)
{
	struct fr_hist_opts o = { 0 };
	struct fr_hist *h;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CU_ASSERT_EQUAL(fr_hist__parse_keys("latency", &o), 0);
	CU_ASSERT(o.by_latency && o.nr_keys == 3 && o.keys[0] == FR_KEY_COMM &&
		  o.keys[1] == FR_KEY_DSO && o.keys[2] == FR_KEY_SYM);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("latency,pid", &o), 0);
	CU_ASSERT(o.by_latency && o.nr_keys == 1 && o.keys[0] == FR_KEY_PID);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("sym", &o), 0);
	CU_ASSERT(!o.by_latency);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("latency,latency", &o), -EINVAL);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("latency,", &o), -EINVAL);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("lat", &o), -EINVAL);
	CU_ASSERT_EQUAL(fr_hist__parse_keys("sym", &o), 0);
	CU_ASSERT_FATAL(fr_hist__new(&o, &h) == 0);
	add_n(h, &s_alone, 101, 1, 10);
	f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fr_hist__print(h, "cpu-clock", f), 0);
	fclose(f);
	CU_ASSERT(strstr(buf, "# Overhead    Samples  Symbol\n") != NULL);
	CU_ASSERT(strstr(buf, "Latency") == NULL);
	free(buf);
	fr_hist__delete(h);
}

static const struct fr_test tests[] = {
	{ "one thread alone, then four on two CPUs", test_alone_then_together },
	{ "a sample's own thread counted once", test_once },
	{ "processes counted apart", test_processes },
	{ "a thread's process from its switches, else asked once", test_pid_of },
	{ "per task: only threads told of before", test_known_only },
	{ "a thread told of another process, a tid born again", test_moves },
	{ "one thread per CPU: a switch-out lost ends at the next switch-in", test_one_per_cpu },
	{ "per task: a dying thread switched to after its EXIT", test_dying_switched_to },
	{ "the flame graph's and pprof's weight: period / parallelism", test_weight },
	{ "the Latency column, --sort latency, the memo", test_column },
	{ "--sort latency's keys; no column unless the pass says", test_keys },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "parallel", NULL, NULL, tests };
