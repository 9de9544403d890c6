/* tests/proc/test_proctable.c: CUnit suite for src/proc/: images built from
 * COMM/FORK/EXIT/MMAP2 records, lookups by pid and time, exec and pid reuse,
 * garbage collection by time, and the PROCS payload both ways.
 */
#include "tests/cunit.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "src/proc/proctable.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static uint8_t rbuf[512];

/* Append the TID|TIME sample_id trailer and finish the header. */
static const struct perf_event_header *finish(size_t body, uint32_t pid, uint32_t tid,
					      uint64_t t, uint32_t type, uint16_t misc)
{
	struct perf_event_header *h = (void *)rbuf;
	uint32_t ids[2] = { pid, tid };

	body = (body + 7) & ~(size_t)7;
	memcpy(rbuf + 8 + body, ids, 8);
	memcpy(rbuf + 16 + body, &t, 8);
	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)(8 + body + 16);
	return h;
}

static const struct perf_event_header *comm(uint32_t pid, uint32_t tid, const char *c,
					    uint64_t t, int exec)
{
	uint32_t ids[2] = { pid, tid };

	memset(rbuf, 0, sizeof(rbuf));
	memcpy(rbuf + 8, ids, 8);
	strcpy((char *)rbuf + 16, c);
	return finish(8 + strlen(c) + 1, pid, tid, t, PERF_RECORD_COMM,
		      exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
}

static const struct perf_event_header *task(uint32_t type, uint32_t pid, uint32_t ppid,
					    uint32_t tid, uint64_t t)
{
	uint32_t v[4] = { pid, ppid, tid, ppid };

	memset(rbuf, 0, sizeof(rbuf));
	memcpy(rbuf + 8, v, 16);
	memcpy(rbuf + 24, &t, 8);
	return finish(24, pid, tid, t, type, 0);
}

static const struct perf_event_header *mmap2(uint32_t pid, uint64_t addr, uint64_t len,
					     const char *file, uint32_t prot, uint64_t t,
					     uint8_t bid)
{
	uint32_t ids[2] = { pid, pid };
	uint8_t *p = rbuf + 8;

	memset(rbuf, 0, sizeof(rbuf));
	memcpy(p, ids, 8);
	memcpy(p + 8, &addr, 8);
	memcpy(p + 16, &len, 8);
	if (bid) {
		p[32] = 20;
		memset(p + 36, bid, 20);
	}
	memcpy(p + 56, &prot, 4);
	strcpy((char *)p + 64, file);
	return finish(64 + strlen(file) + 1, pid, pid, t, PERF_RECORD_MMAP2,
		      bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
}

static void test_lifecycle(void)
{
	struct fr_proctable *pt = fr_proctable__new();
	const struct fr_proc *p;
	const struct fr_pmap *m;

	CU_ASSERT_FATAL(pt != NULL);
	CU_ASSERT_EQUAL(fr_proctable__add_proc(pt, 100, 1, "shell"), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(100, 0x1000, 0x1000, "/bin/sh", PROT_EXEC | PROT_READ, 5, 7), ST), 0);
	/* fork at 10: the child copies comm and maps */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 200, 100, 200, 10), ST), 0);
	p = fr_proctable__find(pt, 200, 11);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->ppid, 100);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 11), "shell");
	CU_ASSERT_PTR_NOT_NULL(fr_proc__map(p, 0x1800, 11));
	/* exec at 20: a new image, the old one ends there */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(200, 200, "worker", 20, 1), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(200, 0x5000, 0x2000, "/usr/bin/worker", PROT_EXEC, 21, 9), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(200, 0x9000, 0x1000, "/data", PROT_READ, 22, 0), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(200, 200, "renamed", 30, 0), ST), 0);
	/* a thread's name is not the process's */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(200, 201, "thread-x", 31, 0), ST), 0);
	p = fr_proctable__find(pt, 200, 15);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 15), "shell");
	CU_ASSERT_EQUAL(p->exit_time, 20);
	p = fr_proctable__find(pt, 200, 25);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->start_time, 20);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 25), "worker");
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 35), "renamed");
	CU_ASSERT_PTR_NULL(fr_proc__map(p, 0x1800, 25));        /* the pre-exec map is gone */
	m = fr_proc__map(p, 0x5100, 25);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_STRING_EQUAL(m->path, "/usr/bin/worker");
	CU_ASSERT_EQUAL(m->build_id_size, 20);
	CU_ASSERT_EQUAL(m->build_id[0], 9);
	CU_ASSERT_PTR_NULL(fr_proc__map(p, 0x5100, 20));        /* not mapped yet at 20 */
	CU_ASSERT_PTR_NULL(fr_proc__map(p, 0x9100, 25));        /* data maps are not kept */
	/* exit at 40 (a thread's exit first: ignored) */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 200, 200, 201, 39), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__find(pt, 200, 39)->exit_time, 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 200, 100, 200, 40), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__find(pt, 200, 39)->exit_time, 40);
	CU_ASSERT_EQUAL(fr_proctable__nr_exited(pt), 2);
	/* pid reuse at 50 */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 200, 100, 200, 50), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__find(pt, 200, 55)->start_time, 50);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(fr_proctable__find(pt, 200, 35), 35), "renamed");
	/* gc: images that ended before 30 go (the pre-exec one ended at 20) */
	CU_ASSERT_EQUAL(fr_proctable__nr(pt), 4);
	CU_ASSERT_EQUAL(fr_proctable__gc(pt, 30), 1);
	CU_ASSERT_EQUAL(fr_proctable__nr(pt), 3);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(fr_proctable__find(pt, 200, 35), 35), "renamed");
	CU_ASSERT_EQUAL(fr_proctable__find(pt, 200, 55)->start_time, 50);
	CU_ASSERT_EQUAL(fr_proctable__gc(pt, 45), 1);
	CU_ASSERT_EQUAL(fr_proctable__nr(pt), 2);
	CU_ASSERT_EQUAL(fr_proctable__find(pt, 200, 35), NULL);
	CU_ASSERT_PTR_NOT_NULL(fr_proctable__find(pt, 100, 35));
	/* records from two CPUs out of order: the exit (on CPU 0) is read before the
	 * exec (on CPU 1) that preceded it */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 300, 100, 300, 100), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 300, 100, 300, 120), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(300, 300, "late", 110, 1), ST), 0);
	p = fr_proctable__find(pt, 300, 115);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 115), "late");
	CU_ASSERT_EQUAL(p->start_time, 110);
	CU_ASSERT_EQUAL(p->exit_time, 120);
	CU_ASSERT_EQUAL(fr_proctable__find(pt, 300, 105)->exit_time, 110);
	CU_ASSERT_EQUAL(fr_proctable__gc(pt, 1000), 2);
	/* a malformed record is refused, the table unchanged */
	rbuf[0] = 0;
	CU_ASSERT_EQUAL(fr_proctable__record(pt, finish(2, 1, 1, 1, PERF_RECORD_COMM, 0), ST), -EBADMSG);
	CU_ASSERT_EQUAL(fr_proctable__nr(pt), 2);
	fr_proctable__delete(pt);
}

struct payloads {
	uint8_t *data[16];
	size_t len[16];
	size_t n;
};

static int collect(void *ctx, const void *data, size_t len)
{
	struct payloads *pl = ctx;

	if (pl->n == 16)
		return -ENOSPC;
	pl->data[pl->n] = malloc(len);
	memcpy(pl->data[pl->n], data, len);
	pl->len[pl->n++] = len;
	return 0;
}

static struct fr_proctable *sample_table(void)
{
	struct fr_proctable *pt = fr_proctable__new();
	char name[16];

	for (uint32_t pid = 10; pid < 40; pid++) {
		snprintf(name, sizeof(name), "p%u", pid);
		fr_proctable__add_proc(pt, pid, 1, name);
		fr_proctable__record(pt, mmap2(pid, 0x1000 * pid, 0x1000, "/lib/libx.so", PROT_EXEC, pid, (uint8_t)pid), ST);
	}
	fr_proctable__record(pt, task(PERF_RECORD_EXIT, 12, 1, 12, 100), ST);
	return pt;
}

static void test_serialize(void)
{
	struct fr_proctable *pt = sample_table(), *back = fr_proctable__new();
	uint32_t want[] = { 12, 30 };
	struct payloads pl = { .n = 0 };
	const struct fr_proc *p;

	CU_ASSERT_EQUAL(fr_proctable__serialize(pt, want, 2, 1 << 20, collect, &pl), 0);
	CU_ASSERT_EQUAL_FATAL(pl.n, 1);
	CU_ASSERT_EQUAL(fr_proctable__parse(back, pl.data[0], pl.len[0]), 0);
	CU_ASSERT_EQUAL(fr_proctable__nr(back), 2);
	p = fr_proctable__find(back, 12, 50);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->exit_time, 100);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 50), "p12");
	CU_ASSERT_FATAL(fr_proc__map(p, 0xc100, 50) != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proc__map(p, 0xc100, 50)->path, "/lib/libx.so");
	CU_ASSERT_EQUAL(fr_proc__map(p, 0xc100, 50)->build_id[19], 12);
	CU_ASSERT_PTR_NULL(fr_proctable__find(back, 13, 50));
	/* every truncation of the payload is refused */
	for (size_t cut = 0; cut < pl.len[0]; cut++) {
		struct fr_proctable *t = fr_proctable__new();

		CU_ASSERT_EQUAL(fr_proctable__parse(t, pl.data[0], cut), -EBADMSG);
		fr_proctable__delete(t);
	}
	free(pl.data[0]);
	fr_proctable__delete(back);
	/* all images, split into small payloads that each parse */
	pl.n = 0;
	CU_ASSERT_EQUAL(fr_proctable__serialize(pt, NULL, 0, 400, collect, &pl), 0);
	CU_ASSERT(pl.n > 1);
	back = fr_proctable__new();
	for (size_t i = 0; i < pl.n; i++) {
		CU_ASSERT(pl.len[i] <= 400);
		CU_ASSERT_EQUAL(fr_proctable__parse(back, pl.data[i], pl.len[i]), 0);
		free(pl.data[i]);
	}
	CU_ASSERT_EQUAL(fr_proctable__nr(back), 30);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(fr_proctable__find(back, 39, 50), 50), "p39");
	fr_proctable__delete(back);
	fr_proctable__delete(pt);
}

static void test_scan_self(void)
{
	struct fr_proctable *pt = fr_proctable__new();
	int self = getpid();
	const struct fr_proc *p;
	size_t withbid = 0;

	CU_ASSERT_EQUAL(fr_proctable__scan_proc(pt, &self, 1), 0);
	p = fr_proctable__find(pt, (uint32_t)self, 1);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 1), "test_proctable");
	CU_ASSERT_EQUAL(p->ppid, (uint32_t)getppid());
	CU_ASSERT(p->nr_maps >= 2);   /* the test binary and libc at least */
	for (size_t i = 0; i < p->nr_maps; i++)
		withbid += p->maps[i].build_id_size == 20;
	CU_ASSERT(withbid >= 1);
	CU_ASSERT_PTR_NOT_NULL(fr_proc__map(p, (uint64_t)(uintptr_t)&test_scan_self, 1));
	fr_proctable__delete(pt);
}

/* An MMAP2 without a kernel build id: the table reads the ELF note. */
static void test_build_id_fallback(void)
{
	struct fr_proctable *pt = fr_proctable__new();
	char exe[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const struct fr_proc *p;

	CU_ASSERT_FATAL(n > 0);
	exe[n] = '\0';
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(7, 0x1000, 0x1000, exe, PROT_EXEC, 1, 0), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(7, 0x4000, 0x1000, "/nonexistent/x", PROT_EXEC, 1, 0), ST), 0);
	p = fr_proctable__find(pt, 7, 2);
	CU_ASSERT_FATAL(p != NULL && p->nr_maps == 2);
	CU_ASSERT_EQUAL(p->maps[0].build_id_size, 20);
	CU_ASSERT_EQUAL(p->maps[1].build_id_size, 0);
	fr_proctable__delete(pt);
}

/* A process renaming itself without end keeps a bounded history. */
static void test_rename_storm(void)
{
	struct fr_proctable *pt = fr_proctable__new();
	const struct fr_proc *p;
	char name[16];

	fr_proctable__add_proc(pt, 9, 1, "start");
	for (int i = 1; i <= 10000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		CU_ASSERT_EQUAL_FATAL(fr_proctable__record(pt, comm(9, 9, name, (uint64_t)i, 0), ST), 0);
	}
	p = fr_proctable__find(pt, 9, 20000);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(p->nr_comms <= 4096);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 20000), "n10000");
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 9990), "n9990");
	/* gc keeps the name in force at `before` and what came after */
	fr_proctable__gc(pt, 9995);
	p = fr_proctable__find(pt, 9, 20000);
	CU_ASSERT_EQUAL(p->nr_comms, 6);
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 9995), "n9995");
	CU_ASSERT_STRING_EQUAL(fr_proc__comm(p, 9997), "n9997");
	fr_proctable__delete(pt);
}

static const struct fr_test tests[] = {
	{ "fork, exec, rename, map, exit, reuse, gc", test_lifecycle },
	{ "PROCS payload: round trip, truncation, splitting", test_serialize },
	{ "scan /proc/self", test_scan_self },
	{ "build id read from the ELF file", test_build_id_fallback },
	{ "a rename storm keeps a bounded history", test_rename_storm },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "proctable", NULL, NULL, tests };
