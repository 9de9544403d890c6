/* symbolize/resolve.c: an opened file's address lookups: symbols (the file's
 * symbol table read once and searched by libdwfl's rule), PLT stubs, inline
 * scopes and source lines, with the answers kept in its address cache.
 */
#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "base/grow.h"
#include "symbolize/internal.h"

#define SCAN_LOOKUPS 16    /* addresses resolved by libdwfl's scan before sorting */

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
