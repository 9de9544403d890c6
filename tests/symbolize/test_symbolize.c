/* tests/symbolize/test_symbolize.c: CUnit suite for symbolize/: the process model over
 * time, kallsyms capture and lookup, libdw symbolization of a committed -O2 -g
 * fixture with inline functions (golden output), build id checks, and the
 * libunwind unwinder on a committed recording (tests/fixtures/README.md).
 */
#include "config.h"

#include "tests/cunit.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "src/proc/perfmap.h"
#include "src/proc/proctable.h"
#include "src/report/pass/pass.h"
#include "symbolize/demangle.h"
#include "symbolize/internal.h"
#include "symbolize/kallsyms.h"
#include "symbolize/symbolize.h"

#ifndef FIXTURES
#error "FIXTURES must name the fixture directory (absolute)"
#endif

#include "tests/symbolize/golden.h"

/* The model as the symbolizer asks for it. */
static const struct fr_addrspace *as_of(const struct fr_proctable *m)
{
	static struct fr_addrspace as;

	as = fr_proctable__addrspace(m);
	return &as;
}

static void test_kallsyms(void)
{
	struct fr_kallsyms *ks = NULL, *rep = NULL;
	const char *mod;
	uint64_t off;
	void *data = NULL;
	size_t len;

	CU_ASSERT_FATAL(fr_kallsyms__load(FIXTURES "/kallsyms.txt", FIXTURES "/modules.txt", &ks) == 0);
	fr_kallsyms__note(ks, 0xffffffff81000210ull);   /* do_syscall_64 */
	fr_kallsyms__note(ks, 0xffffffff81000410ull);   /* data is no symbol: still do_syscall_64 */
	fr_kallsyms__note(ks, 0xffffffffc0001004ull);   /* ext4_read [ext4] */
	fr_kallsyms__note(ks, 0xffffffffc0000810ull);   /* out of order in the file */
	fr_kallsyms__note(ks, 0x1000);                  /* user address: nothing */
	CU_ASSERT_FATAL(fr_kallsyms__serialize(ks, &data, &len) == 0);
	CU_ASSERT_FATAL(fr_kallsyms__parse(data, len, &rep) == 0);
	CU_ASSERT_STRING_EQUAL(fr_kallsyms__lookup(rep, 0xffffffff81000211ull, &off, &mod),
			       "do_syscall_64");
	CU_ASSERT_EQUAL(off, 0x11);
	CU_ASSERT_PTR_NULL(mod);
	CU_ASSERT_STRING_EQUAL(fr_kallsyms__lookup(rep, 0xffffffffc0001004ull, &off, &mod),
			       "ext4_read");
	CU_ASSERT_STRING_EQUAL(mod, "ext4");
	CU_ASSERT_STRING_EQUAL(fr_kallsyms__lookup(rep, 0xffffffffc0000810ull, &off, &mod),
			       "early_mod_fn");
	/* not noted: not in the blob; the module is still known by its range */
	CU_ASSERT_PTR_NULL(fr_kallsyms__lookup(rep, 0xffffffffc0002010ull, &off, &mod));
	CU_ASSERT_STRING_EQUAL(mod, "xfs");
	CU_ASSERT_PTR_NULL(fr_kallsyms__lookup(rep, 0xffffffff81000610ull, &off, &mod));
	/* a truncated or damaged blob is refused */
	CU_ASSERT_EQUAL(fr_kallsyms__parse(data, len - 1, &rep), -EBADMSG);
	((uint8_t *)data)[0] ^= 0xff;
	CU_ASSERT_EQUAL(fr_kallsyms__parse(data, len, &rep), -EBADMSG);
	free(data);
	/* serializing clears the notes */
	CU_ASSERT_FATAL(fr_kallsyms__serialize(ks, &data, &len) == 0);
	CU_ASSERT_EQUAL(len, 16 + 3 * 18 + 4 + 3 + 5);   /* header and the three modules */
	free(data);
	fr_kallsyms__delete(ks);
	fr_kallsyms__delete(rep);
	/* a return address at a symbol's start: the caller (address - 1, the
	 * symbol before: a noreturn call ended it) is kept too */
	rep = NULL;   /* parse merges into an existing one */
	CU_ASSERT_FATAL(fr_kallsyms__load(FIXTURES "/kallsyms.txt", FIXTURES "/modules.txt", &ks) == 0);
	fr_kallsyms__note(ks, 0xffffffff81000600ull);   /* ksys_read's first byte */
	CU_ASSERT_FATAL(fr_kallsyms__serialize(ks, &data, &len) == 0);
	CU_ASSERT_FATAL(fr_kallsyms__parse(data, len, &rep) == 0);
	CU_ASSERT_STRING_EQUAL(fr_kallsyms__lookup(rep, 0xffffffff81000600ull, &off, &mod),
			       "ksys_read");
	CU_ASSERT_STRING_EQUAL(fr_kallsyms__lookup(rep, 0xffffffff810005ffull, &off, &mod),
			       "weak_func");
	CU_ASSERT_PTR_NULL(fr_kallsyms__lookup(rep, 0xffffffff81000210ull, &off, &mod));
	free(data);
	fr_kallsyms__delete(ks);
	fr_kallsyms__delete(rep);
	CU_ASSERT_EQUAL(fr_kallsyms__load(FIXTURES "/no-such-file", NULL, &ks), -ENOENT);
	CU_ASSERT_PTR_NULL(ks);
}

static void test_inline_golden(void)
{
	struct fr_symbolizer_opts o = { 0 };

	CU_ASSERT(check_golden(FIXTURES "/inline.golden", FIXTURES "/inline.bin", &o) >= 10);
}

/* C++: names demangled (also of inline frames, from their linkage names, so
 * they are qualified), PLT stubs named after their targets. */
static void test_cxx_golden(void)
{
	struct fr_symbolizer_opts o = { 0 };

	CU_ASSERT(check_golden(FIXTURES "/cxx.golden", FIXTURES "/cxx.bin", &o) >= 8);
}

/* --no-demangle: names as the symbol table has them. */
static void test_no_demangle(void)
{
	struct fr_symbolizer_opts o = { .no_demangle = true };
	struct fr_symbolizer *s;
	struct fr_proctable *m;
	struct fr_frame f[16];
	int n;

	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL && fr_symbolizer__new(&o, &s) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 0, BASE, 0x10000, 0, PROT_EXEC, FIXTURES "/cxx.bin", NULL, 0) == 0);
	n = fr_symbolizer__user(s, as_of(m), 1, 1, BASE + 0x1320, false, f, 16);
	CU_ASSERT_FATAL(n >= 1);
	CU_ASSERT_STRING_EQUAL(f[n - 1].sym->name, "_ZNK6shapes4Grid3sumEm");
	fr_symbolizer__delete(s);
	fr_proctable__delete(m);
}

static void test_demangle(void)
{
	static const char *const cases[][2] = {
		{ "_ZNSt6vectorIiSaIiEEixEm", "std::vector<int, std::allocator<int> >::operator[]" },
		{ "_ZN6shapes5twiceIlEET_S1_", "shapes::twice<long>" },
		/* Rust legacy (the hash is dropped) and v0 */
		{ "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE", "core::fmt::Formatter::pad" },
		{ "_RNvCs1234_7mycrate3foo", "mycrate::foo" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = fr_demangle(cases[i][0]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_STRING_EQUAL(d, cases[i][1]);
		free(d);
	}
	CU_ASSERT_PTR_NULL(fr_demangle("main"));
	CU_ASSERT_PTR_NULL(fr_demangle("_start"));
}

/* Addresses no symbol covers: one function per file and offset, not one
 * [unknown] for everything. */
static void test_unknown_grouped(void)
{
	struct fr_symbolizer_opts o = { 0 };
	struct fr_symbolizer *s;
	struct fr_proctable *m;
	struct fr_frame f[4], g[4];

	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL && fr_symbolizer__new(&o, &s) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 0, BASE, 0x10000, 0x2000, PROT_EXEC, FIXTURES "/missing.so", NULL,
				      0) == 0);
	CU_ASSERT_FATAL(fr_symbolizer__user(s, as_of(m), 1, 1, BASE + 0x7bd, false, f, 4) == 1);
	CU_ASSERT_FATAL(fr_symbolizer__user(s, as_of(m), 1, 1, BASE + 0x7c0, false, g, 4) == 1);
	CU_ASSERT(f[0].sym->unknown && g[0].sym->unknown);
	CU_ASSERT_STRING_EQUAL(f[0].sym->name, "missing.so+0x27bd");
	CU_ASSERT(f[0].sym != g[0].sym);
	CU_ASSERT_FATAL(fr_symbolizer__user(s, as_of(m), 1, 2, BASE + 0x7bd, false, g, 4) == 1);
	CU_ASSERT(f[0].sym == g[0].sym);
	fr_symbolizer__delete(s);
	fr_proctable__delete(m);
}

/* The cache of (pid, address) answers: an address seen again costs no
 * lookup; the same address in another process's different file, as a return
 * address, or after its mapping changed gets its own answer. */
static void test_front_cache(void)
{
	struct fr_symbolizer_opts o = { 0 };
	struct fr_symbolizer *s;
	struct fr_proctable *m;
	struct fr_frame f[16], g[16];
	uint64_t hits, misses, addr = BASE + 0x1320;
	int n, k;

	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL && fr_symbolizer__new(&o, &s) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 0, BASE, 0x10000, 0, PROT_EXEC, FIXTURES "/cxx.bin", NULL, 0) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 2, 0, BASE, 0x10000, 0x2000, PROT_EXEC, FIXTURES "/missing.so", NULL,
				      0) == 0);
	n = fr_symbolizer__user(s, as_of(m), 1, 10, addr, false, f, 16);
	CU_ASSERT_FATAL(n >= 1);
	fr_symbolizer__cache_stats(s, &hits, &misses);
	CU_ASSERT_EQUAL(hits, 0);
	CU_ASSERT_EQUAL(misses, 1);
	k = fr_symbolizer__user(s, as_of(m), 1, 20, addr, false, g, 16);
	fr_symbolizer__cache_stats(s, &hits, &misses);
	CU_ASSERT_EQUAL(hits, 1);
	CU_ASSERT_EQUAL(misses, 1);
	CU_ASSERT_EQUAL_FATAL(k, n);
	for (int i = 0; i < n; i++)
		CU_ASSERT(f[i].sym == g[i].sym && f[i].file == g[i].file && f[i].line == g[i].line &&
			  f[i].addr == g[i].addr && f[i].off == g[i].off && f[i].vaddr == g[i].vaddr);
	CU_ASSERT_STRING_EQUAL(f[n - 1].sym->name, "shapes::Grid::sum");
	/* fewer frames wanted: the outermost, as without the cache */
	if (n > 1) {
		CU_ASSERT_EQUAL(fr_symbolizer__user(s, as_of(m), 1, 20, addr, false, g, 1), 1);
		CU_ASSERT_PTR_EQUAL(g[0].sym, f[n - 1].sym);
	}
	/* the same address in another process is another file */
	CU_ASSERT_EQUAL(fr_symbolizer__user(s, as_of(m), 2, 20, addr, false, g, 16), 1);
	CU_ASSERT_STRING_EQUAL(g[0].sym->name, "missing.so+0x3320");
	CU_ASSERT_EQUAL(fr_symbolizer__user(s, as_of(m), 2, 30, addr, true, g, 16), 1);
	CU_ASSERT_STRING_EQUAL(g[0].sym->name, "missing.so+0x331f");
	CU_ASSERT_EQUAL(fr_symbolizer__user(s, as_of(m), 1, 30, addr, false, g, 16), n);
	CU_ASSERT_PTR_EQUAL(g[n - 1].sym, f[n - 1].sym);
	fr_symbolizer__cache_stats(s, &hits, &misses);
	CU_ASSERT_EQUAL(misses, 3);
	/* pid 1 maps another file over it from time 100: before, the old answer */
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 100, BASE, 0x10000, 0, PROT_EXEC, FIXTURES "/missing.so", NULL,
				      0) == 0);
	CU_ASSERT_EQUAL(fr_symbolizer__user(s, as_of(m), 1, 150, addr, false, g, 16), 1);
	CU_ASSERT_STRING_EQUAL(g[0].sym->name, "missing.so+0x1320");
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(fr_symbolizer__user(s, as_of(m), 1, 50, addr, false, g, 16), n);
		CU_ASSERT_PTR_EQUAL(g[n - 1].sym, f[n - 1].sym);
		CU_ASSERT_EQUAL(fr_symbolizer__user(s, as_of(m), 1, 150 + (uint64_t)i, addr, false, g, 16), 1);
		CU_ASSERT_STRING_EQUAL(g[0].sym->name, "missing.so+0x1320");
	}
	fr_symbolizer__delete(s);
	fr_proctable__delete(m);
}

/* Feed an MMAP2 of path at BASE for pid at time to the resolver. */
static void feed_mmap_at(struct fr_resolver *r, const struct fr_file_event *sb, uint32_t pid,
			 uint64_t time, uint64_t start, const char *path)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, gen;
		uint32_t prot, flags;
		char name[256];
	} mm;
	struct fr_rec rec = { 0, FR_STREAM_SIDEBAND, time, &mm.h, sb, NULL };

	memset(&mm, 0, sizeof(mm));
	mm.h.type = PERF_RECORD_MMAP2;
	mm.h.size = (uint16_t)(offsetof(__typeof__(mm), name) + ((strlen(path) + 8) & ~7ul));
	mm.pid = mm.tid = pid;
	mm.addr = start;
	mm.len = 0x10000;
	mm.prot = PROT_READ | PROT_EXEC;
	snprintf(mm.name, sizeof(mm.name), "%s", path);
	CU_ASSERT_EQUAL(fr_resolver__sideband(r, &rec), 0);
}

static void feed_mmap(struct fr_resolver *r, const struct fr_file_event *sb, uint32_t pid,
		      uint64_t time, const char *path)
{
	feed_mmap_at(r, sb, pid, time, BASE, path);
}

static uint64_t last_stack_id;   /* stack_names' sample's */

/* The names of the frames of a callchain sample of pid at time, ';'-joined. */
static void stack_names(struct fr_resolver *r, const struct fr_file_event *ev, uint32_t pid,
			uint64_t time, const uint64_t *ips, size_t nr, char *out, size_t len)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(h) };
	struct fr_rec rec = { 0, FR_STREAM_SAMPLES, time, &h, ev, NULL };
	struct fr_sample s = { .ip = ips[1], .pid = pid, .tid = pid, .time = time,
			       .nr_ips = nr, .ips = ips };
	struct fr_rsample rs;
	size_t n = 0;

	out[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(fr_resolver__sample(r, &rec, &s, true, &rs), 0);
	last_stack_id = rs.stack_id;
	for (size_t i = 0; i < rs.nr_frames; i++)
		n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", i ? ";" : "",
				      rs.frames[i].sym->name);
}

/* The resolver's cache of whole callchains: the same stack again is not
 * resolved again; the same addresses in another process, or after the
 * process mapped another file over them, are. */
static void test_stack_cache(void)
{
	struct fr_file_event ev = { .index = 0, .name = "cpu-clock" },
			     sb = { .index = 1, .name = "sideband", .flags = FR_EVENT_SIDEBAND };
	const uint64_t ips[] = { PERF_CONTEXT_USER, BASE + 0x1320, BASE + 0x1340 };
	struct fr_resolver *r;
	char a[512], b[512], c[512];
	uint64_t hits, misses, id;

	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CALLCHAIN;
	CU_ASSERT_FATAL(fr_resolver__new(NULL, NULL, &r) == 0);
	feed_mmap(r, &sb, 1, 1, FIXTURES "/cxx.bin");
	feed_mmap(r, &sb, 2, 1, FIXTURES "/missing.so");
	stack_names(r, &ev, 1, 10, ips, 3, a, sizeof(a));
	id = last_stack_id;
	stack_names(r, &ev, 1, 20, ips, 3, b, sizeof(b));
	CU_ASSERT(id != 0 && last_stack_id == id);   /* the same frames, the same id */
	fr_resolver__cache_stats(r, &hits, &misses);
	CU_ASSERT_EQUAL(hits, 1);
	CU_ASSERT_EQUAL(misses, 1);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT(strstr(a, "shapes::Grid::sum") != NULL);
	/* another process, the same addresses: its own file */
	stack_names(r, &ev, 2, 20, ips, 3, c, sizeof(c));
	CU_ASSERT_STRING_EQUAL(c, "missing.so+0x1320;missing.so+0x133f");
	CU_ASSERT(last_stack_id && last_stack_id != id);
	/* a shorter stack with the same start is another stack */
	stack_names(r, &ev, 1, 20, ips, 2, c, sizeof(c));
	CU_ASSERT(strstr(a, c) == a && strcmp(a, c));
	fr_resolver__cache_stats(r, &hits, &misses);
	CU_ASSERT_EQUAL(misses, 3);
	/* pid 1 maps another file over it at 100: each time its own answer */
	feed_mmap(r, &sb, 1, 100, FIXTURES "/missing.so");
	for (int i = 0; i < 3; i++) {
		stack_names(r, &ev, 1, 150 + (uint64_t)i, ips, 3, c, sizeof(c));
		CU_ASSERT_STRING_EQUAL(c, "missing.so+0x1320;missing.so+0x133f");
		CU_ASSERT(last_stack_id > id);   /* other frames in the slot: a new id */
		id = last_stack_id;
		stack_names(r, &ev, 1, 50 + (uint64_t)i, ips, 3, c, sizeof(c));
		CU_ASSERT_STRING_EQUAL(c, a);
		CU_ASSERT(last_stack_id > id);
		id = last_stack_id;
	}
	fr_resolver__delete(r);
}

/* Whether the symbolizer looked at a file whose path ends in name. */
static bool dso_seen(struct fr_resolver *r, const char *name)
{
	struct fr_symbolizer *s = fr_resolver__symbolizer(r);

	for (size_t i = 0; i < fr_symbolizer__nr_dsos(s); i++) {
		enum fr_dso_status st;
		const char *path, *used;

		if (!fr_symbolizer__dso_status(s, i, &path, &st, &used) && strstr(path, name) &&
		    !strcmp(strstr(path, name), name))
			return true;
	}
	return false;
}

/* Leaf only (the report without -g): the callchain's other addresses only
 * open their files, for the notes; a cached callchain must still open the
 * file an address is in at the sample's time. */
static void test_stack_cache_leaf(void)
{
	struct fr_file_event ev = { .index = 0, .name = "cpu-clock" },
			     sb = { .index = 1, .name = "sideband", .flags = FR_EVENT_SIDEBAND };
	const uint64_t far = BASE + 0x100000;
	const uint64_t ips[] = { PERF_CONTEXT_USER, BASE + 0x1320, far + 0x11c0 };
	struct fr_resolver *r;
	char a[512], b[512];

	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CALLCHAIN;
	CU_ASSERT_FATAL(fr_resolver__new(NULL, NULL, &r) == 0);
	fr_resolver__leaf_only(r, true);
	feed_mmap(r, &sb, 1, 1, FIXTURES "/cxx.bin");
	feed_mmap_at(r, &sb, 1, 1, far, FIXTURES "/inline.bin");
	feed_mmap_at(r, &sb, 1, 100, far, FIXTURES "/gone-later.so");
	stack_names(r, &ev, 1, 50, ips, 3, a, sizeof(a));
	CU_ASSERT(dso_seen(r, "/inline.bin"));
	CU_ASSERT(!dso_seen(r, "/gone-later.so"));
	stack_names(r, &ev, 1, 150, ips, 3, b, sizeof(b));
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT(strstr(a, "shapes::Grid::sum") != NULL && !strchr(a, ';'));
	CU_ASSERT(dso_seen(r, "/gone-later.so"));
	fr_resolver__delete(r);
}

/* The value of a dynamic symbol of the ELF image at img, or 0. */
static uint64_t dynsym_value(const void *img, size_t len, const char *want)
{
	Elf *e;
	uint64_t v = 0;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)img, len);
	for (Elf_Scn *scn = e ? elf_nextscn(e, NULL) : NULL; scn && !v; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) && (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
			    !strcmp(n, want))
				v = sym.st_value;
		}
	}
	if (e)
		elf_end(e);
	return v;
}

/* [vdso] frames name their functions from the image the VDSO blob holds:
 * here this process's own vdso, as the recorder saves it. */
static void test_vdso(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct fr_symbolizer_opts o = { 0 };
	struct fr_symbolizer *s;
	struct fr_proctable *m;
	struct fr_frame f[4];
	uint64_t fn;
	size_t len;

	if (!eh)
		return;
	len = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	fn = dynsym_value(eh, len, "__vdso_clock_gettime");
	CU_ASSERT_FATAL(fn != 0);
	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL && fr_symbolizer__new(&o, &s) == 0);
	CU_ASSERT_EQUAL(fr_symbolizer__add_vdso(s, "not elf", 7), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(fr_symbolizer__add_vdso(s, eh, len), 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 0, BASE, 0x2000, 0, PROT_EXEC, "[vdso]", NULL, 0) == 0);
	CU_ASSERT_FATAL(fr_symbolizer__user(s, as_of(m), 1, 1, BASE + fn, false, f, 4) >= 1);
	CU_ASSERT_STRING_EQUAL(f[0].sym->name, "__vdso_clock_gettime");
	CU_ASSERT_STRING_EQUAL(f[0].sym->dso, "[vdso]");
	fr_symbolizer__delete(s);
	fr_proctable__delete(m);
}

static void test_build_id(void)
{
	struct fr_symbolizer_opts o = { 0 };
	struct fr_symbolizer *s;
	struct fr_proctable *m;
	uint8_t wrong[20];
	struct fr_frame f[4];
	enum fr_dso_status st = FR_DSO_OK;
	const char *path, *used;
	int n;

	memset(wrong, 0xab, sizeof(wrong));
	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL && fr_symbolizer__new(&o, &s) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 0, BASE, 0x10000, 0, PROT_EXEC, FIXTURES "/inline.bin", wrong,
				      sizeof(wrong)) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 2, 0, BASE, 0x10000, 0, PROT_EXEC, "[vdso]", NULL, 0) == 0);
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 3, 0, BASE, 0x10000, 0, PROT_EXEC, FIXTURES "/missing.bin", NULL, 0) == 0);
	n = fr_symbolizer__user(s, as_of(m), 1, 1, BASE + 0x11c0, false, f, 4);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT(f[0].sym->unknown);
	CU_ASSERT_STRING_EQUAL(f[0].sym->dso_short, "inline.bin");
	CU_ASSERT_EQUAL(fr_symbolizer__dso_status(s, 0, &path, &st, &used), 0);
	CU_ASSERT_EQUAL(st, FR_DSO_BUILD_ID);
	n = fr_symbolizer__user(s, as_of(m), 2, 1, BASE + 0x10, false, f, 4);
	CU_ASSERT(n == 1 && f[0].sym->unknown);
	CU_ASSERT_STRING_EQUAL(f[0].sym->dso, "[vdso]");
	fr_symbolizer__dso_status(s, 1, &path, &st, &used);
	CU_ASSERT_EQUAL(st, FR_DSO_SPECIAL);
	n = fr_symbolizer__user(s, as_of(m), 3, 1, BASE + 0x10, false, f, 4);
	fr_symbolizer__dso_status(s, 2, &path, &st, &used);
	CU_ASSERT_EQUAL(st, FR_DSO_MISSING);
	/* no mapping at all */
	n = fr_symbolizer__user(s, as_of(m), 4, 1, BASE, false, f, 4);
	CU_ASSERT(n == 1 && f[0].sym == fr_symbolizer__unknown(s, false));
	fr_symbolizer__delete(s);
	fr_proctable__delete(m);
}

struct unwind_check {
	struct fr_resolver *res;
	int full, samples;
};

static int unwind_cb(void *ctx, const struct fr_rec *r)
{
	static const char *const want[] = { "leaf", "level2", "level1", "main" };
	struct unwind_check *uc = ctx;
	struct fr_rsample rs;
	struct fr_sample s;
	size_t k = 0;

	if (!r->event)
		return 0;
	if (r->kind == FR_STREAM_SIDEBAND)
		return fr_resolver__sideband(uc->res, r) ? 1 : 0;
	if (r->h->type != PERF_RECORD_SAMPLE ||
	    fr_record__parse_sample(r->h, r->event->attr.sample_type,
				    r->event->attr.sample_regs_user, &s) ||
	    fr_resolver__sample(uc->res, r, &s, true, &rs))
		return 0;
	uc->samples++;
	for (size_t i = 0; i < rs.nr_frames && k < 4; i++) {
		if (rs.frames[i].sym->inlined)
			continue;
		if (strcmp(rs.frames[i].sym->name, want[k]))
			break;
		k++;
	}
	if (k == 4)
		uc->full++;
	else if (rs.nr_frames && !strcmp(rs.frames[fr_leaf_frames(&rs) - 1].sym->name, "leaf"))
		uc->full = -1000;   /* a sample in leaf() that did not unwind to main */
	return 0;
}

static void test_unwind_fixture(void)
{
	const char *dirs[] = { FIXTURES };
	struct fr_symbolizer_opts o = { .symdirs = dirs, .nr_symdirs = 1 };
	struct unwind_check uc = { 0 };
	struct fr_reader *rd;

	CU_ASSERT_FATAL(fr_reader__open(FIXTURES "/unwind.frec", &rd) == 0);
	CU_ASSERT_FATAL(fr_resolver__new(rd, &o, &uc.res) == 0);
	CU_ASSERT_EQUAL(fr_reader__for_each(rd, unwind_cb, &uc), 0);
	CU_ASSERT_EQUAL(uc.samples, 14);
	CU_ASSERT(uc.full >= 12);
	fr_resolver__delete(uc.res);
	fr_reader__close(rd);
}

static int write_blob(void *ctx, const void *data, size_t len)
{
	return fr_writer__blob(ctx, FR_BLOB_PROCS, data, len);
}

struct procs_check {
	struct fr_resolver *res;
	int samples;
	char frames[512];
	const char *comm;
};

static int procs_cb(void *ctx, const struct fr_rec *r)
{
	struct procs_check *pc = ctx;
	struct fr_rsample rs;
	struct fr_sample s;
	size_t used = 0;

	if (!r->event || r->h->type != PERF_RECORD_SAMPLE ||
	    fr_record__parse_sample(r->h, r->event->attr.sample_type, 0, &s) ||
	    fr_resolver__sample(pc->res, r, &s, true, &rs))
		return 0;
	pc->samples++;
	pc->comm = rs.comm;
	for (size_t i = 0; i < rs.nr_frames && used < sizeof(pc->frames); i++)
		used += (size_t)snprintf(pc->frames + used, sizeof(pc->frames) - used, "%s%s",
					 i ? ";" : "", rs.frames[i].sym->name);
	return 0;
}

/* A process known only from the retained table (its sideband is gone): its
 * sample still gets its name and its symbols. */
static void test_procs_blob(void)
{
	char path[] = "/tmp/fr-test-procs-XXXXXX";
	struct fr_proctable *pt = fr_proctable__new(&fr_proctable__recorder_policy);
	struct fr_file_event ev = { .index = 0, .name = "cpu-clock" }, sb = { .index = 1 };
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
	} rec = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec) }, BASE + 0x11c0, 4242,
		  4242, 100 };
	struct procs_check pc = { 0 };
	struct fr_writer *w;
	struct fr_reader *rd;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0 && pt != NULL);
	close(fd);
	unlink(path);
	CU_ASSERT_EQUAL(fr_proctable__image(pt, &(struct fr_proc){ .pid = 4242, .ppid = 1 }), 0);
	CU_ASSERT_EQUAL(fr_proctable__comm(pt, 4242, 4242, 0, "gone", false), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(pt, 4242, 5, BASE, 0x10000, 0, PROT_READ | PROT_EXEC,
					   FIXTURES "/inline.bin", NULL, 0), 0);
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	sb.flags = FR_EVENT_SIDEBAND;
	sb.name = "sideband";
	sb.attr.size = sizeof(sb.attr);
	sb.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	sb.attr.sample_id_all = 1;
	CU_ASSERT_FATAL(fr_writer__open(path, 1, &w) == 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &ev), 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &sb), 0);
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 0, FR_STREAM_SAMPLES), 0);
	CU_ASSERT_EQUAL(fr_writer__record(w, &rec.h), 0);
	CU_ASSERT_EQUAL(fr_writer__records_end(w), 0);
	CU_ASSERT_EQUAL(fr_proctable__serialize(pt, NULL, 0, FR_CHUNK_RAW_MAX, write_blob, w), 0);
	CU_ASSERT_FATAL(fr_writer__close(w) == 0);
	fr_proctable__delete(pt);
	CU_ASSERT_FATAL(fr_reader__open(path, &rd) == 0);
	CU_ASSERT_FATAL(fr_resolver__new(rd, NULL, &pc.res) == 0);
	CU_ASSERT_EQUAL(fr_reader__for_each(rd, procs_cb, &pc), 0);
	CU_ASSERT_EQUAL(pc.samples, 1);
	CU_ASSERT_STRING_EQUAL(pc.comm ? pc.comm : "", "gone");
	CU_ASSERT_STRING_EQUAL(pc.frames, "mix;step;work");
	fr_resolver__delete(pc.res);
	fr_reader__close(rd);
	unlink(path);
}

static int write_perfmap(void *ctx, const void *data, size_t len)
{
	return fr_writer__blob(ctx, FR_BLOB_PERFMAP, data, len);
}

struct jit_check {
	struct fr_resolver *res;
	int samples;
	char names[3][128], dsos[3][64];
};

static int jit_cb(void *ctx, const struct fr_rec *r)
{
	struct jit_check *jc = ctx;
	struct fr_rsample rs;
	struct fr_sample s;

	if (!r->event || r->h->type != PERF_RECORD_SAMPLE ||
	    fr_record__parse_sample(r->h, r->event->attr.sample_type, 0, &s) ||
	    fr_resolver__sample(jc->res, r, &s, true, &rs) || !rs.nr_frames || jc->samples >= 3)
		return 0;
	snprintf(jc->names[jc->samples], sizeof(jc->names[0]), "%s", rs.frames[0].sym->name);
	snprintf(jc->dsos[jc->samples], sizeof(jc->dsos[0]), "%s", rs.frames[0].sym->dso);
	jc->samples++;
	return 0;
}

/* JIT code in anonymous memory, named from the file's PERFMAP blob (no local
 * map read: only_given_dirs) as a function of "[JIT] tid PID", a mangled
 * name demangled; an address no entry covers stays unnamed and is counted. */
static void test_perfmap_blob(void)
{
	char path[] = "/tmp/fr-test-jit-XXXXXX";
	static const char map[] = "7f0000001000 100 JS:*hotLoopAlpha /x/hot.js:2:22\n"
				  "7f0000002000 40 _ZN3foo3barEv\n";
	struct fr_proctable *pt = fr_proctable__new(&fr_proctable__recorder_policy);
	struct fr_perfmaps *pm;
	struct fr_file_event ev = { .index = 0, .name = "cpu-clock" }, sb = { .index = 1 };
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
	} rec = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec) }, 0x7f0000001010, 4243,
		  4243, 100 };
	struct fr_symbolizer_opts o = { .only_given_dirs = true };
	struct jit_check jc = { 0 };
	struct fr_writer *w;
	struct fr_reader *rd;
	uint64_t named, unnamed;
	size_t used;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0 && pt != NULL && fr_perfmaps__new(&pm) == 0);
	close(fd);
	unlink(path);
	CU_ASSERT_EQUAL(fr_perfmaps__add_text(pm, 4243, map, sizeof(map) - 1, &used), 0);
	CU_ASSERT_EQUAL(fr_proctable__image(pt, &(struct fr_proc){ .pid = 4243, .ppid = 1 }), 0);
	CU_ASSERT_EQUAL(fr_proctable__comm(pt, 4243, 4243, 0, "node", false), 0);
	CU_ASSERT_EQUAL(fr_proctable__mmap(pt, 4243, 5, 0x7f0000000000, 0x10000, 0,
					   PROT_READ | PROT_EXEC, "//anon", NULL, 0), 0);
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	sb.flags = FR_EVENT_SIDEBAND;
	sb.name = "sideband";
	sb.attr.size = sizeof(sb.attr);
	sb.attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	sb.attr.sample_id_all = 1;
	CU_ASSERT_FATAL(fr_writer__open(path, 1, &w) == 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &ev), 0);
	CU_ASSERT_EQUAL(fr_writer__event(w, &sb), 0);
	CU_ASSERT_EQUAL(fr_writer__records_begin(w, 0, FR_STREAM_SAMPLES), 0);
	CU_ASSERT_EQUAL(fr_writer__record(w, &rec.h), 0);
	rec.ip = 0x7f0000002008;
	rec.time++;
	CU_ASSERT_EQUAL(fr_writer__record(w, &rec.h), 0);
	rec.ip = 0x7f0000003000;   /* no entry covers it */
	rec.time++;
	CU_ASSERT_EQUAL(fr_writer__record(w, &rec.h), 0);
	CU_ASSERT_EQUAL(fr_writer__records_end(w), 0);
	CU_ASSERT_EQUAL(fr_proctable__serialize(pt, NULL, 0, FR_CHUNK_RAW_MAX, write_blob, w), 0);
	CU_ASSERT_EQUAL(fr_perfmap__encode(pm, NULL, 0, FR_CHUNK_RAW_MAX, write_perfmap, w), 0);
	CU_ASSERT_FATAL(fr_writer__close(w) == 0);
	fr_proctable__delete(pt);
	fr_perfmaps__delete(pm);
	CU_ASSERT_FATAL(fr_reader__open(path, &rd) == 0);
	CU_ASSERT_FATAL(fr_resolver__new(rd, &o, &jc.res) == 0);
	CU_ASSERT_EQUAL(fr_reader__for_each(rd, jit_cb, &jc), 0);
	CU_ASSERT_EQUAL(fr_reader__nr_damaged(rd), 0);
	CU_ASSERT_EQUAL_FATAL(jc.samples, 3);
	CU_ASSERT_STRING_EQUAL(jc.names[0], "JS:*hotLoopAlpha /x/hot.js:2:22");
	CU_ASSERT_STRING_EQUAL(jc.dsos[0], "[JIT] tid 4243");
	CU_ASSERT_STRING_EQUAL(jc.names[1], "foo::bar");   /* as perf shows names */
	CU_ASSERT_STRING_EQUAL(jc.dsos[2], "//anon");
	fr_resolver__jit_stats(jc.res, &named, &unnamed);
	CU_ASSERT_EQUAL(named, 2);
	CU_ASSERT_EQUAL(unnamed, 1);
	fr_resolver__delete(jc.res);
	fr_reader__close(rd);
	unlink(path);
}

/* The sorted symbol tables (built after the first addresses of a file went
 * to libdwfl's scan) answer as dwfl_module_addrinfo does: libc (thousands of
 * symbols, globals and locals) at 2000 addresses across its text, each
 * compared with libdwfl's own answer on the same file and debuginfo. */
static void test_symtab_as_libdwfl(void)
{
	static char *dbgpath;
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &dbgpath,
	};
	struct fr_symbolizer_opts o = { 0 };
	struct fr_dso_id id = { .path = NULL };
	struct fr_dso *d = NULL;
	enum fr_dso_status st;
	char *used = NULL, libc[4096] = "";
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod;
	GElf_Addr lo = 0, hi = 0, bias = 0;
	unsigned checked = 0, named = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(libc, sizeof(libc), "%s", p);
			break;
		}
	}
	if (f)
		fclose(f);
	CU_ASSERT_FATAL(libc[0] == '/');
	id.path = libc;
	CU_ASSERT_FATAL(fr_dso__open(&id, &o, &d, &st, &used) == 0 && d && st == FR_DSO_OK);
	CU_ASSERT_FATAL(dwfl != NULL);
	mod = dwfl_report_offline(dwfl, "", libc, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	CU_ASSERT_FATAL(mod != NULL);
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	CU_ASSERT_FATAL(hi > lo && dwfl_module_getelf(mod, &bias) != NULL);
	for (unsigned i = 0; i < 2000; i++) {
		/* file addresses; libdwfl lays offline modules out from 0x10000 */
		GElf_Addr pc = lo - bias + (hi - lo) / 2000 * i + i % 7;
		struct fr_raw_frame fr[8];
		GElf_Off off = 0;
		GElf_Sym sym;
		const char *want = dwfl_module_addrinfo(mod, pc + bias, &off, &sym, NULL, NULL,
							NULL);
		int n;

		if (!want || sym.st_size == 0)
			continue;   /* then fr_dso__resolve names PLT stubs or DWARF */
		n = fr_dso__resolve(d, pc, false, false, fr, 8);
		CU_ASSERT_FATAL(n == 1);
		checked++;
		if (fr[0].name && !strcmp(fr[0].name, want) && fr[0].off == off)
			named++;
		else
			fprintf(stderr, "0x%lx: %s+0x%lx, libdwfl %s+0x%lx\n", (unsigned long)pc,
				fr[0].name ? fr[0].name : "(none)", (unsigned long)fr[0].off, want,
				(unsigned long)off);
	}
	CU_ASSERT(checked > 500);
	CU_ASSERT_EQUAL(named, checked);
	dwfl_end(dwfl);
	fr_dso__delete(d);
	free(used);
}

static const struct fr_test tests[] = {
	{ "kallsyms", test_kallsyms },
	{ "inline fixture (golden)", test_inline_golden },
	{ "C++ fixture: demangled, PLT (golden)", test_cxx_golden },
	{ "--no-demangle", test_no_demangle },
	{ "demangler", test_demangle },
	{ "unknown addresses per file and offset", test_unknown_grouped },
	{ "cache of (pid, address) answers", test_front_cache },
	{ "cache of resolved callchains", test_stack_cache },
	{ "cached callchains without -g still open their files", test_stack_cache_leaf },
	{ "[vdso] from the saved image", test_vdso },
	{ "build ids and special files", test_build_id },
	{ "unwind a recorded stack", test_unwind_fixture },
	{ "a process from the PROCS blob", test_procs_blob },
	{ "JIT code named from the PERFMAP blob", test_perfmap_blob },
	{ "symbol tables answer as libdwfl", test_symtab_as_libdwfl },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "symbolize", NULL, NULL, tests };
