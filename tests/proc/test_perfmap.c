/* tests/proc/test_perfmap.c: CUnit suite for JIT perf maps (src/proc/perfmap.c):
 * the text parser (malformed lines counted, partial lines left), lookups (the
 * last written wins), the PERFMAP payload both ways (round trip, split
 * payloads, every cut, every flipped byte), and reading files as hostile
 * input (symlinks, not regular files, a growing map read from its offset, a
 * replaced map read again, the process's own map found through /proc), and
 * the one budget of every pid's entries (the oldest dropped first, in
 * batches, the maps of processes gone before them, the pool rebuilt).
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

#include "src/proc/perfmap.h"

static const char text[] =
	"1000 100 JS:*hotLoopAlpha /tmp/hot.js:2:22\n"
	"0x2000 0x20 Builtin:ArgumentsAdaptorTrampoline\n"
	"garbage line\n"
	"3000 zz bad size\n"
	"4000 10\n"
	"\n"
	"ffffffffffffffff 2 wraps\n"
	"1000 100 JS:~hotLoopAlpha /tmp/hot.js:2:22\n"   /* the same start again: wins */
	"1080 8 inner\r\n"
	"5000 40 partial";                                /* no line break yet */

static void test_text(void)
{
	struct fr_perfmaps *pm;
	const struct fr_perfmap_entry *e;
	struct fr_perfmap_stats st;
	size_t used;

	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	CU_ASSERT_EQUAL(fr_perfmaps__add_text(pm, 42, text, sizeof(text) - 1, &used), 0);
	CU_ASSERT_EQUAL(used, (size_t)(strrchr(text, '\n') + 1 - text));
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, 42, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 4);
	CU_ASSERT_EQUAL(st.skipped, 4);   /* garbage, bad size, no name, wraps */
	e = fr_perfmaps__find(pm, 42, 0x1010);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_STRING_EQUAL(e->name, "JS:~hotLoopAlpha /tmp/hot.js:2:22");
	e = fr_perfmaps__find(pm, 42, 0x1084);   /* inside both: the nearer start */
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_STRING_EQUAL(e->name, "inner");   /* \r dropped */
	e = fr_perfmaps__find(pm, 42, 0x1090);   /* past inner: the older, longer one */
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(e->start, 0x1000);
	CU_ASSERT_PTR_NOT_NULL(fr_perfmaps__find(pm, 42, 0x201f));
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, 42, 0x2020));
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, 42, 0xfff));
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, 43, 0x1010));
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, 42, 0x5010));   /* the partial line */
	CU_ASSERT(fr_perfmaps__has(pm, 42));
	CU_ASSERT(!fr_perfmaps__has(pm, 43));
	fr_perfmaps__delete(pm);
}

struct payloads {
	uint8_t *buf[64];
	size_t len[64], n;
};

static int keep(void *ctx, const void *data, size_t len)
{
	struct payloads *p = ctx;

	CU_ASSERT_FATAL(p->n < 64);
	p->buf[p->n] = malloc(len);
	CU_ASSERT_FATAL(p->buf[p->n] != NULL);
	memcpy(p->buf[p->n], data, len);
	p->len[p->n++] = len;
	return 0;
}

static void free_payloads(struct payloads *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->buf[i]);
	p->n = 0;
}

/* A set of two pids, 300 entries each. */
static struct fr_perfmaps *sample_set(void)
{
	struct fr_perfmaps *pm;
	char line[128];
	size_t used;

	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	for (uint32_t pid = 100; pid <= 101; pid++) {
		for (int i = 0; i < 300; i++) {
			snprintf(line, sizeof(line), "%x %x fn_%u_%d\n", 0x10000 + i * 0x100, 0x80, pid, i);
			CU_ASSERT_EQUAL(fr_perfmaps__add_text(pm, pid, line, strlen(line), &used), 0);
		}
		CU_ASSERT_EQUAL(fr_perfmaps__add_text(pm, pid, "bad\n", 4, &used), 0);
	}
	return pm;
}

static void check_set(struct fr_perfmaps *pm)
{
	struct fr_perfmap_stats st;
	char want[64];

	for (uint32_t pid = 100; pid <= 101; pid++) {
		CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
		CU_ASSERT_EQUAL(st.entries, 300);
		CU_ASSERT_EQUAL(st.skipped, 1);
		for (int i = 0; i < 300; i += 37) {
			const struct fr_perfmap_entry *e = fr_perfmaps__find(pm, pid, 0x10000 + i * 0x100 + 5);

			snprintf(want, sizeof(want), "fn_%u_%d", pid, i);
			CU_ASSERT_FATAL(e != NULL);
			CU_ASSERT_STRING_EQUAL(e->name, want);
			CU_ASSERT_EQUAL(e->size, 0x80);
		}
	}
}

/* What one entry of an 8-byte name takes of the budget. */
static uint64_t cost8(void)
{
	struct fr_perfmaps *pm;
	struct fr_perfmap_budget st;
	size_t used;

	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	CU_ASSERT_EQUAL(fr_perfmaps__add_text(pm, 1, "1 1 abcdefgh\n", 13, &used), 0);
	fr_perfmaps__budget_stats(pm, &st);
	fr_perfmaps__delete(pm);
	CU_ASSERT_FATAL(st.held > 9);
	return st.held;
}

/* Entry i of pid: at 0x10000 + i * 0x100, named "f%03u_%03u" (8 bytes and
 * more: pid, i), or "same" + i (8 bytes) for every pid alike (interned once). */
static void add_ent(struct fr_perfmaps *pm, uint32_t pid, unsigned i, bool shared)
{
	char line[64];
	size_t used;

	if (shared)
		snprintf(line, sizeof(line), "%x 80 same%04u\n", 0x10000 + i * 0x100, i % 10000);
	else
		snprintf(line, sizeof(line), "%x 80 f%03u_%03u\n", 0x10000 + i * 0x100, pid % 1000,
			 i % 1000);
	CU_ASSERT_EQUAL(fr_perfmaps__add_text(pm, pid, line, strlen(line), &used), 0);
	CU_ASSERT_EQUAL(used, strlen(line));
}

static bool named(struct fr_perfmaps *pm, uint32_t pid, unsigned i, bool shared)
{
	const struct fr_perfmap_entry *e = fr_perfmaps__find(pm, pid, 0x10000 + i * 0x100 + 4);
	char want[32];

	if (!e)
		return false;
	if (shared)
		snprintf(want, sizeof(want), "same%04u", i % 10000);
	else
		snprintf(want, sizeof(want), "f%03u_%03u", pid % 1000, i % 1000);
	CU_ASSERT_STRING_EQUAL(e->name, want);   /* whole, after every pool rebuilt */
	CU_ASSERT_EQUAL(e->start, 0x10000 + i * 0x100);
	return true;
}

/* A budget of 100 entries filled, then newer entries: the oldest go, in a
 * batch down to 3/4 of it, the newest stay named, the count is exact and
 * what is held never passes the budget. */
static void test_budget_oldest(void)
{
	uint64_t c = cost8();
	struct fr_perfmaps *pm;
	struct fr_perfmap_budget st;
	struct fr_perfmap_stats ps;

	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	fr_perfmaps__set_budget(pm, 100 * c);
	for (unsigned i = 0; i < 100; i++)
		add_ent(pm, 7, i, false);
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT_EQUAL(st.held, 100 * c);
	CU_ASSERT_EQUAL(st.dropped, 0);
	CU_ASSERT_EQUAL(st.budget, 100 * c);
	CU_ASSERT(named(pm, 7, 0, false));
	/* one more: the 26 oldest go (held 75 entries, then the new one) */
	add_ent(pm, 7, 100, false);
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT_EQUAL(st.dropped, 26);
	CU_ASSERT_EQUAL(st.dropped_bytes, 26 * c);
	CU_ASSERT_EQUAL(st.compactions, 1);
	CU_ASSERT_EQUAL(st.held, 75 * c);
	for (unsigned i = 0; i <= 100; i++)
		CU_ASSERT_EQUAL(named(pm, 7, i, false), i >= 26);
	/* many more: held within the budget at every step, the newest named */
	for (unsigned i = 101; i < 2000; i++) {
		add_ent(pm, 7, i, false);
		fr_perfmaps__budget_stats(pm, &st);
		CU_ASSERT(st.held <= 100 * c);
		CU_ASSERT(named(pm, 7, i, false));
	}
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, 7, &ps), 0);
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT_EQUAL(st.held, ps.entries * c);
	CU_ASSERT_EQUAL(st.dropped + ps.entries, 2000);
	CU_ASSERT_EQUAL(st.dropped_bytes, st.dropped * c);
	CU_ASSERT(ps.entries >= 75 && ps.entries <= 100);
	CU_ASSERT_EQUAL(st.dropped, 26 * st.compactions);   /* in batches, not one by one */
	for (unsigned i = 0; i < 2000; i++)   /* exactly the newest */
		CU_ASSERT_EQUAL(named(pm, 7, i, false), i >= 2000 - ps.entries);
	/* an entry larger than the whole budget: left out alone, counted */
	{
		char big[256];
		size_t used;

		fr_perfmaps__set_budget(pm, 100);
		memset(big, 'x', sizeof(big));
		memcpy(big, "9 1 ", 4);
		big[sizeof(big) - 1] = '\n';
		fr_perfmaps__budget_stats(pm, &st);
		CU_ASSERT_EQUAL(fr_perfmaps__add_text(pm, 7, big, sizeof(big), &used), 0);
		CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, 7, 9));
		{
			struct fr_perfmap_budget after;

			fr_perfmaps__budget_stats(pm, &after);
			CU_ASSERT_EQUAL(after.dropped, st.dropped + 1);
			CU_ASSERT_EQUAL(after.held, st.held);
		}
	}
	/* forgetting a pid gives its share back */
	fr_perfmaps__forget(pm, 7);
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT_EQUAL(st.held, 0);
	fr_perfmaps__delete(pm);
}

/* Three pids written in turn, some names shared by all (interned once):
 * one age for all, so the survivors are the newest of all pids together;
 * lookups, and the PERFMAP blob, right after every pool rebuilt. */
static void test_budget_interleaved(void)
{
	uint64_t c = cost8();
	struct fr_perfmaps *pm, *back;
	struct fr_perfmap_budget st;
	struct payloads p = { .n = 0 };
	size_t held = 0;
	unsigned n = 600;

	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	fr_perfmaps__set_budget(pm, 90 * c);
	for (unsigned i = 0; i < n; i++)
		for (uint32_t pid = 1; pid <= 3; pid++)
			add_ent(pm, pid, i, i % 3 == 0);
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT(st.held <= 90 * c && st.held >= 67 * c);
	CU_ASSERT(st.compactions > 10);
	for (uint32_t pid = 1; pid <= 3; pid++) {
		struct fr_perfmap_stats ps;

		CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &ps), 0);
		held += ps.entries;
	}
	CU_ASSERT_EQUAL(st.held, held * c);
	CU_ASSERT_EQUAL(st.dropped + held, 3 * n);
	/* the survivors: the newest held entries of the order written */
	for (unsigned i = 0; i < n; i++)
		for (uint32_t pid = 1; pid <= 3; pid++)
			CU_ASSERT_EQUAL(named(pm, pid, i, i % 3 == 0),
					i * 3 + (pid - 1) >= 3 * n - held);
	/* the blob of what is held: decoded whole elsewhere */
	CU_ASSERT_EQUAL(fr_perfmap__encode(pm, NULL, 0, 1 << 20, keep, &p), 0);
	CU_ASSERT_FATAL(p.n == 1 && fr_perfmaps__new(&back) == 0);
	CU_ASSERT_EQUAL(fr_perfmap__decode(back, p.buf[0], p.len[0]), 0);
	for (unsigned i = 0; i < n; i++)
		for (uint32_t pid = 1; pid <= 3; pid++)
			CU_ASSERT_EQUAL(named(back, pid, i, i % 3 == 0),
					i * 3 + (pid - 1) >= 3 * n - held);
	fr_perfmaps__delete(back);
	free_payloads(&p);
	fr_perfmaps__delete(pm);
}

/* The maps of processes gone go before older entries of the living ones;
 * a pid seen running again (collect) is no longer gone. */
static void test_budget_gone_first(void)
{
	uint64_t c = cost8();
	struct fr_perfmaps *pm;
	struct fr_perfmap_budget st;

	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	fr_perfmaps__set_budget(pm, 100 * c);
	for (unsigned i = 0; i < 40; i++)
		add_ent(pm, 1, i, false);   /* alive, the oldest */
	for (unsigned i = 0; i < 30; i++)
		add_ent(pm, 2, i, false);   /* gone, newer */
	for (unsigned i = 0; i < 30; i++)
		add_ent(pm, 3, i, false);   /* gone, newer still */
	fr_perfmaps__gone(pm, 3);
	fr_perfmaps__gone(pm, 2);
	fr_perfmaps__gone(pm, 99);   /* none: nothing */
	add_ent(pm, 1, 40, false);
	/* 26 entries needed: pid 2's map, whole (the older death), not 3's */
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT_EQUAL(st.dropped, 30);
	CU_ASSERT(!fr_perfmaps__has(pm, 2));
	CU_ASSERT(named(pm, 3, 0, false) && named(pm, 3, 29, false));
	CU_ASSERT(named(pm, 1, 0, false) && named(pm, 1, 40, false));
	CU_ASSERT_EQUAL(st.held, 71 * c);
	/* more than the gone maps hold: pid 3's whole, then the oldest of 1 */
	for (unsigned i = 41; i < 71; i++)
		add_ent(pm, 1, i, false);   /* 101 entries */
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT_EQUAL(st.dropped, 30 + 30);
	CU_ASSERT(!fr_perfmaps__has(pm, 3));
	CU_ASSERT(named(pm, 1, 0, false));
	for (unsigned i = 71; i < 101; i++)
		add_ent(pm, 1, i, false);   /* 101 entries of pid 1 alone */
	fr_perfmaps__budget_stats(pm, &st);
	CU_ASSERT_EQUAL(st.dropped, 60 + 26);
	for (unsigned i = 0; i < 101; i++)
		CU_ASSERT_EQUAL(named(pm, 1, i, false), i >= 26);
	fr_perfmaps__delete(pm);
}

static void test_round_trip(void)
{
	struct fr_perfmaps *pm = sample_set(), *back;
	struct payloads p = { .n = 0 };

	/* one payload */
	CU_ASSERT_EQUAL(fr_perfmap__encode(pm, NULL, 0, 1 << 20, keep, &p), 0);
	CU_ASSERT_EQUAL(p.n, 1);
	CU_ASSERT_FATAL(fr_perfmaps__new(&back) == 0);
	CU_ASSERT_EQUAL(fr_perfmap__decode(back, p.buf[0], p.len[0]), 0);
	check_set(back);
	fr_perfmaps__delete(back);
	free_payloads(&p);
	/* small payloads: a pid's entries spread over several */
	CU_ASSERT_EQUAL(fr_perfmap__encode(pm, NULL, 0, 8192, keep, &p), 0);
	CU_ASSERT(p.n > 2);
	CU_ASSERT_FATAL(fr_perfmaps__new(&back) == 0);
	for (size_t i = 0; i < p.n; i++) {
		CU_ASSERT(p.len[i] <= 8192);
		CU_ASSERT_EQUAL(fr_perfmap__decode(back, p.buf[i], p.len[i]), 0);
	}
	check_set(back);
	fr_perfmaps__delete(back);
	free_payloads(&p);
	CU_ASSERT_EQUAL(fr_perfmap__encode(pm, NULL, 0, 100, keep, &p), -EINVAL);   /* too small a max */
	/* only the pids asked for (a file's pid set); one unknown */
	{
		uint32_t want[2] = { 101, 999 };
		struct fr_perfmap_stats st;

		CU_ASSERT_EQUAL(fr_perfmap__encode(pm, want, 2, 1 << 20, keep, &p), 0);
		CU_ASSERT_EQUAL(p.n, 1);
		CU_ASSERT_FATAL(fr_perfmaps__new(&back) == 0);
		CU_ASSERT_EQUAL(fr_perfmap__decode(back, p.buf[0], p.len[0]), 0);
		CU_ASSERT_EQUAL(fr_perfmaps__stats(back, 100, &st), -ENOENT);
		CU_ASSERT_EQUAL(fr_perfmaps__stats(back, 101, &st), 0);
		CU_ASSERT_EQUAL(st.entries, 300);
		fr_perfmaps__delete(back);
		free_payloads(&p);
	}
	/* forgotten: gone, the others kept */
	fr_perfmaps__forget(pm, 100);
	CU_ASSERT(!fr_perfmaps__has(pm, 100));
	CU_ASSERT_PTR_NOT_NULL(fr_perfmaps__find(pm, 101, 0x10005));
	fr_perfmaps__forget(pm, 100);
	fr_perfmaps__delete(pm);
}

static void test_hostile_payload(void)
{
	struct fr_perfmaps *pm = sample_set(), *back;
	struct payloads p = { .n = 0 };
	struct fr_perfmap_stats st;
	uint8_t *b;
	size_t len;

	CU_ASSERT_EQUAL(fr_perfmap__encode(pm, NULL, 0, 8192, keep, &p), 0);
	b = p.buf[0];
	len = p.len[0];
	/* every cut is refused whole: nothing of it added */
	for (size_t cut = 0; cut < len; cut++) {
		CU_ASSERT_FATAL(fr_perfmaps__new(&back) == 0);
		CU_ASSERT_EQUAL(fr_perfmap__decode(back, b, cut), -EINVAL);
		CU_ASSERT_EQUAL(fr_perfmaps__stats(back, 100, &st), -ENOENT);
		fr_perfmaps__delete(back);
	}
	/* trailing bytes too */
	{
		uint8_t *longer = malloc(len + 1);

		CU_ASSERT_FATAL(longer != NULL);
		memcpy(longer, b, len);
		longer[len] = 0;
		CU_ASSERT_FATAL(fr_perfmaps__new(&back) == 0);
		CU_ASSERT_EQUAL(fr_perfmap__decode(back, longer, len + 1), -EINVAL);
		fr_perfmaps__delete(back);
		free(longer);
	}
	/* every flipped byte: refused, or read as whole entries */
	for (size_t i = 0; i < len; i++) {
		int err;

		b[i] ^= 0xff;
		CU_ASSERT_FATAL(fr_perfmaps__new(&back) == 0);
		err = fr_perfmap__decode(back, b, len);
		CU_ASSERT(err == 0 || err == -EINVAL);
		if (!err) {
			const struct fr_perfmap_entry *e = fr_perfmaps__find(back, 100, 0x10005);

			if (e)
				CU_ASSERT(strlen(e->name) <= FR_PERFMAP_LINE_MAX);
		}
		fr_perfmaps__delete(back);
		b[i] ^= 0xff;
	}
	free_payloads(&p);
	fr_perfmaps__delete(pm);
}

static void write_file(const char *path, const char *s, const char *mode)
{
	FILE *f = fopen(path, mode);

	CU_ASSERT_FATAL(f != NULL);
	fputs(s, f);
	fclose(f);
}

static void test_files(void)
{
	char dir[] = "/tmp/fr-perfmap-XXXXXX", path[128], link[128], other[128];
	struct fr_perfmaps *pm;
	struct fr_perfmap_stats st;
	uint64_t first_read;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	snprintf(link, sizeof(link), "%s/perf-2.map", dir);
	snprintf(other, sizeof(other), "%s/perf-3.map", dir);
	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	write_file(path, "1000 10 a\n2000 10 b\n3000 10 par", "w");
	CU_ASSERT_EQUAL(fr_perfmaps__load_file(pm, 1, path), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, 1, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 2);
	first_read = st.read;
	CU_ASSERT_EQUAL(first_read, 20);   /* up to the partial line */
	/* grown: read on from the offset, the partial line now whole */
	write_file(path, "tial\n4000 10 d\n", "a");
	CU_ASSERT_EQUAL(fr_perfmaps__load_file(pm, 1, path), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, 1, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 4);
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, 1, 0x3005)->name, "partial");
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, 1, 0x1005)->name, "a");
	/* read again unchanged: nothing added twice */
	CU_ASSERT_EQUAL(fr_perfmaps__load_file(pm, 1, path), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, 1, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 4);
	/* replaced by another file: read again from its start */
	write_file(other, "9000 10 z\n", "w");
	CU_ASSERT_EQUAL(rename(other, path), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__load_file(pm, 1, path), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, 1, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 1);
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, 1, 0x1005));
	/* a symlink is refused; so is a directory */
	CU_ASSERT_EQUAL(symlink(path, link), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__load_file(pm, 2, link), -EPERM);
	CU_ASSERT_EQUAL(fr_perfmaps__load_file(pm, 3, dir), -EPERM);
	CU_ASSERT_EQUAL(fr_perfmaps__load_file(pm, 4, "/nonexistent/perf-4.map"), -ENOENT);
	/* a line longer than the cap is skipped, counted, and the next one read */
	{
		size_t n = FR_PERFMAP_LINE_MAX + 100;
		char *big = malloc(n + 64);

		CU_ASSERT_FATAL(big != NULL);
		memset(big, 'x', n);
		memcpy(big, "5000 10 ", 8);
		snprintf(big + n, 64, "\n6000 10 after\n");
		write_file(other, big, "w");
		free(big);
		CU_ASSERT_EQUAL(fr_perfmaps__load_file(pm, 5, other), 0);
		CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, 5, &st), 0);
		CU_ASSERT_EQUAL(st.entries, 1);
		CU_ASSERT_EQUAL(st.skipped, 1);
		CU_ASSERT_PTR_NOT_NULL(fr_perfmaps__find(pm, 5, 0x6001));
	}
	unlink(link);
	unlink(path);
	unlink(other);
	rmdir(dir);
	fr_perfmaps__delete(pm);
}

/* The process's own map, found through /proc/PID/root and its NSpid. */
static void test_collect_self(void)
{
	char path[64];
	uint32_t pid = (uint32_t)getpid(), nope = 0x7ffffff0u;
	struct fr_perfmaps *pm;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	write_file(path, "7000 10 self_jit\n", "w");
	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);
	CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &nope, 1), 0);   /* no such process: no error */
	CU_ASSERT_FATAL(fr_perfmaps__find(pm, pid, 0x7004) != NULL);
	CU_ASSERT_STRING_EQUAL(fr_perfmaps__find(pm, pid, 0x7004)->name, "self_jit");
	/* grown, collected again: one more entry, the first not twice */
	write_file(path, "7100 10 more\n", "a");
	CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);
	{
		struct fr_perfmap_stats st;

		CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
		CU_ASSERT_EQUAL(st.entries, 2);
	}
	unlink(path);
	fr_perfmaps__delete(pm);
}

/* A process that exits: its map, read while it ran, is read on once it is
 * gone through the descriptor held (what it wrote at exit); another file
 * put in its place is not read. */
static void test_collect_gone(void)
{
	int go[2], ready[2];
	char path[64], c = 0;
	struct fr_perfmaps *pm;
	struct fr_perfmap_stats st;
	uint32_t pid;
	pid_t child;

	CU_ASSERT_FATAL(pipe(go) == 0 && pipe(ready) == 0);
	child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		write_file(path, "8000 10 alive\n", "w");
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	pid = (uint32_t)child;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	CU_ASSERT_EQUAL(read(ready[0], &c, 1), 1);
	CU_ASSERT_FATAL(fr_perfmaps__new(&pm) == 0);
	CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);
	CU_ASSERT_PTR_NOT_NULL(fr_perfmaps__find(pm, pid, 0x8004));
	CU_ASSERT_EQUAL(write(go[1], "g", 1), 1);
	waitpid(child, NULL, 0);
	write_file(path, "8100 10 at_exit\n", "a");   /* as a runtime writes at exit */
	CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);
	CU_ASSERT_EQUAL(fr_perfmaps__stats(pm, pid, &st), 0);
	CU_ASSERT_EQUAL(st.entries, 2);
	CU_ASSERT_PTR_NOT_NULL(fr_perfmaps__find(pm, pid, 0x8104));
	/* another file in its place: not read */
	unlink(path);
	write_file(path, "8200 10 impostor\n", "w");
	CU_ASSERT_EQUAL(fr_perfmap__collect(pm, &pid, 1), 0);
	CU_ASSERT_PTR_NULL(fr_perfmaps__find(pm, pid, 0x8204));
	unlink(path);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	fr_perfmaps__delete(pm);
}

static const struct fr_test tests[] = {
	{ "map text: entries, malformed lines counted, partial line left", test_text },
	{ "PERFMAP payload: round trip, split payloads", test_round_trip },
	{ "PERFMAP payload: every cut, trailing bytes, every flipped byte", test_hostile_payload },
	{ "files: growing, replaced, symlink, directory, long line", test_files },
	{ "collect: the process's own map through /proc", test_collect_self },
	{ "collect: a process gone, its map read on only if the same file", test_collect_gone },
	{ "budget: the oldest go in batches, the newest named, counted", test_budget_oldest },
	{ "budget: pids interleaved, one age; lookups and blob after pool rebuilds",
	  test_budget_interleaved },
	{ "budget: the maps of processes gone go first", test_budget_gone_first },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "perfmap", NULL, NULL, tests };
