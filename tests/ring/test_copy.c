/* tests/ring/test_copy.c: CUnit suite for ring/copy.c: dynamic CPU sets, the
 * pinned copy threads and the paused copy, on fake rings (malloc'd pages laid
 * out as perf lays them out) and a fake PAUSE_OUTPUT ioctl; no perf events.
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
#define NOWHERE_CPU 1000000   /* a CPU no thread can be pinned to */

struct fring {
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

static struct fring *fring_new(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct fring *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->base = aligned_alloc(page, page + RING_SIZE);
	if (!f->base) {
		free(f);
		return NULL;
	}
	memset(f->base, 0, page + RING_SIZE);
	f->ctl = (void *)f->base;
	f->ctl->data_offset = page;
	f->ctl->data_size = RING_SIZE;
	f->data = f->base + page;
	f->ring = fr_ring__new(f->base, RING_SIZE, true);
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
		memcpy(f->data + (f->head & (RING_SIZE - 1)), &h, sizeof(h));
		memcpy(f->data + ((f->head + 8) & (RING_SIZE - 1)), &f->seq, sizeof(f->seq));
		__atomic_store_n(&f->ctl->data_head, f->head, __ATOMIC_RELEASE);
	}
}

/* records newest first: n-1 .. 0 */
static bool snap_ok(const struct fr_ring_snapshot *s, uint64_t n)
{
	if (s->nr != n)
		return false;
	for (size_t i = 0; i < s->nr; i++) {
		const struct perf_event_header *h = fr_ring_snapshot__record(s, i);
		uint64_t seq;

		memcpy(&seq, h + 1, sizeof(seq));
		if (h->size != 16 || seq != n - 1 - i)
			return false;
	}
	return true;
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

static struct fring *fring_hooked(uint64_t n)
{
	struct fring *f = fring_new();

	if (!f || !f->ring) {
		fring_delete(f);
		return NULL;
	}
	fring_write(f, n);
	fr_ring__set_ioctl_hook(f->ring, fake_ioctl, f);
	fr_ring__set_copy_hook(f->ring, copy_hook, f);
	return f;
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
	struct fr_ring_snapshot s;
	enum fr_copy_path path;
	struct fr_copy_stats st;

	CU_ASSERT_FATAL(f != NULL && cpu >= 0);
	cr.ring = f->ring;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	CU_ASSERT_EQUAL(fr_copier__nr_threads(c), 1);
	/* a generous deadline: a loaded test machine must not flip the path */
	fr_copier__set_deadline(c, 5000000000ull);
	for (int k = 0; k < 3; k++) {
		CU_ASSERT_EQUAL(fr_copier__snapshot(c, &s, &path, &st), 0);
		CU_ASSERT_EQUAL(path, FR_COPY_PINNED);
		CU_ASSERT_EQUAL(st.pinned, 1);
		CU_ASSERT_EQUAL(st.paused + st.skipped + st.late, 0);
		CU_ASSERT(snap_ok(&s, 10 + 5 * (uint64_t)k));
		fring_write(f, 5);
	}
	CU_ASSERT_EQUAL(f->pauses + f->resumes, 0);
	CU_ASSERT(!f->copied_paused && f->copied_unpaused);
	fr_copier__delete(c);
	fring_delete(f);
}

/* ---- paused ------------------------------------------------------------------ */

/* A CPU the caller cannot run on: paused, copied, resumed; never unpinned. */
static void test_paused(void)
{
	struct fring *f = fring_hooked(7);
	struct fr_copy_ring cr = { .cpu = { NOWHERE_CPU }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_snapshot s;
	enum fr_copy_path path;
	struct fr_copy_stats st;
	char buf[128];

	CU_ASSERT_FATAL(f != NULL);
	cr.ring = f->ring;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	CU_ASSERT_EQUAL(fr_copier__nr_threads(c), 0);
	CU_ASSERT_EQUAL(fr_copier__snapshot(c, &s, &path, &st), 0);
	CU_ASSERT_EQUAL(path, FR_COPY_PAUSED);
	CU_ASSERT_EQUAL(st.paused, 1);
	CU_ASSERT_EQUAL(st.pinned + st.skipped, 0);
	CU_ASSERT_EQUAL(f->pauses, 1);
	CU_ASSERT_EQUAL(f->resumes, 1);
	CU_ASSERT(!f->paused);
	CU_ASSERT(f->copied_paused);
	CU_ASSERT(!f->copied_unpaused);
	CU_ASSERT(snap_ok(&s, 7));
	fr_copy_stats__format(&st, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0 pinned, 1 paused");
	fr_copier__delete(c);
	fring_delete(f);
}

/* Pause refused: the CPU is skipped and listed, nothing copied unpaused. */
static void test_pause_refused(void)
{
	struct fring *f = fring_hooked(3), *g = fring_hooked(4);
	struct fr_copy_ring cr[2] = { { .cpu = { NOWHERE_CPU }, .fd = 42 },
				      { .cpu = { NOWHERE_CPU + 1 }, .fd = 42 } };
	struct fr_copier *c = NULL;
	struct fr_ring_snapshot s[2];
	enum fr_copy_path path[2];
	struct fr_copy_stats st;
	char buf[128];

	CU_ASSERT_FATAL(f != NULL && g != NULL);
	cr[0].ring = f->ring;
	cr[1].ring = g->ring;
	f->pause_err = -ENOTTY;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(cr, 2, &c), 0);
	CU_ASSERT_EQUAL(fr_copier__snapshot(c, s, path, &st), 0);
	CU_ASSERT_EQUAL(path[0], FR_COPY_SKIPPED);
	CU_ASSERT_EQUAL(path[1], FR_COPY_PAUSED);
	CU_ASSERT_EQUAL(st.skipped, 1);
	CU_ASSERT_EQUAL(st.paused, 1);
	CU_ASSERT_EQUAL(st.skipped_cpus[0].cpu, NOWHERE_CPU);
	CU_ASSERT_EQUAL(st.skip_err, -ENOTTY);
	CU_ASSERT_EQUAL(s[0].nr, 0);
	CU_ASSERT(!f->copied_paused && !f->copied_unpaused);
	CU_ASSERT_EQUAL(f->resumes, 0);
	CU_ASSERT(snap_ok(&s[1], 4));
	CU_ASSERT(g->copied_paused && !g->copied_unpaused && !g->paused);
	fr_copy_stats__format(&st, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0 pinned, 1 paused, 1 skipped: cpu 1000000");
	fr_copier__delete(c);
	fring_delete(f);
	fring_delete(g);
}

/* A ring that cannot be resumed fails the snapshot (it would stay paused). */
static void test_resume_fails(void)
{
	struct fring *f = fring_hooked(3);
	struct fr_copy_ring cr = { .cpu = { NOWHERE_CPU }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_snapshot s;
	struct fr_copy_stats st;

	CU_ASSERT_FATAL(f != NULL);
	cr.ring = f->ring;
	f->resume_err = -EIO;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	CU_ASSERT_EQUAL(fr_copier__snapshot(c, &s, NULL, &st), -EIO);
	CU_ASSERT_EQUAL(f->resumes, 2);   /* tried twice */
	fr_copier__delete(c);
	fring_delete(f);
}

/* Deadline 0: each ring is copied exactly one exact way, pinned or paused,
 * and a thread abandoned before it started is asked again next time. */
static void test_deadline(void)
{
	struct fring *f = fring_hooked(5);
	int cpu = sched_getcpu();
	struct fr_copy_ring cr = { .cpu = { cpu }, .fd = 42 };
	struct fr_copier *c = NULL;
	struct fr_ring_snapshot s;
	enum fr_copy_path path;
	struct fr_copy_stats st;

	CU_ASSERT_FATAL(f != NULL && cpu >= 0);
	cr.ring = f->ring;
	CU_ASSERT_EQUAL_FATAL(fr_copier__new(&cr, 1, &c), 0);
	for (int k = 0; k < 20; k++) {
		fr_copier__set_deadline(c, 0);
		CU_ASSERT_EQUAL(fr_copier__snapshot(c, &s, &path, &st), 0);
		CU_ASSERT(path == FR_COPY_PINNED || path == FR_COPY_PAUSED);
		CU_ASSERT_EQUAL(st.pinned + st.paused, 1);
		CU_ASSERT_EQUAL(st.skipped, 0);
		CU_ASSERT(snap_ok(&s, 5));
		CU_ASSERT(!f->paused);
	}
	fr_copier__set_deadline(c, 5000000000ull);
	CU_ASSERT_EQUAL(fr_copier__snapshot(c, &s, &path, &st), 0);
	CU_ASSERT_EQUAL(path, FR_COPY_PINNED);
	CU_ASSERT(snap_ok(&s, 5));
	fr_copier__delete(c);
	fring_delete(f);
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

static const struct fr_test tests[] = {
	{ "cpu lists", test_cpu_list },
	{ "cpuset: dynamic affinity set", test_cpuset },
	{ "copier: pinned thread on this CPU", test_pinned },
	{ "copier: CPU we cannot run on is copied paused", test_paused },
	{ "copier: pause refused skips the CPU", test_pause_refused },
	{ "copier: resume failure fails the snapshot", test_resume_fails },
	{ "copier: deadline falls back to the paused copy", test_deadline },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "copy", NULL, NULL, tests };
