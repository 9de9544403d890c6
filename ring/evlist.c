/* ring/evlist.c: opening a recording's events (per CPU, per target task,
 * again for a CPU back online), mmapping the sample and sideband rings,
 * tracepoint filters, enabling; reading them is ring/evlist_read.c's.
 */
#include "config.h"
#include "base/grow.h"
#include "ring/evlist_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct fr_evlist *fr_evlist__new(void)
{
	struct fr_evlist *el = calloc(1, sizeof(*el));

	if (el)
		el->sb_event.name = (char *)"sideband";
	return el;
}

void fr_evlist__delete(struct fr_evlist *el)
{
	if (!el)
		return;
	fr_copier__delete(el->copier);
	for (size_t i = 0; i < el->nr_cpus && el->rings; i++) {
		fr_ring__delete(el->rings[i].samples);
		fr_ring__delete(el->rings[i].sideband);
		fr_ring__delete(el->rings[i].trigger);
	}
	fr_event__delete(el->trig_event);
	fr_event__delete(el->trig_end);
	for (size_t i = 0; i < el->nr_name_tps; i++)
		fr_event__delete(el->name_tps[i]);
	free(el->trig_filter);
	for (size_t i = 0; i < el->nr_fds; i++)
		close(el->fds[i].fd);
	for (size_t i = 0; i < el->nr_events; i++) {
		fr_event__delete(el->events[i]);
		if (el->ids)
			free(el->ids[i]);
	}
	free(el->ids);
	free(el->nr_ids);
	free(el->cap_ids);
	free(el->events);
	free(el->cpus);
	free(el->rings);
	free(el->fds);
	free(el);
}

int fr_evlist__add(struct fr_evlist *el, struct fr_event *ev)
{
	if (fr_grow(&el->events, &el->cap_events, el->nr_events + 1, sizeof(*el->events), 4)) {
		fr_event__delete(ev);
		return -ENOMEM;
	}
	el->events[el->nr_events++] = ev;
	return 0;
}

size_t fr_evlist__nr_events(const struct fr_evlist *el)
{
	return el->nr_events;
}

struct fr_event *fr_evlist__event(const struct fr_evlist *el, size_t i)
{
	return i < el->nr_events ? el->events[i] : NULL;
}

const struct fr_event *fr_evlist__sideband_event(const struct fr_evlist *el)
{
	return &el->sb_event;
}

int fr_evlist__set_cpus(struct fr_evlist *el, const int *cpus, size_t n)
{
	if (el->rings || el->cpus)
		return -EBUSY;
	if (!(el->cpus = malloc((n ? n : 1) * sizeof(*el->cpus))))
		return -ENOMEM;
	memcpy(el->cpus, cpus, n * sizeof(*cpus));
	el->nr_cpus = n;
	return 0;
}

size_t fr_evlist__nr_cpus(const struct fr_evlist *el)
{
	return el->nr_cpus;
}

int fr_evlist__cpu(const struct fr_evlist *el, size_t idx)
{
	return idx < el->nr_cpus ? el->cpus[idx] : -1;
}

const uint64_t *fr_evlist__ids(const struct fr_evlist *el, size_t i, size_t *nr)
{
	if (i >= el->nr_events || !el->ids) {
		*nr = 0;
		return NULL;
	}
	*nr = el->nr_ids[i];
	return el->ids[i];
}

static int add_fd(struct fr_evlist *el, int fd, int event, size_t cpu_idx)
{
	if (fr_grow(&el->fds, &el->cap_fds, el->nr_fds + 1, sizeof(*el->fds), 64))
		return -ENOMEM;
	el->fds[el->nr_fds++] = (struct fd_info){ fd, event, cpu_idx };
	return 0;
}

static int add_id(struct fr_evlist *el, size_t ev, int fd)
{
	uint64_t id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	if (fr_grow(&el->ids[ev], &el->cap_ids[ev], el->nr_ids[ev] + 1, sizeof(*el->ids[ev]), 16))
		return -ENOMEM;
	el->ids[ev][el->nr_ids[ev]++] = id;
	return 0;
}

static void setup_sideband_attr(struct fr_evlist *el, const struct fr_evlist_opts *o)
{
	struct perf_event_attr *a = &el->sb_event.attr;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->disabled = 1;
	a->sample_type = PERF_SAMPLE_TIME;   /* pid, tid: in every body already */
	a->sample_id_all = 1;
	a->comm = !el->nr_name_tps;
	a->comm_exec = !el->nr_name_tps;
	a->mmap = 1;
	a->mmap2 = 1;
	a->task = 1;
	a->build_id = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(o->sb_pages * page / 4);
	a->exclude_kernel = o->user_only;
	a->exclude_hv = o->user_only;
	el->sb_event.kind = FR_EVENT_SOFTWARE;
}

/* flags: 0, or PERF_FLAG_PID_CGROUP with pid a cgroup directory's fd */
static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC | flags);
}

/* Open with fall-backs for older kernels: no PERF_FORMAT_LOST, no build_id. */
static int open_one(struct fr_evlist *el, struct perf_event_attr *a, pid_t pid, int cpu,
		    unsigned long flags)
{
	long fd = sys_perf_event_open(a, pid, cpu, flags);

	if (fd < 0 && errno == EINVAL && a->build_id) {
		a->build_id = 0;
		fd = sys_perf_event_open(a, pid, cpu, flags);
	}
#if HAVE_DECL_PERF_FORMAT_LOST
	if (fd < 0 && errno == EINVAL && (a->read_format & PERF_FORMAT_LOST)) {
		a->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		el->read_lost = false;
		fd = sys_perf_event_open(a, pid, cpu, flags);
	}
#endif
	return fd < 0 ? -errno : (int)fd;
}

/* Open one event for (pid, cpu) and attach it to that CPU's ring; the
 * sample events of a cgroup target, and a latency trigger's pair (the
 * cgroup's own slow calls), for the cgroup instead of pid; the sideband
 * and a --trigger event stay system-wide. */
static int open_attach(struct fr_evlist *el, int ev, struct perf_event_attr *a, pid_t pid,
		       size_t ci, const struct fr_evlist_opts *o, struct fr_open_error *oe,
		       const struct fr_target *t)
{
	bool sb = ev == -1 || ev <= -3, trig = ev == -2;
	bool cg = (ev >= 0 || (trig && el->trig_end)) && t->kind == FR_TARGET_CGROUP;
	struct cpu_rings *cr = &el->rings[ci];
	const char *filter = trig ? el->trig_filter : ev >= 0 ? el->events[ev]->filter : NULL;
	int *leader = trig ? &cr->trig_leader : sb ? &cr->sb_leader : &cr->sample_leader;
	struct fr_ring **ring = trig ? &cr->trigger : sb ? &cr->sideband : &cr->samples;
	int fd, err;

	oe->event = ev;
	oe->cpu = el->cpus[ci];
	oe->pid = pid;
	oe->op = "perf_event_open";
	fd = open_one(el, a, cg ? t->cgroup_fd : pid, el->cpus[ci], cg ? PERF_FLAG_PID_CGROUP : 0);
	if (fd < 0)
		return fd;
	err = add_fd(el, fd, ev, ci);
	if (err) {
		close(fd);
		return err;
	}
	if (filter) {
		oe->op = "PERF_EVENT_IOC_SET_FILTER";
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0)
			return -errno;
	}
	if (*leader < 0) {
		oe->op = "mmap";
		err = fr_ring__mmap(fd, trig ? (el->trig_end ? TRIG_PAIR_PAGES : 2)
				    : sb ? o->sb_pages : o->data_pages,
				    (sb || trig) ? false : o->backward, ring);
		if (err)
			return err;
		*leader = fd;
	} else {
		oe->op = "PERF_EVENT_IOC_SET_OUTPUT";
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *leader) < 0)
			return -errno;
	}
	oe->op = "PERF_EVENT_IOC_ID";
	return ev < 0 ? 0 : add_id(el, (size_t)ev, fd);
}

/* The tasks to open for: -1 (all), the child, or every thread of each pid. */
static int target_tids(const struct fr_target *t, pid_t **out)
{
	pid_t *tids = NULL;
	size_t n = 0, cap = 0;

	if (t->kind != FR_TARGET_PIDS) {
		tids = malloc(sizeof(*tids));
		if (!tids)
			return -ENOMEM;
		tids[0] = t->kind == FR_TARGET_CHILD ? t->pids[0] : -1;
		*out = tids;
		return 1;
	}
	for (size_t i = 0; i < t->nr_pids; i++) {
		char path[64];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pids[i]);
		d = opendir(path);
		if (!d) {
			free(tids);
			return -ESRCH;
		}
		while ((de = readdir(d))) {
			char *end;
			long tid = strtol(de->d_name, &end, 10);

			if (de->d_name[0] == '.' || *end || tid <= 0)
				continue;
			if (fr_grow(&tids, &cap, n + 1, sizeof(*tids), 16)) {
				closedir(d);
				free(tids);
				return -ENOMEM;
			}
			tids[n++] = (pid_t)tid;
		}
		closedir(d);
	}
	*out = tids;
	return (int)n;
}

/* Every task's (names_all): enabled at once (no exec enables them, and a
 * CHILD's evlist is not enabled); else the target's, as its samples. */
static void setup_name_attrs(struct fr_evlist *el, const struct fr_target *t)
{
	bool per_task = t->kind == FR_TARGET_PIDS || t->kind == FR_TARGET_CHILD;

	for (size_t k = 0; k < el->nr_name_tps; k++) {
		struct perf_event_attr *x = &el->name_tps[k]->attr;

		x->inherit = per_task && !el->names_all;
		x->enable_on_exec = t->kind == FR_TARGET_CHILD && !el->names_all;
		x->disabled = !el->names_all;
	}
}

static void setup_sample_attrs(struct fr_evlist *el, const struct fr_target *t,
			       const struct fr_evlist_opts *o)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	bool per_task = t->kind == FR_TARGET_PIDS || t->kind == FR_TARGET_CHILD;

	for (size_t i = 0; i < el->nr_events; i++) {
		struct perf_event_attr *a = &el->events[i]->attr;

		a->write_backward = o->backward;
		if (!o->backward || o->drained) {
			/* wake the reader when a quarter of the ring is full, not per
			 * event: three quarters are left for its scheduling latency */
			a->watermark = 1;
			a->wakeup_watermark = (uint32_t)(o->data_pages * page / 4);
		}
		a->inherit = per_task;
		a->enable_on_exec = t->kind == FR_TARGET_CHILD;
		a->context_switch = per_task && el->events[i]->switches;
		if (el->nr_events > 1)
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
#if HAVE_DECL_PERF_FORMAT_LOST
		a->read_format |= PERF_FORMAT_LOST;
#endif
	}
	if (el->nr_name_tps && el->nr_events) {
		/* names: every COMM into the sample ring (one write, never read
		 * while recording); the sideband ring gets the name tracepoints */
		struct perf_event_attr *a = &el->events[0]->attr;

		a->comm = a->comm_exec = 1;
		a->sample_id_all = 1;
	}
	for (size_t k = 0; k < el->nr_name_tps; k++) {
		struct perf_event_attr *x = &el->name_tps[k]->attr;

		x->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
		x->sample_id_all = 1;
		x->sample_period = 1;
		x->freq = 0;
		x->watermark = 0;
		x->wakeup_events = 0;
	}
	setup_name_attrs(el, t);
	if (o->sb_in_samples && el->nr_events) {
		struct perf_event_attr *a = &el->events[0]->attr, *sb = &el->sb_event.attr;

		a->comm = a->comm_exec = a->mmap = a->mmap2 = a->task = 1;
		a->build_id = sb->build_id;
		a->sample_id_all = 1;
	}
	el->sb_event.attr.inherit = per_task;
	el->sb_event.attr.enable_on_exec = t->kind == FR_TARGET_CHILD;
	if (el->trig_event) {
		struct perf_event_attr *a = &el->trig_event->attr;

		a->inherit = per_task;
		a->enable_on_exec = t->kind == FR_TARGET_CHILD;
		a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		a->watermark = 0;
		a->wakeup_events = 1;
	}
	if (el->trig_end) {   /* a pair: every hit read, woken at half the ring, told apart by RAW */
		struct perf_event_attr *b = &el->trig_event->attr, *e = &el->trig_end->attr;
		uint64_t config = e->config;   /* both tracepoints: the same but which */

		b->sample_type |= PERF_SAMPLE_RAW;
		b->watermark = 1;
		b->wakeup_watermark = TRIG_PAIR_PAGES * (uint32_t)getpagesize() / 2;
		b->wakeup_events = 0;
		*e = *b;
		e->config = config;
	}
}

/* The name tracepoints on CPU index ci: every task's (names_all, once per
 * CPU), or those of task tid. Every task's refused on the first CPU (no
 * CAP_PERFMON, perf_event_paranoid > 0): each task's from here on. */
static int open_names(struct fr_evlist *el, pid_t tid, size_t ci, const struct fr_evlist_opts *o,
		      struct fr_open_error *oe, const struct fr_target *t)
{
	size_t x = 0;
	int err;

	if (el->names_all && ci == 0) {
		err = open_attach(el, -3, &el->name_tps[0]->attr, -1, ci, o, oe, t);
		if (err == -EACCES || err == -EPERM) {
			el->names_all = false;
			setup_name_attrs(el, t);
		} else if (err) {
			return err;
		} else {
			x = 1;
		}
	}
	for (err = 0; !err && x < el->nr_name_tps; x++)
		err = open_attach(el, -3 - (int)x, &el->name_tps[x]->attr,
				  el->names_all ? -1 : tid, ci, o, oe, t);
	return err;
}

/* Every event of CPU index ci for task tid (the k-th of the target's). */
static int open_cpu(struct fr_evlist *el, size_t ci, pid_t tid, int k,
		    const struct fr_evlist_opts *o, struct fr_open_error *oe,
		    const struct fr_target *t)
{
	int err = 0;

	for (size_t e = 0; e < el->nr_events && !err; e++)
		err = open_attach(el, (int)e, &el->events[e]->attr, tid, ci, o, oe, t);
	if (!err && !o->sb_in_samples)
		err = open_attach(el, -1, &el->sb_event.attr, tid, ci, o, oe, t);
	if (!err && !o->sb_in_samples && (k == 0 || !el->names_all))
		err = open_names(el, tid, ci, o, oe, t);
	if (!err && el->trig_event)
		err = open_attach(el, -2, &el->trig_event->attr, tid, ci, o, oe, t);
	if (!err && el->trig_end)
		err = open_attach(el, -2, &el->trig_end->attr, tid, ci, o, oe, t);
	return err;
}

/* The CPU slots and their rings' places: a system-wide or cgroup target's
 * CPUs are the possible ones (a CPU offline now gets its events and rings
 * when it comes online: reopen_cpu), a per-task target's those online (its
 * events on a CPU that goes offline stay in the task's context). Slots
 * marked opened here are opened by the caller. Returns 0 or -errno. */
static int open_slots(struct fr_evlist *el, const struct fr_target *t)
{
	int *online = NULL, *possible = NULL, n, np = -ENOENT;
	bool per_cpu = t->kind == FR_TARGET_SYSTEM || t->kind == FR_TARGET_CGROUP;
	bool *on = NULL;

	free(el->cpus);   /* set_cpus's, if any */
	el->cpus = NULL;
	n = fr_cpus__online(&online);
	if (n < 0)
		return n;
	if (per_cpu && (np = fr_cpus__possible(&possible)) > 0 &&
	    (!(on = calloc((size_t)np, sizeof(*on))) ||
	     fr_cpus__mark(possible, (size_t)np, online, (size_t)n, on))) {
		free(possible);   /* a possible list without every online CPU: */
		possible = NULL;  /* as if there were none (only those online) */
		np = on ? -EINVAL : -ENOMEM;
		free(on);
		on = NULL;
	}
	if (np == -ENOMEM) {
		free(online);
		return -ENOMEM;
	}
	if (np > 0) {
		free(online);
		el->cpus = possible;
		n = np;
	} else {
		el->cpus = online;
	}
	el->nr_cpus = (size_t)n;
	el->rings = calloc(el->nr_cpus, sizeof(*el->rings));
	if (!el->rings) {
		free(on);
		return -ENOMEM;
	}
	for (size_t ci = 0; ci < el->nr_cpus; ci++) {
		struct cpu_rings *cr = &el->rings[ci];

		cr->sample_leader = cr->sb_leader = cr->trig_leader = -1;
		cr->opened = !on || on[ci];
	}
	free(on);
	return 0;
}

/* The copy threads, started now so that the first snapshot is as fast as
 * the rest. */
static int start_copier(struct fr_evlist *el, struct fr_open_error *oe)
{
	struct fr_copy_ring *cr = calloc(el->nr_cpus ? el->nr_cpus : 1, sizeof(*cr));
	int err;

	if (!cr)
		return -ENOMEM;
	for (size_t ci = 0; ci < el->nr_cpus; ci++)
		cr[ci] = (struct fr_copy_ring){ .cpu = { el->cpus[ci] },
						.ring = el->rings[ci].samples,
						.fd = el->rings[ci].sample_leader };
	oe->event = -1;
	oe->cpu = -1;
	oe->op = "copy threads";
	err = fr_copier__new(cr, el->nr_cpus, &el->copier);
	free(cr);
	return err;
}

int fr_evlist__open(struct fr_evlist *el, const struct fr_target *t,
		    const struct fr_evlist_opts *o, struct fr_open_error *oe)
{
	struct fr_open_error dummy;
	pid_t *tids = NULL;
	int n, err = 0;

	if (!oe)
		oe = &dummy;
	memset(oe, 0, sizeof(*oe));
	oe->event = -1;
	if (!el->nr_events || el->rings)
		return -EINVAL;
	n = open_slots(el, t);
	if (n < 0)
		return n;
	el->ids = calloc(el->nr_events, sizeof(*el->ids));
	el->nr_ids = calloc(el->nr_events, sizeof(*el->nr_ids));
	el->cap_ids = calloc(el->nr_events, sizeof(*el->cap_ids));
	if (!el->ids || !el->nr_ids || !el->cap_ids)
		return -ENOMEM;
	n = target_tids(t, &tids);
	if (n <= 0) {
		oe->op = "finding the target's threads";
		oe->pid = t->nr_pids ? t->pids[0] : -1;
		oe->err = n ? n : -ESRCH;
		return oe->err;
	}
	el->read_lost = true;
	/* per task, the name tracepoints go on each CPU for every task: each
	 * event in a task's context is offered each of its COMMs (a rename
	 * storm's cost grows with them); the session drops other processes'
	 * execs. Where that is not allowed, they go with the task. */
	el->names_all = (t->kind == FR_TARGET_PIDS || t->kind == FR_TARGET_CHILD) &&
			el->nr_name_tps && !o->sb_in_samples;
	setup_sideband_attr(el, o);
	setup_sample_attrs(el, t, o);
	for (size_t ci = 0; ci < el->nr_cpus && !err; ci++) {
		for (int k = 0; k < n && !err && el->rings[ci].opened; k++)
			err = open_cpu(el, ci, tids[k], k, o, oe, t);
	}
	free(tids);
	el->backward = o->backward;
	el->sb_in_samples = o->sb_in_samples;
	el->target = *t;
	el->opts = *o;
	if (!err && o->backward && !o->drained)
		err = start_copier(el, oe);
	if (err && oe->event >= 0 && el->events[oe->event]->kind == FR_EVENT_HARDWARE &&
	    (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
		err = -EOPNOTSUPP;
	oe->err = err;
	return err;
}

static int ioctl_all(struct fr_evlist *el, unsigned long req)
{
	for (size_t i = 0; i < el->nr_fds; i++)
		if (ioctl(el->fds[i].fd, req, 0) < 0)
			return -errno;
	return 0;
}

int fr_evlist__enable(struct fr_evlist *el)
{
	return ioctl_all(el, PERF_EVENT_IOC_ENABLE);
}

int fr_evlist__reopen_cpu(struct fr_evlist *el, size_t ci)
{
	struct fr_open_error oe;
	size_t from = el->nr_fds;
	struct cpu_rings *cr = ci < el->nr_cpus && el->rings ? &el->rings[ci] : NULL;
	bool first;
	int err;

	if (!cr || (el->target.kind != FR_TARGET_SYSTEM && el->target.kind != FR_TARGET_CGROUP))
		return -EINVAL;
	/* a CPU back online: the rings stay, the new events write into them
	 * (SET_OUTPUT to the old leaders, which keep the mappings), after what
	 * they held. A CPU offline at the start: its rings are mapped now, by
	 * the first of its events, as open's were; a failure before they are
	 * all there leaves it unopened (what was mapped is freed at delete). */
	first = !cr->opened;
	if (first && (cr->sample_leader >= 0 || cr->sb_leader >= 0 || cr->trig_leader >= 0))
		return -EBUSY;   /* an earlier try failed half way: not again */
	err = open_cpu(el, ci, -1, 0, &el->opts, &oe, &el->target);
	if (!err && first && el->copier)
		err = fr_copier__add_ring(el->copier, ci, cr->samples, cr->sample_leader);
	for (size_t i = from; i < el->nr_fds && !err; i++)
		if (ioctl(el->fds[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			err = -errno;
	if (!err && first)
		__atomic_store_n(&cr->opened, true, __ATOMIC_RELEASE);
	if (!err && el->writer && el->writer->cpu_reopened)
		err = el->writer->cpu_reopened(el->writer_ctx, el, ci);
	for (size_t i = from; err && i < el->nr_fds; i++)
		ioctl(el->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);   /* none half on */
	if (!err && el->copier && !first)
		fr_copier__repin(el->copier, ci);
	if (!err)
		el->generation++;
	return err;
}

bool fr_evlist__cpu_opened(const struct fr_evlist *el, size_t ci)
{
	/* set_cpus's (no kernel): every CPU counts */
	return ci < el->nr_cpus &&
	       (!el->rings || __atomic_load_n(&el->rings[ci].opened, __ATOMIC_ACQUIRE));
}

unsigned fr_evlist__generation(const struct fr_evlist *el)
{
	return el->generation;
}

void fr_evlist__set_writer(struct fr_evlist *el, const struct fr_evlist_writer_ops *ops,
			   void *ctx)
{
	el->writer = ops;
	el->writer_ctx = ctx;
}

void fr_evlist__flush_writer(struct fr_evlist *el)
{
	if (el->writer && el->writer->flush)
		el->writer->flush(el->writer_ctx);
}

int fr_evlist__disable(struct fr_evlist *el)
{
	return ioctl_all(el, PERF_EVENT_IOC_DISABLE);
}

int fr_evlist__set_trigger(struct fr_evlist *el, struct fr_event *ev, const char *filter)
{
	if (el->trig_event || el->rings) {
		fr_event__delete(ev);
		return -EINVAL;
	}
	el->trig_event = ev;
	if (filter && !(el->trig_filter = strdup(filter)))
		return -ENOMEM;
	return 0;
}

int fr_evlist__add_name_tracepoint(struct fr_evlist *el, struct fr_event *ev)
{
	if (el->nr_name_tps == FR_EVLIST_MAX_NAME_TPS || el->rings ||
	    ev->kind != FR_EVENT_TRACEPOINT) {
		fr_event__delete(ev);
		return -EINVAL;
	}
	el->name_tps[el->nr_name_tps++] = ev;
	return 0;
}

bool fr_evlist__sideband_in_samples(const struct fr_evlist *el)
{
	return el->sb_in_samples;
}

bool fr_evlist__names_all(const struct fr_evlist *el)
{
	return el->names_all;
}

size_t fr_evlist__nr_name_tracepoints(const struct fr_evlist *el)
{
	return el->nr_name_tps;
}

const struct fr_event *fr_evlist__name_tracepoint(const struct fr_evlist *el, size_t i)
{
	return i < el->nr_name_tps ? el->name_tps[i] : NULL;
}

const struct fr_event *fr_evlist__trigger_event(const struct fr_evlist *el)
{
	return el->trig_event;
}

int fr_evlist__set_trigger_pair(struct fr_evlist *el, struct fr_event *begin, struct fr_event *end)
{
	int err = fr_evlist__set_trigger(el, begin, NULL);

	if (err) {
		fr_event__delete(end);
		return err;
	}
	el->trig_end = end;
	return 0;
}

const struct fr_event *fr_evlist__trigger_end(const struct fr_evlist *el)
{
	return el->trig_end;
}
