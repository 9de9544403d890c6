/* src/proc/perfmap_budget.c: the one budget of a perf map set (every pid's
 * entries together): past it, entries go in batches down to 3/4 of it, the
 * maps of processes gone first, then the oldest entries of all, and the name
 * pool is rebuilt of the survivors so that the memory really goes back.
 */
#include "config.h"
#include "src/proc/perfmap.h"
#include "src/proc/perfmap_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/strpool.h"

#define BUCKETS 1024u          /* a pass of the oldest-first cut */

static size_t ent_len(const struct ent *x)
{
	return (size_t)(x->tag & ((1u << ENT_LEN_BITS) - 1));
}

void fr_perfmaps__set_budget(struct fr_perfmaps *pm, uint64_t bytes)
{
	pm->budget = bytes;
}

void fr_perfmaps__budget_stats(const struct fr_perfmaps *pm, struct fr_perfmap_budget *st)
{
	*st = (struct fr_perfmap_budget){ pm->budget, pm->bytes, pm->dropped, pm->dropped_bytes,
					  pm->compactions };
}

void fr_perfmaps__gone(struct fr_perfmaps *pm, uint32_t pid)
{
	struct pmap *m = fr_pmap_find(pm, pid);

	if (m)
		m->gone = true;
}

void fr_pmap_drop(struct fr_perfmaps *pm, struct pmap *m)
{
	for (size_t k = 0; k < m->n; k++) {
		uint64_t cost = ent_cost(&m->ents[k]);

		pm->bytes = pm->bytes > cost ? pm->bytes - cost : 0;
	}
	free(m->ents);
	m->ents = NULL;
	m->n = m->cap = 0;
}

struct aged {
	uint64_t last;
	uint32_t i;
};

static int cmp_last(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	return x->last < y->last ? -1 : x->last > y->last;
}

/* The maps of processes gone, whole, those whose newest entry is the oldest
 * first, until need bytes are freed: the bytes freed. */
static uint64_t drop_gone(struct fr_perfmaps *pm, uint64_t need)
{
	struct aged *v;
	size_t nr = 0;
	uint64_t freed = 0;

	for (size_t i = 0; i < pm->n; i++)
		nr += pm->maps[i].gone && pm->maps[i].n;
	if (!nr || !(v = malloc(nr * sizeof(*v))))
		return 0;   /* no memory: oldest first among all */
	nr = 0;
	for (size_t i = 0; i < pm->n; i++)
		if (pm->maps[i].gone && pm->maps[i].n)
			v[nr++] = (struct aged){ pm->maps[i].last, (uint32_t)i };
	qsort(v, nr, sizeof(*v), cmp_last);
	for (size_t i = 0; i < nr && freed < need; i++) {
		struct pmap *m = &pm->maps[v[i].i];
		uint64_t before = pm->bytes;

		pm->dropped += m->n;
		fr_pmap_drop(pm, m);   /* its file's offsets kept: not read again */
		freed += before - pm->bytes;
	}
	free(v);
	pm->dropped_bytes += freed;
	return freed;
}

/* The oldest-first cut: the least seq such that the entries written before
 * it take need bytes (every entry if they take less). Each pass sums the
 * entries' bytes in BUCKETS ranges of seq and narrows to the range where
 * need is reached, until that range is one seq or takes at most slack bytes:
 * O(entries) a pass, at most 6 passes (seq < 2^48), mostly one or two. */
static uint64_t oldest_cut(const struct fr_perfmaps *pm, uint64_t need, uint64_t slack)
{
	uint64_t lo = 0, hi = pm->seq, sum[BUCKETS];

	while (hi - lo > 1) {
		uint64_t w = (hi - lo + BUCKETS - 1) / BUCKETS, acc = 0;
		size_t k;

		memset(sum, 0, sizeof(sum));
		for (size_t i = 0; i < pm->n; i++)
			for (size_t j = 0; j < pm->maps[i].n; j++) {
				const struct ent *x = &pm->maps[i].ents[j];
				uint64_t s = ent_seq(x);

				if (s < lo)
					acc += ent_cost(x);   /* cut already */
				else if (s < hi)
					sum[(s - lo) / w] += ent_cost(x);
			}
		for (k = 0; k < BUCKETS && acc + sum[k] < need; k++)
			acc += sum[k];
		if (k == BUCKETS)
			return pm->seq;   /* they take less than need: all of them */
		if (w == 1 || sum[k] <= slack)
			return lo + (k + 1) * w < hi ? lo + (k + 1) * w : hi;
		hi = lo + (k + 1) * w < hi ? lo + (k + 1) * w : hi;
		lo += k * w;
	}
	return hi;
}

/* Every entry from cut on, and name, into np (nothing changed but np):
 * false when out of memory. */
static bool intern_all(struct fr_perfmaps *pm, struct fr_strpool *np, uint64_t cut,
		       const char *name, size_t len)
{
	if (!fr_strpool__intern(np, name, len))
		return false;
	for (size_t i = 0; i < pm->n; i++)
		for (size_t j = 0; j < pm->maps[i].n; j++) {
			const struct ent *x = &pm->maps[i].ents[j];

			if (ent_seq(x) >= cut && !fr_strpool__intern(np, x->e.name, ent_len(x)))
				return false;
		}
	return true;
}

/* Drop the entries of m before cut; np: the new pool (every survivor's name
 * in it already), or NULL (the old one kept: names stay where they are). */
static void filter(struct fr_perfmaps *pm, struct pmap *m, uint64_t cut, struct fr_strpool *np)
{
	size_t k = 0;

	for (size_t j = 0; j < m->n; j++) {
		struct ent x = m->ents[j];

		if (ent_seq(&x) < cut) {
			uint64_t cost = ent_cost(&x);

			pm->bytes = pm->bytes > cost ? pm->bytes - cost : 0;
			pm->dropped++;
			pm->dropped_bytes += cost;
			continue;
		}
		if (np) {
			/* found, not added: intern_all put it there */
			const char *s = fr_strpool__intern(np, x.e.name, ent_len(&x));

			if (m->dump)   /* a move of that code names it with the new copy */
				fr_jitdump__rename(m->dump, x.e.start, x.e.name, s);
			x.e.name = s;
		}
		m->ents[k++] = x;   /* in the same order: still sorted if it was */
	}
	m->n = k;
	if (!k) {
		free(m->ents);
		m->ents = NULL;
		m->cap = 0;
	} else if (m->cap > 64 && m->cap / 2 > k) {   /* give the room back too */
		struct ent *v = realloc(m->ents, k * sizeof(*v));

		if (v) {
			m->ents = v;
			m->cap = k;
		}
	}
	if (np && m->dump)   /* the code whose names went: a later move of it unnamed */
		fr_jitdump__prune(m->dump);
}

void fr_pmap_compact(struct fr_perfmaps *pm, uint64_t cost, const char *name, size_t len,
		     const char **kept)
{
	uint64_t target = pm->budget - pm->budget / 4, need, freed, cut = 0;
	struct fr_strpool *np;

	*kept = NULL;
	need = pm->bytes + cost > target ? pm->bytes + cost - target : 0;
	freed = drop_gone(pm, need);
	if (freed < need)
		cut = oldest_cut(pm, need - freed, pm->budget / 64);
	/* the survivors' names into a new pool (name too: it may live in the
	 * old one), the old one freed; without memory for it, the entries go
	 * all the same and the names stay where they are */
	if ((np = fr_strpool__new()) && !intern_all(pm, np, cut, name, len)) {
		fr_strpool__delete(np);
		np = NULL;
	}
	for (size_t i = 0; i < pm->n; i++)
		filter(pm, &pm->maps[i], cut, np);
	if (np) {
		*kept = fr_strpool__intern(np, name, len);
		fr_strpool__delete(pm->names);
		pm->names = np;
	}
	pm->compactions++;
}
