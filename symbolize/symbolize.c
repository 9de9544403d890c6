/* symbolize/symbolize.c: the symbolizer object (see symbolize.h): per file
 * state opened on first use, a per-file cache from address to frames, interned
 * functions, and kernel lookups in the captured kallsyms.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "symbolize/demangle.h"
#include "symbolize/internal.h"
#include "symbolize/kallsyms.h"
#include "symbolize/strpool.h"

#define MAX_RAW 64                 /* inline depth kept per address */
#define CACHE_MAX (1u << 20)       /* cached frames before the caches start afresh */
#define FRONT_BITS 14              /* direct-mapped (pid, address) answers: 16k */

struct cached {                    /* a frame without its per-process parts */
	const struct fr_sym *sym;
	const char *file;
	uint32_t line;
	uint32_t off;
};

struct cslot {
	uint64_t pc;
	uint32_t first;                /* index in the arena */
	uint16_t n;                    /* frames there (>= 1) */
};

/* The answer for one (pid, address, ret) while the process model is at
 * version mver and the sample time in [tlo, thi): a frame seen 100k times
 * costs one probe here instead of a mapping search and a per-file lookup. */
struct fslot {
	uint64_t addr;
	uint64_t tlo, thi;
	uint64_t mver;
	uint64_t vaddr;                /* frames' vaddr (file offset for sym answers) */
	const struct fr_sym *sym;      /* n == 0: the one frame's function */
	uint32_t pid;
	uint32_t first;                /* n > 0: frames in the arena */
	uint32_t epoch;                /* of the arena; 0: empty slot */
	uint16_t n;
	bool ret;
};

struct kslot {                     /* a kernel address looked up */
	uint64_t addr;                 /* as looked up (after pc-1) */
	const struct fr_sym *sym;
	uint64_t off;
	bool named;                    /* kallsyms knew it: off counts */
};

struct dso_state {
	bool tried;
	enum fr_dso_status status;
	char *used;
	struct fr_dso *dso;
	const char *name, *short_name;
	uint8_t build_id[20];
	uint8_t build_id_size;
	struct cslot *slots;           /* the addresses resolved, by slot_index */
	size_t cap, nused;
	struct fr_hmap slot_index;     /* pc -> slots[] */
	uint64_t bias_start, bias_pgoff, bias;   /* the last mapping's load bias */
	bool has_bias;
};

struct fr_symbolizer {
	struct fr_symbolizer_opts o;
	struct fr_strpool *strs;
	struct dso_state *dsos;
	size_t nr_dsos, dsos_cap;
	struct fr_sym **syms;          /* interned functions, by sym_index */
	size_t syms_cap, nr_syms;
	struct fr_hmap sym_index;
	struct cached *arena;
	size_t arena_n, arena_cap;
	struct fr_kallsyms *ks;
	const struct fr_sym *unk_user, *unk_kernel;
	size_t nr_jit_syms;            /* of syms, those with a jit class */
	const char *kernel_dso;
	struct kslot *kcache;          /* by kindex */
	size_t kcap, kused;
	struct fr_hmap kindex;         /* address -> kcache[] */
	int vdso_fd;                   /* the saved vdso image (memfd), or -1 */
	struct fslot *front;           /* 1 << FRONT_BITS, allocated on first use */
	uint32_t epoch;                /* arena generation: flush_caches bumps it */
	uint64_t front_hits, front_misses;
};

/* The front cache's index (one multiply: it is computed for every user frame). */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static const struct fr_sym *intern_sym(struct fr_symbolizer *s, const char *name,
				       const char *dso, const char *dso_short, bool kernel,
				       bool inlined, bool unknown)
{
	uint64_t h = fr_hash__mix(fr_hash__mix((uintptr_t)name, (uintptr_t)dso),
				  (uint64_t)(kernel | inlined << 1 | unknown << 2));
	struct fr_hmap_it it;
	struct fr_sym *sym;
	uint32_t i;

	for (bool ok = fr_hmap__first(&s->sym_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&s->sym_index, &it, &i)) {
		sym = s->syms[i];
		if (sym->name == name && sym->dso == dso && sym->kernel == kernel &&
		    sym->inlined == inlined && sym->unknown == unknown)
			return sym;
	}
	if (s->nr_syms >= UINT32_MAX ||
	    fr_grow(&s->syms, &s->syms_cap, s->nr_syms + 1, sizeof(*s->syms), 4096) ||
	    !(sym = malloc(sizeof(*sym))))
		return NULL;
	if (fr_hmap__add(&s->sym_index, h, (uint32_t)s->nr_syms)) {
		free(sym);
		return NULL;
	}
	*sym = (struct fr_sym){ name, dso, dso_short, kernel, inlined, unknown, 0 };
	/* JIT code without a map (named JIT symbols are the report's own) */
	if (!kernel && unknown && (!strcmp(dso, "//anon") || !strncmp(dso, "/memfd:", 7) ||
				   !strncmp(dso, "[anon", 5)))
		sym->jit = FR_SYM_JIT_UNNAMED;
	s->nr_jit_syms += sym->jit != 0;
	s->syms[s->nr_syms++] = sym;
	return sym;
}

size_t fr_symbolizer__nr_jit_syms(const struct fr_symbolizer *s)
{
	return s->nr_jit_syms;
}

int fr_symbolizer__new(const struct fr_symbolizer_opts *o, struct fr_symbolizer **out)
{
	struct fr_symbolizer *s = calloc(1, sizeof(*s));
	const char *unk, *udso;

	if (!s || !(s->strs = fr_strpool__new()))
		goto nomem;
	s->vdso_fd = -1;
	s->epoch = 1;
	if (o)
		s->o = *o;
	unk = fr_strpool__str(s->strs, "[unknown]");
	s->kernel_dso = fr_strpool__str(s->strs, "[kernel.kallsyms]");
	udso = unk;
	if (!unk || !s->kernel_dso)
		goto nomem;
	s->unk_user = intern_sym(s, unk, udso, udso, false, false, true);
	s->unk_kernel = intern_sym(s, unk, s->kernel_dso, s->kernel_dso, true, false, true);
	if (!s->unk_user || !s->unk_kernel)
		goto nomem;
	*out = s;
	return 0;
nomem:
	fr_symbolizer__delete(s);
	return -ENOMEM;
}

void fr_symbolizer__delete(struct fr_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_dsos; i++) {
		fr_dso__delete(s->dsos[i].dso);
		free(s->dsos[i].used);
		free(s->dsos[i].slots);
		fr_hmap__exit(&s->dsos[i].slot_index);
	}
	free(s->dsos);
	for (size_t i = 0; i < s->nr_syms; i++)
		free(s->syms[i]);
	free(s->syms);
	fr_hmap__exit(&s->sym_index);
	free(s->arena);
	free(s->kcache);
	fr_hmap__exit(&s->kindex);
	free(s->front);
	fr_kallsyms__delete(s->ks);
	fr_strpool__delete(s->strs);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	free(s);
}

int fr_symbolizer__add_kallsyms(struct fr_symbolizer *s, const void *blob, size_t len)
{
	free(s->kcache);   /* names may change */
	s->kcache = NULL;
	s->kcap = s->kused = 0;
	fr_hmap__exit(&s->kindex);
	return fr_kallsyms__parse(blob, len, &s->ks);
}

int fr_symbolizer__add_vdso(struct fr_symbolizer *s, const void *image, size_t len)
{
	const uint8_t *p = image;
	int fd;

	if (len < 64 || memcmp(p, "\177ELF", 4))
		return -EINVAL;
	/* libdw opens files by name: the image becomes an anonymous file */
	fd = memfd_create("flightrec-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, p + done, len - done);

		if (w < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		done += (size_t)w;
	}
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	s->vdso_fd = fd;
	return 0;
}

const struct fr_sym *fr_symbolizer__unknown(struct fr_symbolizer *s, bool kernel)
{
	return kernel ? s->unk_kernel : s->unk_user;
}

/* The state of dso idx, its file opened on first use. */
static struct dso_state *dso_state(struct fr_symbolizer *s, const struct fr_addrspace *as,
				   uint32_t idx)
{
	const struct fr_dso_id *id;
	struct dso_state *d;
	const char *slash;

	if (idx < s->nr_dsos && s->dsos[idx].tried)
		return &s->dsos[idx];
	id = as->ops->dso(as->model, idx);
	if (!id)
		return NULL;
	if (idx >= s->nr_dsos) {
		size_t n = as->ops->nr_dsos(as->model);

		if (fr_grow(&s->dsos, &s->dsos_cap, n, sizeof(*s->dsos), 16))
			return NULL;
		memset(s->dsos + s->nr_dsos, 0, (n - s->nr_dsos) * sizeof(*s->dsos));
		s->nr_dsos = n;
	}
	d = &s->dsos[idx];
	if (d->tried)
		return d;
	d->tried = true;
	d->name = fr_strpool__str(s->strs, id->path[0] ? id->path : "[unknown]");
	slash = strrchr(d->name ? d->name : "", '/');
	d->short_name = slash && slash[1] ? fr_strpool__str(s->strs, slash + 1) : d->name;
	if (!d->name || !d->short_name)
		return NULL;
	d->build_id_size = id->build_id_size;
	memcpy(d->build_id, id->build_id, sizeof(d->build_id));
	if (s->vdso_fd >= 0 && !strcmp(id->path, "[vdso]")) {
		/* the image saved in the file: no other place to look */
		struct fr_symbolizer_opts vo = { .no_inline = s->o.no_inline,
						 .no_srcline = s->o.no_srcline };
		char path[64];
		struct fr_dso_id vid = { .path = path };

		snprintf(path, sizeof(path), "/proc/self/fd/%d", s->vdso_fd);
		if (fr_dso__open(&vid, &vo, &d->dso, &d->status, &d->used))
			return NULL;
		if (d->used) {
			free(d->used);
			d->used = strdup("(the vdso image saved in the file)");
		}
		return d;
	}
	if (fr_dso__open(id, &s->o, &d->dso, &d->status, &d->used))
		return NULL;
	return d;
}

const struct fr_dso_image *fr_symbolizer__image(struct fr_symbolizer *s, const struct fr_addrspace *as,
						 uint32_t dso)
{
	struct dso_state *d = dso_state(s, as, dso);

	return d && d->dso ? fr_dso__image(d->dso) : NULL;
}

static void flush_caches(struct fr_symbolizer *s)
{
	for (size_t i = 0; i < s->nr_dsos; i++) {
		free(s->dsos[i].slots);
		s->dsos[i].slots = NULL;
		s->dsos[i].cap = s->dsos[i].nused = 0;
		fr_hmap__exit(&s->dsos[i].slot_index);
	}
	s->arena_n = 0;
	if (++s->epoch == 0)   /* front slots name arena frames: all stale now */
		s->epoch = 1;
}

static struct cslot *cache_find(struct dso_state *d, uint64_t pc)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&d->slot_index, fr_hash__u64(pc), &it, &i); ok;
	     ok = fr_hmap__next(&d->slot_index, &it, &i))
		if (d->slots[i].pc == pc)
			return &d->slots[i];
	return NULL;
}

/* A symbol's name as shown: a version ("memcpy@@GLIBC_2.14") dropped, C++ and
 * Rust names demangled unless --no-demangle ("_ZN..." + "@plt" likewise);
 * interned. NULL on allocation failure. */
static const char *display_name(struct fr_symbolizer *s, const char *raw)
{
	const char *at = raw[0] ? strchr(raw, '@') : NULL;
	bool plt = at && !strcmp(at, "@plt");
	size_t len = at ? (size_t)(at - raw) : strlen(raw);
	char *base, *dm = NULL, buf[1024];
	const char *name;

	if (s->o.no_demangle || raw[0] != '_')
		return fr_strpool__intern(s->strs, raw, plt ? strlen(raw) : len);
	base = strndup(raw, len);
	if (!base)
		return NULL;
	dm = fr_demangle(base);
	if (!dm) {
		free(base);
		return fr_strpool__intern(s->strs, raw, plt ? strlen(raw) : len);
	}
	snprintf(buf, sizeof(buf), "%s%s", dm, plt ? "@plt" : "");
	name = fr_strpool__str(s->strs, buf);
	free(dm);
	free(base);
	return name;
}

/* An address of d that no symbol covers: "FILE+0xADDR", one per address. */
static const struct fr_sym *unknown_at(struct fr_symbolizer *s, const struct dso_state *d,
				       uint64_t addr)
{
	char buf[512];
	const char *name;

	snprintf(buf, sizeof(buf), "%s+0x%llx", d->short_name, (unsigned long long)addr);
	name = fr_strpool__str(s->strs, buf);
	return name ? intern_sym(s, name, d->name, d->short_name, false, false, true) : NULL;
}

/* Resolve pc in d with libdw and cache the frames; NULL on allocation failure. */
static const struct cslot *resolve_cached(struct fr_symbolizer *s, struct dso_state *d,
					  uint64_t pc)
{
	struct fr_raw_frame raw[MAX_RAW];
	struct cslot *sl;
	int n;

	if ((sl = cache_find(d, pc)))
		return sl;
	if (s->arena_n + MAX_RAW > CACHE_MAX)
		flush_caches(s);
	if (d->nused >= UINT32_MAX ||
	    fr_grow(&d->slots, &d->cap, d->nused + 1, sizeof(*d->slots), 256) ||
	    fr_grow(&s->arena, &s->arena_cap, s->arena_n + MAX_RAW, sizeof(*s->arena), 4096) ||
	    fr_hmap__add(&d->slot_index, fr_hash__u64(pc), (uint32_t)d->nused))
		return NULL;
	n = fr_dso__resolve(d->dso, pc, !s->o.no_inline, !s->o.no_srcline, raw, MAX_RAW);
	sl = &d->slots[d->nused];
	sl->pc = pc;
	sl->first = (uint32_t)s->arena_n;
	sl->n = (uint16_t)n;
	d->nused++;
	for (int i = 0; i < n; i++) {
		struct cached *c = &s->arena[s->arena_n++];
		const char *name = raw[i].name ? display_name(s, raw[i].name) : NULL;

		c->sym = name ? intern_sym(s, name, d->name, d->short_name, false, raw[i].inlined,
					   false)
			      : raw[i].name ? NULL : unknown_at(s, d, pc);
		c->file = raw[i].file ? fr_strpool__str(s->strs, raw[i].file) : NULL;
		c->line = raw[i].line;
		c->off = raw[i].off > UINT32_MAX ? UINT32_MAX : (uint32_t)raw[i].off;
		if (!c->sym)
			return NULL;
	}
	return sl;
}

static int one_frame(struct fr_frame *out, const struct fr_sym *sym, uint64_t addr,
		     uint64_t vaddr)
{
	*out = (struct fr_frame){ sym, NULL, 0, addr, 0, vaddr };
	return sym ? 1 : -ENOMEM;
}

/* The frames of an answer: up to max of the outermost (the innermost
 * inline instances are dropped when it does not fit). */
static int copy_frames(const struct fr_symbolizer *s, const struct fslot *f, uint64_t addr,
		       struct fr_frame *out, size_t max)
{
	size_t n = f->n < max ? f->n : max;

	if (!f->n)
		return one_frame(out, f->sym, addr, f->vaddr);
	for (size_t i = 0; i < n; i++) {
		const struct cached *c = &s->arena[f->first + (n < f->n ? f->n - n : 0) + i];

		out[i] = (struct fr_frame){ c->sym, c->file, c->line, addr,
					    c->off + (f->ret ? 1u : 0u), f->vaddr };
	}
	return (int)n;
}

/* The answer for (pid, addr, ret) at time without the front cache; *f
 * filled with it (f->epoch 0: not to be kept). */
static int lookup_user(struct fr_symbolizer *s, const struct fr_addrspace *as, uint32_t pid,
		       uint64_t time, uint64_t addr, bool ret, struct fslot *f)
{
	const struct fr_map *mp = as->ops->find_span(as->model, pid, time, addr, &f->tlo, &f->thi);
	const struct cslot *sl;
	struct dso_state *d;

	f->n = 0;
	f->epoch = 0;
	if (!mp) {
		f->sym = s->unk_user;
		f->vaddr = 0;
		return 0;
	}
	d = dso_state(s, as, mp->dso);
	if (!d)
		return -ENOMEM;
	if (!d->dso) {
		uint64_t off = addr - mp->start + mp->pgoff;

		/* special mappings ([vdso], //anon) have no offsets worth grouping */
		f->sym = d->status == FR_DSO_SPECIAL
			? intern_sym(s, s->unk_user->name, d->name, d->short_name, false, false, true)
			: unknown_at(s, d, off - (ret ? 1 : 0));
		f->vaddr = off;
		return f->sym ? 0 : -ENOMEM;
	}
	if (!d->has_bias || d->bias_start != mp->start || d->bias_pgoff != mp->pgoff) {
		d->bias = fr_dso__bias(d->dso, mp);   /* a function of start and pgoff */
		d->bias_start = mp->start;
		d->bias_pgoff = mp->pgoff;
		d->has_bias = true;
	}
	f->vaddr = addr - d->bias;
	sl = resolve_cached(s, d, f->vaddr - (ret ? 1 : 0));
	if (!sl)
		return -ENOMEM;
	f->first = sl->first;
	f->n = sl->n;
	return 0;
}

int fr_symbolizer__user(struct fr_symbolizer *s, const struct fr_addrspace *as, uint32_t pid,
			uint64_t time, uint64_t addr, bool ret, struct fr_frame *out, size_t max)
{
	uint64_t lo, hi;

	return fr_symbolizer__user_span(s, as, pid, time, addr, ret, out, max, &lo, &hi);
}

int fr_symbolizer__user_span(struct fr_symbolizer *s, const struct fr_addrspace *as, uint32_t pid,
			     uint64_t time, uint64_t addr, bool ret, struct fr_frame *out,
			     size_t max, uint64_t *tlo, uint64_t *thi)
{
	uint64_t mver = as->ops->version(as->model);
	struct fslot *f, tmp;
	int err;

	if (!max)
		return -EINVAL;
	if (!s->front && !(s->front = calloc((size_t)1 << FRONT_BITS, sizeof(*s->front)))) {
		/* no memory for the cache: look up uncached */
		err = lookup_user(s, as, pid, time, addr, ret, &tmp);
		*tlo = tmp.tlo;
		*thi = tmp.thi;
		return err ? err : copy_frames(s, &tmp, addr, out, max);
	}
	f = &s->front[mix(addr ^ (uint64_t)pid << 40 ^ (uint64_t)ret << 63) &
		      (((size_t)1 << FRONT_BITS) - 1)];
	if (f->epoch == s->epoch && f->addr == addr && f->pid == pid && f->ret == ret &&
	    f->mver == mver && time >= f->tlo && time < f->thi) {
		s->front_hits++;
		*tlo = f->tlo;
		*thi = f->thi;
		return copy_frames(s, f, addr, out, max);
	}
	s->front_misses++;
	err = lookup_user(s, as, pid, time, addr, ret, &tmp);
	if (err)
		return err;
	/* resolve_cached may have started the arena afresh: stamp after it */
	tmp.addr = addr;
	tmp.pid = pid;
	tmp.ret = ret;
	tmp.mver = mver;
	tmp.epoch = s->epoch;
	*f = tmp;
	*tlo = f->tlo;
	*thi = f->thi;
	return copy_frames(s, f, addr, out, max);
}

void fr_symbolizer__cache_stats(const struct fr_symbolizer *s, uint64_t *hits, uint64_t *misses)
{
	*hits = s->front_hits;
	*misses = s->front_misses;
}

static int kernel_lookup(struct fr_symbolizer *s, uint64_t a, struct kslot *out)
{
	const char *module = NULL, *name, *dso = s->kernel_dso;
	uint64_t off = 0;
	char buf[80];

	name = fr_kallsyms__lookup(s->ks, a, &off, &module);
	if (module) {
		snprintf(buf, sizeof(buf), "[%s]", module);
		dso = fr_strpool__str(s->strs, buf);
	}
	*out = (struct kslot){ a, NULL, off, name != NULL };
	if (!name) {
		out->sym = module ? intern_sym(s, s->unk_kernel->name, dso, dso, true, false, true)
				  : s->unk_kernel;
		return out->sym ? 0 : -ENOMEM;
	}
	name = fr_strpool__str(s->strs, name);
	out->sym = name && dso ? intern_sym(s, name, dso, dso, true, false, false) : NULL;
	return out->sym ? 0 : -ENOMEM;
}

/* The lookup of kernel address a, cached: a profile hits the same few
 * thousand kernel addresses millions of times. */
static const struct kslot *kernel_cached(struct fr_symbolizer *s, uint64_t a, struct kslot *tmp)
{
	uint64_t h = fr_hash__u64(a);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&s->kindex, h, &it, &i); ok; ok = fr_hmap__next(&s->kindex, &it, &i))
		if (s->kcache[i].addr == a)
			return &s->kcache[i];
	/* too many or no memory: look up uncached */
	if (s->kused >= CACHE_MAX / 2 ||
	    fr_grow(&s->kcache, &s->kcap, s->kused + 1, sizeof(*s->kcache), 512) ||
	    fr_hmap__reserve(&s->kindex, s->kused + 1))
		return kernel_lookup(s, a, tmp) ? NULL : tmp;
	if (kernel_lookup(s, a, &s->kcache[s->kused]))
		return NULL;
	fr_hmap__add(&s->kindex, h, (uint32_t)s->kused);   /* reserved: cannot fail */
	return &s->kcache[s->kused++];
}

int fr_symbolizer__kernel(struct fr_symbolizer *s, uint64_t addr, bool ret,
			  struct fr_frame *out, size_t max)
{
	struct kslot tmp;
	const struct kslot *k;

	if (!max)
		return -EINVAL;
	k = kernel_cached(s, addr - (ret ? 1 : 0), &tmp);
	if (!k)
		return -ENOMEM;
	one_frame(out, k->sym, addr, addr);
	if (k->named)
		out->off = k->off + (ret ? 1 : 0);
	return 1;
}

int fr_symbolizer__touch(struct fr_symbolizer *s, const struct fr_addrspace *as, uint32_t pid,
			 uint64_t time, uint64_t addr)
{
	const struct fr_map *mp = fr_addrspace__find(as, pid, time, addr);

	return !mp || dso_state(s, as, mp->dso) ? 0 : -ENOMEM;
}

size_t fr_symbolizer__nr_dsos(const struct fr_symbolizer *s)
{
	return s->nr_dsos;
}

int fr_symbolizer__dso_status(const struct fr_symbolizer *s, size_t i, const char **path,
			      enum fr_dso_status *status, const char **used)
{
	if (i >= s->nr_dsos || !s->dsos[i].tried)
		return -ENOENT;
	*path = s->dsos[i].name;
	*status = s->dsos[i].status;
	*used = s->dsos[i].used;
	return 0;
}

int fr_symbolizer__dso_build_id(const struct fr_symbolizer *s, size_t i, const uint8_t **id,
				size_t *size)
{
	if (i >= s->nr_dsos || !s->dsos[i].tried)
		return -ENOENT;
	*id = s->dsos[i].build_id;
	*size = s->dsos[i].build_id_size;
	return 0;
}

const char *fr_dso_status__str(enum fr_dso_status st)
{
	switch (st) {
	case FR_DSO_OK: return "ok";
	case FR_DSO_MISSING: return "not found (nor by build id)";
	case FR_DSO_BUILD_ID: return "build id differs from the recorded one";
	case FR_DSO_BAD: return "not a readable ELF file";
	case FR_DSO_DEBUG_ONLY: return "only separate debuginfo found (no unwind tables)";
	case FR_DSO_SPECIAL: return "no file to read";
	}
	return "?";
}
