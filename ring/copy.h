/* ring/copy.h: copying every CPU's backward ring exactly (ring.h, "pinned"
 * or "paused"), fast on busy CPUs: one sleeping copy thread per CPU.
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
	FR_COPY_PAUSED,   /* from elsewhere, with the ring paused */
	FR_COPY_SKIPPED,  /* neither was possible: not copied (snap is empty) */
};

#define FR_COPY_MAX_LISTED 16

struct fr_copy_stats {
	size_t pinned, paused, skipped;  /* CPUs per path */
	size_t late;     /* of paused: a copy thread existed but missed the deadline,
			  * ran on another CPU or failed */
	struct fr_cpu skipped_cpus[FR_COPY_MAX_LISTED]; /* the first skipped CPUs */
	int skip_err;    /* -errno of the first skip */
	double wait_ms;  /* request to the last copy thread done (or deadline) */
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
 * ring's CPU, its copy buffers pre-faulted there; it sleeps until a
 * snapshot. rings is copied. Returns 0, -ENOMEM. A thread that cannot be
 * created or pinned is no error: its CPU is copied paused. */
int fr_copier__new(const struct fr_copy_ring *rings, size_t n, struct fr_copier **out);
void fr_copier__delete(struct fr_copier *c);
/* Copy every ring: wake the threads (raised to SCHED_FIFO for the copy,
 * where allowed, so they preempt normal tasks), copy paused what no thread
 * copied on its CPU by the deadline. snaps[i] (n entries) and paths[i]
 * (NULL or n entries) describe ring i. Returns 0 (skipped CPUs are in st),
 * or -errno on a failure that stops the snapshot (a ring left paused). */
int fr_copier__snapshot(struct fr_copier *c, struct fr_ring_snapshot *snaps,
			enum fr_copy_path *paths, struct fr_copy_stats *st);
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
