/* src/proc/perfmap.h: the names JIT runtimes publish for their code: the
 * perf map (/tmp/perf-PID.map, "START SIZE name" lines) and the code loads of
 * the jitdump (jit-PID.dump, src/proc/jitdump.h) of a process, read as hostile
 * input, read further as they grow, kept within one budget for all pids
 * (the oldest dropped first), stored as the PERFMAP blob (doc/format.md)
 * and looked up by address. Returns 0 or -errno, never prints.
 */
#ifndef FR_PERFMAP_H
#define FR_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FR_PERFMAP_FILE_MAX (64u << 20)   /* bytes of one map read, at most */
#define FR_PERFMAP_LINE_MAX 4096u         /* a longer line is malformed */
#define FR_PERFMAP_VERSION 1u

/* One piece of JIT code. name: owned by the set (interned). */
struct fr_perfmap_entry {
	uint64_t start, size;
	const char *name;
};

/* What was read of a process's jitdump (collect only). */
struct fr_perfmap_dump_stats {
	uint64_t read;          /* bytes consumed: the header and whole records */
	uint64_t entries;       /* code loads and moves added */
	uint64_t skipped;       /* records skipped (malformed, unknown kinds) */
	uint64_t tail;          /* bytes of a last record not whole at the last read */
	bool refused, capped;   /* a bad header or framing; a size cap reached */
};

/* What a set holds for one pid. */
struct fr_perfmap_stats {
	size_t entries;         /* the map's and the jitdump's */
	uint64_t skipped;       /* malformed lines skipped (at record, and here) */
	uint64_t read;          /* bytes of the map consumed so far (whole lines) */
	bool capped;            /* the map passed FR_PERFMAP_FILE_MAX: the rest left out */
	struct fr_perfmap_dump_stats dump;
};

struct fr_perfmaps;

int fr_perfmaps__new(struct fr_perfmaps **out);
void fr_perfmaps__delete(struct fr_perfmaps *pm);
/* What the entries of every pid take and what went for the budget. */
struct fr_perfmap_budget {
	uint64_t budget;        /* 0: no cap */
	uint64_t held;          /* bytes the entries take now */
	uint64_t dropped;       /* entries dropped for the budget so far */
	uint64_t dropped_bytes; /* what they took */
	uint64_t compactions;   /* times entries were dropped (in batches) */
};

/* The bytes the entries of every pid together may take (0: no cap, the
 * default): the recorder's memory budget (any local user can write maps the
 * root recorder reads). Past it, entries are dropped in a batch down to 3/4
 * of it, and counted: those of processes gone (fr_perfmaps__gone) first,
 * then the oldest entries of all pids, so that the newest code, what the
 * newest samples ran, stays named; the name pool is rebuilt then (a
 * fr_perfmap_entry found before is dead after an add). An entry larger
 * than the whole budget is dropped alone. */
void fr_perfmaps__set_budget(struct fr_perfmaps *pm, uint64_t bytes);
void fr_perfmaps__budget_stats(const struct fr_perfmaps *pm, struct fr_perfmap_budget *st);
/* pid's process has exited: its entries go first when the budget is full
 * (fr_perfmap__collect also finds that out, and that a pid runs again). */
void fr_perfmaps__gone(struct fr_perfmaps *pm, uint32_t pid);

/* Read the perf map of each live pid (through /proc/PID/root, named with its
 * namespace pid: a container's own /tmp), from where the last call for
 * that pid stopped (a map replaced or cut short is read again from its
 * start). Refused, and left out: a symlink, not a regular file, an owner
 * other than the process's or root. The map read is held open (up to 1024
 * files, dumps included) so that once its process is gone (and its
 * /proc/PID/root), what it wrote since is still read from that very file. A
 * pid seen running without a map in the caller's own mount namespace has,
 * once gone, the caller's /tmp/perf-NSPID.map read if written since (a map
 * written at exit). 0, or -ENOMEM; a pid without a readable map is no error.
 * So a map is whole in the file only if it was collected while its process
 * ran (call it periodically) and then at the file's write;
 * fr_perfmaps__forget a pid once no file can show it. */
int fr_perfmap__collect(struct fr_perfmaps *pm, const uint32_t *pids, size_t nr);
/* The same for the jitdump of pid at path (as the process sees it: the file
 * it maps, read inside its root), from where the last call stopped; the
 * dump's code loads and moves become entries of pid. Once the process is
 * gone (path NULL, or its root gone), the file held is read on. Refused as
 * above, and a dump of another format, version or byte order, or whose
 * record framing breaks (read no further). 0, or -ENOMEM. */
int fr_perfmap__collect_dump(struct fr_perfmaps *pm, uint32_t pid, const char *path);
/* The map at path for pid, as perf reads the local /tmp/perf-PID.map at
 * report time (the same checks; the owner must be the caller or root). 0,
 * -ENOENT, -EPERM (refused), -ENOMEM. */
int fr_perfmaps__load_file(struct fr_perfmaps *pm, uint32_t pid, const char *path);
/* Parse map text of pid: whole lines only; *used: the bytes consumed
 * (up to the last line break). Malformed lines are skipped and counted. */
int fr_perfmaps__add_text(struct fr_perfmaps *pm, uint32_t pid, const char *text, size_t len,
			  size_t *used);

/* The PERFMAP blob payloads of the pids given (pids NULL: every pid of the
 * set), each at most max bytes (one pid's entries may span several), handed
 * to cb in turn; a non-zero return of cb stops and is returned. Pids
 * without entries give none. -EINVAL: max below one entry of the longest
 * name (8 + 16 + 20 + FR_PERFMAP_LINE_MAX). */
typedef int (*fr_perfmap_out_cb)(void *ctx, const void *data, size_t len);
int fr_perfmap__encode(const struct fr_perfmaps *pm, const uint32_t *pids, size_t nr, size_t max,
		       fr_perfmap_out_cb cb, void *ctx);
/* Drop what the set holds of pid (a process gone, its map written), its
 * descriptor closed. */
void fr_perfmaps__forget(struct fr_perfmaps *pm, uint32_t pid);
/* A payload (from any file: every count and length checked) into pm: 0,
 * -EINVAL (malformed: nothing of it added), -ENOMEM. */
int fr_perfmap__decode(struct fr_perfmaps *pm, const void *data, size_t len);

/* The entry of pid covering addr (the last one written, where several do),
 * or NULL; valid until the set's next change (an add may rebuild its pool). */
const struct fr_perfmap_entry *fr_perfmaps__find(struct fr_perfmaps *pm, uint32_t pid,
						 uint64_t addr);
/* Whether pid has entries (from a blob or a file) in the set. */
bool fr_perfmaps__has(const struct fr_perfmaps *pm, uint32_t pid);
/* 0 and *st for pid, -ENOENT if the set has nothing of it. */
int fr_perfmaps__stats(const struct fr_perfmaps *pm, uint32_t pid, struct fr_perfmap_stats *st);
/* The pids in the set, in no order: up to max into out; returns how many there are. */
size_t fr_perfmaps__pids(const struct fr_perfmaps *pm, uint32_t *out, size_t max);

#endif
