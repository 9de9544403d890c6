/* tests/ring/test_copy.c: CUnit suite for ring/copy.c: dynamic CPU sets, the
 * pinned copy threads and the paused copy streaming rings through a chunk
 * function, on fake rings (malloc'd pages laid out as perf lays them out)
 * and a fake PAUSE_OUTPUT ioctl; no perf events.
 */
#define _GNU_SOURCE
#include "ring/copy.h"
#include "ring/evlist.h"
#include "ring/internal.h"

#include "tests/cunit.h"
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RING_SIZE 4096
#define BIG_RING (4u << 20)  /* 4 chunks of FR_COPY_CHUNK_MAX */
#define NOWHERE_CPU 1000000   /* a CPU no thread can be pinned to */

struct fring {
	size_t size;
	uint8_t *base;
	struct perf_event_mmap_page *ctl;
	uint8_t *data;
	uint64_t head;
	uint64_t seq;   /* of the next record */
	struct fr_ring *ring;
	/* the fake kernel's pause state and what it saw */
	int pause_err, resume_err;
	bool paused;
	int pauses, resumes;
	bool copied_paused, copied_unpaused;
};

static struct fring *fring_new(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct fring *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->size = size;
	f->base = aligned_alloc(page, page + size);
	if (!f->base) {
		free(f);
		return NULL;
	}
	memset(f->base, 0, page + size);
	f->ctl = (void *)f->base;
	f->ctl->data_offset = page;
	f->ctl->data_size = size;
	f->data = f->base + page;
	f->ring = fr_ring__new(f->base, size, true);
	return f;
}

static void fring_delete(struct fring *f)
{
	if (!f)
		return;
	fr_ring__delete(f->ring);
	free(f->base);
	free(f);
}

/* n backward records of 16 bytes: header + u64 sequence number */
static void fring_write(struct fring *f, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++, f->seq++) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 16 };

		f->head -= 16;
		memcpy(f->data + (f->head & (f->size - 1)), &h, sizeof(h));
		memcpy(f->data + ((f->head + 8) & (f->size - 1)), &f->seq, sizeof(f->seq));
		__atomic_store_n(&f->ctl->data_head, f->head, __ATOMIC_RELEASE);
	}
}

/* What the chunk function saw, per ring (2 at most), oldest first. */
#define MAX_SEEN 300000
struct seen {
	uint64_t seq[2][MAX_SEEN];
	size_t n[2], chunks[2];
	bool bad[2];
	int calls_on_ring_cpu[2];   /* calls made on the ring's CPU */
	int cpu[2];                 /* the rings' CPUs */
	size_t stop_after;          /* return 1 after this many chunks of ring 0 */
	int fail;                   /* return this from the first call */
};

static int collect(void *ctx, size_t i, const uint8_t *recs, size_t len, size_t nr)
{
	struct seen *k = ctx;
	size_t off = 0;

	if (i > 1)
		return -EINVAL;
	if (k->fail)
		return k->fail;
	k->chunks[i]++;
	k->calls_on_ring_cpu[i] += sched_getcpu() == k->cpu[i];
	for (size_t j = 0; j < nr; j++) {
		const struct perf_event_header *h = (const void *)(recs + off);
		uint64_t seq;

		if (off + 16 > len || h->size != 16 || k->n[i] == MAX_SEEN) {
			k->bad[i] = true;
			break;
		}
		memcpy(&seq, h + 1, sizeof(seq));
		k->seq[i][k->n[i]++] = seq;
		off += 16;
	}
	if (off != len)
		k->bad[i] = true;
	return i == 0 && k->stop_after && k->chunks[0] == k->stop_after ? 1 : 0;
}

/* ring i's stream: records 0 .. n-1, oldest first */
static bool seen_ok(const struct seen *k, size_t i, uint64_t n)
{
	if (k->bad[i] || k->n[i] != n)
		return false;
	for (size_t j = 0; j < n; j++)
		if (k->seq[i][j] != j)
			return false;
	return true;
}

static struct seen *seen_new(int cpu0, int cpu1)
{
	struct seen *k = calloc(1, sizeof(*k));

	if (k) {
		k->cpu[0] = cpu0;
		k->cpu[1] = cpu1;
	}
	return k;
}

static void seen_reset(struct seen *k)
{
	memset(k->n, 0, sizeof(k->n));
	memset(k->chunks, 0, sizeof(k->chunks));
	memset(k->bad, 0, sizeof(k->bad));
	memset(k->calls_on_ring_cpu, 0, sizeof(k->calls_on_ring_cpu));
}

static int fake_ioctl(struct fr_ring *ring, int fd, unsigned long req, unsigned long arg, void *ctx)
{
	struct fring *f = ctx;

	(void)ring;
	CU_ASSERT_EQUAL(fd, 42);
	CU_ASSERT_EQUAL(req, PERF_EVENT_IOC_PAUSE_OUTPUT);
	if (arg) {
		f->pauses++;
		if (f->pause_err)
			return f->pause_err;
		f->paused = true;
	} else {
		f->resumes++;
		if (f->resume_err)
			return f->resume_err;
		f->paused = false;
	}
	return 0;
}

static void copy_hook(struct fr_ring *ring, void *arg)
{
	struct fring *f = arg;

	(void)ring;
	if (f->paused)
		f->copied_paused = true;
	else
		f->copied_unpaused = true;
}

static struct fring *fring_hooked_sized(size_t size, uint64_t n)
{
	struct fring *f = fring_new(size);

	if (!f || !f->ring) {
		fring_delete(f);
		return NULL;
	}
	fring_write(f, n);
	fr_ring__set_ioctl_hook(f->ring, fake_ioctl, f);
	fr_ring__set_copy_hook(f->ring, copy_hook, f);
	return f;
}

static struct fring *fring_hooked(uint64_t n)
{
	return fring_hooked_sized(RING_SIZE, n);
}

/* ---- dynamic CPU sets ------------------------------------------------------ */

static void test_cpuset(void)
{
	cpu_set_t *set = NULL;
	size_t size = 0;
	int cpu = sched_getcpu();

	CU_ASSERT_EQUAL_FATAL(fr_cpuset__affinity(&set, &size), 0);
	CU_ASSERT(size >= CPU_ALLOC_SIZE(1024));
	CU_ASSERT(cpu < 0 || fr_cpuset__has(set, size, (struct fr_cpu){ cpu }));
	CU_ASSERT(!fr_cpuset__has(set, size, (struct fr_cpu){ -1 }));
	CU_ASSERT(!fr_cpuset__has(set, size, (struct fr_cpu){ NOWHERE_CPU }));
	CU_ASSERT_EQUAL(CPU_COUNT_S(size, set) > 0, 1);
	CPU_FREE(set);
}

/* ---- pinned ------------------------------------------------------------------ */

static void test_pinned(void)
{
	struct fring *f = fring_hooked(10);
	int cpu = sched_getcpu();
	struct fr_copy_ring cr = { .cpu = { cpu }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_stream rs;
	enum fr_copy_path path;
	struct fr_copy_stats st;
	struct seen *k = seen_new(cpu, -1);

	CU_ASSERT_FATAL(f != NULL && cpu >= 0 && k != NULL);
	cr.ring = f->ring;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	CU_ASSERT_EQUAL(fr_copier__nr_threads(c), 1);
	/* a generous deadline: a loaded test machine must not flip the path */
	fr_copier__set_deadline(c, 5000000000ull);
	for (int j = 0; j < 3; j++) {
		seen_reset(k);
		CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, &path, &st, collect, k), 0);
		CU_ASSERT_EQUAL(path, FR_COPY_PINNED);
		CU_ASSERT_EQUAL(st.pinned, 1);
		CU_ASSERT_EQUAL(st.paused + st.skipped + st.late, 0);
		CU_ASSERT(seen_ok(k, 0, 10 + 5 * (uint64_t)j));
		CU_ASSERT_EQUAL(rs.nr, 10 + 5 * (uint64_t)j);
		CU_ASSERT_EQUAL(rs.head, f->head);
		/* the chunk function ran on the copy thread, on the ring's CPU */
		CU_ASSERT_EQUAL(k->calls_on_ring_cpu[0], (int)k->chunks[0]);
		CU_ASSERT(st.begin_ms >= 0 && st.begin_ms <= st.wait_ms);
		fring_write(f, 5);
	}
	CU_ASSERT_EQUAL(f->pauses + f->resumes, 0);
	CU_ASSERT(!f->copied_paused && f->copied_unpaused);
	fr_copier__delete(c);
	fring_delete(f);
	free(k);
}

/* A CPU offline when the copier began has no ring; when it comes online
 * its ring is added and streamed like the others. */
static void test_add_ring(void)
{
	struct fring *f = fring_hooked(10);
	int cpu = sched_getcpu();
	struct fr_copy_ring cr = { .cpu = { cpu }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_stream rs;
	enum fr_copy_path path;
	struct fr_copy_stats st;
	struct seen *k = seen_new(cpu, -1);

	CU_ASSERT_FATAL(f != NULL && cpu >= 0 && k != NULL);
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);   /* no ring yet */
	CU_ASSERT_EQUAL(fr_copier__nr_threads(c), 0);
	CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, &path, &st, collect, k), 0);
	CU_ASSERT_EQUAL(path, FR_COPY_NONE);
	CU_ASSERT_EQUAL(st.pinned + st.paused + st.skipped, 0);
	CU_ASSERT_EQUAL(fr_copier__add_ring(c, 1, f->ring, 42), -EINVAL);   /* no such index */
	CU_ASSERT_EQUAL(fr_copier__add_ring(c, 0, f->ring, 42), 0);
	CU_ASSERT_EQUAL(fr_copier__add_ring(c, 0, f->ring, 42), -EINVAL);   /* has one */
	CU_ASSERT_EQUAL(fr_copier__nr_threads(c), 1);
	fr_copier__set_deadline(c, 5000000000ull);
	seen_reset(k);
	CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, &path, &st, collect, k), 0);
	CU_ASSERT_EQUAL(path, FR_COPY_PINNED);
	CU_ASSERT(seen_ok(k, 0, 10));
	CU_ASSERT_EQUAL(rs.nr, 10);
	fr_copier__delete(c);
	fring_delete(f);
	free(k);
}

/* A ring of several chunks: every chunk in order; a chunk function that
 * wants no more gets no more of that ring. */
static void test_pinned_chunks(void)
{
	struct fring *f = fring_hooked_sized(BIG_RING, BIG_RING / 16 + 1000);
	int cpu = sched_getcpu();
	struct fr_copy_ring cr = { .cpu = { cpu }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_stream rs;
	struct fr_copy_stats st;
	struct seen *k = seen_new(cpu, -1);
	uint64_t first = 1000;

	CU_ASSERT_FATAL(f != NULL && cpu >= 0 && k != NULL);
	cr.ring = f->ring;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	fr_copier__set_deadline(c, 5000000000ull);
	CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, NULL, &st, collect, k), 0);
	CU_ASSERT_EQUAL(st.pinned, 1);
	CU_ASSERT_EQUAL(k->chunks[0], 4);
	CU_ASSERT(rs.full);
	/* the ring holds the newest BIG_RING / 16 records, oldest first */
	CU_ASSERT_EQUAL(k->n[0], BIG_RING / 16);
	for (size_t j = 0; j < k->n[0]; j++)
		if (k->seq[0][j] != first + j) {
			CU_FAIL("records out of order or missing");
			break;
		}
	seen_reset(k);
	k->stop_after = 1;
	CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, NULL, &st, collect, k), 0);
	CU_ASSERT_EQUAL(k->chunks[0], 1);
	CU_ASSERT_EQUAL(k->n[0], BIG_RING / 16 / 4);
	fr_copier__delete(c);
	fring_delete(f);
	free(k);
}

/* ---- paused ------------------------------------------------------------------ */

/* A CPU the caller cannot run on: paused, streamed, resumed; never unpinned. */
static void test_paused(void)
{
	struct fring *f = fring_hooked(7);
	struct fr_copy_ring cr = { .cpu = { NOWHERE_CPU }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_stream rs;
	enum fr_copy_path path;
	struct fr_copy_stats st;
	struct seen *k = seen_new(NOWHERE_CPU, -1);
	char buf[128];

	CU_ASSERT_FATAL(f != NULL && k != NULL);
	cr.ring = f->ring;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	CU_ASSERT_EQUAL(fr_copier__nr_threads(c), 0);
	CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, &path, &st, collect, k), 0);
	CU_ASSERT_EQUAL(path, FR_COPY_PAUSED);
	CU_ASSERT_EQUAL(st.paused, 1);
	CU_ASSERT_EQUAL(st.pinned + st.skipped, 0);
	CU_ASSERT_EQUAL(f->pauses, 1);
	CU_ASSERT_EQUAL(f->resumes, 1);
	CU_ASSERT(!f->paused);
	CU_ASSERT(f->copied_paused);
	CU_ASSERT(!f->copied_unpaused);
	CU_ASSERT(seen_ok(k, 0, 7));
	fr_copy_stats__format(&st, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0 pinned, 1 paused");
	fr_copier__delete(c);
	fring_delete(f);
	free(k);
}

/* Pause refused: the CPU is skipped and listed, nothing copied unpaused. */
static void test_pause_refused(void)
{
	struct fring *f = fring_hooked(3), *g = fring_hooked(4);
	struct fr_copy_ring cr[2] = { { .cpu = { NOWHERE_CPU }, .fd = 42 },
				      { .cpu = { NOWHERE_CPU + 1 }, .fd = 42 } };
	struct fr_copier *c = NULL;
	struct fr_ring_stream rs[2];
	enum fr_copy_path path[2];
	struct fr_copy_stats st;
	struct seen *k = seen_new(NOWHERE_CPU, NOWHERE_CPU + 1);
	char buf[128];

	CU_ASSERT_FATAL(f != NULL && g != NULL && k != NULL);
	cr[0].ring = f->ring;
	cr[1].ring = g->ring;
	f->pause_err = -ENOTTY;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(cr, 2, &c), 0);
	CU_ASSERT_EQUAL(fr_copier__stream(c, rs, path, &st, collect, k), 0);
	CU_ASSERT_EQUAL(path[0], FR_COPY_SKIPPED);
	CU_ASSERT_EQUAL(path[1], FR_COPY_PAUSED);
	CU_ASSERT_EQUAL(st.skipped, 1);
	CU_ASSERT_EQUAL(st.paused, 1);
	CU_ASSERT_EQUAL(st.skipped_cpus[0].cpu, NOWHERE_CPU);
	CU_ASSERT_EQUAL(st.skip_err, -ENOTTY);
	CU_ASSERT_EQUAL(k->n[0], 0);
	CU_ASSERT_EQUAL(rs[0].nr, 0);
	CU_ASSERT(!f->copied_paused && !f->copied_unpaused);
	CU_ASSERT_EQUAL(f->resumes, 0);
	CU_ASSERT(seen_ok(k, 1, 4));
	CU_ASSERT(g->copied_paused && !g->copied_unpaused && !g->paused);
	fr_copy_stats__format(&st, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0 pinned, 1 paused, 1 skipped: cpu 1000000");
	fr_copier__delete(c);
	fring_delete(f);
	fring_delete(g);
	free(k);
}

/* A ring that cannot be resumed fails the snapshot (it would stay paused). */
static void test_resume_fails(void)
{
	struct fring *f = fring_hooked(3);
	struct fr_copy_ring cr = { .cpu = { NOWHERE_CPU }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_stream rs;
	struct fr_copy_stats st;
	struct seen *k = seen_new(NOWHERE_CPU, -1);

	CU_ASSERT_FATAL(f != NULL && k != NULL);
	cr.ring = f->ring;
	f->resume_err = -EIO;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, NULL, &st, collect, k), -EIO);
	CU_ASSERT_EQUAL(f->resumes, 2);   /* tried twice */
	fr_copier__delete(c);
	fring_delete(f);
	free(k);
}

/* The chunk function failing stops every stream with its error; a paused
 * ring is still resumed, a pinned one copied no further. */
static void test_fn_fails(void)
{
	struct fring *f = fring_hooked(3), *g = fring_hooked(4);
	int cpu = sched_getcpu();
	struct fr_copy_ring cr[2] = { { .cpu = { cpu }, .fd = 42 },
				      { .cpu = { NOWHERE_CPU }, .fd = 42 } };
	struct fr_copier *c = NULL;
	struct fr_ring_stream rs[2];
	struct fr_copy_stats st;
	struct seen *k = seen_new(cpu, NOWHERE_CPU);

	CU_ASSERT_FATAL(f != NULL && g != NULL && k != NULL && cpu >= 0);
	cr[0].ring = f->ring;
	cr[1].ring = g->ring;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(cr, 2, &c), 0);
	fr_copier__set_deadline(c, 5000000000ull);
	k->fail = -ENOSPC;
	CU_ASSERT_EQUAL(fr_copier__stream(c, rs, NULL, &st, collect, k), -ENOSPC);
	CU_ASSERT(!g->paused);
	CU_ASSERT_EQUAL(g->pauses, g->resumes);
	/* and the copier works again afterwards */
	k->fail = 0;
	CU_ASSERT_EQUAL(fr_copier__stream(c, rs, NULL, &st, collect, k), 0);
	CU_ASSERT(seen_ok(k, 0, 3));
	CU_ASSERT(seen_ok(k, 1, 4));
	fr_copier__delete(c);
	fring_delete(f);
	fring_delete(g);
	free(k);
}

/* Deadline 0: each ring is streamed exactly one exact way, pinned or paused,
 * and a thread abandoned before it started is asked again next time. */
static void test_deadline(void)
{
	struct fring *f = fring_hooked(5);
	int cpu = sched_getcpu();
	struct fr_copy_ring cr = { .cpu = { cpu }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_stream rs;
	enum fr_copy_path path;
	struct fr_copy_stats st;
	struct seen *k = seen_new(cpu, -1);

	CU_ASSERT_FATAL(f != NULL && cpu >= 0 && k != NULL);
	cr.ring = f->ring;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	for (int j = 0; j < 20; j++) {
		seen_reset(k);
		fr_copier__set_deadline(c, 0);
		CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, &path, &st, collect, k), 0);
		CU_ASSERT(path == FR_COPY_PINNED || path == FR_COPY_PAUSED);
		CU_ASSERT_EQUAL(st.pinned + st.paused, 1);
		CU_ASSERT_EQUAL(st.skipped, 0);
		CU_ASSERT(seen_ok(k, 0, 5));
		CU_ASSERT(!f->paused);
	}
	seen_reset(k);
	fr_copier__set_deadline(c, 5000000000ull);
	CU_ASSERT_EQUAL(fr_copier__stream(c, &rs, &path, &st, collect, k), 0);
	CU_ASSERT_EQUAL(path, FR_COPY_PINNED);
	CU_ASSERT(seen_ok(k, 0, 5));
	fr_copier__delete(c);
	fring_delete(f);
	free(k);
}

/* ---- main --------------------------------------------------------------- */

static void test_cpu_list(void)
{
	int *c = NULL;

	CU_ASSERT_EQUAL(fr_cpus__parse("0,2-4,7\n", &c), 5);
	if (c) {
		CU_ASSERT_EQUAL(c[0], 0);
		CU_ASSERT_EQUAL(c[1], 2);
		CU_ASSERT_EQUAL(c[3], 4);
		CU_ASSERT_EQUAL(c[4], 7);
	}
	free(c);
	CU_ASSERT_EQUAL(fr_cpus__parse("3-1", &c), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__parse("70000", &c), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__parse("1,,2", &c), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__parse("-1", &c), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__parse("1-", &c), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__parse("a", &c), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__parse("", &c), -EINVAL);
}

/* The slots of a system-wide evlist are the possible CPUs; those online at
 * the start are opened, the rest wait (fr_cpus__mark). */
static void test_cpu_slots(void)
{
	static const int possible[] = { 0, 1, 2, 4, 5 }, online[] = { 0, 2, 5 };
	static const int stranger[] = { 0, 3 }, unsorted[] = { 2, 0 }, twice[] = { 1, 1 };
	bool on[5];

	CU_ASSERT_EQUAL(fr_cpus__mark(possible, 5, online, 3, on), 0);
	CU_ASSERT(on[0] && !on[1] && on[2] && !on[3] && on[4]);
	CU_ASSERT_EQUAL(fr_cpus__mark(possible, 5, possible, 5, on), 0);
	CU_ASSERT(on[0] && on[1] && on[2] && on[3] && on[4]);
	CU_ASSERT_EQUAL(fr_cpus__mark(possible, 5, online, 0, on), 0);
	CU_ASSERT(!on[0] && !on[4]);
	/* an online CPU that is not possible: the caller uses the online list */
	CU_ASSERT_EQUAL(fr_cpus__mark(possible, 5, stranger, 2, on), -ENOENT);
	CU_ASSERT_EQUAL(fr_cpus__mark(possible, 5, unsorted, 2, on), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__mark(twice, 2, online, 1, on), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__ascending(possible, 5), 0);
	CU_ASSERT_EQUAL(fr_cpus__ascending(twice, 2), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__ascending(unsorted, 2), -EINVAL);
	CU_ASSERT_EQUAL(fr_cpus__ascending(unsorted, 1), 0);
}

static const struct fr_test tests[] = {
	{ "cpu lists", test_cpu_list },
	{ "cpu slots: possible CPUs, those online marked", test_cpu_slots },
	{ "cpuset: dynamic affinity set", test_cpuset },
	{ "copier: pinned thread on this CPU", test_pinned },
	{ "copier: a ring added for a CPU come online", test_add_ring },
	{ "copier: a ring of several chunks, and a stop", test_pinned_chunks },
	{ "copier: CPU we cannot run on is copied paused", test_paused },
	{ "copier: pause refused skips the CPU", test_pause_refused },
	{ "copier: resume failure fails the snapshot", test_resume_fails },
	{ "copier: the chunk function failing stops the stream", test_fn_fails },
	{ "copier: deadline falls back to the paused copy", test_deadline },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "copy", NULL, NULL, tests };
