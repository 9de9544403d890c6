/* tests/report/test_outputs.c: CUnit suite for the output table
 * (src/report/out/output.c) fed through the report's pass (run.c): every row
 * turns one fixture file (tests/fixtures/switch_after_sample.frec:
 * cpu-clock samples and sched_switch records) into its output, read back
 * for what that format must hold; the rows' properties as the pass needs
 * them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/cunit.h"
#include "src/util.h"
#include "src/report/out/output.h"
#include "src/report/pass/pass.h"
#include "src/report/report.h"
#include "src/report/fmt/otlp.pb-c.h"

#define FIXTURE FIXTURES "/switch_after_sample.frec"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* The report of FIXTURE as fmt (extra: --off-cpu or --no-off-cpu), its
 * output read back (NULL on a failed run). */
static char *run(const char *fmt, int offcpu, size_t *len)
{
	char out[] = "/tmp/fr-outputs-XXXXXX";
	struct fr_report_opts o = { .dir = ".", .format = fmt, .quiet = true };
	int fd = mkstemp(out), rc;
	char *buf;

	if (fd < 0)
		return NULL;
	close(fd);
	o.hist.chain_limit = 0.5;
	fr_hist__parse_keys("comm,dso,sym", &o.hist);
	o.output = out;
	o.off_cpu = offcpu > 0;
	o.no_off_cpu = offcpu < 0;
	rc = fr_report__run(&o, FIXTURE);
	buf = rc == FR_EXIT_OK ? slurp(out, len) : NULL;
	unlink(out);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_each_row(void)
{
	size_t len;
	char *b;

	/* text: the header, the histogram, and (switches recorded) the off-CPU section */
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("text", 0, &len));
	CU_ASSERT(strstr(b, "# samples per event") && strstr(b, "# event: cpu-clock"));
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "# off-CPU: switch-out to switch-in"));
	free(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("text", -1, &len));
	CU_ASSERT_PTR_NULL(strstr(b, "# off-CPU"));
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "# event: sched:sched_switch"));   /* an ordinary event */
	free(b);
	/* folded: one line per stack ending in its weight; waits under their state */
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("folded", 0, &len));
	CU_ASSERT(len > 0 && b[len - 1] == '\n');
	CU_ASSERT(count(b, "[off-cpu: ") > 0);
	free(b);
	/* flame graph: SVG documents */
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("flamegraph", 0, &len));
	CU_ASSERT(count(b, "<svg") >= 1 && count(b, "</svg>") == count(b, "<svg"));
	free(b);
	/* html: one page with the threads' states */
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("html", 0, &len));
	CU_ASSERT(strstr(b, "<html") && strstr(b, "</html>") && strstr(b, "id=\"threads\""));
	free(b);
	/* pprof: gzip */
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("pprof", 0, &len));
	CU_ASSERT(len > 18 && (unsigned char)b[0] == 0x1f && (unsigned char)b[1] == 0x8b);
	free(b);
	/* perf-script: a line per selected sample, switches included (no off-CPU unasked) */
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("perf-script", 0, &len));
	CU_ASSERT(count(b, "cpu-clock") > 0 && count(b, "sched:sched_switch") > 0);
	free(b);
	/* waits: a line per wait, as many as the text's off-CPU section counts */
	{
		char *t;
		unsigned long nt = 0, nw = 0, lines = 0;
		const char *p;

		CU_ASSERT_PTR_NOT_NULL_FATAL(t = run("text", 0, &len));
		CU_ASSERT_PTR_NOT_NULL_FATAL(p = strstr(t, "# waits: "));
		nt = strtoul(p + 9, NULL, 10);
		free(t);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("waits", 0, &len));
		for (p = b; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
			if (*p != '#' && *p != '\n') {
				lines++;
				CU_ASSERT(strstr(p, "  S  ") || strstr(p, "  D  ") || strstr(p, "  R  "));
			}
		CU_ASSERT_PTR_NOT_NULL_FATAL(p = strstr(b, "\n# "));
		CU_ASSERT_PTR_NOT_NULL_FATAL(p = strstr(p + 1, "\n# "));
		nw = strtoul(p + 3, NULL, 10);
		CU_ASSERT(nt > 0 && nw == nt && lines == nt);
		free(b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("waits", -1, &len));
		CU_ASSERT_PTR_NOT_NULL(strstr(b, "# no waits"));
		free(b);
	}
	/* json: a Chrome trace; the threads' state slices where switches were
	 * recorded (the default), none with --no-off-cpu */
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("json", 0, &len));
	CU_ASSERT(b[0] == '{' && strstr(b, "\"traceEvents\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "\"sleeping\""));
	free(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("json", -1, &len));
	CU_ASSERT_PTR_NULL(strstr(b, "\"sleeping\""));
	free(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("json", 1, &len));
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "\"running\""));
	free(b);
}

typedef Flightrec__Otlp__ExportProfilesServiceRequest Request;

/* Every index of the request inside its table; index 0 of each table the
 * zero entry; each sample a timestamp per value inside its profile's
 * window. The samples of the profile typed type, or -1 when it is missing. */
static long check_request(const Request *r, const char *type)
{
	const Flightrec__Otlp__ProfilesDictionary *d = r->dictionary;
	long found = -1;

	CU_ASSERT_FATAL(d && r->n_resource_profiles == 1 &&
			r->resource_profiles[0]->n_scope_profiles == 1);
	CU_ASSERT_FATAL(d->n_string_table && d->n_mapping_table && d->n_location_table &&
			d->n_function_table && d->n_stack_table && d->n_attribute_table);
	CU_ASSERT_STRING_EQUAL(d->string_table[0], "");
	CU_ASSERT(!d->mapping_table[0]->filename_strindex && !d->location_table[0]->n_lines &&
		  !d->function_table[0]->name_strindex && !d->stack_table[0]->n_location_indices &&
		  !d->attribute_table[0]->key_strindex);
#define IN(i, n) ((i) >= 0 && (size_t)(i) < (n))
	for (size_t i = 1; i < d->n_location_table; i++) {
		const Flightrec__Otlp__Location *l = d->location_table[i];

		CU_ASSERT(IN(l->mapping_index, d->n_mapping_table));
		for (size_t k = 0; k < l->n_lines; k++)
			CU_ASSERT(IN(l->lines[k]->function_index, d->n_function_table) &&
				  l->lines[k]->function_index > 0);
	}
	for (size_t i = 1; i < d->n_function_table; i++)
		CU_ASSERT(IN(d->function_table[i]->name_strindex, d->n_string_table) &&
			  IN(d->function_table[i]->filename_strindex, d->n_string_table));
	for (size_t i = 1; i < d->n_mapping_table; i++)
		for (size_t k = 0; k < d->mapping_table[i]->n_attribute_indices; k++)
			CU_ASSERT(IN(d->mapping_table[i]->attribute_indices[k], d->n_attribute_table));
	for (size_t i = 1; i < d->n_stack_table; i++)
		for (size_t k = 0; k < d->stack_table[i]->n_location_indices; k++)
			CU_ASSERT(IN(d->stack_table[i]->location_indices[k], d->n_location_table) &&
				  d->stack_table[i]->location_indices[k] > 0);
	for (size_t i = 1; i < d->n_attribute_table; i++)
		CU_ASSERT(IN(d->attribute_table[i]->key_strindex, d->n_string_table) &&
			  d->attribute_table[i]->value);
	for (size_t p = 0; p < r->resource_profiles[0]->scope_profiles[0]->n_profiles; p++) {
		const Flightrec__Otlp__Profile *pr = r->resource_profiles[0]->scope_profiles[0]->profiles[p];
		long n = 0;

		CU_ASSERT_FATAL(pr->sample_type && IN(pr->sample_type->type_strindex, d->n_string_table));
		CU_ASSERT(pr->profile_id.len == 16);
		for (size_t i = 0; i < pr->n_samples; i++) {
			const Flightrec__Otlp__Sample *s = pr->samples[i];

			CU_ASSERT(IN(s->stack_index, d->n_stack_table));
			CU_ASSERT(s->n_values > 0 && s->n_timestamps_unix_nano == s->n_values);
			for (size_t k = 0; k < s->n_timestamps_unix_nano; k++)
				CU_ASSERT(s->timestamps_unix_nano[k] >= pr->time_unix_nano &&
					  s->timestamps_unix_nano[k] <= pr->time_unix_nano + pr->duration_nano);
			for (size_t k = 0; k < s->n_attribute_indices; k++)
				CU_ASSERT(IN(s->attribute_indices[k], d->n_attribute_table) &&
					  s->attribute_indices[k] > 0);
			n += (long)s->n_values;
		}
		if (!strcmp(d->string_table[pr->sample_type->type_strindex], type))
			found = n;
	}
#undef IN
	return found;
}

/* otlp: a request that unpacks, whose indexes hold, with as many cpu
 * samples as the text report counts and the waits as an off_cpu profile
 * (none with --no-off-cpu) */
static void test_otlp(void)
{
	size_t len, tlen;
	char *b, *t, *p;
	Request *r;
	unsigned long want;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t = run("text", 0, &tlen));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p = strstr(t, "# event: cpu-clock"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p = strstr(p, "# samples: "));
	want = strtoul(p + 11, NULL, 10);
	free(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("otlp", 0, &len));
	r = flightrec__otlp__export_profiles_service_request__unpack(NULL, len, (uint8_t *)b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(check_request(r, "cpu"), (long)want);
	CU_ASSERT(check_request(r, "off_cpu") > 0);
	flightrec__otlp__export_profiles_service_request__free_unpacked(r, NULL);
	free(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b = run("otlp", -1, &len));
	r = flightrec__otlp__export_profiles_service_request__unpack(NULL, len, (uint8_t *)b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(check_request(r, "off_cpu"), -1);
	CU_ASSERT(check_request(r, "samples") > 0);   /* sched_switch: a tracepoint, counted */
	flightrec__otlp__export_profiles_service_request__free_unpacked(r, NULL);
	free(b);
}

static void test_rows(void)
{
	static const char *const all[] = { "text", "folded", "perf-script", "json", "flamegraph",
					   "html", "pprof", "otlp", "waits" };
	const char *names = fr_report__format_names();

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct fr_output_ops *op = fr_output__find(all[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(op);
		CU_ASSERT(!strcmp(op->name, all[i]) && strstr(names, all[i]));
		CU_ASSERT(op->open && op->sample && op->finish && op->close);
		CU_ASSERT(fr_report__format_known(all[i]));
		CU_ASSERT_EQUAL(fr_report__format_binary(all[i]),
				!strcmp(all[i], "pprof") || !strcmp(all[i], "otlp"));
		for (size_t k = 0; k < i; k++)   /* a row of its own */
			CU_ASSERT(op != fr_output__find(all[k]));
	}
	CU_ASSERT(fr_output__find(NULL) == fr_output__find("text"));   /* the default */
	CU_ASSERT(fr_output__find("text")->merge != NULL);   /* the parallel pass */
	CU_ASSERT(fr_output__find("folded")->fold == FR_FOLD_ONE);
	CU_ASSERT(fr_output__find("pprof")->wait != NULL);
	CU_ASSERT(!fr_output__find("perf-script")->offcpu_default);
	CU_ASSERT(fr_output__find("perf-script")->tod && !fr_output__find("text")->tod);
	CU_ASSERT_PTR_NULL(fr_output__find("xml"));
	CU_ASSERT(!fr_report__format_known("xml") && !fr_report__format_known(""));
}

static const struct fr_test tests[] = {
	{ "every output through the pass: what its format must hold", test_each_row },
	{ "otlp: a request that unpacks, indexes that hold, the samples counted", test_otlp },
	{ "the table: one row each, the properties the pass reads", test_rows },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "outputs", NULL, NULL, tests };
