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

static void test_rows(void)
{
	static const char *const all[] = { "text", "folded", "perf-script", "json", "flamegraph",
					   "html", "pprof", "waits" };
	const char *names = fr_report__format_names();

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct fr_output_ops *op = fr_output__find(all[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(op);
		CU_ASSERT(!strcmp(op->name, all[i]) && strstr(names, all[i]));
		CU_ASSERT(op->open && op->sample && op->finish && op->close);
		CU_ASSERT(fr_report__format_known(all[i]));
		CU_ASSERT_EQUAL(fr_report__format_binary(all[i]), !strcmp(all[i], "pprof"));
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
	{ "the table: one row each, the properties the pass reads", test_rows },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "outputs", NULL, NULL, tests };
