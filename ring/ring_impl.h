/* ring/ring_impl.h: struct fr_ring and the helpers that ring/ring.c (the
 * forward protocol, the mapping) and ring/stream.c (backward streams, lapping
 * reads, clones) share; nothing outside those two files includes it.
 */
#ifndef FR_RING_IMPL_H
#define FR_RING_IMPL_H

#include "ring/ring.h"
#include "ring/internal.h"

struct fr_ring {
	struct perf_event_mmap_page *ctl;
	uint8_t *data;
	size_t size;
	uint64_t mask;
	bool backward;
	size_t map_len;          /* 0: memory not ours */
	bool own_base;           /* a clone: ctl is our malloc'd block */
	/* forward reading */
	uint64_t start, end;     /* cursor and head of the current read */
	bool skip_rest;
	uint8_t *scratch;
	/* backward snapshots */
	uint8_t *copy;
	uint32_t *offs;
	size_t offs_cap;
	uint32_t *bounds;        /* streaming: chunk bounds of the walk */
	size_t bounds_cap;
	uint8_t *stage;          /* streaming: one chunk's raw span */
	size_t stage_cap;
	/* lapping reads of a backward ring (ring.h) */
	uint64_t since;          /* data_head of the last read: all older is read or lost */
	uint64_t lap_n;          /* bytes the current read covers (since - its head) */
	uint64_t lap_out;        /* bytes of them handed out */
	struct fr_ring_stream lst;
	uint8_t *lbuf;           /* the current chunk's records, oldest first */
	const uint8_t *lrec;
	size_t lleft;
	bool lap_corrupt_said;
	uint64_t seen_bytes, seen_nr;   /* records handed out so far: the size estimate */
	uint64_t lap_deferred;   /* lapped bytes of the current read not yet estimated */
	uint64_t lost_bytes, lost_nr;   /* overwritten, not told yet */
	fr_ring_copy_hook_t hook;
	void *hook_arg;
	fr_ring_ioctl_t ioctl_fn;
	void *ioctl_ctx;
};

static inline uint64_t load_head(const struct fr_ring *r)
{
	return __atomic_load_n(&r->ctl->data_head, __ATOMIC_ACQUIRE);
}

static inline void store_tail(struct fr_ring *r, uint64_t tail)
{
	__atomic_store_n(&r->ctl->data_tail, tail, __ATOMIC_RELEASE);
}

/* Bytes ever written, up to the ring size: data_head counts down from 0, so
 * a ring that has not wrapped holds only the -head bytes below 0. */
static inline size_t written_len(const struct fr_ring *r, uint64_t head)
{
	uint64_t w = (uint64_t)0 - head;

	return w < r->size ? (size_t)w : r->size;
}

/* A backward ring's lapping read (ring.h), behind fr_ring__read_init/
 * _read_event/_read_done (ring/stream.c). */
int fr_ring__lap_init(struct fr_ring *r);
const struct perf_event_header *fr_ring__lap_event(struct fr_ring *r, int *err);
void fr_ring__lap_done(struct fr_ring *r);

#endif
