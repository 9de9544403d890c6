/* ring/ring.c: the perf ring read protocol (see ring.h): forward reading with
 * data_tail, and the unpaused copy of a backward (overwrite) ring.
 * Owns the ring's memory mapping, scratch and snapshot buffers.
 */
#include "ring/ring.h"
#include "ring/internal.h"

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

struct fr_ring {
	struct perf_event_mmap_page *ctl;
	uint8_t *data;
	size_t size;
	uint64_t mask;
	bool backward;
	size_t map_len;          /* 0: memory not ours */
	/* forward reading */
	uint64_t start, end;     /* cursor and head of the current read */
	bool skip_rest;
	uint8_t *scratch;
	/* backward snapshots */
	uint8_t *copy;
	uint32_t *offs;
	size_t offs_cap;
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
	free(r->scratch);
	free(r->copy);
	free(r->offs);
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
		return -EINVAL;
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

int fr_ring__prepare(struct fr_ring *r)
{
	size_t cap = r->size / 32 > 256 ? r->size / 32 : 256;

	if (!r->backward)
		return 0;
	if (!r->copy && !(r->copy = malloc(r->size)))
		return -ENOMEM;
	memset(r->copy, 0, r->size);
	if (r->offs_cap < cap) {
		uint32_t *n = realloc(r->offs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->offs = n;
		r->offs_cap = cap;
	}
	memset(r->offs, 0, r->offs_cap * sizeof(*r->offs));
	return 0;
}

static int push_off(struct fr_ring *r, size_t nr, size_t off)
{
	if (nr == r->offs_cap) {
		size_t cap = r->offs_cap ? r->offs_cap * 2 : 256;
		uint32_t *n = realloc(r->offs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->offs = n;
		r->offs_cap = cap;
	}
	r->offs[nr] = (uint32_t)off;
	return 0;
}

/* Step 5 of the protocol: walk the trusted part of the rotated copy. */
static int walk_copy(struct fr_ring *r, size_t trusted, struct fr_ring_snapshot *s)
{
	size_t off = 0;
	int err;

	s->nr = 0;
	s->full = false;
	s->corrupt = false;
	for (;;) {
		const struct perf_event_header *h;

		if (off + sizeof(*h) > trusted) {
			s->full = true;
			break;
		}
		h = (const void *)(r->copy + off);
		if (h->size == 0)
			break;
		if (h->size < sizeof(*h) || (h->size & 7) || h->type == 0) {
			s->corrupt = true;
			break;
		}
		if (off + h->size > trusted) {
			s->full = true;
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
		size_t pos = h1 & r->mask;

		/* Step 2: rotate so that byte 0 is the newest record. */
		memcpy(r->copy, r->data + pos, r->size - pos);
		memcpy(r->copy + (r->size - pos), r->data, pos);
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
		err = walk_copy(r, r->size - (size_t)(h1 - h2), s);
		s->offs = r->offs;
		return err;
	}
	return -EAGAIN;
}
