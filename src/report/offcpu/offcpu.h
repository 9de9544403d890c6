/* src/report/offcpu/offcpu.h: wall-clock accounting of one window: each
 * thread's waits (switch-out to switch-in, with the switch-out stack and
 * state), scheduler delay, and on-CPU + off-CPU per thread (offcpu.c); the
 * off-CPU section of the text report and --off-cpu's folded lines
 * (offcpu_print.c).
 */
#ifndef FR_REPORT_OFFCPU_H
#define FR_REPORT_OFFCPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"

/* What a thread waited in: S sleeping (S, I, P, T), D uninterruptible (I/O),
 * R preempted (runnable all along). */
enum fr_wait_state { FR_WAIT_S, FR_WAIT_D, FR_WAIT_R, FR_WAIT_NR };

/* A sched_switch prev_state to a wait state; false: the task died (no wait). */
bool fr_wait_state__of(uint64_t prev_state, enum fr_wait_state *st);
char fr_wait_state__char(enum fr_wait_state st);

/* One wait, as it ended (or was cut at the window's end). */
struct fr_wait {
	uint32_t pid, tid;
	uint64_t start, wake, end;   /* wake: 0 when no wakeup was recorded */
	enum fr_wait_state state;
	bool cut_start;              /* began before the window: start is its edge */
	bool cut_end;                /* had not ended at the window's end */
	bool no_switch_in;           /* the thread switched out again first: ended at wake or there */
	uint32_t waker_pid, waker_tid;   /* who woke it (sched_waking's thread), 0: not known */
};

struct fr_offcpu_totals {
	uint64_t waits, cut_start, cut_end, no_switch_in;
	uint64_t off_ns[FR_WAIT_NR], delay_ns, on_ns;
	uint64_t unknown_ns;   /* neither: a thread switched in again with no switch-out seen */
	/* the stacks of waits apart (fr_offcpu__set_thresh): long waits with a
	 * stack, long ones whose stack was lost; short (S and D) waits, their
	 * time, how many of them were sampled, and what those stand for; the
	 * least and most scale they were sampled at (probability length / scale) */
	uint64_t long_stacks, long_lost, short_waits, short_ns, short_sampled, short_weight_ns;
	uint64_t short_scale_min, short_scale_max;
	/* long waits with no stack, not in long_lost: of the process whose
	 * stacks the recording does not take (fr_offcpu__set_unstacked: the
	 * recorder's own), and others' that began before the window (the
	 * recording may not have seen them begin), and those whose switch-in
	 * was not recorded (the stack is taken there) */
	uint32_t unstacked_pid;
	uint64_t long_unstacked, long_before, long_no_in;
};

struct fr_offcpu;

/* Window [t0, t1]. keep: remember every wait (fr_offcpu__waits; tests and
 * timelines). */
int fr_offcpu__new(uint64_t t0, uint64_t t1, bool keep, struct fr_offcpu **out);
void fr_offcpu__delete(struct fr_offcpu *oc);
/* Each wait as it ends also goes to sink (s->period: its ns; s->time: its
 * start; frames leaf first, the state frame outermost), beside the module's
 * own folded set. */
typedef int (*fr_offcpu_sink)(void *ctx, const struct fr_rsample *s);
void fr_offcpu__set_sink(struct fr_offcpu *oc, fr_offcpu_sink sink, void *ctx);
/* Each wait as it ends also to wk (wakers.c), joined to its waker; wk stays
 * the caller's. */
struct fr_wakers;
void fr_offcpu__set_wakers(struct fr_offcpu *oc, struct fr_wakers *wk);
struct fr_wakers *fr_offcpu__wakers(const struct fr_offcpu *oc);   /* NULL: none */
/* Which threads the views show (pid 0 and comm NULL: not known). A thread's
 * waits count in the totals and the stacks while it is selected (its name
 * may change), and its row is shown when it was at any time of the window.
 * Without one, every thread. */
typedef bool (*fr_offcpu_select)(void *ctx, uint32_t pid, uint32_t tid, const char *comm);
void fr_offcpu__set_select(struct fr_offcpu *oc, fr_offcpu_select select, void *ctx);
/* Where a thread's switches did not say its process or name (first seen
 * switching in): *pid and *comm (interned) as known at time, else left. */
typedef void (*fr_offcpu_identify)(void *ctx, uint32_t tid, uint64_t time, uint32_t *pid,
				   const char **comm);
void fr_offcpu__set_identify(struct fr_offcpu *oc, fr_offcpu_identify identify, void *ctx);

/* Events, in time order. s: the switch-out sample (its comm and frames, copied
 * here), or NULL when no stack was recorded. */
int fr_offcpu__switch_out(struct fr_offcpu *oc, uint32_t pid, uint32_t tid, uint64_t time,
			  enum fr_wait_state st, const struct fr_rsample *s);
int fr_offcpu__task_dead(struct fr_offcpu *oc, uint32_t tid, uint64_t time);
int fr_offcpu__switch_in(struct fr_offcpu *oc, uint32_t tid, uint64_t time);
/* The same for a thread already seen, else nothing (per task, next_pid may
 * be a task that is not recorded), told by the switch that brought it in:
 * its own switch record (fr_offcpu__switch_in) tells the same switch-in
 * again, later, and is taken as that. A thread told in again otherwise has
 * lost a switch-out: the time since is unknown. */
int fr_offcpu__switch_in_known(struct fr_offcpu *oc, uint32_t tid, uint64_t time);
int fr_offcpu__wakeup(struct fr_offcpu *oc, uint32_t tid, uint64_t time);
/* The same, by thread wtid of process wpid (the wait keeps who woke it). */
int fr_offcpu__woken_by(struct fr_offcpu *oc, uint32_t tid, uint64_t time, uint32_t wpid,
			uint32_t wtid);
/* A sample of tid at time (it was running): a wait still open then lost its
 * switch-in, and ends at its wakeup, or there (counted). */
int fr_offcpu__ran(struct fr_offcpu *oc, uint32_t tid, uint64_t time);
/* The scheduler delay of tid's last closed S or D wait, told after it (by
 * its next switch-out: the kernel's sched_info.run_delay): the thread's and
 * the totals' delay, and the kept wait's wake (end - delay_ns). Once. */
int fr_offcpu__run_delay(struct fr_offcpu *oc, uint32_t tid, uint64_t delay_ns);
/* The switches carry no stacks: each S or D wait's stack comes apart, after
 * its switch-in, for every wait of thresh_ns or more and a sample of the
 * shorter ones (record --off-cpu-thresh). A wait's stack is folded when it
 * comes; a long wait none came for by the thread's next wait goes under
 * "[stack not recorded]", a short one under the sampled ones' weight. */
void fr_offcpu__set_thresh(struct fr_offcpu *oc, uint64_t thresh_ns);
uint64_t fr_offcpu__thresh(const struct fr_offcpu *oc);   /* 0: every stack at its switch */
/* Process pid's waits have no stacks by design (the recorder's own, which
 * its programs leave out): its long waits go under "[the recorder's own:
 * stack not taken]" and are counted apart from the lost ones. 0: none. */
void fr_offcpu__set_unstacked(struct fr_offcpu *oc, uint32_t pid);
/* The stack of tid's last closed wait, from an offcpu-stack sample: the
 * length it was sampled by (off_ns: the wait as the kernel measured it, or,
 * with in_ns, its span from the thread's previous switch-in), the threshold
 * it was sampled under, the time of the switch-in that ended the wait (0:
 * not known, the wait is found by its length), s->frames leaf first (none:
 * "[stack not recorded]"). A stack whose switch-in ended no sleep (a
 * preemption's) is not used. */
int fr_offcpu__wait_stack(struct fr_offcpu *oc, uint32_t tid, uint64_t off_ns,
			  uint64_t thresh_ns, uint64_t in_ns, const struct fr_rsample *s);
/* FORK: the thread exists from time on (it is not cut at the window's start). */
int fr_offcpu__fork(struct fr_offcpu *oc, uint32_t pid, uint32_t tid, uint64_t time);
/* Close what is open at the window's end (t1); call once, after the last event. */
int fr_offcpu__finish(struct fr_offcpu *oc);

const struct fr_wait *fr_offcpu__waits(const struct fr_offcpu *oc, size_t *n);
/* keep: the spans whose state is not known (pid, tid, start, end). */
const struct fr_wait *fr_offcpu__unknowns(const struct fr_offcpu *oc, size_t *n);
void fr_offcpu__totals(const struct fr_offcpu *oc, struct fr_offcpu_totals *t);

/* One thread's wall-clock view: from its first time in the window (the
 * window's start or its fork) to its exit or the window's end; on + the
 * off[] + unknown add up to end - start. Running time is counted from a
 * switch-in (or the window's start) to a seen switch-out or its exit; where
 * a switch-out was not recorded (switched in again; or nothing seen of the
 * thread at all) the time is unknown, never running. */
struct fr_thread_time {
	uint32_t pid, tid;
	const char *comm;            /* from its last switch-out, or NULL */
	uint64_t start, end, on_ns, off_ns[FR_WAIT_NR], delay_ns;
	uint64_t waits;
	uint64_t unknown_ns;
	size_t index;                /* its i in fr_offcpu__thread(oc, i, ...) */
};
/* Its off-CPU time: S + D + R. */
static inline uint64_t fr_thread_time__off(const struct fr_thread_time *t)
{
	return t->off_ns[FR_WAIT_S] + t->off_ns[FR_WAIT_D] + t->off_ns[FR_WAIT_R];
}
/* The threads shown (after fr_offcpu__finish: the selected ones), and all. */
size_t fr_offcpu__nr_threads(const struct fr_offcpu *oc);
size_t fr_offcpu__nr_all_threads(const struct fr_offcpu *oc);
void fr_offcpu__thread(const struct fr_offcpu *oc, size_t i, struct fr_thread_time *t);
/* The threads shown, the most off-CPU first (then by pid, tid and start):
 * *n of them, malloc'd, or NULL (no memory). */
struct fr_thread_time *fr_offcpu__by_off(const struct fr_offcpu *oc, size_t *n);
/* Thread lives (fr_offcpu__by_off's) sorted by tid, then start; the last
 * life of tid begun by time in such an array (alive then or not), or NULL. */
void fr_thread_times__sort(struct fr_thread_time *v, size_t n);
const struct fr_thread_time *fr_thread_times__at(const struct fr_thread_time *v, size_t n,
						 uint32_t tid, uint64_t time);
/* The off-CPU stacks (leaf first, outermost a "[off-cpu: ...]" state frame),
 * weights in ns. */
struct fr_folded *fr_offcpu__folded(struct fr_offcpu *oc);
/* The state of a stack whose outermost frame is a state frame; -1 if not. */
int fr_offcpu__frame_state(const struct fr_sym *outer);

/* parallel.c: the latency view's parallelism (perf report --latency's): how
 * many threads of each process are on a CPU, from the switches offcpu_in.c
 * reads. A thread counts under its process from its switch-in (or a sample
 * of it: it ran) to its switch-out or death, or until another thread is
 * told on its CPU (each CPU runs one: so a process counts no more threads
 * than the CPUs, and a switch-out never told ends there); its process is the
 * one its switches and forks name, else pid_of's answer (asked once per
 * thread). */
struct fr_par;
typedef uint32_t (*fr_par_pid_of)(void *ctx, uint32_t tid);
int fr_par__new(fr_par_pid_of pid_of, void *ctx, struct fr_par **out);
void fr_par__delete(struct fr_par *p);
/* tid went on CPU cpu (the record's stream; FR_CPU_NONE: not known), so
 * that the thread told on it before is off (pid: its process, 0 when not
 * told); known_only: only a thread told of before, and not dead (per task,
 * a switch's next task may not be ours, or be a dead thread of ours on its
 * way out). tid 0 (the idle task), or with known_only one not told of or
 * dead: none of ours on cpu. */
int fr_par__on(struct fr_par *p, uint32_t cpu, uint32_t pid, uint32_t tid, bool known_only);
/* tid left its CPU (pid: its process, 0 when not told). */
int fr_par__off(struct fr_par *p, uint32_t pid, uint32_t tid);
/* tid was born (runnable, not on a CPU) in pid: alive again if it was dead
 * (a tid reused). */
int fr_par__born(struct fr_par *p, uint32_t pid, uint32_t tid);
/* tid died (EXIT, its last switch): off its CPU, and a switch to it told by
 * another thread (known_only) no longer counts it; its own sample, switch
 * record or birth does. */
void fr_par__dead(struct fr_par *p, uint32_t tid);
/* The parallelism of a sample of tid in pid: pid's threads on a CPU, tid
 * counted among them whatever was told (so at least 1); 1 for the idle task
 * and for an exiting task's sample (pid -1). */
unsigned fr_par__of(struct fr_par *p, uint32_t pid, uint32_t tid);

/* offcpu_print.c: the text report's off-CPU section (per thread, per
 * function by state, per stack) with ms and %. */
int fr_offcpu__print(struct fr_offcpu *oc, const char *source, double percent_limit, FILE *f);
/* One '#' line: the off-CPU total, and the top threads that waited most. */
int fr_offcpu__summary(struct fr_offcpu *oc, size_t top, FILE *f);

/* offcpu_in.c: a report's records to the waits: sched:sched_switch samples
 * (switch-out with stack and state; the switch-in of next_pid where the
 * recording is not per task), PERF_RECORD_SWITCH (a task's own switch-in,
 * per-task recordings), sched_wakeup/sched_waking, FORK and EXIT. */
struct fr_tpdecode;
struct offcpu_in;
/* Window [t0, t1], started later where a CPU's ring wrapped (its older
 * switches are gone). Each wait also goes to sink (its stack, its ns as the
 * period) where not NULL; keep: the waits kept as intervals (timelines). */
int fr_offcpu_in__new(struct fr_reader *rd, struct fr_resolver *res, struct fr_tpdecode *tp,
		      uint64_t t0, uint64_t t1,
		      int (*sink)(void *ctx, const struct fr_rsample *s), void *sink_ctx,
		      bool keep, struct offcpu_in **out);
void fr_offcpu_in__delete(struct offcpu_in *in);
/* The threads o's --pid, --tid and --comm select (o outlives in). */
void fr_offcpu_in__select(struct offcpu_in *in, const struct fr_report_opts *o);
/* After finish: the threads shown. */
size_t fr_offcpu_in__nr_threads(const struct offcpu_in *in);
/* The text header's line: the off-CPU total, the threads that waited most. */
int fr_offcpu_in__summary(struct offcpu_in *in, FILE *f);
/* e is the offcpu event of record --off-cpu-thresh (switches and stacks of
 * waits, from BPF): never an ordinary sample of the on-CPU views. */
bool fr_offcpu_in__stack_event(const struct fr_file_event *e);
/* The file records context switches (else --off-cpu has nothing to show). */
bool fr_offcpu_in__usable(const struct offcpu_in *in);
/* The same, of a file before any pass: an event that records context
 * switches (sched:sched_switch, the offcpu event, PERF_RECORD_SWITCH). */
bool fr_offcpu_in__in_file(struct fr_reader *rd);
/* The latency view: NULL where the file's switches say which threads are
 * on a CPU when each sample is read (sched:sched_switch, PERF_RECORD_SWITCH),
 * else why not (no switches; only the BPF offcpu event's, which reach the
 * report batched, after the samples they would weigh). */
const char *fr_offcpu_in__no_latency(struct fr_reader *rd);
/* Count each process's threads on a CPU from now on (parallel.c), for
 * fr_offcpu_in__parallelism: 0 or -ENOMEM. */
int fr_offcpu_in__track_parallelism(struct offcpu_in *in);
/* The parallelism of a sample of tid in pid read now (fr_par__of): at least
 * 1; 0 when not tracked. */
unsigned fr_offcpu_in__parallelism(const struct offcpu_in *in, uint32_t pid, uint32_t tid);
/* e is one of the events the waits are made of (not an ordinary sample). */
bool fr_offcpu_in__event(const struct offcpu_in *in, const struct fr_file_event *e);
/* Every record of the pass, in order: FORK, EXIT and SWITCH records and the
 * samples of its events are the stage's (1 for such a sample: no other
 * view's); any other sample says its thread was running then (not from the
 * BPF offcpu event's recordings, whose switches come held back and whole).
 * 0, 1 or -errno. */
int fr_offcpu_in__take(struct offcpu_in *in, const struct fr_rec *r);
/* The file's wakeups carry the waker's stack (sched_waking under -g, with
 * sched_switch): NULL, else why not (report --wakers). */
const char *fr_offcpu_in__no_wakers(struct fr_reader *rd);
/* After finish: the waits joined to their wakers as folded stacks (ns), or
 * NULL (none kept, ENOMEM). */
struct fr_folded *fr_offcpu_in__wakers_folded(struct offcpu_in *in);
int fr_offcpu_in__finish(struct offcpu_in *in);
/* The stage's waits (offcpu.c). */
struct fr_offcpu *fr_offcpu_in__offcpu(struct offcpu_in *in);
int fr_offcpu_in__print(struct offcpu_in *in, double percent_limit, FILE *f);

/* offcpu_print.c: each thread's states in time order, thread by thread
 * (fr_offcpu__thread's order), from its start to its end; needs the waits
 * kept. A non-zero return of cb stops the walk and is returned. */
enum fr_span { FR_SPAN_RUNNING, FR_SPAN_RUNNABLE, FR_SPAN_SLEEPING, FR_SPAN_BLOCKED, FR_SPAN_NR };
extern const char *const fr_span_names[FR_SPAN_NR];
typedef int (*fr_span_cb)(void *ctx, size_t thread, const struct fr_thread_time *t,
			  enum fr_span kind, uint64_t from, uint64_t to);
int fr_offcpu__spans(struct fr_offcpu *oc, fr_span_cb cb, void *ctx);
/* offcpu_print.c: each thread's states as JSON trace slices (running,
 * runnable, sleeping, blocked on I/O) from its start to its end; needs the
 * waits kept (fr_offcpu__new with keep). */
int fr_offcpu__json(struct fr_offcpu *oc, struct fr_json *j);
int fr_offcpu_in__json(struct offcpu_in *in, struct fr_json *j);

/* offcpu_html.c: the HTML page's thread timeline (SVG): a row per thread,
 * its running, runnable, sleeping and blocked spans, the trigger marked;
 * needs the waits kept. fr_offcpu_in__html is fr_html_info's more(). */
int fr_offcpu__html(struct fr_offcpu *oc, FILE *f, const struct fr_html_info *hi);
int fr_offcpu_in__html(void *in, FILE *f, const struct fr_html_info *hi);
/* The window the waits were cut to. */
void fr_offcpu__window(const struct fr_offcpu *oc, uint64_t *t0, uint64_t *t1);

/* critpath.c: one thread's critical path (report --critical-path TID): its
 * time in the window, running (its most sampled function, from the samples
 * given), its waits, and at each wait whose waker is known what that waker
 * did until the wakeup, recursively (its waits, their wakers ...), over
 * [from, to] (the waits may be kept beyond it: those begun before keep
 * their stacks and wakers); printed
 * as a table of where the time went and as the path in time order (segments
 * under min_pct of the path left out). Needs the waits kept and the wakers'
 * joins (fr_wakers__keep_joins) before the pass. -ESRCH: tid was not seen;
 * tid 0: the thread that waited the most. */
struct fr_critpath;
/* A stack's place in a line (critical path rows, the page's wait titles):
 * up to three user frames leaf first, from the library function the program
 * called where the leaf is in a library; past the scheduler's kernel frames
 * where there are no user frames; s leaf first, a state frame outermost
 * left out. */
void fr_wait__where(char *buf, size_t len, const struct fr_sym *const *s, size_t n);
int fr_critpath__new(struct fr_critpath **out);
void fr_critpath__delete(struct fr_critpath *cp);
int fr_critpath__sample(struct fr_critpath *cp, const struct fr_rsample *rs);
int fr_critpath__print(struct fr_critpath *cp, struct fr_offcpu *oc, uint32_t tid,
		       uint64_t from, uint64_t to, double min_pct, FILE *f);

/* wakers.c: who ended each wait. A wakeup (sched:sched_waking) of tid at
 * time by waker (its comm and stack: it fires in the waker's context); each
 * wait as it ends (the stage's folded stack, s->period its ns), joined to the
 * wakeup at wake, its first after the switch-out (0: none recorded: counted
 * apart, never guessed; preempted: no one woke it). */
struct fr_wakers;
struct fr_wakers_totals {
	uint64_t woken, woken_ns;        /* waits joined to their waker */
	uint64_t unwoken, unwoken_ns;    /* S and D waits whose wakeup was not recorded */
	uint64_t preempted_ns;           /* R: no wakeup ends a preemption */
};
int fr_wakers__new(struct fr_wakers **out);
void fr_wakers__delete(struct fr_wakers *wk);
int fr_wakers__wakeup(struct fr_wakers *wk, uint32_t tid, uint64_t time,
		      const struct fr_rsample *waker);
int fr_wakers__wait(struct fr_wakers *wk, const struct fr_rsample *waiter, uint64_t wake,
		    bool preempted);
void fr_wakers__totals(const struct fr_wakers *wk, struct fr_wakers_totals *t);
/* bcc offwaketime's folded stacks, in ns: the waiting thread's name and
 * stack root to leaf, "--", the waker's stack leaf to root and its name.
 * Owned by wk (NULL on ENOMEM). */
struct fr_folded *fr_wakers__folded(struct fr_wakers *wk);
/* The top wakers (heaviest first) of the waits of one stack (comm, frames
 * as the stage's folded set has them): kcomm NULL for the time whose
 * wakeup was not recorded; frames leaf first. */
typedef int (*fr_waker_cb)(void *ctx, const char *kcomm, const struct fr_sym *const *frames,
			   size_t n, uint64_t ns, uint64_t waits);
int fr_wakers__each_of(struct fr_wakers *wk, const char *comm, const struct fr_sym *const *frames,
		       size_t n, size_t top, fr_waker_cb cb, void *ctx);
/* Remember each wait's join from now on, for fr_wakers__join (the critical
 * path asks for one wait's stacks). */
void fr_wakers__keep_joins(struct fr_wakers *wk);
/* One wait's stacks (frames leaf first; w ends with its state frame): its
 * waker's (kcomm NULL and kn 0 where its wakeup was not recorded), or
 * preempted (no one woke it; no stacks). Owned by wk. */
struct fr_waker_join {
	const char *wcomm, *kcomm;
	const struct fr_sym *const *w, *const *k;
	size_t wn, kn;
	bool preempted;
};
/* The join of tid's wait that began at start (as fr_wait.start): 0, or
 * -ENOENT (not kept: not selected, or before fr_wakers__keep_joins). */
int fr_wakers__join(const struct fr_wakers *wk, uint32_t tid, uint64_t start,
		    struct fr_waker_join *j);

#endif
