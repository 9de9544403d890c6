/* symbolize/dso.c: one mapped file, found by path, --symdir, the build-id
 * cache or build id, checked against the recorded build id and opened as an
 * offline libdw module at its own addresses; its raw image for the unwinder.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "symbolize/internal.h"

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
