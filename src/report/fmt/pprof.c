/* src/report/fmt/pprof.c: --format=pprof: the profile dictionary
 * (profile.c) as a gzipped pprof Profile (src/report/fmt/profile.proto,
 * compiled by protoc-c): its sample types (off_cpu and latency where there
 * are some), the main binary's mapping first, the thread's name as label
 * "thread".
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "src/report/fmt/profile_internal.h"

/* Sample types: samples/count, then cpu/nanoseconds for the clock events
 * (their period is nanoseconds), else EVENT/count. */
static int types(struct fr_pprof *p, const struct fr_pprof_info *in, ValueType vt[3], int64_t *period)
{
	bool clock = fr_pprof__clock_event(in->event);
	int64_t s[6] = { fr_pprof__str(p, "samples"), fr_pprof__str(p, "count"),
			 fr_pprof__str(p, clock ? "cpu" : in->event ? in->event->name : "events"),
			 fr_pprof__str(p, clock ? "nanoseconds" : "count") };

	for (int i = 0; i < 4; i++)
		if (s[i] < 0)
			return -ENOMEM;
	for (int i = 0; i < 3; i++)
		vt[i] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	vt[0].type = s[0];
	vt[0].unit = s[1];
	vt[1].type = vt[2].type = s[2];
	vt[1].unit = vt[2].unit = s[3];
	*period = fr_pprof__period(in->event);
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

int fr_pprof__write(struct fr_pprof *p, FILE *f, const struct fr_pprof_info *in)
{
	Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType vt[5], *vtp[4] = { &vt[0], &vt[1], &vt[3], &vt[4] };
	size_t nv = 2 + p->off_cpu + p->latency;
	void **ptrs, **q;
	size_t main_map = 0;   /* pprof names the profile after the first: a program */
	int err;

	if (types(p, in, vt, &prof.period))
		return -ENOMEM;
	vt[3] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;   /* --off-cpu's waits */
	if ((vt[3].type = fr_pprof__str(p, "off_cpu")) < 0 || (vt[3].unit = fr_pprof__str(p, "nanoseconds")) < 0)
		return -ENOMEM;
	/* --latency: each sample's period / its parallelism, in the period's unit */
	vt[4] = (ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	if (p->latency && (vt[4].type = fr_pprof__str(p, "latency")) < 0)
		return -ENOMEM;
	vt[4].unit = vt[1].unit;
	if (p->latency && !p->off_cpu) {   /* no off_cpu type: latency's value comes third */
		vtp[2] = &vt[4];
		for (size_t i = 0; i < p->nr_samples; i++)
			p->values[VALUES * i + 2] = p->values[VALUES * i + 3];
	}
	fr_pprof__finish_mappings(p, in->inline_frames);
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
		p->samples[i].n_value = nv;
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
	prof.n_sample_type = nv;
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
	prof.default_sample_type = p->latency ? vt[4].type : vt[1].type;
	err = pack_and_write(f, &prof);
	free(ptrs);
	return err;
}