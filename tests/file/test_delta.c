/* tests/file/test_delta.c: CUnit suite for the record coding of RECORDS
 * chunks (src/file/delta.c), every body word (version 2) and the first
 * FR_DELTA_HEAD_WORDS (version 3): round trips of fixture streams, the
 * prediction at work (repeated records code to zeros and time deltas, a long
 * body's tail as written), and the decoder's refusal of layouts it cannot trust.
 */
#include "src/file/delta.h"

#include "tests/cunit.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	uint8_t *p;
	size_t len, cap;
	size_t nr;
};

/* Append a record of size bytes whose body words are words[] (or a pattern). */
static void put(struct buf *b, uint32_t type, uint16_t misc, uint16_t size, const uint64_t *words)
{
	struct perf_event_header h = { type, misc, size };

	if (b->len + size > b->cap) {
		b->cap = (b->len + size) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, &h, sizeof(h));
	for (size_t w = 1; w < size / 8u; w++) {
		uint64_t v = words ? words[w - 1] : (uint64_t)(b->nr * 7919u + w * 104729u);

		memcpy(b->p + b->len + w * 8, &v, 8);
	}
	b->len += size;
	b->nr++;
}

/* A tracepoint sample: id, tid, time, cpu, raw (fd, count repeating). */
static void sample(struct buf *b, uint64_t t, uint64_t fd)
{
	uint64_t w[6] = { 42, (uint64_t)1234 << 32 | 1234, t, 0, 0x100000000ull | 7, fd };

	put(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 56, w);
}

/* both codings: versions 2 and 3 */
static const size_t word_counts[] = { SIZE_MAX, FR_DELTA_HEAD_WORDS, 0, 1 };

static void round_trip(const struct buf *b)
{
	uint8_t *coded = malloc(b->len ? b->len : 1);

	CU_ASSERT_FATAL(coded != NULL);
	for (size_t i = 0; i < sizeof(word_counts) / sizeof(word_counts[0]); i++) {
		uint64_t nr = 0;

		CU_ASSERT_EQUAL(fr_delta__encode(b->p, coded, b->len, word_counts[i]), 0);
		CU_ASSERT_EQUAL(fr_delta__decode(coded, b->len, word_counts[i], &nr), 0);
		CU_ASSERT_EQUAL(nr, b->nr);
		CU_ASSERT(memcmp(coded, b->p, b->len) == 0);
	}
	free(coded);
}

/* Samples interleaved with COMM/MMAP2-like records of many sizes: more
 * distinct headers than predictor slots, so slots collide and are reused. */
static void test_round_trip_mixed(void)
{
	struct buf b = { 0 };
	uint64_t t = 1000000;

	for (int i = 0; i < 5000; i++) {
		t += 400 + (uint64_t)(i % 13) * 17;
		sample(&b, t, (uint64_t)(i % 3));
		if (i % 7 == 0)
			put(&b, PERF_RECORD_COMM, (uint16_t)(i % 2 ? PERF_RECORD_MISC_COMM_EXEC : 0),
			    (uint16_t)(16 + 8 * (i % 200)), NULL);
		if (i % 11 == 0)
			put(&b, PERF_RECORD_LOST, 0, 24, NULL);
	}
	put(&b, PERF_RECORD_MMAP2, 0, 8, NULL);   /* a bare header */
	round_trip(&b);
	free(b.p);
}

static void test_round_trip_empty_and_one(void)
{
	struct buf b = { 0 };
	uint64_t nr = 99;
	uint8_t x;

	CU_ASSERT_EQUAL(fr_delta__encode(NULL, &x, 0, SIZE_MAX), 0);
	CU_ASSERT_EQUAL(fr_delta__decode(&x, 0, SIZE_MAX, &nr), 0);
	CU_ASSERT_EQUAL(nr, 0);
	sample(&b, 5, 1);
	round_trip(&b);
	free(b.p);
}

/* Repeated samples code to: a zero header, zero words, the time delta. */
static void test_prediction(void)
{
	struct buf b = { 0 };
	uint8_t *coded;
	uint64_t t = 1000;
	size_t nonzero = 0;

	for (int i = 0; i < 100; i++)
		sample(&b, t += 250, 3);
	coded = malloc(b.len);
	CU_ASSERT_FATAL(coded != NULL);
	CU_ASSERT_EQUAL_FATAL(fr_delta__encode(b.p, coded, b.len, fr_delta__words(2)), 0);
	CU_ASSERT(memcmp(coded, b.p, 56) == 0);   /* the first: nothing to predict from */
	for (size_t off = 56; off < b.len; off += 56) {
		uint64_t w[7];

		memcpy(w, coded + off, sizeof(w));
		CU_ASSERT_EQUAL(w[0], 0);      /* header: the previous one's */
		CU_ASSERT_EQUAL(w[3], 250);    /* time: the delta */
		for (int k = 1; k < 7; k++)
			nonzero += k != 3 && w[k] != 0;
	}
	CU_ASSERT_EQUAL(nonzero, 0);
	free(coded);
	free(b.p);
}

/* Version 3: a long body's first FR_DELTA_HEAD_WORDS words are coded as
 * version 2 codes them, the rest is as written. */
static void test_head_words(void)
{
	struct buf b = { 0 };
	uint64_t w[20], t = 5000, nr = 0;
	uint8_t *coded;

	CU_ASSERT_EQUAL(fr_delta__words(1), SIZE_MAX);
	CU_ASSERT_EQUAL(fr_delta__words(2), SIZE_MAX);
	CU_ASSERT_EQUAL(fr_delta__words(3), FR_DELTA_HEAD_WORDS);
	CU_ASSERT_EQUAL(FR_DELTA_HEAD_WORDS, 4);
	for (int i = 0; i < 10; i++) {
		for (int k = 0; k < 20; k++)
			w[k] = (uint64_t)(k + 1) * 1000003u + (uint64_t)i * 7u;
		w[2] = t += 100;
		put(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 168, w);
	}
	sample(&b, 1, 2);   /* a short record between: its own slot */
	coded = malloc(b.len);
	CU_ASSERT_FATAL(coded != NULL);
	CU_ASSERT_EQUAL_FATAL(fr_delta__encode(b.p, coded, b.len, fr_delta__words(3)), 0);
	CU_ASSERT(memcmp(coded + 8, b.p + 8, 160) == 0);   /* the first: as written */
	for (size_t off = 168; off < 10 * 168; off += 168) {
		uint64_t c[21], in[21];

		memcpy(c, coded + off, sizeof(c));
		memcpy(in, b.p + off, sizeof(in));
		CU_ASSERT_EQUAL(c[0], 0);
		CU_ASSERT_EQUAL(c[1], 7);      /* coded: the difference */
		CU_ASSERT_EQUAL(c[3], 100);    /* the time */
		CU_ASSERT_EQUAL(c[4], 7);      /* the fourth and last coded word */
		for (int k = 5; k < 21; k++)   /* the rest: as written */
			CU_ASSERT_EQUAL(c[k], in[k]);
	}
	CU_ASSERT_EQUAL(fr_delta__decode(coded, b.len, fr_delta__words(3), &nr), 0);
	CU_ASSERT_EQUAL(nr, 11);
	CU_ASSERT(memcmp(coded, b.p, b.len) == 0);
	/* decoded as version 2 it is not the records: the two codings differ */
	CU_ASSERT_EQUAL_FATAL(fr_delta__encode(b.p, coded, b.len, fr_delta__words(3)), 0);
	CU_ASSERT_EQUAL(fr_delta__decode(coded, b.len, fr_delta__words(2), &nr), 0);
	CU_ASSERT(memcmp(coded, b.p, b.len) != 0);
	free(coded);
	free(b.p);
}

/* Coded bytes the decoder must refuse, each in a buffer of exactly its size
 * (ASan catches a read or write past it). */
static void bad(const void *hdr_words, size_t len)
{
	uint8_t *p = malloc(len);
	uint64_t nr = 0;

	memcpy(p, hdr_words, len);
	CU_ASSERT_EQUAL(fr_delta__decode(p, len, SIZE_MAX, &nr), -EBADMSG);
	memcpy(p, hdr_words, len);
	CU_ASSERT_EQUAL(fr_delta__decode(p, len, FR_DELTA_HEAD_WORDS, &nr), -EBADMSG);
	free(p);
}

static void test_decode_refuses(void)
{
	struct perf_event_header h0 = { PERF_RECORD_SAMPLE, 0, 0 };      /* size 0 */
	struct perf_event_header h12 = { PERF_RECORD_SAMPLE, 0, 12 };    /* not a multiple of 8 */
	struct perf_event_header h64 = { PERF_RECORD_SAMPLE, 0, 64 };    /* past the end */
	uint8_t two[24] = { 0 };
	uint8_t tail[12] = { 0 };

	bad(&h0, 8);
	bad(&h12, 8);
	bad(&h64, 8);
	/* a second header XORed into size 0: the first (size 16) decodes, the
	 * second's coded header 16 ^ 16 = 0 would be size 16 again, so code 8:
	 * 16 ^ 8 = 24, which runs past the end */
	memcpy(two, &(struct perf_event_header){ PERF_RECORD_SAMPLE, 0, 16 }, 8);
	memcpy(two + 16, &(struct perf_event_header){ 0, 0, 8 }, 8);
	bad(two, sizeof(two));
	memcpy(tail, &(struct perf_event_header){ PERF_RECORD_SAMPLE, 0, 8 }, 8);
	bad(tail, sizeof(tail));   /* 4 bytes after the last record */
}

static void test_encode_refuses(void)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 20 };
	uint8_t in[24] = { 0 }, out[24];

	memcpy(in, &h, sizeof(h));
	CU_ASSERT_EQUAL(fr_delta__encode(in, out, sizeof(in), SIZE_MAX), -EINVAL);
	h.size = 32;
	memcpy(in, &h, sizeof(h));
	CU_ASSERT_EQUAL(fr_delta__encode(in, out, sizeof(in), FR_DELTA_HEAD_WORDS), -EINVAL);
}

static const struct fr_test tests[] = {
	{ "round trip: mixed records, colliding slots", test_round_trip_mixed },
	{ "round trip: empty, one record", test_round_trip_empty_and_one },
	{ "repeated samples code to zeros and the time delta", test_prediction },
	{ "version 3 codes a body's first words, the rest as written", test_head_words },
	{ "decode refuses sizes it cannot trust", test_decode_refuses },
	{ "encode refuses bad layouts", test_encode_refuses },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "delta", NULL, NULL, tests };
