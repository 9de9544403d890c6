/* src/report/pass/jit.c: names for JIT code: the file's PERFMAP blobs first,
 * then the local /tmp/perf-PID.map (as perf reads it), as functions of a "[JIT]
 * tid PID" object; and the count of JIT frames named and left unnamed.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/proc/perfmap.h"
#include "src/report/pass/pass.h"
#include "symbolize/demangle.h"
#include "symbolize/strpool.h"

struct jsym {
	struct fr_sym sym;
	const char *key;          /* the map's interned name */
	uint32_t pid;
};

struct fr_jit {
	struct fr_perfmaps *maps;
	struct fr_strpool *strs;
	struct jsym **syms;
	size_t n, cap;
	struct fr_hmap index;     /* (pid, name) -> syms[] */
	bool demangle, local;
	const char *const *symdirs;
	size_t nr_symdirs;
	uint32_t *loaded;         /* pids named from a local map, and where from */
	char **loaded_from;
	size_t nloaded, loaded_cap, from_cap;
	uint64_t named, unnamed;
};

int fr_jit__new(struct fr_reader *rd, const struct fr_jit_opts *o, struct fr_jit **out)
{
	struct fr_jit *j = calloc(1, sizeof(*j));

	if (!j || fr_perfmaps__new(&j->maps) || !(j->strs = fr_strpool__new())) {
		fr_jit__delete(j);
		return -ENOMEM;
	}
	j->demangle = o->demangle;
	j->local = o->local_maps;
	j->symdirs = o->symdirs;
	j->nr_symdirs = o->nr_symdirs;
	for (size_t i = 0; rd && i < fr_reader__nr_blobs(rd, FR_BLOB_PERFMAP); i++) {
		void *data = NULL;
		size_t len = 0;
		int err = 0;

		/* a bad blob costs the names of its JIT code, not the report */
		if (!fr_reader__blob(rd, FR_BLOB_PERFMAP, i, &data, &len))
			err = fr_perfmap__decode(j->maps, data, len);
		free(data);
		if (err == -ENOMEM) {
			fr_jit__delete(j);
			return err;
		}
		if (err)
			fr_reader__blob_damaged(rd, FR_BLOB_PERFMAP, i, "malformed payload");
	}
	*out = j;
	return 0;
}

void fr_jit__delete(struct fr_jit *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		free(j->syms[i]);
	for (size_t i = 0; i < j->nloaded; i++)
		free(j->loaded_from[i]);
	free(j->loaded);
	free(j->loaded_from);
	free(j->syms);
	fr_hmap__exit(&j->index);
	fr_perfmaps__delete(j->maps);
	fr_strpool__delete(j->strs);
	free(j);
}

/* The name as shown: a C++/Rust name demangled (a runtime that mangles, as
 * some AOT/JIT C++ emitters do), else as the runtime wrote it. */
static const char *shown_name(struct fr_jit *j, const char *name)
{
	char *d = j->demangle ? fr_demangle(name) : NULL;
	const char *s;

	if (!d)
		return fr_strpool__str(j->strs, name);
	s = fr_strpool__str(j->strs, d);
	free(d);
	return s;
}

static const struct fr_sym *sym_of(struct fr_jit *j, uint32_t pid, const char *key)
{
	uint64_t h = fr_hash__mix(fr_hash__u64(pid), (uint64_t)(uintptr_t)key);
	struct fr_hmap_it it;
	struct jsym *s;
	char dso[32];
	uint32_t i;

	for (bool ok = fr_hmap__first(&j->index, h, &it, &i); ok; ok = fr_hmap__next(&j->index, &it, &i))
		if (j->syms[i]->pid == pid && j->syms[i]->key == key)
			return &j->syms[i]->sym;
	snprintf(dso, sizeof(dso), "[JIT] tid %u", pid);   /* perf's name for it */
	if (j->n >= UINT32_MAX - 1 || fr_grow(&j->syms, &j->cap, j->n + 1, sizeof(*j->syms), 64) ||
	    !(s = calloc(1, sizeof(*s))))
		return NULL;
	s->key = key;
	s->pid = pid;
	s->sym.name = shown_name(j, key);
	s->sym.dso = s->sym.dso_short = fr_strpool__str(j->strs, dso);
	s->sym.jit = FR_SYM_JIT_NAMED;
	if (!s->sym.name || !s->sym.dso || fr_hmap__add(&j->index, h, (uint32_t)j->n)) {
		free(s);
		return NULL;
	}
	j->syms[j->n++] = s;
	return &s->sym;
}

/* Not in the file: DIR/jit/perf-PID.map of each --symdir (flightrec archive
 * puts them there), then /tmp/perf-PID.map (as perf), once per pid. */
static int load_local(struct fr_jit *j, uint32_t pid)
{
	char path[PATH_MAX];
	int err = -ENOENT;

	for (size_t i = 0; j->local && i <= j->nr_symdirs && err; i++) {
		if (i < j->nr_symdirs)
			snprintf(path, sizeof(path), "%s/jit/perf-%u.map", j->symdirs[i], pid);
		else
			snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
		err = fr_perfmaps__load_file(j->maps, pid, path);
		if (err == -ENOMEM)
			return err;
	}
	if (err)
		return err;
	if (fr_grow(&j->loaded, &j->loaded_cap, j->nloaded + 1, sizeof(*j->loaded), 16) ||
	    fr_grow(&j->loaded_from, &j->from_cap, j->nloaded + 1, sizeof(*j->loaded_from), 16) ||
	    !(j->loaded_from[j->nloaded] = strdup(path)))
		return -ENOMEM;
	j->loaded[j->nloaded++] = pid;
	return 0;
}

size_t fr_jit__local_maps(const struct fr_jit *j, size_t i, uint32_t *pid, const char **path)
{
	if (i < j->nloaded) {
		*pid = j->loaded[i];
		*path = j->loaded_from[i];
	}
	return j->nloaded;
}

int fr_jit__name(struct fr_jit *j, uint32_t pid, bool ret, struct fr_frame *f)
{
	const struct fr_perfmap_entry *e;
	const struct fr_sym *sym;
	struct fr_perfmap_stats st;

	if (fr_perfmaps__stats(j->maps, pid, &st) == -ENOENT) {
		size_t used;
		int err = load_local(j, pid);

		if (err == -ENOMEM)
			return err;
		if (fr_perfmaps__stats(j->maps, pid, &st) == -ENOENT &&
		    fr_perfmaps__add_text(j->maps, pid, "", 0, &used))   /* tried: none */
			return -ENOMEM;
	}
	e = fr_perfmaps__find(j->maps, pid, f->addr - (ret ? 1 : 0));
	if (!e)
		return 0;
	if (!(sym = sym_of(j, pid, e->name)))
		return -ENOMEM;
	f->sym = sym;
	f->file = NULL;
	f->line = 0;
	f->off = f->addr - e->start;
	f->vaddr = f->addr;
	return 0;
}

void fr_jit__count(struct fr_jit *j, const struct fr_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {   /* classed once, when the symbol was made */
		uint8_t c = f[i].sym->jit;

		j->unnamed += c == FR_SYM_JIT_UNNAMED;
		j->named += c == FR_SYM_JIT_NAMED;
	}
}

size_t fr_jit__nr_syms(const struct fr_jit *j)
{
	return j->n;
}

void fr_jit__stats(const struct fr_jit *j, uint64_t *named, uint64_t *unnamed)
{
	*named = j->named;
	*unnamed = j->unnamed;
}
