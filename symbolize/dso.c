/* symbolize/dso.c: one mapped file, found by path or build id, opened as an
 * offline libdw module at its own addresses (one Dwfl per file, shared by all
 * processes that map it); symbol, inline and line lookups; its raw image.
 * One job, ~750 lines: the file's own tables (symbols read once and searched
 * by libdw's rule, PLT stubs) live with the Dwfl module they stand in for.
 */
#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "base/grow.h"
#include "symbolize/internal.h"

struct plt_entry {
	uint64_t addr;
	char *name;                /* "memcmp@plt" */
};

/* A symbol libdwfl's address lookup would consider, with a size. */
struct fsym {
	uint64_t value, end;       /* [value, end) */
	uint64_t maxend;           /* the largest end of this and every lower entry */
	const char *name;
	GElf_Sym sym;
	int ndx;                   /* index in libdwfl's symbol table */
};

struct fsyms {                 /* sorted by value */
	struct fsym *v;
	size_t n;
	uint64_t *sizeless;        /* values of symbols without a size, sorted */
	size_t nr_sizeless;
};

struct fr_dso {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct fr_dso_image img;
	bool has_img;
	bool plt_read;
	struct plt_entry *plt;     /* sorted by address */
	size_t nr_plt;
	uint64_t plt_entsize;
	bool syms_read, syms_slow;  /* syms_slow: always ask libdwfl */
	unsigned lookups;           /* asked of libdwfl before the tables were built */
	struct fsyms globals, locals;
	const char *cache_dir;      /* the build-id cache, or NULL */
	struct fr_addrcache *ac;    /* answers kept there (addrcache.c), or NULL */
	uint32_t ac_flags;
	bool ac_tried;
};

#define SCAN_LOOKUPS 16    /* addresses resolved by libdwfl's scan before sorting */

static char *debuginfo_path;   /* NULL: libdw's default search path */

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = fr_debugcache__find,   /* the standard search, cached decompressed */
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

void fr_dso__delete(struct fr_dso *d)
{
	if (!d)
		return;
	if (d->ac) {
		fr_addrcache__save(d->ac, d->cache_dir);   /* a cache: best effort */
		fr_addrcache__delete(d->ac);
	}
	if (d->dwfl)
		dwfl_end(d->dwfl);
	for (size_t i = 0; i < d->nr_plt; i++)
		free(d->plt[i].name);
	free(d->plt);
	free(d->globals.v);
	free(d->globals.sizeless);
	free(d->locals.v);
	free(d->locals.sizeless);
	free(d->img.load);
	free(d);
}

const struct fr_dso_image *fr_dso__image(const struct fr_dso *d)
{
	return d && d->has_img ? &d->img : NULL;
}

static bool build_id_matches(Dwfl_Module *mod, const struct fr_dso_id *id)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	if (!id->build_id_size)
		return true;   /* nothing recorded to check against */
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	return n == id->build_id_size && !memcmp(bits, id->build_id, (size_t)n);
}

/* PT_LOAD headers, the executable range and PT_GNU_EH_FRAME of the main file. */
static void load_image(struct fr_dso *d, bool image)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	size_t nphdr = 0, size = 0;
	char *raw;

	if (!elf || elf_getphdrnum(elf, &nphdr) || !nphdr)
		return;
	raw = elf_rawfile(elf, &size);
	d->img.load = calloc(nphdr, sizeof(*d->img.load));
	if (!raw || !d->img.load)
		return;
	d->img.data = (const uint8_t *)raw;
	d->img.size = size;
	d->img.text_start = UINT64_MAX;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_GNU_EH_FRAME)
			d->img.eh_frame_hdr = ph.p_vaddr;
		if (ph.p_type != PT_LOAD)
			continue;
		d->img.load[d->img.nr_load++] = ph;
		if ((ph.p_flags & PF_X) && ph.p_vaddr < d->img.text_start)
			d->img.text_start = ph.p_vaddr;
		if ((ph.p_flags & PF_X) && ph.p_vaddr + ph.p_memsz > d->img.text_end)
			d->img.text_end = ph.p_vaddr + ph.p_memsz;
	}
	d->has_img = image && d->img.nr_load > 0;
}

/* Where fr_debugcache__find keeps this module's decompressed debuginfo: the
 * build-id cache, unless the lookup must not depend on the machine. */
static void set_cache(Dwfl_Module *mod, const struct fr_symbolizer_opts *o)
{
	void **ud = NULL;

	if (dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) && ud)
		*ud = o && !o->only_given_dirs ? (void *)o->cache_dir : NULL;
}

/* Open path as a module at its own addresses; 0, -ENOENT, -EBADMSG (not ELF)
 * or -ESTALE (build id differs). */
static int try_file(const char *path, const struct fr_dso_id *id, bool image,
		    const struct fr_symbolizer_opts *o, struct fr_dso **out)
{
	struct fr_dso *d;
	Dwfl_Module *mod;

	if (access(path, R_OK))
		return -ENOENT;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->dwfl = dwfl_begin(&offline_callbacks);
	if (!d->dwfl) {
		free(d);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	mod = dwfl_report_elf(d->dwfl, id->path, path, -1, 0, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (!mod) {
		fr_dso__delete(d);
		return -EBADMSG;
	}
	if (!build_id_matches(mod, id)) {
		fr_dso__delete(d);
		return -ESTALE;
	}
	d->mod = mod;
	set_cache(mod, o);
	load_image(d, image);
	*out = d;
	return 0;
}

/* Let libdwfl find the file by build id alone: the main file under
 * .build-id/ of the debuginfo path, or from debuginfod (DEBUGINFOD_URLS). */
static int try_build_id(const struct fr_dso_id *id, const struct fr_symbolizer_opts *o,
			struct fr_dso **out, char **used)
{
	struct fr_dso *d = calloc(1, sizeof(*d));
	const char *mainfile = NULL;
	GElf_Addr bias;

	if (!d || !(d->dwfl = dwfl_begin(&offline_callbacks))) {
		free(d);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_module(d->dwfl, id->path, 0, 1ull << 47);
	if (d->mod && dwfl_module_report_build_id(d->mod, id->build_id, id->build_id_size, 0))
		d->mod = NULL;
	dwfl_report_end(d->dwfl, NULL, NULL);
	if (d->mod)
		set_cache(d->mod, o);
	if (!d->mod || !dwfl_module_getelf(d->mod, &bias) || !build_id_matches(d->mod, id)) {
		fr_dso__delete(d);
		return -ENOENT;
	}
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	*used = strdup(mainfile ? mainfile : "(build id)");
	if (!*used || bias) {
		fr_dso__delete(d);   /* placed away from its own addresses: not usable here */
		return -ENOENT;
	}
	load_image(d, true);
	*out = d;
	return 0;
}

static int try_path(const char *path, const struct fr_dso_id *id, bool image,
		    const struct fr_symbolizer_opts *o, struct fr_dso **out, char **used,
		    enum fr_dso_status *st)
{
	int err = try_file(path, id, image, o, out);

	if (!err) {
		*used = strdup(path);
		if (*used)
			return 0;
		fr_dso__delete(*out);
		*out = NULL;
		return -ENOMEM;
	}
	if (err == -ESTALE)
		*st = FR_DSO_BUILD_ID;
	else if (err == -EBADMSG && *st == FR_DSO_MISSING)
		*st = FR_DSO_BAD;
	return err;
}

/* dir/.build-id/xx/yyyy... (the layout of flightrec archive and perf's
 * ~/.debug): 0 or -ENAMETOOLONG. */
static int build_id_path(char *path, size_t len, const char *dir, const struct fr_dso_id *id)
{
	size_t n = (size_t)snprintf(path, len, "%s/.build-id/%02x/", dir, id->build_id[0]);

	for (size_t i = 1; i < id->build_id_size && n < len; i++)
		n += (size_t)snprintf(path + n, len - n, "%02x", id->build_id[i]);
	return n < len ? 0 : -ENAMETOOLONG;
}

/* The build-id cache and each --symdir, by build id. */
static int try_caches(const struct fr_dso_id *id, const struct fr_symbolizer_opts *o,
		      struct fr_dso **out, char **used, enum fr_dso_status *st)
{
	char path[PATH_MAX];
	int err = -ENOENT;

	for (size_t i = 0; i <= o->nr_symdirs; i++) {
		const char *dir = i < o->nr_symdirs ? o->symdirs[i] : o->cache_dir;

		if (!dir || build_id_path(path, sizeof(path), dir, id))
			continue;
		err = try_path(path, id, true, o, out, used, st);
		if (err != -ENOENT && err != -ESTALE && err != -EBADMSG)
			return err;
	}
	return err;
}

static int find_open(const struct fr_dso_id *id, const struct fr_symbolizer_opts *o,
		     struct fr_dso **out, enum fr_dso_status *st, char **used)
{
	char path[PATH_MAX], rec[PATH_MAX];
	const char *base;
	size_t n;
	int err;

	*out = NULL;
	*used = NULL;
	*st = FR_DSO_MISSING;
	if (id->path[0] != '/' || !strncmp(id->path, "/memfd:", 7)) {
		*st = FR_DSO_SPECIAL;
		return 0;
	}
	snprintf(rec, sizeof(rec), "%s", id->path);
	n = strlen(rec);
	if (n > 10 && !strcmp(rec + n - 10, " (deleted)"))
		rec[n - 10] = '\0';
	base = strrchr(rec, '/') + 1;
	if ((size_t)snprintf(path, sizeof(path), "%s%s", o->symfs ? o->symfs : "", rec) <
	    sizeof(path)) {
		err = try_path(path, id, true, o, out, used, st);
		if (err != -ENOENT && err != -ESTALE && err != -EBADMSG)
			goto done;
	}
	for (size_t i = 0; i < o->nr_symdirs; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", o->symdirs[i], base) >=
		    sizeof(path))
			continue;
		err = try_path(path, id, true, o, out, used, st);
		if (err != -ENOENT && err != -ESTALE && err != -EBADMSG)
			goto done;
	}
	if (!id->build_id_size)
		return 0;
	err = try_caches(id, o, out, used, st);
	if (err != -ENOENT && err != -ESTALE && err != -EBADMSG)
		goto done;
	if (o->only_given_dirs)
		return 0;
	err = try_build_id(id, o, out, used);
	if (err != -ENOENT)
		goto done;
	/* last: separate debuginfo by build id: symbols and lines, no unwind tables */
	n = (size_t)snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id->build_id[0]);
	for (size_t i = 1; i < id->build_id_size; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", id->build_id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	err = try_path(path, id, false, o, out, used, st);
	if (!err)
		*st = FR_DSO_DEBUG_ONLY;
	return err == -ENOMEM ? err : 0;
done:
	if (!err && *st != FR_DSO_DEBUG_ONLY)
		*st = FR_DSO_OK;
	return err == -ENOMEM ? err : 0;
}

int fr_dso__open(const struct fr_dso_id *id, const struct fr_symbolizer_opts *o,
		 struct fr_dso **out, enum fr_dso_status *st, char **used)
{
	int err = find_open(id, o, out, st, used);

	if (*out)   /* machine-independent lookups keep no answers */
		(*out)->cache_dir = o->only_given_dirs ? NULL : o->cache_dir;
	return err;
}

/* The linkage name where there is one (an inline instance's comes from its
 * abstract origin): "_ZNSt6vectorIiSaIiEEixEm", demangled by the caller to
 * the qualified std::vector<...>::operator[], where DW_AT_name says only
 * "operator[]"; else the plain name. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));

	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	return name ? name : dwarf_diename(die);
}

static int cmp_plt(const void *a, const void *b)
{
	const struct plt_entry *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static Elf_Scn *find_section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* PLT stubs have no symbols: name them from .rela.plt as perf does. Entry i
 * of .plt.sec (IBT) or entry i + 1 of .plt (after the resolver's PLT0) jumps
 * through relocation i. x86-64 layout: 16-byte entries. */
static void read_plt(struct fr_dso *d)
{
	GElf_Shdr plt, sec, rela, dynsym;
	Elf_Scn *s_plt, *s_sec, *s_rela, *s_sym;
	Elf_Data *rd, *sd;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	size_t shstrndx, n;
	uint64_t base;

	d->plt_read = true;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return;
	s_plt = find_section(elf, shstrndx, ".plt", &plt);
	s_sec = find_section(elf, shstrndx, ".plt.sec", &sec);
	s_rela = find_section(elf, shstrndx, ".rela.plt", &rela);
	if (!s_plt || !s_rela || rela.sh_type != SHT_RELA || !rela.sh_entsize ||
	    !(s_sym = elf_getscn(elf, rela.sh_link)) || !gelf_getshdr(s_sym, &dynsym) ||
	    !(rd = elf_getdata(s_rela, NULL)) || !(sd = elf_getdata(s_sym, NULL)))
		return;
	d->plt_entsize = 16;
	base = s_sec ? sec.sh_addr : plt.sh_addr + d->plt_entsize;
	n = rela.sh_size / rela.sh_entsize;
	d->plt = calloc(n ? n : 1, sizeof(*d->plt));
	if (!d->plt)
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		char buf[512];

		if (!gelf_getrela(rd, (int)i, &r) || !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(elf, dynsym.sh_link, sym.st_name)) || !name[0])
			continue;
		snprintf(buf, sizeof(buf), "%s@plt", name);
		d->plt[d->nr_plt].addr = base + i * d->plt_entsize;
		if (!(d->plt[d->nr_plt].name = strdup(buf)))
			break;
		d->nr_plt++;
	}
	if (d->nr_plt > 1)
		qsort(d->plt, d->nr_plt, sizeof(*d->plt), cmp_plt);
}

/* The PLT stub at pc, or NULL. */
static const struct plt_entry *plt_lookup(struct fr_dso *d, uint64_t pc)
{
	size_t lo = 0, hi;

	if (!d->plt_read)
		read_plt(d);
	hi = d->nr_plt;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->plt[mid].addr + d->plt_entsize <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_plt && d->plt[lo].addr <= pc ? &d->plt[lo] : NULL;
}

/* The call site of an inlined instance: where the next outer frame is. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, const char **file, uint32_t *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Files *files;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &attr), &v) == 0 &&
	    dwarf_getsrcfiles(cu, &files, NULL) == 0)
		*file = dwarf_filesrc(files, v, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &attr), &v) == 0)
		*line = v > UINT32_MAX ? 0 : (uint32_t)v;
}

/* ---- symbol lookup ----
 * dwfl_module_addrinfo scans the whole symbol table on every call (libdw
 * 0.188), which costs milliseconds per address in a library with 100000
 * symbols. The same answer from sorted tables: libdwfl takes, among the
 * global symbols with a size that cover the address (in table order), the
 * closest, then the better binding, then the smaller; among the local ones
 * only if no global covers it. Everything else (no sized symbol covers the
 * address, a sizeless global symbol exactly at it, values libdwfl adjusts)
 * still goes to libdwfl, so the answers are the same. */

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int fsyms_add(struct fsyms *t, size_t *cap, size_t *scap, const struct fsym *f)
{
	if (f->end == f->value) {
		if (fr_grow(&t->sizeless, scap, t->nr_sizeless + 1, sizeof(*t->sizeless), 256))
			return -ENOMEM;
		t->sizeless[t->nr_sizeless++] = f->value;
		return 0;
	}
	if (fr_grow(&t->v, cap, t->n + 1, sizeof(*t->v), 1024))
		return -ENOMEM;
	t->v[t->n++] = *f;
	return 0;
}

static void fsyms_sort(struct fsyms *t)
{
	uint64_t maxend = 0;

	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_fsym);
	if (t->nr_sizeless > 1)
		qsort(t->sizeless, t->nr_sizeless, sizeof(*t->sizeless), cmp_u64);
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].end > maxend)
			maxend = t->v[i].end;
		t->v[i].maxend = maxend;
	}
}

static void read_syms(struct fr_dso *d)
{
	int n = dwfl_module_getsymtab(d->mod);
	int first = dwfl_module_getsymtab_first_global(d->mod);
	size_t gcap = 0, gscap = 0, lcap = 0, lscap = 0;

	d->syms_read = true;
	d->syms_slow = true;
	if (n < 0 || first < 0)
		return;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &value, &shndx, &elf,
							   &bias);
		bool global = i >= (first == 0 ? 1 : first);
		struct fsym f;
		int type;

		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		if (value != sym.st_value || value + sym.st_size < value)
			return;   /* adjusted values (function descriptors, bias): libdwfl */
		f = (struct fsym){ value, value + sym.st_size, 0, name, sym, i };
		if (fsyms_add(global ? &d->globals : &d->locals, global ? &gcap : &lcap,
			      global ? &gscap : &lscap, &f))
			return;
	}
	fsyms_sort(&d->globals);
	fsyms_sort(&d->locals);
	d->syms_slow = false;
}

static int binding_value(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL: return 3;
	case STB_WEAK: return 2;
	case STB_LOCAL: return 1;
	default: return 0;
	}
}

/* libdwfl's rule when a symbol with a size covering pc is met after best. */
static bool better(const struct fsym *best, const struct fsym *f)
{
	int bb = binding_value(&best->sym), bf = binding_value(&f->sym);

	if (best->value < f->value || bb < bf)
		return true;
	return best->value == f->value &&
	       ((best->sym.st_size > f->sym.st_size && bb <= bf) ||
		(best->sym.st_size >= f->sym.st_size && bb < bf));
}

/* libdwfl's choice among the sized symbols of t that cover pc: 1 (*out), 0
 * none, -1 too many to sort here (ask libdwfl). */
static int fsyms_find(const struct fsyms *t, uint64_t pc, const struct fsym **out)
{
	const struct fsym *cover[16];
	size_t lo = 0, hi = t->n, n = 0;

	while (lo < hi) {   /* the first entry above pc */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].value <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && t->v[i].maxend > pc;) {
		if (pc >= t->v[i].end)
			continue;
		if (n == sizeof(cover) / sizeof(cover[0]))
			return -1;
		cover[n++] = &t->v[i];
	}
	if (!n)
		return 0;
	/* in table order, as libdwfl meets them (few: insertion sort) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cover[j - 1]->ndx > cover[j]->ndx; j--) {
			const struct fsym *x = cover[j];

			cover[j] = cover[j - 1];
			cover[j - 1] = x;
		}
	*out = cover[0];
	for (size_t i = 1; i < n; i++)
		if (better(*out, cover[i]))
			*out = cover[i];
	return 1;
}

/* The first sizeless symbol of t at or above pc (index into t->sizeless). */
static size_t sizeless_from(const struct fsyms *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nr_sizeless;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sizeless[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool has_sizeless_at(const struct fsyms *t, uint64_t pc)
{
	size_t i = sizeless_from(t, pc);

	return i < t->nr_sizeless && t->sizeless[i] == pc;
}

/* The largest end of the sized symbols of t at or below pc (0: none). */
static uint64_t maxend_below(const struct fsyms *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].value <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? t->v[lo - 1].maxend : 0;
}

/* No sized symbol covers pc: libdwfl then takes a sizeless one at or above
 * the end of every sized symbol below pc, if there is one. */
static bool no_symbol(const struct fsyms *g, const struct fsyms *l, uint64_t pc)
{
	uint64_t a = maxend_below(g, pc), b = maxend_below(l, pc), from = a > b ? a : b;
	size_t i = sizeless_from(g, from), j = sizeless_from(l, from);

	return !(i < g->nr_sizeless && g->sizeless[i] <= pc) &&
	       !(j < l->nr_sizeless && l->sizeless[j] <= pc);
}

/* dwfl_module_addrinfo's answer (name, offset, symbol), faster. */
static const char *addr_sym(struct fr_dso *d, uint64_t pc, GElf_Off *off, GElf_Sym *sym)
{
	const struct fsym *f = NULL;
	int r;

	/* libdwfl scans the symbol table per address; the sorted tables cost
	 * more than a few scans (and, on a VM, the page faults of their
	 * arrays): a report that resolves a handful of a library's addresses
	 * (a small profile) never builds them. */
	if (!d->syms_read && d->lookups < SCAN_LOOKUPS) {
		d->lookups++;
		return dwfl_module_addrinfo(d->mod, pc, off, sym, NULL, NULL, NULL);
	}
	if (!d->syms_read)
		read_syms(d);
	if (!d->syms_slow) {
		r = fsyms_find(&d->globals, pc, &f);
		if (!r && !has_sizeless_at(&d->globals, pc))
			r = fsyms_find(&d->locals, pc, &f);
		if (r > 0) {
			*off = pc - f->value;
			*sym = f->sym;
			return f->name;
		}
		if (!r && no_symbol(&d->globals, &d->locals, pc)) {
			*off = 0;
			memset(sym, 0, sizeof(*sym));
			return NULL;
		}
	}
	return dwfl_module_addrinfo(d->mod, pc, off, sym, NULL, NULL, NULL);
}

static int resolve(struct fr_dso *d, uint64_t pc, bool inlines, bool srclines,
		   struct fr_raw_frame *out, size_t max)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *symname = addr_sym(d, pc, &off, &sym);
	const char *file = NULL, *dwname = NULL;
	const struct plt_entry *plt;
	uint32_t line = 0;
	size_t n = 0;

	if ((!symname || sym.st_size == 0) && (plt = plt_lookup(d, pc))) {
		out[0] = (struct fr_raw_frame){ plt->name, NULL, 0, false, pc - plt->addr };
		return 1;
	}

	if (srclines) {
		Dwfl_Line *l = dwfl_module_getsrc(d->mod, pc);
		int ln = 0;

		if (l && (file = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL)) && ln > 0)
			line = (uint32_t)ln;
	}
	if (inlines || !symname) {
		Dwarf_Addr bias = 0;
		Dwarf_Die *cu = dwfl_module_addrdie(d->mod, pc, &bias), *scopes = NULL, inner;
		int ns = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;

		/* dwarf_getscopes continues an inline instance with its abstract
		 * origin's parents; the physical nesting (inline instances, then the
		 * function they are in) comes from the innermost DIE's parents. */
		if (ns > 0) {
			inner = scopes[0];
			free(scopes);
			scopes = NULL;
			ns = dwarf_getscopes_die(&inner, &scopes);
		}
		for (int i = 0; i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);

			if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point) {
				dwname = die_name(&scopes[i]);
				break;
			}
			if (tag != DW_TAG_inlined_subroutine || !inlines || n + 1 >= max)
				continue;
			out[n++] = (struct fr_raw_frame){ die_name(&scopes[i]), file, line, true,
							 symname ? off : 0 };
			call_site(cu, &scopes[i], &file, &line);
		}
		free(scopes);
	}
	out[n++] = (struct fr_raw_frame){ symname ? symname : dwname, file, line, false,
					 symname ? off : 0 };
	return (int)n;
}

uint64_t fr_dso__bias(const struct fr_dso *d, const struct fr_map *mp)
{
	return fr_dso_image__bias(&d->img, mp);
}

uint64_t fr_dso_image__bias(const struct fr_dso_image *img, const struct fr_map *mp)
{
	for (size_t i = 0; i < img->nr_load; i++) {
		const GElf_Phdr *ph = &img->load[i];
		uint64_t align = ph->p_align > 1 ? ph->p_align : 1;
		uint64_t off0 = ph->p_offset & ~(align - 1);

		if (mp->pgoff >= off0 && mp->pgoff < ph->p_offset + ph->p_filesz)
			return mp->start - mp->pgoff + ph->p_offset - ph->p_vaddr;
	}
	return mp->start - mp->pgoff;   /* assume file offsets are addresses */
}

int fr_dso_image__read(const struct fr_dso_image *img, uint64_t vaddr, void *buf, size_t n)
{
	for (size_t i = 0; i < img->nr_load; i++) {
		const GElf_Phdr *ph = &img->load[i];
		uint64_t rel = vaddr - ph->p_vaddr;

		if (vaddr < ph->p_vaddr || rel >= ph->p_filesz || ph->p_filesz - rel < n)
			continue;
		if (ph->p_offset + rel > img->size || img->size - (ph->p_offset + rel) < n)
			return -EFAULT;
		memcpy(buf, img->data + ph->p_offset + rel, n);
		return 0;
	}
	return -EFAULT;
}

/* The answers kept for this file in the build-id cache, where it has DWARF
 * (the slow part to skip): keyed by build id, flags and the DWARF file's
 * path, size and mtime (a debuginfo package installed or updated since makes
 * another). */
static void addrcache_open(struct fr_dso *d, uint32_t flags)
{
	const char *mainfile = NULL, *debugfile = NULL, *src;
	const unsigned char *id;
	char ident[PATH_MAX + 64];
	Dwarf_Addr bias;
	GElf_Addr vaddr;
	struct stat st;
	int idlen;

	d->ac_tried = true;
	idlen = dwfl_module_build_id(d->mod, &id, &vaddr);
	if (idlen <= 0 || !dwfl_module_getdwarf(d->mod, &bias))
		return;
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	src = debugfile ? debugfile : mainfile;
	if (!src || stat(src, &st) ||
	    (size_t)snprintf(ident, sizeof(ident), "%s\n%lld\n%lld.%09ld", src, (long long)st.st_size,
			     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec) >= sizeof(ident) ||
	    fr_addrcache__new(id, idlen, flags, ident, &d->ac))
		return;
	d->ac_flags = flags;
	fr_addrcache__load(d->ac, d->cache_dir);   /* none, or not usable: it starts empty */
}

int fr_dso__resolve(struct fr_dso *d, uint64_t pc, bool inlines, bool srclines,
		    struct fr_raw_frame *out, size_t max)
{
	uint32_t flags = (inlines ? FR_AC_INLINES : 0) | (srclines ? FR_AC_SRCLINES : 0);
	int n;

	if (d->cache_dir && !d->ac_tried && (inlines || srclines))
		addrcache_open(d, flags);
	if (d->ac && d->ac_flags == flags && (n = fr_addrcache__get(d->ac, pc, out, max)) > 0)
		return n;
	n = resolve(d, pc, inlines, srclines, out, max);
	if (d->ac && d->ac_flags == flags)
		fr_addrcache__add(d->ac, pc, out, n);   /* not kept when it fails: no harm */
	return n;
}
