/* symbolize/maps.c: processes, threads and executable mappings over time (see
 * maps.h). A process is a list of generations (fork, exec); each holds its
 * mappings sorted by start address, each stamped with the time it appeared.
 */
#include "config.h"
#include "symbolize/maps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/strpool.h"

#define MAX_INHERIT 64   /* fork depth followed when a child has no own mapping */

struct gen {
	uint64_t start;       /* fork or exec time; 0: known from before */
	uint64_t ptime;       /* fork time, when inherit */
	uint32_t ppid;
	bool inherit;         /* created by fork: the parent's mappings apply */
	struct fr_map *maps;  /* sorted by start address */
	size_t n, cap;
	uint64_t max_len;
};

struct proc {
	uint32_t pid;
	struct gen **gens;    /* sorted by start time */
	size_t n, cap;
};

struct comm_ent {
	uint64_t time;
	const char *comm;
};

struct thread {
	uint32_t tid, pid;
	struct comm_ent *h;   /* sorted by time */
	size_t n, cap;
};

struct table {            /* u32 key -> pointer, open addressing */
	uint32_t *keys;
	void **vals;
	size_t cap, used;
};

struct fr_maps {
	struct table procs, threads, dso_index;
	struct fr_dso_id *dsos;
	size_t nr_dsos, dsos_cap;
	struct fr_strpool *strs;
	uint64_t version;     /* bumped by every change a lookup could see */
};

static uint32_t hash32(uint32_t k)
{
	k ^= k >> 16;
	k *= 0x7feb352du;
	k ^= k >> 15;
	k *= 0x846ca68bu;
	return k ^ (k >> 16);
}

/* The slot of key (value NULL when absent). Keys are stored +1 so 0 is empty. */
static size_t table_slot(const struct table *t, uint32_t key)
{
	size_t i = hash32(key) & (t->cap - 1);

	while (t->keys[i] && t->keys[i] != key + 1)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static void *table_get(const struct table *t, uint32_t key)
{
	return t->cap ? t->vals[table_slot(t, key)] : NULL;
}

static int table_put(struct table *t, uint32_t key, void *val)
{
	size_t i;

	if ((t->used + 1) * 2 > t->cap) {
		struct table n = { NULL, NULL, t->cap ? t->cap * 2 : 256, 0 };

		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.vals = calloc(n.cap, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return -ENOMEM;
		}
		for (size_t j = 0; j < t->cap; j++)
			if (t->keys[j])
				table_put(&n, t->keys[j] - 1, t->vals[j]);
		free(t->keys);
		free(t->vals);
		*t = n;
	}
	i = table_slot(t, key);
	if (!t->keys[i])
		t->used++;
	t->keys[i] = key + 1;
	t->vals[i] = val;
	return 0;
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	void *p;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int fr_maps__new(struct fr_maps **out)
{
	struct fr_maps *m = calloc(1, sizeof(*m));

	if (!m || !(m->strs = fr_strpool__new())) {
		free(m);
		return -ENOMEM;
	}
	*out = m;
	return 0;
}

void fr_maps__delete(struct fr_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->procs.cap; i++) {
		struct proc *p = m->procs.vals[i];

		for (size_t g = 0; p && g < p->n; g++) {
			free(p->gens[g]->maps);
			free(p->gens[g]);
		}
		if (p)
			free(p->gens);
		free(p);
	}
	for (size_t i = 0; i < m->threads.cap; i++) {
		struct thread *t = m->threads.vals[i];

		if (t)
			free(t->h);
		free(t);
	}
	free(m->procs.keys);
	free(m->procs.vals);
	free(m->threads.keys);
	free(m->threads.vals);
	free(m->dso_index.keys);
	free(m->dso_index.vals);
	free(m->dsos);
	fr_strpool__delete(m->strs);
	free(m);
}

static struct proc *get_proc(struct fr_maps *m, uint32_t pid)
{
	struct proc *p = table_get(&m->procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (table_put(&m->procs, pid, p)) {
		free(p);
		return NULL;
	}
	return p;
}

static struct thread *get_thread(struct fr_maps *m, uint32_t tid)
{
	struct thread *t = table_get(&m->threads, tid);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	if (table_put(&m->threads, tid, t)) {
		free(t);
		return NULL;
	}
	return t;
}

/* Index of the last generation that started at or before time; -1 if none. */
static long gen_index(const struct proc *p, uint64_t time)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->gens[mid]->start <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* The generation starting at start, created unless one already does (a
 * fork or exec seen twice: in the sideband and in a retained table). */
static struct gen *add_gen(struct proc *p, uint64_t start)
{
	long gi = gen_index(p, start);
	struct gen *g;
	size_t at;

	if (gi >= 0 && p->gens[gi]->start == start)
		return p->gens[gi];
	if (grow((void **)&p->gens, &p->cap, p->n, sizeof(*p->gens)))
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->start = start;
	at = (size_t)(gen_index(p, start) + 1);
	memmove(&p->gens[at + 1], &p->gens[at], (p->n - at) * sizeof(*p->gens));
	p->gens[at] = g;
	p->n++;
	return g;
}

static int add_comm(struct thread *t, uint64_t time, const char *comm)
{
	size_t at = t->n;

	if (grow((void **)&t->h, &t->cap, t->n, sizeof(*t->h)))
		return -ENOMEM;
	while (at > 0 && t->h[at - 1].time > time)
		at--;
	memmove(&t->h[at + 1], &t->h[at], (t->n - at) * sizeof(*t->h));
	t->h[at] = (struct comm_ent){ time, comm };
	t->n++;
	return 0;
}

/* The name of t at time; *lo, *hi (may be NULL): the times over which it is
 * the same entry. */
static const char *comm_at(const struct thread *t, uint64_t time, uint64_t *lo, uint64_t *hi)
{
	size_t l = 0, h = t->n, k;

	if (!t->n)
		return NULL;
	while (l < h) {
		size_t mid = l + (h - l) / 2;

		if (t->h[mid].time <= time)
			l = mid + 1;
		else
			h = mid;
	}
	k = l ? l - 1 : 0;   /* before the first: the earliest known */
	if (lo)
		*lo = k ? t->h[k].time : 0;
	if (hi)
		*hi = k + 1 < t->n ? t->h[k + 1].time : UINT64_MAX;
	return t->h[k].comm;
}

int fr_maps__comm(struct fr_maps *m, uint32_t pid, uint32_t tid, uint64_t time,
		  const char *comm, bool exec)
{
	struct thread *t = get_thread(m, tid);
	const char *c = fr_strpool__str(m->strs, comm);
	struct proc *p;

	if (!t || !c)
		return -ENOMEM;
	m->version++;
	t->pid = pid;
	if (add_comm(t, time, c))
		return -ENOMEM;
	if (!exec)
		return 0;
	p = get_proc(m, pid);
	return p && add_gen(p, time) ? 0 : -ENOMEM;
}

static int dso_index(struct fr_maps *m, const char *path, const uint8_t *bid, size_t bid_size,
		     uint32_t *idx)
{
	uint32_t h = (uint32_t)((uintptr_t)path >> 3) * 2654435761u;
	struct fr_dso_id *d;

	if (bid_size > sizeof(d->build_id))
		bid_size = sizeof(d->build_id);
	for (size_t i = 0; i < bid_size; i++)
		h = (h ^ bid[i]) * 16777619u;
	h &= 0x7fffffffu;
	/* chain over the probe sequence of h, h+1, ... in the index table */
	for (uint32_t k = h;; k = (k + 1) & 0x7fffffffu) {
		uintptr_t v = (uintptr_t)table_get(&m->dso_index, k);

		if (!v)
			break;
		d = &m->dsos[v - 1];
		if (d->path == path && d->build_id_size == bid_size &&
		    (!bid_size || !memcmp(d->build_id, bid, bid_size))) {
			*idx = (uint32_t)(v - 1);
			return 0;
		}
		h = (k + 1) & 0x7fffffffu;
	}
	if (m->nr_dsos >= UINT32_MAX - 1 ||
	    grow((void **)&m->dsos, &m->dsos_cap, m->nr_dsos, sizeof(*m->dsos)))
		return -ENOMEM;
	d = &m->dsos[m->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->build_id_size = (uint8_t)bid_size;
	if (bid_size)
		memcpy(d->build_id, bid, bid_size);
	if (table_put(&m->dso_index, h, (void *)(uintptr_t)(m->nr_dsos + 1)))
		return -ENOMEM;
	*idx = (uint32_t)m->nr_dsos++;
	return 0;
}

static size_t map_upper(const struct gen *g, uint64_t addr)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;   /* first map starting after addr */
}

int fr_maps__mmap(struct fr_maps *m, uint32_t pid, uint64_t time, uint64_t start, uint64_t len,
		  uint64_t pgoff, const char *path, const uint8_t *build_id, size_t build_id_size)
{
	struct proc *p = get_proc(m, pid);
	const char *ipath = fr_strpool__str(m->strs, path ? path : "");
	struct gen *g;
	uint32_t dso;
	size_t at;
	long gi;
	int err;

	if (!p || !ipath)
		return -ENOMEM;
	if (!len || start + len < start)
		return -EINVAL;
	m->version++;
	err = dso_index(m, ipath, build_id, build_id ? build_id_size : 0, &dso);
	if (err)
		return err;
	gi = gen_index(p, time);
	g = gi >= 0 ? p->gens[gi] : add_gen(p, 0);
	if (!g || grow((void **)&g->maps, &g->cap, g->n, sizeof(*g->maps)))
		return -ENOMEM;
	at = map_upper(g, start);
	memmove(&g->maps[at + 1], &g->maps[at], (g->n - at) * sizeof(*g->maps));
	g->maps[at] = (struct fr_map){ start, start + len, pgoff, time, dso };
	g->n++;
	if (len > g->max_len)
		g->max_len = len;
	return 0;
}

int fr_maps__fork(struct fr_maps *m, uint32_t pid, uint32_t tid, uint32_t ppid, uint32_t ptid,
		  uint64_t time)
{
	struct thread *parent = table_get(&m->threads, ptid), *t;
	const char *comm = parent ? comm_at(parent, time, NULL, NULL) : NULL;
	struct proc *p;
	struct gen *g;

	t = get_thread(m, tid);
	if (!t)
		return -ENOMEM;
	m->version++;
	t->pid = pid;
	if (comm && add_comm(t, time, comm))
		return -ENOMEM;
	if (pid == ppid)
		return 0;   /* a new thread shares its process's mappings */
	p = get_proc(m, pid);
	g = p ? add_gen(p, time) : NULL;
	if (!g)
		return -ENOMEM;
	g->inherit = true;
	g->ppid = ppid;
	g->ptime = time;
	return 0;
}

int fr_maps__image(struct fr_maps *m, uint32_t pid, uint64_t start)
{
	struct proc *p = get_proc(m, pid);

	m->version++;
	return p && add_gen(p, start) ? 0 : -ENOMEM;
}

int fr_maps__exit(struct fr_maps *m, uint32_t pid, uint32_t tid, uint64_t time)
{
	/* Nothing to end: a later sample of a reused pid follows its FORK. */
	(void)m;
	(void)pid;
	(void)tid;
	(void)time;
	return 0;
}

/* The newest mapping of g holding addr at time; *lo, *hi narrowed to the
 * times around it at which the mappings holding addr change. */
static const struct fr_map *find_in_gen(const struct gen *g, uint64_t time, uint64_t addr,
					uint64_t *lo, uint64_t *hi)
{
	const struct fr_map *best = NULL;

	for (size_t i = map_upper(g, addr); i-- > 0;) {
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

const struct fr_map *fr_maps__find_span(const struct fr_maps *m, uint32_t pid, uint64_t time,
					uint64_t addr, uint64_t *tlo, uint64_t *thi)
{
	uint64_t lo = 0, hi = UINT64_MAX;
	const struct fr_map *mp = NULL;

	for (int depth = 0; depth < MAX_INHERIT; depth++) {
		const struct proc *p = table_get(&m->procs, pid);
		const struct gen *g;
		long gi;

		if (!p || !p->n)
			break;
		gi = gen_index(p, time);
		if (gi < 0)
			gi = 0;
		g = p->gens[gi];
		if (!depth) {
			/* the same generation applies from its start to the next one's */
			if (gi > 0)
				lo = g->start;
			if ((size_t)gi + 1 < p->n)
				hi = p->gens[gi + 1]->start;
		}
		/* deeper: a fixed fork time, the same for every sample time */
		{
			uint64_t l = lo, h = hi;

			mp = find_in_gen(g, time, addr, depth ? &l : &lo, depth ? &h : &hi);
		}
		if (mp || !g->inherit)
			break;
		pid = g->ppid;
		time = g->ptime;
	}
	if (tlo)
		*tlo = lo;
	if (thi)
		*thi = hi;
	return mp;
}

const struct fr_map *fr_maps__find(const struct fr_maps *m, uint32_t pid, uint64_t time,
				   uint64_t addr)
{
	return fr_maps__find_span(m, pid, time, addr, NULL, NULL);
}

uint64_t fr_maps__version(const struct fr_maps *m)
{
	return m->version;
}

const char *fr_maps__thread_comm_span(const struct fr_maps *m, uint32_t tid, uint64_t time,
				      uint64_t *tlo, uint64_t *thi)
{
	const struct thread *t = table_get(&m->threads, tid);

	*tlo = 0;
	*thi = UINT64_MAX;
	return t ? comm_at(t, time, tlo, thi) : NULL;
}

const char *fr_maps__thread_comm(const struct fr_maps *m, uint32_t tid, uint64_t time)
{
	const struct thread *t = table_get(&m->threads, tid);

	return t ? comm_at(t, time, NULL, NULL) : NULL;
}

size_t fr_maps__nr_dsos(const struct fr_maps *m)
{
	return m->nr_dsos;
}

const struct fr_dso_id *fr_maps__dso(const struct fr_maps *m, uint32_t idx)
{
	return idx < m->nr_dsos ? &m->dsos[idx] : NULL;
}
