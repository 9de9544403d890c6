/* src/file/merge.c: the reader's merge: every record stream of the file
 * (per CPU samples and sideband, or one CPU part of them for a parallel
 * report) delivered in time order through a heap, with one decoded, checked
 * chunk per stream in memory and a bound on the total; samples that cannot
 * be used are counted as they pass.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ring/record.h"
#include "src/util.h"
#include "src/file/delta.h"
#include "src/file/file.h"
#include "src/file/internal.h"
#include "src/file/reader.h"

static const struct fr_file_event *record_event(const struct fr_reader *r,
						const struct stream *s,
						const struct perf_event_header *h)
{
	const struct fr_file_event *ev;
	size_t i;

	if (s->kind == FR_STREAM_SIDEBAND && r->sideband_ev)
		return r->sideband_ev;
	if (s->kind == FR_STREAM_SAMPLES && r->sample_ev)
		return r->sample_ev;
	if (fr_idmap__find(r->ids, h, PERF_SAMPLE_IDENTIFIER, &i))
		return NULL;
	ev = &r->events[i];
	return ev->attr.sample_type & PERF_SAMPLE_IDENTIFIER ? ev : NULL;
}

static bool record_time(const struct fr_file_event *ev, const struct perf_event_header *h,
			uint64_t *t)
{
	if (!ev)
		return false;
	if (h->type != PERF_RECORD_SAMPLE && (h->type >= PERF_RECORD_MAX || !ev->attr.sample_id_all))
		return false;
	return fr_record__time(h, ev->attr.sample_type, t) == 0;
}

/* A sample parsed once, for every caller (rec->sample); one the callers
 * cannot use is counted (doc/format.md §6): no event owns it, or its body
 * does not parse by its event's sample_type. Delivered all the same (dump
 * lists it). */
static const struct fr_sample *parse_sample(struct fr_reader *r, struct stream *s,
					    const struct perf_event_header *h)
{
	const struct fr_file_event *ev = s->rec.event;

	if (!ev)
		r->unusable.no_event++;
	else if (fr_record__parse_sample(h, ev->attr.sample_type, ev->attr.sample_regs_user,
					 &s->smp))
		r->unusable.bad_body++;
	else
		return &s->smp;
	return NULL;
}

/* Decode a stream's chunk and check every record before any is delivered. */
static int load_chunk(struct fr_reader *r, struct stream *s, const struct chunk_ref *ref)
{
	uint64_t nr = 0, nr_records;
	size_t off;
	int err;

	if (fr_grow(&s->buf, &s->buf_cap, ref->raw, 1, 65536))
		return -ENOMEM;
	err = fr_reader_decode_chunk(r, ref, s->buf);
	if (err)
		return err;
	r->why = "malformed records";
	if (fr_get32(s->buf) != s->cpu || fr_get32(s->buf + 4) != s->kind)
		return -EBADMSG;
	nr_records = fr_get64(s->buf + 8);
	if (ref->coded) {   /* version 2 and later: decoding checks every record's size */
		if (fr_delta__decode(s->buf + FR_RECORDS_HDR_SIZE, ref->raw - FR_RECORDS_HDR_SIZE,
				     fr_delta__words(r->version), &nr))
			return -EBADMSG;
	} else {
		for (off = FR_RECORDS_HDR_SIZE; off < ref->raw; nr++) {
			struct perf_event_header h;

			if (ref->raw - off < sizeof(h))
				return -EBADMSG;
			memcpy(&h, s->buf + off, sizeof(h));
			if (h.size < sizeof(h) || h.size % 8 || h.size > ref->raw - off)
				return -EBADMSG;
			off += h.size;
		}
	}
	if (nr != nr_records)
		return -EBADMSG;
	s->pos = FR_RECORDS_HDR_SIZE;
	s->end = ref->raw;
	return 0;
}

/* Make the stream's next record its head: 1, 0 at its end, -errno when its
 * next chunk is bad (the stream ends there). */
static int stream_next(struct fr_reader *r, struct stream *s)
{
	const struct perf_event_header *h;
	uint64_t t;
	int err;

	while (s->pos >= s->end) {
		err = s->next < s->nr_chunks ? load_chunk(r, s, &s->chunks[s->next++]) : 1;
		if (err == -EBADMSG)
			fr_reader_note_damage(r, &s->chunks[s->next - 1], FR_CHUNK_RECORDS, s->kind, s->cpu,
				    r->why, "its stream ends here");
		if (err) {  /* the end of the stream, or a bad chunk ends it */
			free(s->buf);
			s->buf = NULL;
			s->buf_cap = s->pos = s->end = 0;
			s->next = s->nr_chunks;
			return err < 0 ? err : 0;
		}
	}
	h = (const struct perf_event_header *)(s->buf + s->pos);
	s->pos += h->size;
	s->rec.h = h;
	/* a sample ring's COMMs (backward mode, as perf --overwrite writes
	 * them) are sideband to every reader */
	s->rec.kind = s->kind == FR_STREAM_SAMPLES && fr_record__is_process(h->type) ? FR_STREAM_SIDEBAND
									   : (enum fr_stream_kind)s->kind;
	s->rec.event = record_event(r, s, h);
	s->rec.sample = h->type == PERF_RECORD_SAMPLE ? parse_sample(r, s, h) : NULL;
	s->rec.time = 0;
	if (s->rec.sample && (s->rec.event->attr.sample_type & PERF_SAMPLE_TIME)) {
		s->rec.time = s->smp.time;
		s->last_time = s->smp.time;
	} else if (record_time(s->rec.event, h, &t)) {
		s->rec.time = t;
		s->last_time = t;
	}
	s->key = s->last_time;
	return 1;
}

/* Ties: sideband before samples, then lower CPU, FR_CPU_NONE lowest. */
static bool before(const struct stream *a, const struct stream *b)
{
	uint64_t ca = a->cpu == FR_CPU_NONE ? 0 : (uint64_t)a->cpu + 1;
	uint64_t cb = b->cpu == FR_CPU_NONE ? 0 : (uint64_t)b->cpu + 1;

	if (a->key != b->key)
		return a->key < b->key;
	if (a->kind != b->kind)
		return a->kind == FR_STREAM_SIDEBAND;
	return ca < cb;
}

static void sift_down(struct stream **heap, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1, rt = 2 * i + 2;
		struct stream *tmp;

		if (l < n && before(heap[l], heap[m]))
			m = l;
		if (rt < n && before(heap[rt], heap[m]))
			m = rt;
		if (m == i)
			return;
		tmp = heap[i];
		heap[i] = heap[m];
		heap[m] = tmp;
		i = m;
	}
}

/* Position every stream on its first record; returns the heap size. */
static size_t merge_start(struct fr_reader *r, struct stream **heap, int *err)
{
	size_t i, n = 0;
	int rc;

	r->unusable.no_event = r->unusable.bad_body = 0;   /* each walk counts anew */
	for (i = 0; i < r->nr_streams; i++) {
		struct stream *s = &r->streams[i];

		s->next = s->pos = s->end = 0;
		s->last_time = 0;
		s->rec.cpu = s->cpu;
		s->rec.kind = (enum fr_stream_kind)s->kind;
		if (r->nparts > 1 && s->kind == FR_STREAM_SAMPLES && s->cpu % r->nparts != r->part)
			continue;   /* another reader's part */
		rc = stream_next(r, s);
		if (rc > 0)
			heap[n++] = s;
		else if (rc < 0 && !*err)
			*err = rc;
	}
	for (i = n / 2; i-- > 0;)
		sift_down(heap, n, i);
	return n;
}

void fr_reader__set_cpu_part(struct fr_reader *r, unsigned part, unsigned nparts)
{
	r->nparts = nparts > 1 ? nparts : 0;
	r->part = nparts > 1 ? part % nparts : 0;
}

int fr_reader__for_each(struct fr_reader *r, fr_rec_cb cb, void *ctx)
{
	struct stream **heap = calloc(r->nr_streams + 1, sizeof(*heap));
	int err = 0, ret = 0, rc;
	size_t n, i;

	if (!heap)
		return -ENOMEM;
	n = merge_start(r, heap, &err);
	while (n) {
		ret = cb(ctx, &heap[0]->rec);
		if (ret)
			goto out;
		rc = stream_next(r, heap[0]);
		if (rc < 0 && !err)
			err = rc;
		if (rc <= 0)
			heap[0] = heap[--n];
		sift_down(heap, n, 0);
	}
out:
	for (i = 0; i < r->nr_streams; i++) {
		free(r->streams[i].buf);
		r->streams[i].buf = NULL;
		r->streams[i].buf_cap = 0;
	}
	free(heap);
	if (err == -EBADMSG)
		r->truncated = true;
	return ret ? ret : err;
}
