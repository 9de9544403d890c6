/* tests/symbolize/test_debugcache.c: CUnit suite for the build-id cache of
 * decompressed debuginfo (symbolize/debugcache.c): the inline fixture split
 * into a stripped binary and a zlib-compressed .debug file (objcopy, as
 * distributions ship them) symbolizes as the golden file says, leaves a
 * decompressed copy in the cache, and symbolizes from that copy alone; a
 * copy others could have written is not used; machine-independent lookups
 * write nothing.
 */
#include "config.h"

#include "tests/cunit.h"
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>

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

static char dir[] = "/tmp/test_debugcache.XXXXXX";

/* Move path out of the way (hide) or back. */
static void hide(const char *path, bool away)
{
	char gone[256];

	snprintf(gone, sizeof(gone), "%s.gone", path);
	CU_ASSERT_EQUAL_FATAL(away ? rename(path, gone) : rename(gone, path), 0);
}

/* Sections compressed (SHF_COMPRESSED) in the file, -1: not ELF; *id its build id. */
static int nr_compressed(const char *path, char *id, size_t len)
{
	int fd = open(path, O_RDONLY), n = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;
	const void *bits;
	ssize_t nb;

	elf_version(EV_CURRENT);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		n += gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	}
	nb = dwelf_elf_gnu_build_id(elf, &bits);
	id[0] = '\0';
	for (ssize_t i = 0; i < nb && (size_t)(2 * i + 3) < len; i++)
		snprintf(id + 2 * i, len - 2 * (size_t)i, "%02x", ((const unsigned char *)bits)[i]);
	elf_end(elf);
	close(fd);
	return n;
}

static int setup(void)
{
	char bin[128], dbg[128];

	if (!mkdtemp(dir))
		return 1;
	snprintf(bin, sizeof(bin), "%s/inline.full", dir);
	snprintf(dbg, sizeof(dbg), "%s/inline.debug", dir);
	/* a stripped binary and its compressed debuginfo, found by debuglink */
	if (system("command -v objcopy >/dev/null"))
		return 1;
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd),
			 "cp %s/inline.bin %s && objcopy --only-keep-debug --compress-debug-sections=zlib "
			 "%s %s && objcopy --strip-debug --add-gnu-debuglink=%s %s %s/inline.bin",
			 FIXTURES, bin, bin, dbg, dbg, bin, dir);
		return system(cmd) != 0;
	}
}

static int teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) != 0;
}

static void test_fill_then_use(void)
{
	char bin[128], dbg[128], cache[128], entry[256], id[64], idd[64];
	struct fr_symbolizer_opts o = { 0 };
	struct stat st;

	snprintf(bin, sizeof(bin), "%s/inline.bin", dir);
	snprintf(dbg, sizeof(dbg), "%s/inline.debug", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	CU_ASSERT_FATAL(nr_compressed(dbg, idd, sizeof(idd)) > 0);   /* the case worth caching */
	CU_ASSERT_FATAL(nr_compressed(bin, id, sizeof(id)) == 0 && strlen(id) == 40);
	CU_ASSERT_STRING_EQUAL(id, idd);
	snprintf(entry, sizeof(entry), "%s/.build-id/%.2s/%s.debug", cache, id, id + 2);
	CU_ASSERT_NOT_EQUAL(stat(entry, &st), 0);

	o.cache_dir = cache;
	CU_ASSERT(check_golden(FIXTURES "/inline.golden", bin, &o) >= 10);
	CU_ASSERT_EQUAL_FATAL(stat(entry, &st), 0);
	CU_ASSERT(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0644);
	CU_ASSERT_EQUAL(nr_compressed(entry, idd, sizeof(idd)), 0);   /* decompressed */
	CU_ASSERT_STRING_EQUAL(idd, id);

	/* the original gone: the cache alone gives the same frames */
	hide(dbg, true);
	CU_ASSERT(check_golden(FIXTURES "/inline.golden", bin, &o) >= 10);
	hide(dbg, false);
}

/* One address of the golden file that has inline frames: how many frames? */
static int frames_at(const char *bin, const struct fr_symbolizer_opts *o)
{
	struct fr_symbolizer *s;
	struct fr_proctable *m;
	struct fr_frame f[16];
	FILE *g = fopen(FIXTURES "/inline.golden", "r");
	char line[256], cur[64] = "", addr[64] = "";
	int n;

	CU_ASSERT_FATAL(g != NULL);
	while (fgets(line, sizeof(line), g) && !addr[0]) {   /* the first with inline frames */
		if (line[0] == '#')
			continue;
		if (line[0] != ' ')
			snprintf(cur, sizeof(cur), "%.*s", (int)strcspn(line, " \n"), line);
		else if (strstr(line, "[inlined]"))
			snprintf(addr, sizeof(addr), "%s", cur);
	}
	fclose(g);
	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL && fr_symbolizer__new(o, &s) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 0, BASE, 0x10000, 0, PROT_EXEC, bin, NULL, 0) == 0);
	n = fr_symbolizer__user(s, as_of(m), 1, 10, BASE + strtoull(addr, NULL, 16), false, f, 16);
	fr_symbolizer__delete(s);
	fr_proctable__delete(m);
	return n;
}

/* A cache entry others could have written (group/world-writable) is not
 * read: without the original, the DWARF (inline frames) is gone. */
static void test_untrusted_entry(void)
{
	char bin[128], dbg[128], cache[128], entry[256], id[64];
	struct fr_symbolizer_opts o = { 0 };
	int with, without;

	snprintf(bin, sizeof(bin), "%s/inline.bin", dir);
	snprintf(dbg, sizeof(dbg), "%s/inline.debug", dir);
	snprintf(cache, sizeof(cache), "%s/cache3", dir);
	o.cache_dir = cache;
	CU_ASSERT_FATAL(nr_compressed(bin, id, sizeof(id)) == 0);
	with = frames_at(bin, &o);   /* fills cache3 */
	CU_ASSERT(with > 1);
	snprintf(entry, sizeof(entry), "%s/.build-id/%.2s/%s.debug", cache, id, id + 2);
	CU_ASSERT_EQUAL_FATAL(chmod(entry, 0666), 0);
	hide(dbg, true);
	without = frames_at(bin, &o);
	CU_ASSERT_EQUAL(without, 1);
	CU_ASSERT_EQUAL_FATAL(chmod(entry, 0644), 0);
	CU_ASSERT_EQUAL(frames_at(bin, &o), with);   /* trusted again: used */
	hide(dbg, false);
}

/* only_given_dirs (fuzzing, tests): results must not depend on the machine,
 * and nothing is written. */
static void test_only_given_dirs_writes_nothing(void)
{
	char bin[128], cache[128];
	struct fr_symbolizer_opts o = { 0 };
	struct stat st;

	snprintf(bin, sizeof(bin), "%s/inline.bin", dir);
	snprintf(cache, sizeof(cache), "%s/cache2", dir);
	o.cache_dir = cache;
	o.only_given_dirs = true;
	frames_at(bin, &o);
	CU_ASSERT_NOT_EQUAL(stat(cache, &st), 0);
}

static const struct fr_test tests[] = {
	{ "compressed debuginfo: cached decompressed, then read from the cache", test_fill_then_use },
	{ "a cache entry others could write is not read", test_untrusted_entry },
	{ "only_given_dirs writes nothing", test_only_given_dirs_writes_nothing },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "debugcache", setup, teardown, tests };
