/* src/session.h: one recording: the opened evlist, the sideband kept in user
 * space, and writing a snapshot of the rings to a new file.
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
	bool forward;              /* stream everything to one file instead of snapshots */
	int flush_ms;              /* forward: write a chunk in progress at least this often */
	uint64_t window_ns;        /* --window-time: drop records older than this at a snapshot */
	const int *reader_cpus;    /* forward: --reader-cpus (NULL: readers unpinned) */
	size_t nr_reader_cpus;
	bool readers_unpinned;     /* forward: --reader-cpus any (no pinning, nice 0) */
	bool readers_own;          /* forward: --reader-cpus own (each on its ring's CPU) */
	unsigned max_files;        /* --max-files: keep the newest N snapshots (0: all), the final one included */
	bool rotate;               /* forward --switch-output: files written .part, renamed at the end */
	uint64_t switch_bytes;     /* forward: next file when this one reaches this size (0: never) */
	uint64_t switch_ns;        /* forward: ... or is this old (0: never) */
	uint64_t keep_ns;          /* --keep DURATION: forward rings drained into a window in memory */
	uint64_t keep_bytes;       /* --keep ...,SIZE: the window's byte budget */
	bool exclude_self;         /* leave out tracepoint records of the recorder's threads */
};

/* What caused a snapshot (written into the file's TRIGGER blob). */
struct fr_trigger {
	const char *source;        /* "sigusr2", "command", "event", "exit", "stop" */
	uint64_t time;             /* when it happened, CLOCK_MONOTONIC ns */
	uint64_t after_ns;         /* recording went on this long before the dump */
	const char *event;         /* the trigger event's name, or NULL */
	uint32_t pid, tid, cpu;    /* of the trigger event's record */
	unsigned coalesced;        /* further triggers folded into this snapshot */
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
	bool keep;                 /* --keep: written from the window in memory, not a ring copy */
	uint64_t keep_held;        /* ... bytes it held */
	uint64_t keep_evicted;     /* ... records dropped from it by age or size so far */
	uint64_t keep_size_evicted; /* ... chunks dropped from it because SIZE was full */
};

struct fr_session;

/* Takes ownership of el (opened, not yet enabled). */
int fr_session__new(struct fr_evlist *el, const struct fr_session_opts *o,
		    struct fr_session **out);
void fr_session__delete(struct fr_session *s);
struct fr_evlist *fr_session__evlist(const struct fr_session *s);
/* Learn the tasks that exist now (they emit no COMM or MMAP2 until they exec
 * or map): all of /proc, or the given pids: COMM records for the synthesized
 * stream, comm, parent and executable mappings for the process table. */
int fr_session__synthesize(struct fr_session *s, const pid_t *pids, size_t nr);
/* Drain the sideband rings into the process table and the store (backward)
 * or the file (forward). */
int fr_session__drain(struct fr_session *s);
/* Backward: write every ring's window to a new file in outdir; path gets its
 * name. Returns 0 or -errno (a failed file is removed). */
int fr_session__snapshot(struct fr_session *s, const struct fr_trigger *tr, char *path,
			 size_t len, struct fr_snapshot_stats *st);
/* Disable the events for good (before the final snapshot or the end of a
 * forward file): the next drain then feeds the process table everything. */
int fr_session__stop(struct fr_session *s);
/* Load /proc/kallsyms (a few hundred ms on a busy machine), or wait for the
 * thread loading it: forward mode does it before its readers start.
 * Snapshots without it carry no kernel symbols. */
void fr_session__load_ksyms(struct fr_session *s);
/* Backward mode, as recording starts: load it in a thread of its own (nice
 * 10, started before the recorder's threads are listed for --exclude-self's
 * filter), so that the loop drains the sideband meanwhile (a COMM storm
 * fills the 1 MiB sideband ring in ~60 ms); the first snapshot waits for it. */
void fr_session__load_ksyms_async(struct fr_session *s);
/* Processes held by the table (live and exited). */
size_t fr_session__nr_procs(const struct fr_session *s);

/* --keep: create the in-memory window, start the per-CPU readers draining
 * the rings into it. Snapshots (fr_session__snapshot) then write the window. */
int fr_session__keep_start(struct fr_session *s);
uint64_t fr_session__keep_ns(const struct fr_session *s);   /* 0: not --keep */
/* Forward: create the file (path gets its name), start the per-CPU readers. */
int fr_session__forward_start(struct fr_session *s, char *path, size_t len);
/* Forward, from the main loop at least every flush_ms: drain the sideband
 * into the file and write its chunks in progress. */
int fr_session__forward_tick(struct fr_session *s);
/* Forward: complete the file now (sideband, process table, kernel symbols,
 * trigger, stats, END; renamed into place when written as .part; the oldest
 * beyond --max-files deleted) and go on into the next one. The readers stop
 * after a last drain of their rings and new ones go on from there on the next
 * file: no record is in both files or in neither. path gets the completed
 * file's name, st its counts (copy_ms: how long no reader ran). On an error the recording goes on: in the
 * current file if the next could not be made. */
int fr_session__forward_switch(struct fr_session *s, const struct fr_trigger *tr, char *path,
			       size_t len, struct fr_snapshot_stats *st);
/* Forward: "size" or "time" once the file reached --switch-output's limit,
 * else NULL; *wait_ms: how soon to ask again (-1: no limit). */
const char *fr_session__forward_due(struct fr_session *s, int *wait_ms);
/* Forward: bytes written so far, every file together. */
uint64_t fr_session__forward_bytes(const struct fr_session *s);
/* Forward: stop the readers and complete the file as a switch does (path gets
 * its name); st: the counts of every file of the recording together. */
int fr_session__forward_stop(struct fr_session *s, const struct fr_trigger *tr, char *path,
			     size_t len, struct fr_snapshot_stats *st);

#endif
