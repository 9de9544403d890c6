/* symbolize/addrspace.h: what the symbolizer and the unwinder ask of the
 * caller's process model (src/proc/proctable.h in flightrec): the mapping that
 * held an address of a process at a time, the file it maps, and a version
 * that moves with every change. Declared here so symbolize/ includes nothing
 * of ours; the model fills in the operations.
 */
#ifndef FR_ADDRSPACE_H
#define FR_ADDRSPACE_H

#include <stddef.h>
#include <stdint.h>

/* One executable mapping of a process. */
struct fr_map {
	uint64_t start, end;   /* [start, end) in the process */
	uint64_t pgoff;        /* file offset of start */
	uint64_t time;         /* when it was mapped (0: before anything known) */
	uint32_t dso;          /* the model's file index (ops->dso) */
	uint32_t prot;         /* PROT_* as recorded */
};

/* A mapped file as recorded: one per distinct path and build id. */
struct fr_dso_id {
	const char *path;          /* as recorded ("/usr/lib/.../libc.so.6", "[vdso]") */
	uint8_t build_id[20];
	uint8_t build_id_size;     /* 0: none recorded */
};

struct fr_addrspace_ops {
	/* The mapping that held addr in process pid at time, or NULL, and the
	 * span of times [*tlo, *thi) around time over which that answer stays
	 * the same while the version does not change (tlo, thi may be NULL). */
	const struct fr_map *(*find_span)(const void *model, uint32_t pid, uint64_t time,
					  uint64_t addr, uint64_t *tlo, uint64_t *thi);
	/* File idx (idx < nr_dsos), or NULL. Indexes are stable. */
	const struct fr_dso_id *(*dso)(const void *model, uint32_t idx);
	size_t (*nr_dsos)(const void *model);
	/* Moves with every change a lookup could see. */
	uint64_t (*version)(const void *model);
};

/* A model and its operations. */
struct fr_addrspace {
	const struct fr_addrspace_ops *ops;
	const void *model;
};

static inline const struct fr_map *fr_addrspace__find(const struct fr_addrspace *as,
						      uint32_t pid, uint64_t time, uint64_t addr)
{
	return as->ops->find_span(as->model, pid, time, addr, NULL, NULL);
}

#endif
