/* src/record/waits.c: loading waits.bpf.c's programs (libbpf skeleton),
 * pointing them at the offcpu event of each CPU, attaching them to the BTF
 * tracepoints sched_switch and rseq_update and to a CPU clock timer per CPU
 * (the batches' flush), and the evlist's writer hooks (a CPU back or new, a
 * flush).
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

#include <bpf/libbpf.h>

#include "src/record/session_internal.h"
#include "src/record/waits.skel.h"
#include "src/record/waits_rate.h"

#define MAX_CPUS 1024          /* waits.bpf.c's ticks[] */
#define FLUSH_WAIT_NS (5 * FR_WAITS_TICK_NS)

struct fr_waits {
	struct fr_waits_bpf *skel;
	struct fr_evlist *el;      /* its CPUs; its writer once attached */
	size_t ev;                 /* the offcpu event's index in the evlist */
	size_t nr_cpus;
	struct bpf_link **timers;  /* fr_flush on each CPU's timer (NULL: none) */
};

/* The CPU clock timer of CPU index ci, running fr_flush at each tick. */
static int open_timer(struct fr_waits *w, size_t ci)
{
	struct perf_event_attr a = { 0 };
	struct bpf_link *l;
	int fd, err;

	bpf_link__destroy(w->timers[ci]);
	w->timers[ci] = NULL;
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = FR_WAITS_TICK_NS;
	fd = (int)syscall(SYS_perf_event_open, &a, -1, fr_evlist__cpu(w->el, ci), -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	l = bpf_program__attach_perf_event(w->skel->progs.fr_flush, fd);
	if (!l) {
		err = errno ? -errno : -EINVAL;
		close(fd);
		return err;
	}
	w->timers[ci] = l;   /* the link owns fd */
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
	return open_timer(w, ci);
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

static int find_event(const struct fr_evlist *el, size_t *ev)
{
	for (size_t i = 0; i < fr_evlist__nr_events(el); i++)
		if (!strcmp(fr_evlist__event(el, i)->name, FR_WAITS_EVENT)) {
			*ev = i;
			return 0;
		}
	return -ENOENT;
}

int fr_waits__open(struct fr_evlist *el, uint64_t thresh_ns, uint32_t rate, int self,
		   struct fr_waits **out)
{
	/* the stacks a period: rate a second, rounded, at least 1 */
	uint64_t target = ((uint64_t)rate * FR_WRATE_PERIOD_TICKS * FR_WAITS_TICK_NS + 500000000) /
			  1000000000;
	struct fr_waits *w;
	size_t ev;
	int err;

	_Static_assert(FR_RECORD_MAX_THRESH_NS <= FR_WRATE_MAX_SCALE, "a long wait's scale fits the sampling");
	if (!thresh_ns || thresh_ns > FR_RECORD_MAX_THRESH_NS || !rate || rate > FR_RECORD_MAX_STACK_RATE)
		return -EINVAL;
	if ((err = find_event(el, &ev)))
		return err;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	w->el = el;
	w->ev = ev;
	w->nr_cpus = fr_evlist__nr_cpus(el);
	w->timers = calloc(w->nr_cpus ? w->nr_cpus : 1, sizeof(*w->timers));
	if (!w->timers) {
		err = -ENOMEM;
		goto fail;
	}
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
		    ((err = point_map(w, ci)) || (err = open_timer(w, ci))))
			goto fail;
	if ((err = fr_waits_bpf__attach(w->skel)))
		goto fail;
	/* a CPU back online gets its new event in the map and a timer again */
	fr_evlist__set_writer(el, &writer_ops, w);
	*out = w;
	return 0;
fail:
	fr_waits__delete(w);
	return err < 0 ? err : -EINVAL;
}

/* Each CPU's timer ticks within FR_WAITS_TICK_NS and writes its batch out
 * (unless a stack was being written then: the next tick does): wait for a
 * tick after now on every CPU, a few ticks at most (an offline CPU has none:
 * its batch waits for its return). */
void fr_waits__flush(struct fr_waits *w)
{
	uint64_t t0 = fr_session_now(CLOCK_MONOTONIC), t;

	if (!w || !w->skel->bss)
		return;
	do {
		size_t ci;

		for (ci = 0; ci < w->nr_cpus; ci++) {
			int cpu = fr_evlist__cpu(w->el, ci);

			if (w->timers[ci] && cpu >= 0 && cpu < MAX_CPUS &&
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
	for (size_t ci = 0; w->timers && ci < w->nr_cpus; ci++)
		bpf_link__destroy(w->timers[ci]);
	fr_waits_bpf__destroy(w->skel);
	free(w->timers);
	free(w);
}
