/* src/report/pprof.c: --format=pprof, the folded stacks (folded.c) as a
 * gzipped pprof Profile (src/report/profile.proto, compiled by protoc-c):
 * a location per function with its inline frames as lines, a function per
 * symbol, a mapping per file, the thread's name as label "thread".
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/hmap.h"
#include "src/util.h"
#include "src/report/report.h"
#include "src/report/profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

struct pp {
	/* strings, file names, symbols, inline runs -> index in their arrays */
	struct fr_hmap strs, dsos, syms, locs_index;
	char **strings;
	size_t nr_strings, strings_cap;
	const struct fr_sym **fsyms;   /* the symbol of each function */
	size_t fsyms_cap;
	Function *funcs;
	Location *locs;
	Line *lines;
	size_t nr_funcs, funcs_cap, nr_locs, locs_cap, nr_lines, lines_cap;
	Mapping *maps;
	size_t nr_maps, maps_cap;
	Sample *samples;
	Label *labels;
	int64_t *values;
	uint64_t **loc_ids;
	size_t nr_samples, samples_cap, labels_cap, values_cap, loc_ids_cap;
	int64_t thread_key;
	const struct fr_symbolizer *sym;
	int err;
};

/* The index of s in the string table, added on first use (-ENOMEM). */
static int64_t str(struct pp *p, const char *s)
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

/* The string id of a file's recorded build id in hex, 0 ("") when none. */
static int64_t build_id(struct pp *p, const char *dso)
{
	for (size_t i = 0; p->sym && i < fr_symbolizer__nr_dsos(p->sym); i++) {
		enum fr_dso_status st;
		const char *path, *used;
		const uint8_t *id;
		size_t n;
		char hex[41];

		if (fr_symbolizer__dso_status(p->sym, i, &path, &st, &used) || strcmp(path, dso) ||
		    fr_symbolizer__dso_build_id(p->sym, i, &id, &n) || !n)
			continue;
		for (size_t b = 0; b < n && b < 20; b++)
			snprintf(hex + 2 * b, 3, "%02x", id[b]);
		return str(p, hex) > 0 ? str(p, hex) : 0;
	}
	return 0;
}

/* The mapping id of a file, added on first use (0: ENOMEM). */
static uint64_t mapping(struct pp *p, const struct fr_sym *sym)
{
	int64_t name = str(p, sym->dso);
	uint64_t h = fr_hash__u64((uint64_t)name);
	struct fr_hmap_it it;
	uint32_t i;

	if (name < 0)
		return 0;
	for (bool ok = fr_hmap__first(&p->dsos, h, &it, &i); ok; ok = fr_hmap__next(&p->dsos, &it, &i))
		if (p->maps[i].filename == name)
			return i + 1;
	if (fr_grow(&p->maps, &p->maps_cap, p->nr_maps + 1, sizeof(*p->maps), 16) ||
	    fr_hmap__add(&p->dsos, h, (uint32_t)p->nr_maps))
		return 0;
	p->maps[p->nr_maps] = (Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
	p->maps[p->nr_maps].id = p->nr_maps + 1;
	p->maps[p->nr_maps].filename = name;
	p->maps[p->nr_maps].has_functions = true;
	p->maps[p->nr_maps].build_id = build_id(p, sym->dso);
	p->maps[p->nr_maps].has_inline_frames = false;
	return ++p->nr_maps;
}

/* The function id of sym, added on first use (0: ENOMEM). */
static uint64_t function(struct pp *p, const struct fr_sym *sym)
{
	size_t n = p->nr_funcs;
	uint64_t map, h = fr_hash__u64((uintptr_t)sym);
	struct fr_hmap_it it;
	uint32_t i;
	int64_t name;

	for (bool ok = fr_hmap__first(&p->syms, h, &it, &i); ok; ok = fr_hmap__next(&p->syms, &it, &i))
		if (p->fsyms[i] == sym)
			return i + 1;
	if (!(map = mapping(p, sym)) || (name = str(p, sym->name)) < 0 ||
	    fr_grow(&p->funcs, &p->funcs_cap, n + 1, sizeof(*p->funcs), 256) ||
	    fr_grow(&p->fsyms, &p->fsyms_cap, n + 1, sizeof(*p->fsyms), 256) ||
	    fr_hmap__add(&p->syms, h, (uint32_t)n))
		return 0;
	p->funcs[n] = (Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
	p->funcs[n].id = n + 1;
	p->funcs[n].name = p->funcs[n].system_name = name;
	p->fsyms[n] = sym;
	return ++p->nr_funcs;
}

static uint64_t run_key(const struct fr_sym *const *run, size_t len)
{
	uint64_t h = fr_hash__u64(len);

	for (size_t i = 0; i < len; i++)
		h = fr_hash__mix(h, (uintptr_t)run[i]);
	return h;
}

/* The location of an address: its inline frames (innermost first) and the
 * function they are inlined into, the last of run; added on first use. */
static uint64_t location(struct pp *p, const struct fr_sym *const *run, size_t len)
{
	uint64_t key = run_key(run, len), map = mapping(p, run[len - 1]);
	size_t n = p->nr_locs;
	struct fr_hmap_it it;
	uint32_t k;

	if (!map)
		return 0;
	for (bool ok = fr_hmap__first(&p->locs_index, key, &it, &k); ok;
	     ok = fr_hmap__next(&p->locs_index, &it, &k)) {
		const Location *l = &p->locs[k];

		if (l->n_line != len)
			continue;
		for (size_t i = 0; i < len; i++)
			if (p->lines[(size_t)l->address + i].function_id != function(p, run[i]))
				goto next;
		return k + 1;
next:;
	}
	if (fr_grow(&p->locs, &p->locs_cap, n + 1, sizeof(*p->locs), 256) ||
	    fr_grow(&p->lines, &p->lines_cap, p->nr_lines + len, sizeof(*p->lines), 256))
		return 0;
	p->locs[n] = (Location)PERFTOOLS__PROFILES__LOCATION__INIT;
	p->locs[n].id = n + 1;
	p->locs[n].mapping_id = map;
	p->locs[n].n_line = len;
	p->locs[n].address = p->nr_lines;   /* its first line, until written */
	for (size_t i = 0; i < len; i++) {
		p->lines[p->nr_lines + i] = (Line)PERFTOOLS__PROFILES__LINE__INIT;
		if (!(p->lines[p->nr_lines + i].function_id = function(p, run[i])))
			return 0;
	}
	if (fr_hmap__add(&p->locs_index, key, (uint32_t)n))
		return 0;
	p->nr_lines += len;
	return ++p->nr_locs;
}

static int add_stack(void *ctx, const char *comm, const struct fr_sym *const *frames, size_t n,
		     uint64_t weight, uint64_t samples, uint64_t period)
{
	struct pp *p = ctx;
	size_t i = p->nr_samples;
	uint64_t *ids = malloc((n + 1) * sizeof(*ids));
	int64_t thread = str(p, comm);

	(void)weight;
	if (!ids || thread < 0 ||
	    fr_grow(&p->samples, &p->samples_cap, i + 1, sizeof(*p->samples), 256) ||
	    fr_grow(&p->labels, &p->labels_cap, i + 1, sizeof(*p->labels), 256) ||
	    fr_grow(&p->loc_ids, &p->loc_ids_cap, i + 1, sizeof(*p->loc_ids), 256) ||
	    fr_grow(&p->values, &p->values_cap, 2 * i + 2, sizeof(*p->values), 512)) {
		free(ids);
		return -ENOMEM;
	}
	p->loc_ids[i] = ids;
	p->nr_samples++;
	p->samples[i] = (Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
	for (size_t k = 0, len; k < n; k += len) {   /* leaf first, as pprof wants */
		for (len = 1; k + len < n && frames[k + len - 1]->inlined; len++)
			;
		if (!(ids[p->samples[i].n_location_id++] = location(p, frames + k, len)))
			return -ENOMEM;
	}
	p->samples[i].n_value = 2;
	p->samples[i].n_label = 1;
	p->labels[i] = (Label)PERFTOOLS__PROFILES__LABEL__INIT;
	p->labels[i].key = p->thread_key;
	p->labels[i].str = thread;
	p->values[2 * i] = (int64_t)samples;
	p->values[2 * i + 1] = (int64_t)period;
	return 0;
}

static void pp_free(struct pp *p)
{
	for (size_t i = 0; i < p->nr_strings; i++)
		free(p->strings[i]);
	for (size_t i = 0; i < p->nr_samples; i++)
		free(p->loc_ids[i]);
	free(p->strings);
	free(p->fsyms);
	fr_hmap__exit(&p->strs);
	fr_hmap__exit(&p->syms);
	fr_hmap__exit(&p->dsos);
	fr_hmap__exit(&p->locs_index);
	free(p->funcs);
	free(p->locs);
	free(p->lines);
	free(p->maps);
	free(p->samples);
	free(p->labels);
	free(p->values);
	free(p->loc_ids);
}

/* Sample types: samples/count, then cpu/nanoseconds for the clock events
 * (their period is nanoseconds), else EVENT/count. */
static int types(struct pp *p, const struct fr_pprof_info *in, ValueType vt[3], int64_t *period)
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

static int pack_and_write(int fd, const Profile *prof)
{
	size_t len = perftools__profiles__profile__get_packed_size(prof);
	uint8_t *buf = malloc(len ? len : 1);
	gzFile gz;
	int dfd, err = 0;

	if (!buf)
		return -ENOMEM;
	perftools__profiles__profile__pack(prof, buf);
	dfd = dup(fd);
	gz = dfd >= 0 ? gzdopen(dfd, "wb") : NULL;
	if (!gz) {
		if (dfd >= 0)
			close(dfd);
		free(buf);
		return -EIO;
	}
	if (len && gzwrite(gz, buf, (unsigned)len) != (int)len)
		err = -EIO;
	if (gzclose(gz) != Z_OK)
		err = -EIO;
	free(buf);
	return err;
}

int fr_pprof__write(int fd, const struct fr_pprof_info *in, struct fr_folded *fo)
{
	Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType vt[3], *vtp[2] = { &vt[0], &vt[1] };
	struct pp p = { .sym = in->sym };
	void **ptrs = NULL;
	int err;

	if (str(&p, "") < 0 || (p.thread_key = str(&p, "thread")) < 0 ||
	    types(&p, in, vt, &prof.period)) {
		pp_free(&p);
		return -ENOMEM;
	}
	err = fr_folded__for_each(fo, add_stack, &p);
	/* the messages point at each other only now that the arrays stopped moving */
	if (!err && !(ptrs = calloc(p.nr_samples * 2 + p.nr_maps + p.nr_locs + p.nr_funcs +
				    p.nr_lines + 1, sizeof(void *))))
		err = -ENOMEM;
	if (!err) {
		void **q = ptrs;

		prof.sample = (Sample **)q;
		for (size_t i = 0; i < p.nr_samples; i++) {
			*q++ = &p.samples[i];
			p.samples[i].location_id = p.loc_ids[i];
			p.samples[i].value = &p.values[2 * i];
		}
		for (size_t i = 0; i < p.nr_samples; i++) {
			p.samples[i].label = (Label **)q;
			*q++ = &p.labels[i];
		}
		size_t main_map = 0;   /* pprof names the profile after the first: a program */

		while (main_map + 1 < p.nr_maps && p.strings[p.maps[main_map].filename][0] == '[')
			main_map++;
		prof.mapping = (Mapping **)q;
		if (p.nr_maps)
			*q++ = &p.maps[main_map];
		for (size_t i = 0; i < p.nr_maps; i++)
			if (i != main_map)
				*q++ = &p.maps[i];
		prof.location = (Location **)q;
		for (size_t i = 0; i < p.nr_locs; i++)
			*q++ = &p.locs[i];
		prof.function = (Function **)q;
		for (size_t i = 0; i < p.nr_funcs; i++)
			*q++ = &p.funcs[i];
		for (size_t i = 0; i < p.nr_locs; i++) {
			p.locs[i].line = (Line **)q;
			for (size_t k = 0; k < p.locs[i].n_line; k++)
				*q++ = &p.lines[(size_t)p.locs[i].address + k];
			p.locs[i].address = 0;   /* functions, not addresses */
		}
		prof.n_sample_type = 2;
		prof.sample_type = vtp;
		prof.period_type = &vt[2];
		prof.n_sample = p.nr_samples;
		prof.n_mapping = p.nr_maps;
		prof.n_location = p.nr_locs;
		prof.n_function = p.nr_funcs;
		prof.n_string_table = p.nr_strings;
		prof.string_table = p.strings;
		prof.time_nanos = (int64_t)in->time_ns;
		prof.duration_nanos = (int64_t)in->duration_ns;
		prof.default_sample_type = vt[1].type;
		err = pack_and_write(fd, &prof);
	}
	free(ptrs);
	pp_free(&p);
	return err;
}
