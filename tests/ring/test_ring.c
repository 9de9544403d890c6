/* tests/ring/test_ring.c: the ring read protocol (ring/ring.c) without a kernel. A fake
 * kernel writes PERF_RECORD_SAMPLEs into fake mmapped pages, forward (respecting
 * data_tail) and backward (write_backward, overwriting, racing the snapshot copy):
 * tests/ring/fake.h.
 */
#include "ring/ring.h"
#include "ring/internal.h"

#include "tests/cunit.h"
#include "tests/ring/fake.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- forward ------------------------------------------------------------ */

static void test_fwd_empty(void)
{
	struct fake *f = fake_new(4096, false, 0);
	int err = 0;

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), -EAGAIN);
	CU_ASSERT_PTR_NULL(fr_ring__read_event(f->ring, &err));
	CU_ASSERT_EQUAL(err, 0);
	fr_ring__read_done(f->ring);
	CU_ASSERT_EQUAL(f->ctl->data_tail, 0);
	fake_delete(f);
}

static void test_fwd_in_order(void)
{
	static const uint16_t sizes[] = { 16, 200, 48, 24, 96 };
	struct fake *f = fake_new(4096, false, 0);
	const struct perf_event_header *h;
	uint64_t seq, n = 0;
	int err = 0;
	size_t i;

	CU_ASSERT_FATAL(f != NULL);
	for (i = 0; i < 5; i++)
		CU_ASSERT(fake_write(f, sizes[i]));
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), 0);
	while ((h = fr_ring__read_event(f->ring, &err))) {
		CU_ASSERT(record_ok(h, &seq));
		CU_ASSERT_EQUAL(seq, n);
		CU_ASSERT(n < 5 && h->size == sizes[n]);
		CU_ASSERT(in_data(f, h));
		n++;
	}
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(f->ctl->data_tail, 0); /* not before read_done */
	fr_ring__read_done(f->ring);
	CU_ASSERT_EQUAL(f->ctl->data_tail, f->head);
	CU_ASSERT_EQUAL(f->ctl->data_tail, 16 + 200 + 48 + 24 + 96);
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), -EAGAIN);
	fake_delete(f);
}

/* read_done after a partial read stores the tail where reading stopped. */
static void test_fwd_partial_read(void)
{
	struct fake *f = fake_new(4096, false, 0);
	const struct perf_event_header *h;
	uint64_t seq, n;

	CU_ASSERT_FATAL(f != NULL);
	fake_write_n(f, 5);
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), 0);
	for (n = 0; n < 2; n++) {
		h = fr_ring__read_event(f->ring, NULL);
		CU_ASSERT_FATAL(h != NULL);
		CU_ASSERT(record_ok(h, &seq) && seq == n);
	}
	fr_ring__read_done(f->ring);
	CU_ASSERT_EQUAL(f->ctl->data_tail, f->log[2].pos);
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), 0);
	while ((h = fr_ring__read_event(f->ring, NULL))) {
		CU_ASSERT(record_ok(h, &seq) && seq == n);
		n++;
	}
	CU_ASSERT_EQUAL(n, 5);
	fr_ring__read_done(f->ring);
	CU_ASSERT_EQUAL(f->ctl->data_tail, f->head);
	fake_delete(f);
}

/* Records whose body (or whole body after the header) lies past the end. */
static void straddle_case(uint64_t start)
{
	struct fake *f = fake_new(256, false, start);
	const struct perf_event_header *h;
	uint64_t seq;
	int err = 0;

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fake_write(f, 64)); /* from start & mask past the end */
	CU_ASSERT(fake_write(f, 32));
	CU_ASSERT((f->log[0].pos & f->mask) + 64 > f->size); /* precondition */
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), 0);
	h = fr_ring__read_event(f->ring, &err);
	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT(!in_data(f, h)); /* reassembled in scratch */
	CU_ASSERT(record_ok(h, &seq) && seq == 0 && h->size == 64);
	h = fr_ring__read_event(f->ring, &err);
	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT(in_data(f, h));
	CU_ASSERT(record_ok(h, &seq) && seq == 1 && h->size == 32);
	CU_ASSERT_PTR_NULL(fr_ring__read_event(f->ring, &err));
	CU_ASSERT_EQUAL(err, 0);
	fr_ring__read_done(f->ring);
	CU_ASSERT_EQUAL(f->ctl->data_tail, start + 96);
	fake_delete(f);
}

static void test_fwd_straddle(void)
{
	straddle_case(256 - 24);     /* header and part of the body before the end */
	straddle_case(256 - 8);      /* only the header before the end */
	straddle_case(3 * 256 - 40); /* head already wrapped a few times */
}

/* A reader keeping up with a writer that fills the ring again and again. */
static void test_fwd_many_wraps(void)
{
	struct fake *f = fake_new(1024, false, 0);
	const struct perf_event_header *h;
	uint64_t next = 0, seq, scratch_hits = 0;
	int round, err = 0;

	CU_ASSERT_FATAL(f != NULL);
	for (round = 0; round < 2000; round++) {
		fake_write_n(f, 1 + rnd(f) % 20);
		if (fr_ring__read_init(f->ring) != 0)
			continue;
		while ((h = fr_ring__read_event(f->ring, &err))) {
			bool ok = record_ok(h, &seq);

			CU_ASSERT(ok);
			CU_ASSERT_EQUAL(seq, next);
			if (!ok || seq != next)
				goto out;
			scratch_hits += !in_data(f, h);
			next++;
		}
		CU_ASSERT_EQUAL(err, 0);
		fr_ring__read_done(f->ring);
		CU_ASSERT_EQUAL(f->ctl->data_tail, f->head);
	}
	CU_ASSERT_EQUAL(next, f->seq);
	CU_ASSERT(f->head > 100 * f->size); /* it did wrap, many times */
	CU_ASSERT(f->dropped > 0);           /* and the writer had to respect data_tail */
	CU_ASSERT(scratch_hits > 10);
out:
	fake_delete(f);
}

/* Good record, corrupt header, good record: the reader stops at the corrupt
 * one with -EBADMSG, read_done skips to head, and reading goes on after it. */
static void corrupt_case(uint16_t size_field, size_t adv, bool more)
{
	struct fake *f = fake_new(1024, false, 0);
	const struct perf_event_header *h;
	uint64_t seq;
	int err = 0;

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fake_write(f, 40));
	fake_write_bad(f, size_field, adv);
	if (more)
		CU_ASSERT(fake_write(f, 40));
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), 0);
	h = fr_ring__read_event(f->ring, &err);
	CU_ASSERT(h != NULL && record_ok(h, &seq) && seq == 0);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_PTR_NULL(fr_ring__read_event(f->ring, &err));
	CU_ASSERT_EQUAL(err, -EBADMSG);
	CU_ASSERT_PTR_NULL(fr_ring__read_event(f->ring, NULL));
	fr_ring__read_done(f->ring);
	CU_ASSERT_EQUAL(f->ctl->data_tail, f->head);
	/* the ring is usable again */
	CU_ASSERT(fake_write(f, 48));
	err = 0;
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), 0);
	h = fr_ring__read_event(f->ring, &err);
	CU_ASSERT(h != NULL && record_ok(h, &seq) && seq == f->seq - 1 && h->size == 48);
	CU_ASSERT_PTR_NULL(fr_ring__read_event(f->ring, &err));
	CU_ASSERT_EQUAL(err, 0);
	fr_ring__read_done(f->ring);
	CU_ASSERT_EQUAL(f->ctl->data_tail, f->head);
	fake_delete(f);
}

static void test_fwd_corrupt_size0(void)
{
	corrupt_case(0, 16, true);
}

static void test_fwd_corrupt_small(void)
{
	corrupt_case(4, 16, true);
}

static void test_fwd_corrupt_unaligned(void)
{
	corrupt_case(20, 24, true);
	corrupt_case(12, 16, false);
}

static void test_fwd_corrupt_too_large(void)
{
	corrupt_case(64, 32, false);  /* claims 64, 32 available */
	corrupt_case(128, 32, true);  /* claims 128, 72 available */
}

/* head - tail larger than the ring: the writer did not respect data_tail. */
static void test_fwd_overrun(void)
{
	struct fake *f = fake_new(256, false, 0);
	int err = 0;

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fake_write(f, 16));
	f->head = 256 + 16;
	publish(f);
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), 0);
	CU_ASSERT_PTR_NULL(fr_ring__read_event(f->ring, &err));
	CU_ASSERT_EQUAL(err, -EBADMSG);
	fr_ring__read_done(f->ring);
	CU_ASSERT_EQUAL(f->ctl->data_tail, f->head);
	fake_delete(f);
}

static void test_fwd_on_backward(void)
{
	struct fake *f = fake_new(256, true, 0);

	/* a backward ring's read is a lapping read (tests/ring/test_lap.c) */
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fr_ring__read_init(f->ring), -EAGAIN);
	fake_delete(f);
}

/* ---- backward ----------------------------------------------------------- */

/*
 * Check a snapshot against the fake's log: it must hold exactly the records
 * that lie wholly in the first lim bytes from snap->head, newest first, at
 * their offsets, each intact. Returns the log index of the next-older record
 * (the first one left out), or -1 when there is none.
 */
static long check_snapshot(const struct fake *f, const struct fr_ring_snapshot *s, size_t lim)
{
	size_t i = f->nlog, n = 0, len = 0;
	long next = -1;

	while (i-- > 0) {
		const struct logrec *l = &f->log[i];
		uint64_t off = l->pos - s->head, seq = 0;

		if (off >= (uint64_t)1 << 63)
			continue; /* written after head was read */
		if (off + l->size > lim) {
			next = (long)i;
			break;
		}
		CU_ASSERT(n < s->nr);
		if (n >= s->nr)
			return next;
		CU_ASSERT_EQUAL(s->offs[n], off);
		CU_ASSERT(record_ok(fr_ring_snapshot__record(s, n), &seq));
		CU_ASSERT_EQUAL(seq, l->seq);
		CU_ASSERT_EQUAL(fr_ring_snapshot__record(s, n)->size, l->size);
		len += l->size;
		n++;
	}
	CU_ASSERT_EQUAL(s->nr, n);
	CU_ASSERT_EQUAL(s->len, len);
	CU_ASSERT(!s->corrupt);
	return next;
}

static void test_bwd_empty(void)
{
	struct fake *f = fake_new(4096, true, 0);
	struct fr_ring_snapshot s;

	CU_ASSERT_FATAL(f != NULL);
	memset(&s, 0xa5, sizeof(s));
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(s.nr, 0);
	CU_ASSERT_EQUAL(s.len, 0);
	CU_ASSERT_EQUAL(s.head, 0);
	CU_ASSERT_EQUAL(s.raced, 0);
	CU_ASSERT(!s.full);
	CU_ASSERT(!s.corrupt);
	fake_delete(f);
}

static void test_bwd_few(void)
{
	struct fake *f = fake_new(4096, true, 0);
	struct fr_ring_snapshot s;
	uint64_t bytes, seq;
	size_t i;

	CU_ASSERT_FATAL(f != NULL);
	bytes = fake_write_n(f, 10);
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(s.head, (uint64_t)0 - bytes);
	CU_ASSERT_EQUAL_FATAL(s.nr, 10);
	CU_ASSERT_EQUAL(s.offs[0], 0); /* newest first */
	for (i = 0; i < s.nr; i++) {
		CU_ASSERT(record_ok(fr_ring_snapshot__record(&s, i), &seq));
		CU_ASSERT_EQUAL(seq, 9 - i);
	}
	CU_ASSERT_EQUAL(s.len, bytes);
	CU_ASSERT_EQUAL(check_snapshot(f, &s, f->size), -1);
	CU_ASSERT(!s.full); /* the zero-filled end stopped the walk */
	CU_ASSERT(!s.corrupt);
	CU_ASSERT_EQUAL(s.raced, 0);
	fake_delete(f);
}

/* Many small records: the offset table grows, and exactly filling the ring
 * ends the walk at the trusted end. */
static void test_bwd_many_small(void)
{
	struct fake *f = fake_new(16384, true, 0);
	struct fr_ring_snapshot s;
	uint64_t seq;
	int i;

	CU_ASSERT_FATAL(f != NULL);
	for (i = 0; i < 1000; i++)
		CU_ASSERT(fake_write(f, 16));
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(s.nr, 1000);
	CU_ASSERT(!s.full);
	CU_ASSERT_EQUAL(check_snapshot(f, &s, f->size), -1);
	for (i = 0; i < 1000; i++)
		CU_ASSERT(fake_write(f, 16));
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(s.nr, 1024);
	CU_ASSERT_EQUAL(s.len, 16384);
	CU_ASSERT(s.full);
	CU_ASSERT(check_snapshot(f, &s, f->size) >= 0);
	CU_ASSERT(record_ok(fr_ring_snapshot__record(&s, 1023), &seq) && seq == 2000 - 1024);
	fake_delete(f);
}

/* A ring wrapped many times: a contiguous run of the newest records, the
 * partly overwritten oldest one dropped. Snapshot after every write. */
static void test_bwd_wrapped(void)
{
	struct fake *f = fake_new(1024, true, 0);
	struct fr_ring_snapshot s;
	int k, partial = 0;

	CU_ASSERT_FATAL(f != NULL);
	fake_write_n(f, 3000);
	for (k = 0; k < 200; k++) {
		long next;
		uint64_t seq;
		size_t i;

		fake_write_n(f, 1);
		CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
		CU_ASSERT(s.nr > 0 && s.full);
		if (!s.nr)
			break;
		next = check_snapshot(f, &s, f->size);
		CU_ASSERT_FATAL(next >= 0);
		/* the newest delivered is the last written, and the run is contiguous */
		CU_ASSERT(record_ok(fr_ring_snapshot__record(&s, 0), &seq) && seq == f->seq - 1);
		CU_ASSERT(record_ok(fr_ring_snapshot__record(&s, s.nr - 1), &seq) &&
			  seq == f->seq - s.nr);
		/* the next older is not delivered, whether partly or wholly overwritten */
		CU_ASSERT_EQUAL(f->log[next].seq, f->seq - s.nr - 1);
		for (i = 0; i < s.nr; i++)
			CU_ASSERT(record_ok(fr_ring_snapshot__record(&s, i), &seq) &&
				  seq != f->log[next].seq);
		if (f->log[next].pos - s.head < f->size)
			partial++; /* its header was still there: the walk had to drop it */
	}
	CU_ASSERT(partial > 100);
	fake_delete(f);
}

/* A record whose body straddles the physical end comes out whole. */
static void test_bwd_straddle(void)
{
	struct fake *f = fake_new(256, true, 0);
	struct fr_ring_snapshot s;
	size_t hits = 0;
	uint64_t seq;
	int i;

	CU_ASSERT_FATAL(f != NULL);
	for (i = 0; i < 5; i++)
		CU_ASSERT(fake_write(f, 48)); /* head = -240: physical 16 */
	CU_ASSERT(fake_write(f, 40));         /* physical 232..272: straddles */
	CU_ASSERT((f->log[5].pos & f->mask) + 40 > f->size);
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_FATAL(s.nr >= 1);
	CU_ASSERT(record_ok(fr_ring_snapshot__record(&s, 0), &seq) && seq == 5);
	CU_ASSERT_EQUAL(fr_ring_snapshot__record(&s, 0)->size, 40);
	check_snapshot(f, &s, f->size);
	/* 40 + 4 * 48 = 232 fit, the oldest (seq 0) lost its tail */
	CU_ASSERT_EQUAL(s.nr, 5);
	CU_ASSERT(s.full);

	/* straddlers anywhere in the ring, over many wraps */
	for (i = 0; i < 300; i++) {
		size_t j;

		fake_write_n(f, 1);
		CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
		check_snapshot(f, &s, f->size);
		for (j = 0; j < s.nr; j++)
			hits += ((s.head + s.offs[j]) & f->mask) +
					fr_ring_snapshot__record(&s, j)->size > f->size;
	}
	CU_ASSERT(hits > 50);
	fake_delete(f);
}

struct race {
	struct fake *f;
	int calls;
	int big_calls;     /* calls that write the whole ring (128-byte records) */
	bool more;         /* and then one record more */
	size_t k;          /* records to write on the other calls */
	uint64_t written;  /* bytes written by the last call */
};

static void race_hook(struct fr_ring *ring, void *arg)
{
	struct race *r = arg;

	(void)ring;
	r->calls++;
	if (r->calls <= r->big_calls) {
		uint64_t start = r->f->head;

		while (start - r->f->head < r->f->size)
			fake_write(r->f, 128);
		if (r->more)
			fake_write_n(r->f, 1);
		r->written = start - r->f->head;
	} else {
		r->written = fake_write_n(r->f, r->k);
	}
}

/* K records written between the copy and the re-read of data_head. */
static void race_case(size_t ring_size, size_t before, size_t k)
{
	struct fake *f = fake_new(ring_size, true, 0);
	struct race r = { .k = k };
	struct fr_ring_snapshot s;
	uint64_t h0, seq;
	size_t i, j;

	CU_ASSERT_FATAL(f != NULL);
	r.f = f;
	fake_write_n(f, before);
	h0 = f->head;
	f->touched = calloc(1, f->size);
	CU_ASSERT_FATAL(f->touched != NULL);
	fr_ring__set_copy_hook(f->ring, race_hook, &r);
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(r.calls, 1);
	CU_ASSERT_EQUAL(s.head, h0);
	CU_ASSERT_EQUAL(s.raced, r.written);
	CU_ASSERT_EQUAL(h0 - f->head, r.written);
	check_snapshot(f, &s, f->size - s.raced);
	for (i = 0; i < s.nr; i++) {
		const struct perf_event_header *h = fr_ring_snapshot__record(&s, i);

		CU_ASSERT(record_ok(h, &seq) && seq < f->seq - k);
		CU_ASSERT(s.offs[i] + h->size <= f->size - s.raced);
		for (j = 0; j < h->size; j++)
			if (f->touched[(s.head + s.offs[i] + j) & f->mask]) {
				CU_FAIL("delivered a record that the racing writes touched");
				break;
			}
	}
	if (s.nr)
		CU_ASSERT(record_ok(fr_ring_snapshot__record(&s, 0), &seq) &&
			  seq == f->seq - k - 1);
	/* without the hook, the next snapshot sees the K records too */
	fr_ring__set_copy_hook(f->ring, NULL, NULL);
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(s.raced, 0);
	check_snapshot(f, &s, f->size);
	CU_ASSERT(s.nr > 0 && record_ok(fr_ring_snapshot__record(&s, 0), &seq) &&
		  seq == f->seq - 1);
	fake_delete(f);
}

static void test_bwd_race(void)
{
	static const size_t ks[] = { 1, 2, 3, 5, 8, 13 };
	size_t i, before;

	/* K records of at most 200 bytes stay under the ring size: one copy */
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		for (before = 0; before < 60; before += 3)
			race_case(ks[i] <= 5 ? 1024 : 4096, 2000 + before, ks[i]);
	race_case(4096, 5, 3);   /* the ring not yet full */
	race_case(1024, 8, 6);   /* not full before, overwritten during the copy */
}

/* The hook overwrites the whole ring on every copy: -EAGAIN after 3 tries. */
static void eagain_case(bool more)
{
	struct fake *f = fake_new(1024, true, 0);
	struct race r = { .big_calls = 1000, .more = more };
	struct fr_ring_snapshot s;

	CU_ASSERT_FATAL(f != NULL);
	r.f = f;
	fake_write_n(f, 100);
	fr_ring__set_copy_hook(f->ring, race_hook, &r);
	CU_ASSERT_EQUAL(fr_ring__snapshot(f->ring, &s), -EAGAIN);
	CU_ASSERT_EQUAL(r.calls, 3);
	fake_delete(f);
}

static void test_bwd_race_eagain(void)
{
	eagain_case(true);
	eagain_case(false); /* exactly the ring size: nothing of the copy is trusted */
}

/* The hook overwrites the whole ring on the first tries only: a later copy
 * is a valid snapshot of the ring as it is then. */
static void race_later_case(int big_calls, bool more, size_t k)
{
	struct fake *f = fake_new(1024, true, 0);
	struct race r = { .big_calls = big_calls, .more = more, .k = k };
	struct fr_ring_snapshot s;
	uint64_t seq;

	CU_ASSERT_FATAL(f != NULL);
	r.f = f;
	fake_write_n(f, 100);
	fr_ring__set_copy_hook(f->ring, race_hook, &r);
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(r.calls, big_calls + 1);
	CU_ASSERT_EQUAL(s.raced, r.written);
	CU_ASSERT_EQUAL(s.head, f->head + r.written);
	check_snapshot(f, &s, f->size - s.raced);
	CU_ASSERT(s.nr > 0 && record_ok(fr_ring_snapshot__record(&s, 0), &seq) &&
		  seq == f->seq - k - 1);
	fake_delete(f);
}

static void test_bwd_race_later_ok(void)
{
	race_later_case(1, true, 0);
	race_later_case(2, true, 0);
	race_later_case(2, true, 4); /* the third copy is raced a little */
	race_later_case(1, false, 0); /* exactly the ring size is a retry too */
	race_later_case(2, false, 3);
}

static void test_bwd_on_forward(void)
{
	struct fake *f = fake_new(1024, false, 0);
	struct fr_ring_snapshot s;

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fr_ring__snapshot(f->ring, &s), -EINVAL);
	fake_delete(f);
}

/* data_head starts at 0 (the kernel's rb->head) and crosses into 0xffff...
 * with the first record; -data_head is then the bytes written, so a ring
 * not yet full is copied only that far. A head far above 0 (a fake ring
 * that "wrote" almost 2^64 bytes: full) crossing 0 later is read whole. */
static void test_bwd_head_wraps_u64(void)
{
	struct fake *f = fake_new(1024, true, 0);
	struct race r = { .k = 3 };
	struct fr_ring_snapshot s;
	uint64_t seq;
	int i;

	CU_ASSERT_FATAL(f != NULL);
	r.f = f;
	CU_ASSERT(fake_write(f, 24)); /* head -24 */
	CU_ASSERT(fake_write(f, 32)); /* head -56 */
	CU_ASSERT(fake_write(f, 64)); /* head -120 */
	CU_ASSERT_EQUAL(f->head, (uint64_t)0 - 120);
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(s.head, (uint64_t)0 - 120);
	CU_ASSERT_EQUAL(s.nr, 3);
	CU_ASSERT(!s.full);
	CU_ASSERT(s.nr == 3 && record_ok(fr_ring_snapshot__record(&s, 2), &seq) && seq == 0);
	CU_ASSERT_EQUAL(check_snapshot(f, &s, f->size), -1);
	fake_delete(f);

	/* start far above 0, wrap a few times, end just above 0, race across 0 */
	f = fake_new(1024, true, 40 * 100 + 16);
	CU_ASSERT_FATAL(f != NULL);
	r.f = f;
	for (i = 0; i < 100; i++)
		CU_ASSERT(fake_write(f, 40));
	CU_ASSERT_EQUAL(f->head, 16);
	fr_ring__set_copy_hook(f->ring, race_hook, &r);
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT_EQUAL(s.head, 16);
	CU_ASSERT(f->head > ((uint64_t)1 << 63)); /* the racing writes crossed 0 */
	CU_ASSERT_EQUAL(s.raced, r.written);
	CU_ASSERT(check_snapshot(f, &s, f->size - s.raced) >= 0);
	CU_ASSERT(s.nr > 0);
	fr_ring__set_copy_hook(f->ring, NULL, NULL);
	fake_write_n(f, 500);
	CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
	CU_ASSERT(check_snapshot(f, &s, f->size) >= 0);
	CU_ASSERT(s.nr > 0 && s.full);
	fake_delete(f);
}

/* A malformed header ends the walk with corrupt set. */
static void test_bwd_corrupt(void)
{
	static const struct { uint16_t type, size; } bad[] = {
		{ 0, 32 }, { PERF_RECORD_SAMPLE, 4 }, { PERF_RECORD_SAMPLE, 20 } };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fake *f = fake_new(1024, true, 0);
		struct perf_event_header h = { .type = bad[i].type, .size = bad[i].size };
		struct fr_ring_snapshot s;
		uint64_t seq;

		CU_ASSERT_FATAL(f != NULL);
		CU_ASSERT(fake_write(f, 32));
		CU_ASSERT(fake_write(f, 32));
		CU_ASSERT(fake_write(f, 32));
		CU_ASSERT(fake_write(f, 32));
		put_bytes(f, f->log[1].pos, &h, sizeof(h));
		CU_ASSERT_EQUAL_FATAL(fr_ring__snapshot(f->ring, &s), 0);
		CU_ASSERT_EQUAL(s.nr, 2);
		CU_ASSERT(s.corrupt);
		CU_ASSERT(!s.full);
		CU_ASSERT_EQUAL(s.len, 64);
		CU_ASSERT(s.nr == 2 && record_ok(fr_ring_snapshot__record(&s, 1), &seq) &&
			  seq == 2);
		fake_delete(f);
	}
}

/* ---- main --------------------------------------------------------------- */

static const struct fr_test tests[] = {
	{ "forward: empty ring", test_fwd_empty },
	{ "forward: records in order, tail at read_done", test_fwd_in_order },
	{ "forward: partial read", test_fwd_partial_read },
	{ "forward: record straddling the end", test_fwd_straddle },
	{ "forward: many wraps, reader keeping up", test_fwd_many_wraps },
	{ "forward: corrupt header, size 0", test_fwd_corrupt_size0 },
	{ "forward: corrupt header, size < 8", test_fwd_corrupt_small },
	{ "forward: corrupt header, unaligned", test_fwd_corrupt_unaligned },
	{ "forward: corrupt header, larger than available", test_fwd_corrupt_too_large },
	{ "forward: head - tail > size", test_fwd_overrun },
	{ "forward: read_init on a backward ring", test_fwd_on_backward },
	{ "backward: empty ring", test_bwd_empty },
	{ "backward: fewer records than fit", test_bwd_few },
	{ "backward: many small records", test_bwd_many_small },
	{ "backward: wrapped many times", test_bwd_wrapped },
	{ "backward: record straddling the end", test_bwd_straddle },
	{ "backward: copy raced by K writes", test_bwd_race },
	{ "backward: whole ring raced 3 times", test_bwd_race_eagain },
	{ "backward: raced, then a later copy", test_bwd_race_later_ok },
	{ "backward: snapshot on a forward ring", test_bwd_on_forward },
	{ "backward: data_head crossing 2^64", test_bwd_head_wraps_u64 },
	{ "backward: malformed header", test_bwd_corrupt },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "ring", NULL, NULL, tests };
