/* src/report/offcpu/parallel.c: the latency view's parallelism (perf report
 * --latency's): how many threads of each process are on a CPU at a time, from
 * the switch records offcpu_in.c reads, and so the divisor of a sample's weight.
 *
 * Each CPU runs one thread at a time: a thread is counted while it holds a
 * CPU's slot (the CPU whose stream told it), so that a process never counts
 * more threads than the CPUs, and a switch-out never told (a thread's last,
 * not recorded per task; a lost record) ends where another thread comes in
 * on that CPU.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/report/offcpu/offcpu.h"

/* CPUs with a slot: beyond, a record's CPU is taken as not told */
#define MAX_CPUS 65536u

struct pthr {
	uint32_t tid;
	uint32_t pid;       /* its process as known (0: not known) */
	uint32_t counted;   /* on a CPU and counted in proc[counted - 1]; 0: not counted */
	uint32_t proc;      /* its process's proc[proc - 1], 0: not looked up since pid */
	uint32_t cpu;       /* the CPU whose slot holds it, + 1; 0: none */
	bool on;            /* on a CPU (counted, where its process is known) */
	bool asked;         /* pid_of was asked */
	bool dead;          /* exited: another's switch to it is its way out (its
			     * last switch, not recorded per task), not a run */
};

struct pproc {
	uint32_t pid;
	uint32_t running;   /* its threads on a CPU */
};

/* Each switch is told twice or more (per task: the sched_switch sample and
 * the switch records of both tasks, interleaved): the last two threads looked
 * up are kept apart, so that most lookups cost no hashing. */
struct fr_par {
	struct pthr *thr;
	size_t nr_thr, cap_thr;
	struct fr_hmap thr_index;       /* tid -> thr[] */
	size_t last[2];                 /* thr[last[i]]: the last two found (if < nr_thr) */
	struct pproc *proc;
	size_t nr_proc, cap_proc;
	struct fr_hmap proc_index;      /* pid -> proc[] */
	uint32_t *slot;                 /* per CPU: thr[slot - 1] on it, 0: none of ours */
	size_t cap_slot;                /* slots (zeroed) */
	fr_par_pid_of pid_of;
	void *ctx;
};

int fr_par__new(fr_par_pid_of pid_of, void *ctx, struct fr_par **out)
{
	struct fr_par *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->pid_of = pid_of;
	p->ctx = ctx;
	*out = p;
	return 0;
}

void fr_par__delete(struct fr_par *p)
{
	if (!p)
		return;
	free(p->thr);
	free(p->proc);
	free(p->slot);
	fr_hmap__exit(&p->thr_index);
	fr_hmap__exit(&p->proc_index);
	free(p);
}

static inline struct pthr *find_thr(struct fr_par *p, uint32_t tid)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (int k = 0; k < 2; k++)
		if (p->last[k] < p->nr_thr && p->thr[p->last[k]].tid == tid)
			return &p->thr[p->last[k]];
	for (bool ok = fr_hmap__first(&p->thr_index, fr_hash__u64(tid), &it, &i); ok;
	     ok = fr_hmap__next(&p->thr_index, &it, &i))
		if (p->thr[i].tid == tid) {
			p->last[1] = p->last[0];
			p->last[0] = i;
			return &p->thr[i];
		}
	return NULL;
}

static struct pthr *get_thr(struct fr_par *p, uint32_t tid)
{
	struct pthr *t = find_thr(p, tid);

	if (t)
		return t;
	if (p->nr_thr >= UINT32_MAX ||
	    fr_grow(&p->thr, &p->cap_thr, p->nr_thr + 1, sizeof(*p->thr), 64) ||
	    fr_hmap__add(&p->thr_index, fr_hash__u64(tid), (uint32_t)p->nr_thr))
		return NULL;
	p->last[1] = p->last[0];
	p->last[0] = p->nr_thr;
	t = &p->thr[p->nr_thr++];
	*t = (struct pthr){ .tid = tid };
	return t;
}

static struct pproc *find_proc(const struct fr_par *p, uint32_t pid)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&p->proc_index, fr_hash__u64(pid), &it, &i); ok;
	     ok = fr_hmap__next(&p->proc_index, &it, &i))
		if (p->proc[i].pid == pid)
			return &p->proc[i];
	return NULL;
}

static struct pproc *get_proc(struct fr_par *p, uint32_t pid)
{
	struct pproc *pr = find_proc(p, pid);

	if (pr)
		return pr;
	if (p->nr_proc >= UINT32_MAX ||
	    fr_grow(&p->proc, &p->cap_proc, p->nr_proc + 1, sizeof(*p->proc), 16) ||
	    fr_hmap__add(&p->proc_index, fr_hash__u64(pid), (uint32_t)p->nr_proc))
		return NULL;
	pr = &p->proc[p->nr_proc++];
	*pr = (struct pproc){ .pid = pid };
	return pr;
}

/* A process id a thread can count under: not the idle task's (0), not an
 * exiting task's (-1). */
static bool real_pid(uint32_t pid)
{
	return pid && pid != UINT32_MAX;
}

/* t counted under its process where it is known. */
static int count(struct fr_par *p, struct pthr *t)
{
	struct pproc *pr;

	if (t->counted || !real_pid(t->pid))
		return 0;   /* counted already, or of no known process: nowhere */
	if (!t->proc) {
		if (!(pr = get_proc(p, t->pid)))
			return -ENOMEM;
		t->proc = (uint32_t)(pr - p->proc) + 1;
	}
	p->proc[t->proc - 1].running++;
	t->counted = t->proc;
	return 0;
}

/* t no longer counted (on a CPU or not). */
static void uncount(struct fr_par *p, struct pthr *t)
{
	if (t->counted && p->proc[t->counted - 1].running)
		p->proc[t->counted - 1].running--;
	t->counted = 0;
}

/* t off its CPU: its slot freed, no longer counted. */
static void leave(struct fr_par *p, struct pthr *t)
{
	uncount(p, t);
	if (t->cpu && t->cpu <= p->cap_slot && p->slot[t->cpu - 1] == (uint32_t)(t - p->thr) + 1)
		p->slot[t->cpu - 1] = 0;
	t->cpu = 0;
	t->on = false;
}

/* The slot of cpu, or NULL: a CPU not told (a synthesized record) or
 * beyond MAX_CPUS; err: -ENOMEM where it could not be made. */
static uint32_t *slot_of(struct fr_par *p, uint32_t cpu, int *err)
{
	size_t old = p->cap_slot;

	*err = 0;
	if (cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= old) {
		if ((*err = fr_grow(&p->slot, &p->cap_slot, (size_t)cpu + 1, sizeof(*p->slot), 16)))
			return NULL;
		for (size_t i = old; i < p->cap_slot; i++)
			p->slot[i] = 0;
	}
	return &p->slot[cpu];
}

/* Whatever thread of ours cpu's slot holds is off that CPU now. */
static void vacate(struct fr_par *p, uint32_t cpu)
{
	if (cpu < p->cap_slot && p->slot[cpu])
		leave(p, &p->thr[p->slot[cpu] - 1]);
}

/* t on cpu: the thread its slot held off it; t out of the slot of another
 * CPU it was still told on (it left that one unseen). */
static int take_slot(struct fr_par *p, struct pthr *t, uint32_t cpu)
{
	uint32_t idx = (uint32_t)(t - p->thr) + 1, *s;
	int err;

	if (!(s = slot_of(p, cpu, &err)))
		return err;
	if (*s == idx)
		return 0;
	if (*s)
		leave(p, &p->thr[*s - 1]);
	if (t->cpu && t->cpu <= p->cap_slot && p->slot[t->cpu - 1] == idx)
		p->slot[t->cpu - 1] = 0;
	*s = idx;
	t->cpu = cpu + 1;
	return 0;
}

/* t's process is pid from now (a fork, a switch-out's sample): counted
 * there where it is on a CPU. */
static inline int set_pid(struct fr_par *p, struct pthr *t, uint32_t pid)
{
	if (!real_pid(pid) || pid == t->pid)
		return 0;
	uncount(p, t);
	t->pid = pid;
	t->proc = 0;
	t->asked = true;
	return t->on ? count(p, t) : 0;
}

/* fr_par__on past its fast path (apart, so that the fast path's call saves
 * no registers). */
static __attribute__((noinline)) int on(struct fr_par *p, uint32_t cpu, uint32_t pid,
					 uint32_t tid, bool known_only)
{
	struct pthr *t;
	int err;

	if (!tid || !(t = known_only ? find_thr(p, tid) : get_thr(p, tid))) {
		/* the idle task, or a thread not ours: none of ours on cpu */
		vacate(p, cpu);
		return !tid || known_only ? 0 : -ENOMEM;
	}
	if (t->dead && known_only) {
		vacate(p, cpu);   /* on its way out: its last switch */
		return 0;
	}
	t->dead = false;   /* its own record: it runs (a tid reused) */
	if ((err = set_pid(p, t, pid)) || (err = take_slot(p, t, cpu)) || t->on)
		return err;
	if (!real_pid(t->pid) && !t->asked && p->pid_of) {
		t->asked = true;
		pid = p->pid_of(p->ctx, tid);
		if (real_pid(pid))
			t->pid = pid;   /* (not counted, no proc yet) */
	}
	t->on = true;
	return count(p, t);
}

int fr_par__on(struct fr_par *p, uint32_t cpu, uint32_t pid, uint32_t tid, bool known_only)
{
	const struct pthr *t;

	/* told on this CPU already (each sample of a running thread, a
	 * switch-in told twice): the common case, no lookup */
	if (cpu < p->cap_slot && p->slot[cpu] && tid) {
		t = &p->thr[p->slot[cpu] - 1];
		if (t->tid == tid && (!real_pid(pid) || pid == t->pid))
			return 0;
	}
	return on(p, cpu, pid, tid, known_only);
}

int fr_par__off(struct fr_par *p, uint32_t pid, uint32_t tid)
{
	struct pthr *t;

	if (!tid)
		return 0;
	/* a thread first seen leaving: remember its process, if told */
	if (!(t = real_pid(pid) ? get_thr(p, tid) : find_thr(p, tid)))
		return real_pid(pid) ? -ENOMEM : 0;
	leave(p, t);
	return set_pid(p, t, pid);
}

int fr_par__born(struct fr_par *p, uint32_t pid, uint32_t tid)
{
	struct pthr *t;

	if (!tid)
		return 0;
	if (!(t = real_pid(pid) ? get_thr(p, tid) : find_thr(p, tid)))
		return real_pid(pid) ? -ENOMEM : 0;
	leave(p, t);
	t->dead = false;
	return set_pid(p, t, pid);
}

void fr_par__dead(struct fr_par *p, uint32_t tid)
{
	struct pthr *t;

	if (tid && (t = find_thr(p, tid))) {
		leave(p, t);
		t->dead = true;
	}
}

unsigned fr_par__of(struct fr_par *p, uint32_t pid, uint32_t tid)
{
	const struct pthr *t;
	const struct pproc *pr;
	uint64_t n;

	if (!real_pid(pid) || !tid)
		return 1;
	/* the sample's own thread runs: counted once, whatever was told */
	t = find_thr(p, tid);
	if (t && t->counted && t->pid == pid && p->proc[t->counted - 1].running)
		return p->proc[t->counted - 1].running;
	pr = find_proc(p, pid);
	n = (pr ? pr->running : 0) + 1ull;
	return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}
