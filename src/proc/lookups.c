/* src/proc/lookups.c: what the process model answers (proctable.h): the
 * mapping of an address and the name of a thread at a time, with the spans
 * over which the answers hold (the report's caches), and the images with
 * their names and mappings (the PROCS blob, dump).
 */
#include "config.h"
#include "src/proc/model.h"

/* The newest mapping of g holding addr at time; *lo, *hi narrowed to the
 * times around it at which the mappings holding addr change. */
static const struct fr_map *find_in_gen(const struct gen *g, uint64_t time, uint64_t addr,
					uint64_t *lo, uint64_t *hi)
{
	const struct fr_map *best = NULL;

	for (size_t i = fr_pm_map_upper(g, addr); i-- > 0;) {
		const struct fr_map *mp = &g->maps[i];

		if (addr - mp->start >= g->max_len)
			break;   /* no earlier mapping is long enough to reach addr */
		if (addr >= mp->end)
			continue;
		if (mp->time > time) {
			if (mp->time < *hi)
				*hi = mp->time;
			continue;
		}
		if (mp->time > *lo)
			*lo = mp->time;
		if (!best || mp->time >= best->time)
			best = mp;
	}
	return best;
}

const struct fr_map *fr_proctable__find_span(const struct fr_proctable *pt, uint32_t pid,
					     uint64_t time, uint64_t addr, uint64_t *tlo,
					     uint64_t *thi)
{
	uint64_t lo = 0, hi = UINT64_MAX;
	const struct fr_map *mp = NULL;

	for (int depth = 0; depth < MAX_INHERIT; depth++) {
		const struct proc *p = fr_pm_proc(pt, pid);
		const struct gen *g;
		long gi;

		if (!p || !p->n)
			break;
		gi = fr_pm_gen_index(p, time);
		if (gi < 0)
			gi = 0;
		g = p->gens[gi];
		if (!depth) {
			/* the same image applies from its start to the next one's */
			if (gi > 0)
				lo = g->p.start_time;
			if ((size_t)gi + 1 < p->n)
				hi = p->gens[gi + 1]->p.start_time;
			mp = find_in_gen(g, time, addr, &lo, &hi);
		} else {
			/* a fixed fork time, the same for every sample time */
			uint64_t l = lo, h = hi;

			mp = find_in_gen(g, time, addr, &l, &h);
		}
		if (mp || !g->p.forked)
			break;
		pid = g->p.ppid;
		time = g->p.start_time;
	}
	if (tlo)
		*tlo = lo;
	if (thi)
		*thi = hi;
	return mp;
}

const struct fr_map *fr_proctable__find(const struct fr_proctable *pt, uint32_t pid,
					uint64_t time, uint64_t addr)
{
	return fr_proctable__find_span(pt, pid, time, addr, NULL, NULL);
}

uint64_t fr_proctable__version(const struct fr_proctable *pt)
{
	return pt->version;
}

const char *fr_proctable__thread_comm_span(const struct fr_proctable *pt, uint32_t tid,
					   uint64_t time, uint64_t *tlo, uint64_t *thi)
{
	const struct thread *t = fr_pm_thread(pt, tid);
	size_t k;

	if (tlo)
		*tlo = 0;
	if (thi)
		*thi = UINT64_MAX;
	if (!t || !t->n)
		return NULL;
	k = fr_pm_comm_index(t, time);
	if (tlo)
		*tlo = k ? t->h[k].time : 0;
	if (thi)
		*thi = k + 1 < t->n ? t->h[k + 1].time : UINT64_MAX;
	return t->h[k].comm;
}

const char *fr_proctable__thread_comm(const struct fr_proctable *pt, uint32_t tid,
				      uint64_t time)
{
	return fr_proctable__thread_comm_span(pt, tid, time, NULL, NULL);
}

uint32_t fr_proctable__thread_pid(const struct fr_proctable *pt, uint32_t tid)
{
	const struct thread *t = fr_pm_thread(pt, tid);

	return t ? t->pid : 0;
}

const struct fr_pcomm *fr_proctable__thread_newest(const struct fr_proctable *pt, uint32_t tid)
{
	const struct thread *t = fr_pm_thread(pt, tid);

	return t && t->n ? &t->h[t->n - 1] : NULL;
}

uint64_t fr_proctable__thread_late(const struct fr_proctable *pt, uint32_t tid)
{
	const struct thread *t = fr_pm_thread(pt, tid);

	return t ? t->late : 0;
}

int fr_proctable__for_each_thread(const struct fr_proctable *pt,
				  int (*cb)(void *ctx, uint32_t pid, uint32_t tid,
					    const struct fr_pcomm *newest),
				  void *ctx)
{
	for (size_t i = 0; i < pt->nr_threads; i++) {
		const struct thread *t = &pt->threads[i];
		int ret = t->n ? cb(ctx, t->pid, t->tid, &t->h[t->n - 1]) : 0;

		if (ret)
			return ret;
	}
	return 0;
}

size_t fr_proctable__nr_dsos(const struct fr_proctable *pt)
{
	return pt->nr_dsos;
}

const struct fr_dso_id *fr_proctable__dso(const struct fr_proctable *pt, uint32_t idx)
{
	return idx < pt->nr_dsos ? &pt->dsos[idx] : NULL;
}

static const struct fr_map *as_find_span(const void *m, uint32_t pid, uint64_t time,
					 uint64_t addr, uint64_t *tlo, uint64_t *thi)
{
	return fr_proctable__find_span(m, pid, time, addr, tlo, thi);
}

static const struct fr_dso_id *as_dso(const void *m, uint32_t idx)
{
	return fr_proctable__dso(m, idx);
}

static size_t as_nr_dsos(const void *m)
{
	return fr_proctable__nr_dsos(m);
}

static uint64_t as_version(const void *m)
{
	return fr_proctable__version(m);
}

static const struct fr_addrspace_ops as_ops = { as_find_span, as_dso, as_nr_dsos, as_version };

struct fr_addrspace fr_proctable__addrspace(const struct fr_proctable *pt)
{
	return (struct fr_addrspace){ &as_ops, pt };
}

const struct fr_proc *fr_proctable__proc_at(const struct fr_proctable *pt, uint32_t pid,
					    uint64_t t)
{
	const struct proc *p = fr_pm_proc(pt, pid);
	long gi = p ? fr_pm_gen_index(p, t) : -1;

	return gi >= 0 ? &p->gens[gi]->p : NULL;
}

const struct fr_pcomm *fr_proctable__proc_comms(const struct fr_proctable *pt,
						const struct fr_proc *p, size_t *n)
{
	const struct thread *t = fr_pm_thread(pt, p->pid);
	uint64_t end = p->exit_time ? p->exit_time : UINT64_MAX;
	size_t k = 0, j;

	*n = 0;
	if (!t || !t->n)
		return NULL;
	/* its main thread's names from its start to its end */
	if (p->start_time) {
		k = fr_pm_comm_index(t, p->start_time);
		k += t->h[k].time < p->start_time;
	}
	for (j = k; j < t->n && t->h[j].time < end; j++)
		;
	*n = j - k;
	return *n ? &t->h[k] : NULL;
}

const char *fr_proctable__proc_comm(const struct fr_proctable *pt, const struct fr_proc *p,
				    uint64_t t)
{
	size_t n;
	const struct fr_pcomm *c = fr_proctable__proc_comms(pt, p, &n);
	const char *name = NULL;

	for (size_t i = 0; i < n; i++)
		if (c[i].time <= t || !name)
			name = c[i].comm;
	return name;
}

int fr_proctable__for_each(const struct fr_proctable *pt,
			   int (*cb)(void *ctx, const struct fr_proc *p), void *ctx)
{
	for (size_t i = 0; i < pt->nr_procs; i++)
		for (size_t g = 0; g < pt->procs[i].n; g++) {
			int err = cb(ctx, &pt->procs[i].gens[g]->p);

			if (err)
				return err;
		}
	return 0;
}

int fr_proctable__proc_maps(const struct fr_proctable *pt, const struct fr_proc *p,
			    int (*cb)(void *ctx, const struct fr_map *m), void *ctx)
{
	const struct gen *g = (const struct gen *)p, *par;
	uint64_t t = p->start_time;

	for (size_t i = 0; i < g->n; i++) {
		int err = cb(ctx, &g->maps[i]);

		if (err)
			return err;
	}
	/* as find_span walks it: each parent as of its child's fork */
	for (int depth = 1; depth < MAX_INHERIT && (par = fr_pm_parent(pt, g)); depth++) {
		for (size_t i = 0; i < par->n; i++) {
			int err = par->maps[i].time <= t ? cb(ctx, &par->maps[i]) : 0;

			if (err)
				return err;
		}
		g = par;
		t = g->p.start_time;
	}
	return 0;
}

size_t fr_proctable__nr(const struct fr_proctable *pt)
{
	return pt->nr_images;
}

size_t fr_proctable__nr_exited(const struct fr_proctable *pt)
{
	return pt->nr_exited + pt->nr_exited_threads;
}
