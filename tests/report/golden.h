/* tests/report/golden.h: an output compared with a golden file of
 * tests/fixtures (FR_WRITE_GOLDEN=1 writes what was got into the current
 * directory), for the report suites. Include once per test program.
 */
#ifndef FR_TESTS_REPORT_GOLDEN_H
#define FR_TESTS_REPORT_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cunit.h"

#ifndef FIXTURES
#error "FIXTURES must name the fixture directory (absolute)"
#endif

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

static void check_golden(const char *name, const char *got)
{
	char path[4096];
	char *want;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	want = read_file(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	if (strcmp(want, got)) {
		fprintf(stderr, "\n%s differs; got:\n%s", name, got);
		if (getenv("FR_WRITE_GOLDEN")) {
			FILE *f = fopen(name, "w");

			if (f) {
				fputs(got, f);
				fclose(f);
			}
		}
	}
	CU_ASSERT_STRING_EQUAL(got, want);
	free(want);
}

#endif
