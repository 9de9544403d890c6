/* ring/ring.c: a perf ring's mapping and its forward read protocol (see
 * ring.h) with data_tail, pausing and the writers' grace period, and the
 * whole-ring copy of a backward ring the suites check streams against
 * (ring/internal.h). Owns the ring's mapping and its scratch buffer.
 */
#include "base/grow.h"
#include "ring/ring_impl.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define FR_SCRATCH_SIZE 65536

struct fr_ring *fr_ring__new(void *base, size_t data_size, bool backward)
{
	struct fr_ring *r;
	size_t off;

	if (!base || data_size < 8 || (data_size & (data_size - 1)))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->ctl = base;
	off = r->ctl->data_offset ? r->ctl->data_offset : (size_t)sysconf(_SC_PAGESIZE);
	r->data = (uint8_t *)base + off;
	r->size = data_size;
	r->mask = data_size - 1;
	r->backward = backward;
	return r;
}

int fr_ring__mmap(int fd, size_t data_pages, bool backward, struct fr_ring **out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (data_pages + 1) * page;
	struct fr_ring *r;
	void *base;

	if (!data_pages || (data_pages & (data_pages - 1)))
		return -EINVAL;
	base = mmap(NULL, len, backward ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	r = fr_ring__new(base, data_pages * page, backward);
	if (!r) {
		munmap(base, len);
		return -ENOMEM;
	}
	r->map_len = len;
	*out = r;
	return 0;
}

void fr_ring__delete(struct fr_ring *r)
{
	if (!r)
		return;
	if (r->map_len)
		munmap(r->ctl, r->map_len);
	else if (r->own_base)
		free(r->ctl);
	free(r->scratch);
	free(r->copy);
	free(r->offs);
	free(r->bounds);
	free(r->stage);
	free(r->lbuf);
	free(r);
}

size_t fr_ring__data_size(const struct fr_ring *r)
{
	return r->size;
}

struct perf_event_mmap_page *fr_ring__control(const struct fr_ring *r)
{
	return r->ctl;
}

int fr_ring__read_init(struct fr_ring *r)
{
	if (r->backward)
		return fr_ring__lap_init(r);
	r->end = load_head(r);
	r->start = r->ctl->data_tail;
	r->skip_rest = false;
	return r->start == r->end ? -EAGAIN : 0;
}

const struct perf_event_header *fr_ring__read_event(struct fr_ring *r, int *err)
{
	const struct perf_event_header *h;
	uint64_t avail = r->end - r->start;
	size_t off, sz;

	if (r->backward)
		return fr_ring__lap_event(r, err);
	if (r->skip_rest || avail == 0)
		return NULL;
	off = r->start & r->mask;
	h = (const struct perf_event_header *)(r->data + off);
	sz = h->size;
	if (avail < sizeof(*h) || sz < sizeof(*h) || (sz & 7) || sz > avail || avail > r->size) {
		r->skip_rest = true;
		if (err)
			*err = -EBADMSG;
		return NULL;
	}
	if (off + sz > r->size) {
		size_t first = r->size - off;

		if (!r->scratch && !(r->scratch = malloc(FR_SCRATCH_SIZE))) {
			if (err)
				*err = -ENOMEM;
			return NULL;
		}
		memcpy(r->scratch, r->data + off, first);
		memcpy(r->scratch + first, r->data, sz - first);
		h = (const struct perf_event_header *)r->scratch;
	}
	r->start += sz;
	return h;
}

void fr_ring__read_done(struct fr_ring *r)
{
	if (r->backward) {
		fr_ring__lap_done(r);
		return;
	}
	store_tail(r, r->skip_rest ? r->end : r->start);
}

void fr_ring__set_copy_hook(struct fr_ring *r, fr_ring_copy_hook_t hook, void *arg)
{
	r->hook = hook;
	r->hook_arg = arg;
}

void fr_ring__set_ioctl_hook(struct fr_ring *r, fr_ring_ioctl_t fn, void *ctx)
{
	r->ioctl_fn = fn;
	r->ioctl_ctx = ctx;
}

int fr_ring__pause(struct fr_ring *r, int fd, bool pause)
{
	if (r->ioctl_fn)
		return r->ioctl_fn(r, fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause, r->ioctl_ctx);
	return ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1ul : 0ul) < 0 ? -errno : 0;
}

void fr_ring__wait_writers(void)
{
	struct timespec ts = { 0, 2000000 };

	/* writers run between rcu_read_lock and rcu_read_unlock (perf_output_begin
	 * and _end); MEMBARRIER_CMD_GLOBAL is synchronize_rcu() */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int push_off(struct fr_ring *r, size_t nr, size_t off)
{
	if (fr_grow(&r->offs, &r->offs_cap, nr + 1, sizeof(*r->offs), 256))
		return -ENOMEM;
	r->offs[nr] = (uint32_t)off;
	return 0;
}

/* Step 5 of the protocol: walk the trusted part of the rotated copy, up to
 * lim (the written length); reaching the trusted end means the oldest data
 * was overwritten. */
static int walk_copy(struct fr_ring *r, size_t trusted, size_t lim, struct fr_ring_snapshot *s)
{
	size_t off = 0, end = trusted < lim ? trusted : lim;
	bool full = trusted < lim || lim == r->size;
	int err;

	s->nr = 0;
	s->full = false;
	s->corrupt = false;
	for (;;) {
		const struct perf_event_header *h;

		if (off + sizeof(*h) > end) {
			s->full = full;
			break;
		}
		h = (const void *)(r->copy + off);
		if (h->size == 0)
			break;
		if (h->size < sizeof(*h) || (h->size & 7) || h->type == 0) {
			s->corrupt = true;
			break;
		}
		if (off + h->size > end) {
			s->full = full;
			break;
		}
		err = push_off(r, s->nr, off);
		if (err)
			return err;
		s->nr++;
		off += h->size;
	}
	s->len = off;
	return 0;
}

int fr_ring__snapshot(struct fr_ring *r, struct fr_ring_snapshot *s)
{
	int tries, err;

	if (!r->backward)
		return -EINVAL;
	if (!r->copy && !(r->copy = malloc(r->size)))
		return -ENOMEM;
	for (tries = 0; tries < 3; tries++) {
		uint64_t h1 = load_head(r), h2;
		size_t pos = h1 & r->mask, lim = written_len(r, h1);
		size_t first = lim < r->size - pos ? lim : r->size - pos;

		/* Step 2: rotate so that byte 0 is the newest record; only
		 * the written region. */
		memcpy(r->copy, r->data + pos, first);
		memcpy(r->copy + first, r->data, lim - first);
		if (r->hook)
			r->hook(r, r->hook_arg);
		/* the copy's loads must complete before data_head is read again */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		h2 = load_head(r);
		/* data_head counts down: bytes written meanwhile are h1 - h2. */
		if (h1 - h2 >= r->size)
			continue;
		s->buf = r->copy;
		s->head = h1;
		s->raced = h1 - h2;
		err = walk_copy(r, r->size - (size_t)(h1 - h2), lim, s);
		s->offs = r->offs;
		return err;
	}
	return -EAGAIN;
}
