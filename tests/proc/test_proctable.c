/* tests/proc/test_proctable.c: CUnit suite for the one process model
 * (src/proc): images built from COMM/FORK/EXIT/MMAP2 records, lookups by pid,
 * address and time, exec and pid reuse, the rules both the recorder and the
 * report rely on, garbage collection by time, and the PROCS payload both ways.
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

/* The recorder's table (its policy), and the report's model (everything). */
static struct fr_proctable *rec_table(void)
{
	return fr_proctable__new(&fr_proctable__recorder_policy);
}

/* What the recorder learns of a process from /proc. */
static int add_proc(struct fr_proctable *pt, uint32_t pid, uint32_t ppid, const char *comm)
{
	int err = fr_proctable__image(pt, &(struct fr_proc){ .pid = pid, .ppid = ppid });

	return err ? err : fr_proctable__comm(pt, pid, pid, 0, comm, false);
}

static const struct fr_proc *find(const struct fr_proctable *pt, uint32_t pid, uint64_t t)
{
	return fr_proctable__proc_at(pt, pid, t);
}

static const char *comm_of(const struct fr_proctable *pt, const struct fr_proc *p, uint64_t t)
{
	return fr_proctable__proc_comm(pt, p, t);
}

/* The mapping image p sees at addr at time t. */
static const struct fr_map *map_of(const struct fr_proctable *pt, const struct fr_proc *p,
				   uint64_t addr, uint64_t t)
{
	return fr_proctable__find(pt, p->pid, t, addr);
}

static const struct fr_dso_id *file_of(const struct fr_proctable *pt, const struct fr_map *m)
{
	return fr_proctable__dso(pt, m->dso);
}

struct mapv {
	const struct fr_map *m[256];
	size_t n;
};

static int collect_map(void *ctx, const struct fr_map *m)
{
	struct mapv *v = ctx;

	if (v->n < 256)
		v->m[v->n] = m;
	v->n++;
	return 0;
}

/* Every mapping image p sees (its own, then its parent's as of its fork). */
static size_t maps_of(const struct fr_proctable *pt, const struct fr_proc *p, struct mapv *v)
{
	v->n = 0;
	fr_proctable__proc_maps(pt, p, collect_map, v);
	return v->n;
}

static size_t nr_comms(const struct fr_proctable *pt, const struct fr_proc *p)
{
	size_t n;

	fr_proctable__proc_comms(pt, p, &n);
	return n;
}

static void test_lifecycle(void)
{
	struct fr_proctable *pt = rec_table();
	const struct fr_proc *p;
	const struct fr_map *m;

	CU_ASSERT_FATAL(pt != NULL);
	CU_ASSERT_EQUAL(add_proc(pt, 100, 1, "shell"), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(100, 0x1000, 0x1000, "/bin/sh", PROT_EXEC | PROT_READ, 5, 7), ST), 0);
	/* fork at 10: the child copies comm and maps */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 200, 100, 200, 10), ST), 0);
	p = find(pt, 200, 11);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->ppid, 100);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 11), "shell");
	CU_ASSERT_PTR_NOT_NULL(map_of(pt, p, 0x1800, 11));
	/* exec at 20: a new image, the old one ends there */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(200, 200, "worker", 20, 1), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(200, 0x5000, 0x2000, "/usr/bin/worker", PROT_EXEC, 21, 9), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(200, 0x9000, 0x1000, "/data", PROT_READ, 22, 0), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(200, 200, "renamed", 30, 0), ST), 0);
	/* a thread's name is not the process's */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(200, 201, "thread-x", 31, 0), ST), 0);
	p = find(pt, 200, 15);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 15), "shell");
	CU_ASSERT_EQUAL(p->exit_time, 20);
	p = find(pt, 200, 25);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->start_time, 20);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 25), "worker");
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 35), "renamed");
	CU_ASSERT_PTR_NULL(map_of(pt, p, 0x1800, 25));        /* the pre-exec map is gone */
	m = map_of(pt, p, 0x5100, 25);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_STRING_EQUAL(file_of(pt, m)->path, "/usr/bin/worker");
	CU_ASSERT_EQUAL(file_of(pt, m)->build_id_size, 20);
	CU_ASSERT_EQUAL(file_of(pt, m)->build_id[0], 9);
	CU_ASSERT_PTR_NULL(map_of(pt, p, 0x5100, 20));        /* not mapped yet at 20 */
	CU_ASSERT_PTR_NULL(map_of(pt, p, 0x9100, 25));        /* data maps are not kept */
	/* exit at 40 (a thread's exit first: ignored) */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 200, 200, 201, 39), ST), 0);
	CU_ASSERT_EQUAL(find(pt, 200, 39)->exit_time, 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 200, 100, 200, 40), ST), 0);
	CU_ASSERT_EQUAL(find(pt, 200, 39)->exit_time, 40);
	/* two images and the thread 201 (named at 31, gone at 39) */
	CU_ASSERT_EQUAL(fr_proctable__nr_exited(pt), 3);
	/* pid reuse at 50 */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 200, 100, 200, 50), ST), 0);
	CU_ASSERT_EQUAL(find(pt, 200, 55)->start_time, 50);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, find(pt, 200, 35), 35), "renamed");
	/* gc: images that ended before 30 go (the pre-exec one ended at 20) */
	CU_ASSERT_EQUAL(fr_proctable__nr(pt), 4);
	CU_ASSERT_EQUAL(fr_proctable__gc(pt, 30), 1);
	CU_ASSERT_EQUAL(fr_proctable__nr(pt), 3);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, find(pt, 200, 35), 35), "renamed");
	CU_ASSERT_EQUAL(find(pt, 200, 55)->start_time, 50);
	CU_ASSERT_EQUAL(fr_proctable__gc(pt, 45), 1);
	CU_ASSERT_EQUAL(fr_proctable__nr(pt), 2);
	CU_ASSERT_EQUAL(find(pt, 200, 35), NULL);
	CU_ASSERT_PTR_NOT_NULL(find(pt, 100, 35));
	/* records from two CPUs out of order: the exit (on CPU 0) is read before the
	 * exec (on CPU 1) that preceded it */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 300, 100, 300, 100), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 300, 100, 300, 120), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(300, 300, "late", 110, 1), ST), 0);
	p = find(pt, 300, 115);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 115), "late");
	CU_ASSERT_EQUAL(p->start_time, 110);
	CU_ASSERT_EQUAL(p->exit_time, 120);
	CU_ASSERT_EQUAL(find(pt, 300, 105)->exit_time, 110);
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
	struct fr_proctable *pt = rec_table();
	char name[16];

	for (uint32_t pid = 10; pid < 40; pid++) {
		snprintf(name, sizeof(name), "p%u", pid);
		add_proc(pt, pid, 1, name);
		fr_proctable__record(pt, mmap2(pid, 0x1000 * pid, 0x1000, "/lib/libx.so", PROT_EXEC, pid, (uint8_t)pid), ST);
	}
	fr_proctable__record(pt, task(PERF_RECORD_EXIT, 12, 1, 12, 100), ST);
	return pt;
}

static void test_serialize(void)
{
	struct fr_proctable *pt = sample_table(), *back = rec_table();
	uint32_t want[] = { 12, 30 };
	struct payloads pl = { .n = 0 };
	const struct fr_proc *p;

	CU_ASSERT_EQUAL(fr_proctable__serialize(pt, want, 2, 1 << 20, collect, &pl), 0);
	CU_ASSERT_EQUAL_FATAL(pl.n, 1);
	CU_ASSERT_EQUAL(fr_proctable__parse(back, pl.data[0], pl.len[0]), 0);
	CU_ASSERT_EQUAL(fr_proctable__nr(back), 2);
	p = find(back, 12, 50);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->exit_time, 100);
	CU_ASSERT_STRING_EQUAL(comm_of(back, p, 50), "p12");
	CU_ASSERT_FATAL(map_of(back, p, 0xc100, 50) != NULL);
	CU_ASSERT_STRING_EQUAL(file_of(back, map_of(back, p, 0xc100, 50))->path, "/lib/libx.so");
	CU_ASSERT_EQUAL(file_of(back, map_of(back, p, 0xc100, 50))->build_id[19], 12);
	CU_ASSERT_PTR_NULL(find(back, 13, 50));
	/* every truncation of the payload is refused */
	for (size_t cut = 0; cut < pl.len[0]; cut++) {
		struct fr_proctable *t = rec_table();

		CU_ASSERT_EQUAL(fr_proctable__parse(t, pl.data[0], cut), -EBADMSG);
		fr_proctable__delete(t);
	}
	free(pl.data[0]);
	fr_proctable__delete(back);
	/* all images, split into small payloads that each parse */
	pl.n = 0;
	CU_ASSERT_EQUAL(fr_proctable__serialize(pt, NULL, 0, 400, collect, &pl), 0);
	CU_ASSERT(pl.n > 1);
	back = rec_table();
	for (size_t i = 0; i < pl.n; i++) {
		CU_ASSERT(pl.len[i] <= 400);
		CU_ASSERT_EQUAL(fr_proctable__parse(back, pl.data[i], pl.len[i]), 0);
		free(pl.data[i]);
	}
	CU_ASSERT_EQUAL(fr_proctable__nr(back), 30);
	CU_ASSERT_STRING_EQUAL(comm_of(back, find(back, 39, 50), 50), "p39");
	fr_proctable__delete(back);
	fr_proctable__delete(pt);
}

static void test_scan_self(void)
{
	struct fr_proctable *pt = rec_table();
	int self = getpid();
	const struct fr_proc *p;
	struct mapv v;
	size_t withbid = 0;

	CU_ASSERT_EQUAL(fr_proctable__scan_proc(pt, &self, 1), 0);
	p = find(pt, (uint32_t)self, 1);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 1), "test_proctable");
	CU_ASSERT_EQUAL(p->ppid, (uint32_t)getppid());
	CU_ASSERT(maps_of(pt, p, &v) >= 2);   /* the test binary and libc at least */
	for (size_t i = 0; i < v.n && i < 256; i++)
		withbid += file_of(pt, v.m[i])->build_id_size == 20;
	CU_ASSERT(withbid >= 1);
	CU_ASSERT_PTR_NOT_NULL(map_of(pt, p, (uint64_t)(uintptr_t)&test_scan_self, 1));
	fr_proctable__delete(pt);
}

/* An MMAP2 without a kernel build id: the table reads the ELF note. */
static void test_build_id_fallback(void)
{
	struct fr_proctable *pt = rec_table();
	char exe[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const struct fr_proc *p;
	struct mapv v;

	CU_ASSERT_FATAL(n > 0);
	exe[n] = '\0';
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(7, 0x1000, 0x1000, exe, PROT_EXEC, 1, 0), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(7, 0x4000, 0x1000, "/nonexistent/x", PROT_EXEC, 1, 0), ST), 0);
	p = find(pt, 7, 2);
	CU_ASSERT_FATAL(p != NULL && maps_of(pt, p, &v) == 2);
	CU_ASSERT_EQUAL(file_of(pt, v.m[0])->build_id_size, 20);
	CU_ASSERT_EQUAL(file_of(pt, v.m[1])->build_id_size, 0);
	fr_proctable__delete(pt);
}

/* A process renaming itself without end keeps a bounded history. */
static void test_rename_storm(void)
{
	struct fr_proctable *pt = rec_table();
	const struct fr_proc *p;
	char name[16];

	add_proc(pt, 9, 1, "start");
	for (int i = 1; i <= 10000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		CU_ASSERT_EQUAL_FATAL(fr_proctable__record(pt, comm(9, 9, name, (uint64_t)i, 0), ST), 0);
	}
	p = find(pt, 9, 20000);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(nr_comms(pt, p) <= 4096);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 20000), "n10000");
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 9990), "n9990");
	/* gc keeps the name in force at `before` and what came after */
	fr_proctable__gc(pt, 9995);
	p = find(pt, 9, 20000);
	CU_ASSERT_EQUAL(nr_comms(pt, p), 6);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 9995), "n9995");
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 9997), "n9997");
	fr_proctable__delete(pt);
}

/* Many repools (the two string pools taking turns, the emptied one reused):
 * every name held and every mapped file's path still reads right, so nothing
 * points into a pool after it was emptied. */
static void test_rename_storm_repools(void)
{
	struct fr_proctable *pt = rec_table();
	const struct fr_proc *p;
	struct mapv v;
	char name[16], want[16];
	size_t n;

	add_proc(pt, 9, 1, "start");
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(9, 0x4000, 0x1000, "/usr/lib/libstorm.so", PROT_EXEC, 2, 0), ST), 0);
	for (int i = 1; i <= 100000; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		CU_ASSERT_EQUAL_FATAL(fr_proctable__record(pt, comm(9, 9, name, (uint64_t)i * 10, 0), ST), 0);
	}
	p = find(pt, 9, 2000000);
	CU_ASSERT_FATAL(p != NULL);
	n = nr_comms(pt, p);
	CU_ASSERT(n >= 2048 && n <= 4096);
	for (int i = 100000 - (int)n + 2; i <= 100000; i++) {
		snprintf(want, sizeof(want), "r%d", i);
		CU_ASSERT_STRING_EQUAL_FATAL(comm_of(pt, p, (uint64_t)i * 10 + 5), want);
	}
	CU_ASSERT_FATAL(maps_of(pt, p, &v) == 1);
	CU_ASSERT_STRING_EQUAL(file_of(pt, v.m[0])->path, "/usr/lib/libstorm.so");
	fr_proctable__delete(pt);
}

/* ---- the report's rules as it feeds them (moved from the symbolizer's suite) ---- */

static void test_maps_time(void)
{
	struct fr_proctable *m;
	const struct fr_map *mp;
	uint8_t bid[3] = { 1, 2, 3 };

	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL);
	CU_ASSERT_EQUAL(fr_proctable__comm(m, 10, 10, 100, "a", false), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 100, 0x1000, 0x1000, 0, PROT_EXEC, "/A", bid, 3), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 200, 0x1000, 0x1000, 0, PROT_EXEC, "/B", NULL, 0), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 210, 0x8000, 0x100, 0, PROT_EXEC, "/A", bid, 3), 0);
	/* a mapping applies from its time on, the newest wins */
	CU_ASSERT_PTR_NULL(fr_proctable__find(m, 10, 50, 0x1800));
	mp = fr_proctable__find(m, 10, 150, 0x1800);
	CU_ASSERT_FATAL(mp != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, mp->dso)->path, "/A");
	mp = fr_proctable__find(m, 10, 250, 0x1800);
	CU_ASSERT_FATAL(mp != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, mp->dso)->path, "/B");
	CU_ASSERT_PTR_NULL(fr_proctable__find(m, 10, 250, 0x2000));
	/* the same file and build id is one dso */
	CU_ASSERT_EQUAL(fr_proctable__find(m, 10, 250, 0x8000)->dso, fr_proctable__find(m, 10, 150, 0x1000)->dso);
	CU_ASSERT_EQUAL(fr_proctable__nr_dsos(m), 2);
	/* fork at 260: the child sees the parent's mappings as of then */
	CU_ASSERT_EQUAL(fr_proctable__fork(m, 11, 11, 10, 10, 260), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 280, 0x5000, 0x1000, 0, PROT_EXEC, "/D", NULL, 0), 0);
	mp = fr_proctable__find(m, 11, 290, 0x1800);
	CU_ASSERT_FATAL(mp != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, mp->dso)->path, "/B");
	CU_ASSERT_PTR_NULL(fr_proctable__find(m, 11, 290, 0x5800));
	CU_ASSERT_PTR_NOT_NULL(fr_proctable__find(m, 10, 290, 0x5800));
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 11, 270, 0x1000, 0x1000, 0, PROT_EXEC, "/E", NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 11, 275, 0x1800)->dso)->path, "/E");
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 11, 265, 0x1800)->dso)->path, "/B");
	/* exec at 300: a new image, nothing mapped until its own MMAP2s */
	CU_ASSERT_EQUAL(fr_proctable__comm(m, 10, 10, 300, "b", true), 0);
	CU_ASSERT_PTR_NULL(fr_proctable__find(m, 10, 305, 0x1800));
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 310, 0x1000, 0x1000, 0, PROT_EXEC, "/C", NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 10, 350, 0x1800)->dso)->path, "/C");
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 10, 250, 0x1800)->dso)->path, "/B");
	/* names over time; a new thread starts with its creator's name */
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(m, 10, 150), "a");
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(m, 10, 350), "b");
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(m, 10, 50), "a");
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(m, 11, 270), "a");
	CU_ASSERT_EQUAL(fr_proctable__fork(m, 10, 12, 10, 10, 400), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(m, 12, 401), "b");
	CU_ASSERT_PTR_EQUAL(fr_proctable__thread_comm(m, 12, 401), fr_proctable__thread_comm(m, 10, 401));
	CU_ASSERT_PTR_NULL(fr_proctable__thread_comm(m, 99, 1));
	/* a thread's process: the forked process's own, a new thread's its creator's */
	CU_ASSERT_EQUAL(fr_proctable__thread_pid(m, 11), 11);
	CU_ASSERT_EQUAL(fr_proctable__thread_pid(m, 12), 10);
	CU_ASSERT_EQUAL(fr_proctable__thread_pid(m, 99), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 1, 0x1000, 0, 0, PROT_EXEC, "/X", NULL, 0), -EINVAL);
	fr_proctable__delete(m);
}



/* An exec learnt late (its COMM after its MMAP2s: read from another CPU's
 * ring, or made at the exec's end from sched_process_exec with the start
 * of its execve entry): the mappings from its start on are the new
 * image's, those before stay the old one's. */
static void test_exec_late(void)
{
	struct fr_proctable *m;

	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL);
	CU_ASSERT_EQUAL(fr_proctable__comm(m, 20, 20, 100, "sh", true), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 20, 110, 0x1000, 0x1000, 0, PROT_EXEC, "/sh", NULL, 0), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 20, 120, 0x9000, 0x1000, 0, PROT_EXEC, "/libc", NULL, 0), 0);
	/* execve entered at 200; its mappings at 210 and 220; its COMM seen last */
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 20, 210, 0x1000, 0x2000, 0, PROT_EXEC, "/prog", NULL, 0), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 20, 220, 0x7000, 0x1000, 0, PROT_EXEC, "/ld", NULL, 0), 0);
	CU_ASSERT_EQUAL(fr_proctable__comm(m, 20, 20, 200, "prog", true), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 20, 300, 0x1800)->dso)->path, "/prog");
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 20, 300, 0x7800)->dso)->path, "/ld");
	CU_ASSERT_PTR_NULL(fr_proctable__find(m, 20, 300, 0x9800));   /* the old image's libc */
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 20, 150, 0x1800)->dso)->path, "/sh");
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 20, 150, 0x9800)->dso)->path, "/libc");
	CU_ASSERT_PTR_NULL(fr_proctable__find(m, 20, 150, 0x7800));
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(m, 20, 150), "sh");
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(m, 20, 250), "prog");
	/* the same exec seen again (the kernel's own COMM, later in time, from
	 * the sample ring): only what was mapped after it moves */
	CU_ASSERT_EQUAL(fr_proctable__comm(m, 20, 20, 205, "prog", true), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 20, 300, 0x1800)->dso)->path, "/prog");
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, fr_proctable__find(m, 20, 300, 0x7800)->dso)->path, "/ld");
	fr_proctable__delete(m);
}

/* The span of times over which a lookup's answer holds: from the newest
 * mapping in force to the next one holding the address, bounded by the
 * process's generations (exec); every change moves the version. */
static void test_maps_span(void)
{
	struct fr_proctable *m;
	const struct fr_map *mp;
	uint64_t lo, hi, v;

	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL);
	CU_ASSERT_EQUAL(fr_proctable__comm(m, 10, 10, 100, "a", false), 0);
	v = fr_proctable__version(m);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 100, 0x1000, 0x1000, 0, PROT_EXEC, "/A", NULL, 0), 0);
	CU_ASSERT(fr_proctable__version(m) != v);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 200, 0x1000, 0x1000, 0, PROT_EXEC, "/B", NULL, 0), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(m, 10, 150, 0x4000, 0x1000, 0, PROT_EXEC, "/C", NULL, 0), 0);
	mp = fr_proctable__find_span(m, 10, 150, 0x1800, &lo, &hi);
	CU_ASSERT_FATAL(mp != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, mp->dso)->path, "/A");
	CU_ASSERT_EQUAL(lo, 100);
	CU_ASSERT_EQUAL(hi, 200);   /* /C at 150 does not hold 0x1800 */
	CU_ASSERT_PTR_NULL(fr_proctable__find_span(m, 10, 50, 0x1800, &lo, &hi));
	CU_ASSERT_EQUAL(lo, 0);
	CU_ASSERT_EQUAL(hi, 100);
	mp = fr_proctable__find_span(m, 10, 500, 0x1800, &lo, &hi);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, mp->dso)->path, "/B");
	CU_ASSERT_EQUAL(lo, 200);
	CU_ASSERT_EQUAL(hi, UINT64_MAX);
	/* exec at 300: the old image's answer ends there, the new one starts */
	v = fr_proctable__version(m);
	CU_ASSERT_EQUAL(fr_proctable__comm(m, 10, 10, 300, "b", true), 0);
	CU_ASSERT(fr_proctable__version(m) != v);
	mp = fr_proctable__find_span(m, 10, 250, 0x1800, &lo, &hi);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, mp->dso)->path, "/B");
	CU_ASSERT_EQUAL(lo, 200);
	CU_ASSERT_EQUAL(hi, 300);
	CU_ASSERT_PTR_NULL(fr_proctable__find_span(m, 10, 350, 0x1800, &lo, &hi));
	CU_ASSERT_EQUAL(lo, 300);
	CU_ASSERT_EQUAL(hi, UINT64_MAX);
	/* a forked child: its parent's answer as of the fork, for all its times */
	CU_ASSERT_EQUAL(fr_proctable__fork(m, 11, 11, 10, 10, 250), 0);
	mp = fr_proctable__find_span(m, 11, 260, 0x1800, &lo, &hi);
	CU_ASSERT_FATAL(mp != NULL);
	CU_ASSERT_STRING_EQUAL(fr_proctable__dso(m, mp->dso)->path, "/B");
	CU_ASSERT_EQUAL(lo, 0);   /* before its first generation: that one */
	CU_ASSERT_EQUAL(hi, UINT64_MAX);
	/* thread names: the same entry from one COMM to the next */
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm_span(m, 10, 320, &lo, &hi), "b");
	CU_ASSERT_EQUAL(lo, 300);
	CU_ASSERT_EQUAL(hi, UINT64_MAX);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm_span(m, 10, 299, &lo, &hi), "a");
	CU_ASSERT_EQUAL(lo, 0);
	CU_ASSERT_EQUAL(hi, 300);
	CU_ASSERT_PTR_NULL(fr_proctable__thread_comm_span(m, 77, 320, &lo, &hi));
	fr_proctable__delete(m);
}

/* ---- the rules both users rely on, run against the recorder's table and
 * the report's model alike ---- */

#define A 0x10000   /* where /bin/a, then /bin/c is mapped */
#define D 0x40000   /* where /bin/d is mapped after a fork */

static const char *path_at(const struct fr_proctable *pt, uint32_t pid, uint64_t t,
			   uint64_t addr)
{
	const struct fr_map *m = fr_proctable__find(pt, pid, t, addr);

	return m ? file_of(pt, m)->path : "";
}

static void shared_rules(struct fr_proctable *pt, bool report)
{
	const struct fr_proc *p;
	size_t exited;

	/* names over time: each from its COMM on, the earliest before the first */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(50, 50, "a", 10, 0), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(50, A, 0x1000, "/bin/a", PROT_EXEC, 11, 1), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(50, 50, "b", 20, 0), ST), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 50, 5), "a");
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 50, 15), "a");
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 50, 25), "b");
	CU_ASSERT_STRING_EQUAL(comm_of(pt, find(pt, 50, 25), 15), "a");
	/* a thread's own name: the report and the recorder keep it (in
	 * backward mode the file's COMM of it may be overwritten) */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(50, 51, "worker", 21, 0), ST), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 51, 22), "worker");
	/* exec at 30: a new image; the old one's mappings are gone from then on */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(50, 50, "c", 30, 1), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(50, A, 0x1000, "/bin/c", PROT_EXEC, 31, 3), ST), 0);
	CU_ASSERT_STRING_EQUAL(path_at(pt, 50, 25, A + 8), "/bin/a");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 50, 30, A + 8), "");   /* not mapped yet */
	CU_ASSERT_STRING_EQUAL(path_at(pt, 50, 35, A + 8), "/bin/c");
	CU_ASSERT_EQUAL(find(pt, 50, 25)->exit_time, 30);
	CU_ASSERT_EQUAL(find(pt, 50, 35)->start_time, 30);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, find(pt, 50, 35), 35), "c");
	/* fork at 40: the child is named as its parent then, and sees the
	 * parent's mappings as of the fork, not the ones after */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 60, 50, 60, 40), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(50, D, 0x1000, "/bin/d", PROT_EXEC, 50, 4), ST), 0);
	p = find(pt, 60, 41);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->ppid, 50);
	CU_ASSERT(p->forked);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 60, 41), "c");
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 41), "c");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 60, 45, A + 8), "/bin/c");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 60, 55, D + 8), "");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 50, 55, D + 8), "/bin/d");
	/* a fork by another thread: named as that thread */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 65, 50, 65, 42), ST), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 65, 43), "c");
	{
		uint32_t v[4] = { 66, 50, 66, 51 };   /* pid, ppid, tid, ptid */

		task(PERF_RECORD_FORK, 66, 50, 66, 43);
		memcpy(rbuf + 8, v, 16);
		CU_ASSERT_EQUAL(fr_proctable__record(pt, (const void *)rbuf, ST), 0);
		CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 66, 44), "worker");
	}
	/* exit at 70: the image ends; samples before it still resolve */
	exited = fr_proctable__nr_exited(pt);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 60, 50, 61, 69), ST), 0);
	CU_ASSERT_EQUAL(find(pt, 60, 69)->exit_time, 0);   /* a thread's exit */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 60, 50, 60, 70), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__nr_exited(pt), exited + 1);
	CU_ASSERT_EQUAL(find(pt, 60, 75)->exit_time, 70);
	CU_ASSERT_STRING_EQUAL(path_at(pt, 60, 65, A + 8), "/bin/c");
	/* a mapping after the exit: the pid was reused (its fork unseen) */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(60, D, 0x1000, "/bin/x", PROT_EXEC, 80, 5), ST), 0);
	CU_ASSERT_EQUAL(find(pt, 60, 85)->start_time, 80);
	CU_ASSERT_STRING_EQUAL(path_at(pt, 60, 85, D + 8), "/bin/x");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 60, 85, A + 8), "");
	/* a FORK read after the child's exec (two CPUs): the fork's image comes
	 * first and ends at the exec, which keeps its name and mappings */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(70, 70, "d", 100, 1), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(70, D, 0x1000, "/bin/e", PROT_EXEC, 101, 6), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 70, 50, 70, 90), ST), 0);
	p = find(pt, 70, 95);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->start_time, 90);
	CU_ASSERT_EQUAL(p->exit_time, 100);
	CU_ASSERT_EQUAL(p->ppid, 50);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 70, 95), "c");
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 70, 105), "d");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 70, 95, A + 8), "/bin/c");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 70, 95, D + 8), "/bin/d");   /* mapped before 90 */
	p = find(pt, 70, 105);
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL(p->start_time, 100);
	CU_ASSERT_EQUAL(p->exit_time, 0);
	CU_ASSERT_EQUAL(p->ppid, 50);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, p, 105), "d");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 70, 105, D + 8), "/bin/e");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 70, 105, A + 8), "");
	/* an exec keeping its name still names its new image (no merge with the
	 * old image's entry); a rename to the same name adds nothing */
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(90, 90, "same", 200, 0), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(90, 90, "same", 205, 0), ST), 0);
	CU_ASSERT_EQUAL(nr_comms(pt, find(pt, 90, 206)), 1);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(90, 90, "same", 210, 1), ST), 0);
	CU_ASSERT_EQUAL(nr_comms(pt, find(pt, 90, 215)), 1);
	CU_ASSERT_STRING_EQUAL(comm_of(pt, find(pt, 90, 215), 215), "same");
}

static void test_shared_rules(void)
{
	struct fr_proctable *rec = rec_table(), *rep = fr_proctable__new(NULL);

	CU_ASSERT_FATAL(rec != NULL && rep != NULL);
	shared_rules(rec, false);
	shared_rules(rep, true);
	fr_proctable__delete(rec);
	fr_proctable__delete(rep);
}

/* A parent that goes while its forked child stays: the child keeps what it
 * saw (gc copies it), in lookups and in the PROCS payload. */
static void test_gc_keeps_inherited(void)
{
	struct fr_proctable *pt = rec_table(), *back = fr_proctable__new(NULL);
	struct payloads pl = { .n = 0 };
	uint32_t child = 80;
	struct mapv v;

	CU_ASSERT_FATAL(pt != NULL && back != NULL);
	CU_ASSERT_EQUAL(add_proc(pt, 50, 1, "parent"), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(50, A, 0x1000, "/bin/c", PROT_EXEC, 10, 3), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 80, 50, 80, 20), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(80, D, 0x1000, "/lib/own.so", PROT_EXEC, 25, 4), ST), 0);
	CU_ASSERT_EQUAL(maps_of(pt, find(pt, 80, 30), &v), 2);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_EXIT, 50, 1, 50, 200), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__gc(pt, 300), 1);
	CU_ASSERT_PTR_NULL(find(pt, 50, 100));
	CU_ASSERT_STRING_EQUAL(path_at(pt, 80, 400, A + 8), "/bin/c");
	CU_ASSERT_STRING_EQUAL(path_at(pt, 80, 400, D + 8), "/lib/own.so");
	CU_ASSERT_STRING_EQUAL(comm_of(pt, find(pt, 80, 400), 400), "parent");
	CU_ASSERT_EQUAL(maps_of(pt, find(pt, 80, 400), &v), 2);
	/* the files the dropped images alone held are gone from the model */
	CU_ASSERT_EQUAL(fr_proctable__nr_dsos(pt), 2);
	CU_ASSERT_EQUAL(fr_proctable__serialize(pt, &child, 1, 1 << 20, collect, &pl), 0);
	CU_ASSERT_EQUAL_FATAL(pl.n, 1);
	CU_ASSERT_EQUAL(fr_proctable__parse(back, pl.data[0], pl.len[0]), 0);
	CU_ASSERT_STRING_EQUAL(path_at(back, 80, 400, A + 8), "/bin/c");
	CU_ASSERT_STRING_EQUAL(path_at(back, 80, 400, D + 8), "/lib/own.so");
	CU_ASSERT_FATAL(fr_proctable__find(back, 80, 400, A) != NULL);
	CU_ASSERT_EQUAL(file_of(back, fr_proctable__find(back, 80, 400, A))->build_id[0], 3);
	free(pl.data[0]);
	fr_proctable__delete(back);
	fr_proctable__delete(pt);
}

/* A PROCS payload from hostile bytes: counts past the end, a path longer
 * than what is left, a build id longer than 20 are refused; nothing of the
 * payload is added (not even the images before the bad one). */
static void test_parse_hostile(void)
{
	struct fr_proctable *pt = rec_table(), *back;
	struct payloads pl = { .n = 0 };
	uint8_t *b;

	CU_ASSERT_EQUAL(add_proc(pt, 9, 1, "x"), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, mmap2(9, A, 0x1000, "/bin/c", PROT_EXEC, 1, 3), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__serialize(pt, NULL, 0, 1 << 20, collect, &pl), 0);
	CU_ASSERT_EQUAL_FATAL(pl.n, 1);
	b = pl.data[0];
	/* header 8, image 32, one comm 24, then the map (path length at +60) */
	for (int k = 0; k < 4; k++) {
		uint8_t save[4];
		size_t at = k == 0 ? 4 : k == 1 ? 8 + 24 : k == 2 ? 8 + 28 : 8 + 32 + 24 + 60;

		memcpy(save, b + at, 4);
		memset(b + at, 0x7f, 4);
		back = fr_proctable__new(NULL);
		CU_ASSERT_EQUAL(fr_proctable__parse(back, b, pl.len[0]), -EBADMSG);
		CU_ASSERT_EQUAL(fr_proctable__nr(back), 0);   /* k 0: the 2nd is bad, the 1st goes too */
		fr_proctable__delete(back);
		memcpy(b + at, save, 4);
	}
	b[8 + 32 + 24 + 36] = 21;   /* build id size */
	back = fr_proctable__new(NULL);
	CU_ASSERT_EQUAL(fr_proctable__parse(back, b, pl.len[0]), -EBADMSG);
	CU_ASSERT_EQUAL(fr_proctable__nr(back), 0);
	fr_proctable__delete(back);
	free(pl.data[0]);
	fr_proctable__delete(pt);
}

/* A thread (not a main thread) that exits keeps its name for its samples
 * until the collection passes its exit; a tid used again lives anew. */
static void test_thread_exit_gc(void)
{
	struct fr_proctable *pt = rec_table();
	const struct fr_pcomm *c;

	CU_ASSERT_FATAL(pt != NULL);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, task(PERF_RECORD_FORK, 70, 1, 70, 10), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__record(pt, comm(70, 70, "server", 11, 0), ST), 0);
	CU_ASSERT_EQUAL(fr_proctable__fork(pt, 70, 71, 70, 70, 20), 0);
	CU_ASSERT_EQUAL(fr_proctable__comm(pt, 70, 71, 21, "worker-1", false), 0);
	CU_ASSERT_EQUAL(fr_proctable__exit(pt, 70, 71, 100), 0);
	CU_ASSERT_EQUAL(fr_proctable__nr_exited(pt), 1);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 71, 90), "worker-1");
	c = fr_proctable__thread_newest(pt, 71);
	CU_ASSERT(c && c->time == 21 && !strcmp(c->comm, "worker-1"));
	fr_proctable__gc(pt, 50);   /* a window from 50 still shows it */
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 71, 90), "worker-1");
	CU_ASSERT_EQUAL(fr_proctable__nr_exited(pt), 1);
	fr_proctable__gc(pt, 150);
	CU_ASSERT_PTR_NULL(fr_proctable__thread_comm(pt, 71, 90));
	CU_ASSERT_PTR_NULL(fr_proctable__thread_newest(pt, 71));
	CU_ASSERT_EQUAL(fr_proctable__nr_exited(pt), 0);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 70, 160), "server");
	/* the tid again, after an exit the collection has not passed */
	CU_ASSERT_EQUAL(fr_proctable__fork(pt, 70, 72, 70, 70, 200), 0);
	CU_ASSERT_EQUAL(fr_proctable__exit(pt, 70, 72, 210), 0);
	CU_ASSERT_EQUAL(fr_proctable__fork(pt, 70, 72, 70, 70, 220), 0);
	CU_ASSERT_EQUAL(fr_proctable__nr_exited(pt), 0);
	fr_proctable__gc(pt, 300);
	CU_ASSERT_STRING_EQUAL(fr_proctable__thread_comm(pt, 72, 230), "server");
	fr_proctable__delete(pt);
}

/* ---- PROCS payloads ordered against the parser (issue 32) ---- */

static uint8_t *put_img(uint8_t *b, uint32_t pid, uint64_t start, uint64_t exit_time,
			uint32_t nc, uint32_t nm)
{
	memset(b, 0, 32);
	memcpy(b, &pid, 4);
	memcpy(b + 8, &start, 8);
	memcpy(b + 16, &exit_time, 8);
	memcpy(b + 24, &nc, 4);
	memcpy(b + 28, &nm, 4);
	return b + 32;
}

/* One image of pid 5 with n names newest first and n mappings of one page
 * each at falling addresses (all mapped at time 1): every insert at the
 * front. The work of the inserts stays linear; the answers are right. */
#define HOSTILE_N 20000u

static void test_parse_against_order(void)
{
	size_t len = 8 + 32 + (size_t)HOSTILE_N * 24 + (size_t)HOSTILE_N * (64 + 4);
	uint8_t *pl = calloc(1, len), *b = pl + 8;
	struct fr_proctable *pt = fr_proctable__new(NULL);
	const struct fr_proc *p;
	uint32_t one = 1, plen = 4;
	char want[16];

	CU_ASSERT_FATAL(pl && pt);
	memcpy(pl, &one, 4);
	memcpy(pl + 4, &one, 4);
	b = put_img(b, 5, 0, 0, HOSTILE_N, HOSTILE_N);
	for (uint32_t i = 0; i < HOSTILE_N; i++, b += 24) {
		uint64_t t = 10 + (uint64_t)(HOSTILE_N - i) * 10;

		memcpy(b, &t, 8);
		snprintf((char *)b + 8, 16, "n%u", HOSTILE_N - i);
	}
	for (uint32_t i = 0; i < HOSTILE_N; i++, b += 68) {
		uint64_t t = 1, start = 0x10000000ull + (uint64_t)(HOSTILE_N - i) * 0x1000, l = 0x1000;

		memcpy(b, &t, 8);
		memcpy(b + 8, &start, 8);
		memcpy(b + 16, &l, 8);
		memcpy(b + 60, &plen, 4);
		memcpy(b + 64, "/lib", 4);
	}
	CU_ASSERT_EQUAL_FATAL((size_t)(b - pl), len);
	CU_ASSERT_EQUAL_FATAL(fr_proctable__parse(pt, pl, len), 0);
	CU_ASSERT(fr_proctable__steps(pt) <= 4ull * 2 * HOSTILE_N);   /* O(n^2): ~ n^2 / 2 */
	p = fr_proctable__proc_at(pt, 5, 10 + 777 * 10 + 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	snprintf(want, sizeof(want), "n%u", 777u);
	CU_ASSERT_STRING_EQUAL(fr_proctable__proc_comm(pt, p, 10 + 777 * 10 + 5), want);
	for (uint32_t k = 1; k <= HOSTILE_N; k += 997) {
		const struct fr_map *m = fr_proctable__find(pt, 5, 100, 0x10000000ull + k * 0x1000ull + 8);

		CU_ASSERT(m && m->start == 0x10000000ull + k * 0x1000ull);
	}
	fr_proctable__delete(pt);
	free(pl);
}

/* Many payloads, each one image of pid 6, the later ones starting earlier:
 * applied as one batch, the images go in start order, appended. */
static void test_batch_images_against_order(void)
{
	struct fr_procs_batch *bt = fr_procs_batch__new();
	struct fr_proctable *pt = fr_proctable__new(NULL);
	uint8_t pl[8 + 32];
	uint32_t one = 1;

	CU_ASSERT_FATAL(bt && pt);
	memcpy(pl, &one, 4);
	memcpy(pl + 4, &one, 4);
	for (uint32_t i = 0; i < HOSTILE_N; i++) {
		uint64_t start = 100 + (uint64_t)(HOSTILE_N - i) * 10;

		put_img(pl + 8, 6, start, start + 5, 0, 0);
		CU_ASSERT_EQUAL(fr_procs_batch__add(bt, pl, sizeof(pl)), 0);
	}
	pl[4] = 2;   /* claims 2 images, holds 1: refused whole */
	CU_ASSERT_EQUAL(fr_procs_batch__add(bt, pl, sizeof(pl)), -EBADMSG);
	CU_ASSERT_EQUAL(fr_procs_batch__apply(bt, pt), 0);
	CU_ASSERT_EQUAL(fr_proctable__nr(pt), HOSTILE_N);
	CU_ASSERT(fr_proctable__steps(pt) <= 2ull * HOSTILE_N);
	CU_ASSERT(fr_proctable__proc_at(pt, 6, 100 + 4321 * 10 + 2) &&
		  fr_proctable__proc_at(pt, 6, 100 + 4321 * 10 + 2)->start_time == 100 + 4321 * 10);
	fr_procs_batch__delete(bt);
	fr_proctable__delete(pt);
}

static const struct fr_test tests[] = {
	{ "fork, exec, rename, map, exit, reuse, gc", test_lifecycle },
	{ "PROCS payload: round trip, truncation, splitting", test_serialize },
	{ "scan /proc/self", test_scan_self },
	{ "build id read from the ELF file", test_build_id_fallback },
	{ "a rename storm keeps a bounded history", test_rename_storm },
	{ "a rename storm's repools keep every name and path", test_rename_storm_repools },
	{ "an exec learnt after its mappings", test_exec_late },
	{ "maps over time", test_maps_time },
	{ "maps: the time span of an answer", test_maps_span },
	{ "shared rules: names, exec, fork, exit, a fork read after the exec", test_shared_rules },
	{ "gc: a child keeps what it saw of a parent that goes", test_gc_keeps_inherited },
	{ "PROCS payload: hostile counts and lengths", test_parse_hostile },
	{ "a thread's exit: named until the collection passes it", test_thread_exit_gc },
	{ "PROCS payload ordered against the parser: linear inserts", test_parse_against_order },
	{ "PROCS batch: images of many payloads against the order", test_batch_images_against_order },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "proctable", NULL, NULL, tests };
