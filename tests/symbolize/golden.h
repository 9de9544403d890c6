/* tests/symbolize/golden.h: a fixture binary mapped at BASE, symbolized and
 * checked against a golden file of addresses and frames (inline.golden's
 * format), for the symbolize suites. Include once per test program.
 */
#ifndef FR_TESTS_SYMBOLIZE_GOLDEN_H
#define FR_TESTS_SYMBOLIZE_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/cunit.h"
#include "src/proc/proctable.h"
#include "symbolize/symbolize.h"

#define BASE 0x555555554000ull

/* "  name[+0xoff][ [inlined]] file:line" per frame, as in inline.golden. */
static void format_frames(const struct fr_frame *f, int n, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		const char *file = f[i].file ? strrchr(f[i].file, '/') : NULL;
		char off[32] = "";

		if (!f[i].sym->inlined && !f[i].sym->unknown)
			snprintf(off, sizeof(off), "+0x%llx", (unsigned long long)f[i].off);
		file = file ? file + 1 : f[i].file;
		if (file)
			used += (size_t)snprintf(out + used, len - used, "  %s%s%s %s:%u\n",
						 f[i].sym->name, off, f[i].sym->inlined ? " [inlined]" : "",
						 file, f[i].line);
		else
			used += (size_t)snprintf(out + used, len - used, "  %s%s -\n", f[i].sym->name,
						 off);
	}
}

static void check_block(struct fr_symbolizer *s, struct fr_proctable *m, const char *addr_line,
			const char *expect)
{
	char *end, got[2048];
	uint64_t a = strtoull(addr_line, &end, 16);
	bool ret = !strcmp(end, " r");
	struct fr_frame f[16];
	struct fr_addrspace as = fr_proctable__addrspace(m);
	int n;

	CU_ASSERT_FATAL(end != addr_line && (!*end || ret));
	n = fr_symbolizer__user(s, &as, 1, 10, BASE + a, ret, f, 16);
	CU_ASSERT_FATAL(n > 0);
	format_frames(f, n, got, sizeof(got));
	if (strcmp(got, expect))
		fprintf(stderr, "\n%s: expected\n%sgot\n%s", addr_line, expect, got);
	CU_ASSERT_STRING_EQUAL(got, expect);
	for (int i = 0; i < n; i++)
		CU_ASSERT_EQUAL(f[i].addr, BASE + a);
}

/* The golden file's blocks against the fixture binary mapped at BASE. */
static int check_golden(const char *golden, const char *bin, const struct fr_symbolizer_opts *o)
{
	FILE *g = fopen(golden, "r");
	struct fr_symbolizer *s;
	struct fr_proctable *m;
	char line[256], addr[256] = "", expect[2048] = "";
	int blocks = 0;

	CU_ASSERT_FATAL(g != NULL);
	CU_ASSERT_FATAL((m = fr_proctable__new(NULL)) != NULL && fr_symbolizer__new(o, &s) == 0);
	/* the whole file mapped at BASE: runtime address = BASE + file address */
	CU_ASSERT_FATAL(fr_proctable__mmap(m, 1, 0, BASE, 0x10000, 0, PROT_EXEC, bin, NULL, 0) == 0);
	while (fgets(line, sizeof(line), g)) {
		if (line[0] == '#')
			continue;
		if (line[0] != ' ') {
			if (addr[0]) {
				check_block(s, m, addr, expect);
				blocks++;
			}
			line[strcspn(line, "\n")] = '\0';
			snprintf(addr, sizeof(addr), "%s", line);
			expect[0] = '\0';
		} else {
			strncat(expect, line, sizeof(expect) - strlen(expect) - 1);
		}
	}
	if (addr[0]) {
		check_block(s, m, addr, expect);
		blocks++;
	}
	fclose(g);
	fr_symbolizer__delete(s);
	fr_proctable__delete(m);
	return blocks;
}

#endif
