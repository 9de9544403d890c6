/* src/record/waits.c: loading waits.bpf.c's programs (libbpf skeleton),
 * pointing them at the offcpu event of each CPU, attaching them to the BTF
 * tracepoints sched_switch and rseq_update and to each CPU's tick (the
 * batches' flush: the recording's CPU clock sampler where it ticks often
 * enough, else a timer of their own), and the evlist's writer hooks (a CPU
 * back or new, a flush).
 */
#include "config.h"
#include "src/record/waits.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "src/record/session_internal.h"
#include "src/record/waits.skel.h"
#include "src/record/waits_rate.h"

#define MAX_CPUS 1024          /* waits.bpf.c's ticks[] */
#define FLUSH_WAIT_NS (6 * FR_WAITS_TICK_NS)

/* A CPU's tick: fr_tick on the sampler's event (keeping its samples), or
 * fr_flush on a timer of its own. */
struct tick {
	int own_fd;    /* the timer's event, or -1: the sampler's (the evlist's) */
	int link_fd;   /* the program attached (a BPF link: closed, it detaches) */
};

struct fr_waits {
	struct fr_waits_bpf *skel;
	struct fr_evlist *el;      /* its CPUs; its writer once attached */
	size_t ev;                 /* the offcpu event's index in the evlist */
	ssize_t sampler;           /* the event whose ticks flush, or -1: timers */
	size_t nr_cpus;
	struct tick *ticks;        /* by CPU index (link_fd -1: none) */
};

/* A sampler ticks often enough on its CPU to flush the batches there if it
 * is the CPU clock (a timer whatever runs), at every privilege level and in
 * idle too, at least every 2 FR_WAITS_TICK_NS. */
static bool ticks_often(const struct perf_event_attr *a)
{
	if (a->type != PERF_TYPE_SOFTWARE || a->config != PERF_COUNT_SW_CPU_CLOCK ||
	    a->exclude_user || a->exclude_kernel || a->exclude_idle || !a->sample_period)
		return false;
	if (a->freq)
		return a->sample_freq * 2 * FR_WAITS_TICK_NS >= 1000000000ull;
	return a->sample_period <= 2 * FR_WAITS_TICK_NS;
}

static void close_tick(struct tick *t)
{
	if (t->link_fd >= 0)
		close(t->link_fd);
	if (t->own_fd >= 0)
		close(t->own_fd);
	t->link_fd = t->own_fd = -1;
}

/* CPU index ci's tick: the sampler's event there, else a CPU clock timer
 * of FR_WAITS_TICK_NS. */
static int open_tick(struct fr_waits *w, size_t ci)
{
	struct tick *t = &w->ticks[ci];
	struct perf_event_attr a = { 0 };
	struct bpf_program *prog = w->skel->progs.fr_flush;
	int fd = -1, err;

	close_tick(t);
	if (w->sampler >= 0 && (fd = fr_evlist__event_fd(w->el, (size_t)w->sampler, ci)) >= 0) {
		prog = w->skel->progs.fr_tick;
	} else {
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = FR_WAITS_TICK_NS;
		fd = (int)syscall(SYS_perf_event_open, &a, -1, fr_evlist__cpu(w->el, ci), -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		t->own_fd = fd;
	}
	t->link_fd = bpf_link_create(bpf_program__fd(prog), fd, BPF_PERF_EVENT, NULL);
	if (t->link_fd < 0) {
		err = t->link_fd;
		t->link_fd = -1;
		close_tick(t);
		return err;
	}
	return 0;
}

/* CPU index ci's offcpu event into the map by CPU number. */
static int point_map(struct fr_waits *w, size_t ci)
{
	uint32_t cpu = (uint32_t)fr_evlist__cpu(w->el, ci);
	int fd = fr_evlist__event_fd(w->el, w->ev, ci);

	if (fd < 0)
		return -ENOENT;
	return bpf_map__update_elem(w->skel->maps.samples, &cpu, sizeof(cpu), &fd, sizeof(fd),
				    BPF_ANY);
}

static int cpu_reopened(void *ctx, struct fr_evlist *el, size_t ci)
{
	struct fr_waits *w = ctx;
	int err;

	if (ci >= w->nr_cpus || el != w->el)
		return -EINVAL;
	if ((err = point_map(w, ci)))
		return err;
	return open_tick(w, ci);
}

static void flush_cb(void *ctx)
{
	fr_waits__flush(ctx);
}

static const struct fr_evlist_writer_ops writer_ops = {
	.cpu_reopened = cpu_reopened,
	.flush = flush_cb,
};

/* library code says nothing: libbpf's messages are dropped */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* The offcpu event's index, and the first sampler whose ticks can flush
 * (-1: none). */
static int find_events(const struct fr_evlist *el, size_t *ev, ssize_t *sampler)
{
	int err = -ENOENT;

	*sampler = -1;
	for (size_t i = 0; i < fr_evlist__nr_events(el); i++) {
		const struct fr_event *e = fr_evlist__event(el, i);

		if (!strcmp(e->name, FR_WAITS_EVENT)) {
			*ev = i;
			err = 0;
		} else if (*sampler < 0 && ticks_often(&e->attr)) {
			*sampler = (ssize_t)i;
		}
	}
	return err;
}

int fr_waits__open(struct fr_evlist *el, uint64_t thresh_ns, uint32_t rate, int self,
		   struct fr_waits **out)
{
	/* the stacks a period: rate a second, rounded, at least 1 */
	uint64_t target = ((uint64_t)rate * FR_WRATE_PERIOD_NS + 500000000) / 1000000000;
	struct fr_waits *w;
	ssize_t sampler;
	size_t ev;
	int err;

	_Static_assert(FR_RECORD_MAX_THRESH_NS <= FR_WRATE_MAX_SCALE, "a long wait's scale fits the sampling");
	if (!thresh_ns || thresh_ns > FR_RECORD_MAX_THRESH_NS || !rate || rate > FR_RECORD_MAX_STACK_RATE)
		return -EINVAL;
	if ((err = find_events(el, &ev, &sampler)))
		return err;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	w->el = el;
	w->ev = ev;
	w->sampler = sampler;
	w->nr_cpus = fr_evlist__nr_cpus(el);
	w->ticks = calloc(w->nr_cpus ? w->nr_cpus : 1, sizeof(*w->ticks));
	if (!w->ticks) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t ci = 0; ci < w->nr_cpus; ci++)
		w->ticks[ci].own_fd = w->ticks[ci].link_fd = -1;
	libbpf_set_print(quiet);
	if (!(w->skel = fr_waits_bpf__open())) {
		err = errno ? -errno : -ENOMEM;
		goto fail;
	}
	w->skel->rodata->thresh_ns = thresh_ns;
	w->skel->rodata->stack_target = target ? (uint32_t)target : 1;
	w->skel->rodata->self_tgid = (uint32_t)self;
	if ((err = fr_waits_bpf__load(w->skel)))
		goto fail;
	for (size_t ci = 0; ci < w->nr_cpus; ci++)   /* a CPU offline: when it comes */
		if (fr_evlist__cpu_opened(el, ci) &&
		    ((err = point_map(w, ci)) || (err = open_tick(w, ci))))
			goto fail;
	if ((err = fr_waits_bpf__attach(w->skel)))
		goto fail;
	/* a CPU back online gets its new event in the map and a tick again */
	fr_evlist__set_writer(el, &writer_ops, w);
	*out = w;
	return 0;
fail:
	fr_waits__delete(w);
	return err < 0 ? err : -EINVAL;
}

/* Each CPU's tick (within 2 FR_WAITS_TICK_NS) writes out a batch 5 ms old
 * (unless a stack was being written then: the next tick does) and says
 * before when every switch is out: wait for that to pass now on every CPU,
 * two ticks or so (an offline CPU has none: its batch waits for its
 * return). */
void fr_waits__flush(struct fr_waits *w)
{
	uint64_t t0 = fr_session_now(CLOCK_MONOTONIC), t;

	if (!w || !w->skel->bss)
		return;
	do {
		size_t ci;

		for (ci = 0; ci < w->nr_cpus; ci++) {
			int cpu = fr_evlist__cpu(w->el, ci);

			if (w->ticks[ci].link_fd >= 0 && cpu >= 0 && cpu < MAX_CPUS &&
			    __atomic_load_n(&w->skel->bss->ticks[cpu], __ATOMIC_ACQUIRE) <= t0)
				break;
		}
		if (ci == w->nr_cpus)
			return;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		t = fr_session_now(CLOCK_MONOTONIC);
	} while (t - t0 < FLUSH_WAIT_NS);
}

void fr_waits__delete(struct fr_waits *w)
{
	if (!w)
		return;
	fr_evlist__set_writer(w->el, NULL, NULL);   /* whether or not attached yet */
	for (size_t ci = 0; w->ticks && ci < w->nr_cpus; ci++)
		close_tick(&w->ticks[ci]);
	fr_waits_bpf__destroy(w->skel);
	free(w->ticks);
	free(w);
}
