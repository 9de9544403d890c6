/* src/record/sideband.c: the sideband between snapshots: drained from the
 * forward sideband rings into per-CPU stores (backward) or the file
 * (forward), the process table fed in time order, collected when it grows.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ring/record.h"
#include "src/util.h"
#include "src/record/internal.h"

/* Blocks of SB_BLOCK bytes (a record larger than that gets a block of its
 * own size); a store of a small cap uses blocks of cap / 8, at least 4 KiB. */
#define SB_BLOCK (256u << 10)
#define SB_SPARE 4           /* emptied blocks kept for reuse per store */

struct sb_block {
	struct sb_block *next;
	size_t cap;              /* of data */
	size_t start, len;       /* the records held: data[start, len) */
	size_t last;             /* offset of the newest record */
	uint64_t nr, lost;       /* records held, counts of the LOST records held */
	uint8_t data[];
};

static size_t block_size(size_t cap)
{
	size_t bs = cap / 8;

	return bs > SB_BLOCK ? SB_BLOCK : bs < 4096 ? 4096 : bs;
}

static uint64_t lost_of(const struct perf_event_header *h)
{
	struct fr_lost l;

	return h->type == PERF_RECORD_LOST && !fr_record__lost(h, &l) ? l.lost : 0;
}

/* A file reports the losses of the sideband it holds: what goes, goes
 * from st->lost too. */
static void forget(struct sb_store *st, uint64_t nr, uint64_t lost, size_t bytes)
{
	st->nr -= nr;
	st->dropped += nr;
	st->lost -= lost <= st->lost ? lost : st->lost;
	st->bytes -= bytes;
}

static void recycle(struct sb_store *st, struct sb_block *b)
{
	if (st->nspare < SB_SPARE && b->cap <= SB_BLOCK) {
		b->next = st->spare;
		st->spare = b;
		st->nspare++;
	} else {
		free(b);
	}
}

/* The oldest block goes whole. */
static void drop_head(struct sb_store *st)
{
	struct sb_block *b = st->head;

	forget(st, b->nr, b->lost, b->len - b->start);
	st->head = b->next;
	if (!st->head)
		st->tail = NULL;
	recycle(st, b);
}

/* The oldest records of the oldest block, up to min_bytes of them and then
 * every one older than cutoff (untimed records stop it). */
static void drop_records(struct sb_store *st, size_t min_bytes, uint64_t cutoff,
			 uint64_t sample_type)
{
	struct sb_block *b = st->head;
	size_t gone = 0;

	while (b->start < b->len) {
		const struct perf_event_header *h = (const void *)(b->data + b->start);
		uint64_t t, lost;

		if (gone >= min_bytes && (fr_record__time(h, sample_type, &t) || t >= cutoff))
			break;
		lost = lost_of(h);
		b->lost -= lost <= b->lost ? lost : b->lost;
		forget(st, 1, lost, h->size);
		b->nr--;
		gone += h->size;
		b->start += h->size;
	}
	if (b->start == b->len)
		drop_head(st);
}

static void free_spares(struct sb_store *st)
{
	while (st->spare) {
		struct sb_block *b = st->spare;

		st->spare = b->next;
		free(b);
	}
	st->nspare = 0;
}

/* Drop the records older than cutoff: whole blocks whose newest record is,
 * then within the oldest block left. The spare blocks go too: the store's
 * memory follows the window's sideband, not the largest burst ever seen. */
void fr_sb_store__trim_before(struct sb_store *st, uint64_t cutoff, uint64_t sample_type)
{
	while (st->head) {
		const struct sb_block *b = st->head;
		uint64_t t;

		if (b->start < b->len &&
		    (fr_record__time((const void *)(b->data + b->last), sample_type, &t) ||
		     t >= cutoff))
			break;
		drop_head(st);
	}
	if (st->head)
		drop_records(st, 0, cutoff, sample_type);
	free_spares(st);
}

/* Append a record; beyond cap bytes the oldest go (a block at a time; in a
 * store of one block, half of it): bounded memory, and the process table
 * keeps what those records said. */
int fr_sb_store__append(struct sb_store *st, const struct perf_event_header *h, size_t cap)
{
	struct sb_block *b;
	uint64_t lost = lost_of(h);

	while (st->bytes && st->bytes + h->size > cap) {
		if (st->head != st->tail)
			drop_head(st);
		else
			drop_records(st, st->bytes / 2, 0, 0);
	}
	b = st->tail;
	if (!b || b->len + h->size > b->cap) {
		size_t bs = block_size(cap);

		if (h->size <= bs && st->spare && st->spare->cap >= bs) {
			b = st->spare;
			st->spare = b->next;
			st->nspare--;
		} else {
			bs = h->size > bs ? h->size : bs;
			if (!(b = malloc(sizeof(*b) + bs)))
				return -ENOMEM;
			b->cap = bs;
		}
		b->next = NULL;
		b->start = b->len = b->last = 0;
		b->nr = b->lost = 0;
		if (st->tail)
			st->tail->next = b;
		else
			st->head = b;
		st->tail = b;
	}
	memcpy(b->data + b->len, h, h->size);
	b->last = b->len;
	b->len += h->size;
	b->nr++;
	b->lost += lost;
	st->bytes += h->size;
	st->nr++;
	st->lost += lost;
	return 0;
}

void fr_sb_store__free(struct sb_store *st)
{
	while (st->head)
		drop_head(st);
	free_spares(st);
	memset(st, 0, sizeof(*st));
}

int fr_sb_store__for_each(const struct sb_store *st,
			  int (*cb)(void *ctx, const struct perf_event_header *h), void *ctx)
{
	for (const struct sb_block *b = st->head; b; b = b->next)
		for (size_t off = b->start; off < b->len;) {
			const struct perf_event_header *h = (const void *)(b->data + off);
			int ret = cb(ctx, h);

			if (ret)
				return ret;
			off += h->size;
		}
	return 0;
}

size_t fr_sb_store__mem(const struct sb_store *st)
{
	size_t n = 0;

	for (const struct sb_block *b = st->head; b; b = b->next)
		n += sizeof(*b) + b->cap;
	for (const struct sb_block *b = st->spare; b; b = b->next)
		n += sizeof(*b) + b->cap;
	return n;
}

/* Records the table needs, gathered from every CPU's ring, fed in time order
 * (a process may exec on one CPU and exit on another). */
static int table_pending(struct fr_session *s, const struct perf_event_header *h)
{
	uint64_t t = 0;

	if (h->type != PERF_RECORD_COMM && h->type != PERF_RECORD_FORK &&
	    h->type != PERF_RECORD_EXIT && h->type != PERF_RECORD_MMAP2)
		return 0;
	fr_record__time(h, fr_evlist__sideband_event(s->el)->attr.sample_type, &t);
	if (fr_grow(&s->pend.buf, &s->pend.cap, s->pend.len + h->size, 1, 65536) ||
	    fr_grow(&s->pend_refs, &s->pend_cap, s->pend.nr + 1, sizeof(*s->pend_refs), 256))
		return -ENOMEM;
	s->pend_refs[s->pend.nr++] = (struct pend_ref){ t, s->pend.len };
	memcpy(s->pend.buf + s->pend.len, h, h->size);
	s->pend.len += h->size;
	return 0;
}

static int cmp_pend(const void *a, const void *b)
{
	const struct pend_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Keep the pending records from..nr (sorted, newer than the watermark) for
 * the next feed, packed at the start of the buffer. */
static void keep_pending(struct fr_session *s, size_t from)
{
	size_t n = s->pend.nr - from, len = 0;
	uint8_t *tmp;

	if (!n) {
		s->pend.nr = 0;
		s->pend.len = 0;
		return;
	}
	for (size_t i = from; i < s->pend.nr; i++)
		len += ((const struct perf_event_header *)(s->pend.buf + s->pend_refs[i].off))->size;
	tmp = malloc(len);
	if (!tmp)
		return;     /* kept as they are: the next feed sorts them again */
	len = 0;
	for (size_t i = from; i < s->pend.nr; i++) {
		const struct perf_event_header *h = (const void *)(s->pend.buf + s->pend_refs[i].off);

		memcpy(tmp + len, h, h->size);
		s->pend_refs[i - from] = (struct pend_ref){ s->pend_refs[i].time, len };
		len += h->size;
	}
	memcpy(s->pend.buf, tmp, len);
	free(tmp);
	s->pend.nr = n;
	s->pend.len = len;
}

/* Feed the table, in time order across CPUs, the records up to watermark;
 * newer ones wait: a CPU's ring read earlier in this drain may still get a
 * record older than them (a FORK read after its child's exec would end the
 * exec's image). */
static void table_feed(struct fr_session *s, uint64_t watermark)
{
	uint64_t st = fr_evlist__sideband_event(s->el)->attr.sample_type;
	bool sorted = true;
	size_t i;

	/* one CPU's records are in order already: sort only a mix of CPUs */
	for (i = 1; i < s->pend.nr && sorted; i++)
		sorted = s->pend_refs[i - 1].time <= s->pend_refs[i].time;
	if (!sorted)
		qsort(s->pend_refs, s->pend.nr, sizeof(*s->pend_refs), cmp_pend);
	for (i = 0; i < s->pend.nr && s->pend_refs[i].time <= watermark; i++)
		fr_proctable__record_at(s->procs, (const void *)(s->pend.buf + s->pend_refs[i].off),
					st, s->pend_refs[i].time);
	keep_pending(s, i);
}

static int drain_cb(void *ctx, size_t ci, const struct perf_event_header *h)
{
	struct fr_session *s = ctx;
	int err = table_pending(s, h);

	if (err)
		return err;
	if (s->o.forward) {
		if (h->type == PERF_RECORD_LOST) {
			struct fr_lost l;

			if (!fr_record__lost(h, &l))
				s->sb_lost[ci] += l.lost;
		}
		s->sb_nr[ci]++;
		return fr_writer__record(s->sbw[ci], h);
	}
	return fr_sb_store__append(&s->sb[ci], h, s->o.sb_cap);
}

/* The oldest time every CPU's window still holds (0: some ring has not
 * wrapped, so its window reaches back to the start). */
uint64_t fr_session_window_floor(struct fr_session *s)
{
	uint64_t floor = UINT64_MAX;

	for (size_t ci = 0; ci < fr_evlist__nr_cpus(s->el); ci++) {
		uint64_t t = s->oldest[ci];

		if (!s->streams[ci].full || !s->streams[ci].nr || !t)
			return 0;
		if (t < floor)
			floor = t;
	}
	return floor == UINT64_MAX ? 0 : floor;
}

/* The gc's stream: the oldest chunk of each ring gives its oldest time. */
static int oldest_cb(void *ctx, size_t ci, const uint8_t *recs, size_t len, size_t nr)
{
	struct fr_session *s = ctx;

	(void)len;
	for (size_t i = 0, off = 0; i < nr && !s->oldest[ci]; i++) {
		const struct perf_event_header *h = (const void *)(recs + off);

		s->oldest[ci] = fr_session_record_time(s, h);
		off += h->size;
	}
	return s->oldest[ci] ? 1 : 0;
}

static int oldest_times(struct fr_session *s, struct fr_copy_stats *cs)
{
	memset(s->oldest, 0, fr_evlist__nr_cpus(s->el) * sizeof(*s->oldest));
	return fr_evlist__stream(s->el, s->streams, NULL, cs, oldest_cb, s);
}

/* Many exited processes: drop those no window can show any more. In
 * backward mode that needs the oldest time the rings hold: stream them up
 * to their first timed record (a walk of the headers, once per gc_at
 * exits). Forward mode streamed their records already. */
static void maybe_gc(struct fr_session *s)
{
	uint64_t before;
	struct fr_copy_stats cs;

	if (fr_proctable__nr_exited(s->procs) < s->gc_at)
		return;
	if (s->o.forward) {
		before = fr_session_now(CLOCK_MONOTONIC) - 10000000000ull;
		/* rotating: the file being written names every process that ran
		 * since it began (its PROCS blob is the whole table) */
		if (s->o.rotate && s->fwd_t0 && s->fwd_t0 < before)
			before = s->fwd_t0;
	} else if (s->keep) {   /* exited processes stay while the window shows them */
		before = fr_keep__floor(s->keep);
	} else {
		before = oldest_times(s, &cs) || cs.skipped ? 0 :
			 fr_session_window_floor(s);
	}
	fr_proctable__gc(s->procs, before);
	s->gc_at = fr_proctable__nr_exited(s->procs) * 2 + 4096;
}

/* Records older than this before a drain began were in their rings when
 * it read them (a writer publishes within microseconds of its timestamp). */
#define FEED_SLACK_NS 1000000ull

int fr_session_drain(struct fr_session *s, bool gc)
{
	uint64_t start = fr_session_now(CLOCK_MONOTONIC);
	int err = fr_evlist__drain_sideband(s->el, drain_cb, s);

	/* once the events are disabled nothing older can come: feed it all */
	table_feed(s, s->stopped ? UINT64_MAX : start - FEED_SLACK_NS);
	if (gc)
		maybe_gc(s);
	return err;
}

int fr_session__drain(struct fr_session *s)
{
	return fr_session_drain(s, true);
}

int fr_session__stop(struct fr_session *s)
{
	int err = fr_evlist__disable(s->el);

	s->stopped = true;
	return err;
}

size_t fr_session__nr_procs(const struct fr_session *s)
{
	return fr_proctable__nr(s->procs);
}

struct write_args {
	struct fr_writer *w;
	uint64_t cutoff, sample_type;
};

static int write_cb(void *ctx, const struct perf_event_header *h)
{
	struct write_args *a = ctx;
	uint64_t t;

	if (a->cutoff && !fr_record__time(h, a->sample_type, &t) && t < a->cutoff)
		return 0;
	return fr_writer__record(a->w, h);
}

int fr_sb_store__write(struct fr_writer *w, uint32_t cpu, const struct sb_store *st,
			   uint64_t cutoff, uint64_t sample_type)
{
	struct write_args a = { w, cutoff, sample_type };
	int err = fr_writer__records_begin(w, cpu, FR_STREAM_SIDEBAND);

	if (!err)
		err = fr_sb_store__for_each(st, write_cb, &a);
	return err ? err : fr_writer__records_end(w);
}
