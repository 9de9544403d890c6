/* symbolize/internal.h: what the files of symbolize/ share and nothing else
 * sees: the file image of a mapped object, used by the unwinder to read
 * unwind tables (.eh_frame_hdr, .eh_frame) at the addresses they are mapped.
 */
#ifndef FR_SYMBOLIZE_INTERNAL_H
#define FR_SYMBOLIZE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>

#include "symbolize/addrspace.h"
#include "symbolize/symbolize.h"

struct fr_dso_image {
	const uint8_t *data;       /* the whole file, as libelf mapped it */
	size_t size;
	GElf_Phdr *load;           /* PT_LOAD headers */
	size_t nr_load;
	uint64_t eh_frame_hdr;     /* vaddr of PT_GNU_EH_FRAME, 0 if none */
	uint64_t text_start, text_end;   /* vaddr range of executable PT_LOADs */
};

/* The image of dso (opened on first use), or NULL when the file is not
 * usable for unwinding (missing, build id mismatch, only debuginfo). */
const struct fr_dso_image *fr_symbolizer__image(struct fr_symbolizer *s, const struct fr_addrspace *as,
						 uint32_t dso);

/* addr = vaddr + bias for the mapping mp of the image's file. */
uint64_t fr_dso_image__bias(const struct fr_dso_image *img, const struct fr_map *mp);

/* Copy n bytes at vaddr from the file (a PT_LOAD's file-backed part):
 * 0 or -EFAULT. */
int fr_dso_image__read(const struct fr_dso_image *img, uint64_t vaddr, void *buf, size_t n);

/* ---- dso.c: one mapped file opened with libdw; resolve.c: its lookups ---- */
/* Private to dso.c (opens and frees it) and resolve.c (fills the tables). */
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

/* Find and open the file of id: symfs + path, each symdir/basename, then by
 * build id (/usr/lib/debug/.build-id, debuginfod). *st says what happened;
 * *out is NULL unless some file matched. *used: the file opened (malloc'd). */
int fr_dso__open(const struct fr_dso_id *id, const struct fr_symbolizer_opts *o,
		 struct fr_dso **out, enum fr_dso_status *st, char **used);
void fr_dso__delete(struct fr_dso *d);
/* libdwfl's find_debuginfo (debugcache.c): the module's userdata names the
 * build-id cache (NULL: none); separate debuginfo with compressed sections
 * is stored there decompressed, CACHE/.build-id/xx/yyyy.debug, and read
 * from there once it is (checked: ours, not writable by others, its build id). */
int fr_debugcache__find(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name);
/* Make every parent directory of path (0755); path is restored: 0 or -errno. */
int fr_debugcache__mkdirs(char *path);
/* CACHE/.build-id/xx/yyyy + suffix for build id id (n bytes): 0 or -ENAMETOOLONG. */
int fr_debugcache__path(char *path, size_t len, const char *cache, const unsigned char *id, int n,
			const char *suffix);
struct stat;
/* A cache file ours to trust: a regular file (no link followed) owned by us
 * or root and writable by no one else; *st its fstat. The fd, or -errno
 * (-EPERM: not to be trusted). */
int fr_debugcache__open_trusted(const char *path, struct stat *st);
const struct fr_dso_image *fr_dso__image(const struct fr_dso *d);
/* addr = file address + bias in mapping mp (from the program headers, also
 * of a debuginfo-only file). */
uint64_t fr_dso__bias(const struct fr_dso *d, const struct fr_map *mp);

/* A frame before interning: strings point into libdw's data of the file. */
struct fr_raw_frame {
	const char *name;     /* NULL: no symbol */
	const char *file;
	uint32_t line;
	bool inlined;
	uint64_t off;         /* pc - start of the outer function's symbol */
};
/* Frames at file address pc, innermost first: inline instances (unless
 * !inlines), then the function (ELF symbol table name, else DWARF name).
 * Returns the number written (>= 1). */
int fr_dso__resolve(struct fr_dso *d, uint64_t pc, bool inlines, bool srclines,
		    struct fr_raw_frame *out, size_t max);

/* ---- addrcache.c: fr_dso__resolve's answers kept by build id ---- */
#define FR_AC_INLINES 1u
#define FR_AC_SRCLINES 2u
struct fr_addrcache;

/* An empty cache for the object of build id id (idlen bytes), its answers
 * made with flags (FR_AC_*) from the debuginfo ident names (path, size,
 * mtime): 0, -EINVAL or -ENOMEM. */
int fr_addrcache__new(const unsigned char *id, int idlen, uint32_t flags, const char *ident,
		      struct fr_addrcache **out);
void fr_addrcache__delete(struct fr_addrcache *ac);
/* Read CACHE/.build-id/xx/yyyy.addrsFLAGS into an empty cache: only a
 * regular file owned by us or root and writable by no one else (-EPERM);
 * -ENOENT, -EBADMSG (malformed), -ESTALE (another object, flags or
 * debuginfo); on any error the cache stays empty. */
int fr_addrcache__load(struct fr_addrcache *ac, const char *cache_dir);
/* The same from bytes (the fuzz target's entry). */
int fr_addrcache__parse(struct fr_addrcache *ac, const void *buf, size_t len);
/* The frames kept for pc (from the file read), at most max: their number,
 * 0 when none. Strings live as long as the cache. */
int fr_addrcache__get(const struct fr_addrcache *ac, uint64_t pc, struct fr_raw_frame *out,
		      size_t max);
/* Keep an answer (n frames, 1..64; strings copied): 0, -EINVAL, -ENOMEM. */
int fr_addrcache__add(struct fr_addrcache *ac, uint64_t pc, const struct fr_raw_frame *f, int n);
/* The file's bytes (malloc'd) of what the cache holds: 0 or -ENOMEM. */
int fr_addrcache__serialize(struct fr_addrcache *ac, void **buf, size_t *len);
/* Write the file (a temp file renamed over it) if answers were added. */
int fr_addrcache__save(struct fr_addrcache *ac, const char *cache_dir);

#endif
