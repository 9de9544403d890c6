/* tests/file/test_waitstack.c: CUnit suite for the raw data of offcpu samples
 * (src/file/waitstack.c): a batch of switches (as written and packed), a
 * single switch and a wait's stacks (with its switch-in's time, or without in
 * files before it) read back as laid out in doc/format.md; every short,
 * unknown or out-of-range record refused.
 */
#include "config.h"
#include "src/file/waitstack.h"

#include "tests/cunit.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static void test_switch(void)
{
	unsigned char raw[28] = { 0 };
	struct fr_offcpu_switch sw;

	raw[0] = FR_OFFCPU_SWITCH;
	raw[1] = FR_SWITCH_D;
	put32(raw + 4, 42);
	put32(raw + 8, 40);
	put32(raw + 12, 1234);
	put32(raw + 16, 7);
	put32(raw + 20, 6);
	CU_ASSERT_EQUAL(fr_offcpu__kind(raw, 24), FR_OFFCPU_SWITCH);
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_switch__parse(raw, 28, &sw), 0);   /* perf's padding */
	CU_ASSERT_EQUAL(sw.state, FR_SWITCH_D);
	CU_ASSERT_EQUAL(sw.next_tid, 42);
	CU_ASSERT_EQUAL(sw.next_pid, 40);
	CU_ASSERT_EQUAL(sw.delay_ns, 1234);
	CU_ASSERT_EQUAL(sw.prev_tid, 7);
	CU_ASSERT_EQUAL(sw.prev_pid, 6);
	CU_ASSERT_EQUAL(fr_offcpu_switch__parse(raw, 23, &sw), -EBADMSG);   /* short */
	raw[1] = 4;   /* no such state */
	CU_ASSERT_EQUAL(fr_offcpu_switch__parse(raw, 24, &sw), -EBADMSG);
	raw[0] = 9;   /* no such kind */
	CU_ASSERT_EQUAL(fr_offcpu__kind(raw, 24), 0);
	CU_ASSERT_EQUAL(fr_offcpu__kind(NULL, 24), 0);
}

static void test_batch(void)
{
	unsigned char raw[24 + 3 * 16 + 4] = { 0 };
	struct fr_offcpu_batch b;
	struct fr_offcpu_switch sw;
	uint64_t t;

	raw[0] = FR_OFFCPU_BATCH;
	raw[1] = 3;
	put32(raw + 4, 7);      /* the first prev */
	put32(raw + 8, 6);
	put64(raw + 16, 5000000000ull);
	put32(raw + 24, 0 | (uint32_t)FR_SWITCH_S << 30);   /* 7 sleeps, 42 in */
	put32(raw + 28, 42);
	put32(raw + 32, 40);
	put32(raw + 36, 99);
	put32(raw + 40, 1500 | (uint32_t)FR_SWITCH_R << 30);   /* 42 preempted, idle in */
	put32(raw + 44, 0);
	put32(raw + 48, 0);
	put32(raw + 56, ((1u << 30) - 1) | (uint32_t)FR_SWITCH_DEAD << 30);   /* the largest dt */
	put32(raw + 60, 8);
	put32(raw + 64, 8);
	CU_ASSERT_EQUAL(fr_offcpu__kind(raw, sizeof(raw)), FR_OFFCPU_BATCH);
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__parse(raw, sizeof(raw), &b), 0);   /* padded */
	CU_ASSERT_EQUAL(b.nr, 3);
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__next(&b, &sw, &t), 0);
	CU_ASSERT_EQUAL(t, 5000000000ull);
	CU_ASSERT_EQUAL(sw.state, FR_SWITCH_S);
	CU_ASSERT(sw.prev_tid == 7 && sw.prev_pid == 6 && sw.next_tid == 42 && sw.next_pid == 40);
	CU_ASSERT_EQUAL(sw.delay_ns, 99);
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__next(&b, &sw, &t), 0);
	CU_ASSERT_EQUAL(t, 5000001500ull);
	CU_ASSERT_EQUAL(sw.state, FR_SWITCH_R);
	CU_ASSERT(sw.prev_tid == 42 && sw.prev_pid == 40 && sw.next_tid == 0);   /* chained */
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__next(&b, &sw, &t), 0);
	CU_ASSERT_EQUAL(t, 5000000000ull + (1u << 30) - 1);
	CU_ASSERT(sw.state == FR_SWITCH_DEAD && sw.prev_tid == 0 && sw.next_tid == 8);
	CU_ASSERT_EQUAL(fr_offcpu_batch__next(&b, &sw, &t), -ENOENT);
	CU_ASSERT_EQUAL(fr_offcpu_batch__next(&b, &sw, &t), -ENOENT);
	CU_ASSERT_EQUAL(b.delay_in, 0);   /* files before: prev's delay */
	CU_ASSERT_EQUAL(sw.delay_in, 0);
	/* byte 3: the delays are next's; byte 2 (the program's busy) says nothing */
	raw[2] = 1;
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__parse(raw, sizeof(raw), &b), 0);
	CU_ASSERT_EQUAL(b.delay_in, 0);
	raw[3] = FR_BATCH_DELAY_IN;
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__parse(raw, sizeof(raw), &b), 0);
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__next(&b, &sw, &t), 0);
	CU_ASSERT(sw.delay_in && sw.delay_ns == 99);
	raw[2] = raw[3] = 0;
	/* shorter than its count says; no switches; not a batch */
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(raw, 24 + 3 * 16 - 1, &b), -EBADMSG);
	raw[1] = 0;
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(raw, sizeof(raw), &b), -EBADMSG);
	raw[1] = 3;
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(raw, 23, &b), -EBADMSG);
	CU_ASSERT_EQUAL(fr_offcpu_switch__parse(raw, sizeof(raw), &sw), -EBADMSG);
	raw[0] = FR_OFFCPU_SWITCH;
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(raw, sizeof(raw), &b), -EBADMSG);
}

static void test_stack(void)
{
	unsigned char raw[40 + 64 * 8 + 3 * 8 + 4] = { 0 };
	struct fr_wait_stack w;
	uint64_t v;

	put32(raw, FR_OFFCPU_STACK);
	put32(raw + 4, FR_WAIT_USER);
	put64(raw + 8, 50000000);
	put64(raw + 16, 10000000);
	put32(raw + 24, 15);
	put32(raw + 28, 14);
	put32(raw + 32, 2);
	put32(raw + 36, 3);
	put64(raw + 40, 0xffffffff81000010ull);
	put64(raw + 48, 0xffffffff81000020ull);
	put64(raw + 552, 0x401000);
	put64(raw + 568, 0x401100);
	CU_ASSERT_EQUAL(fr_offcpu__kind(raw, sizeof(raw)), FR_OFFCPU_STACK);
	CU_ASSERT_EQUAL_FATAL(fr_wait_stack__parse(raw, sizeof(raw), &w), 0);
	CU_ASSERT_EQUAL(w.off_ns, 50000000);
	CU_ASSERT_EQUAL(w.thresh_ns, 10000000);
	CU_ASSERT_EQUAL(w.tid, 15);
	CU_ASSERT_EQUAL(w.pid, 14);
	CU_ASSERT_EQUAL(w.nr_kernel, 2);
	CU_ASSERT_EQUAL(w.nr_user, 3);
	memcpy(&v, &w.kernel[1], 8);
	CU_ASSERT_EQUAL(v, 0xffffffff81000020ull);
	memcpy(&v, &w.user[2], 8);
	CU_ASSERT_EQUAL(v, 0x401100);
	/* shorter than nr_user says */
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, 552 + 2 * 8, &w), -EBADMSG);
	/* no user stack taken: its frames are not used */
	put32(raw + 4, 0);
	CU_ASSERT_EQUAL_FATAL(fr_wait_stack__parse(raw, sizeof(raw), &w), 0);
	CU_ASSERT_EQUAL(w.nr_user, 0);
	/* counts past 64, tid 0, a header alone */
	put32(raw + 32, 65);
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, sizeof(raw), &w), -EBADMSG);
	put32(raw + 32, 2);
	put32(raw + 36, 65);
	put32(raw + 4, FR_WAIT_USER);
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, sizeof(raw), &w), -EBADMSG);
	put32(raw + 36, 0);
	put32(raw + 24, 0);
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, sizeof(raw), &w), -EBADMSG);
	put32(raw + 24, 15);
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, 40, &w), -EBADMSG);
	/* a switch is not a stack, nor the other way */
	CU_ASSERT_EQUAL(fr_offcpu_switch__parse(raw, sizeof(raw), &(struct fr_offcpu_switch){ 0 }),
			-EBADMSG);
}

/* kind 5: the header has the switch-in's time (8 bytes more); off_ns is the
 * span it was sampled by */
static void test_stack_in(void)
{
	unsigned char raw[48 + 64 * 8 + 2 * 8] = { 0 };
	struct fr_wait_stack w;
	uint64_t v;

	put32(raw, FR_OFFCPU_STACK_IN);
	put32(raw + 4, FR_WAIT_USER);
	put64(raw + 8, 12000000);      /* span */
	put64(raw + 16, 40000000);     /* scale */
	put64(raw + 24, 7000123456ull);
	put32(raw + 32, 15);
	put32(raw + 36, 14);
	put32(raw + 40, 1);
	put32(raw + 44, 2);
	put64(raw + 48, 0xffffffff81000010ull);
	put64(raw + 560, 0x401000);
	put64(raw + 568, 0x401100);
	CU_ASSERT_EQUAL(fr_offcpu__kind(raw, sizeof(raw)), FR_OFFCPU_STACK_IN);
	CU_ASSERT_EQUAL(fr_offcpu__kind(raw, 47), 0);
	CU_ASSERT_EQUAL_FATAL(fr_wait_stack__parse(raw, sizeof(raw), &w), 0);
	CU_ASSERT_EQUAL(w.off_ns, 12000000);
	CU_ASSERT_EQUAL(w.thresh_ns, 40000000);
	CU_ASSERT_EQUAL(w.in_ns, 7000123456ull);
	CU_ASSERT(w.tid == 15 && w.pid == 14 && w.nr_kernel == 1 && w.nr_user == 2);
	memcpy(&v, &w.kernel[0], 8);
	CU_ASSERT_EQUAL(v, 0xffffffff81000010ull);
	memcpy(&v, &w.user[1], 8);
	CU_ASSERT_EQUAL(v, 0x401100);
	/* shorter than nr_user says; the kernel slots cut; tid 0 */
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, sizeof(raw) - 1, &w), -EBADMSG);
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, 48 + 64 * 8 - 1, &w), -EBADMSG);
	put32(raw + 32, 0);
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, sizeof(raw), &w), -EBADMSG);
	put32(raw + 32, 15);
	put32(raw + 40, 65);
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, sizeof(raw), &w), -EBADMSG);
	/* an unknown kind */
	put32(raw + 40, 1);
	put32(raw, 6);
	CU_ASSERT_EQUAL(fr_offcpu__kind(raw, sizeof(raw)), 0);
	CU_ASSERT_EQUAL(fr_wait_stack__parse(raw, sizeof(raw), &w), -EBADMSG);
}

/* Every switch of a batch and its time, as read: 0, or -1 where it does not parse. */
static int read_all(const void *raw, size_t size, struct fr_offcpu_switch *sw, uint64_t *t,
		    size_t max, size_t *n)
{
	struct fr_offcpu_batch b;

	*n = 0;
	if (fr_offcpu_batch__parse(raw, size, &b))
		return -1;
	while (*n < max && !fr_offcpu_batch__next(&b, &sw[*n], &t[*n]))
		(*n)++;
	return 0;
}

/* A batch packed reads back switch for switch as the batch; fields at their
 * largest take 5 bytes; a time going back, a cap too small and a batch of
 * another kind are not packed; a packed batch cut short, with a field of
 * six bytes, past 2^30 ns or with an id past 32 bits is refused whole. */
static void test_packed(void)
{
	enum { NR = 6 };
	unsigned char raw[24 + NR * 16] = { 0 }, out[24 + NR * 20 + 8], bad[sizeof(out)];
	static const uint32_t dt[NR] = { 0, 0, 1, 127, 70000, (1u << 30) - 1 };
	static const uint32_t tid[NR] = { 42, 0, 4000000, 7, UINT32_MAX, 9 };
	static const uint32_t pid[NR] = { 42, 0, 3999999, 7, UINT32_MAX, 1 };
	static const uint32_t delay[NR] = { 0, 99, UINT32_MAX, 0, 128, 3 };
	struct fr_offcpu_switch a[NR + 1], b[NR + 1];
	uint64_t ta[NR + 1], tb[NR + 1];
	size_t len, na, nb;

	raw[0] = FR_OFFCPU_BATCH;
	raw[1] = NR;
	put32(raw + 4, 5);
	put32(raw + 8, 5);
	put64(raw + 16, 7000000000ull);
	for (int i = 0; i < NR; i++) {
		put32(raw + 24 + 16 * i, dt[i] | (uint32_t)(i % 4) << 30);
		put32(raw + 28 + 16 * i, tid[i]);
		put32(raw + 32 + 16 * i, pid[i]);
		put32(raw + 36 + 16 * i, delay[i]);
	}
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__pack(raw, sizeof(raw), out, sizeof(out), &len), 0);
	CU_ASSERT(len < sizeof(raw));
	CU_ASSERT_EQUAL(fr_offcpu__kind(out, len), FR_OFFCPU_PACKED);
	CU_ASSERT_EQUAL_FATAL(read_all(raw, sizeof(raw), a, ta, NR + 1, &na), 0);
	CU_ASSERT_EQUAL_FATAL(read_all(out, len, b, tb, NR + 1, &nb), 0);
	CU_ASSERT_EQUAL_FATAL(na, NR);
	CU_ASSERT_EQUAL_FATAL(nb, NR);
	for (int i = 0; i < NR; i++) {
		CU_ASSERT_EQUAL(ta[i], tb[i]);
		CU_ASSERT_EQUAL(tb[i], 7000000000ull + dt[i]);
		CU_ASSERT(a[i].state == b[i].state && b[i].state == (enum fr_switch_state)(i % 4));
		CU_ASSERT(a[i].prev_tid == b[i].prev_tid && a[i].prev_pid == b[i].prev_pid);
		CU_ASSERT(b[i].next_tid == tid[i] && b[i].next_pid == pid[i]);
		CU_ASSERT_EQUAL(b[i].delay_ns, delay[i]);
	}
	/* the header's flags travel: next's delays stay next's */
	raw[3] = FR_BATCH_DELAY_IN;
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__pack(raw, sizeof(raw), out, sizeof(out), &len), 0);
	CU_ASSERT_EQUAL_FATAL(read_all(out, len, b, tb, NR + 1, &nb), 0);
	CU_ASSERT(nb == NR && b[0].delay_in && b[NR - 1].delay_in);
	raw[3] = 0;
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__pack(raw, sizeof(raw), out, sizeof(out), &len), 0);
	/* padded as perf pads raw data: trailing zeros are not switches */
	memset(out + len, 0, 8);
	CU_ASSERT_EQUAL(read_all(out, len + 8, b, tb, NR + 1, &nb), 0);
	CU_ASSERT_EQUAL(nb, NR);
	/* not packed */
	CU_ASSERT_EQUAL(fr_offcpu_batch__pack(raw, sizeof(raw), out, 24 + 20, &len), -EINVAL);
	CU_ASSERT_EQUAL(fr_offcpu_batch__pack(raw, sizeof(raw) - 1, out, sizeof(out), &len), -EINVAL);
	put32(raw + 24 + 16 * 3, 0);   /* the fourth switch before the third */
	CU_ASSERT_EQUAL(fr_offcpu_batch__pack(raw, sizeof(raw), out, sizeof(out), &len), -EINVAL);
	put32(raw + 24 + 16 * 3, 127 | 3u << 30);
	CU_ASSERT_EQUAL_FATAL(fr_offcpu_batch__pack(raw, sizeof(raw), out, sizeof(out), &len), 0);
	CU_ASSERT_EQUAL(fr_offcpu_batch__pack(out, len, bad, sizeof(bad), &na), -EINVAL);
	/* refused whole: every cut short */
	for (size_t cut = 24; cut < len; cut++)
		CU_ASSERT_EQUAL(fr_offcpu_batch__parse(out, cut, &(struct fr_offcpu_batch){ 0 }),
				-EBADMSG);
	/* a field of six bytes: the first switch's tid (after its one-byte first field) */
	memcpy(bad, out, 24);
	memcpy(bad + 24, "\x00\x80\x80\x80\x80\x80\x00\x00", 8);
	bad[1] = 1;
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(bad, 32, &(struct fr_offcpu_batch){ 0 }), -EBADMSG);
	/* a tid of 33 bits */
	memcpy(bad + 24, "\x00\x80\x80\x80\x80\x10\x00\x00", 8);
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(bad, 32, &(struct fr_offcpu_batch){ 0 }), -EBADMSG);
	/* within 32 bits it reads */
	memcpy(bad + 24, "\x00\x80\x80\x80\x80\x0f\x00\x00", 8);
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(bad, 32, &(struct fr_offcpu_batch){ 0 }), 0);
	/* two switches of 2^29 ns: past 2^30 - 1 after base */
	bad[1] = 2;
	memcpy(bad + 24, "\x80\x80\x80\x80\x10\x01\x00\x80\x80\x80\x80\x10\x01\x00\x00\x00", 16);
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(bad, 40, &(struct fr_offcpu_batch){ 0 }), -EBADMSG);
	bad[1] = 1;
	CU_ASSERT_EQUAL(fr_offcpu_batch__parse(bad, 40, &(struct fr_offcpu_batch){ 0 }), 0);
}

static const struct fr_test tests[] = {
	{ "a switch read back; short, unknown, out of range refused", test_switch },
	{ "a wait's stacks read back; bad counts and sizes refused", test_stack },
	{ "a wait's stacks with its switch-in's time read back; bad counts and sizes refused",
	  test_stack_in },
	{ "a batch's switches read back in order, each prev the one before's next; short "
	  "and empty batches refused", test_batch },
	{ "a packed batch reads back as the batch; what cannot be packed is not; a packed "
	  "batch that does not decode refused", test_packed },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "waitstack", NULL, NULL, tests };
