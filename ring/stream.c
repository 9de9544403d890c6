/* ring/stream.c: a backward (overwrite) ring read without pausing it (see
 * ring.h): streamed whole in bounded chunks for a snapshot, read as it fills
 * from its newest end (lapping reads), and cloned while paused.
 */
#include "base/grow.h"
#include "ring/ring_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static void stream_walk(struct fr_ring *r, uint64_t h1, size_t lim, struct fr_ring_stream *st)
{
	size_t off = 0, cstart = 0;

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

		stream_walk(r, h1, written_len(r, h1), st);
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
	trusted = trusted > st->margin ? trusted - st->margin : 0;
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

/* ---- lapping reads of a backward ring (ring.h) ---- */

/* One chunk of a lapping read: the stream's buffers hold two of them. */
#define LAP_CHUNK FR_RING_CHUNK_MIN

/* Bytes at the oldest end of a view that data_head cannot vouch for: records
 * reserved but not yet published, at most one per context that nests (task,
 * softirq, irq, NMI), each at most 64 KiB; half the ring where that is more. */
static size_t inflight_margin(const struct fr_ring *r)
{
	size_t m = 4u * 65536u;

	return m < r->size / 2 ? m : r->size / 2;
}

/* n overwritten bytes, as records at the size of those seen so far */
static void note_overwritten(struct fr_ring *r, uint64_t n)
{
	uint64_t avg = r->seen_nr ? r->seen_bytes / r->seen_nr : 0;

	if (!n)
		return;
	if (!avg)
		avg = sizeof(struct perf_event_header);
	r->lost_bytes += n;
	r->lost_nr += (n + avg - 1) / avg;
}

int fr_ring__lap_init(struct fr_ring *r)
{
	struct fr_ring_stream *st = &r->lst;
	uint64_t h1 = load_head(r), n = r->since - h1;
	size_t room = r->size - inflight_margin(r);
	int err;

	r->lleft = 0;
	r->lap_n = 0;
	r->lap_out = 0;
	if (!n)
		return -EAGAIN;
	err = fr_ring__stream_prepare(r, LAP_CHUNK);
	if (!err && !r->lbuf && !(r->lbuf = malloc(LAP_CHUNK)))
		err = -ENOMEM;
	if (err)
		return err;
	memset(st, 0, sizeof(*st));
	st->chunk_max = LAP_CHUNK;
	st->bounds = r->bounds;
	st->margin = inflight_margin(r);
	/* the newest room bytes at most: older ones the kernel may be
	 * overwriting now */
	stream_walk(r, h1, n < room ? (size_t)n : room, st);
	st->head = h1;
	st->next = st->nb;
	st->begun = true;
	r->lap_n = n;
	r->lap_corrupt_said = false;
	/* lapped: the walk stopped short. Its bytes are exact; as records they
	 * are estimated at the mean size of records handed out (checked), never
	 * of a walk's headers (the oldest may be torn): none yet, at this
	 * read's end */
	if (r->seen_nr)
		note_overwritten(r, n - st->wend);
	else
		r->lap_deferred = n - st->wend;
	return 0;
}

const struct perf_event_header *fr_ring__lap_event(struct fr_ring *r, int *err)
{
	const struct perf_event_header *h;

	while (!r->lleft) {
		size_t len, nr;

		if (!r->lap_n || fr_ring__stream_next(r, &r->lst, r->lbuf, &r->lrec, &len, &nr) <= 0) {
			if (r->lst.corrupt && !r->lap_corrupt_said && err)
				*err = -EBADMSG;
			r->lap_corrupt_said = r->lst.corrupt;
			return NULL;
		}
		r->lleft = len;
	}
	h = (const struct perf_event_header *)r->lrec;
	r->lrec += h->size;
	r->lleft -= h->size;
	r->lap_out += h->size;
	r->seen_bytes += h->size;
	r->seen_nr++;
	return h;
}

/* Everything up to the read's head is read or lost: what the walk covered
 * and was not handed out (overwritten while copied, malformed, or left by
 * the caller) is lost too. */
void fr_ring__lap_done(struct fr_ring *r)
{
	if (!r->lap_n)
		return;
	note_overwritten(r, r->lst.wend - r->lap_out + r->lap_deferred);
	r->lap_deferred = 0;
	r->since = r->lst.head;
	r->lap_n = 0;
	r->lleft = 0;
}

int fr_ring__read_overwritten(struct fr_ring *r, uint64_t *bytes, uint64_t *records)
{
	*bytes = r->lost_bytes;
	*records = r->lost_nr;
	r->lost_bytes = 0;
	r->lost_nr = 0;
	return *records != 0;
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
