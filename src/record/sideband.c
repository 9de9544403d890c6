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

/* Drop a store's oldest records: at least min_bytes of them, then every one
 * older than cutoff (they are outside every future window; the process table
 * keeps what they said). */
static void sb_drop(struct sb_store *st, size_t min_bytes, uint64_t cutoff, uint64_t sample_type)
{
	size_t off = 0;

	while (off < st->len) {
		const struct perf_event_header *h = (const void *)(st->buf + off);
		uint64_t t;

		if (off >= min_bytes && (fr_record__time(h, sample_type, &t) || t >= cutoff))
			break;
		if (h->type == PERF_RECORD_LOST) {
			struct fr_lost l;

			/* a file reports the losses of the sideband it holds */
			if (!fr_record__lost(h, &l) && l.lost <= st->lost)
				st->lost -= l.lost;
		}
		off += h->size;
		st->nr--;
		st->dropped++;
	}
	if (!off)
		return;
	memmove(st->buf, st->buf + off, st->len - off);
	st->len -= off;
}

/* A store shrinks once a trim leaves it under a quarter full, to twice what
 * it holds: its memory follows the window's sideband, not the largest burst
 * ever seen (a fork storm's peak stayed in RSS for good). */
#define SB_SHRINK_MIN (1u << 20)

void fr_sb_store__trim_before(struct sb_store *st, uint64_t cutoff, uint64_t sample_type)
{
	sb_drop(st, 0, cutoff, sample_type);
	if (st->cap > SB_SHRINK_MIN && st->len < st->cap / 4) {
		size_t n = st->len * 2 > SB_SHRINK_MIN ? st->len * 2 : SB_SHRINK_MIN;
		uint8_t *p = realloc(st->buf, n);

		if (p) {
			st->buf = p;
			st->cap = n;
		}
	}
}

/* Append a record; beyond cap bytes the oldest half goes (bounded memory:
 * the process table keeps what those records said). */
int fr_sb_store__append(struct sb_store *st, const struct perf_event_header *h, size_t cap)
{
	if (st->len + h->size > cap && st->len)
		sb_drop(st, st->len / 2, 0, 0);
	if (fr_grow(&st->buf, &st->cap, st->len + h->size, 1, 65536))
		return -ENOMEM;
	memcpy(st->buf + st->len, h, h->size);
	st->len += h->size;
	st->nr++;
	if (h->type == PERF_RECORD_LOST) {
		struct fr_lost l;

		if (!fr_record__lost(h, &l))
			st->lost += l.lost;
	}
	return 0;
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

int fr_sb_store__write(struct fr_writer *w, uint32_t cpu, const struct sb_store *st,
			   uint64_t cutoff, uint64_t sample_type)
{
	size_t off = 0;
	int err = fr_writer__records_begin(w, cpu, FR_STREAM_SIDEBAND);

	while (!err && off < st->len) {
		const struct perf_event_header *h = (const void *)(st->buf + off);
		uint64_t t;

		off += h->size;
		if (cutoff && !fr_record__time(h, sample_type, &t) && t < cutoff)
			continue;
		err = fr_writer__record(w, h);
	}
	return err ? err : fr_writer__records_end(w);
}
