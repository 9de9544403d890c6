/* symbolize/symbolize.h: addresses to functions, inline frames and source
 * lines. User addresses go through the caller's process model (addrspace.h)
 * to a file, checked against its recorded build id and read with libdw (ELF symbol
 * table, DWARF, separate debuginfo, debuginfod when DEBUGINFOD_URLS is set);
 * kernel addresses through the symbols captured at record time (kallsyms.h).
 * Library code: returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_SYMBOLIZE_H
#define FR_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/addrspace.h"

struct fr_symbolizer;

/* One function of one file. Interned: the same function is the same pointer.
 * An address no symbol covers in a known file is a function of its own named
 * "FILE+0xADDR" (file address, or file offset where the file was not found),
 * as perf groups unknown addresses per object and offset. */
struct fr_sym {
	const char *name;      /* "main", "memcmp@plt", "libfoo.so+0x7bd", "[unknown]" */
	const char *dso;       /* "/usr/bin/x", "[kernel.kallsyms]", "[ext4]", "[unknown]" */
	const char *dso_short; /* basename of dso */
	bool kernel;
	bool inlined;          /* an inline instance (DW_TAG_inlined_subroutine) */
	bool unknown;          /* no symbol covers the address */
	uint8_t jit;           /* FR_SYM_JIT_*: what the JIT count makes of it, set once */
};

/* fr_sym.jit: a user-space frame unnamed in anonymous memory (//anon,
 * /memfd:..., [anon...]: JIT code without a map; set by the symbolizer), or
 * named from a perf map or jitdump (set by the report's JIT names); else 0. */
enum { FR_SYM_JIT_UNNAMED = 1, FR_SYM_JIT_NAMED = 2 };

/* One frame: a function and where in it. An address inside inlined code gives
 * several frames, innermost first, all with the same addr. */
struct fr_frame {
	const struct fr_sym *sym;
	const char *file;      /* source file (interned) or NULL */
	uint32_t line;         /* 0: unknown */
	uint64_t addr;         /* the address as sampled */
	uint64_t off;          /* addr - symbol start (the outer frame's symbol) */
	uint64_t vaddr;        /* addr in the file's address space (0 for kernel) */
};

struct fr_symbolizer_opts {
	const char *symfs;            /* prefix for every recorded path, or NULL */
	const char *const *symdirs;   /* directories searched by basename + build id */
	size_t nr_symdirs;
	bool no_inline;               /* one frame per address */
	bool no_srcline;              /* skip DWARF line lookups (faster) */
	bool no_demangle;             /* keep C++/Rust names as the symbol table has them */
	const char *cache_dir;        /* build-id cache (flightrec archive), or NULL */
	bool only_given_dirs;         /* look only under symfs, symdirs and cache_dir: not by
	                               * build id in the system's debug paths (/usr/lib/debug,
	                               * debuginfod): results that do not depend on the machine */
};

int fr_symbolizer__new(const struct fr_symbolizer_opts *o, struct fr_symbolizer **out);
void fr_symbolizer__delete(struct fr_symbolizer *s);
/* How many of its symbols are FR_SYM_JIT_UNNAMED. */
size_t fr_symbolizer__nr_jit_syms(const struct fr_symbolizer *s);
/* Add a KSYMS blob (several may be added). */
int fr_symbolizer__add_kallsyms(struct fr_symbolizer *s, const void *blob, size_t len);
/* The vdso image saved at record time (VDSO blob): [vdso] mappings resolve
 * against it from then on. 0, -EINVAL (not ELF) or -errno. */
int fr_symbolizer__add_vdso(struct fr_symbolizer *s, const void *image, size_t len);

/* Frames for a user address of process pid at time, innermost first, at most
 * max (max >= 1). ret: addr is a return address (looked up at addr - 1).
 * Returns the number of frames (>= 1: an unknown address still gets one). */
int fr_symbolizer__user(struct fr_symbolizer *s, const struct fr_addrspace *as, uint32_t pid,
			uint64_t time, uint64_t addr, bool ret, struct fr_frame *out, size_t max);
/* The same, and the span of times [*tlo, *thi) around time over which the
 * answer stays the same while the process model's version does not change
 * (the address space's version). */
int fr_symbolizer__user_span(struct fr_symbolizer *s, const struct fr_addrspace *as, uint32_t pid,
			     uint64_t time, uint64_t addr, bool ret, struct fr_frame *out,
			     size_t max, uint64_t *tlo, uint64_t *thi);
/* How often fr_symbolizer__user found its answer in the cache of (pid,
 * address) answers, and how often it looked it up (tests, benchmarks). */
void fr_symbolizer__cache_stats(const struct fr_symbolizer *s, uint64_t *hits,
				uint64_t *misses);
/* The same for a kernel address. */
int fr_symbolizer__kernel(struct fr_symbolizer *s, uint64_t addr, bool ret,
			  struct fr_frame *out, size_t max);
/* Open the file a user address is in, as fr_symbolizer__user would, without
 * looking the address up: its status then counts in fr_symbolizer__dso_status. */
int fr_symbolizer__touch(struct fr_symbolizer *s, const struct fr_addrspace *as, uint32_t pid,
			 uint64_t time, uint64_t addr);

/* Why a file could not be used, for the report's notes: one entry per file
 * that some address needed. */
enum fr_dso_status {
	FR_DSO_OK = 0,
	FR_DSO_MISSING,        /* not found (nor by build id) */
	FR_DSO_BUILD_ID,       /* found, but its build id differs from the recorded one */
	FR_DSO_BAD,            /* not a readable ELF file */
	FR_DSO_DEBUG_ONLY,     /* only separate debuginfo matched: no unwind tables */
	FR_DSO_SPECIAL,        /* [vdso], //anon, ...: nothing to read */
};
size_t fr_symbolizer__nr_dsos(const struct fr_symbolizer *s);
/* The i-th file looked at: its recorded path, status and the file used. */
int fr_symbolizer__dso_status(const struct fr_symbolizer *s, size_t i, const char **path,
			      enum fr_dso_status *status, const char **used);
/* The i-th file's recorded build id (*size 0: none recorded). */
int fr_symbolizer__dso_build_id(const struct fr_symbolizer *s, size_t i, const uint8_t **id,
				size_t *size);
const char *fr_dso_status__str(enum fr_dso_status st);
/* The unknown-function symbol of the kernel and of unknown mappings. */
const struct fr_sym *fr_symbolizer__unknown(struct fr_symbolizer *s, bool kernel);

#endif
