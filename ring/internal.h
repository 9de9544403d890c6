/* ring/internal.h: hooks for tests of ring/ (the suites in tests/ring include it);
 * not part of the ring API. Nothing outside ring/ and tests/ may use them.
 */
#ifndef FR_RING_INTERNAL_H
#define FR_RING_INTERNAL_H

#include "ring/copy.h"
#include "ring/ring.h"

/* Called between the copy and the re-read of data_head, so a test can play
 * the kernel writing during the copy. NULL restores normal behaviour. */
typedef void (*fr_ring_copy_hook_t)(struct fr_ring *ring, void *arg);
void fr_ring__set_copy_hook(struct fr_ring *ring, fr_ring_copy_hook_t hook, void *arg);

/* Replaces ioctl(2) for the ring's pause and resume (a fake kernel refusing
 * or recording them). Returns 0 or -errno. NULL restores ioctl. */
typedef int (*fr_ring_ioctl_t)(struct fr_ring *ring, int fd, unsigned long req,
			       unsigned long arg, void *ctx);
void fr_ring__set_ioctl_hook(struct fr_ring *ring, fr_ring_ioctl_t fn, void *ctx);

/* The copier's deadline for its threads to start copying (default
 * FR_COPY_DEADLINE_NS); tests shorten or lengthen it. */
void fr_copier__set_deadline(struct fr_copier *c, uint64_t ns);

/* A whole-ring copy of a backward ring (the protocol of ring.h in one
 * step: copy the written region rotated so that byte 0 is the newest record,
 * re-read data_head, walk the trusted part). The recorder streams instead
 * (fr_ring__stream_begin/next); the suites keep this simpler copy as the
 * reference a stream is checked against. */
struct fr_ring_snapshot {
	uint8_t *buf;        /* rotated copy; byte 0 is the newest record */
	size_t len;          /* bytes of whole, valid records from buf */
	size_t nr;           /* number of records */
	const uint32_t *offs; /* offs[i]: offset in buf of record i; i = 0 is the newest */
	uint64_t head;       /* data_head before the copy */
	uint64_t raced;      /* bytes the kernel wrote during the copy (discarded at the old end) */
	bool full;           /* the walk reached the trusted end: older data was overwritten */
	bool corrupt;        /* the walk stopped at a malformed header */
};

/* snap->buf is owned by the ring and valid until the next snapshot or
 * delete. Returns 0, -EAGAIN if the kernel overwrote the whole ring during
 * three copies, -EINVAL on a forward ring, -ENOMEM. */
int fr_ring__snapshot(struct fr_ring *ring, struct fr_ring_snapshot *snap);

static inline const struct perf_event_header *
fr_ring_snapshot__record(const struct fr_ring_snapshot *snap, size_t i)
{
	return (const struct perf_event_header *)(snap->buf + snap->offs[i]);
}

#endif
