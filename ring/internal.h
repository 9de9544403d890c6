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

#endif
