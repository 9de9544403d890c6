/* src/record/waits.bpf.c: the in-kernel half of the off-CPU stacks of
 * --off-cpu-thresh. At each context switch: the switch-out time of a thread
 * that goes to sleep; at its switch-in, for a sleep of thresh_ns or more (a
 * shorter one of d ns with probability d / thresh_ns), its kernel stack, and
 * as the sleep's system call returns, in the thread's own context, its user
 * stack: then one offcpu-stack sample with both in its raw data
 * (doc/format.md "offcpu-stack", doc/design-notes.md "Off-CPU stacks for the
 * waits that matter").
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define TASK_DEAD 0x80        /* prev_state of a task's last switch */
#define PF_KTHREAD 0x00200000
#define MAX_FRAMES 64
#define F_USER 1              /* user[] holds the user stack as the wait's call returned */

/* CO-RE: the fields read, placed by the kernel's BTF at load time */
struct task_struct {
	int pid;
	int tgid;
	unsigned int flags;
} __attribute__((preserve_access_index));
struct pt_regs;

/* Each thread's own: its switch-out time, and whether a wait of it waits
 * in pending for its call to return (task local storage: no lookup by tid
 * on the paths every switch and every system call take). */
struct wait {
	__u64 out;        /* switch-out time (CLOCK_MONOTONIC ns); 0: running */
	__u32 pending;    /* pending holds its ended wait */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct wait);
} waits SEC(".maps");

/* The sample's raw data (doc/format.md "offcpu-stack"): stacks leaf first. */
struct wait_rec {
	__u64 off_ns;      /* switch-out to switch-in, as measured here */
	__u64 thresh_ns;   /* waits under it were sampled with probability off_ns / thresh_ns */
	__u32 tid, pid;
	__u32 nr_kernel, nr_user;
	__u32 flags, pad;
	__u64 kernel[MAX_FRAMES];
	__u64 user[MAX_FRAMES];
};

/* tid -> the wait that ended, until its call returns (or it switches out):
 * only waits whose stack is kept pass through it */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct wait_rec);
} pending SEC(".maps");

/* the offcpu-stack event of each CPU, by CPU number */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} samples SEC(".maps");

const volatile __u64 thresh_ns = 10000000;   /* at most 2^32 ns: see the sampling */
const volatile __u32 self_tgid = 0;          /* the recorder's own threads: left out */

static __always_inline void emit(void *ctx, struct wait_rec *r)
{
	__u64 size = sizeof(*r) - sizeof(r->user) + ((__u64)(r->nr_user & (MAX_FRAMES - 1)) << 3);

	if (r->nr_user >= MAX_FRAMES)
		size = sizeof(*r);
	bpf_perf_event_output(ctx, &samples, BPF_F_CURRENT_CPU, r, size);
}

static const struct wait_rec zero;

SEC("tp_btf/sched_switch")
int BPF_PROG(fr_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 tid = (__u32)prev->pid, ntid = (__u32)next->pid;
	__u64 now, d;
	struct wait_rec *r;
	struct wait *w;
	long n;

	/* prev: a wait that ended without its call returning goes now, without
	 * its user stack; a sleep begins (a preemption is no sleep) */
	if (tid && (__u32)prev->tgid != self_tgid) {
		w = bpf_task_storage_get(&waits, prev, 0, (prev_state & TASK_DEAD) ? 0 :
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (w && w->pending) {
			if ((r = bpf_map_lookup_elem(&pending, &tid)))
				emit(ctx, r);
			bpf_map_delete_elem(&pending, &tid);
			w->pending = 0;
		}
		if (w && !(prev_state & TASK_DEAD))
			w->out = prev_state && !preempt ? bpf_ktime_get_ns() : 0;
	}
	/* next: its sleep ends; a long one (or a short one sampled) keeps the
	 * kernel stack it slept on */
	if (!ntid || !(w = bpf_task_storage_get(&waits, next, 0, 0)) || !w->out)
		return 0;
	now = bpf_ktime_get_ns();
	d = now > w->out ? now - w->out : 1;
	w->out = 0;
	if (d < thresh_ns && (((__u64)bpf_get_prandom_u32() * thresh_ns) >> 32) >= d)
		return 0;
	if (bpf_map_update_elem(&pending, &ntid, &zero, BPF_ANY) ||
	    !(r = bpf_map_lookup_elem(&pending, &ntid)))
		return 0;
	r->off_ns = d;
	r->thresh_ns = thresh_ns;
	r->tid = ntid;
	r->pid = (__u32)next->tgid;
	n = bpf_get_task_stack(next, r->kernel, sizeof(r->kernel), 0);
	r->nr_kernel = n > 0 ? (__u32)((__u64)n >> 3) : 0;
	if (next->flags & PF_KTHREAD) {   /* no user stack to wait for */
		emit(ctx, r);
		bpf_map_delete_elem(&pending, &ntid);
	} else {
		w->pending = 1;
	}
	return 0;
}

/* as a system call returns, in its thread's context: the user stack of the
 * thread's ended wait (the task's storage says whether there is one) */
SEC("tp_btf/sys_exit")
int BPF_PROG(fr_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct wait *w = bpf_task_storage_get(&waits, task, 0, 0);
	struct wait_rec *r;
	__u32 tid;
	long n;

	if (!w || !w->pending)
		return 0;
	w->pending = 0;
	tid = (__u32)task->pid;
	if (!(r = bpf_map_lookup_elem(&pending, &tid)))
		return 0;
	n = bpf_get_stack(ctx, r->user, sizeof(r->user), BPF_F_USER_STACK);
	r->nr_user = n > 0 ? (__u32)((__u64)n >> 3) : 0;
	r->flags = F_USER;
	emit(ctx, r);
	bpf_map_delete_elem(&pending, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
