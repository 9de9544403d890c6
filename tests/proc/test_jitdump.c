/* tests/proc/test_jitdump.c: CUnit suite for jitdump files (src/proc/jitdump.c)
 * and their collection into perf maps (src/proc/perfmap_collect.c): fixture
 * bytes as V8 writes them, loads and moves handed out, records skipped and
 * counted, a dump parsed at every split point and cut at every byte, every
 * flipped byte, files read on from their offset (a cut last record finished
 * later), refused files, and a perf map written at exit found once its
 * process is gone.
 */
#include "tests/cunit.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/proc/jitdump.h"
#include "src/proc/perfmap.h"

/* A dump's start as node 20 writes it: its header as written (x86-64, pid
 * 0x5f86), then a code load of one of its builtins with 4 code bytes. */
static const uint8_t v8_head[] = {
	0x44, 0x54, 0x69, 0x4a, 0x01, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00, 0x3e, 0x00, 0x00, 0x00,
	0xef, 0xbe, 0xad, 0xde, 0x86, 0x5f, 0x00, 0x00, 0xa4, 0xd0, 0x1d, 0x8f, 0xd3, 0x61, 0x06, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* JIT_CODE_LOAD, 0x58 bytes */
	0x00, 0x00, 0x00, 0x00, 0x58, 0x00, 0x00, 0x00, 0x5c, 0xf1, 0x7f, 0xc0, 0x7c, 0x0f, 0x00, 0x00,
	0x86, 0x5f, 0x00, 0x00, 0x86, 0x5f, 0x00, 0x00, 0x00, 0x40, 0x8c, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x40, 0x8c, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	'B', 'u', 'i', 'l', 't', 'i', 'n', ':', 'D', 'e', 'o', 'p', 't', 'i', 'm', 'i', 'z', 'a',
	't', 'i', 'o', 'n', 'E', 'n', 't', 'r', 'y', 0x00,
	0x48, 0x81, 0xec, 0x80,
};

/* ---- a dump built record by record ---- */
struct dump {
	uint8_t b[16384];
	size_t n;
};

static void put(struct dump *d, const void *p, size_t len)
{
	CU_ASSERT_FATAL(d->n + len <= sizeof(d->b));
	memcpy(d->b + d->n, p, len);
	d->n += len;
}

static void put32(struct dump *d, uint32_t v)
{
	put(d, &v, 4);
}

static void put64(struct dump *d, uint64_t v)
{
	put(d, &v, 8);
}

static void hdr(struct dump *d, uint32_t magic, uint32_t version, uint32_t size)
{
	put32(d, magic);
	put32(d, version);
	put32(d, size);
	put32(d, 62);
	put32(d, 0);
	put32(d, 1234);
	put64(d, 1);
	put64(d, 0);
	for (uint32_t i = 40; i < size && i < 256; i++)
		put(d, "", 1);
}

static void rec(struct dump *d, uint32_t id, uint32_t size)
{
	put32(d, id);
	put32(d, size);
	put64(d, 99);
}

static void code_load(struct dump *d, uint64_t addr, uint64_t size, const char *name)
{
	size_t nl = strlen(name) + 1;

	rec(d, FR_JIT_CODE_LOAD, (uint32_t)(16 + 40 + nl + size));
	put32(d, 1234);
	put32(d, 1234);
	put64(d, addr);
	put64(d, addr);
	put64(d, size);
	put64(d, 7);
	put(d, name, nl);
	for (uint64_t i = 0; i < size; i++)
		put(d, "\xc3", 1);
}

static void code_move(struct dump *d, uint64_t from, uint64_t to, uint64_t size)
{
	rec(d, FR_JIT_CODE_MOVE, 16 + 48);
	put32(d, 1234);
	put32(d, 1234);
	put64(d, to);
	put64(d, from);
	put64(d, to);
	put64(d, size);
	put64(d, 7);
}

/* A dump of every kind of record: 3 loads and a move handed out, 3 skipped. */
static void sample_dump(struct dump *d)
{
	d->n = 0;
	hdr(d, FR_JITDUMP_MAGIC, 1, 40);
	code_load(d, 0x1000, 0x40, "JS:*hotLoopAlpha /tmp/hot.js:1:22");
	rec(d, FR_JIT_CODE_DEBUG_INFO, 16 + 16 + 24);   /* code_addr, 1 entry */
	put64(d, 0x1000);
	put64(d, 1);
	put64(d, 0x1004);
	put32(d, 1);
	put32(d, 0);
	put(d, "hot.js\0", 8);
	code_load(d, 0x2000, 0x10, "Builtin:Abort");
	code_move(d, 0x1000, 0x9000, 0x40);
	code_move(d, 0x5555, 0x6000, 0x40);       /* never loaded: nothing */
	rec(d, 9, 24);                               /* unknown: skipped */
	put64(d, 0);
	rec(d, FR_JIT_CODE_LOAD, 16 + 40 + 4);      /* no NUL in the record: skipped */
	put64(d, 0);
	put64(d, 0x3000);
	put64(d, 0x3000);
	put64(d, 8);
	put64(d, 0);
	put(d, "abcd", 4);
	rec(d, FR_JIT_CODE_MOVE, 16 + 8);          /* too short for a move: skipped */
	put64(d, 0);
	code_load(d, 0x3000, 0x8, "x");
	rec(d, FR_JIT_CODE_CLOSE, 16);
}

struct got {
	size_t n;
	uint64_t start[64], size[64];
	char name[64][64];
};

static int got_cb(void *ctx, uint64_t start, uint64_t size, const char *name, size_t len,
		  const char **kept)
{
	struct got *g = ctx;

	CU_ASSERT_FATAL(g->n < 64);
	CU_ASSERT(len > 0 && len < 64 && memchr(name, '\0', len) == NULL);
	g->start[g->n] = start;
	g->size[g->n] = size;
	snprintf(g->name[g->n], 64, "%.*s", (int)len, name);
	*kept = g->name[g->n];
	g->n++;
	return 0;
}

static void test_fixture(void)
{
	struct fr_jitdump d;
	struct got g = { 0 };

	fr_jitdump__init(&d);
	CU_ASSERT_EQUAL(fr_jitdump__parse(&d, v8_head, sizeof(v8_head), sizeof(v8_head), got_cb, &g), 0);
	CU_ASSERT(d.header);
	CU_ASSERT_EQUAL(d.off, sizeof(v8_head));
	CU_ASSERT_EQUAL(g.n, 1);
	CU_ASSERT_EQUAL(g.start[0], 0x18c4000);
	CU_ASSERT_EQUAL(g.size[0], 4);
	CU_ASSERT_STRING_EQUAL(g.name[0], "Builtin:DeoptimizationEntry");
	CU_ASSERT_EQUAL(d.tail, 0);
	fr_jitdump__exit(&d);
	/* code bytes past the buffer, the record whole in the file: its name
	 * read, the rest skipped */
	{
		struct dump *dp = malloc(sizeof(*dp));

		CU_ASSERT_FATAL(dp != NULL);
		dp->n = 0;
		hdr(dp, FR_JITDUMP_MAGIC, 1, 40);
		code_load(dp, 0x5000, 8000, "big");
		fr_jitdump__init(&d);
		g.n = 0;
		CU_ASSERT_EQUAL(fr_jitdump__parse(&d, dp->b, 40 + 56 + 4 + 100, dp->n, got_cb, &g), 0);
		CU_ASSERT_EQUAL(g.n, 1);
		CU_ASSERT_EQUAL(d.off, dp->n);
		fr_jitdump__exit(&d);
		free(dp);
	}
	/* the record not whole in the file: left, its bytes so far counted */
	fr_jitdump__init(&d);
	g.n = 0;
	CU_ASSERT_EQUAL(fr_jitdump__parse(&d, v8_head, sizeof(v8_head) - 1, sizeof(v8_head) - 1, got_cb, &g), 0);
	CU_ASSERT_EQUAL(g.n, 0);
	CU_ASSERT_EQUAL(d.off, 40);
	CU_ASSERT_EQUAL(d.tail, sizeof(v8_head) - 41);
	fr_jitdump__exit(&d);
	CU_ASSERT(fr_jitdump__is_dump_name("/tmp/x/jit-24454.dump"));
	CU_ASSERT(fr_jitdump__is_dump_name("jit-1.dump"));
	CU_ASSERT(!fr_jitdump__is_dump_name("/tmp/jit-.dump"));
	CU_ASSERT(!fr_jitdump__is_dump_name("/tmp/jit-12.dump (deleted)"));
	CU_ASSERT(!fr_jitdump__is_dump_name("/tmp/jit-12x.dump"));
	CU_ASSERT(!fr_jitdump__is_dump_name("/jit-12.dump/x"));
}

static void check_sample(const struct got *g, const struct fr_jitdump *d)
{
	CU_ASSERT_EQUAL(g->n, 4);
	CU_ASSERT_STRING_EQUAL(g->name[0], "JS:*hotLoopAlpha /tmp/hot.js:1:22");
	CU_ASSERT_EQUAL(g->start[1], 0x2000);
	CU_ASSERT_EQUAL(g->size[1], 0x10);
	CU_ASSERT_EQUAL(g->start[2], 0x9000);   /* the move: the loaded name, new place */
	CU_ASSERT_EQUAL(g->size[2], 0x40);
	CU_ASSERT_STRING_EQUAL(g->name[2], "JS:*hotLoopAlpha /tmp/hot.js:1:22");
	CU_ASSERT_STRING_EQUAL(g->name[3], "x");
	CU_ASSERT_EQUAL(d->loads, 3);
	CU_ASSERT_EQUAL(d->moves, 1);
	CU_ASSERT_EQUAL(d->skipped, 3);
}

/* Whole, and in two parts at every split (as a growing file is read). */
static void test_records(void)
{
	struct dump *dp = malloc(sizeof(*dp));
	struct fr_jitdump d;
	struct got g;

	CU_ASSERT_FATAL(dp != NULL);
	sample_dump(dp);
	for (size_t cut = 0; cut <= dp->n; cut++) {
		fr_jitdump__init(&d);
		memset(&g, 0, sizeof(g));
		CU_ASSERT_EQUAL(fr_jitdump__parse(&d, dp->b, cut, cut, got_cb, &g), 0);
		CU_ASSERT(d.off <= cut);
		CU_ASSERT(cut < 40 || d.off + d.tail == cut);
		CU_ASSERT_EQUAL(fr_jitdump__parse(&d, dp->b + d.off, dp->n - d.off, dp->n - d.off,
						  got_cb, &g), 0);
		CU_ASSERT_EQUAL(d.off, dp->n);
		CU_ASSERT_EQUAL(d.tail, 0);
		check_sample(&g, &d);
		fr_jitdump__exit(&d);
	}
	free(dp);
}

static void test_hostile(void)
{
	struct dump *dp = malloc(sizeof(*dp));
	struct fr_jitdump d;
	struct got g = { 0 };
	static const struct { uint32_t magic, version, size; } bad[] = {
		{ 0x4454694Au, 1, 40 },            /* the other byte order */
		{ 0x12345678u, 1, 40 },
		{ FR_JITDUMP_MAGIC, 2, 40 },
		{ FR_JITDUMP_MAGIC, 1, 39 },
		{ FR_JITDUMP_MAGIC, 1, 5000 },
	};

	CU_ASSERT_FATAL(dp != NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dp->n = 0;
		hdr(dp, bad[i].magic, bad[i].version, bad[i].size);
		code_load(dp, 0x1000, 4, "f");
		fr_jitdump__init(&d);
		CU_ASSERT_EQUAL(fr_jitdump__parse(&d, dp->b, dp->n, dp->n, got_cb, &g), -EINVAL);
		CU_ASSERT(d.refused);
		CU_ASSERT_EQUAL(fr_jitdump__parse(&d, dp->b, dp->n, dp->n, got_cb, &g), -EINVAL);
		fr_jitdump__exit(&d);
	}
	CU_ASSERT_EQUAL(g.n, 0);
	/* a longer header (newer fields): skipped over */
	dp->n = 0;
	hdr(dp, FR_JITDUMP_MAGIC, 1, 64);
	code_load(dp, 0x1000, 4, "f");
	fr_jitdump__init(&d);
	CU_ASSERT_EQUAL(fr_jitdump__parse(&d, dp->b, dp->n, dp->n, got_cb, &g), 0);
	CU_ASSERT_EQUAL(g.n, 1);
	fr_jitdump__exit(&d);
	/* a record shorter than its header: the framing is lost */
	dp->n = 0;
	hdr(dp, FR_JITDUMP_MAGIC, 1, 40);
	rec(dp, FR_JIT_CODE_LOAD, 8);
	code_load(dp, 0x1000, 4, "f");
	fr_jitdump__init(&d);
	CU_ASSERT_EQUAL(fr_jitdump__parse(&d, dp->b, dp->n, dp->n, got_cb, &g), -EINVAL);
	CU_ASSERT(d.refused);
	fr_jitdump__exit(&d);
	/* a name longer than the cap; a wrapping range: skipped */
	dp->n = 0;
	hdr(dp, FR_JITDUMP_MAGIC, 1, 40);
	{
		char *longname = malloc(FR_JITDUMP_NAME_MAX + 2);

		CU_ASSERT_FATAL(longname != NULL);
		memset(longname, 'n', FR_JITDUMP_NAME_MAX + 1);
		longname[FR_JITDUMP_NAME_MAX + 1] = '\0';
		code_load(dp, 0x1000, 4, longname);
		free(longname);
	}
	code_load(dp, UINT64_MAX - 1, 4, "wraps");
	fr_jitdump__init(&d);
	g.n = 0;
	CU_ASSERT_EQUAL(fr_jitdump__parse(&d, dp->b, dp->n, dp->n, got_cb, &g), 0);
	CU_ASSERT_EQUAL(g.n, 0);
	CU_ASSERT_EQUAL(d.skipped, 2);
	fr_jitdump__exit(&d);
	/* every flipped byte of the sample: parsed or refused, never past it */
	sample_dump(dp);
	for (size_t i = 0; i < dp->n; i++) {
		dp->b[i] ^= 0xff;
		fr_jitdump__init(&d);
		g.n = 0;
		fr_jitdump__parse(&d, dp->b, dp->n, dp->n, got_cb, &g);
		CU_ASSERT(d.off <= dp->n);
		fr_jitdump__exit(&d);
		dp->b[i] ^= 0xff;
	}
	free(dp);
}

static void write_bytes(const char *path, const void *p, size_t len, const char *mode)
{
	FILE *f = fopen(path, mode);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fwrite(p, 1, len, f), len);
	fclose(f);
}

struct blob {
	struct fr_perfmaps *pm;
	int err;
};

static int blob_cb(void *ctx, const void *data, size_t len)
{
	struct blob *b = ctx;

	return b->err = fr_perfmap__decode(b->pm, data, len);
}

/* The process's own dump, as it maps it: read on as it grows (a record cut
 * at the end finished later), into the PERFMAP blob with the perf map's
 * entries; a symlink refused. */
static void test_collect(void)
{
	struct dump *dp = malloc(sizeof(*dp));
	char dir[] = "/tmp/fr-jitdump-XXXXXX", path[128], link[128];
	uint32_t pid = (uint32_t)getpid();
	struct fr_perfmaps *pm;
	struct fr_perfmap_stats st;
	struct blob b = { NULL, 0 };
	size_t half;

	CU_ASSERT_FATAL(dp != NULL && mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/jit-%u.dump", dir, pid);
	snprintf(link, sizeof(link), "%s/jit-1.dump", dir);
	sample_dump(dp);
	half = dp->n - 20;   /* inside the last load */
	write_bytes(path, dp->b, half, "w");
	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	CU_ASSERT_EQUAL(fr_perfmap__collect_dump(pm, pid, path), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 3);
	CU_ASSERT(st.dump.tail > 0);
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, pid, 0x9004)->name,
			       "JS:*hotLoopAlpha /tmp/hot.js:1:22");
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, pid, 0x3004));
	/* the blob counts the cut record as skipped */
	CU_ASSERT_FATAL(fr_perfmaps__new(&b.pm) == 0);
	CU_ASSERT_EQUAL(fr_perfmap__encode(pm, &pid, 1, 1 << 16, blob_cb, &b), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(b.pm, pid, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 3);
	CU_ASSERT_EQUAL(st.skipped, 3 + 1);
	fr_perfmaps__delete(b.pm);
	/* the rest written: only the new record read */
	write_bytes(path, dp->b + half, dp->n - half, "a");
	CU_ASSERT_EQUAL(fr_perfmap__collect_dump(pm, pid, path), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 4);
	CU_ASSERT_EQUAL(st.dump.read, dp->n);
	CU_ASSERT_EQUAL(st.dump.tail, 0);
	CU_ASSERT_EQUAL(st.dump.skipped, 3);
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, pid, 0x3004)->name, "x");
	CU_ASSERT_EQUAL(fr_perfmap__collect_dump(pm, pid, path), 0);   /* nothing new */
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 4);
	/* the perf map beside it replaced: read again, and the dump with it */
	{
		char map[64];

		snprintf(map, sizeof(map), "/tmp/perf-%u.map", pid);
		write_bytes(map, "7000 10 m1\n", 11, "w");
		CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);
		CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
		CU_ASSERT_EQUAL(st.entries, 5);
		unlink(map);
		write_bytes(map, "7100 10 m2\n", 11, "w");
		CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);
		CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
		CU_ASSERT_EQUAL(st.entries, 1);
		CU_ASSERT_EQUAL(fr_perfmap__collect_dump(pm, pid, path), 0);
		CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
		CU_ASSERT_EQUAL(st.entries, 5);
		CU_ASSERT_PTR_NOT_NULL(fr_perfmaps__find(pm, pid, 0x2004));
		CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, pid, 0x7004));
		unlink(map);
	}
	fr_perfmaps__forget(pm, pid);
	/* a symlink to it: refused */
	CU_ASSERT_EQUAL(symlink(path, link), 0);
	CU_ASSERT_EQUAL(fr_perfmap__collect_dump(pm, pid, link), 0);
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, pid, 0x2004));
	/* no such file, no such process: no error */
	CU_ASSERT_EQUAL(fr_perfmap__collect_dump(pm, pid, "/nonexistent/jit-1.dump"), 0);
	CU_ASSERT_EQUAL(fr_perfmap__collect_dump(pm, 0x7ffffff0u, path), 0);
	unlink(link);
	unlink(path);
	rmdir(dir);
	fr_perfmaps__delete(pm);
	free(dp);
}

/* A dump read into a set whose budget fills: the pool rebuilt twice, the
 * loaded code's names (kept for its moves) follow; a move of code whose
 * entry went is unnamed; a move that itself fills the budget names its code
 * with the name it had in the pool just replaced. */
static void test_budget(void)
{
	struct dump *dp = calloc(1, sizeof(*dp));
	char dir[] = "/tmp/fr-jitdump-XXXXXX", path[128], name[16];
	uint32_t pid = (uint32_t)getpid();
	struct fr_perfmaps *pm;
	struct fr_perfmap_budget st;
	struct fr_perfmap_stats ps;
	uint64_t c;
	size_t used;
	unsigned f = 0;

	CU_ASSERT_FATAL(dp != NULL && mkdtemp(dir) != NULL);
	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);   /* one entry of an 8-byte name */
	CU_ASSERT_EQUAL(fr_perfmaps__add_text(pm, 1, "1 1 abcdefgh\n", 13, &used), 0);
	fr_perfmaps__budget_stats(pm, &st);
	c = st.held;
	fr_perfmaps__delete(pm);
	snprintf(path, sizeof(path), "%s/jit-%u.dump", dir, pid);
	hdr(dp, FR_JITDUMP_MAGIC, 1, 40);
	code_load(dp, 0x1000, 4, "early_aa");                /* seq 0 */
	for (; f < 5; f++) {                                   /* 1..5 */
		snprintf(name, sizeof(name), "fill_%03u", f);
		code_load(dp, 0x10000 + f * 0x10, 4, name);
	}
	code_load(dp, 0x2000, 4, "late_bbb");                /* 6 */
	/* 7..19: full; 20: the 6 oldest go (early_aa, fill_000..004), 14 +
	 * 1 held; 21..25: full again */
	for (; f < 24; f++) {
		snprintf(name, sizeof(name), "fill_%03u", f);
		code_load(dp, 0x10000 + f * 0x10, 4, name);
	}
	code_move(dp, 0x2000, 0x6000, 4);   /* 26: 6..11 go (late_bbb, fill_005..009) */
	code_move(dp, 0x1000, 0x5000, 4);   /* its load went at the first: unnamed */
	code_move(dp, 0x6000, 0x7000, 4);   /* the moved code moves on */
	write_bytes(path, dp->b, dp->n, "w");
	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	fr_perfmaps__set_budget(pm, 20 * c);
	CU_ASSERT_EQUAL(fr_perfmap__collect_dump(pm, pid, path), 0);
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT_EQUAL(st.compactions, 2);
	CU_ASSERT_EQUAL(st.dropped, 12);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &ps), 0);
	CU_ASSERT_EQUAL(ps.entries, 16);
	CU_ASSERT_EQUAL(st.held, 16 * c);
	CU_ASSERT_EQUAL(ps.dump.entries, 28);   /* 26 loads, 2 moves named (of 3) */
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, pid, 0x1002));
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, pid, 0x2002));
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, pid, 0x5002));
	CU_ASSERT_FATAL(fr_perfmaps__find(pm, pid, 0x6002) != NULL);
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, pid, 0x6002)->name, "late_bbb");
	CU_ASSERT_FATAL(fr_perfmaps__find(pm, pid, 0x7002) != NULL);
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, pid, 0x7002)->name, "late_bbb");
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, pid, 0x10000 + 9 * 0x10 + 2));
	CU_ASSERT_FATAL(fr_perfmaps__find(pm, pid, 0x10000 + 10 * 0x10 + 2) != NULL);
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, pid, 0x10000 + 10 * 0x10 + 2)->name,
			       "fill_010");
	CU_ASSERT_FATAL(fr_perfmaps__find(pm, pid, 0x10000 + 23 * 0x10 + 2) != NULL);
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, pid, 0x10000 + 23 * 0x10 + 2)->name,
			       "fill_023");
	unlink(path);
	rmdir(dir);
	fr_perfmaps__delete(pm);
	free(dp);
}

/* A process seen running without a map that writes one as it exits (a JVM's
 * DumpPerfMapAtExit): read from the collector's /tmp once it is gone; a map
 * older than the sighting (another process's) is not. */
static void test_map_at_exit(void)
{
	int go[2];
	char path[64], c = 0;
	struct fr_perfmaps *pm;
	uint32_t pid;
	pid_t child;

	for (int stale = 0; stale < 2; stale++) {
		CU_ASSERT_FATAL(pipe(go) == 0);
		child = fork();
		CU_ASSERT_FATAL(child >= 0);
		if (child == 0) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
			write_bytes(path, "9000 10 at_exit\n", 16, "w");
			if (stale) {
				struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };

				utimensat(AT_FDCWD, path, old, 0);
			}
			_exit(0);
		}
		close(go[0]);
		pid = (uint32_t)child;
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
		unlink(path);
		CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
		CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);   /* running, no map */
		CU_ASSERT(!fr_perfmaps__has(pm, pid));
		CU_ASSERT_EQUAL(write(go[1], "g", 1), 1);
		waitpid(child, NULL, 0);
		CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);
		CU_ASSERT_EQUAL(fr_perfmaps__find(pm, pid, 0x9004) != NULL, !stale);
		unlink(path);
		close(go[1]);
		fr_perfmaps__delete(pm);
	}
}

static const struct fr_test tests[] = {
	{ "fixture: V8's header and first load; code bytes past the buffer; a cut record", test_fixture },
	{ "records: loads, moves, skipped kinds, split at every byte", test_records },
	{ "hostile: bad headers, lost framing, long names, every flipped byte", test_hostile },
	{ "collect: a growing dump read on, the PERFMAP blob, a symlink refused", test_collect },
	{ "collect: a perf map written at exit, a stale one not read", test_map_at_exit },
	{ "budget: the pool rebuilt under a dump's loads and moves", test_budget },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "jitdump", NULL, NULL, tests };
