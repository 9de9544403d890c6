/* symbolize/maps.h: the report's model of processes over time: thread names
 * (COMM), executable mappings per process (MMAP2), fork, exec and exit, so a
 * sample resolves against the mappings and the name valid at its time.
 * Fed from sideband records (src/report_*.c) or a retained process table.
 * Library code: returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_MAPS_H
#define FR_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fr_maps;

struct fr_map {
	uint64_t start, end;   /* [start, end) in the process */
	uint64_t pgoff;        /* file offset of start */
	uint64_t time;         /* when it was mapped (0: before anything known) */
	uint32_t dso;          /* fr_maps__dso() index */
};

struct fr_dso_id {
	const char *path;          /* as recorded ("/usr/lib/.../libc.so.6", "[vdso]") */
	uint8_t build_id[20];
	uint8_t build_id_size;     /* 0: none recorded */
};

int fr_maps__new(struct fr_maps **out);
void fr_maps__delete(struct fr_maps *m);

/* Thread tid of process pid is called comm from time on; exec: the process
 * replaced its image (its mappings start afresh). */
int fr_maps__comm(struct fr_maps *m, uint32_t pid, uint32_t tid, uint64_t time,
		  const char *comm, bool exec);
/* An executable mapping of process pid from time on. build_id may be NULL. */
int fr_maps__mmap(struct fr_maps *m, uint32_t pid, uint64_t time, uint64_t start, uint64_t len,
		  uint64_t pgoff, const char *path, const uint8_t *build_id, size_t build_id_size);
/* Thread tid of process pid was created by ptid of ppid at time. A new process
 * (pid != ppid) sees its parent's mappings as of that time. */
int fr_maps__fork(struct fr_maps *m, uint32_t pid, uint32_t tid, uint32_t ppid, uint32_t ptid,
		  uint64_t time);
/* A process image (from a retained process table) begins at start: like an
 * exec, the mappings added for pid from start on are its own. Feed its
 * mappings with times no earlier than start. */
int fr_maps__image(struct fr_maps *m, uint32_t pid, uint64_t start);
int fr_maps__exit(struct fr_maps *m, uint32_t pid, uint32_t tid, uint64_t time);

/* The mapping that held addr in process pid at time, or NULL. */
const struct fr_map *fr_maps__find(const struct fr_maps *m, uint32_t pid, uint64_t time,
				   uint64_t addr);
/* The same, and the span of times [*tlo, *thi) around time over which the
 * answer for (pid, addr) stays the same while fr_maps__version does not change
 * (tlo, thi may be NULL). */
const struct fr_map *fr_maps__find_span(const struct fr_maps *m, uint32_t pid, uint64_t time,
					uint64_t addr, uint64_t *tlo, uint64_t *thi);
/* A count that changes with every change to the model (comm, mmap, fork,
 * image): what a cache of lookups checks. */
uint64_t fr_maps__version(const struct fr_maps *m);
/* The name of thread tid at time (interned: compare pointers), or NULL. */
const char *fr_maps__thread_comm(const struct fr_maps *m, uint32_t tid, uint64_t time);
/* The same, and the span of times [*tlo, *thi) around time over which the
 * answer stays the same while fr_maps__version does not change. */
const char *fr_maps__thread_comm_span(const struct fr_maps *m, uint32_t tid, uint64_t time,
				      uint64_t *tlo, uint64_t *thi);

size_t fr_maps__nr_dsos(const struct fr_maps *m);
const struct fr_dso_id *fr_maps__dso(const struct fr_maps *m, uint32_t idx);

#endif
