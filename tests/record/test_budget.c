/* tests/record/test_budget.c: the recorder's memory budget (src/record/
 * budget.c) from fixture cgroup trees: v2 memory.max and v1
 * memory.limit_in_bytes, ancestors' limits, "max" and v1's "unlimited",
 * hostile /proc/self/cgroup lines; and the shares planned from a limit.
 */
#include "config.h"

#include "tests/cunit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/record/budget.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], dir[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0700);
	}
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static uint64_t limit_of(const char *self, const char **which)
{
	uint64_t v = 1;
	char path[128];

	put("self-cgroup", self);
	snprintf(path, sizeof(path), "%s/self-cgroup", root);
	CU_ASSERT_EQUAL(fr_budget__cgroup_limit(path, root, &v, which), 0);
	return v;
}

static void test_limits(void)
{
	const char *which;

	snprintf(root, sizeof(root), "/tmp/fr-budget-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(root) != NULL);
	/* v2: the cgroup's own, an ancestor's smaller one wins, "max" is none */
	put("a/b/memory.max", "67108864\n");
	CU_ASSERT_EQUAL(limit_of("0::/a/b\n", &which), 64u << 20);
	CU_ASSERT_STRING_EQUAL(which, "cgroup memory.max");
	put("a/memory.max", "33554432\n");
	CU_ASSERT_EQUAL(limit_of("0::/a/b\n", &which), 32u << 20);
	put("a/memory.max", "max\n");
	put("a/b/memory.max", "max\n");
	CU_ASSERT_EQUAL(limit_of("0::/a/b\n", &which), 0);
	CU_ASSERT_PTR_NULL(which);
	/* v1: the memory controller's line, "unlimited" (~2^63) is none */
	put("memory/svc/memory.limit_in_bytes", "41943040\n");
	CU_ASSERT_EQUAL(limit_of("9:cpu,cpuacct:/x\n4:memory:/svc\n0::/\n", &which), 40u << 20);
	CU_ASSERT_STRING_EQUAL(which, "cgroup memory.limit_in_bytes");
	put("memory/svc/memory.limit_in_bytes", "9223372036854771712\n");
	CU_ASSERT_EQUAL(limit_of("4:memory:/svc\n", &which), 0);
	/* hostile lines: no limit read outside the tree, nothing parsed wrong */
	put("memory/svc/memory.limit_in_bytes", "41943040\n");
	CU_ASSERT_EQUAL(limit_of("4:memory:/../../etc\n", &which), 0);
	CU_ASSERT_EQUAL(limit_of("4:memory:svc\n", &which), 0);
	CU_ASSERT_EQUAL(limit_of("garbage\n4memory/svc\n", &which), 0);
	put("memory/bad/memory.limit_in_bytes", "12abc\n");
	CU_ASSERT_EQUAL(limit_of("4:memory:/bad\n", &which), 0);
	CU_ASSERT_EQUAL(fr_budget__cgroup_limit("/nonexistent/cgroup", root, &(uint64_t){ 0 },
						&which), -ENOENT);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		CU_ASSERT_EQUAL(system(cmd), 0);
	}
}

static void test_plan(void)
{
	struct fr_budget b;

	/* no cgroup limit, plenty of RAM: 256 MiB window, no cut */
	fr_budget__plan(0, 16ull << 30, &b);
	CU_ASSERT(!b.from_cgroup && b.keep_default == FR_BUDGET_KEEP_DEFAULT && !b.keep_max);
	CU_ASSERT_EQUAL(b.jit, FR_BUDGET_JIT_MAX);
	/* small RAM: an eighth */
	fr_budget__plan(0, 1ull << 30, &b);
	CU_ASSERT_EQUAL(b.keep_default, 128u << 20);
	/* a 64 MiB cgroup: a quarter for the window, half at most, an eighth for JIT */
	fr_budget__plan(64u << 20, 16ull << 30, &b);
	CU_ASSERT(b.from_cgroup && b.total == 64u << 20);
	CU_ASSERT_EQUAL(b.keep_default, 16u << 20);
	CU_ASSERT_EQUAL(b.keep_max, 32u << 20);
	CU_ASSERT_EQUAL(b.jit, 8u << 20);
	/* a limit above RAM: RAM decides */
	fr_budget__plan(64ull << 30, 8ull << 30, &b);
	CU_ASSERT(!b.from_cgroup && b.keep_default == FR_BUDGET_KEEP_DEFAULT);
	/* tiny: the window is at least 1 MiB */
	fr_budget__plan(2u << 20, 8ull << 30, &b);
	CU_ASSERT_EQUAL(b.keep_default, 1u << 20);
}

static const struct fr_test tests[] = {
	{ "cgroup limits: v2, v1, ancestors, none, hostile lines", test_limits },
	{ "the shares of a budget", test_plan },
	{ NULL, NULL },
};

const struct fr_suite fr_test_suite = { "memory budget", NULL, NULL, tests };
