/* src/proc/proctable.h: the process model subsystem: the one model of
 * processes over time, used by the recorder (retained, collected, written as
 * the PROCS blob) and by the report (samples resolved against it).
 *
 * Owns: thread names (COMM) per tid over time; process images (a pid from
 * fork or exec to exec or exit) with parentage and executable mappings
 * (MMAP2, with build ids), a forked image seeing its parent's mappings as of
 * the fork (table.c, lookups.c); the rules that turn sideband records into
 * them (records.c); images from /proc (procfs.c) and build ids from ELF files
 * (buildid.c); the PROCS blob both ways (serialize.c).
 *
 * May include: base/, ring/record.h (record bodies), src/util.h,
 * symbolize/addrspace.h (the lookups the symbolizer asks for) and
 * symbolize/strpool.h; libelf. Never src/file/, src/record/, src/report/.
 * Returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_PROCTABLE_H
#define FR_PROCTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "symbolize/addrspace.h"

/* One name of a thread from time on (interned: compare pointers). */
struct fr_pcomm {
	uint64_t time;
	const char *comm;
};

/* One process image: a pid from fork (or exec) to exec or exit. A pid that
 * execs or is reused has several, ordered by start time. */
struct fr_proc {
	uint32_t pid, ppid;
	uint64_t start_time;       /* fork or exec; 0: before recording */
	uint64_t exit_time;        /* exit, or the next image's start; 0: alive */
	bool forked;               /* its parent's mappings as of start_time apply too */
};

/* What differs between the model's users: what is kept of what is fed. */
struct fr_proctable_policy {
	/* Keep processes only: a thread's own records (its names, its creation)
	 * are left out (the recorder: they stay in the file's sideband). */
	bool processes_only;
	/* Per thread names, per image mappings kept at most (the oldest half is
	 * dropped at the limit); 0: no limit. */
	size_t max_comms, max_maps;
	/* Where an MMAP2 carries no build id: read it for the file pid maps
	 * (the recorder, while the file still exists); its size, 0 if none. */
	uint8_t (*read_build_id)(uint32_t pid, const char *path, uint8_t id[20]);
};

/* The recorder's policy (buildid.c): processes only, bounded histories,
 * build ids read from the files. */
extern const struct fr_proctable_policy fr_proctable__recorder_policy;

struct fr_proctable;

/* pol NULL: keep everything as fed (the report). */
struct fr_proctable *fr_proctable__new(const struct fr_proctable_policy *pol);
void fr_proctable__delete(struct fr_proctable *pt);

/* ---- feeding: the rules (table.c) ---- */
/* Thread tid of process pid is called comm from time on; exec: the process
 * replaced its image at time (a new image, its mappings start afresh). */
int fr_proctable__comm(struct fr_proctable *pt, uint32_t pid, uint32_t tid, uint64_t time,
		       const char *comm, bool exec);
/* An executable mapping of process pid from time on. build_id may be NULL.
 * -EINVAL: an empty or wrapping range. */
int fr_proctable__mmap(struct fr_proctable *pt, uint32_t pid, uint64_t time, uint64_t start,
		       uint64_t len, uint64_t pgoff, uint32_t prot, const char *path,
		       const uint8_t *build_id, size_t build_id_size);
/* Thread tid of process pid was created by thread ptid of ppid at time: it
 * is named as ptid was then (as ppid's main thread, where ptid is unknown);
 * a new process (pid != ppid) is a new image that sees its parent's
 * mappings as of that time. */
int fr_proctable__fork(struct fr_proctable *pt, uint32_t pid, uint32_t tid, uint32_t ppid,
		       uint32_t ptid, uint64_t time);
/* The same, for a name learnt late (as the thread exited, or from /proc: its
 * renames went into overwritten rings), dated from time: the table marks it,
 * fr_proctable__thread_late says from when (0: none), a tid used again by a
 * fork clears it. */
int fr_proctable__late_comm(struct fr_proctable *pt, uint32_t pid, uint32_t tid, uint64_t time,
			   const char *comm);
/* Thread tid of pid exited at time (its name stays for its samples until
 * the collection passes it); the image ends when its main thread does. */
int fr_proctable__exit(struct fr_proctable *pt, uint32_t pid, uint32_t tid, uint64_t time);
/* A whole image known from elsewhere (a PROCS blob, /proc): its pid, ppid,
 * start and exit (forked is ignored). An image of pid starting at the same
 * time is the same image. Feed its names and mappings afterwards. */
int fr_proctable__image(struct fr_proctable *pt, const struct fr_proc *p);

/* A batch (on, then off): while on, mappings are appended, not inserted in
 * address order, and sorted once when it is turned off: a whole file's PROCS
 * blobs cost O(n log n) in any order. No lookup while on. */
void fr_proctable__batch(struct fr_proctable *pt, bool on);
/* Work done by inserts (entries moved or passed over): tests check that a
 * batch of n costs O(n), the sort aside, in any input order. */
uint64_t fr_proctable__steps(const struct fr_proctable *pt);

/* The same from a sideband record (COMM, FORK, EXIT, MMAP2; others are
 * ignored) at time (its sample_id time; FORK and EXIT fall back to their
 * own when 0). -EBADMSG: a malformed record, the model unchanged. (records.c) */
int fr_proctable__record_at(struct fr_proctable *pt, const struct perf_event_header *h,
			    uint64_t sample_type, uint64_t time);
/* The same, the time read from the record's sample_id trailer. */
int fr_proctable__record(struct fr_proctable *pt, const struct perf_event_header *h,
			 uint64_t sample_type);

/* ---- lookups (lookups.c) ---- */
/* The mapping that held addr in process pid at time (its own, else its
 * parent's as of the fork), or NULL; and the span of times [*tlo, *thi)
 * around time over which the answer stays the same while the version does
 * not change (tlo, thi may be NULL). */
const struct fr_map *fr_proctable__find_span(const struct fr_proctable *pt, uint32_t pid,
					     uint64_t time, uint64_t addr, uint64_t *tlo,
					     uint64_t *thi);
const struct fr_map *fr_proctable__find(const struct fr_proctable *pt, uint32_t pid,
					uint64_t time, uint64_t addr);
/* Moves with every change to the model: what a cache of lookups checks. */
uint64_t fr_proctable__version(const struct fr_proctable *pt);
/* The name of thread tid at time (the earliest known before its first), or
 * NULL; and the span over which it is the same entry (may be NULL). */
const char *fr_proctable__thread_comm_span(const struct fr_proctable *pt, uint32_t tid,
					   uint64_t time, uint64_t *tlo, uint64_t *thi);
const char *fr_proctable__thread_comm(const struct fr_proctable *pt, uint32_t tid,
				      uint64_t time);
/* The process of thread tid as the model last knew it, or 0. */
uint32_t fr_proctable__thread_pid(const struct fr_proctable *pt, uint32_t tid);
/* When thread tid's name learnt late holds from (fr_proctable__late_comm), or 0. */
uint64_t fr_proctable__thread_late(const struct fr_proctable *pt, uint32_t tid);
/* Thread tid's newest name and the time it holds from, or NULL. */
const struct fr_pcomm *fr_proctable__thread_newest(const struct fr_proctable *pt, uint32_t tid);
/* Every thread with a name: cb(ctx, pid, tid, newest) with its newest name
 * and the time it holds from, until cb returns non-zero (returned). */
int fr_proctable__for_each_thread(const struct fr_proctable *pt,
				  int (*cb)(void *ctx, uint32_t pid, uint32_t tid,
					    const struct fr_pcomm *newest),
				  void *ctx);
size_t fr_proctable__nr_dsos(const struct fr_proctable *pt);
const struct fr_dso_id *fr_proctable__dso(const struct fr_proctable *pt, uint32_t idx);
/* The model as the symbolizer asks for it. */
struct fr_addrspace fr_proctable__addrspace(const struct fr_proctable *pt);

/* The image of pid at time t (the newest started at or before t), or NULL. */
const struct fr_proc *fr_proctable__proc_at(const struct fr_proctable *pt, uint32_t pid,
					    uint64_t t);
/* The name of an image at t: its main thread's. */
const char *fr_proctable__proc_comm(const struct fr_proctable *pt, const struct fr_proc *p,
				    uint64_t t);
/* Every image: cb(ctx, p) in the order their pids were first seen, each
 * pid's oldest first, until cb returns non-zero (returned). */
int fr_proctable__for_each(const struct fr_proctable *pt,
			   int (*cb)(void *ctx, const struct fr_proc *p), void *ctx);
/* The names of an image (its main thread's from its start to its end): a
 * run of *n entries, oldest first. */
const struct fr_pcomm *fr_proctable__proc_comms(const struct fr_proctable *pt,
						const struct fr_proc *p, size_t *n);
/* The mappings an image sees: its own, then (forked) its parent's as of the
 * fork, outward. cb(ctx, m) until it returns non-zero (returned). */
int fr_proctable__proc_maps(const struct fr_proctable *pt, const struct fr_proc *p,
			    int (*cb)(void *ctx, const struct fr_map *m), void *ctx);
size_t fr_proctable__nr(const struct fr_proctable *pt);
/* Images that ended and threads (not main threads) that exited, held. */
size_t fr_proctable__nr_exited(const struct fr_proctable *pt);

/* ---- collection (table.c) ---- */
/* Drop images that ended before `before` (no window that starts then shows
 * them; a forked image that saw one gets its own copy first), threads that
 * exited before it, and names renamed away before it. Returns how many
 * images were dropped. */
size_t fr_proctable__gc(struct fr_proctable *pt, uint64_t before);

/* ---- /proc and ELF (procfs.c, buildid.c) ---- */
/* Read /proc/PID/{stat,comm,maps} of every process (pids NULL) or of the
 * given ones: images from before recording (time 0), executable mappings
 * only, build ids read from the ELF files. */
int fr_proctable__scan_proc(struct fr_proctable *pt, const int *pids, size_t nr);
/* The GNU build id of an ELF file (cached per inode and mtime); its size, 0
 * if none. */
uint8_t fr_buildid__read(const char *path, uint8_t id[20]);
/* The same for a file a process pid maps: read through /proc/PID/root (its
 * mount namespace: containers), else path as the recorder sees it. */
uint8_t fr_buildid__read_pid(uint32_t pid, const char *path, uint8_t id[20]);
/* A small /proc text file into buf (NUL-terminated, at most len-1 bytes). */
int fr_procfs__read_text(const char *path, char *buf, size_t len);
/* Thread tid of pid's name now (/proc/PID/task/TID/comm, its newline cut):
 * 0, -ENOENT where empty, or the read's -errno (gone meanwhile). */
int fr_procfs__thread_comm(int pid, int tid, char comm[32]);
/* cb(ctx, id) for each numeric entry of dir ("/proc": pids, "/proc/PID/task":
 * tids), until cb returns non-zero. 0, -errno or cb's. */
int fr_procfs__for_each_id(const char *dir, int (*cb)(void *ctx, int id), void *ctx);

/* ---- the PROCS blob (serialize.c, doc/format.md) ---- */
/* The images of the given pids (all when pids is NULL) into one or more
 * payloads of at most max bytes each: cb(ctx, data, len) per payload. */
int fr_proctable__serialize(const struct fr_proctable *pt, const uint32_t *pids, size_t nr,
			    size_t max, int (*cb)(void *ctx, const void *data, size_t len),
			    void *ctx);
/* Add the images of one payload: a batch of one. -EBADMSG if it does not
 * parse exactly (nothing of it is added). */
int fr_proctable__parse(struct fr_proctable *pt, const void *data, size_t len);
/* Payloads of a whole file, taken in (each checked whole: -EBADMSG, nothing
 * of it kept; -ENOMEM), then applied at once, sorted by pid and time, so that
 * the model's inserts are appends whatever order the payloads hold: O(n log
 * n) for n images, names and mappings (doc/format.md §4 PROCS). */
struct fr_procs_batch;
struct fr_procs_batch *fr_procs_batch__new(void);
int fr_procs_batch__add(struct fr_procs_batch *b, const void *data, size_t len);
int fr_procs_batch__apply(struct fr_procs_batch *b, struct fr_proctable *pt);
void fr_procs_batch__delete(struct fr_procs_batch *b);

#endif
