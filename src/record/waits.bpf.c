/* src/record/waits.bpf.c: the in-kernel half of record --off-cpu-thresh:
 * each context switch (who went out, in what state, who came in after how
 * long runnable) appended to its CPU's batch, which goes out as one sample
 * of the offcpu event when full, before a wait's stack, and at a CPU clock
 * tick once 5 ms old (fr_tick, fr_flush); for a thread switched in whose
 * span since its previous switch-in is thresh_ns or more (a shorter one of s
 * ns with probability s / scale, the CPU's scale following a budget of such
 * stacks: waits_rate.h) its kernel stack at the switch-in and, as it returns
 * to user space in its own context (rseq_update), its user stack: one more
 * sample with both. No state of its own per thread: the scheduler's
 * sched_info has it (doc/format.md "The offcpu event", doc/design-notes.md
 * "Off-CPU time always on").
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "src/record/waits_clock.h"
#include "src/record/waits_rate.h"

#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_DEAD 0x80        /* __state of a task's last switch */
#define TASK_NOLOAD 0x400     /* with UNINTERRUPTIBLE: an idle wait (I), not I/O */
#define PF_KTHREAD 0x00200000
#define MAX_FRAMES 64

enum { KIND_SWITCH = 1, KIND_BATCH = 3, KIND_STACK_IN = 5 };
#define BATCH 255             /* switches per batch sample (nr is a byte) */
#define DT_MAX (1u << 30)     /* a batch spans less than this (ns): dt and state share a u32 */
#define FLUSH_AGE_NS 5000000  /* a tick writes a batch out once its first switch is this old */
#define MAX_CPUS 1024         /* ticks[] (a CPU past it is flushed, not told) */
enum { ST_R, ST_S, ST_D, ST_DEAD };
#define F_USER 1              /* user[] holds the user stack as the waiter returned to user space */
#define B_DELAY_IN 1          /* a batch's flags: delay_ns is next's, before its switch-in */

/* CO-RE: the fields read, placed by the kernel's BTF at load time */
/* set by the scheduler as it puts the task on a CPU, after the tracepoint:
 * at sched_switch, next's are of its previous run */
struct sched_info {
	unsigned long long last_arrival;   /* its previous switch-in (rq clock); 0: it never ran */
	unsigned long long last_queued;    /* when it became runnable (woken or preempted); 0: not */
} __attribute__((preserve_access_index));

/* the CPU's runqueue, reached from the task switched out: its clock, which
 * the scheduler updated as the switch began (a cfs_rq has its rq with
 * FAIR_GROUP_SCHED; without it the switches read CLOCK_MONOTONIC) */
struct rq {
	unsigned long long clock;
} __attribute__((preserve_access_index));

struct cfs_rq {
	struct rq *rq;
} __attribute__((preserve_access_index));

struct sched_entity {
	struct cfs_rq *cfs_rq;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	unsigned int flags;
	struct sched_info sched_info;
	struct sched_entity se;
} __attribute__((preserve_access_index));

/* A switch: the task that ran went out (the batch's first prev, then each
 * switch's next in turn), next came in. */
struct switch_rec {
	__u32 dt_state;    /* ns after the batch's base (bits 0-29); the state prev went
	                    * out in (bits 30-31): ST_R preempted, ST_S, ST_D, ST_DEAD */
	__u32 next_tid, next_pid;
	__u32 delay_ns;    /* next: runnable before this switch-in (what the scheduler adds to
	                    * its sched_info.run_delay now), saturated; 0: none or not known */
};

/* A CPU's switches not yet written: one sample of the offcpu event holds
 * the header and nr switches. */
struct batch {
	__u8 kind;         /* KIND_BATCH */
	__u8 nr;
	__u8 busy;         /* fr_resume is writing (the timer, which can interrupt it, waits) */
	__u8 flags;        /* B_DELAY_IN */
	__u32 prev_tid, prev_pid;   /* the first switch's prev (0: the idle task) */
	__u32 pad2;
	__u64 base;        /* the first switch's time (CLOCK_MONOTONIC ns) */
	struct switch_rec recs[BATCH];
	/* not written out: */
	__u32 last_next;        /* the last switch's next: the next switch's prev */
	__u32 pend_tid;         /* the thread switched in last here, where it has a wait
	                         * in pending (0: none): the return to user space and the
	                         * switch-out that read pending are its */
	struct fr_wclock clk;   /* this CPU's rq clock on CLOCK_MONOTONIC */
	struct fr_wrate rate;   /* this CPU's sampling of short waits */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct batch);
} batches SEC(".maps");

/* A wait's stacks, innermost first. */
struct wait_rec {
	__u32 kind;        /* KIND_STACK_IN */
	__u32 flags;
	__u64 span_ns;     /* the waiter's previous switch-in to this one: its run, then its wait */
	__u64 thresh_ns;   /* span_ns under it: kept with probability span_ns / thresh_ns (the
	                    * CPU's scale then); else thresh_ns, and always kept */
	__u64 in_ns;       /* the switch-in, as its batch has it */
	__u32 tid, pid;
	__u32 nr_kernel, nr_user;
	__u64 kernel[MAX_FRAMES];
	__u64 user[MAX_FRAMES];
};

/* tid -> the wait that ended, until it returns to user space (or switches
 * out): only waits whose stack is kept pass through it; an entry is made at
 * a switch-in on the thread's CPU and removed in its own context (its return
 * to user space, its next switch-out), so never by two CPUs at once. LRU: a
 * thread whose switch-out the tracepoint never shows (this development
 * VM's init has such threads) leaves its entry, which must not fill it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct wait_rec);
} pending SEC(".maps");

/* the offcpu event of each CPU, by CPU number */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} samples SEC(".maps");

const volatile __u64 thresh_ns = 10000000;   /* at most 2^32 ns: see the sampling */
const volatile __u32 stack_target = 12;      /* short waits' stacks a CPU keeps a period */
/* entries of threads preempted before their return to user space: while
 * none (nearly always), a switch-in looks nothing up */
__u32 nr_preempted;
const volatile __u32 self_tgid = 0;          /* the recorder's own threads: no stacks */
/* each CPU's time before which every switch is out, as of its last tick
 * (CLOCK_MONOTONIC ns): the recorder waits for one past a snapshot's
 * trigger; on lines of their own, away from nr_preempted, which every
 * switch-in reads */
__u64 ticks[MAX_CPUS] __attribute__((aligned(64)));

static const struct wait_rec zero;

static __always_inline void emit_stack(void *ctx, struct wait_rec *r)
{
	__u64 size = sizeof(*r) - sizeof(r->user) + ((__u64)(r->nr_user & (MAX_FRAMES - 1)) << 3);

	if (r->nr_user >= MAX_FRAMES)
		size = sizeof(*r);
	bpf_perf_event_output(ctx, &samples, BPF_F_CURRENT_CPU, r, size);
}

/* The batch out as one sample (busy or not: the callers cannot be interrupted
 * by another writer of b but the timer, which checks busy). */
static __always_inline void flush(void *ctx, struct batch *b)
{
	__u32 n = b->nr;

	if (!n)
		return;
	if (n > BATCH)
		n = BATCH;
	b->kind = KIND_BATCH;
	b->flags = B_DELAY_IN;
	bpf_perf_event_output(ctx, &samples, BPF_F_CURRENT_CPU, b,
			      __builtin_offsetof(struct batch, recs) + (__u64)n * sizeof(b->recs[0]));
	b->nr = 0;
}

/* This CPU's rq clock (prev ran here), or 0 where the kernel cannot give it
 * (a NULL on the way reads 0: BTF pointer loads fault to 0). */
static __always_inline __u64 rq_clock(struct task_struct *prev)
{
	if (!bpf_core_field_exists(prev->se.cfs_rq) ||
	    !bpf_core_field_exists(((struct cfs_rq *)0)->rq))
		return 0;
	return prev->se.cfs_rq->rq->clock;
}

/* The switch's time on CLOCK_MONOTONIC: the rq clock is a load where
 * bpf_ktime_get_ns() took ~65 of fr_switch's ~220 ns under pgbench; one
 * CLOCK_MONOTONIC read per batch calibrates it (waits_clock.h). */
static __always_inline __u64 switch_time(struct batch *b, __u64 clk)
{
	if (!clk)
		return fr_wclock__time(&b->clk, 0, bpf_ktime_get_ns());
	if (!b->nr || !b->clk.at)
		fr_wclock__calibrate(&b->clk, bpf_ktime_get_ns(), clk);
	return fr_wclock__time(&b->clk, clk, 0);
}

static __always_inline __u8 state_of(_Bool preempt, unsigned int s)
{
	if (s & TASK_DEAD)
		return ST_DEAD;
	if (preempt || !s)
		return ST_R;
	return (s & TASK_UNINTERRUPTIBLE) && !(s & TASK_NOLOAD) ? ST_D : ST_S;
}

/* A wait's stack that was pending for tid, out now (after the switches
 * before it), kernel stack only where no user stack was taken. */
static __always_inline void emit_pending(void *ctx, struct batch *b, __u32 tid, struct wait_rec *r)
{
	flush(ctx, b);
	emit_stack(ctx, r);
	bpf_map_delete_elem(&pending, &tid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fr_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 tid = (__u32)prev->pid, ntid = (__u32)next->pid, key = 0, i;
	__u8 state = state_of(preempt, prev_state);
	struct switch_rec *sr;
	struct batch *b = bpf_map_lookup_elem(&batches, &key);
	__u64 clk, now, q, arrived, span, scale;
	struct wait_rec *r;
	long n;

	if (!b)
		return 0;
	/* prev: a wait whose thread sleeps again (or dies) before its call
	 * returned goes now, without its user stack, after the switches before
	 * it; a preempted one keeps it pending for its return to user space */
	if (b->pend_tid && b->pend_tid == tid) {
		if (state == ST_R)
			__sync_fetch_and_add(&nr_preempted, 1);
		else if ((r = bpf_map_lookup_elem(&pending, &tid)))
			emit_pending(ctx, b, tid, r);
	}
	/* (one not prev's: its switch-out was not seen, its entry left to the LRU) */
	b->pend_tid = 0;
	clk = rq_clock(prev);
	now = switch_time(b, clk);
	/* a batch names each switch's prev by the switch before's next: where
	 * a switch the tracepoint did not show came between (this development
	 * VM's init has threads whose switch-outs it never shows), a new batch
	 * names prev */
	if (b->nr && (now - b->base >= DT_MAX || b->last_next != tid))
		flush(ctx, b);
	if (!b->nr) {
		b->base = now;
		b->prev_tid = tid;
		b->prev_pid = (__u32)prev->tgid;
	}
	i = b->nr;
	if (i >= BATCH)   /* flushed when full: not reached */
		return 0;
	sr = &b->recs[i];
	sr->dt_state = (__u32)(now - b->base) | ((__u32)state << 30);
	sr->next_tid = ntid;
	sr->next_pid = (__u32)next->tgid;
	sr->delay_ns = 0;
	/* next: runnable since it was woken or preempted, on this rq's clock
	 * (the scheduler adds the same to its run_delay as it arrives) */
	q = ntid && clk ? next->sched_info.last_queued : 0;
	if (q && clk >= q)
		sr->delay_ns = clk - q > 0xffffffffull ? 0xffffffffu : (__u32)(clk - q);
	b->nr = i + 1;
	b->last_next = ntid;
	if (b->nr >= BATCH)
		flush(ctx, b);
	if (!ntid || !clk)
		return 0;
	/* a thread preempted with its wait pending: that one stays, for its
	 * return to user space here */
	if (nr_preempted && bpf_map_lookup_elem(&pending, &ntid)) {
		__sync_fetch_and_add(&nr_preempted, -1);
		b->pend_tid = ntid;
		return 0;
	}
	/* its previous switch-in to this one: its run, then its wait; every
	 * wait of thresh_ns or more is in a span that long (a span also holds
	 * a preemption's run and delay: the report keeps only sleeps' stacks) */
	arrived = next->sched_info.last_arrival;
	if (!arrived || clk <= arrived || (__u32)next->tgid == self_tgid)
		return 0;
	span = clk - arrived;
	scale = fr_wrate__keep(&b->rate, span, thresh_ns,
			       span < thresh_ns ? bpf_get_prandom_u32() : 0, stack_target);
	if (!scale)
		return 0;
	/* an entry found here is one whose switch-out was not seen: replaced */
	if (bpf_map_update_elem(&pending, &ntid, &zero, BPF_ANY) ||
	    !(r = bpf_map_lookup_elem(&pending, &ntid)))
		return 0;
	r->kind = KIND_STACK_IN;
	r->span_ns = span;
	r->thresh_ns = scale;
	r->in_ns = now;
	r->tid = ntid;
	r->pid = (__u32)next->tgid;
	n = bpf_get_task_stack(next, r->kernel, sizeof(r->kernel), 0);
	r->nr_kernel = n > 0 ? (__u32)((__u64)n >> 3) : 0;
	if (next->flags & PF_KTHREAD)   /* no user stack to wait for: after its switch-in */
		emit_pending(ctx, b, ntid, r);
	else
		b->pend_tid = ntid;
	return 0;
}

/* as a thread switched in returns to user space, in its own context (rseq's
 * update, which glibc's threads register for, runs once after each switch):
 * the user stack of the thread's ended wait, where one is pending. Once per
 * switch, not per system call. */
SEC("tp_btf/rseq_update")
int BPF_PROG(fr_resume, struct task_struct *task)
{
	struct wait_rec *r;
	struct batch *b;
	__u32 tid, key = 0;
	long n;

	b = bpf_map_lookup_elem(&batches, &key);
	tid = (__u32)task->pid;
	if (!b || !b->pend_tid || b->pend_tid != tid)
		return 0;
	b->pend_tid = 0;
	if (!(r = bpf_map_lookup_elem(&pending, &tid)))
		return 0;
	n = bpf_get_stack(ctx, r->user, sizeof(r->user), BPF_F_USER_STACK);
	r->nr_user = n > 0 ? (__u32)((__u64)n >> 3) : 0;
	r->flags = F_USER;
	/* after the switch-in it ended with: this CPU's batch first (the
	 * timer, which may interrupt this program, leaves it alone meanwhile) */
	b->busy = 1;
	emit_pending(ctx, b, tid, r);
	b->busy = 0;
	return 0;
}

/* Each CPU's tick (waits.c: the ticks of a CPU clock sampler of the
 * recording where one ticks often enough, else a timer of the program's
 * own): the batch out once its first switch is FLUSH_AGE_NS old, so that no
 * switch waits in it much longer than a tick, and not at every tick of a
 * fast sampler (a perf output costs ~2 us whatever it holds); what is out
 * noted for the recorder; the short waits' scale set anew each period. */
static __always_inline void tick(void *ctx)
{
	__u32 key = 0, cpu = bpf_get_smp_processor_id();
	struct batch *b = bpf_map_lookup_elem(&batches, &key);
	__u64 now;

	if (!b)
		return;
	now = bpf_ktime_get_ns();
	fr_wrate__tick(&b->rate, now, thresh_ns, stack_target);
	if (b->busy)
		return;
	if (b->nr && (__s64)(now - b->base) >= FLUSH_AGE_NS)
		flush(ctx, b);
	if (cpu < MAX_CPUS)   /* every switch before this is out */
		ticks[cpu] = b->nr ? b->base : now;
}

/* at the ticks of the program's own timer: no sample of the timer's own */
SEC("perf_event")
int fr_flush(void *ctx)
{
	tick(ctx);
	return 0;
}

/* at the ticks of the recording's sampler: its sample is kept */
SEC("perf_event")
int fr_tick(void *ctx)
{
	tick(ctx);
	return 1;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
