/* src/record/jit_procs.c: which processes of the recorder's table may run
 * JIT code (an executable mapping of no file, or of a jitdump) and reading
 * on their perf maps and jitdumps (src/proc/perfmap_collect.c) for the
 * sideband's tick and a file's PERFMAP blobs.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "src/proc/jitdump.h"
#include "src/proc/perfmap.h"
#include "src/proc/proctable.h"
#include "src/record/sideband.h"

bool fr_jit__anon_name(const char *path)
{
	return path && (!strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) ||
			!strncmp(path, "/memfd:", 7));
}

struct jit_maps {
	const struct fr_proctable *pt;
	const char *dump;
	bool anon;
};

static int jit_map(void *ctx, const struct fr_map *m)
{
	struct jit_maps *j = ctx;
	const struct fr_dso_id *d = fr_proctable__dso(j->pt, m->dso);

	if (d && fr_jit__anon_name(d->path))
		j->anon = true;
	else if (d && d->path && !j->dump && fr_jitdump__is_dump_name(d->path))
		j->dump = d->path;
	return j->anon && j->dump;
}

/* Whether image p may run JIT code; *dump: its jitdump, or NULL. */
static bool jit_image(const struct fr_proctable *pt, const struct fr_proc *p, const char **dump)
{
	struct jit_maps j = { pt, NULL, false };

	fr_proctable__proc_maps(pt, p, jit_map, &j);
	*dump = j.dump;
	return j.anon || j.dump;
}

static int jit_add(struct fr_jit_procs *l, uint32_t pid, const char *dump)
{
	if (fr_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 64) ||
	    fr_grow(&l->dumps, &l->dcap, l->n + 1, sizeof(*l->dumps), 64))
		return -ENOMEM;
	l->dumps[l->n] = dump;
	l->v[l->n++] = pid;
	return 0;
}

static int jit_pid(void *ctx, const struct fr_proc *p)
{
	struct fr_jit_procs *l = ctx;
	const char *dump;

	if (p->exit_time && l->pm)   /* its JIT names go first past the budget */
		fr_perfmaps__gone(l->pm, p->pid);
	if ((p->exit_time && !l->exited) || (l->n && l->v[l->n - 1] == p->pid) ||
	    !jit_image(l->pt, p, &dump))
		return 0;
	return jit_add(l, p->pid, dump);
}

int fr_jit_procs__all(struct fr_jit_procs *l)
{
	return fr_proctable__for_each(l->pt, jit_pid, l);
}

int fr_jit_procs__add(struct fr_jit_procs *l, uint32_t pid)
{
	const struct fr_proc *p = fr_proctable__proc_at(l->pt, pid, UINT64_MAX);
	const char *dump = NULL;

	if (p)
		jit_image(l->pt, p, &dump);
	return jit_add(l, pid, dump);
}

void fr_jit_procs__collect(struct fr_jit_procs *l, struct fr_perfmaps *pm)
{
	if (fr_perfmap__collect(pm, l->v, l->n))
		return;
	for (size_t i = 0; i < l->n; i++)
		if (l->dumps[i] && fr_perfmap__collect_dump(pm, l->v[i], l->dumps[i]))
			return;
}

void fr_jit_procs__free(struct fr_jit_procs *l)
{
	free(l->v);
	free(l->dumps);
	l->v = NULL;
	l->dumps = NULL;
	l->n = l->cap = l->dcap = 0;
}
