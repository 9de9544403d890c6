/* src/proc/model.h: the process model's storage, private to src/proc
 * (table.c feeds and collects it, lookups.c reads it): processes by pid, each
 * a list of images ordered by start; threads by tid, each a name history
 * ordered by time; mapped files by path and build id; strings interned.
 */
#ifndef FR_PROC_MODEL_H
#define FR_PROC_MODEL_H

#include "base/hmap.h"
#include "src/proc/proctable.h"

#define MAX_INHERIT 64   /* fork depth followed when a child has no own mapping */

struct gen {                  /* one image */
	struct fr_proc p;         /* first: a const struct fr_proc * is its gen */
	struct fr_map *maps;      /* sorted by start address (but in a batch) */
	size_t n, cap;
	uint64_t max_len;         /* the longest of maps */
	bool unsorted;            /* a batch appended to maps: sorted at its end */
};

struct proc {
	uint32_t pid;
	struct gen **gens;        /* sorted by start time, one per start time */
	size_t n, cap;
};

struct thread {
	uint32_t tid, pid;
	struct fr_pcomm *h;       /* sorted by time */
	size_t n, cap;
	uint64_t exit_time;       /* a thread (not a main thread) that exited; 0: alive */
	uint64_t late;            /* its name learnt late (fr_proctable__late_comm) holds from; 0: none */
};

struct fr_proctable {
	struct fr_proctable_policy pol;
	struct proc *procs;       /* in the order their pids were first seen */
	size_t nr_procs, cap_procs;
	struct fr_hmap pidx;      /* pid -> procs[] */
	struct thread *threads;
	size_t nr_threads, cap_threads;
	struct fr_hmap tidx;      /* tid -> threads[] */
	struct fr_dso_id *dsos;
	size_t nr_dsos, cap_dsos;
	struct fr_hmap didx;      /* (path, build id) -> dsos[] */
	struct fr_strpool *strs;  /* comms and paths */
	struct fr_strpool *spare; /* the pool before the last repool, emptied */
	size_t interned;          /* strings asked for since the pool was built */
	size_t nr_comms;          /* names held by every thread */
	size_t nr_images, nr_exited;
	size_t nr_exited_threads; /* threads with an exit_time */
	uint64_t version;         /* moved by every change a lookup could see */
	bool batch;               /* fr_proctable__batch: mappings appended */
	uint64_t steps;           /* entries moved or passed by inserts (fr_proctable__steps) */
};

static inline uint64_t fr_pm_hash_id(uint32_t id)
{
	return fr_hash__u64(id);
}

static inline struct proc *fr_pm_proc(const struct fr_proctable *pt, uint32_t pid)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&pt->pidx, fr_pm_hash_id(pid), &it, &i); ok;
	     ok = fr_hmap__next(&pt->pidx, &it, &i))
		if (pt->procs[i].pid == pid)
			return &pt->procs[i];
	return NULL;
}

static inline struct thread *fr_pm_thread(const struct fr_proctable *pt, uint32_t tid)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&pt->tidx, fr_pm_hash_id(tid), &it, &i); ok;
	     ok = fr_hmap__next(&pt->tidx, &it, &i))
		if (pt->threads[i].tid == tid)
			return &pt->threads[i];
	return NULL;
}

/* Index of the last image of p that started at or before time; -1 if none. */
static inline long fr_pm_gen_index(const struct proc *p, uint64_t time)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->gens[mid]->p.start_time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* The first mapping of g starting after addr. */
static inline size_t fr_pm_map_upper(const struct gen *g, uint64_t addr)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry of t's history in force at time (the earliest before the first);
 * t->n > 0. */
static inline size_t fr_pm_comm_index(const struct thread *t, uint64_t time)
{
	size_t l = 0, h = t->n;

	while (l < h) {
		size_t mid = l + (h - l) / 2;

		if (t->h[mid].time <= time)
			l = mid + 1;
		else
			h = mid;
	}
	return l ? l - 1 : 0;
}

/* The image a forked image g sees its parent's mappings in (g's fork time is
 * when), or NULL. */
static inline const struct gen *fr_pm_parent(const struct fr_proctable *pt,
					     const struct gen *g)
{
	const struct proc *pp = g->p.forked ? fr_pm_proc(pt, g->p.ppid) : NULL;
	long gi;

	if (!pp || !pp->n)
		return NULL;
	gi = fr_pm_gen_index(pp, g->p.start_time);
	return pp->gens[gi < 0 ? 0 : gi];
}

#endif
