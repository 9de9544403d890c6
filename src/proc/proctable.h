/* src/proc/proctable.h: the process model subsystem.
 *
 * Owns: the retained process and mapping table: comm history, parentage,
 * exec and exit times and executable mappings (with build ids) of every
 * process the window may show, built from the sideband (table.c) and from
 * /proc (procfs.c), build ids from ELF files (buildid.c), kept after the
 * processes exit, and carried in each file as the PROCS blob (serialize.c).
 *
 * May include: ring/record.h (sideband record bodies), src/util.h, libelf.
 * Never: src/file/ (the blob is bytes handed over by callbacks), src/record/,
 * src/report/. Returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_PROCTABLE_H
#define FR_PROCTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct fr_pcomm {
	uint64_t time;
	char comm[16];
};

struct fr_pmap {
	uint64_t time;             /* when it was mapped (0: before recording) */
	uint64_t start, len, pgoff;
	uint32_t prot;
	uint8_t build_id_size;     /* 0: unknown */
	uint8_t build_id[20];
	char *path;
};

/* One process image: a pid from fork (or exec) to exec or exit. A pid that
 * execs or is reused gets a new entry; lookups pick the one alive at a time. */
struct fr_proc {
	uint32_t pid, ppid;
	uint64_t start_time;       /* fork or exec; 0: before recording */
	uint64_t exit_time;        /* exit or exec into a new image; 0: alive */
	struct fr_pcomm *comms;    /* oldest first */
	size_t nr_comms;
	struct fr_pmap *maps;      /* in mapping order */
	size_t nr_maps;
};

struct fr_proctable;

struct fr_proctable *fr_proctable__new(void);
void fr_proctable__delete(struct fr_proctable *pt);

/* Feed a sideband record (COMM, FORK, EXIT, MMAP2; others are ignored);
 * sample_type is the sideband event's (for the sample_id trailer time). */
int fr_proctable__record(struct fr_proctable *pt, const struct perf_event_header *h,
			 uint64_t sample_type);
/* The same when the caller has decoded the record's time already. */
int fr_proctable__record_at(struct fr_proctable *pt, const struct perf_event_header *h,
			    uint64_t sample_type, uint64_t time);
/* What the recorder learns from /proc at start (time 0 = before recording). */
int fr_proctable__add_proc(struct fr_proctable *pt, uint32_t pid, uint32_t ppid, const char *comm);
int fr_proctable__add_map(struct fr_proctable *pt, uint32_t pid, const struct fr_pmap *m);
/* A copy of a whole image as the newest generation of its pid (the previous
 * one is left as it is): how a parsed PROCS payload is added. */
int fr_proctable__add_image(struct fr_proctable *pt, const struct fr_proc *p);
/* Read /proc/PID/{stat,comm,maps} of every process (pids NULL) or of the given
 * ones, executable mappings only, build ids read from the ELF files. */
int fr_proctable__scan_proc(struct fr_proctable *pt, const int *pids, size_t nr);

/* buildid.c: the GNU build id of an ELF file (cached per inode and mtime);
 * its size, 0 if none. */
uint8_t fr_buildid__read(const char *path, uint8_t id[20]);
/* The same for a file a process pid maps: read through /proc/PID/root (its
 * mount namespace: containers), else path as the recorder sees it. */
uint8_t fr_buildid__read_pid(uint32_t pid, const char *path, uint8_t id[20]);
/* procfs.c: a small /proc text file into buf (NUL-terminated, at most len-1
 * bytes). 0 or -errno. */
int fr_procfs__read_text(const char *path, char *buf, size_t len);
/* procfs.c: cb(ctx, id) for each numeric entry of dir ("/proc": pids,
 * "/proc/PID/task": tids), until cb returns non-zero. 0, -errno or cb's. */
int fr_procfs__for_each_id(const char *dir, int (*cb)(void *ctx, int id), void *ctx);

/* Drop images that ended before `before` (they cannot appear in a window that
 * starts then). Returns how many were dropped. */
size_t fr_proctable__gc(struct fr_proctable *pt, uint64_t before);
size_t fr_proctable__nr(const struct fr_proctable *pt);
size_t fr_proctable__nr_exited(const struct fr_proctable *pt);

/* The image of pid alive at time t (the newest started at or before t), or NULL. */
const struct fr_proc *fr_proctable__find(const struct fr_proctable *pt, uint32_t pid,
					 uint64_t t);
const struct fr_proc *fr_proctable__get(const struct fr_proctable *pt, size_t i);
/* The comm of an image at time t; the mapping covering addr at time t. */
const char *fr_proc__comm(const struct fr_proc *p, uint64_t t);
const struct fr_pmap *fr_proc__map(const struct fr_proc *p, uint64_t addr, uint64_t t);

/* Serialize the images of the given pids (all when pids is NULL) into one or
 * more payloads of at most max bytes each (doc/format.md, PROCS):
 * cb(ctx, data, len) is called per payload. */
int fr_proctable__serialize(const struct fr_proctable *pt, const uint32_t *pids, size_t nr,
			    size_t max, int (*cb)(void *ctx, const void *data, size_t len),
			    void *ctx);
/* Add the images of one payload to pt. -EBADMSG if it does not parse. */
int fr_proctable__parse(struct fr_proctable *pt, const void *data, size_t len);

#endif
