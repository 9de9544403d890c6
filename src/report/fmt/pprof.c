/* src/report/fmt/pprof.c: --format=pprof: the samples as a gzipped pprof
 * Profile (src/report/fmt/profile.proto, compiled by protoc-c): a location per
 * address with its mapping (the process's, with the file's build id) and its
 * frames as lines (inline instances first, each with its source line), a
 * function per symbol and source file, the thread's name as label "thread".
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/hmap.h"
#include "src/util.h"
#include "src/report/fmt/fmt.h"
#include "src/report/fmt/profile.pb-c.h"
#include "src/report/pass/pass.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

struct fkey {                  /* what makes a Function: the symbol and its source file */
	const struct fr_sym *sym;
	const char *file;
};

struct mstate {                /* what a Mapping's locations have, for its has_* fields */
	bool kernel, funcs, files, lines;
	uint64_t lo, hi;           /* kernel: the addresses seen (its range) */
};

struct sid {                   /* a callchain the resolver gave an id: its Sample */
	uint64_t stack_id;
	int64_t thread;
	uint32_t sample;
};

#define VALUES 3   /* per sample: samples/count, cpu (or the event), off_cpu/nanoseconds */

struct fr_pprof {
	/* strings, mappings, functions, locations, samples, stack ids -> index */
	struct fr_hmap strs, maps_index, funcs_index, locs_index, samples_index, sids_index;
	char **strings;
	size_t nr_strings, strings_cap;
	struct fkey *fkeys;        /* of each function */
	size_t fkeys_cap;
	Function *funcs;
	Location *locs;
	size_t *loc_line;          /* each location's first line */
	Line *lines;
	size_t nr_funcs, funcs_cap, nr_locs, locs_cap, loc_line_cap, nr_lines, lines_cap;
	Mapping *maps;
	struct mstate *mst;
	size_t nr_maps, maps_cap, mst_cap;
	Sample *samples;
	Label *labels;
	int64_t *values;                 /* VALUES per sample: samples, cpu, off_cpu ns */
	bool off_cpu;                    /* fr_pprof__add_off_cpu was called: 3 sample types */
	uint64_t **loc_ids;
	size_t nr_samples, samples_cap, labels_cap, values_cap, loc_ids_cap;
	struct sid *sids;
	size_t nr_sids, sids_cap;
	uint64_t ids[FR_MAX_FRAMES];     /* one sample's locations */
	uint64_t fids[FR_MAX_FRAMES];    /* one location's functions */
	int64_t thread_key;
};

/* The index of s in the string table, added on first use (-ENOMEM). */
static int64_t str(struct fr_pprof *p, const char *s)
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
	return str(p, hex);
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
	if ((name = str(p, m ? d->path : f->sym->dso)) < 0)
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
	if ((name = str(p, sym->name)) < 0 || (file && (fname = str(p, file)) < 0) ||
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

/* The sample whose thread and locations are those of p->ids[0..n), added
 * on first use: its index, or -ENOMEM. */
static int64_t sample_of(struct fr_pprof *p, int64_t thread, size_t n)
{
	uint64_t h = fr_hash__mix(fr_hash__u64((uint64_t)thread), n), *ids;
	size_t i = p->nr_samples;
	struct fr_hmap_it it;
	uint32_t k;

	for (size_t j = 0; j < n; j++)
		h = fr_hash__mix(h, p->ids[j]);
	for (bool ok = fr_hmap__first(&p->samples_index, h, &it, &k); ok;
	     ok = fr_hmap__next(&p->samples_index, &it, &k))
		if (p->labels[k].str == thread && p->samples[k].n_location_id == n &&
		    !memcmp(p->loc_ids[k], p->ids, n * sizeof(*ids)))
			return k;
	if (i >= UINT32_MAX || !(ids = malloc((n + 1) * sizeof(*ids))))
		return -ENOMEM;
	if (fr_grow(&p->samples, &p->samples_cap, i + 1, sizeof(*p->samples), 256) ||
	    fr_grow(&p->labels, &p->labels_cap, i + 1, sizeof(*p->labels), 256) ||
	    fr_grow(&p->loc_ids, &p->loc_ids_cap, i + 1, sizeof(*p->loc_ids), 256) ||
	    fr_grow(&p->values, &p->values_cap, VALUES * i + VALUES, sizeof(*p->values), 512) ||
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
	p->labels[i].str = thread;
	memset(&p->values[VALUES * i], 0, VALUES * sizeof(*p->values));
	return (int64_t)p->nr_samples++;
}

int fr_pprof__new(struct fr_pprof **out)
{
	struct fr_pprof *p = calloc(1, sizeof(*p));

	if (!p || str(p, "") < 0 || (p->thread_key = str(p, "thread")) < 0) {
		fr_pprof__delete(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

/* off_cpu: s->period is a wait in ns, the third value (no sample counted) */
static int add(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s, bool off_cpu)
{
	int64_t thread = str(p, s->comm), i = -1;
	uint64_t h = fr_hash__mix(fr_hash__u64(s->stack_id), (uint64_t)thread);
	struct fr_hmap_it it;
	size_t n = 0;
	uint32_t k;

	if (thread < 0)
		return -ENOMEM;
	/* a callchain the resolver has seen: the sample made of it before */
	for (bool ok = s->stack_id && fr_hmap__first(&p->sids_index, h, &it, &k); ok;
	     ok = fr_hmap__next(&p->sids_index, &it, &k))
		if (p->sids[k].stack_id == s->stack_id && p->sids[k].thread == thread) {
			i = p->sids[k].sample;
			break;
		}
	if (i < 0) {
		for (size_t f = 0, len; f < s->nr_frames; f += len) {   /* leaf first */
			for (len = 1; f + len < s->nr_frames && s->frames[f + len - 1].sym->inlined; len++)
				;
			if (location(p, res, s, s->frames + f, len, &p->ids[n++]))
				return -ENOMEM;
		}
		if ((i = sample_of(p, thread, n)) < 0)
			return -ENOMEM;
		if (s->stack_id) {
			if (fr_grow(&p->sids, &p->sids_cap, p->nr_sids + 1, sizeof(*p->sids), 256) ||
			    fr_hmap__add(&p->sids_index, h, (uint32_t)p->nr_sids))
				return -ENOMEM;
			p->sids[p->nr_sids++] = (struct sid){ s->stack_id, thread, (uint32_t)i };
		}
	}
	p->values[VALUES * i + (off_cpu ? 2 : 0)] += !off_cpu;
	p->values[VALUES * i + (off_cpu ? 2 : 1)] += (int64_t)s->period;
	return 0;
}

int fr_pprof__add(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s)
{
	return add(p, res, s, false);
}

int fr_pprof__add_off_cpu(struct fr_pprof *p, struct fr_resolver *res, const struct fr_rsample *s)
{
	p->off_cpu = true;
	return add(p, res, s, true);
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
	free(p);
}

/* Sample types: samples/count, then cpu/nanoseconds for the clock events
 * (their period is nanoseconds), else EVENT/count. */
static int types(struct fr_pprof *p, const struct fr_pprof_info *in, ValueType vt[3], int64_t *period)
{
	const struct perf_event_attr *a = in->event ? &in->event->attr : NULL;
	bool clock = a && a->type == PERF_TYPE_SOFTWARE &&
		     (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
	int64_t s[6] = { str(p, "samples"), str(p, "count"),
			 str(p, clock ? "cpu" : in->event ? in->event->name : "events"),
			 str(p, clock ? "nanoseconds" : "count") };

	for (int i = 0; i < 4; i++)
		if (s[i] < 0)
			return -ENOMEM;
	for (int i = 0; i < 3; i++)
		vt[i] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	vt[0].type = s[0];
	vt[0].unit = s[1];
	vt[1].type = vt[2].type = s[2];
	vt[1].unit = vt[2].unit = s[3];
	*period = !a ? 0 : !a->freq ? (int64_t)a->sample_period
		  : clock && a->sample_freq ? (int64_t)(1000000000ull / a->sample_freq) : 0;
	return 0;
}

/* The packed profile gzipped (deflate with a gzip wrapper) into f. */
static int pack_and_write(FILE *f, const Profile *prof)
{
	size_t len = perftools__profiles__profile__get_packed_size(prof);
	uint8_t *buf = malloc(len ? len : 1), out[65536];
	z_stream z;
	int zr = Z_OK, err = 0;

	if (!buf)
		return -ENOMEM;
	perftools__profiles__profile__pack(prof, buf);
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)) {
		free(buf);
		return -ENOMEM;
	}
	z.next_in = buf;
	z.avail_in = 0;
	for (size_t left = len; zr != Z_STREAM_END && !err;) {
		if (!z.avail_in && left) {   /* avail_in is 32 bits */
			z.avail_in = left > (1u << 30) ? 1u << 30 : (uInt)left;
			left -= z.avail_in;
		}
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR)
			err = -EIO;
		else if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out)
			err = -EIO;
	}
	deflateEnd(&z);
	free(buf);
	return err ? err : ferror(f) ? -EIO : 0;
}

/* A program's file, not [kernel.kallsyms], [vdso] or a library (*.so,
 * *.so.N), which pprof does not take for the profile's main binary. */
static bool is_program(const char *file)
{
	const char *so = strstr(file, ".so");

	while (so && so[3] && so[3] != '.' && so[3] != '_')
		so = strstr(so + 3, ".so");
	return file[0] && file[0] != '[' && !so;
}

/* Each mapping's has_* fields from what its locations have; the kernel's
 * range from the addresses seen. */
static void finish_mappings(struct fr_pprof *p, bool inline_frames)
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

int fr_pprof__write(struct fr_pprof *p, FILE *f, const struct fr_pprof_info *in)
{
	Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType vt[4], *vtp[3] = { &vt[0], &vt[1], &vt[3] };
	void **ptrs, **q;
	size_t main_map = 0;   /* pprof names the profile after the first: a program */
	int err;

	if (types(p, in, vt, &prof.period))
		return -ENOMEM;
	vt[3] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;   /* --off-cpu's waits */
	if ((vt[3].type = str(p, "off_cpu")) < 0 || (vt[3].unit = str(p, "nanoseconds")) < 0)
		return -ENOMEM;
	finish_mappings(p, in->inline_frames);
	/* the messages point at each other only now that the arrays stopped moving */
	if (!(ptrs = calloc(p->nr_samples * 2 + p->nr_maps + p->nr_locs + p->nr_funcs +
			    p->nr_lines + 1, sizeof(void *))))
		return -ENOMEM;
	q = ptrs;
	prof.sample = (Sample **)q;
	for (size_t i = 0; i < p->nr_samples; i++) {
		*q++ = &p->samples[i];
		p->samples[i].location_id = p->loc_ids[i];
		p->samples[i].value = &p->values[VALUES * i];
		p->samples[i].n_value = p->off_cpu ? 3 : 2;
	}
	for (size_t i = 0; i < p->nr_samples; i++) {
		p->samples[i].label = (Label **)q;
		*q++ = &p->labels[i];
	}
	while (main_map + 1 < p->nr_maps && !is_program(p->strings[p->maps[main_map].filename]))
		main_map++;
	prof.mapping = (Mapping **)q;
	if (p->nr_maps)
		*q++ = &p->maps[main_map];
	for (size_t i = 0; i < p->nr_maps; i++)
		if (i != main_map)
			*q++ = &p->maps[i];
	prof.location = (Location **)q;
	for (size_t i = 0; i < p->nr_locs; i++)
		*q++ = &p->locs[i];
	prof.function = (Function **)q;
	for (size_t i = 0; i < p->nr_funcs; i++)
		*q++ = &p->funcs[i];
	for (size_t i = 0; i < p->nr_locs; i++) {
		p->locs[i].line = (Line **)q;
		for (size_t k = 0; k < p->locs[i].n_line; k++)
			*q++ = &p->lines[p->loc_line[i] + k];
	}
	prof.n_sample_type = p->off_cpu ? 3 : 2;
	prof.sample_type = vtp;
	prof.period_type = &vt[2];
	prof.n_sample = p->nr_samples;
	prof.n_mapping = p->nr_maps;
	prof.n_location = p->nr_locs;
	prof.n_function = p->nr_funcs;
	prof.n_string_table = p->nr_strings;
	prof.string_table = p->strings;
	prof.time_nanos = (int64_t)in->time_ns;
	prof.duration_nanos = (int64_t)in->duration_ns;
	prof.default_sample_type = vt[1].type;
	err = pack_and_write(f, &prof);
	free(ptrs);
	return err;
}
