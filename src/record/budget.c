/* src/record/budget.c: the recorder's memory budget: the memory limit of its
 * own cgroup (v2 memory.max, v1 memory.limit_in_bytes) where there is one,
 * else the machine's memory, and the shares of it that what the recorder
 * holds may take (the --keep window, the JIT maps of all processes).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "src/record/budget.h"
#include "src/util.h"

#define NO_LIMIT (1ull << 60)   /* v1 says "unlimited" with ~2^63 */

/* A limit file's value: "max" (none), or bytes. */
static int read_limit(const char *path, uint64_t *out)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!strcmp(buf, "max")) {
		*out = 0;
		return 0;
	}
	if (fr_parse__u64(buf, 0, UINT64_MAX, out))
		return -EINVAL;
	if (*out >= NO_LIMIT)
		*out = 0;
	return 0;
}

int fr_budget__cgroup_limit(const char *proc_cgroup, const char *root, uint64_t *limit,
			    const char **which)
{
	char line[4096], path[4352];
	uint64_t best = 0;
	FILE *f = fopen(proc_cgroup, "re");

	*limit = 0;
	*which = NULL;
	if (!f)
		return -errno;
	/* "0::/path" (v2), "N:memory:/path" or "N:...,memory,...:/path" (v1) */
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *cg;
		bool v2, v1 = false;
		uint64_t v;

		if (!c2 || !strchr(c2, '\n'))
			continue;   /* malformed, or a line longer than we read */
		*c2 = '\0';
		cg = c2 + 1;
		cg[strcspn(cg, "\n")] = '\0';
		if (cg[0] != '/' || strstr(cg, "/.."))
			continue;
		v2 = !strcmp(c1, ":");
		for (char *t = strtok(c1 + 1, ","); t && !v2; t = strtok(NULL, ","))
			v1 = v1 || !strcmp(t, "memory");
		if (!v2 && !v1)
			continue;
		/* the cgroup and each ancestor: the smallest limit holds */
		for (;;) {
			if (v2)
				snprintf(path, sizeof(path), "%s/%s/memory.max", root, cg + 1);
			else
				snprintf(path, sizeof(path), "%s/memory/%s/memory.limit_in_bytes", root,
					 cg + 1);
			if (!read_limit(path, &v) && v && (!best || v < best)) {
				best = v;
				*which = v2 ? "cgroup memory.max" : "cgroup memory.limit_in_bytes";
			}
			if (!cg[1])
				break;
			*strrchr(cg, '/') = '\0';
			if (!cg[0])
				cg = (char *)"/";
		}
	}
	fclose(f);
	*limit = best;
	return 0;
}

void fr_budget__plan(uint64_t cgroup_limit, uint64_t ram, struct fr_budget *b)
{
	uint64_t base = cgroup_limit && (!ram || cgroup_limit < ram) ? cgroup_limit : ram;

	memset(b, 0, sizeof(*b));
	b->total = base;
	b->from_cgroup = base && base == cgroup_limit;
	/* the window: 256 MiB, at most an eighth of RAM, at most a quarter of
	 * a cgroup's limit (the recorder's own code, its rings' bookkeeping,
	 * a snapshot's buffers and the page cache of the files it writes are
	 * charged there too, and the processes it shares it with) */
	b->keep_default = FR_BUDGET_KEEP_DEFAULT;
	if (ram && ram / 8 < b->keep_default)
		b->keep_default = ram / 8;
	if (b->from_cgroup && base / 4 < b->keep_default)
		b->keep_default = base / 4;
	b->keep_max = b->from_cgroup ? base / 2 : 0;
	/* JIT maps and jitdumps of every process together */
	b->jit = base ? base / 8 : 0;
	if (b->jit > FR_BUDGET_JIT_MAX)
		b->jit = FR_BUDGET_JIT_MAX;
	if (b->keep_default < (1u << 20))
		b->keep_default = 1u << 20;
}

int fr_budget__read(struct fr_budget *b, const char **which)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t ram = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : 0, limit = 0;
	int err = fr_budget__cgroup_limit("/proc/self/cgroup", "/sys/fs/cgroup", &limit, which);

	fr_budget__plan(err ? 0 : limit, ram, b);
	if (!b->from_cgroup)
		*which = "the machine's memory";
	return 0;
}
