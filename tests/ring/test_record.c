/* tests/ring/test_record.c: the record decoder (ring/record.c) on hand-built records:
 * sample fields by sample_type, truncation at every length, the sample_id_all
 * trailer, and the COMM, MMAP2, FORK/EXIT and LOST bodies.
 */
#include "ring/event.h"
#include "ring/record.h"

#include "tests/cunit.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building records --------------------------------------------------- */

struct rb {
	union {
		uint64_t align;
		uint8_t buf[4096];
	} u;
	size_t len;
};

static void rb_init(struct rb *b)
{
	memset(b, 0, sizeof(*b));
	b->len = sizeof(struct perf_event_header);
}

static void rb_bytes(struct rb *b, const void *p, size_t n)
{
	memcpy(b->u.buf + b->len, p, n);
	b->len += n;
}

static void rb_u64(struct rb *b, uint64_t v)
{
	rb_bytes(b, &v, 8);
}

static void rb_u32x2(struct rb *b, uint32_t lo, uint32_t hi)
{
	uint32_t v[2] = { lo, hi };

	rb_bytes(b, v, 8);
}

static void rb_pad8(struct rb *b)
{
	while (b->len & 7)
		b->u.buf[b->len++] = 0;
}

/* A NUL-terminated string padded to 8 bytes, as the kernel writes comm and filename. */
static void rb_str(struct rb *b, const char *s)
{
	rb_bytes(b, s, strlen(s) + 1);
	rb_pad8(b);
}

static struct perf_event_header *rb_done(struct rb *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header *h = (struct perf_event_header *)b->u.buf;

	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)b->len;
	return h;
}

/* The sample_id_all trailer for sample_type st (in ABI order). */
static void rb_trailer(struct rb *b, uint64_t st)
{
	if (st & PERF_SAMPLE_TID)
		rb_u32x2(b, 1001, 1002);
	if (st & PERF_SAMPLE_TIME)
		rb_u64(b, 123456789);
	if (st & PERF_SAMPLE_ID)
		rb_u64(b, 77);
	if (st & PERF_SAMPLE_STREAM_ID)
		rb_u64(b, 88);
	if (st & PERF_SAMPLE_CPU)
		rb_u32x2(b, 3, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		rb_u64(b, 77);
}

static bool inside(const struct perf_event_header *h, const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)h;

	return (const uint8_t *)p >= b && (const uint8_t *)p + n <= b + h->size;
}

/* Every size shorter than the record's own must give -EBADMSG. The record is
 * copied into a buffer of exactly that size, so ASan sees any over-read. */
static void check_truncated(const struct perf_event_header *h, uint64_t st, uint64_t regs_mask)
{
	struct fr_sample s;
	unsigned int sz;

	CU_ASSERT_EQUAL(fr_record__parse_sample(h, st, regs_mask, &s), 0);
	for (sz = 0; sz < h->size; sz++) {
		size_t n = sz < sizeof(*h) ? sizeof(*h) : sz;
		struct perf_event_header *t = malloc(n);
		int err;

		CU_ASSERT_FATAL(t != NULL);
		memcpy(t, h, n);
		t->size = (uint16_t)sz;
		err = fr_record__parse_sample(t, st, regs_mask, &s);
		CU_ASSERT_EQUAL(err, -EBADMSG);
		if (err != -EBADMSG)
			fprintf(stderr, "\n    sample_type %#llx size %u of %u: %d\n",
				(unsigned long long)st, sz, h->size, err);
		free(t);
	}
}

/* ---- samples ------------------------------------------------------------ */

static void test_sample_tid_time(void)
{
	const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	struct fr_sample s;
	struct rb b;
	struct perf_event_header *h;

	rb_init(&b);
	rb_u32x2(&b, 42, 43);
	rb_u64(&b, 0x1122334455667788ull);
	h = rb_done(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, st, 0, &s), 0);
	CU_ASSERT(s.has_tid && s.has_time);
	CU_ASSERT_EQUAL(s.pid, 42);
	CU_ASSERT_EQUAL(s.tid, 43);
	CU_ASSERT_EQUAL(s.time, 0x1122334455667788ull);
	CU_ASSERT_EQUAL(s.id, 0);
	CU_ASSERT_EQUAL(s.ip, 0);
	CU_ASSERT_EQUAL(s.nr_ips, 0);
	CU_ASSERT_PTR_NULL(s.ips);
	CU_ASSERT_PTR_NULL(s.raw);
	CU_ASSERT_PTR_NULL(s.regs);
	CU_ASSERT_PTR_NULL(s.stack);
	check_truncated(h, st, 0);

	/* no TID, no TIME */
	rb_init(&b);
	rb_u64(&b, 0xffffffff81000000ull);
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, PERF_SAMPLE_IP, 0, &s), 0);
	CU_ASSERT(!s.has_tid && !s.has_time);
	CU_ASSERT_EQUAL(s.ip, 0xffffffff81000000ull);
}

static void test_sample_callchain(void)
{
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	static const uint64_t ips[] = { PERF_CONTEXT_USER, 0x401000, 0x401234, 0x7f0000001000 };
	struct fr_sample s;
	struct rb b;
	struct perf_event_header *h;
	size_t i;

	rb_init(&b);
	rb_u64(&b, 9001);               /* identifier */
	rb_u64(&b, 0x401000);           /* ip */
	rb_u32x2(&b, 7, 8);             /* pid, tid */
	rb_u64(&b, 5000);               /* time */
	rb_u64(&b, 100003);             /* period */
	rb_u64(&b, 4);                  /* nr */
	rb_bytes(&b, ips, sizeof(ips));
	h = rb_done(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, st, 0, &s), 0);
	CU_ASSERT_EQUAL(s.id, 9001);
	CU_ASSERT_EQUAL(s.ip, 0x401000);
	CU_ASSERT_EQUAL(s.pid, 7);
	CU_ASSERT_EQUAL(s.tid, 8);
	CU_ASSERT_EQUAL(s.time, 5000);
	CU_ASSERT_EQUAL(s.period, 100003);
	CU_ASSERT_EQUAL_FATAL(s.nr_ips, 4);
	CU_ASSERT(inside(h, s.ips, 4 * 8));
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(s.ips[i], ips[i]);
	check_truncated(h, st, 0);

	/* an empty callchain */
	rb_init(&b);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u32x2(&b, 3, 4);
	rb_u64(&b, 5);
	rb_u64(&b, 6);
	rb_u64(&b, 0);
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, st, 0, &s), 0);
	CU_ASSERT_EQUAL(s.nr_ips, 0);
	CU_ASSERT_EQUAL(s.period, 6);
	check_truncated(h, st, 0);

	/* nr larger than the record */
	rb_init(&b);
	rb_u64(&b, 1);
	rb_u64(&b, 2);
	rb_u32x2(&b, 3, 4);
	rb_u64(&b, 5);
	rb_u64(&b, 6);
	rb_u64(&b, 3);
	rb_u64(&b, 0x401000);
	rb_u64(&b, 0x401000);
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL(fr_record__parse_sample(h, st, 0, &s), -EBADMSG);
	memcpy(b.u.buf + 40, &(uint64_t){ UINT64_MAX / 4 }, 8);
	CU_ASSERT_EQUAL(fr_record__parse_sample(h, st, 0, &s), -EBADMSG);
}

/* Every fixed field, in ABI order, ID and CPU included. */
static void test_sample_fixed_fields(void)
{
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	struct fr_sample s;
	struct rb b;
	struct perf_event_header *h;

	rb_init(&b);
	rb_u64(&b, 55);          /* identifier */
	rb_u64(&b, 0x400500);    /* ip */
	rb_u32x2(&b, 10, 11);
	rb_u64(&b, 999);         /* time */
	rb_u64(&b, 0xdead0000);  /* addr */
	rb_u64(&b, 55);          /* id */
	rb_u64(&b, 66);          /* stream_id */
	rb_u32x2(&b, 5, 0);      /* cpu, res */
	rb_u64(&b, 1);           /* period */
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, st, 0, &s), 0);
	CU_ASSERT_EQUAL(s.id, 55);
	CU_ASSERT_EQUAL(s.ip, 0x400500);
	CU_ASSERT_EQUAL(s.pid, 10);
	CU_ASSERT_EQUAL(s.tid, 11);
	CU_ASSERT_EQUAL(s.time, 999);
	CU_ASSERT_EQUAL(s.addr, 0xdead0000);
	CU_ASSERT_EQUAL(s.cpu, 5);
	CU_ASSERT_EQUAL(s.period, 1);
	check_truncated(h, st, 0);
}

static struct perf_event_header *raw_record(struct rb *b, uint32_t raw_size, bool regs)
{
	uint8_t data[256];
	uint32_t i;

	for (i = 0; i < raw_size; i++)
		data[i] = (uint8_t)(0xa0 + i);
	rb_init(b);
	rb_u32x2(b, 100, 101);
	rb_u64(b, 31337);
	rb_bytes(b, &raw_size, 4);
	rb_bytes(b, data, raw_size);
	rb_pad8(b);
	if (regs) {
		rb_u64(b, PERF_SAMPLE_REGS_ABI_64);
		rb_u64(b, 0x1111);
		rb_u64(b, 0x2222);
	}
	return rb_done(b, PERF_RECORD_SAMPLE, 0);
}

static void check_raw(const struct perf_event_header *h, const struct fr_sample *s,
		      uint32_t raw_size)
{
	const uint8_t *p = s->raw;
	uint32_t i;

	CU_ASSERT_EQUAL(s->pid, 100);
	CU_ASSERT_EQUAL(s->tid, 101);
	CU_ASSERT_EQUAL(s->time, 31337);
	CU_ASSERT_EQUAL(s->raw_size, raw_size);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(inside(h, p, raw_size));
	CU_ASSERT_PTR_EQUAL(p, (const uint8_t *)h + 8 + 16 + 4);
	for (i = 0; i < raw_size; i++)
		CU_ASSERT_EQUAL(p[i], (uint8_t)(0xa0 + i));
}

/* u32 size + data are padded together to 8: the kernel's sizes (4 + n is a
 * multiple of 8) need no padding, others (1, 8, 9) do. */
static void test_sample_raw(void)
{
	static const uint32_t sizes[] = { 4, 12, 60, 0, 1, 8, 9 };
	const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	struct fr_sample s;
	struct rb b;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct perf_event_header *h = raw_record(&b, sizes[i], false);

		CU_ASSERT_EQUAL(h->size, 8 + 16 + ((4 + sizes[i] + 7) & ~7u));
		CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, st, 0, &s), 0);
		check_raw(h, &s, sizes[i]);
		check_truncated(h, st, 0);

		/* the field after RAW starts at the padded offset */
		h = raw_record(&b, sizes[i], true);
		CU_ASSERT_EQUAL_FATAL(
			fr_record__parse_sample(h, st | PERF_SAMPLE_REGS_USER, 0x3, &s), 0);
		check_raw(h, &s, sizes[i]);
		CU_ASSERT_EQUAL(s.regs_abi, PERF_SAMPLE_REGS_ABI_64);
		CU_ASSERT_EQUAL_FATAL(s.nr_regs, 2);
		CU_ASSERT(s.regs[0] == 0x1111 && s.regs[1] == 0x2222);
		check_truncated(h, st | PERF_SAMPLE_REGS_USER, 0x3);
	}
	/* raw size past the end */
	raw_record(&b, 12, false);
	memcpy(b.u.buf + 24, &(uint32_t){ 13 }, 4);
	CU_ASSERT_EQUAL(fr_record__parse_sample(rb_done(&b, PERF_RECORD_SAMPLE, 0), st, 0, &s),
			-EBADMSG);
	memcpy(b.u.buf + 24, &(uint32_t){ UINT32_MAX }, 4);
	CU_ASSERT_EQUAL(fr_record__parse_sample(rb_done(&b, PERF_RECORD_SAMPLE, 0), st, 0, &s),
			-EBADMSG);
}

/* REGS_USER: abi 0 (no user regs, e.g. a kernel thread) carries no values;
 * STACK_USER follows it directly. */
static void test_sample_regs(void)
{
	const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
			    PERF_SAMPLE_STACK_USER;
	const uint64_t mask = (1ull << 6) | (1ull << 7) | (1ull << 8); /* bp, sp, ip on x86 */
	struct fr_sample s;
	struct rb b;
	struct perf_event_header *h;

	rb_init(&b);
	rb_u32x2(&b, 1, 2);
	rb_u64(&b, 3);
	rb_u64(&b, PERF_SAMPLE_REGS_ABI_64);
	rb_u64(&b, 0x7ffc0000a000);   /* bp */
	rb_u64(&b, 0x7ffc00009000);   /* sp */
	rb_u64(&b, 0x401000);         /* ip */
	rb_u64(&b, 0);                /* stack size 0: no data, no dyn_size */
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, st, mask, &s), 0);
	CU_ASSERT_EQUAL(s.regs_abi, PERF_SAMPLE_REGS_ABI_64);
	CU_ASSERT_EQUAL_FATAL(s.nr_regs, 3);
	CU_ASSERT(inside(h, s.regs, 3 * 8));
	CU_ASSERT_EQUAL(s.regs[0], 0x7ffc0000a000);
	CU_ASSERT_EQUAL(s.regs[1], 0x7ffc00009000);
	CU_ASSERT_EQUAL(s.regs[2], 0x401000);
	CU_ASSERT_EQUAL(s.stack_size, 0);
	CU_ASSERT_EQUAL(s.stack_dyn_size, 0);
	check_truncated(h, st, mask);

	rb_init(&b);
	rb_u32x2(&b, 1, 2);
	rb_u64(&b, 3);
	rb_u64(&b, PERF_SAMPLE_REGS_ABI_NONE);
	rb_u64(&b, 16);               /* stack size */
	rb_u64(&b, 0xaaaa);
	rb_u64(&b, 0xbbbb);
	rb_u64(&b, 8);                /* dyn_size */
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, st, mask, &s), 0);
	CU_ASSERT_EQUAL(s.regs_abi, 0);
	CU_ASSERT_EQUAL(s.nr_regs, 0);
	CU_ASSERT_PTR_NULL(s.regs);
	CU_ASSERT_EQUAL(s.stack_size, 16);
	CU_ASSERT_EQUAL(s.stack_dyn_size, 8);
	CU_ASSERT_PTR_EQUAL(s.stack, (const uint8_t *)h + 8 + 16 + 8 + 8);
	check_truncated(h, st, mask);
}

static void test_sample_stack(void)
{
	const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_STACK_USER;
	uint8_t stack[64];
	struct fr_sample s;
	struct rb b;
	struct perf_event_header *h;
	size_t i;

	for (i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)(i * 3);
	rb_init(&b);
	rb_u32x2(&b, 1, 2);
	rb_u64(&b, 3);
	rb_u64(&b, sizeof(stack));
	rb_bytes(&b, stack, sizeof(stack));
	rb_u64(&b, 40);               /* dyn_size: bytes actually copied */
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL_FATAL(fr_record__parse_sample(h, st, 0, &s), 0);
	CU_ASSERT_EQUAL(s.stack_size, 64);
	CU_ASSERT_EQUAL(s.stack_dyn_size, 40);
	CU_ASSERT(inside(h, s.stack, 64));
	CU_ASSERT(s.stack && memcmp(s.stack, stack, sizeof(stack)) == 0);
	check_truncated(h, st, 0);

	/* dyn_size larger than size is malformed */
	memcpy(b.u.buf + b.len - 8, &(uint64_t){ 65 }, 8);
	CU_ASSERT_EQUAL(fr_record__parse_sample(h, st, 0, &s), -EBADMSG);
	/* size past the end */
	memcpy(b.u.buf + 24, &(uint64_t){ 72 }, 8);
	CU_ASSERT_EQUAL(fr_record__parse_sample(h, st, 0, &s), -EBADMSG);
}

static void test_sample_unsupported(void)
{
	static const uint64_t bad[] = { PERF_SAMPLE_READ, PERF_SAMPLE_BRANCH_STACK,
					PERF_SAMPLE_WEIGHT, PERF_SAMPLE_DATA_SRC };
	struct fr_sample s;
	struct rb b;
	struct perf_event_header *h;
	size_t i;

	rb_init(&b);
	rb_u32x2(&b, 1, 2);
	rb_u64(&b, 3);
	rb_u64(&b, 4);
	rb_u64(&b, 5);
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(fr_record__parse_sample(h, bad[i], 0, &s), -ENOTSUP);
		CU_ASSERT_EQUAL(fr_record__parse_sample(h, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | bad[i],
							0, &s), -ENOTSUP);
	}
}

/* ---- the sample_id_all trailer ------------------------------------------ */

static struct perf_event_header *comm_record(struct rb *b, const char *name, uint64_t st,
					     uint16_t misc)
{
	rb_init(b);
	rb_u32x2(b, 500, 501);
	rb_str(b, name);
	rb_trailer(b, st);
	return rb_done(b, PERF_RECORD_COMM, misc);
}

static struct perf_event_header *mmap2_record(struct rb *b, bool build_id, uint64_t st)
{
	rb_init(b);
	rb_u32x2(b, 600, 601);
	rb_u64(b, 0x7f1234560000);    /* addr */
	rb_u64(b, 0x21000);           /* len */
	rb_u64(b, 0x3000);            /* pgoff */
	if (build_id) {
		uint8_t u[24] = { 16, 0, 0, 0 };
		int i;

		for (i = 0; i < 20; i++)
			u[4 + i] = (uint8_t)(0xb0 + i);
		rb_bytes(b, u, sizeof(u));
	} else {
		rb_u32x2(b, 8, 1);    /* maj, min */
		rb_u64(b, 1234567);   /* ino */
		rb_u64(b, 42);        /* ino_generation */
	}
	rb_u32x2(b, 5, 2);            /* prot, flags */
	rb_str(b, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	rb_trailer(b, st);
	return rb_done(b, PERF_RECORD_MMAP2, build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
}

static struct perf_event_header *task_record(struct rb *b, uint32_t type, uint64_t st)
{
	rb_init(b);
	rb_u32x2(b, 700, 1);          /* pid, ppid */
	rb_u32x2(b, 702, 703);        /* tid, ptid */
	rb_u64(b, 88888);             /* time */
	rb_trailer(b, st);
	return rb_done(b, type, 0);
}

static void check_id(const struct perf_event_header *h, uint64_t st)
{
	struct fr_sample s;
	uint64_t v = 0;

	CU_ASSERT_EQUAL_FATAL(fr_record__parse_id(h, st, &s), 0);
	CU_ASSERT(s.has_tid && s.has_time);
	CU_ASSERT_EQUAL(s.pid, 1001);
	CU_ASSERT_EQUAL(s.tid, 1002);
	CU_ASSERT_EQUAL(s.time, 123456789);
	CU_ASSERT_EQUAL(s.id, (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) ? 77 : 0);
	CU_ASSERT_EQUAL(s.cpu, (st & PERF_SAMPLE_CPU) ? 3 : 0);
	CU_ASSERT_EQUAL(fr_record__time(h, st, &v), 0);
	CU_ASSERT_EQUAL(v, 123456789);
	v = 0;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		CU_ASSERT_EQUAL(fr_record__identifier(h, st, &v), 0);
		CU_ASSERT_EQUAL(v, 77);
	} else {
		CU_ASSERT_EQUAL(fr_record__identifier(h, st, &v), -ENOENT);
	}
	CU_ASSERT_EQUAL(fr_record__time(h, st & ~(uint64_t)PERF_SAMPLE_TIME, &v), -ENOENT);
}

static void test_parse_id(void)
{
	static const uint64_t sts[] = {
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER,
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER,
	};
	struct fr_sample s;
	struct rb b;
	size_t i;

	for (i = 0; i < sizeof(sts) / sizeof(sts[0]); i++) {
		check_id(comm_record(&b, "bash", sts[i], 0), sts[i]);
		check_id(comm_record(&b, "a-longer-name12", sts[i], 0), sts[i]);
		check_id(mmap2_record(&b, false, sts[i]), sts[i]);
		check_id(mmap2_record(&b, true, sts[i]), sts[i]);
		check_id(task_record(&b, PERF_RECORD_FORK, sts[i]), sts[i]);
		check_id(task_record(&b, PERF_RECORD_EXIT, sts[i]), sts[i]);
	}
	/* a record too short to hold the trailer */
	rb_init(&b);
	rb_u64(&b, 1);
	rb_done(&b, PERF_RECORD_COMM, 0);
	CU_ASSERT_EQUAL(fr_record__parse_id((struct perf_event_header *)b.u.buf, sts[1], &s),
			-EBADMSG);
}

/* time and identifier of a SAMPLE come from its front, not a trailer. */
static void test_sample_time_identifier(void)
{
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	struct rb b;
	struct perf_event_header *h;
	uint32_t pid = 0;
	uint64_t v;

	rb_init(&b);
	rb_u64(&b, 4242);
	rb_u64(&b, 0x401000);
	rb_u32x2(&b, 1, 2);
	rb_u64(&b, 777777);
	rb_u64(&b, 1);
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT(fr_record__time(h, st, &v) == 0 && v == 777777);
	CU_ASSERT(fr_record__identifier(h, st, &v) == 0 && v == 4242);
	CU_ASSERT(fr_record__time(h, PERF_SAMPLE_TIME, &v) == 0 && v == 4242);
	CU_ASSERT(fr_record__pid(h, st, &pid) == 0 && pid == 1);
	CU_ASSERT(fr_record__pid(h, st & ~(uint64_t)PERF_SAMPLE_IP, &pid) == 0 && pid == 0x401000);
	CU_ASSERT_EQUAL(fr_record__pid(h, st & ~(uint64_t)PERF_SAMPLE_TID, &pid), -ENOENT);
	h->type = PERF_RECORD_COMM;
	CU_ASSERT_EQUAL(fr_record__pid(h, st, &pid), -EINVAL);
	h->type = PERF_RECORD_SAMPLE;
	h->size = 8 + 16 + 4; /* cut inside TID */
	CU_ASSERT_EQUAL(fr_record__pid(h, st, &pid), -EBADMSG);
	CU_ASSERT_EQUAL(fr_record__identifier(h, st & ~(uint64_t)PERF_SAMPLE_IDENTIFIER, &v),
			-ENOENT);
	h->size = 8 + 24; /* cut before TIME */
	CU_ASSERT_EQUAL(fr_record__time(h, st, &v), -EBADMSG);
	h->size = 8;
	CU_ASSERT_EQUAL(fr_record__identifier(h, st, &v), -EBADMSG);
}

/* ---- sideband bodies ---------------------------------------------------- */

static void test_comm(void)
{
	const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	struct fr_comm c;
	struct rb b;
	struct perf_event_header *h;

	h = comm_record(&b, "prctl_loop", st, 0);
	CU_ASSERT_EQUAL_FATAL(fr_record__comm(h, &c), 0);
	CU_ASSERT_EQUAL(c.pid, 500);
	CU_ASSERT_EQUAL(c.tid, 501);
	CU_ASSERT_STRING_EQUAL(c.comm, "prctl_loop");
	CU_ASSERT(inside(h, c.comm, strlen(c.comm) + 1));
	CU_ASSERT(!c.exec);

	h = comm_record(&b, "sh", st, PERF_RECORD_MISC_COMM_EXEC);
	CU_ASSERT_EQUAL_FATAL(fr_record__comm(h, &c), 0);
	CU_ASSERT_STRING_EQUAL(c.comm, "sh");
	CU_ASSERT(c.exec);

	/* exactly 16 bytes of name, the last one NUL */
	h = comm_record(&b, "fifteen-chars-x", 0, 0);
	CU_ASSERT_EQUAL(h->size, 8 + 8 + 16);
	CU_ASSERT(fr_record__comm(h, &c) == 0 && strcmp(c.comm, "fifteen-chars-x") == 0);

	/* no NUL before the end of the record */
	rb_init(&b);
	rb_u32x2(&b, 500, 501);
	rb_bytes(&b, "abcdefgh", 8);
	h = rb_done(&b, PERF_RECORD_COMM, 0);
	CU_ASSERT_EQUAL(fr_record__comm(h, &c), -EBADMSG);
	CU_ASSERT_PTR_NULL(c.comm);
	/* no name at all */
	rb_init(&b);
	rb_u32x2(&b, 500, 501);
	h = rb_done(&b, PERF_RECORD_COMM, 0);
	CU_ASSERT_EQUAL(fr_record__comm(h, &c), -EBADMSG);
	/* too short, wrong type */
	h->size = 12;
	CU_ASSERT_EQUAL(fr_record__comm(h, &c), -EBADMSG);
	h = comm_record(&b, "bash", st, 0);
	h->type = PERF_RECORD_EXIT;
	CU_ASSERT_EQUAL(fr_record__comm(h, &c), -EBADMSG);
}

static void test_mmap2(void)
{
	const uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
	struct fr_mmap2 m;
	struct rb b;
	struct perf_event_header *h;
	int i;

	h = mmap2_record(&b, false, st);
	CU_ASSERT_EQUAL_FATAL(fr_record__mmap2(h, &m), 0);
	CU_ASSERT_EQUAL(m.pid, 600);
	CU_ASSERT_EQUAL(m.tid, 601);
	CU_ASSERT_EQUAL(m.addr, 0x7f1234560000);
	CU_ASSERT_EQUAL(m.len, 0x21000);
	CU_ASSERT_EQUAL(m.pgoff, 0x3000);
	CU_ASSERT(!m.has_build_id);
	CU_ASSERT_EQUAL(m.build_id_size, 0);
	CU_ASSERT_EQUAL(m.maj, 8);
	CU_ASSERT_EQUAL(m.min, 1);
	CU_ASSERT_EQUAL(m.ino, 1234567);
	CU_ASSERT_EQUAL(m.ino_generation, 42);
	CU_ASSERT_EQUAL(m.prot, 5);
	CU_ASSERT_EQUAL(m.flags, 2);
	CU_ASSERT_STRING_EQUAL(m.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");

	h = mmap2_record(&b, true, st);
	CU_ASSERT_EQUAL_FATAL(fr_record__mmap2(h, &m), 0);
	CU_ASSERT(m.has_build_id);
	CU_ASSERT_EQUAL(m.build_id_size, 16);
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(m.build_id[i], 0xb0 + i);
	CU_ASSERT_EQUAL(m.maj, 0);
	CU_ASSERT_EQUAL(m.ino, 0);
	CU_ASSERT_EQUAL(m.addr, 0x7f1234560000);
	CU_ASSERT_EQUAL(m.prot, 5);
	CU_ASSERT_EQUAL(m.flags, 2);
	CU_ASSERT_STRING_EQUAL(m.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");

	/* a build id size over 20 is clamped */
	b.u.buf[8 + 32] = 200;
	CU_ASSERT(fr_record__mmap2(h, &m) == 0 && m.build_id_size == 20);

	/* filename without NUL, too short, wrong type */
	h = mmap2_record(&b, false, 0);
	memset(b.u.buf + 8 + 64, 'x', b.len - 8 - 64);
	CU_ASSERT_EQUAL(fr_record__mmap2(h, &m), -EBADMSG);
	h->size = 8 + 64;
	CU_ASSERT_EQUAL(fr_record__mmap2(h, &m), -EBADMSG);
	h = mmap2_record(&b, false, 0);
	h->type = PERF_RECORD_MMAP;
	CU_ASSERT_EQUAL(fr_record__mmap2(h, &m), -EBADMSG);
}

static void test_task(void)
{
	struct fr_task t;
	struct rb b;
	struct perf_event_header *h;

	h = task_record(&b, PERF_RECORD_FORK, PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	CU_ASSERT_EQUAL_FATAL(fr_record__task(h, &t), 0);
	CU_ASSERT_EQUAL(t.pid, 700);
	CU_ASSERT_EQUAL(t.ppid, 1);
	CU_ASSERT_EQUAL(t.tid, 702);
	CU_ASSERT_EQUAL(t.ptid, 703);
	CU_ASSERT_EQUAL(t.time, 88888);
	h = task_record(&b, PERF_RECORD_EXIT, 0);
	CU_ASSERT(fr_record__task(h, &t) == 0 && t.pid == 700 && t.time == 88888);
	h->size = 8 + 16;
	CU_ASSERT_EQUAL(fr_record__task(h, &t), -EBADMSG);
	h = task_record(&b, PERF_RECORD_COMM, 0);
	CU_ASSERT_EQUAL(fr_record__task(h, &t), -EBADMSG);
}

/* A sample event's sideband record rewritten as the sideband event's (the
 * time alone after the body), for each trailer; what cannot be. */
static void test_retrail_time(void)
{
	static const uint64_t sts[] = {
		PERF_SAMPLE_TIME,
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER,
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER,
	};
	uint64_t out[64], t = 0;
	struct perf_event_header *h, *o = (void *)out;
	struct fr_task tk;
	struct fr_mmap2 m;
	struct rb b;

	for (size_t i = 0; i < sizeof(sts) / sizeof(sts[0]); i++) {
		h = task_record(&b, PERF_RECORD_EXIT, sts[i]);
		CU_ASSERT_EQUAL_FATAL(fr_record__retrail_time(h, sts[i], out, sizeof(out)),
				      8 + 24 + 8);
		CU_ASSERT(o->type == PERF_RECORD_EXIT && o->size == 40 && o->misc == h->misc);
		CU_ASSERT(fr_record__task(o, &tk) == 0 && tk.pid == 700 && tk.ptid == 703);
		CU_ASSERT(fr_record__time(o, PERF_SAMPLE_TIME, &t) == 0 && t == 123456789);
	}
	CU_ASSERT(fr_record__is_process(PERF_RECORD_MMAP2) && fr_record__is_process(PERF_RECORD_FORK) &&
		  fr_record__is_process(PERF_RECORD_COMM) && !fr_record__is_process(PERF_RECORD_SWITCH) &&
		  !fr_record__is_process(PERF_RECORD_SAMPLE) && !fr_record__is_process(PERF_RECORD_LOST));
	h = mmap2_record(&b, true, sts[2]);
	CU_ASSERT_EQUAL_FATAL(fr_record__retrail_time(h, sts[2], out, sizeof(out)),
			      (int)(h->size - fr_record__id_size(sts[2]) + 8));
	CU_ASSERT_EQUAL(fr_record__mmap2(o, &m), 0);
	CU_ASSERT(fr_record__time(o, PERF_SAMPLE_TIME, &t) == 0 && t == 123456789);
	/* no room, no time, a sample, a trailer that does not fit */
	CU_ASSERT_EQUAL(fr_record__retrail_time(h, sts[2], out, h->size - fr_record__id_size(sts[2])),
			-ENOSPC);
	h = task_record(&b, PERF_RECORD_FORK, PERF_SAMPLE_TID);
	CU_ASSERT_EQUAL(fr_record__retrail_time(h, PERF_SAMPLE_TID, out, sizeof(out)), -ENOENT);
	h = task_record(&b, PERF_RECORD_SAMPLE, sts[1]);
	CU_ASSERT_EQUAL(fr_record__retrail_time(h, sts[1], out, sizeof(out)), -EINVAL);
	h = task_record(&b, PERF_RECORD_FORK, 0);
	CU_ASSERT_EQUAL(fr_record__retrail_time(h, sts[2], out, sizeof(out)), -EBADMSG);
	h->size -= 4;
	CU_ASSERT_EQUAL(fr_record__retrail_time(h, PERF_SAMPLE_TIME, out, sizeof(out)), -EINVAL);
}

/* A COMM made as the kernel writes it; sched_process_exec's raw data to
 * the name the kernel gave; a format's field lines. */
static void test_exec_comm(void)
{
	static const char fmt[] =
		"name: sched_process_exec\nID: 300\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
		"\tfield:char comm[16];\toffset:20;\tsize:16;\tsigned:0;\n"
		"\tfield:int bad;\toffset:70000;\tsize:4;\tsigned:1;\n";
	struct fr_event ev = { .format = (char *)fmt, .format_len = sizeof(fmt) - 1 };
	struct fr_exec_fields f = { 12, 16, 8 };
	struct fr_tp_field tf;
	uint64_t rec[16], t;
	uint8_t raw[64] = { 0 };
	const char *name = "/usr/bin/a-very-long-program-name";
	uint32_t pid, old_pid, loc = 24 | (uint32_t)(strlen(name) + 1) << 16, size;
	const uint8_t *r;
	struct perf_event_header *h = (void *)rec;
	struct fr_comm c;
	char comm[16];
	int n;

	CU_ASSERT(fr_event__field(&ev, "filename", &tf) == 0 && tf.offset == 8 && tf.data_loc);
	CU_ASSERT(fr_event__field(&ev, "comm", &tf) == 0 && tf.offset == 20 && tf.size == 16 &&
		  !tf.data_loc);
	CU_ASSERT(fr_event__field(&ev, "old_pid", &tf) == 0 && tf.offset == 16);
	CU_ASSERT(fr_event__field(&ev, "pid", &tf) == 0 && tf.offset == 12);
	CU_ASSERT_EQUAL(fr_event__field(&ev, "bad", &tf), -EBADMSG);
	CU_ASSERT_EQUAL(fr_event__field(&ev, "nope", &tf), -ENOENT);

	memcpy(raw + 8, &loc, 4);
	pid = 77;
	memcpy(raw + 12, &pid, 4);
	pid = 78;
	memcpy(raw + 16, &pid, 4);
	memcpy(raw + 24, name, strlen(name) + 1);
	CU_ASSERT_EQUAL(fr_record__exec_name(raw, 24 + (uint32_t)strlen(name) + 1, &f, &pid,
					     &old_pid, comm), 0);
	CU_ASSERT(pid == 77 && old_pid == 78);
	CU_ASSERT_STRING_EQUAL(comm, "a-very-long-pro");   /* 15 bytes, as the kernel cuts */
	/* the string past the raw data, no NUL, no name after the last '/' */
	CU_ASSERT_EQUAL(fr_record__exec_name(raw, 40, &f, &pid, &old_pid, comm), -EBADMSG);
	raw[24 + strlen(name)] = 'x';
	CU_ASSERT_EQUAL(fr_record__exec_name(raw, 64, &f, &pid, &old_pid, comm), -EBADMSG);
	memcpy(raw + 24, "/usr/\0", 6);
	loc = 24 | 6u << 16;
	memcpy(raw + 8, &loc, 4);
	CU_ASSERT_EQUAL(fr_record__exec_name(raw, 64, &f, &pid, &old_pid, comm), -EBADMSG);
	CU_ASSERT_EQUAL(fr_record__exec_name(raw, 14, &f, &pid, &old_pid, comm), -EBADMSG);

	/* a TIME|RAW sample: its raw data; a raw size past the record refused */
	memset(rec, 0, sizeof(rec));
	h->type = PERF_RECORD_SAMPLE;
	h->size = 8 + 8 + 4 + 36;
	t = 4242;
	memcpy(rec + 1, &t, 8);
	size = 36;
	memcpy((uint8_t *)rec + 16, &size, 4);
	CU_ASSERT(fr_record__time_raw(h, &t, &r, &size) == 0 && t == 4242 && size == 36 &&
		  r == (uint8_t *)rec + 20);
	size = 37;
	memcpy((uint8_t *)rec + 16, &size, 4);
	CU_ASSERT_EQUAL(fr_record__time_raw(h, &t, &r, &size), -EBADMSG);

	n = fr_record__make_comm(rec, sizeof(rec), 5, 6, "abcdefghijklmnopq", PERF_RECORD_MISC_COMM_EXEC,
				 PERF_SAMPLE_TID | PERF_SAMPLE_TIME, 999);
	CU_ASSERT_EQUAL_FATAL(n, 8 + 8 + 16 + 16);
	CU_ASSERT(fr_record__comm(h, &c) == 0 && c.pid == 5 && c.tid == 6 && c.exec);
	CU_ASSERT_STRING_EQUAL(c.comm, "abcdefghijklmno");
	CU_ASSERT(fr_record__time(h, PERF_SAMPLE_TID | PERF_SAMPLE_TIME, &t) == 0 && t == 999);
	CU_ASSERT_EQUAL(fr_record__make_comm(rec, 39, 5, 6, "abc", 0, PERF_SAMPLE_TID |
					     PERF_SAMPLE_TIME, 1), -ENOSPC);
}

static void test_lost(void)
{
	struct fr_lost l;
	struct rb b;
	struct perf_event_header *h;

	rb_init(&b);
	rb_u64(&b, 9001);
	rb_u64(&b, 12345);
	rb_trailer(&b, PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	h = rb_done(&b, PERF_RECORD_LOST, 0);
	CU_ASSERT_EQUAL_FATAL(fr_record__lost(h, &l), 0);
	CU_ASSERT_EQUAL(l.id, 9001);
	CU_ASSERT_EQUAL(l.lost, 12345);
	h->size = 16;
	CU_ASSERT_EQUAL(fr_record__lost(h, &l), -EBADMSG);
	h->size = 24;
	h->type = PERF_RECORD_LOST_SAMPLES;
	CU_ASSERT_EQUAL(fr_record__lost(h, &l), -EBADMSG);
}

static void test_type_name(void)
{
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(PERF_RECORD_SAMPLE), "SAMPLE");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(PERF_RECORD_COMM), "COMM");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(PERF_RECORD_MMAP2), "MMAP2");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(PERF_RECORD_FORK), "FORK");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(PERF_RECORD_EXIT), "EXIT");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(PERF_RECORD_LOST), "LOST");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(PERF_RECORD_LOST_SAMPLES), "LOST_SAMPLES");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(PERF_RECORD_SWITCH_CPU_WIDE),
			       "SWITCH_CPU_WIDE");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(0), "TYPE0");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(99), "TYPE99");
	CU_ASSERT_STRING_EQUAL(fr_record__type_name(UINT32_MAX), "TYPE4294967295");
}

/* ---- main --------------------------------------------------------------- */

/* ---- the id map ----------------------------------------------------------- */

static void test_idmap(void)
{
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID;
	const uint64_t ids_a[] = { 900, 17 }, ids_b[] = { 400 };
	struct fr_idmap *m = fr_idmap__new();
	struct perf_event_header *h;
	struct rb b;
	size_t idx = 99;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(fr_idmap__add(m, ids_a, 2, 0), 0);
	CU_ASSERT_EQUAL(fr_idmap__add(m, ids_b, 1, 1), 0);
	fr_idmap__sort(m);
	CU_ASSERT_EQUAL(fr_idmap__nr(m), 3);
	/* a sample: the identifier comes first */
	rb_init(&b);
	rb_u64(&b, 400);
	rb_u32x2(&b, 1, 2);
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL(fr_idmap__find(m, h, st, &idx), 0);
	CU_ASSERT_EQUAL(idx, 1);
	/* another record type: the identifier comes last */
	rb_init(&b);
	rb_u32x2(&b, 1, 2);
	rb_u64(&b, 17);
	h = rb_done(&b, PERF_RECORD_COMM, 0);
	CU_ASSERT_EQUAL(fr_idmap__find(m, h, st, &idx), 0);
	CU_ASSERT_EQUAL(idx, 0);
	/* unknown id, no identifier in sample_type, record too short */
	rb_init(&b);
	rb_u64(&b, 401);
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL(fr_idmap__find(m, h, st, &idx), -ENOENT);
	CU_ASSERT_EQUAL(fr_idmap__find(m, h, PERF_SAMPLE_TID, &idx), -ENOENT);
	rb_init(&b);
	h = rb_done(&b, PERF_RECORD_SAMPLE, 0);
	CU_ASSERT_EQUAL(fr_idmap__find(m, h, st, &idx), -EBADMSG);
	fr_idmap__delete(m);
	CU_ASSERT_EQUAL(fr_idmap__find(NULL, h, st, &idx), -ENOENT);
}

static const struct fr_test tests[] = {
	{ "sample: TID|TIME", test_sample_tid_time },
	{ "sample: IDENTIFIER|IP|TID|TIME|PERIOD|CALLCHAIN", test_sample_callchain },
	{ "sample: every fixed field", test_sample_fixed_fields },
	{ "sample: TID|TIME|RAW, padding", test_sample_raw },
	{ "sample: REGS_USER, abi 0 and not", test_sample_regs },
	{ "sample: STACK_USER size and dyn_size", test_sample_stack },
	{ "sample: unsupported bits", test_sample_unsupported },
	{ "sample_id_all trailer of COMM, MMAP2, FORK, EXIT", test_parse_id },
	{ "time and identifier of a sample", test_sample_time_identifier },
	{ "COMM body", test_comm },
	{ "MMAP2 body, with and without build id", test_mmap2 },
	{ "FORK/EXIT body", test_task },
	{ "sideband record retrailed with the time alone", test_retrail_time },
	{ "LOST body", test_lost },
	{ "exec names: format fields, sched_process_exec, made COMMs", test_exec_comm },
	{ "type names", test_type_name },
	{ "id map: which event owns a record", test_idmap },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "record", NULL, NULL, tests };
