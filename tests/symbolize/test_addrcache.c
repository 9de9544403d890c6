/* tests/symbolize/test_addrcache.c: CUnit suite for the answers kept by build
 * id (symbolize/addrcache.c): the file round trip, keys that do not match,
 * every truncation and byte flip of a file, the trust checks on reading, and
 * the inline fixture symbolized through a cache that a second report reads
 * (and a tampered one shows it is read).
 */
#include "config.h"

#include "tests/cunit.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/internal.h"
#include "tests/symbolize/golden.h"
#include "src/proc/proctable.h"

/* The model as the symbolizer asks for it. */
static const struct fr_addrspace *as_of(const struct fr_proctable *m)
{
	static struct fr_addrspace as;

	as = fr_proctable__addrspace(m);
	return &as;
}

#ifndef FIXTURES
#error "FIXTURES must name the fixture directory (absolute)"
#endif

static char dir[] = "/tmp/test_addrcache.XXXXXX";
static const unsigned char id[20] = { 0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				      11, 12, 13, 14, 15, 16, 17, 18 };

static int setup(void)
{
	return mkdtemp(dir) == NULL;
}

static int teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) != 0;
}

static const struct fr_raw_frame f1[] = {
	{ "mix", "/src/inline.c", 13, true, 0x10 },
	{ "step", "/src/inline.c", 20, true, 0x10 },
	{ "work", "/src/inline.c", 30, false, 0x10 },
};
static const struct fr_raw_frame f2[] = { { NULL, NULL, 0, false, 0 } };
static const struct fr_raw_frame f3[] = { { "memcmp@plt", NULL, 0, false, 4 } };

static struct fr_addrcache *filled(void)
{
	struct fr_addrcache *ac;

	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES, "/x.debug\n10\n1.0", &ac) == 0);
	/* out of order, and one twice: the file has each once, ascending */
	CU_ASSERT(fr_addrcache__add(ac, 0x2000, f3, 1) == 0);
	CU_ASSERT(fr_addrcache__add(ac, 0x11c0, f1, 3) == 0);
	CU_ASSERT(fr_addrcache__add(ac, 0x1500, f2, 1) == 0);
	CU_ASSERT(fr_addrcache__add(ac, 0x11c0, f1, 3) == 0);
	return ac;
}

static bool same_frames(const struct fr_raw_frame *a, const struct fr_raw_frame *b, int n)
{
	for (int i = 0; i < n; i++) {
		if ((!a[i].name != !b[i].name) || (a[i].name && strcmp(a[i].name, b[i].name)) ||
		    (!a[i].file != !b[i].file) || (a[i].file && strcmp(a[i].file, b[i].file)) ||
		    a[i].line != b[i].line || a[i].inlined != b[i].inlined || a[i].off != b[i].off)
			return false;
	}
	return true;
}

static void test_round_trip(void)
{
	struct fr_addrcache *ac = filled(), *back;
	struct fr_raw_frame out[8];
	void *buf;
	size_t len;

	CU_ASSERT_FATAL(fr_addrcache__serialize(ac, &buf, &len) == 0);
	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES, "/x.debug\n10\n1.0", &back) == 0);
	CU_ASSERT_EQUAL_FATAL(fr_addrcache__parse(back, buf, len), 0);
	CU_ASSERT_EQUAL(fr_addrcache__get(back, 0x11c0, out, 8), 3);
	CU_ASSERT(same_frames(out, f1, 3));
	CU_ASSERT_EQUAL(fr_addrcache__get(back, 0x1500, out, 8), 1);
	CU_ASSERT(same_frames(out, f2, 1));
	CU_ASSERT_EQUAL(fr_addrcache__get(back, 0x2000, out, 8), 1);
	CU_ASSERT(same_frames(out, f3, 1));
	CU_ASSERT_EQUAL(fr_addrcache__get(back, 0x11c1, out, 8), 0);   /* not kept */
	CU_ASSERT_EQUAL(fr_addrcache__get(back, 0x11c0, out, 2), 0);   /* does not fit */
	/* what was added is not answered from: only what was read */
	fr_addrcache__delete(ac);
	ac = filled();
	CU_ASSERT_EQUAL(fr_addrcache__get(ac, 0x11c0, out, 8), 0);
	/* a second parse into a filled cache is refused */
	CU_ASSERT_EQUAL(fr_addrcache__parse(back, buf, len), -EINVAL);
	/* bad answers are not kept */
	CU_ASSERT_EQUAL(fr_addrcache__add(back, 1, f1, 0), -EINVAL);
	CU_ASSERT_EQUAL(fr_addrcache__add(back, 1, f1, 65), -EINVAL);
	fr_addrcache__delete(back);
	fr_addrcache__delete(ac);
	free(buf);
}

/* Another object, other flags, other debuginfo: -ESTALE, nothing answered. */
static void test_stale(void)
{
	struct fr_addrcache *ac = filled(), *o;
	unsigned char id2[20];
	struct fr_raw_frame out[8];
	void *buf;
	size_t len;

	CU_ASSERT_FATAL(fr_addrcache__serialize(ac, &buf, &len) == 0);
	memcpy(id2, id, sizeof(id2));
	id2[19] ^= 1;
	CU_ASSERT_FATAL(fr_addrcache__new(id2, 20, FR_AC_INLINES, "/x.debug\n10\n1.0", &o) == 0);
	CU_ASSERT_EQUAL(fr_addrcache__parse(o, buf, len), -ESTALE);
	CU_ASSERT_EQUAL(fr_addrcache__get(o, 0x11c0, out, 8), 0);
	fr_addrcache__delete(o);
	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES | FR_AC_SRCLINES,
					  "/x.debug\n10\n1.0", &o) == 0);
	CU_ASSERT_EQUAL(fr_addrcache__parse(o, buf, len), -ESTALE);
	fr_addrcache__delete(o);
	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES, "/x.debug\n10\n2.0", &o) == 0);
	CU_ASSERT_EQUAL(fr_addrcache__parse(o, buf, len), -ESTALE);
	fr_addrcache__delete(o);
	CU_ASSERT_EQUAL(fr_addrcache__new(id, 0, 0, "", &o), -EINVAL);
	fr_addrcache__delete(ac);
	free(buf);
}

/* Parse into a fresh cache; its answers must be consistent when it succeeds. */
static int parse_fresh(const uint8_t *buf, size_t len)
{
	struct fr_addrcache *ac;
	struct fr_raw_frame out[64];
	int err, n;

	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES, "/x.debug\n10\n1.0", &ac) == 0);
	err = fr_addrcache__parse(ac, buf, len);
	n = fr_addrcache__get(ac, 0x11c0, out, 64);
	if (err)
		CU_ASSERT_EQUAL(n, 0);   /* a refused file answers nothing */
	for (int i = 0; i < n; i++)
		CU_ASSERT(!out[i].name || strlen(out[i].name) < 65536);
	fr_addrcache__delete(ac);
	return err;
}

/* Every cut and every flipped byte of a good file: refused or read whole,
 * never read past (ASan in the sanitizer build), never answered in part. */
static void test_malformed(void)
{
	struct fr_addrcache *ac = filled();
	uint8_t *buf, *cp;
	void *b;
	size_t len, pos;

	CU_ASSERT_FATAL(fr_addrcache__serialize(ac, &b, &len) == 0);
	buf = b;
	for (size_t cut = 0; cut < len; cut++) {
		cp = malloc(cut + 1);
		memcpy(cp, buf, cut);
		CU_ASSERT_NOT_EQUAL(parse_fresh(cp, cut), 0);
		free(cp);
	}
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit += 3) {
			buf[i] ^= (uint8_t)(1u << bit);
			parse_fresh(buf, len);
			buf[i] ^= (uint8_t)(1u << bit);
		}
	/* trailing bytes */
	cp = malloc(len + 1);
	memcpy(cp, buf, len);
	cp[len] = 0;
	CU_ASSERT_EQUAL(parse_fresh(cp, len + 1), -EBADMSG);
	free(cp);
	/* a NUL inside the first string: the string table follows the header */
	pos = 8 + 4 + 4 + 4 + 20 + 4 + strlen("/x.debug\n10\n1.0") + 4 + 4;
	CU_ASSERT_FATAL(pos + 3 < len);
	CU_ASSERT(buf[pos] + 256u * buf[pos + 1] >= 2);
	buf[pos + 3] = 0;
	CU_ASSERT_EQUAL(parse_fresh(buf, len), -EBADMSG);
	CU_ASSERT_EQUAL(parse_fresh((const uint8_t *)"FRADDRS2", 8), -EBADMSG);
	fr_addrcache__delete(ac);
	free(b);
}

static void test_files(void)
{
	char cache[128], path[256], link[512];
	struct fr_addrcache *ac = filled(), *back;
	struct fr_raw_frame out[8];
	struct stat st, st2;

	snprintf(cache, sizeof(cache), "%s/c1", dir);
	CU_ASSERT_EQUAL_FATAL(fr_addrcache__save(ac, cache), 0);
	snprintf(path, sizeof(path), "%s/.build-id/ab/cd0102030405060708090a0b0c0d0e0f101112.addrs1",
		 cache);
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT((st.st_mode & 0777) == 0644);
	/* nothing added since: not written again */
	CU_ASSERT_EQUAL(fr_addrcache__save(ac, cache), 0);
	CU_ASSERT_EQUAL(stat(path, &st2), 0);
	CU_ASSERT(st.st_ino == st2.st_ino);
	fr_addrcache__delete(ac);

	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES, "/x.debug\n10\n1.0", &back) == 0);
	CU_ASSERT_EQUAL(fr_addrcache__load(back, cache), 0);
	CU_ASSERT_EQUAL(fr_addrcache__get(back, 0x11c0, out, 8), 3);
	fr_addrcache__delete(back);
	/* writable by others: not read */
	CU_ASSERT_EQUAL_FATAL(chmod(path, 0666), 0);
	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES, "/x.debug\n10\n1.0", &back) == 0);
	CU_ASSERT_EQUAL(fr_addrcache__load(back, cache), -EPERM);
	CU_ASSERT_EQUAL(fr_addrcache__get(back, 0x11c0, out, 8), 0);
	fr_addrcache__delete(back);
	CU_ASSERT_EQUAL_FATAL(chmod(path, 0644), 0);
	/* a link is not followed */
	snprintf(link, sizeof(link), "%s.real", path);
	CU_ASSERT_EQUAL_FATAL(rename(path, link), 0);
	CU_ASSERT_EQUAL_FATAL(symlink(link, path), 0);
	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES, "/x.debug\n10\n1.0", &back) == 0);
	CU_ASSERT_NOT_EQUAL(fr_addrcache__load(back, cache), 0);
	CU_ASSERT_EQUAL(fr_addrcache__get(back, 0x11c0, out, 8), 0);
	fr_addrcache__delete(back);
	/* none there */
	CU_ASSERT_FATAL(fr_addrcache__new(id, 20, FR_AC_INLINES | FR_AC_SRCLINES, "/x.debug\n10\n1.0",
					  &back) == 0);
	CU_ASSERT_EQUAL(fr_addrcache__load(back, cache), -ENOENT);
	fr_addrcache__delete(back);
}

/* The first frame's name at inline.golden's 0x11c0 (mix, inlined). */
static void name_at_11c0(const struct fr_symbolizer_opts *o, char *name, size_t len)
{
	struct fr_symbolizer *s;
	struct fr_proctable *m;
	struct fr_frame f[16];
	int n;

	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL && fr_symbolizer__new(o, &s) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 0, BASE, 0x10000, 0, PROT_EXEC, FIXTURES "/inline.bin", NULL,
				      0) == 0);
	n = fr_symbolizer__user(s, as_of(m), 1, 10, BASE + 0x11c0, false, f, 16);
	CU_ASSERT_FATAL(n >= 3);
	snprintf(name, len, "%s", f[0].sym->name);
	fr_symbolizer__delete(s);
	fr_proctable__delete(m);
}

/* Through the symbolizer: the first report fills the cache, the second
 * answers from it (the same golden frames; a name changed in the file
 * shows), and machine-independent lookups neither read nor write it. */
static void test_symbolizer(void)
{
	char cache[128], cmd[512], name[64];
	struct fr_symbolizer_opts o = { 0 };
	FILE *p;
	char file[512] = "";

	snprintf(cache, sizeof(cache), "%s/c2", dir);
	o.cache_dir = cache;
	CU_ASSERT(check_golden(FIXTURES "/inline.golden", FIXTURES "/inline.bin", &o) >= 10);
	snprintf(cmd, sizeof(cmd), "find %s -name '*.addrs3'", cache);
	p = popen(cmd, "r");
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT(fgets(file, sizeof(file), p) != NULL);
	pclose(p);
	file[strcspn(file, "\n")] = '\0';
	CU_ASSERT_FATAL(file[0] != '\0');
	CU_ASSERT(check_golden(FIXTURES "/inline.golden", FIXTURES "/inline.bin", &o) >= 10);
	name_at_11c0(&o, name, sizeof(name));
	CU_ASSERT_STRING_EQUAL(name, "mix");
	/* "mix" -> "mIx" in the file: the next lookup answers from it */
	snprintf(cmd, sizeof(cmd), "sed -i 's/mix/mIx/' %s", file);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	name_at_11c0(&o, name, sizeof(name));
	CU_ASSERT_STRING_EQUAL(name, "mIx");
	/* machine-independent: not read (and nothing written) */
	o.only_given_dirs = true;
	name_at_11c0(&o, name, sizeof(name));
	CU_ASSERT_STRING_EQUAL(name, "mix");
}

static const struct fr_test tests[] = {
	{ "round trip", test_round_trip },
	{ "another object, flags or debuginfo: not used", test_stale },
	{ "every cut and flipped byte: refused or read whole", test_malformed },
	{ "files: written once, read only when trusted", test_files },
	{ "the symbolizer fills it, then answers from it", test_symbolizer },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "addrcache", setup, teardown, tests };
