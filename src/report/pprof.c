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

struct map {            /* key -> value, open addressing; key 0 is free */
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, used;
};

struct pp {
	struct map strs, syms, dsos, locs_map;   /* string hash, sym, file name, frames -> id */
	char **strings;
	size_t nr_strings, strings_cap;
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

static uint64_t mix(uint64_t x)
{
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 31);
}

/* The slot of key, or of the free slot where it goes. */
static size_t slot(const struct map *m, uint64_t key, const struct pp *p, const char *s)
{
	size_t k = mix(key) & (m->cap - 1);

	while (m->keys[k] && (m->keys[k] != key || (s && strcmp(p->strings[m->vals[k]], s))))
		k = (k + 1) & (m->cap - 1);
	return k;
}

static int map_grow(struct map *m, const struct pp *p, bool strings)
{
	struct map n = { calloc(m->cap ? m->cap * 2 : 256, sizeof(uint64_t)),
			 calloc(m->cap ? m->cap * 2 : 256, sizeof(uint32_t)),
			 m->cap ? m->cap * 2 : 256, m->used };

	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t k;

		if (!m->keys[i])
			continue;
		k = slot(&n, m->keys[i], p, strings ? "\x01never" : NULL);
		n.keys[k] = m->keys[i];
		n.vals[k] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

/* The index of s in the string table, added on first use (-ENOMEM). */
static int64_t str(struct pp *p, const char *s)
{
	uint64_t h = 14695981039346656037ull;
	size_t k;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	h |= 1;
	if ((p->strs.used + 1) * 2 > p->strs.cap && map_grow(&p->strs, p, true))
		return -ENOMEM;
	k = slot(&p->strs, h, p, s);
	if (p->strs.keys[k])
		return p->strs.vals[k];
	if (fr_grow(&p->strings, &p->strings_cap, p->nr_strings + 1, sizeof(*p->strings), 256) ||
	    !(p->strings[p->nr_strings] = strdup(s)))
		return -ENOMEM;
	p->strs.keys[k] = h;
	p->strs.vals[k] = (uint32_t)p->nr_strings;
	p->strs.used++;
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
	size_t k;

	if (name < 0 || ((p->dsos.used + 1) * 2 > p->dsos.cap && map_grow(&p->dsos, p, false)))
		return 0;
	k = slot(&p->dsos, (uint64_t)name + 1, p, NULL);
	if (p->dsos.keys[k])
		return p->dsos.vals[k];
	if (fr_grow(&p->maps, &p->maps_cap, p->nr_maps + 1, sizeof(*p->maps), 16))
		return 0;
	p->maps[p->nr_maps] = (Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
	p->maps[p->nr_maps].id = p->nr_maps + 1;
	p->maps[p->nr_maps].filename = name;
	p->maps[p->nr_maps].has_functions = true;
	p->maps[p->nr_maps].build_id = build_id(p, sym->dso);
	p->maps[p->nr_maps].has_inline_frames = false;
	p->dsos.keys[k] = (uint64_t)name + 1;
	p->dsos.vals[k] = (uint32_t)++p->nr_maps;
	p->dsos.used++;
	return p->nr_maps;
}

/* The function id of sym, added on first use (0: ENOMEM). */
static uint64_t function(struct pp *p, const struct fr_sym *sym)
{
	size_t n = p->nr_funcs, k;
	uint64_t map;
	int64_t name;

	if ((p->syms.used + 1) * 2 > p->syms.cap && map_grow(&p->syms, p, false))
		return 0;
	k = slot(&p->syms, (uint64_t)(uintptr_t)sym, p, NULL);
	if (p->syms.keys[k])
		return p->syms.vals[k];
	if (!(map = mapping(p, sym)) || (name = str(p, sym->name)) < 0 ||
	    fr_grow(&p->funcs, &p->funcs_cap, n + 1, sizeof(*p->funcs), 256))
		return 0;
	p->funcs[n] = (Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
	p->funcs[n].id = n + 1;
	p->funcs[n].name = p->funcs[n].system_name = name;
	p->syms.keys[k] = (uint64_t)(uintptr_t)sym;
	p->syms.vals[k] = (uint32_t)++p->nr_funcs;
	p->syms.used++;
	return n + 1;
}

static uint64_t run_key(const struct fr_sym *const *run, size_t len)
{
	uint64_t h = len;

	for (size_t i = 0; i < len; i++)
		h = mix(h ^ (uint64_t)(uintptr_t)run[i]);
	return h | 1;
}

/* The location of an address: its inline frames (innermost first) and the
 * function they are inlined into, the last of run; added on first use. */
static uint64_t location(struct pp *p, const struct fr_sym *const *run, size_t len)
{
	uint64_t key = run_key(run, len), map = mapping(p, run[len - 1]);
	size_t n = p->nr_locs, k;

	if (!map || ((p->locs_map.used + 1) * 2 > p->locs_map.cap &&
		     map_grow(&p->locs_map, p, false)))
		return 0;
	for (k = mix(key) & (p->locs_map.cap - 1); p->locs_map.keys[k];
	     k = (k + 1) & (p->locs_map.cap - 1)) {
		const Location *l = &p->locs[p->locs_map.vals[k] - 1];

		if (p->locs_map.keys[k] != key || l->n_line != len)
			continue;
		for (size_t i = 0; i < len; i++)
			if (p->lines[(size_t)l->address + i].function_id != function(p, run[i]))
				goto next;
		return p->locs_map.vals[k];
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
	p->nr_lines += len;
	p->locs_map.keys[k] = key;
	p->locs_map.vals[k] = (uint32_t)++p->nr_locs;
	p->locs_map.used++;
	return n + 1;
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
	free(p->strs.keys);
	free(p->strs.vals);
	free(p->syms.keys);
	free(p->syms.vals);
	free(p->dsos.keys);
	free(p->dsos.vals);
	free(p->locs_map.keys);
	free(p->locs_map.vals);
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

int fr_pprof__write(FILE *f, const struct fr_pprof_info *in, struct fr_folded *fo)
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
		err = pack_and_write(f, &prof);
	}
	free(ptrs);
	pp_free(&p);
	return err;
}
