/* src/report/fmt/profile.c: the profile dictionary (profile_internal.h)
 * that pprof.c and otlp.c encode: a location per address with its mapping
 * (the process's, with the file's build id) and its frames as lines (inline
 * instances first, each with its source line), a function per symbol and
 * source file, a sample per stack and thread (and, timed, per event slot and
 * process, with every occurrence's time).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "src/util.h"
#include "src/report/fmt/profile_internal.h"
#include "src/report/pass/pass.h"


int64_t fr_pprof__str(struct fr_pprof *p, const char *s)
{
	uint64_t h = fr_hash__str(0, s);
	struct fr_hmap_it it;
	char *copy;
	uint32_t i;

	for (bool ok = fr_hmap__first(&p->strs, h, &it, &i); ok; ok = fr_hmap__next(&p->strs, &it, &i))
		if (!strcmp(p->strings[i], s))
			return i;
	if (p->nr_strings >= UINT32_MAX ||
	    fr_grow(&p->strings, &p->strings_cap, p->nr_strings + 1, sizeof(*p->strings), 256) ||
	    !(copy = strdup(s)))
		return -ENOMEM;
	if (fr_hmap__add(&p->strs, h, (uint32_t)p->nr_strings)) {
		free(copy);
		return -ENOMEM;
	}
	p->strings[p->nr_strings] = copy;
	return (int64_t)p->nr_strings++;
}

/* The string id of a recorded build id in hex, 0 ("") when none. */
static int64_t build_id(struct fr_pprof *p, const struct fr_dso_id *d)
{
	char hex[2 * sizeof(d->build_id) + 1];
	size_t n = d && d->build_id_size <= sizeof(d->build_id) ? d->build_id_size : 0;

	if (!n)
		return 0;
	for (size_t b = 0; b < n; b++)
		snprintf(hex + 2 * b, 3, "%02x", d->build_id[b]);
	return fr_pprof__str(p, hex);
}

/* The id of the mapping a frame's address is in (*id 0: none known): the
 * process's mapping of the file for user code, one per kernel image or
 * module (its range: the addresses seen). 0 or -ENOMEM. */
static int mapping(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s,
		   const struct fr_frame *f, uint64_t *id)
{
	const struct fr_map *m = NULL;
	const struct fr_dso_id *d = NULL;
	uint64_t start = 0, limit = 0, off = 0, h;
	struct fr_hmap_it it;
	int64_t name;
	uint32_t i;

	*id = 0;
	if (!f->sym->kernel && fr_resolver__mapping(res, s->pid, s->time, f->addr, &m, &d))
		return 0;
	if (m) {
		start = m->start;
		limit = m->end;
		off = m->pgoff;
	}
	if ((name = fr_pprof__str(p, m ? d->path : f->sym->dso)) < 0)
		return -ENOMEM;
	h = fr_hash__mix(fr_hash__mix(fr_hash__mix(fr_hash__u64((uint64_t)name), start), limit), off);
	for (bool ok = fr_hmap__first(&p->maps_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&p->maps_index, &it, &i)) {
		const Mapping *x = &p->maps[i];

		if (x->filename == name && x->memory_start == start && x->memory_limit == limit &&
		    x->file_offset == off) {
			*id = i + 1;
			return 0;
		}
	}
	if (p->nr_maps >= UINT32_MAX ||
	    fr_grow(&p->maps, &p->maps_cap, p->nr_maps + 1, sizeof(*p->maps), 16) ||
	    fr_grow(&p->mst, &p->mst_cap, p->nr_maps + 1, sizeof(*p->mst), 16) ||
	    fr_hmap__add(&p->maps_index, h, (uint32_t)p->nr_maps))
		return -ENOMEM;
	p->maps[p->nr_maps] = (Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
	p->maps[p->nr_maps].id = p->nr_maps + 1;
	p->maps[p->nr_maps].memory_start = start;
	p->maps[p->nr_maps].memory_limit = limit;
	p->maps[p->nr_maps].file_offset = off;
	p->maps[p->nr_maps].filename = name;
	if ((p->maps[p->nr_maps].build_id = build_id(p, d)) < 0)
		return -ENOMEM;
	p->mst[p->nr_maps] = (struct mstate){ f->sym->kernel, true, true, true, UINT64_MAX, 0 };
	*id = ++p->nr_maps;
	return 0;
}

/* The function id of a symbol in a source file (NULL: none known), added on
 * first use (0: ENOMEM). */
static uint64_t function(struct fr_pprof *p, const struct fr_sym *sym, const char *file)
{
	size_t n = p->nr_funcs;
	uint64_t h = fr_hash__mix(fr_hash__u64((uintptr_t)sym), (uintptr_t)file);
	struct fr_hmap_it it;
	int64_t name, fname = 0;
	uint32_t i;

	for (bool ok = fr_hmap__first(&p->funcs_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&p->funcs_index, &it, &i))
		if (p->fkeys[i].sym == sym && p->fkeys[i].file == file)
			return i + 1;
	if ((name = fr_pprof__str(p, sym->name)) < 0 || (file && (fname = fr_pprof__str(p, file)) < 0) ||
	    n >= UINT32_MAX || fr_grow(&p->funcs, &p->funcs_cap, n + 1, sizeof(*p->funcs), 256) ||
	    fr_grow(&p->fkeys, &p->fkeys_cap, n + 1, sizeof(*p->fkeys), 256) ||
	    fr_hmap__add(&p->funcs_index, h, (uint32_t)n))
		return 0;
	p->funcs[n] = (Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
	p->funcs[n].id = n + 1;
	p->funcs[n].name = p->funcs[n].system_name = name;
	p->funcs[n].filename = fname;
	p->fkeys[n] = (struct fkey){ sym, file };
	return ++p->nr_funcs;
}

/* The location of one address: its frames (inline instances innermost
 * first, then the function they are in) as lines with their source lines,
 * none where no symbol covers the address; added on first use. 0 or
 * -ENOMEM, the id in *id. */
static int location(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s,
		    const struct fr_frame *fr, size_t len, uint64_t *id)
{
	const struct fr_frame *outer = &fr[len - 1];
	size_t nl = outer->sym->unknown ? 0 : len, n = p->nr_locs;
	uint64_t map, h;
	struct fr_hmap_it it;
	struct mstate *ms;
	uint32_t k;

	if (mapping(p, res, s, outer, &map))
		return -ENOMEM;
	h = fr_hash__mix(fr_hash__mix(fr_hash__u64(map), outer->addr), nl);
	for (size_t i = 0; i < nl; i++) {
		if (!(p->fids[i] = function(p, fr[i].sym, fr[i].file)))
			return -ENOMEM;
		h = fr_hash__mix(fr_hash__mix(h, p->fids[i]), fr[i].line);
	}
	for (bool ok = fr_hmap__first(&p->locs_index, h, &it, &k); ok;
	     ok = fr_hmap__next(&p->locs_index, &it, &k)) {
		const Location *l = &p->locs[k];
		const Line *ln = &p->lines[p->loc_line[k]];

		if (l->mapping_id != map || l->address != outer->addr || l->n_line != nl)
			continue;
		for (size_t i = 0; i < nl; i++)
			if (ln[i].function_id != p->fids[i] || ln[i].line != fr[i].line)
				goto next;
		*id = k + 1;
		return 0;
next:;
	}
	if (n >= UINT32_MAX || fr_grow(&p->locs, &p->locs_cap, n + 1, sizeof(*p->locs), 256) ||
	    fr_grow(&p->loc_line, &p->loc_line_cap, n + 1, sizeof(*p->loc_line), 256) ||
	    fr_grow(&p->lines, &p->lines_cap, p->nr_lines + nl + 1, sizeof(*p->lines), 256) ||
	    fr_hmap__add(&p->locs_index, h, (uint32_t)n))
		return -ENOMEM;
	p->locs[n] = (Location)PERFTOOLS__PROFILES__LOCATION__INIT;
	p->locs[n].id = n + 1;
	p->locs[n].mapping_id = map;
	p->locs[n].address = outer->addr;
	p->locs[n].n_line = nl;
	p->loc_line[n] = p->nr_lines;
	ms = map ? &p->mst[map - 1] : NULL;
	for (size_t i = 0; i < nl; i++) {
		p->lines[p->nr_lines + i] = (Line)PERFTOOLS__PROFILES__LINE__INIT;
		p->lines[p->nr_lines + i].function_id = p->fids[i];
		p->lines[p->nr_lines + i].line = fr[i].line;
		if (ms) {
			ms->files &= fr[i].file != NULL;
			ms->lines &= fr[i].line != 0;
		}
	}
	if (ms) {
		ms->funcs &= nl > 0;
		ms->lo = outer->addr < ms->lo ? outer->addr : ms->lo;
		ms->hi = outer->addr > ms->hi ? outer->addr : ms->hi;
	}
	p->nr_lines += nl;
	*id = ++p->nr_locs;
	return 0;
}

/* What a sample is apart by besides its stack: its thread's name, and,
 * timed, its event slot and process. */
struct skey {
	int64_t thread, pid;
	uint32_t slot;
};

/* The sample of k whose locations are p->ids[0..n), added on first use
 * (exe: its process's name, timed): its index, or -ENOMEM. */
static int64_t sample_of(struct fr_pprof *p, const struct skey *k, int64_t exe, size_t n)
{
	uint64_t h = fr_hash__mix(fr_hash__mix(fr_hash__mix(fr_hash__u64((uint64_t)k->thread),
							     (uint64_t)k->pid), k->slot), n), *ids;
	size_t i = p->nr_samples;
	struct fr_hmap_it it;
	uint32_t x;

	for (size_t j = 0; j < n; j++)
		h = fr_hash__mix(h, p->ids[j]);
	for (bool ok = fr_hmap__first(&p->samples_index, h, &it, &x); ok;
	     ok = fr_hmap__next(&p->samples_index, &it, &x))
		if (p->labels[x].str == k->thread && p->samples[x].n_location_id == n &&
		    (!p->timed || (p->pids[x] == k->pid && p->slots[x] == k->slot)) &&
		    !memcmp(p->loc_ids[x], p->ids, n * sizeof(*ids)))
			return x;
	if (i >= UINT32_MAX || !(ids = malloc((n + 1) * sizeof(*ids))))
		return -ENOMEM;
	if (fr_grow(&p->samples, &p->samples_cap, i + 1, sizeof(*p->samples), 256) ||
	    fr_grow(&p->labels, &p->labels_cap, i + 1, sizeof(*p->labels), 256) ||
	    fr_grow(&p->loc_ids, &p->loc_ids_cap, i + 1, sizeof(*p->loc_ids), 256) ||
	    fr_grow(&p->values, &p->values_cap, VALUES * i + VALUES, sizeof(*p->values), 512) ||
	    (p->timed && (fr_grow(&p->slots, &p->slots_cap, i + 1, sizeof(*p->slots), 256) ||
			  fr_grow(&p->pids, &p->pids_cap, i + 1, sizeof(*p->pids), 256) ||
			  fr_grow(&p->exes, &p->exes_cap, i + 1, sizeof(*p->exes), 256))) ||
	    fr_hmap__add(&p->samples_index, h, (uint32_t)i)) {
		free(ids);
		return -ENOMEM;
	}
	memcpy(ids, p->ids, n * sizeof(*ids));
	p->loc_ids[i] = ids;
	p->samples[i] = (Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
	p->samples[i].n_location_id = n;
	p->samples[i].n_value = 2;
	p->samples[i].n_label = 1;
	p->labels[i] = (Label)PERFTOOLS__PROFILES__LABEL__INIT;
	p->labels[i].key = p->thread_key;
	p->labels[i].str = k->thread;
	if (p->timed) {
		p->slots[i] = k->slot;
		p->pids[i] = k->pid;
		p->exes[i] = exe;
	}
	memset(&p->values[VALUES * i], 0, VALUES * sizeof(*p->values));
	return (int64_t)p->nr_samples++;
}

bool fr_pprof__clock_event(const struct fr_file_event *e)
{
	return e && e->attr.type == PERF_TYPE_SOFTWARE &&
	       (e->attr.config == PERF_COUNT_SW_CPU_CLOCK || e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

int64_t fr_pprof__period(const struct fr_file_event *e)
{
	const struct perf_event_attr *a = e ? &e->attr : NULL;

	return !a ? 0 : !a->freq ? (int64_t)a->sample_period
	       : fr_pprof__clock_event(e) && a->sample_freq ? (int64_t)(1000000000ull / a->sample_freq) : 0;
}

int fr_pprof__new(struct fr_pprof **out)
{
	struct fr_pprof *p = calloc(1, sizeof(*p));

	if (!p || fr_pprof__str(p, "") < 0 || (p->thread_key = fr_pprof__str(p, "thread")) < 0) {
		fr_pprof__delete(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

int fr_pprof__new_timed(struct fr_pprof **out)
{
	int err = fr_pprof__new(out);

	if (!err)
		(*out)->timed = true;
	return err;
}

/* The name of s's process (its main thread's), "" where none is known. */
static int64_t exe_of(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s)
{
	const char *name = s->pid ? fr_resolver__comm(res, s->pid, s->time) : NULL;

	return fr_pprof__str(p, name && name[0] != ':' ? name : "");
}


/* v += x, held at INT64_MAX: a file's periods are hostile (profile.proto's
 * values are signed) */
static void add_sat(int64_t *v, uint64_t x)
{
	uint64_t room = (uint64_t)INT64_MAX - (uint64_t)(*v < 0 ? 0 : *v);

	*v = x >= room ? INT64_MAX : *v + (int64_t)x;
}

int fr_pprof__add_to(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s,
		     uint32_t slot, bool off_cpu)
{
	struct skey k = { fr_pprof__str(p, s->comm), p->timed ? s->pid : 0, p->timed ? slot : 0 };
	uint64_t h = fr_hash__mix(fr_hash__mix(fr_hash__mix(fr_hash__u64(s->stack_id),
							     (uint64_t)k.thread), (uint64_t)k.pid), k.slot);
	int64_t i = -1, exe = 0;
	struct fr_hmap_it it;
	size_t n = 0;
	uint32_t x;

	if (k.thread < 0)
		return -ENOMEM;
	/* a callchain the resolver has seen: the sample made of it before */
	for (bool ok = s->stack_id && fr_hmap__first(&p->sids_index, h, &it, &x); ok;
	     ok = fr_hmap__next(&p->sids_index, &it, &x))
		if (p->sids[x].stack_id == s->stack_id && p->sids[x].thread == k.thread &&
		    p->sids[x].pid == k.pid && p->sids[x].slot == k.slot) {
			i = p->sids[x].sample;
			break;
		}
	if (i < 0) {
		for (size_t f = 0, len; f < s->nr_frames; f += len) {   /* leaf first */
			for (len = 1; f + len < s->nr_frames && s->frames[f + len - 1].sym->inlined; len++)
				;
			if (location(p, res, s, s->frames + f, len, &p->ids[n++]))
				return -ENOMEM;
		}
		if ((p->timed && (exe = exe_of(p, res, s)) < 0) ||
		    (i = sample_of(p, &k, exe, n)) < 0)
			return -ENOMEM;
		if (s->stack_id) {
			if (fr_grow(&p->sids, &p->sids_cap, p->nr_sids + 1, sizeof(*p->sids), 256) ||
			    fr_hmap__add(&p->sids_index, h, (uint32_t)p->nr_sids))
				return -ENOMEM;
			p->sids[p->nr_sids++] = (struct sid){ s->stack_id, k.thread, k.pid, k.slot,
							      (uint32_t)i };
		}
	}
	if (p->timed) {
		if (fr_grow(&p->occ, &p->occ_cap, p->nr_occ + 1, sizeof(*p->occ), 1024))
			return -ENOMEM;
		p->occ[p->nr_occ++] = (struct occ){ (uint32_t)i, s->time, (int64_t)s->period };
	}
	p->off_cpu |= off_cpu;
	add_sat(&p->values[VALUES * i + (off_cpu ? 2 : 0)], !off_cpu);
	add_sat(&p->values[VALUES * i + (off_cpu ? 2 : 1)], s->period);
	if (!off_cpu && s->parallelism) {   /* --latency */
		p->latency = true;
		add_sat(&p->values[VALUES * i + 3], fr_rsample__latency(s));
	}
	return 0;
}

int fr_pprof__add(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s)
{
	return fr_pprof__add_to(p, res, s, 0, false);
}

int fr_pprof__add_off_cpu(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s)
{
	return fr_pprof__add_to(p, res, s, 0, true);
}

void fr_pprof__delete(struct fr_pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_strings; i++)
		free(p->strings[i]);
	for (size_t i = 0; i < p->nr_samples; i++)
		free(p->loc_ids[i]);
	free(p->strings);
	free(p->fkeys);
	fr_hmap__exit(&p->strs);
	fr_hmap__exit(&p->maps_index);
	fr_hmap__exit(&p->funcs_index);
	fr_hmap__exit(&p->locs_index);
	fr_hmap__exit(&p->samples_index);
	fr_hmap__exit(&p->sids_index);
	free(p->funcs);
	free(p->locs);
	free(p->loc_line);
	free(p->lines);
	free(p->maps);
	free(p->mst);
	free(p->samples);
	free(p->labels);
	free(p->values);
	free(p->loc_ids);
	free(p->sids);
	free(p->slots);
	free(p->pids);
	free(p->exes);
	free(p->occ);
	free(p);
}

void fr_pprof__finish_mappings(struct fr_pprof *p, bool inline_frames)
{
	for (size_t i = 0; i < p->nr_maps; i++) {
		Mapping *m = &p->maps[i];
		const struct mstate *ms = &p->mst[i];

		if (ms->kernel && ms->lo <= ms->hi) {
			m->memory_start = ms->lo;
			m->memory_limit = ms->hi + 1;
		}
		m->has_functions = ms->funcs;
		m->has_filenames = ms->funcs && ms->files;
		m->has_line_numbers = ms->funcs && ms->lines;
		m->has_inline_frames = m->has_line_numbers && inline_frames;
	}
}

