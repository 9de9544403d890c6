/* ring/ring.c: the perf ring read protocol (see ring.h): forward reading with
 * data_tail, and the unpaused copy of a backward (overwrite) ring streamed in
 * bounded chunks (and whole, for the suites: ring/internal.h). Owns the
 * ring's memory mapping, scratch and copy buffers.
 */
#include "base/grow.h"
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
	else if (r->own_base)
		free(r->ctl);
	free(r->scratch);
	free(r->copy);
	free(r->offs);
	free(r->bounds);
	free(r->stage);
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

static int push_off(struct fr_ring *r, size_t nr, size_t off)
{
	if (fr_grow(&r->offs, &r->offs_cap, nr + 1, sizeof(*r->offs), 256))
		return -ENOMEM;
	r->offs[nr] = (uint32_t)off;
	return 0;
}

/* Bytes ever written, up to the ring size: data_head counts down from 0, so
 * a ring that has not wrapped holds only the -head bytes below 0. */
static size_t written_len(const struct fr_ring *r, uint64_t head)
{
	uint64_t w = (uint64_t)0 - head;

	return w < r->size ? (size_t)w : r->size;
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

/* ---- streaming (ring.h) ---- */

/* The header at rotated offset off of the view that starts at head; headers
 * are 8-aligned, so one never straddles the end of the data area. */
static struct perf_event_header header_at(const struct fr_ring *r, uint64_t head, size_t off)
{
	struct perf_event_header h;

	memcpy(&h, r->data + ((head + off) & r->mask), sizeof(h));
	return h;
}

static bool header_bad(const struct perf_event_header *h)
{
	return h->size < sizeof(*h) || (h->size & 7) || h->type == 0;
}

/* Exactly want (the staging arrays are sized once and touched up front: no
 * doubling's slack in a confined recorder's memory). */
static int grow_u32(uint32_t **a, size_t *cap, size_t want)
{
	uint32_t *n;

	if (*cap >= want)
		return 0;
	n = realloc(*a, want * sizeof(*n));
	if (!n)
		return -ENOMEM;
	*a = n;
	*cap = want;
	return 0;
}

/* The bytes of the h1 view still trusted now (0: all overwritten). */
static size_t trusted_now(const struct fr_ring *r, uint64_t h1)
{
	uint64_t d;

	/* the loads of the copy must complete before data_head is read again */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	d = h1 - load_head(r);
	return d >= r->size ? 0 : r->size - (size_t)d;
}

/* One walk of the written region from h1: chunk bounds into r->bounds. */
static void stream_walk(struct fr_ring *r, uint64_t h1, struct fr_ring_stream *st)
{
	size_t lim = written_len(r, h1), off = 0, cstart = 0;

	st->nb = 0;
	r->bounds[st->nb++] = 0;
	st->bad_at = SIZE_MAX;
	st->full = false;
	while (off + sizeof(struct perf_event_header) <= lim) {
		struct perf_event_header h = header_at(r, h1, off);

		/* the walk is a chain of dependent loads: fetch ahead */
		__builtin_prefetch(r->data + ((h1 + off + 1024) & r->mask));
		if (h.size == 0)
			break;
		if (header_bad(&h)) {
			st->bad_at = off;
			break;
		}
		if (off + h.size > lim)
			break;
		if (off + h.size - cstart > st->chunk_max) {
			r->bounds[st->nb++] = (uint32_t)off;
			cstart = off;
		}
		off += h.size;
	}
	/* the walk reached the end of a wrapped ring: older data was overwritten */
	st->full = lim == r->size && st->bad_at == SIZE_MAX &&
		   (off + sizeof(struct perf_event_header) > lim || header_at(r, h1, off).size);
	st->wend = off;
}

int fr_ring__stream_prepare(struct fr_ring *r, size_t chunk_max)
{
	size_t nb_max;
	int err;

	if (!r->backward || chunk_max < FR_RING_CHUNK_MIN || chunk_max > UINT32_MAX)
		return -EINVAL;
	if (r->stage_cap >= chunk_max)
		return 0;
	/* every chunk but the last holds more than chunk_max - 64 KiB >= chunk_max / 2 */
	nb_max = r->size / (chunk_max / 2) + 2;
	err = grow_u32(&r->bounds, &r->bounds_cap, nb_max);
	if (!err)
		err = grow_u32(&r->offs, &r->offs_cap,
			       chunk_max / sizeof(struct perf_event_header) + 1);
	if (err)
		return err;
	free(r->stage);
	r->stage_cap = 0;
	if (!(r->stage = malloc(chunk_max)))
		return -ENOMEM;
	r->stage_cap = chunk_max;
	/* touch every page now, not in the first snapshot */
	memset(r->stage, 0, chunk_max);
	memset(r->bounds, 0, r->bounds_cap * sizeof(*r->bounds));
	memset(r->offs, 0, r->offs_cap * sizeof(*r->offs));
	return 0;
}

int fr_ring__stream_begin(struct fr_ring *r, size_t chunk_max, struct fr_ring_stream *st)
{
	int err;

	memset(st, 0, sizeof(*st));
	err = fr_ring__stream_prepare(r, chunk_max);
	if (err)
		return err;
	st->chunk_max = chunk_max;
	st->bounds = r->bounds;
	for (int tries = 0; tries < 3; tries++) {
		uint64_t h1 = load_head(r);

		stream_walk(r, h1, st);
		if (r->hook)
			r->hook(r, r->hook_arg);
		if (!trusted_now(r, h1))
			continue;   /* the kernel wrote a whole ring meanwhile */
		st->head = h1;
		st->next = st->nb;
		st->begun = true;
		return 0;
	}
	memset(st, 0, sizeof(*st));
	return -EAGAIN;
}

/* Copy [off, off + len) of the rotated view that starts at head to dst. */
static void copy_span(const struct fr_ring *r, uint64_t head, size_t off, size_t len, uint8_t *dst)
{
	size_t pos = (head + off) & r->mask, first = r->size - pos;

	if (first >= len) {
		memcpy(dst, r->data + pos, len);
	} else {
		memcpy(dst, r->data + pos, first);
		memcpy(dst + first, r->data, len - first);
	}
}

/* Record offsets (newest first) of the n whole records at the start of
 * buf[0, len) into r->offs, and r->offs[n] = where the last one ends; stops
 * at anything a record cannot be (an overwritten header: the check drops
 * it and everything older anyway). */
static size_t stage_offsets(struct fr_ring *r, const uint8_t *buf, size_t len)
{
	size_t off = 0, n = 0;

	while (off + sizeof(struct perf_event_header) <= len && n + 1 < r->offs_cap) {
		struct perf_event_header h;

		memcpy(&h, buf + off, sizeof(h));
		if (header_bad(&h) || off + h.size > len)
			break;
		r->offs[n++] = (uint32_t)off;
		off += h.size;
	}
	r->offs[n] = (uint32_t)off;
	return n;
}

int fr_ring__stream_next(struct fr_ring *r, struct fr_ring_stream *st, uint8_t *buf,
			 const uint8_t **recs, size_t *len, size_t *nr)
{
	size_t k, n, keep, start, span, kept, trusted, pos;

	*recs = buf;
	*len = 0;
	*nr = 0;
	if (!st->begun)
		return -EINVAL;
	if (st->done || st->next == 0) {
		st->done = true;
		return 0;
	}
	k = --st->next;
	start = st->bounds[k];
	span = (k + 1 < st->nb ? st->bounds[k + 1] : st->wend) - start;
	/* one raw copy of the chunk's span (fast, and every later read is of
	 * this copy), then the check */
	copy_span(r, st->head, start, span, r->stage);
	if (r->hook)
		r->hook(r, r->hook_arg);
	trusted = trusted_now(r, st->head);
	n = stage_offsets(r, r->stage, span);
	/* keep the newest records that lie wholly in the trusted part: a
	 * prefix of the offsets */
	for (keep = 0; keep < n && start + r->offs[keep + 1] <= trusted; keep++)
		;
	kept = r->offs[keep];
	if (k + 1 == st->nb && st->bad_at != SIZE_MAX) {
		/* the walk's malformed header: corruption if it was still
		 * trusted, else the kernel was overwriting it */
		if (st->bad_at + sizeof(struct perf_event_header) <= trusted)
			st->corrupt = true;
		else
			st->full = true;
	}
	if (kept < span) {
		st->raced += span - kept;
		st->full = true;
	}
	/* oldest first: the last kept record goes to the front of buf */
	pos = 0;
	for (size_t i = keep; i-- > 0;) {
		size_t sz = r->offs[i + 1] - r->offs[i];

		memcpy(buf + pos, r->stage + r->offs[i], sz);
		pos += sz;
	}
	*len = kept;
	*nr = keep;
	st->nr += keep;
	st->len += kept;
	return 1;
}

/* ---- clones of a paused ring (ring.h) ---- */

int fr_ring__clone_new(const struct fr_ring *r, size_t chunk_max, struct fr_ring **out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *ctl;
	struct fr_ring *c;
	uint8_t *base;
	int err;

	*out = NULL;
	if (!r->backward)
		return -EINVAL;
	base = malloc(page + r->size);
	if (!base)
		return -ENOMEM;
	memset(base, 0, page + r->size);   /* faulted in now, not while r is paused */
	ctl = (void *)base;
	ctl->data_offset = page;
	ctl->data_size = r->size;
	c = fr_ring__new(base, r->size, true);
	if (!c) {
		free(base);
		return -ENOMEM;
	}
	c->own_base = true;
	err = fr_ring__stream_prepare(c, chunk_max);
	if (err) {
		fr_ring__delete(c);
		return err;
	}
	*out = c;
	return 0;
}

/* Copy [from, to) of r's data (head values: from <= to, to - from < size)
 * to the same offsets of c. */
static void copy_between(const struct fr_ring *r, struct fr_ring *c, uint64_t from, uint64_t to)
{
	size_t pos = from & r->mask, len = (size_t)(to - from);
	size_t first = len < r->size - pos ? len : r->size - pos;

	memcpy(c->data + pos, r->data + pos, first);
	memcpy(c->data, r->data, len - first);
}

void fr_ring__clone_precopy(struct fr_ring *r, struct fr_ring *c)
{
	uint64_t head = load_head(r), copied = c->ctl->data_head;

	/* unpaused: the kernel writes on; what it writes from here on lies in
	 * [its head then, head) and is copied again by the next call. A new
	 * clone's head is 0, where every ring's began: its first call copies
	 * [head, 0), the written region, or the whole ring once it wrapped */
	copy_between(r, c, head, copied - head < r->size ? copied : head + r->size);
	__atomic_store_n(&c->ctl->data_head, head, __ATOMIC_RELEASE);
}

void fr_ring__clone_copy(struct fr_ring *r, struct fr_ring *c)
{
	/* paused, writers done: the bytes written since the last precopy (an
	 * unpublished write then reserved below the head it read, so it is
	 * among them), or the whole written region */
	fr_ring__clone_precopy(r, c);
	if (r->hook)
		r->hook(r, r->hook_arg);
}
