/* src/record/internal.h: the session's state, shared only by the files of
 * src/record/ that make up a session: session.c (life, record ownership),
 * sideband.c (drain, stores, table feed), synth.c (/proc at start),
 * snapshot.c (backward files), forward_file.c (forward files). Nothing
 * outside src/record/ includes it.
 */
#ifndef FR_SESSION_INTERNAL_H
#define FR_SESSION_INTERNAL_H

#include <pthread.h>

#include "src/file/file.h"
#include "src/record/keep.h"
#include "src/record/readers.h"
#include "src/proc/proctable.h"
#include "src/record/session.h"
#include "symbolize/kallsyms.h"

/* Sideband records kept between snapshots, oldest first, in a list of
 * blocks (sideband.c): the oldest records go a block at a time, emptied
 * blocks are reused, so a COMM storm costs a copy per record and no
 * memmove of the store or page faults. */
struct sb_block;
struct sb_store {
	struct sb_block *head, *tail;  /* oldest, newest */
	struct sb_block *spare;        /* emptied blocks kept for reuse */
	size_t nspare;
	size_t bytes;                  /* of the records held */
	uint64_t nr, dropped, lost;
};

/* The table records of one drain, before sorting. */
struct pend_buf {
	uint8_t *buf;
	size_t len, cap;
	uint64_t nr;
};

struct pend_ref {
	uint64_t time;
	size_t off;
};

struct fr_session {
	struct fr_evlist *el;
	struct fr_session_opts o;
	struct sb_store *sb;       /* per CPU (backward) */
	struct sb_store synth;     /* COMM records of tasks that predate the recording */
	struct fr_ring_stream *streams; /* per CPU: the last stream of its sample ring */
	uint64_t *oldest;          /* per CPU: time of the oldest record that stream held (0: none) */
	struct fr_idmap *ids;       /* which event a sample-ring record belongs to */
	unsigned seq;
	uint64_t start_ns;
	struct fr_kallsyms *ksyms;  /* NULL when /proc/kallsyms is unreadable (or not loaded yet) */
	bool ksyms_tried;
	bool ksyms_pending;        /* ksyms_th is loading it (backward mode, after start) */
	pthread_t ksyms_th;
	int ksyms_tid;             /* its thread id, once it runs (atomic) */
	struct fr_proctable *procs;
	struct pend_buf pend;      /* table records of one drain, before sorting */
	struct pend_ref *pend_refs;
	size_t pend_cap;
	bool stopped;              /* events disabled: the last drain feeds everything */
	uint64_t gc_at;            /* exited images that trigger a collection */
	char **files;              /* snapshots written, oldest first (--max-files) */
	size_t nr_files;
	/* forward mode */
	int fd;
	struct fr_writer *w;       /* header, meta, events, blobs, END */
	struct fr_writer **sbw;    /* per CPU sideband appenders */
	struct fr_forward *fwd;
	uint64_t *sb_nr, *sb_lost; /* per CPU sideband counts */
	char path[4096];           /* the file being written */
	char fwd_final[4096];      /* its name once complete (--switch-output: path is .part), or "" */
	uint64_t fwd_t0;           /* when it began (CLOCK_MONOTONIC) */
	unsigned fwd_nr;           /* files begun */
	uint64_t fwd_done_bytes;   /* bytes of the files completed */
	uint64_t *lost_base;       /* per CPU PERF_FORMAT_LOST count when the file began */
	struct fr_snapshot_stats fwd_total; /* samples, sideband, lost, bytes of every file */
	/* --keep (keep_file.c): forward readers (fwd) into an in-memory window */
	struct fr_keep *keep;
	struct fr_keep_view *keep_view; /* the chunks a snapshot in progress writes */
	uint64_t *keep_drops;      /* per CPU: records the window refused (no memory) */
	uint32_t self_pid;         /* the recorder's pid when its tracepoint records are left out, or 0 */
};

/* session.c */
uint64_t fr_session_now(clockid_t clk);
/* The event a sample-ring record belongs to; its time (0 if none). */
const struct fr_event *fr_session_record_event(const struct fr_session *s,
					       const struct perf_event_header *h);
uint64_t fr_session_record_time(void *s, const struct perf_event_header *h);
/* A tracepoint sample of the recorder's own threads, to be left out (as
 * perf's --exclude-perf, by the pid the sample carries). */
bool fr_session_own_record(const struct fr_session *s, const struct perf_event_header *h,
			   const struct fr_event *ev);

/* sideband.c */
/* Drain the sideband; gc: also collect exited processes when many are held
 * (that copies the rings: not while a snapshot holds its copy). */
int fr_session_drain(struct fr_session *s, bool gc);
int fr_sb_store__append(struct sb_store *st, const struct perf_event_header *h, size_t cap);
void fr_sb_store__free(struct sb_store *st);
/* The records held, oldest first; cb's first non-zero answer stops it. */
int fr_sb_store__for_each(const struct sb_store *st,
			  int (*cb)(void *ctx, const struct perf_event_header *h), void *ctx);
/* Bytes allocated: blocks held and spare (what the store costs in memory). */
size_t fr_sb_store__mem(const struct sb_store *st);
/* Drop the records older than cutoff (the process table keeps what they said). */
void fr_sb_store__trim_before(struct sb_store *st, uint64_t cutoff, uint64_t sample_type);
/* The store as one sideband stream of cpu, records older than cutoff left out. */
int fr_sb_store__write(struct fr_writer *w, uint32_t cpu, const struct sb_store *st,
		       uint64_t cutoff, uint64_t sample_type);
/* The oldest time every CPU's streamed ring still held (0: some ring had
 * not wrapped, so its window reaches back to the start). */
uint64_t fr_session_window_floor(struct fr_session *s);

/* snapshot.c: the pieces of a file, shared with forward_file.c */
/* A CPU's losses: the sample ring's LOST records and the events'
 * PERF_FORMAT_LOST counters count the same drops (the larger is right);
 * sideband drops and records a full disk refused come on top. Also folds the
 * latter into cs->lost_records, as the file reports them. */
uint64_t fr_session_cpu_lost(struct fr_cpu_stat *cs, uint64_t sideband_lost, uint64_t dropped);
void fr_session_write_meta(struct fr_session *s, struct fr_writer *w, const char *trigger,
			   uint64_t t_mono, bool pinned);
int fr_session_write_events(struct fr_session *s, struct fr_writer *w);
int fr_session_write_procs(struct fr_session *s, struct fr_writer *w, const uint32_t *pids,
			   size_t nr);
/* Forward mode's per-record hook (reader threads): the record's time, and its
 * kernel addresses noted for the KSYMS blob; 1 when it is left out. */
int fr_session_forward_record(void *ctx, const struct perf_event_header *h, uint64_t *time);
int fr_session_write_ksyms(struct fr_session *s, struct fr_writer *w);
/* keep_file.c: a snapshot of --keep's window. begin: drain every ring into
 * the window and hold its chunks; samples: CPU ci's held chunks as they are
 * (whole chunks older than cutoff left out), its stats; end: let them go. */
int fr_session_keep_begin(struct fr_session *s);
int fr_session_keep_samples(struct fr_session *s, struct fr_writer *w, size_t ci, uint64_t cutoff,
			    struct fr_cpu_stat *cs, struct fr_snapshot_stats *st);
void fr_session_keep_end(struct fr_session *s);
/* A file written complete: keep the newest --max-files of them (oldest deleted). */
void fr_session_rotate(struct fr_session *s, const char *path);
/* A new file's name in outdir (flightrec-NAME-STAMP-SEQ.frec). */
int fr_session_make_path(struct fr_session *s, const char *suffix, char *path, size_t len);

#endif
