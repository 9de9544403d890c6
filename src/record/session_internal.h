/* src/record/session_internal.h: what the files of a session share: the
 * mode-independent session (session.c), the sample source interface the
 * three modes implement (source_backward.c, source_forward.c,
 * source_keep.c) and the one composer that writes every file (composer.c).
 * Nothing outside src/record/ includes it.
 */
#ifndef FR_SESSION_INTERNAL_H
#define FR_SESSION_INTERNAL_H

#include <pthread.h>

#include "ring/record.h"
#include "src/file/clock.h"
#include "src/file/file.h"
#include "src/record/keep.h"
#include "src/record/readers.h"
#include "src/record/session.h"
#include "src/record/sideband.h"
#include "symbolize/kallsyms.h"

struct fr_composer;

/* CPUs that go offline and come back, or come online after the start
 * (hotplug.c): the uevent socket to poll (-1: none, the online list is read
 * at ticks), the check after a wake (a CPU back or new gets its events
 * opened and enabled unless stopped, the session told: fr_session_cpu_opened;
 * said on stderr), and the files' META cpu_offline (CPU:FROM-TO,...
 * CLOCK_MONOTONIC ns, TO 0 while offline; a new CPU's FROM the start) and
 * cpu_not_recorded (CPUs online that have no slot: the possible list was
 * unreadable at the start). */
struct fr_hotplug;
int fr_hotplug__new(struct fr_session *s, struct fr_hotplug **out);
void fr_hotplug__delete(struct fr_hotplug *h);
int fr_hotplug__fd(const struct fr_hotplug *h);
void fr_hotplug__check(struct fr_hotplug *h, uint64_t now, bool stopped);
void fr_hotplug__meta(const struct fr_hotplug *h, struct fr_composer *c);
struct fr_sbq;

/* What a source's sample streams put into one file (stream_into fills it):
 * the composer hands it over zeroed, the per-CPU arrays in the evlist's
 * order with each stat's cpu set, and owns what it holds after. */
struct fr_streams {
	struct fr_cpu_stat *cs;     /* per CPU: the stream's counts and times */
	uint64_t *drops;            /* per CPU: records refused on the way (a full disk, no memory) */
	uint32_t *pids;             /* the samples' pids for PROCS, malloc'd (NULL: every process) */
	size_t nr_pids;
	uint32_t *comm_tids;        /* threads with a COMM in the streams (backward), malloc'd */
	size_t nr_comm_tids;
	uint64_t floor;             /* the oldest time every CPU's stream holds (0: some
				     * reaches back to the start): older sideband is kept
				     * only by the table */
	uint64_t chunks;            /* chunks written past the composer's appenders (END counts them) */
};

/* A source of sample streams: how the rings' samples reach a file. One per
 * session, chosen at its creation; its private state follows the struct
 * (each source embeds struct fr_source first). */
struct fr_source {
	const struct fr_source_ops *ops;
	struct fr_session *s;
};

struct fr_source_ops {
	const char *name;         /* the files' "mode" meta */
	bool ksyms_first;         /* its threads note kernel addresses from the start:
				   * kallsyms is loaded before recording starts (else
				   * in a thread while it runs) */
	/* its rings (fr_source__rings): -m's default; read as they fill
	 * (lapping reads) rather than at a snapshot (which decides where the
	 * sideband travels: fr_source__route) */
	size_t default_pages;
	bool drained;
	size_t size;              /* of the source's private struct */
	/* Recording starts (readers, the window, the first file): path gets the
	 * name of a file begun now, or "". */
	int (*start)(struct fr_source *src, char *path, size_t len);
	/* The source's own meta of a file (may be NULL). */
	void (*meta)(struct fr_source *src, struct fr_composer *c);
	/* A file now (a snapshot; forward: the switch to the next file). */
	int (*snapshot)(struct fr_source *src, const struct fr_trigger *tr, char *path,
			size_t len, struct fr_snapshot_stats *st);
	/* The sample streams of the file c composes, one per CPU (through
	 * fr_composer__appender or fr_composer__raw_chunk), what they hold
	 * into out and st. The composer drains the sideband after it. */
	int (*stream_into)(struct fr_source *src, struct fr_composer *c, struct fr_streams *out,
			   struct fr_snapshot_stats *st);
	/* For collecting exited processes: the oldest time every CPU's window
	 * still shows, cheaply (no ring is copied): a lower bound, 0 when some
	 * window reaches back to the start. */
	uint64_t (*oldest_time)(struct fr_source *src);
	/* A drained sideband record of CPU ci (may be NULL: kept in the store). */
	int (*sideband)(struct fr_source *src, size_t ci, const struct perf_event_header *h);
	/* The sideband in the sample rings (fr_evlist__sideband_in_samples):
	 * read every ring now, so that the session's queues hold what the
	 * kernel wrote before (NULL: the source has no readers). */
	int (*read)(struct fr_source *src);
	/* Periodic work after each drain (may be NULL): *due gets "size" or
	 * "time" when a new file is due, *wait_ms how soon to tick again (-1:
	 * not needed). */
	int (*tick)(struct fr_source *src, const char **due, int *wait_ms);
	/* The end (events disabled): the last file (forward: the one it keeps
	 * open; a composing source: a final snapshot when final is set;
	 * fr_session_final_snapshot), path its name or "". */
	int (*stop)(struct fr_source *src, const struct fr_trigger *tr, bool final, char *path,
		    size_t len, struct fr_snapshot_stats *st);
	/* Say what its snapshot did (err: the snapshot op's): the status lines
	 * through fr_info, a failure through fr_err; returns err. */
	int (*say)(const struct fr_trigger *tr, const char *path, int err,
		   const struct fr_snapshot_stats *st);
	/* The start line (recording began; path: the file begun, or ""), or
	 * why it could not start (err: start's). */
	void (*say_start)(struct fr_source *src, const char *path, int err);
	/* Say how the end went (err: stop's); returns err, or 1 when a file
	 * written counts records lost or left something out
	 * (fr_session_say_final for a composing source). */
	int (*say_end)(struct fr_source *src, const struct fr_trigger *tr, const char *path, int err,
		       const struct fr_snapshot_stats *st);
	/* Bytes written so far, every file together (may be NULL: 0). */
	uint64_t (*bytes)(const struct fr_source *src);
	/* CPU index ci's events were opened after the start (a CPU that came
	 * online: first_time) or again (one back): new event ids; its readers
	 * started, the file being written told the ids (may be NULL). */
	int (*cpu_opened)(struct fr_source *src, size_t ci, bool first_time);
	void (*destroy)(struct fr_source *src);
};

/* names.c: the sideband ring's name tracepoints (fr_evlist__add_name_tracepoint)
 * turned into COMM records: an execve entry notes when its thread's next
 * image begins (a direct-mapped slot per thread: two threads in one slot
 * cost the older its start; an entry read after its exec, from a later
 * CPU's ring, is no start either), an exec gives the name. */
#define FR_NAMES_SLOTS 256
struct fr_exec_start {
	uint32_t tid;
	uint64_t time;
};
struct fr_names {
	bool on;                    /* sched_process_exec is among them */
	uint16_t exec_id, enter_ids[2];
	size_t nr_enter;
	struct fr_exec_fields exec;
	uint16_t common_pid_off;
	struct fr_exec_start starts[FR_NAMES_SLOTS];
	uint16_t exit_id;           /* sched_process_exit, 0: not opened */
	uint16_t exit_comm_off, exit_pid_off;
};
/* 0, or -EPROTO when sched_process_exec's format lacks a field it needs. */
int fr_names__init(struct fr_names *n, const struct fr_evlist *el);
/* A sample of the sideband ring: an entry noted (0), or an exec as two COMM
 * records with the sideband trailer st (1): the table's (exec-flagged at its
 * image's start where known) and the file's (at the exec, in ring order);
 * or a thread's exit as the table's COMM alone (2) with pid 0: the name it
 * had as it exited (fr_sideband__feed dates it, its renames being in the
 * sample rings). 0 also for a sample left out (malformed, or of no name
 * tracepoint). */
int fr_names__sample(struct fr_names *n, const struct perf_event_header *h, uint64_t st,
		     uint64_t *table, uint64_t *file, size_t cap);

struct fr_session {
	struct fr_evlist *el;
	struct fr_session_opts o;
	uint64_t files_lost;        /* the most records lost one snapshot file counted */
	struct fr_source *src;
	struct fr_sideband *sb;     /* stores, synthesized stream, process table */
	struct fr_idmap *ids;       /* which event a sample-ring record belongs to
				     * (atomic: a CPU opened later swaps in a new one) */
	struct fr_idmap **old_ids;  /* those swapped out (reader threads may hold them) */
	size_t nr_old_ids;
	unsigned seq;               /* files named so far */
	uint64_t start_ns;
	struct fr_clock_pair clock_start; /* CLOCK_REALTIME <-> CLOCK_MONOTONIC at start */
	struct fr_kallsyms *ksyms;  /* NULL when /proc/kallsyms is unreadable (or not loaded yet) */
	bool ksyms_tried;
	bool ksyms_pending;         /* ksyms_th is loading it */
	pthread_t ksyms_th;
	int ksyms_tid;              /* its thread id, once it runs (atomic) */
	bool stopped;               /* events disabled: the last drain feeds everything */
	struct fr_hotplug *hp;      /* CPUs going offline and back (hotplug.c), or NULL */
	uint64_t gc_at;             /* exited images that trigger a collection */
	char **files;               /* files completed, oldest first (--max-files) */
	size_t nr_files, files_cap;
	uint32_t self_pid;          /* the recorder's pid when its tracepoint records are left out, or 0 */
	const struct fr_event *switch_ev; /* sched:sched_switch, whose records of the recorder
					   * are kept: each names the next task's switch-in */
	struct fr_names names;      /* the sideband's name tracepoints, if any */
	struct fr_sbq *sbq;         /* per CPU: the sideband records the readers took
				     * out of the sample rings until the next drain
				     * (fr_evlist__sideband_in_samples), or NULL */
};

/* session.c */
uint64_t fr_session_now(clockid_t clk);
/* The end of a source that composes snapshots (backward, --keep): a final
 * snapshot when final is set; then its status said with what the
 * recording's files counted lost (exit 1). */
int fr_session_final_snapshot(struct fr_source *src, const struct fr_trigger *tr, bool final,
			      char *path, size_t len, struct fr_snapshot_stats *st);
int fr_session_say_final(struct fr_source *src, const struct fr_trigger *tr, const char *path,
			 int err, const struct fr_snapshot_stats *st);
/* CPU index ci's events opened after the start or again (hotplug.c): the
 * session's id map remade with their ids, the source told. 0 or -errno. */
int fr_session_cpu_opened(struct fr_session *s, size_t ci, bool first_time);
/* The event a sample-ring record belongs to. */
const struct fr_event *fr_session_record_event(const struct fr_session *s,
					       const struct perf_event_header *h);
/* A tracepoint sample of the recorder's own threads, to be left out (as
 * perf's --exclude-perf, by the pid the sample carries); but its context
 * switches: each names the switch-in of the task after it (left out, those
 * tasks lost a switch-in at every switch of the recorder, and the recorder's
 * threads seemed to run the whole window). */
bool fr_session_own_record(const struct fr_session *s, const struct perf_event_header *h,
			   const struct fr_event *ev);
/* ev is the offcpu event (record --off-cpu-thresh's BPF output). */
static inline bool fr_session_is_offcpu(const struct fr_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE && ev->attr.config == PERF_COUNT_SW_BPF_OUTPUT;
}
/* ev's samples hold kernel addresses to note for the KSYMS blob (an IP, a
 * callchain, or an offcpu sample's raw stacks), and kallsyms is loaded
 * (inline: the forward readers ask it of every record). */
static inline bool fr_session_notes_kernel(const struct fr_session *s, const struct fr_event *ev)
{
	return s->ksyms && ((ev->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)) ||
			    fr_session_is_offcpu(ev));
}
/* Decode a sample for its pid and note its kernel addresses for the KSYMS
 * blob when its event records some. 0, or -errno. */
int fr_session_decode_sample(struct fr_session *s, const struct perf_event_header *h,
			     const struct fr_event *ev, struct fr_sample *smp);
/* The forward readers (readers.h) of a source, writing into its sink; each
 * record's time taken and kernel addresses noted, the recorder's own
 * records left out, the sideband records of a sample ring taken into the
 * session's queues (drained with the rest). */
int fr_session_start_readers(struct fr_session *s, const struct fr_reader_sink *sink,
			     struct fr_forward **out);
/* Wait for kallsyms: join the loading thread, or load it now if nobody did. */
void fr_session_ksyms(struct fr_session *s);

/* composer.c: one file of any source. Opened: named, created (a snapshot
 * unnamed, O_TMPFILE, linked when complete; a streamed file as its name, or
 * NAME.part renamed at its end under --switch-output), header, meta, events,
 * the synthesized sideband stream; streaming: one sideband stream per CPU
 * begun on appenders of its own (the sideband is written as it is drained),
 * else the stores are written when it completes. The sources see it only
 * through these functions. */
struct fr_composer;

int fr_composer__open(struct fr_session *s, bool streaming, const char *trigger, uint64_t t0,
		      struct fr_composer **out);
/* A meta key of the file, printf-style. */
void fr_composer__meta(struct fr_composer *c, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An appender for sample chunks (its own fd and zstd context: one per CPU,
 * used by one thread); closed by fr_composer__appender_close, which counts
 * its chunks into END (a chunk it dropped fails the file). */
int fr_composer__appender(struct fr_composer *c, struct fr_writer **app);
int fr_composer__appender_close(struct fr_composer *c, struct fr_writer *app);
/* One meta line into a streamed file now, as its own META chunk (through an
 * appender: a refused write is the appender's loss, not the file's end). */
int fr_composer__meta_now(struct fr_composer *c, const char *key, const char *value);
/* Streaming: a drained sideband record of CPU ci, and writing the sideband
 * chunks in progress. */
int fr_composer__sideband(struct fr_composer *c, size_t ci, const struct perf_event_header *h);
int fr_composer__flush(struct fr_composer *c);
/* The KSYMS blob now (the symbols the samples noted so far); else when the file completes. */
int fr_composer__ksyms(struct fr_composer *c);
/* Bytes in the file so far. */
uint64_t fr_composer__size(const struct fr_composer *c);
/* When it began (CLOCK_MONOTONIC), and the time older samples are left out
 * before (--window-time; 0: none). */
uint64_t fr_composer__t0(const struct fr_composer *c);
uint64_t fr_composer__cutoff(const struct fr_composer *c);
/* The file's name as written. */
const char *fr_composer__path(const struct fr_composer *c);
/* A streamed file whose last link is gone (its directory removed). */
bool fr_composer__unlinked(const struct fr_composer *c);
/* A chunk as it is (compressed, framed: a --keep window's), into the file. */
int fr_composer__raw_chunk(struct fr_composer *c, const void *data, size_t len);
/* The source's streams of the file (stream_into), then the sideband drained
 * into it and the kernel symbols its samples noted taken: after this, what
 * the source reads belongs to its next file. */
int fr_composer__take_streams(struct fr_composer *c, struct fr_snapshot_stats *st);
/* Complete the file: sideband streams, PROCS, KSYMS, VDSO, TRIGGER, per-CPU
 * stats, END; renamed into place, the directory synced, the oldest beyond
 * --max-files deleted. Counts into st; path gets its name; c is freed. A
 * failed composed file is removed; a failed streamed one stays as written
 * (it reads up to its last good chunk). */
int fr_composer__finish(struct fr_composer *c, const struct fr_trigger *tr, uint64_t t_snap,
			char *path, size_t len, struct fr_snapshot_stats *st);
/* A file given up: nothing of it is left behind; c is freed. */
void fr_composer__discard(struct fr_composer *c);
/* A streamed file given up after it began: it stays as written (it reads up
 * to its last chunk); c is freed. */
void fr_composer__abandon(struct fr_composer *c);
/* A snapshot composed at once (backward, --keep): a new file, the source's
 * streams into it, the sideband drained (every process a streamed sample
 * names has its COMM/MMAP2 by then), completed. */
int fr_composer__snapshot(struct fr_session *s, const struct fr_trigger *tr, uint64_t t0,
			  char *path, size_t len, struct fr_snapshot_stats *st);

/* A snapshot's thread names (thread_names.c): with from_proc (the renames
 * were in the sample rings), the living threads of the streams' pids (none
 * when NULL) read from /proc into the table first; then, into w's
 * synthesized sideband stream, the newest name of each of those pids'
 * threads but the main ones (PROCS names those), and for a thread the
 * window renames itself (str->comm_tids) the name it had before a name
 * learnt late (its renames in the window are exact; the late name only
 * guessed when they held). */
int fr_session_thread_names(struct fr_session *s, struct fr_writer *w,
			    const struct fr_streams *str, bool from_proc);

#endif
