/* src/record/sideband.h: the sideband kept between files: per-CPU stores of
 * raw COMM/MMAP2/FORK/EXIT records (struct sb_store), the synthesized COMMs of
 * tasks that predate the recording, and the process table they feed in time
 * order (struct fr_sideband: the recorder's one user of src/proc/'s table).
 * Knows nothing of sessions, sources or files but the writer it writes to.
 */
#ifndef FR_RECORD_SIDEBAND_H
#define FR_RECORD_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "src/file/file.h"

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

/* The stores of ncpu CPUs (cap bytes each), the synthesized stream and the
 * process table; sample_type is the sideband event's. */
struct fr_sideband;
int fr_sideband__new(size_t ncpu, uint64_t sample_type, size_t cap, struct fr_sideband **out);
void fr_sideband__delete(struct fr_sideband *sb);
/* A drained record the table needs (COMM, FORK, EXIT, MMAP2; others are
 * ignored) waits for the next feed: a process may exec on one CPU and exit
 * on another. */
int fr_sideband__pend(struct fr_sideband *sb, const struct perf_event_header *h);
/* A per-task target whose name tracepoints see every task
 * (fr_evlist__names_all): pids are its first processes (the child, the -p
 * pids). From then on a name pended with fr_sideband__pend_name (a COMM
 * made from them) is fed only for a process of the target: one of pids, or
 * one the table knows at the name's time (its fork, in time order, came
 * first), alive then (a pid reused after its image ended is another's). */
int fr_sideband__set_target(struct fr_sideband *sb, const pid_t *pids, size_t nr);
int fr_sideband__pend_name(struct fr_sideband *sb, const struct perf_event_header *h);
/* pid at time is of the target, as far as the table knows it now (true
 * without a target set); and the same for a COMM record h (its pid, at its
 * time), as the feed asks of the names pended. */
bool fr_sideband__in_target(const struct fr_sideband *sb, uint32_t pid, uint64_t time);
bool fr_sideband__name_in_target(const struct fr_sideband *sb, const struct perf_event_header *h);
/* Feed the table, in time order across CPUs, the pending records up to
 * watermark; newer ones wait for the next feed. */
void fr_sideband__feed(struct fr_sideband *sb, uint64_t watermark);
/* The process table as fed so far (read only). */
struct fr_proctable;
const struct fr_proctable *fr_sideband__procs(const struct fr_sideband *sb);
/* Keep a drained record in CPU ci's store (beyond cap the oldest go). */
int fr_sideband__store(struct fr_sideband *sb, size_t ci, const struct perf_event_header *h);
struct sb_store *fr_sideband__cpu(struct fr_sideband *sb, size_t ci);
/* A COMM record of a task that predates the recording (synth.c). */
int fr_sideband__synth_comm(struct fr_sideband *sb, uint32_t pid, uint32_t tid,
			    const char *comm, uint64_t time);
const struct sb_store *fr_sideband__synth(const struct fr_sideband *sb);
/* Their time (the recording's start): the earliest a name is dated from. */
uint64_t fr_sideband__synth_time(const struct fr_sideband *sb);
/* Thread tid of pid (0: the process the table knows it in) was called comm
 * at time (as it exited, or in /proc at a snapshot): where the table names
 * it otherwise, comm holds from just after the table's last change of its
 * name (its renames went into overwritten sample rings), not before the
 * recording's start; the table marks it late (fr_proctable__late_comm).
 * Threads the table never saw, and outside a target, are left alone. */
void fr_sideband__name_now(struct fr_sideband *sb, uint32_t pid, uint32_t tid, const char *comm,
			   uint64_t time);
/* The file got this COMM record (an exec's, at its end): a name of its
 * thread learnt later by name_now is dated after it. */
void fr_sideband__named(struct fr_sideband *sb, const struct perf_event_header *comm);
/* Learn the processes that exist now from /proc (pids NULL: all). */
int fr_sideband__scan_proc(struct fr_sideband *sb, const int *pids, size_t nr);
/* Exited processes held, and dropping those that ended before `before`. */
size_t fr_sideband__nr_exited(const struct fr_sideband *sb);
void fr_sideband__gc(struct fr_sideband *sb, uint64_t before);
/* What the JIT maps and jitdumps of all processes may take together (the
 * memory budget's share; 0: no cap). */
void fr_sideband__set_jit_budget(struct fr_sideband *sb, uint64_t bytes);
/* Read on the JIT perf maps of live processes with anonymous executable
 * memory, at most every 500 ms (now: CLOCK_MONOTONIC ns). */
void fr_sideband__perfmaps_tick(struct fr_sideband *sb, uint64_t now);
/* The PROCS blob(s) of the given pids (all when pids is NULL), then the
 * PERFMAP blob(s) of their JIT code. */
int fr_sideband__write_procs(struct fr_sideband *sb, struct fr_writer *w, const uint32_t *pids,
			     size_t nr);

/* jit_procs.c: the processes of a table that may run JIT code (an
 * executable mapping of no file, or of a jitdump), and their perf maps and
 * jitdumps read on (a failure costs names). pt set by the caller; with pm,
 * the exited processes are marked gone there (their names go first past
 * the budget); exited: those gone are listed too (a file's write). */
struct fr_perfmaps;
struct fr_jit_procs {
	const struct fr_proctable *pt;
	struct fr_perfmaps *pm;
	bool exited;
	uint32_t *v;
	const char **dumps;        /* v[i]'s jitdump as the process sees it, or NULL */
	size_t n, cap, dcap;
};
/* Memory of no file a JIT runtime writes code into (//anon, [anon..., /memfd:). */
bool fr_jit__anon_name(const char *path);
/* Every such process of l->pt (0 or -ENOMEM), or pid alone (listed whatever it maps). */
int fr_jit_procs__all(struct fr_jit_procs *l);
int fr_jit_procs__add(struct fr_jit_procs *l, uint32_t pid);
void fr_jit_procs__collect(struct fr_jit_procs *l, struct fr_perfmaps *pm);
void fr_jit_procs__free(struct fr_jit_procs *l);

#endif
