/* ring/evlist.h: the opened event set of a recording: per CPU one backward
 * (or forward) sample ring and one forward sideband ring; a system-wide or
 * cgroup target has a slot per possible CPU, without rings until it is online.
 * Library code: returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_EVLIST_H
#define FR_EVLIST_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring/copy.h"
#include "ring/event.h"
#include "ring/ring.h"

enum fr_target_kind {
	FR_TARGET_SYSTEM,  /* every online CPU, every task */
	FR_TARGET_PIDS,    /* existing processes: every thread, inherited by children */
	FR_TARGET_CHILD,   /* a forked child not yet exec'd: enabled on exec, inherited */
	FR_TARGET_CGROUP,  /* every online CPU, the tasks of one cgroup (v2) */
};

struct fr_target {
	enum fr_target_kind kind;
	const pid_t *pids;
	size_t nr_pids;
	int cgroup_fd;     /* FR_TARGET_CGROUP: an O_RDONLY fd of the cgroup's directory;
			    * the sample events get PERF_FLAG_PID_CGROUP, sideband and
			    * trigger stay system-wide */
};

struct fr_evlist_opts {
	size_t data_pages;   /* per CPU sample ring, power of two */
	size_t sb_pages;     /* per CPU sideband ring, power of two */
	bool backward;       /* samples overwrite (write_backward, PROT_READ) */
	bool drained;        /* backward rings read as they fill (lapping reads,
	                      * ring.h: the watermark wakes the reader, no copier) */
	bool user_only;      /* the sideband event excludes the kernel too */
	bool sb_in_samples;  /* no sideband ring: the first sample event carries the
	                      * COMM/MMAP2/TASK records in its own ring, as perf
	                      * --overwrite does: a task's context holds one event
	                      * fewer (forward and --keep per task; bench/floor
	                      * --minimal measures it) */
};

/* Where the COMM records go is decided by the name tracepoints: without
 * any, the sideband event asks for them (comm, comm_exec) and the sideband
 * ring is where names are learnt; with name tracepoints added, the first
 * sample event asks for them instead (they are written into the sample ring,
 * as perf --overwrite does, and nothing reads them until a snapshot), and the
 * sideband ring gets the tracepoints' samples (sched:sched_process_exec and
 * the execve entries), from which a process's name after exec and the start
 * of its new image are known without a record per rename. */
#define FR_EVLIST_MAX_NAME_TPS 4

/* Which open failed, for the caller's message. */
struct fr_open_error {
	int event;           /* index in the evlist, -1 sideband, -2 trigger, -3 - k name tracepoint k */
	int cpu;
	pid_t pid;
	int err;             /* -errno of perf_event_open, ioctl or mmap */
	const char *op;      /* "perf_event_open", "mmap", "PERF_EVENT_IOC_SET_OUTPUT" */
};

struct fr_evlist;

struct fr_evlist *fr_evlist__new(void);
void fr_evlist__delete(struct fr_evlist *el);
/* Takes ownership of ev (also on error). */
int fr_evlist__add(struct fr_evlist *el, struct fr_event *ev);
size_t fr_evlist__nr_events(const struct fr_evlist *el);
struct fr_event *fr_evlist__event(const struct fr_evlist *el, size_t i);
/* The sideband (dummy) event's description; valid after open. */
const struct fr_event *fr_evlist__sideband_event(const struct fr_evlist *el);

/* Open every event on every online CPU for the target (slots for the CPUs
 * possible but offline: fr_evlist__reopen_cpu opens them later), set each tracepoint's
 * filter (fr_event.filter) on every fd, mmap the rings. With several events, PERF_SAMPLE_IDENTIFIER is added to all of them (they
 * share one ring per CPU). On failure fills *oe (if given) and returns -errno;
 * hardware events on a machine without a PMU give -EOPNOTSUPP. */
int fr_evlist__open(struct fr_evlist *el, const struct fr_target *t,
		    const struct fr_evlist_opts *o, struct fr_open_error *oe);
int fr_evlist__enable(struct fr_evlist *el);
int fr_evlist__disable(struct fr_evlist *el);
/* A CPU that went offline and came back (a system-wide or cgroup target):
 * the kernel took its events out for good, so they are opened again, as at
 * the start, writing into the same rings after what those held, and enabled;
 * its copy thread is pinned again, and the writer (set_writer) told. A CPU
 * slot offline since the start (not fr_evlist__cpu_opened) is opened for the
 * first time: its rings mapped, a copy thread started for a backward ring,
 * then marked opened (the reader threads may use it from then on). New
 * events get new ids (fr_evlist__ids grows). -EINVAL for a per-task target,
 * -EBUSY for a slot whose first opening failed half way before. */
int fr_evlist__reopen_cpu(struct fr_evlist *el, size_t ci);
/* Whether CPU index ci has its events and rings: every slot of a per-task
 * target, a system-wide or cgroup target's CPUs online at the start and
 * those opened since (any thread may ask); each CPU of set_cpus's. */
bool fr_evlist__cpu_opened(const struct fr_evlist *el, size_t ci);
/* A system-wide or cgroup target: its events are per CPU (reopen_cpu
 * follows hotplug); a per-task target's follow its tasks, on the CPUs online
 * at the start (they resume on a CPU that returns; one new since the start
 * has none). */
bool fr_evlist__follows_cpus(const struct fr_evlist *el);
/* How many CPU slots are opened (the CPUs recorded now). */
size_t fr_evlist__nr_opened(const struct fr_evlist *el);
/* Counts reopen_cpu's successes: a caller that keeps the pollfds sees new
 * ones when it changes. */
unsigned fr_evlist__generation(const struct fr_evlist *el);
/* What writes into the events from outside the kernel's own perf paths (BPF
 * programs that output into an event, holding records back meanwhile). */
struct fr_evlist_writer_ops {
	/* CPU index ci's events were opened again (new fds): 0 or -errno */
	int (*cpu_reopened)(void *ctx, struct fr_evlist *el, size_t ci);
	/* what it holds back, into the rings now (before a snapshot's copy and
	 * before the events stop) */
	void (*flush)(void *ctx);
};
void fr_evlist__set_writer(struct fr_evlist *el, const struct fr_evlist_writer_ops *ops,
			   void *ctx);
/* The writer's flush, if there is one. */
void fr_evlist__flush_writer(struct fr_evlist *el);

/* The CPUs of an evlist that is not opened (a recording without a kernel:
 * the unit suites' fake sources): 0, -EBUSY once opened or set, -ENOMEM. */
int fr_evlist__set_cpus(struct fr_evlist *el, const int *cpus, size_t n);
size_t fr_evlist__nr_cpus(const struct fr_evlist *el);
int fr_evlist__cpu(const struct fr_evlist *el, size_t idx);
/* The newest fd of event ev on CPU index cpu_idx (after open), or -1. */
int fr_evlist__event_fd(const struct fr_evlist *el, size_t ev, size_t cpu_idx);
/* Kernel ids of event i's fds (PERF_EVENT_IOC_ID), for the file. */
const uint64_t *fr_evlist__ids(const struct fr_evlist *el, size_t i, size_t *nr);

/* Sideband: one pollfd per CPU (POLLIN when past the watermark). */
size_t fr_evlist__sideband_pollfds(const struct fr_evlist *el, struct pollfd *fds, size_t max);
typedef int (*fr_sideband_cb)(void *ctx, size_t cpu_idx, const struct perf_event_header *h);
/* Read every sideband ring to its head; stops at the first non-zero callback
 * value and returns it. Corrupt rings are skipped to their head (-EBADMSG). */
int fr_evlist__drain_sideband(struct fr_evlist *el, fr_sideband_cb cb, void *ctx);

/* The trigger event: opened like the samples (same target, every CPU) into
 * its own small forward ring that wakes the reader on every record, so a
 * trigger costs user space one wakeup and nothing between triggers. filter is
 * a tracefs filter (PERF_EVENT_IOC_SET_FILTER) or NULL. Takes ownership of ev;
 * call before open. */
int fr_evlist__set_trigger(struct fr_evlist *el, struct fr_event *ev, const char *filter);
/* A pair of trigger events (--trigger-latency: BEGIN, END tracepoints),
 * opened as the trigger event into one larger trigger ring per CPU that
 * wakes the reader at half full, not per record; their samples carry RAW
 * (the tracepoint's common_type tells BEGIN from END). Takes ownership of
 * both; call before open. */
#define TRIG_PAIR_PAGES 128
int fr_evlist__set_trigger_pair(struct fr_evlist *el, struct fr_event *begin, struct fr_event *end);
const struct fr_event *fr_evlist__trigger_end(const struct fr_evlist *el);   /* NULL: no pair */
/* A name tracepoint (see above): opened like the sideband event, for every
 * CPU and target task, into the sideband ring, with sample_type TIME|RAW and
 * the sideband event's record trailer (TIME), so the sideband ring's records
 * share one layout (a sample's raw common_type tells its tracepoint). Takes
 * ownership of ev; call before open; not with sb_in_samples. -EINVAL: not a
 * tracepoint, too many, or opened already. */
int fr_evlist__add_name_tracepoint(struct fr_evlist *el, struct fr_event *ev);
size_t fr_evlist__nr_name_tracepoints(const struct fr_evlist *el);
const struct fr_event *fr_evlist__name_tracepoint(const struct fr_evlist *el, size_t i);
/* After open: a per-task target's name tracepoints were opened on each CPU
 * for every task (pid -1: a task's context holds fewer events, and each of
 * its COMMs is offered to each of them); their records of processes outside
 * the target are the reader's to drop. False where they follow the target's
 * tasks (the kernel refused every task's) or the target is not per task. */
bool fr_evlist__names_all(const struct fr_evlist *el);
/* Opened with sb_in_samples: the sample rings carry the COMM, MMAP2 and task
 * records (with the first sample event's sample_id_all trailer), there is no
 * sideband ring to drain. */
bool fr_evlist__sideband_in_samples(const struct fr_evlist *el);
const struct fr_event *fr_evlist__trigger_event(const struct fr_evlist *el);
size_t fr_evlist__trigger_pollfds(const struct fr_evlist *el, struct pollfd *fds, size_t max);
int fr_evlist__drain_trigger(struct fr_evlist *el, int (*cb)(void *ctx, size_t cpu_idx,
			     const struct perf_event_header *h), void *ctx);

/* Forward or drained rings: the fd to poll for one CPU's sample ring (POLLIN
 * past its watermark), and reading that ring to its head, oldest first. Each
 * CPU's ring may be read by its own thread: nothing is shared between CPUs.
 * A drained ring whose reader fell behind lost its oldest unread records:
 * lapped (if not NULL) is told how many (estimated, ring.h) and how many
 * bytes, before the read's records (the hole lies before the oldest of them)
 * and, for records overwritten while copied, after them. */
typedef int (*fr_lapped_cb)(void *ctx, size_t cpu_idx, uint64_t records, uint64_t bytes);
int fr_evlist__sample_fd(const struct fr_evlist *el, size_t cpu_idx);
int fr_evlist__read_samples(struct fr_evlist *el, size_t cpu_idx, fr_sideband_cb cb,
			    fr_lapped_cb lapped, void *ctx);

/* Bytes the kernel has written into CPU cpu_idx's sample ring since it was
 * mapped (data_head, counted down in a backward ring) and the ring's size:
 * one load from the control page, no read of the data. -ENOENT: no ring. */
int fr_evlist__sample_written(const struct fr_evlist *el, size_t cpu_idx, uint64_t *written,
			      size_t *size);

/* Stream every backward sample ring exactly through fn (ring.h, copy.h:
 * chunk by chunk, oldest first per ring, on the caller's thread): by the
 * per-CPU copy threads that open started (pinned, unpaused), or paused from
 * the caller's thread for CPUs no copy thread began by the deadline; a CPU
 * neither way could copy is skipped and listed in *st. streams (and paths,
 * if not NULL) must hold fr_evlist__nr_cpus entries. Returns 0, -EINVAL on
 * forward rings, fn's -errno, or -errno when a paused ring could not be
 * resumed. */
int fr_evlist__stream(struct fr_evlist *el, struct fr_ring_stream *streams,
		      enum fr_copy_path *paths, struct fr_copy_stats *st, fr_copy_chunk_fn fn,
		      void *ctx);

/* Samples the kernel dropped on this CPU (PERF_FORMAT_LOST of the sample
 * events), 0 when the kernel does not count them. */
int fr_evlist__lost_samples(const struct fr_evlist *el, size_t cpu_idx, uint64_t *lost);

/* Online CPUs from /sys/devices/system/cpu/online, possible ones (those
 * that may come online while the system runs) from .../possible: ascending,
 * no CPU twice (else -EINVAL). Returns the count or -errno. */
int fr_cpus__online(int **cpus);
int fr_cpus__possible(int **cpus);
/* 0 when each CPU of the list is greater than the one before, else -EINVAL. */
int fr_cpus__ascending(const int *cpus, size_t n);
/* Which of the n slots (ascending CPUs) the nr cpus (ascending) are:
 * marked[i] true for those, false for the rest. -EINVAL: a list not
 * ascending; -ENOENT: a CPU of cpus that no slot has. */
int fr_cpus__mark(const int *slots, size_t n, const int *cpus, size_t nr, bool *marked);
/* A CPU list "0-3,5,7-8" (each 0..65535, ranges ascending, an ending newline
 * allowed) into *out (allocated): how many, or -EINVAL, -ENOMEM. */
int fr_cpus__parse(const char *s, int **out);

#endif
