/* src/record/record.h: the recording subsystem.
 *
 * Owns: a recording from start to end: opening the events over the target
 * (system, pids, a command it spawns), the session (sideband drained into the
 * process table and per-CPU stores) and its sample source (backward: rings
 * copied at a snapshot; forward: per-CPU reader threads appending to a file,
 * switched to the next one by size, time or a snapshot; --keep: the readers
 * filling a window in memory), the one composer of every file, the control
 * socket, and the loop that waits for triggers.
 *
 *   record.h     this header: what `flightrec record` hands over (run.c)
 *   events.h     the events and their attributes (events.c; bench/floor opens them too)
 *   session.h    the session (session.c, synth.c; shared state, the source
 *                interface and the composer in session_internal.h)
 *   source_backward.c, source_forward.c, source_keep.c  the sample sources
 *   composer.c   every file: naming, meta, blobs, stats, END, --max-files
 *   sideband.h   the sideband stores and the process table feed (sideband.c)
 *   readers.h    the forward readers of --forward and --keep (readers.c)
 *   keep.h       --keep's window of chunks in memory (keep.c)
 *   control.h    the control socket and run directory (control.c)
 *   loop.h       the main loop: signals, clients, triggers, the next file (loop.c)
 *   child.h      the recorded command, held until recording starts (child.c)
 *   hook.h       --exec-on-snapshot: a command per snapshot file, reaped on SIGCHLD (hook.c)
 *
 * May include: ring/, symbolize/kallsyms.h, src/file/, src/proc/, src/util.h.
 * Never: src/report/, src/cli.h or the cmd_*.c front doors. Says things to
 * the user only through fr_err/fr_info (src/util.h).
 */
#ifndef FR_RECORD_RECORD_H
#define FR_RECORD_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FR_RECORD_MAX_EVENTS 64
#define FR_RECORD_BACKWARD_PAGES 128 /* 512 KiB per CPU: what perf uses, snapshots in a few ms */
#define FR_RECORD_FORWARD_PAGES 1024 /* 4 MiB per CPU: no loss at full speed on a read() loop */
#define FR_STACK_DEFAULT 8192u       /* --call-graph dwarf: user stack bytes per sample */

enum fr_callgraph { CG_NONE, CG_FP, CG_DWARF };

/* --off-cpu-thresh DURATION[,RATE]: DURATION at most this (ns: the BPF
 * sampling's 32-bit product); RATE, short waits' stacks a second per CPU,
 * by default and at most */
#define FR_RECORD_MAX_THRESH_NS 4000000000ull
#define FR_RECORD_STACK_RATE 50u
#define FR_RECORD_MAX_STACK_RATE 1000000u

/* What `flightrec record` was asked for (src/cmd_record.c fills and checks it). */
struct fr_record_opts {
	const char *events[FR_RECORD_MAX_EVENTS];
	int nr_events;
	bool forward;
	bool mode_given;         /* --forward or --backward said; else -- CMD and -p stream */
	bool system_wide;
	const char *pids;
	uint64_t freq, period;
	enum fr_callgraph callgraph;
	uint32_t stack_size;     /* --call-graph dwarf,SIZE */
	size_t data_pages;
	const char *pages_rounded; /* -m as given, when rounded up to a power of two */
	const char *outdir;       /* absolute, checked by the front door */
	const char *name;
	const char *run_dir;
	bool no_final;
	int level;
	uint64_t window_ns;
	uint64_t keep_ns;        /* --keep DURATION: forward rings drained into memory (0: off) */
	uint64_t keep_bytes;     /* --keep ...,SIZE: its byte budget (0: the memory budget's
	                          * default, src/record/budget.h) */
	const char *trigger, *trigger_filter;
	const char *lat_begin, *lat_end; /* --trigger-latency: BEGIN and END tracepoints, or NULL */
	uint64_t lat_ns;         /* ... and the DURATION a pair must exceed */
	uint64_t trigger_after_ns;
	uint64_t rate_n, rate_ns;
	uint64_t max_files;
	const char *switch_output; /* forward: --switch-output as given (SIZE, TIME or signal), or NULL */
	uint64_t switch_bytes, switch_ns; /* ... its size or time (0: none) */
	int *reader_cpus;         /* --reader-cpus (forward readers pinned there), or NULL */
	size_t nr_reader_cpus;
	bool readers_unpinned;    /* --reader-cpus any */
	bool readers_own;         /* --reader-cpus own */
	const char *filters[FR_RECORD_MAX_EVENTS]; /* --filter of events[i], or NULL */
	const char *cgroup;      /* -G: a cgroup v2 path under the cgroup2 mount */
	bool include_self;       /* --include-self: keep the recorder's own tracepoint hits */
	bool off_cpu;            /* --off-cpu: sched_switch (+ its task's switches) and sched_waking */
	uint64_t off_cpu_thresh_ns; /* --off-cpu-thresh: the switches without stacks, the stacks of
	                          * waits this long (shorter ones sampled) from BPF (0: off) */
	uint32_t off_cpu_stack_rate; /* ... and at most about this many short waits' stacks a
	                          * second on each CPU (its ,RATE; 0: FR_RECORD_STACK_RATE) */
	bool quiet;              /* -q: no status lines (a loss is still said: exit 1 needs a why) */
	const char *exec_on_snapshot; /* --exec-on-snapshot CMD */
	int push_pid;            /* --push: the pusher's pid (src/cmd_push.c), 0: none */
	int push_fd;             /* ... and its pipe's write end, which the recorder closes at its end */
	/* forward: called about every second with the bytes written so far and
	 * the rate over the last interval, and once with done at the end; NULL */
	void (*progress)(uint64_t bytes, uint64_t per_sec, bool done);
	char **cmd;              /* the command after --, or NULL */
	const char *cmdline;      /* the whole record command line, for the file */
	int usage_err;
};

/* Record as o says until SIGINT/SIGTERM/SIGHUP or the target's end; write
 * snapshots on triggers and a final one. Returns an exit code (FR_EXIT_*);
 * every failure was said through fr_err. */
int fr_record__run(struct fr_record_opts *o);

#endif
