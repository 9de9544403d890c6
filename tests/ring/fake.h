/* tests/ring/fake.h: a fake kernel for the ring suites: it writes
 * PERF_RECORD_SAMPLEs into fake mmapped pages, forward (respecting data_tail)
 * and backward (write_backward, overwriting), and logs where each went.
 */
#ifndef FR_TESTS_RING_FAKE_H
#define FR_TESTS_RING_FAKE_H

#include "ring/ring.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the fake kernel ---------------------------------------------------- */

struct logrec {
	uint64_t pos;   /* virtual address of the record's first byte */
	uint64_t seq;
	uint16_t size;
};

struct fake {
	uint8_t *base;  /* control page, then the data area */
	struct perf_event_mmap_page *ctl;
	uint8_t *data;
	size_t size;
	uint64_t mask;
	bool backward;
	uint64_t head;  /* the writer's head (published as data_head) */
	uint64_t seq;   /* sequence number of the next record */
	uint64_t dropped;
	uint64_t rng;
	struct logrec *log;
	size_t nlog, logcap;
	uint8_t *touched; /* if set: physical bytes written are marked 1 */
	struct fr_ring *ring;
};

static __attribute__((unused)) uint64_t rnd(struct fake *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return f->rng;
}

/* A record size from 16 to 200 bytes, 8-byte multiples. */
static __attribute__((unused)) uint16_t rnd_size(struct fake *f)
{
	return (uint16_t)(16 + 8 * (rnd(f) % 24));
}

static __attribute__((unused)) uint8_t fill_byte(uint64_t seq, size_t size, size_t i)
{
	return (uint8_t)(seq * 131 + size * 17 + i * 7 + 1);
}

/* A SAMPLE record: header, u64 sequence number, then bytes derived from both. */
static __attribute__((unused)) void make_record(uint8_t *buf, uint64_t seq, uint16_t size)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 0, .size = size };
	size_t i;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, &seq, 8);
	for (i = 16; i < size; i++)
		buf[i] = fill_byte(seq, size, i);
}

/* Is h a whole record made by make_record? Sets *seq. */
static __attribute__((unused)) bool record_ok(const struct perf_event_header *h, uint64_t *seq)
{
	const uint8_t *p = (const uint8_t *)h;
	size_t i;

	if (h->type != PERF_RECORD_SAMPLE || h->misc != 0 || h->size < 16 || h->size > 200)
		return false;
	memcpy(seq, p + 8, 8);
	for (i = 16; i < h->size; i++)
		if (p[i] != fill_byte(*seq, h->size, i))
			return false;
	return true;
}

static __attribute__((unused)) void put_bytes(struct fake *f, uint64_t pos, const void *src, size_t n)
{
	const uint8_t *s = src;
	size_t i;

	/* byte by byte, modulo the size: the kernel writes records contiguously */
	for (i = 0; i < n; i++) {
		size_t phys = (size_t)((pos + i) & f->mask);

		f->data[phys] = s[i];
		if (f->touched)
			f->touched[phys] = 1;
	}
}

static __attribute__((unused)) void log_add(struct fake *f, uint64_t pos, uint64_t seq, uint16_t size)
{
	if (f->nlog == f->logcap) {
		size_t cap = f->logcap ? f->logcap * 2 : 1024;
		struct logrec *n = realloc(f->log, cap * sizeof(*n));

		if (!n)
			abort();
		f->log = n;
		f->logcap = cap;
	}
	f->log[f->nlog++] = (struct logrec){ .pos = pos, .seq = seq, .size = size };
}

static __attribute__((unused)) void publish(struct fake *f)
{
	__atomic_store_n(&f->ctl->data_head, f->head, __ATOMIC_RELEASE);
}

/* Write one record of the given size; false if a forward ring had no room. */
static __attribute__((unused)) bool fake_write(struct fake *f, uint16_t size)
{
	uint8_t rec[256];

	make_record(rec, f->seq, size);
	if (f->backward) {
		f->head -= size;
		put_bytes(f, f->head, rec, size);
		log_add(f, f->head, f->seq, size);
	} else {
		uint64_t tail = __atomic_load_n(&f->ctl->data_tail, __ATOMIC_ACQUIRE);

		if (f->size - (f->head - tail) < size) {
			f->dropped++;
			return false;
		}
		put_bytes(f, f->head, rec, size);
		log_add(f, f->head, f->seq, size);
		f->head += size;
	}
	f->seq++;
	publish(f);
	return true;
}

/* Write n records of random sizes; returns the bytes written. */
static __attribute__((unused)) uint64_t fake_write_n(struct fake *f, size_t n)
{
	uint64_t bytes = 0;

	while (n--) {
		uint16_t size = rnd_size(f);

		if (fake_write(f, size))
			bytes += size;
	}
	return bytes;
}

/* Forward only: a header with any size field, advancing head by adv bytes. */
static __attribute__((unused)) void fake_write_bad(struct fake *f, uint16_t size_field, size_t adv)
{
	uint8_t rec[256] = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size_field };

	memcpy(rec, &h, sizeof(h));
	put_bytes(f, f->head, rec, adv);
	f->head += adv;
	publish(f);
}

static __attribute__((unused)) struct fake *fake_new(size_t size, bool backward, uint64_t head)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct fake *f = calloc(1, sizeof(*f));
	size_t alloc;

	if (!f)
		return NULL;
	/* aligned_alloc wants a multiple of the alignment */
	alloc = page + (size + page - 1) / page * page;
	f->base = aligned_alloc(page, alloc);
	if (!f->base) {
		free(f);
		return NULL;
	}
	memset(f->base, 0, alloc);
	f->ctl = (struct perf_event_mmap_page *)f->base;
	f->ctl->data_offset = page;
	f->ctl->data_size = size;
	f->ctl->data_head = head;
	f->ctl->data_tail = backward ? 0 : head;
	f->data = f->base + page;
	f->size = size;
	f->mask = size - 1;
	f->backward = backward;
	f->head = head;
	f->rng = 0x9e3779b97f4a7c15ull ^ size ^ head;
	f->ring = fr_ring__new(f->base, size, backward);
	if (!f->ring) {
		free(f->base);
		free(f);
		return NULL;
	}
	return f;
}

static __attribute__((unused)) void fake_delete(struct fake *f)
{
	if (!f)
		return;
	fr_ring__delete(f->ring);
	free(f->touched);
	free(f->log);
	free(f->base);
	free(f);
}

static __attribute__((unused)) bool in_data(const struct fake *f, const void *p)
{
	return (const uint8_t *)p >= f->data && (const uint8_t *)p < f->data + f->size;
}

#endif
