/* src/record/budget.h: the recorder's memory budget (budget.c): where it
 * comes from and what each holder may take of it (doc/recording.md "Memory").
 */
#ifndef FR_RECORD_BUDGET_H
#define FR_RECORD_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#define FR_BUDGET_KEEP_DEFAULT (256ull << 20)   /* --keep's SIZE where memory is plenty */
#define FR_BUDGET_JIT_MAX (256ull << 20)        /* the JIT maps of all processes, at most */

struct fr_budget {
	uint64_t total;          /* the cgroup's limit, else the machine's memory (0: unknown) */
	bool from_cgroup;
	uint64_t keep_default;   /* --keep's SIZE when not given */
	uint64_t keep_max;       /* a SIZE given is cut to this (0: no cut) */
	uint64_t jit;            /* perf maps and jitdumps of all processes together (0: no cap) */
};

/* The memory limit of the cgroup proc_cgroup (a /proc/PID/cgroup) names,
 * under root (/sys/fs/cgroup): the smallest of its and its ancestors' v2
 * memory.max or v1 memory.limit_in_bytes; 0 where none is set. *which says
 * which file kind. 0, or -errno of proc_cgroup's open. */
int fr_budget__cgroup_limit(const char *proc_cgroup, const char *root, uint64_t *limit,
			    const char **which);
/* The shares, for a cgroup limit (0: none) and the machine's memory. */
void fr_budget__plan(uint64_t cgroup_limit, uint64_t ram, struct fr_budget *b);
/* This process's budget; *which: "cgroup memory.max", "cgroup
 * memory.limit_in_bytes" or "the machine's memory". */
int fr_budget__read(struct fr_budget *b, const char **which);

#endif
