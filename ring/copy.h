/* ring/copy.h: streaming every CPU's backward ring exactly (ring.h, "pinned"
 * or "paused"), fast on busy CPUs, in bounded memory: one sleeping copy
 * thread per CPU hands chunks to the caller's thread.
 * Library code: returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_COPY_H
#define FR_COPY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ring/ring.h"

/* A CPU number as the kernel numbers CPUs (not an index into a CPU array). */
struct fr_cpu {
	int cpu;
};

/* How one CPU's ring was copied. */
enum fr_copy_path {
	FR_COPY_NONE,     /* no ring on this CPU */
	FR_COPY_PINNED,   /* by its copy thread, on that CPU, unpaused */
	FR_COPY_PAUSED,   /* from elsewhere, with the ring paused (all or the rest of it) */
	FR_COPY_SKIPPED,  /* neither was possible: not copied (or only its oldest chunks) */
};

#define FR_COPY_MAX_LISTED 16

struct fr_copy_stats {
	size_t pinned, paused, skipped;  /* CPUs per path */
	size_t late;     /* of paused: a copy thread existed but missed the deadline,
			  * ran on another CPU or failed */
	struct fr_cpu skipped_cpus[FR_COPY_MAX_LISTED]; /* the first skipped CPUs */
	int skip_err;    /* -errno of the first skip */
	double wait_ms;  /* request to the last copy thread done (or deadline) */
	double begin_ms; /* request to the last ring's head taken and walked: the
			  * newest records of every ring are fixed from then on */
};

/* One ring to copy: the CPU it belongs to, the ring, and the fd to pause it. */
struct fr_copy_ring {
	struct fr_cpu cpu;
	struct fr_ring *ring;   /* NULL: nothing to copy on this CPU */
	int fd;
};

/* The deadline for a copy thread to start copying after a request; a CPU
 * whose thread has not started by then is copied paused. */
#define FR_COPY_DEADLINE_NS 20000000ull

struct fr_copier;

/* Start one copy thread per ring that the caller may run on, pinned to the
 * ring's CPU, its chunk buffers (its own, the ring's) pre-faulted there;
 * it sleeps until a
 * snapshot. rings is copied. Returns 0, -ENOMEM. A thread that cannot be
 * created or pinned is no error: its CPU is copied paused. */
int fr_copier__new(const struct fr_copy_ring *rings, size_t n, struct fr_copier **out);
void fr_copier__delete(struct fr_copier *c);
/* Bytes of records per streamed chunk at most (one file RECORDS chunk); a
 * ring smaller than that streams in chunks of its size (at least
 * FR_RING_CHUNK_MIN). */
#define FR_COPY_CHUNK_MAX (1u << 20)
/* Called with chunk after chunk of ring i's records (oldest first, ring.h
 * "Streaming"), on ring i's copy thread, or on fr_copier__stream's caller's
 * thread for a paused stream: calls for different rings may run at the same
 * time, each ring's come in order. recs is valid until return. Returns 0 to
 * go on, 1 when it wants no more of ring i, -errno to stop every stream
 * (fr_copier__stream returns it). */
typedef int (*fr_copy_chunk_fn)(void *ctx, size_t i, const uint8_t *recs, size_t len, size_t nr);

/* Stream every ring through fn: wake the threads (raised to SCHED_FIFO
 * meanwhile, where allowed), each streaming its ring on its own CPU and
 * calling fn there; then stream
 * paused, one ring at a time on the caller's thread, what no thread began by
 * the deadline (and the rest of a ring whose thread left its CPU). Memory:
 * one chunk per thread and two per ring (ring.c's), one for the paused
 * stream, never a whole ring. streams[i] (n entries) holds ring i's results (head,
 * raced, nr, len, full, corrupt); paths NULL or n entries. Returns 0
 * (skipped CPUs are in st), fn's -errno, or -errno when a ring could not
 * be resumed. */
/* Pin ring i's copy thread to its CPU again (a CPU that went offline took
 * the pin away: the kernel moved the thread; until then its copies went the
 * paused way, as a thread off its CPU's always do). */
void fr_copier__repin(struct fr_copier *c, size_t i);
/* Ring i had none (a CPU offline when the copier began, ring NULL) and has
 * one now: its copy thread started as fr_copier__new's (no error when it
 * cannot run there: it is copied paused). Call from the thread that calls
 * fr_copier__stream, never during it. -EINVAL: i has a ring already. */
int fr_copier__add_ring(struct fr_copier *c, size_t i, struct fr_ring *ring, int fd);
int fr_copier__stream(struct fr_copier *c, struct fr_ring_stream *streams,
		      enum fr_copy_path *paths, struct fr_copy_stats *st, fr_copy_chunk_fn fn,
		      void *ctx);
/* Threads running (CPUs that can be copied pinned). */
size_t fr_copier__nr_threads(const struct fr_copier *c);

/* "4 pinned, 0 paused" / "1 pinned, 1 paused (late 1), 1 skipped: cpu 3".
 * Returns snprintf's value. */
int fr_copy_stats__format(const struct fr_copy_stats *st, char *buf, size_t len);

/* Dynamic CPU sets (any number of CPUs): the calling thread's affinity, in a
 * set from CPU_ALLOC that the caller CPU_FREEs; *size is its CPU_ALLOC_SIZE.
 * Returns 0 or -errno. */
int fr_cpuset__affinity(cpu_set_t **set, size_t *size);
bool fr_cpuset__has(const cpu_set_t *set, size_t size, struct fr_cpu cpu);

#endif
