/* src/record/session.h: one recording: the opened evlist, the source its
 * samples come from (backward, forward or --keep), the sideband kept in user
 * space, and writing files of them.
 */
#ifndef FR_SESSION_H
#define FR_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring/evlist.h"

struct fr_session_opts {
	const char *outdir;
	const char *name;
	const char *target_desc;   /* "system-wide", "pid 12,34", "command ./x" */
	const char *cmdline;       /* the record command line, for the file */
	int zstd_level;
	size_t sb_cap;             /* bytes of sideband kept per CPU before the oldest half goes */
	const struct fr_source_ops *source; /* fr_source__backward(), __forward() or __keep() */
	int flush_ms;              /* forward: write a chunk in progress at least this often */
	uint64_t window_ns;        /* --window-time: drop records older than this at a snapshot */
	const int *reader_cpus;    /* forward: --reader-cpus (NULL: readers unpinned) */
	size_t nr_reader_cpus;
	bool readers_unpinned;     /* forward: --reader-cpus any (no pinning, nice 0) */
	bool readers_own;          /* forward: --reader-cpus own (each on its ring's CPU) */
	unsigned max_files;        /* --max-files: keep the newest N snapshots (0: all), the final one included */
	bool switch_output;        /* forward --switch-output: files written .part, renamed at the end */
	uint64_t switch_bytes;     /* forward: next file when this one reaches this size (0: never) */
	uint64_t switch_ns;        /* forward: ... or is this old (0: never) */
	uint64_t keep_ns;          /* --keep DURATION: forward rings drained into a window in memory */
	uint64_t keep_bytes;       /* --keep ...,SIZE: the window's byte budget */
	bool exclude_self;         /* leave out tracepoint records of the recorder's threads */
	bool hotplug;              /* follow CPUs going offline and back (-a, -G), say new ones */
	uint64_t jit_budget;       /* bytes for the JIT maps of all processes (0: no cap) */
	const pid_t *target_pids;  /* a per-task target's first processes (the child, -p's):
	                            * where its name tracepoints see every task, the
	                            * execs of other processes are dropped */
	size_t nr_target_pids;
	uint64_t offcpu_thresh_ns; /* the offcpu event's BPF programs run with it (0: none) */
	uint32_t offcpu_stack_rate; /* ... and this budget of short waits' stacks (a second, a CPU) */
	/* for the start and end lines */
	int nr_events;             /* the events asked for */
	size_t ring_kib;           /* each sample ring's size */
	const char *switch_spec;   /* forward: --switch-output's argument, or NULL */
	bool quiet;                /* -q: status lines are not printed */
};

/* What caused a snapshot (written into the file's TRIGGER blob). */
struct fr_trigger {
	const char *source;        /* "sigusr2", "command", "event", "latency", "exit", "stop" */
	uint64_t time;             /* when it happened, CLOCK_MONOTONIC ns */
	uint64_t after_ns;         /* recording went on this long before the dump */
	const char *event;         /* the trigger event's name, or NULL */
	uint32_t pid, tid, cpu;    /* of the trigger event's record */
	unsigned coalesced;        /* further triggers folded into this snapshot */
	const char *end_event;     /* --trigger-latency: END's name (event: BEGIN's), or NULL */
	uint64_t begin, end;       /* ... the pair that took too long (time: its end) */
};

struct fr_snapshot_stats {
	uint64_t samples;          /* sample records written */
	uint64_t sideband;         /* sideband records written */
	uint64_t lost;             /* PERF_RECORD_LOST counts + PERF_FORMAT_LOST */
	uint64_t raced_bytes;      /* overwritten during the copy */
	uint64_t bytes;            /* file size */
	double copy_ms;            /* trigger to every ring's head taken (its newest records fixed) */
	double total_ms;           /* trigger to file closed */
	int write_err;             /* -errno of the file write, 0 if fine */
	bool pinned;               /* every CPU copied by its pinned copy thread */
	struct fr_copy_stats copy; /* CPUs per copy path; skipped ones are not in the file */
	uint64_t dropped_by_window; /* sample records older than --window-time */
	char warning[256];         /* e.g. the ring holds less than --window-time */
	unsigned wrapped_cpus;     /* CPUs whose ring wrapped (FR_CPU_FULL) */
	uint64_t kept_from_ns;     /* ... the latest first record among them */
	uint64_t recorded_from_ns, recorded_to_ns; /* recording start, snapshot time */
	uint64_t pids_lost;        /* pids left out of the PROCS blob (no memory) */
	bool switched;             /* forward: a file completed, the next one begun */
	uint64_t keep_ns;          /* --keep: its DURATION (written from the window in memory) */
	uint64_t keep_held;        /* ... bytes it held */
	uint64_t keep_evicted;     /* ... records dropped from it by age or size so far */
	uint64_t keep_size_evicted; /* ... chunks dropped from it because SIZE was full */
};

struct fr_session;

/* How the rings' samples reach files (session_internal.h): the backward rings copied
 * at each snapshot, forward readers streaming into files, or forward readers
 * into a window in memory (--keep). */
struct fr_source_ops;
const struct fr_source_ops *fr_source__backward(void);
/* Where the sideband records (COMM, MMAP2, FORK, EXIT) travel: the one rule,
 * by the source's rings and the target (doc/recording.md, "Forward mode").
 * - FR_SB_SAMPLE_RINGS: a per-task target whose rings are drained as they
 *   fill (forward, --keep): all of them in the sample rings, where perf puts
 *   them (a task's context holds one event fewer; each context switch visits
 *   each), no sideband ring;
 * - FR_SB_NAMES_IN_SAMPLES: rings read at a snapshot (backward), which
 *   overwrite what they hold: the COMMs in the sample rings beside the
 *   samples they name, the name tracepoints (fr_record__add_name_tracepoints)
 *   and the rest on the sideband ring, drained as it fills;
 * - FR_SB_RING: otherwise (forward, --keep system-wide): all of them on the
 *   sideband ring. */
enum fr_sb_route { FR_SB_RING, FR_SB_SAMPLE_RINGS, FR_SB_NAMES_IN_SAMPLES };
enum fr_sb_route fr_source__route(const struct fr_source_ops *ops, bool per_task);
/* The rings the source needs, into o: direction and reading (overwrite
 * rings, drained as they fill or read at a snapshot), the route's rings
 * (fr_source__route), and data_pages where it is 0 (the source's default). */
struct fr_evlist_opts;
void fr_source__rings(const struct fr_source_ops *ops, bool per_task, struct fr_evlist_opts *o);
const struct fr_source_ops *fr_source__forward(void);
const struct fr_source_ops *fr_source__keep(void);

/* Takes ownership of el (opened, not yet enabled). */
int fr_session__new(struct fr_evlist *el, const struct fr_session_opts *o,
		    struct fr_session **out);
void fr_session__delete(struct fr_session *s);
struct fr_evlist *fr_session__evlist(const struct fr_session *s);
/* The fd whose POLLIN says a CPU went offline or came back (-1: none). */
int fr_session__hotplug_fd(const struct fr_session *s);
/* Learn the tasks that exist now (they emit no COMM or MMAP2 until they exec
 * or map): all of /proc, or the given pids: COMM records for the synthesized
 * stream, comm, parent and executable mappings for the process table. */
int fr_session__synthesize(struct fr_session *s, const pid_t *pids, size_t nr);
/* Before the control socket says "recording": /proc/kallsyms (a few hundred
 * ms on a busy machine) loaded now when the source's threads note kernel
 * addresses from their start (forward, --keep). */
void fr_session__prepare(struct fr_session *s);
/* Recording starts: kallsyms loaded in a thread of its own (nice 10) if it
 * was not, so that the loop drains the sideband meanwhile (a COMM storm fills
 * the 1 MiB sideband ring in ~60 ms; the first snapshot waits for it); then
 * the source starts and says so (its start line, or why it could not).
 * path gets the name of a file begun now, or "". */
int fr_session__start(struct fr_session *s, char *path, size_t len);
/* Drain the sideband rings into the process table and the stores (or the
 * file being streamed). */
int fr_session__drain(struct fr_session *s);
/* Drain, collect exited processes when many are held, then the source's
 * periodic work (forward: write the sideband chunks in progress): *due gets "size" or "time" when --switch-output's
 * limit is reached (NULL otherwise), *wait_ms how soon to call it again
 * (-1: only when woken). */
int fr_session__tick(struct fr_session *s, const char **due, int *wait_ms);
/* Write a file now: a snapshot of every ring's window (backward, --keep),
 * or (forward) complete the file being written and go on into the next one.
 * path gets its name, st its counts. Returns 0 or -errno (a failed snapshot
 * is removed; a forward recording goes on in the current file if the next
 * could not be made). */
int fr_session__snapshot(struct fr_session *s, const struct fr_trigger *tr, char *path,
			 size_t len, struct fr_snapshot_stats *st);
/* What that snapshot did, as its source says it (status lines through
 * fr_info, a failure through fr_err; a file that left processes or CPUs out
 * said too): returns err, or 1 for such a file. */
int fr_session__say_snapshot(struct fr_session *s, const struct fr_trigger *tr, const char *path,
			     int err, const struct fr_snapshot_stats *st);
/* Disable the events for good (before the final snapshot or the end of a
 * forward file): the next drain then feeds the process table everything. */
int fr_session__stop(struct fr_session *s);
/* After fr_session__stop, the source's end, said as it says it: forward
 * completes the file it writes (its counts those of every file of the
 * recording), backward and --keep take a final snapshot when final is set
 * and say what their files counted lost. path gets the last file's name, or
 * "". Returns 0; 1 when a file was written that counts records lost or left
 * something out (exit 1); -errno when the end failed (said). */
int fr_session__end(struct fr_session *s, const struct fr_trigger *tr, bool final, char *path,
		    size_t len);
/* Bytes written so far, every file together (forward's progress line). */
uint64_t fr_session__bytes(const struct fr_session *s);

#endif
