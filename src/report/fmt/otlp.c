/* src/report/fmt/otlp.c: --format=otlp: a timed profile dictionary
 * (profile.c) as the OTLP profiles signal's ExportProfilesServiceRequest
 * (src/report/fmt/otlp.proto, compiled by protoc-c; doc/otlp.md): the
 * tables shared, each index 0 the zero entry, a profile per event slot whose
 * samples carry every occurrence's value and wall-clock time.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/file/clock.h"
#include "src/report/fmt/otlp.pb-c.h"
#include "src/report/fmt/profile_internal.h"

typedef Flightrec__Otlp__ExportProfilesServiceRequest Request;
typedef Flightrec__Otlp__ProfilesDictionary Dict;
typedef Flightrec__Otlp__ResourceProfiles ResourceProfiles;
typedef Flightrec__Otlp__ScopeProfiles ScopeProfiles;
typedef Flightrec__Otlp__InstrumentationScope Scope;
typedef Flightrec__Otlp__Resource Resource;
typedef Flightrec__Otlp__Profile OProfile;
typedef Flightrec__Otlp__Sample OSample;
typedef Flightrec__Otlp__ValueType OValueType;
typedef Flightrec__Otlp__Mapping OMapping;
typedef Flightrec__Otlp__Location OLocation;
typedef Flightrec__Otlp__Line OLine;
typedef Flightrec__Otlp__Function OFunction;
typedef Flightrec__Otlp__Stack OStack;
typedef Flightrec__Otlp__Link OLink;
typedef Flightrec__Otlp__KeyValueAndUnit OAttr;
typedef Flightrec__Otlp__KeyValue KeyValue;
typedef Flightrec__Otlp__AnyValue AnyValue;

/* What the request is built of; every array freed by drop(). */
struct build {
	struct fr_pprof *p;
	/* attribute_table: [0] the zero one */
	OAttr *attrs;
	AnyValue *avals;
	int64_t *astr;           /* a string attribute's value: its string (-1: a number) */
	size_t nr_attrs, attrs_cap, avals_cap, astr_cap;
	int32_t *pattrs;         /* the profiles' attributes (the trigger's) */
	struct fr_hmap attrs_index;
	/* stack_table: [0] the empty stack */
	OStack *stacks;
	size_t nr_stacks, stacks_cap;
	struct fr_hmap stacks_index;
	int32_t *stack_of;       /* each sample's stack */
	int32_t *sattrs;         /* 3 per sample: thread.name, process.pid, process.executable.name */
	int32_t *maps_attr;      /* each mapping's build id attribute (0: none) */
	int64_t *values;         /* per occurrence, grouped by sample */
	uint64_t *times;
	size_t *first;           /* each sample's first occurrence in values/times */
	OMapping *maps;
	OLocation *locs;
	OLine *lines;
	OFunction *funcs;
	OSample *samples;
	void **ptrs;             /* the repeated fields' pointer arrays */
	size_t nr_ptrs;
};

/* The attribute key = (str or num) in the table: its index, added on first
 * use; -ENOMEM, -EOVERFLOW. */
static int64_t attr(struct build *b, const char *key, const char *str, int64_t num)
{
	int64_t k = fr_pprof__str(b->p, key), v = str ? fr_pprof__str(b->p, str) : 0;
	uint64_t h = fr_hash__mix(fr_hash__mix(fr_hash__u64((uint64_t)k), (uint64_t)v),
				  str ? 1 : (uint64_t)num * 2 + 2);
	struct fr_hmap_it it;
	uint32_t i;
	size_t n = b->nr_attrs;

	if (k < 0 || v < 0)
		return -ENOMEM;
	for (bool ok = fr_hmap__first(&b->attrs_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&b->attrs_index, &it, &i)) {
		const AnyValue *a = &b->avals[i];

		if (b->attrs[i].key_strindex == k && (str ? b->astr[i] == v
							     : b->astr[i] < 0 && a->int_value == num))
			return i;
	}
	if (n >= INT32_MAX)
		return -EOVERFLOW;
	if (fr_grow(&b->attrs, &b->attrs_cap, n + 1, sizeof(*b->attrs), 64) ||
	    fr_grow(&b->avals, &b->avals_cap, n + 1, sizeof(*b->avals), 64) ||
	    fr_grow(&b->astr, &b->astr_cap, n + 1, sizeof(*b->astr), 64) ||
	    fr_hmap__add(&b->attrs_index, h, (uint32_t)n))
		return -ENOMEM;
	b->attrs[n] = (OAttr)FLIGHTREC__OTLP__KEY_VALUE_AND_UNIT__INIT;
	b->avals[n] = (AnyValue)FLIGHTREC__OTLP__ANY_VALUE__INIT;
	b->attrs[n].key_strindex = (int32_t)k;
	b->astr[n] = str ? v : -1;   /* the string is pointed at once the table is final */
	if (str) {
		b->avals[n].value_case = FLIGHTREC__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
	} else {
		b->avals[n].value_case = FLIGHTREC__OTLP__ANY_VALUE__VALUE_INT_VALUE;
		b->avals[n].int_value = num;
	}
	b->nr_attrs++;
	return (int64_t)n;
}

/* The stack of sample i's locations in the table: its index, added on
 * first use; -ENOMEM, -EOVERFLOW. Location ids are the table's indexes. */
static int64_t stack(struct build *b, size_t i)
{
	const Sample *s = &b->p->samples[i];
	const uint64_t *ids = b->p->loc_ids[i];
	uint64_t h = fr_hash__u64(s->n_location_id);
	struct fr_hmap_it it;
	uint32_t k;
	size_t n = b->nr_stacks;
	int32_t *li;

	for (size_t j = 0; j < s->n_location_id; j++)
		h = fr_hash__mix(h, ids[j]);
	for (bool ok = fr_hmap__first(&b->stacks_index, h, &it, &k); ok;
	     ok = fr_hmap__next(&b->stacks_index, &it, &k)) {
		const OStack *x = &b->stacks[k];
		size_t j = 0;

		if (x->n_location_indices != s->n_location_id)
			continue;
		while (j < x->n_location_indices && (uint64_t)x->location_indices[j] == ids[j])
			j++;
		if (j == x->n_location_indices)
			return k;
	}
	if (n >= INT32_MAX)
		return -EOVERFLOW;
	if (fr_grow(&b->stacks, &b->stacks_cap, n + 1, sizeof(*b->stacks), 256) ||
	    !(li = malloc((s->n_location_id + 1) * sizeof(*li))) ||
	    fr_hmap__add(&b->stacks_index, h, (uint32_t)n))
		return -ENOMEM;   /* li, where made, is the last stack's and freed with it */
	for (size_t j = 0; j < s->n_location_id; j++)
		li[j] = (int32_t)ids[j];
	b->stacks[n] = (OStack)FLIGHTREC__OTLP__STACK__INIT;
	b->stacks[n].n_location_indices = s->n_location_id;
	b->stacks[n].location_indices = li;
	b->nr_stacks++;
	return (int64_t)n;
}

/* Pointer arrays for the repeated message fields: n slots, or NULL. */
static void **ptrs(struct build *b, size_t n)
{
	void **q = b->ptrs + b->nr_ptrs;

	b->nr_ptrs += n;
	return q;
}

static void drop(struct build *b)
{
	for (size_t i = 1; i < b->nr_stacks; i++)
		free(b->stacks[i].location_indices);
	fr_hmap__exit(&b->attrs_index);
	fr_hmap__exit(&b->stacks_index);
	free(b->attrs);
	free(b->avals);
	free(b->astr);
	free(b->pattrs);
	free(b->stacks);
	free(b->stack_of);
	free(b->sattrs);
	free(b->maps_attr);
	free(b->values);
	free(b->times);
	free(b->first);
	free(b->maps);
	free(b->locs);
	free(b->lines);
	free(b->funcs);
	free(b->samples);
	free(b->ptrs);
}

/* The attributes and stacks of every sample and mapping, and the strings
 * the profiles name, before the string table is taken (it moves as it
 * grows). */
static int intern(struct build *b, const struct fr_otlp_info *in)
{
	struct fr_pprof *p = b->p;
	int64_t r;

	if (attr(b, "", NULL, 0) < 0 || !(b->stacks = calloc(1, sizeof(*b->stacks))))
		return -ENOMEM;
	b->stacks[0] = (OStack)FLIGHTREC__OTLP__STACK__INIT;
	b->nr_stacks = b->stacks_cap = 1;
	if (!(b->stack_of = calloc(p->nr_samples + 1, sizeof(*b->stack_of))) ||
	    !(b->sattrs = calloc(3 * p->nr_samples + 1, sizeof(*b->sattrs))) ||
	    !(b->maps_attr = calloc(p->nr_maps + 1, sizeof(*b->maps_attr))))
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_samples; i++) {   /* packed to the front, 0 after */
		int32_t *sa = &b->sattrs[3 * i];
		size_t k = 0;

		if ((r = stack(b, i)) < 0)
			return (int)r;
		b->stack_of[i] = (int32_t)r;
		if ((r = attr(b, "thread.name", p->strings[p->labels[i].str], 0)) < 0)
			return (int)r;
		sa[k++] = (int32_t)r;
		if (p->pids[i] && (r = attr(b, "process.pid", NULL, p->pids[i])) < 0)
			return (int)r;
		if (p->pids[i])
			sa[k++] = (int32_t)r;
		if (p->exes[i] && (r = attr(b, "process.executable.name", p->strings[p->exes[i]], 0)) < 0)
			return (int)r;
		if (p->exes[i])
			sa[k++] = (int32_t)r;
	}
	for (size_t i = 0; i < p->nr_maps; i++)
		if (p->maps[i].build_id &&
		    (b->maps_attr[i] = (int32_t)attr(b, "process.executable.build_id.gnu",
						     p->strings[p->maps[i].build_id], 0)) < 0)
			return b->maps_attr[i];
	if (!(b->pattrs = calloc(in->nr_attrs + 1, sizeof(*b->pattrs))))
		return -ENOMEM;
	for (size_t i = 0; i < in->nr_attrs; i++) {   /* the profiles' (the trigger) */
		if ((r = attr(b, in->attrs[i].key, in->attrs[i].str, in->attrs[i].num)) < 0)
			return (int)r;
		b->pattrs[i] = (int32_t)r;
	}
	for (size_t s = 0; s < in->nr_slots; s++) {
		const struct fr_otlp_slot *sl = &in->slots[s];
		const char *name = sl->event ? sl->event->name : "events";

		if (fr_pprof__str(p, "cpu") < 0 || fr_pprof__str(p, "nanoseconds") < 0 ||
		    fr_pprof__str(p, "off_cpu") < 0 || fr_pprof__str(p, "samples") < 0 ||
		    fr_pprof__str(p, "count") < 0 || fr_pprof__str(p, name) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* s with each byte that starts no valid UTF-8 sequence as U+FFFD (a proto3
 * string must be UTF-8: receivers refuse the whole request otherwise):
 * *out NULL where s is valid, else a malloc'd copy. 0 or -ENOMEM. */
static int utf8(const char *s, char **out)
{
	const unsigned char *p;
	size_t n, bad = 0;
	char *q;

	*out = NULL;
	for (p = (const unsigned char *)s; *p; p += n ? n : 1)
		bad += !(n = fr_utf8_len(p));
	if (!bad)
		return 0;
	if (!(q = *out = malloc(strlen(s) + 2 * bad + 1)))
		return -ENOMEM;
	for (p = (const unsigned char *)s; *p;) {
		if ((n = fr_utf8_len(p))) {
			memcpy(q, p, n);
			q += n;
			p += n;
		} else {
			memcpy(q, "\xef\xbf\xbd", 3);
			q += 3;
			p++;
		}
	}
	*q = '\0';
	return 0;
}

/* The dictionary's tables as OTLP messages: index 0 of each the zero entry,
 * pprof's ids (from 1) the indexes. */
static int tables(struct build *b, Dict *d, bool inline_frames)
{
	struct fr_pprof *p = b->p;
	void **q;

	if (p->nr_maps >= INT32_MAX || p->nr_locs >= INT32_MAX || p->nr_funcs >= INT32_MAX ||
	    p->nr_strings > INT32_MAX)
		return -EOVERFLOW;
	fr_pprof__finish_mappings(p, inline_frames);
	if (!(b->maps = calloc(p->nr_maps + 1, sizeof(*b->maps))) ||
	    !(b->locs = calloc(p->nr_locs + 1, sizeof(*b->locs))) ||
	    !(b->lines = calloc(p->nr_lines + 1, sizeof(*b->lines))) ||
	    !(b->funcs = calloc(p->nr_funcs + 1, sizeof(*b->funcs))))
		return -ENOMEM;
	d->n_mapping_table = p->nr_maps + 1;
	d->mapping_table = (OMapping **)(q = ptrs(b, d->n_mapping_table));
	for (size_t i = 0; i <= p->nr_maps; i++) {
		OMapping *m = &b->maps[i];

		*m = (OMapping)FLIGHTREC__OTLP__MAPPING__INIT;
		q[i] = m;
		if (!i)
			continue;
		m->memory_start = p->maps[i - 1].memory_start;
		m->memory_limit = p->maps[i - 1].memory_limit;
		m->file_offset = p->maps[i - 1].file_offset;
		m->filename_strindex = (int32_t)p->maps[i - 1].filename;
		if (b->maps_attr[i - 1]) {
			m->n_attribute_indices = 1;
			m->attribute_indices = &b->maps_attr[i - 1];
		}
	}
	d->n_function_table = p->nr_funcs + 1;
	d->function_table = (OFunction **)(q = ptrs(b, d->n_function_table));
	for (size_t i = 0; i <= p->nr_funcs; i++) {
		OFunction *f = &b->funcs[i];

		*f = (OFunction)FLIGHTREC__OTLP__FUNCTION__INIT;
		q[i] = f;
		if (!i)
			continue;
		f->name_strindex = (int32_t)p->funcs[i - 1].name;
		f->system_name_strindex = (int32_t)p->funcs[i - 1].system_name;
		f->filename_strindex = (int32_t)p->funcs[i - 1].filename;
	}
	for (size_t i = 0; i < p->nr_lines; i++) {
		b->lines[i] = (OLine)FLIGHTREC__OTLP__LINE__INIT;
		b->lines[i].function_index = (int32_t)p->lines[i].function_id;
		b->lines[i].line = p->lines[i].line;
	}
	d->n_location_table = p->nr_locs + 1;
	d->location_table = (OLocation **)(q = ptrs(b, d->n_location_table));
	for (size_t i = 0; i <= p->nr_locs; i++) {
		OLocation *l = &b->locs[i];

		*l = (OLocation)FLIGHTREC__OTLP__LOCATION__INIT;
		q[i] = l;
		if (!i)
			continue;
		l->mapping_index = (int32_t)p->locs[i - 1].mapping_id;
		l->address = p->locs[i - 1].address;
		l->n_lines = p->locs[i - 1].n_line;
		l->lines = (OLine **)ptrs(b, l->n_lines);
		for (size_t k = 0; k < l->n_lines; k++)
			l->lines[k] = &b->lines[p->loc_line[i - 1] + k];
	}
	d->n_stack_table = b->nr_stacks;
	d->stack_table = (OStack **)(q = ptrs(b, b->nr_stacks));
	for (size_t i = 0; i < b->nr_stacks; i++)
		q[i] = &b->stacks[i];
	d->n_attribute_table = b->nr_attrs;
	d->attribute_table = (OAttr **)(q = ptrs(b, b->nr_attrs));
	for (size_t i = 0; i < p->nr_strings; i++) {
		char *fixed;

		if (utf8(p->strings[i], &fixed))
			return -ENOMEM;
		if (fixed) {
			free(p->strings[i]);
			p->strings[i] = fixed;
		}
	}
	for (size_t i = 0; i < b->nr_attrs; i++) {
		q[i] = &b->attrs[i];
		if (i)
			b->attrs[i].value = &b->avals[i];
		if (b->astr[i] >= 0)
			b->avals[i].string_value = p->strings[b->astr[i]];
	}
	d->n_string_table = p->nr_strings;
	d->string_table = p->strings;
	return 0;
}

/* Every occurrence's value and wall-clock time, grouped by sample (in the
 * order they happened), into b->values/times from b->first[sample]. */
static int occurrences(struct build *b, const struct fr_otlp_info *in)
{
	struct fr_pprof *p = b->p;
	size_t *at;

	if (!(b->first = calloc(p->nr_samples + 1, sizeof(*b->first))) ||
	    !(b->values = calloc(p->nr_occ + 1, sizeof(*b->values))) ||
	    !(b->times = calloc(p->nr_occ + 1, sizeof(*b->times))))
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_occ; i++)
		b->first[p->occ[i].sample + 1]++;
	for (size_t i = 0; i < p->nr_samples; i++)
		b->first[i + 1] += b->first[i];
	if (!(at = malloc((p->nr_samples + 1) * sizeof(*at))))
		return -ENOMEM;
	memcpy(at, b->first, (p->nr_samples + 1) * sizeof(*at));
	for (size_t i = 0; i < p->nr_occ; i++) {
		const struct occ *o = &p->occ[i];
		const struct fr_otlp_slot *sl = &in->slots[p->slots[o->sample]];
		bool counted = !sl->off_cpu && sl->event &&
			       sl->event->attr.type == PERF_TYPE_TRACEPOINT;
		size_t k = at[o->sample]++;

		b->values[k] = counted ? 1 : o->period;
		b->times[k] = in->clock ? fr_clock__to_real(in->clock, o->time) : 0;
	}
	free(at);
	return 0;
}

/* The sample type and period of slot s: cpu/nanoseconds for the clock
 * events, off_cpu/nanoseconds for the waits, samples/count for
 * tracepoints, EVENT/count for the others. */
static void sample_type(struct fr_pprof *p, const struct fr_otlp_slot *sl, OValueType *vt,
			OValueType *pt, OProfile *prof)
{
	bool clock = fr_pprof__clock_event(sl->event);
	const char *type = sl->off_cpu ? "off_cpu" : clock ? "cpu"
			   : sl->event && sl->event->attr.type == PERF_TYPE_TRACEPOINT ? "samples"
			   : sl->event ? sl->event->name : "events";
	const char *unit = sl->off_cpu || clock ? "nanoseconds" : "count";

	*vt = (OValueType)FLIGHTREC__OTLP__VALUE_TYPE__INIT;
	*pt = (OValueType)FLIGHTREC__OTLP__VALUE_TYPE__INIT;
	vt->type_strindex = (int32_t)fr_pprof__str(p, type);   /* interned before: no -ENOMEM */
	vt->unit_strindex = (int32_t)fr_pprof__str(p, unit);
	prof->sample_type = vt;
	if (!sl->off_cpu && sl->event) {
		pt->type_strindex = (int32_t)fr_pprof__str(p, clock ? "cpu" : sl->event->name);
		pt->unit_strindex = vt->unit_strindex;
		prof->period_type = pt;
		prof->period = fr_pprof__period(sl->event);
	}
}

/* A profile per slot with samples: each sample its stack, attributes and
 * occurrences. */
static int profiles(struct build *b, const struct fr_otlp_info *in, OProfile *profs,
		    OValueType *vts, ScopeProfiles *sp, uint8_t *id)
{
	struct fr_pprof *p = b->p;
	size_t np = 0;
	void **q;

	if (!(b->samples = calloc(p->nr_samples + 1, sizeof(*b->samples))))
		return -ENOMEM;
	sp->profiles = (OProfile **)ptrs(b, in->nr_slots);
	for (size_t s = 0; s < in->nr_slots; s++) {
		OProfile *prof = &profs[np];
		size_t n = 0;

		for (size_t i = 0; i < p->nr_samples; i++)
			n += p->slots[i] == s;
		if (!n)
			continue;
		*prof = (OProfile)FLIGHTREC__OTLP__PROFILE__INIT;
		sample_type(p, &in->slots[s], &vts[2 * np], &vts[2 * np + 1], prof);
		prof->time_unix_nano = in->clock ? fr_clock__to_real(in->clock, in->t0) : 0;
		prof->duration_nano = in->t1 > in->t0 ? in->t1 - in->t0 : 0;
		prof->profile_id.len = 16;
		prof->profile_id.data = id + 16 * np;
		prof->n_attribute_indices = in->nr_attrs;
		prof->attribute_indices = b->pattrs;
		if (in->original && !np) {   /* once: the first profile's */
			prof->original_payload_format = "flightrec";
			prof->original_payload.data = (uint8_t *)(uintptr_t)in->original;
			prof->original_payload.len = in->original_len;
		}
		prof->n_samples = n;
		prof->samples = (OSample **)(q = ptrs(b, n));
		n = 0;
		for (size_t i = 0; i < p->nr_samples; i++) {
			OSample *x = &b->samples[i];
			size_t na = 1 + !!b->sattrs[3 * i + 1] + !!b->sattrs[3 * i + 2];   /* packed */

			if (p->slots[i] != s)
				continue;
			*x = (OSample)FLIGHTREC__OTLP__SAMPLE__INIT;
			x->stack_index = b->stack_of[i];
			x->n_attribute_indices = na;
			x->attribute_indices = &b->sattrs[3 * i];
			x->n_values = b->first[i + 1] - b->first[i];
			x->values = &b->values[b->first[i]];
			if (in->clock) {
				x->n_timestamps_unix_nano = x->n_values;
				x->timestamps_unix_nano = &b->times[b->first[i]];
			}
			q[n++] = x;
		}
		sp->profiles[np++] = prof;
	}
	sp->n_profiles = np;
	return 0;
}

/* 16 random bytes per profile (an id of all zeroes is invalid). */
static void profile_ids(uint8_t *id, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n && (r = getrandom(id + got, n - got, GRND_NONBLOCK)) > 0)
		got += (size_t)r;
	for (uint64_t x = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)id; got < n; got++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;   /* no entropy: distinct */
		id[got] = (uint8_t)(x >> 56);
	}
	for (size_t i = 0; i + 16 <= n; i += 16)
		id[i] |= 1;
}

int fr_otlp__write(struct fr_pprof *p, FILE *f, const struct fr_otlp_info *in)
{
	Request req = FLIGHTREC__OTLP__EXPORT_PROFILES_SERVICE_REQUEST__INIT;
	Dict dict = FLIGHTREC__OTLP__PROFILES_DICTIONARY__INIT;
	ResourceProfiles rp = FLIGHTREC__OTLP__RESOURCE_PROFILES__INIT, *rpp = &rp;
	ScopeProfiles sp = FLIGHTREC__OTLP__SCOPE_PROFILES__INIT, *spp = &sp;
	Scope scope = FLIGHTREC__OTLP__INSTRUMENTATION_SCOPE__INIT;
	Resource res = FLIGHTREC__OTLP__RESOURCE__INIT;
	struct build b = { .p = p };
	OProfile *profs = calloc(in->nr_slots + 1, sizeof(*profs));
	OValueType *vts = calloc(2 * in->nr_slots + 1, sizeof(*vts));
	KeyValue *kv = calloc(in->nr_resource + 1, sizeof(*kv)), **kvp;
	char **fixed = calloc(in->nr_resource + 1, sizeof(*fixed));
	AnyValue *av = calloc(in->nr_resource + 1, sizeof(*av));
	uint8_t *ids = calloc(in->nr_slots + 1, 16), *buf = NULL;
	size_t len;
	int err = -ENOMEM;

	if (!p->timed)
		err = -EINVAL;
	else if (profs && vts && kv && fixed && av && ids && !(err = intern(&b, in)) &&
		 (b.ptrs = calloc(p->nr_maps + p->nr_locs + p->nr_funcs + p->nr_lines + b.nr_stacks +
				  b.nr_attrs + p->nr_samples + in->nr_slots + in->nr_resource + 8,
				  sizeof(void *))) &&
		 !(err = tables(&b, &dict, in->inline_frames)) && !(err = occurrences(&b, in))) {
		profile_ids(ids, 16 * in->nr_slots);
		err = profiles(&b, in, profs, vts, &sp, ids);
	}
	if (err)
		goto out;
	kvp = (KeyValue **)ptrs(&b, in->nr_resource);
	for (size_t i = 0; i < in->nr_resource && !err; i++) {
		const struct fr_otlp_attr *a = &in->resource[i];

		kv[i] = (KeyValue)FLIGHTREC__OTLP__KEY_VALUE__INIT;
		av[i] = (AnyValue)FLIGHTREC__OTLP__ANY_VALUE__INIT;
		kv[i].key = (char *)(uintptr_t)a->key;
		kv[i].value = &av[i];
		av[i].value_case = a->str ? FLIGHTREC__OTLP__ANY_VALUE__VALUE_STRING_VALUE
				   : FLIGHTREC__OTLP__ANY_VALUE__VALUE_INT_VALUE;
		if (a->str && !(err = utf8(a->str, &fixed[i])))   /* the meta's: any bytes */
			av[i].string_value = fixed[i] ? fixed[i] : (char *)(uintptr_t)a->str;
		else
			av[i].int_value = a->num;
		kvp[i] = &kv[i];
	}
	if (err)
		goto out;
	res.n_attributes = in->nr_resource;
	res.attributes = kvp;
	scope.name = "flightrec";
	scope.version = (char *)(uintptr_t)(in->scope_version ? in->scope_version : "");
	sp.scope = &scope;
	rp.resource = &res;
	rp.n_scope_profiles = 1;
	rp.scope_profiles = &spp;
	req.n_resource_profiles = 1;
	req.resource_profiles = &rpp;
	req.dictionary = &dict;
	len = flightrec__otlp__export_profiles_service_request__get_packed_size(&req);
	if (!(buf = malloc(len ? len : 1))) {
		err = -ENOMEM;
		goto out;
	}
	flightrec__otlp__export_profiles_service_request__pack(&req, buf);
	if (fwrite(buf, 1, len, f) != len || ferror(f))
		err = -EIO;
out:
	free(buf);
	free(profs);
	free(vts);
	free(kv);
	free(av);
	free(ids);
	for (size_t i = 0; fixed && i < in->nr_resource; i++)
		free(fixed[i]);
	free(fixed);
	drop(&b);
	return err;
}
