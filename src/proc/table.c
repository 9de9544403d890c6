/* src/proc/table.c: the process model's rules (proctable.h): names, images,
 * mappings, fork, exec and exit as they are fed, by record, whole image or
 * batch, within the limits of a policy; and its collection by time.
 */
#include "config.h"
#include "src/proc/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "symbolize/strpool.h"

struct fr_proctable *fr_proctable__new(const struct fr_proctable_policy *pol)
{
	struct fr_proctable *pt = calloc(1, sizeof(*pt));

	if (!pt || !(pt->strs = fr_strpool__new())) {
		free(pt);
		return NULL;
	}
	if (pol)
		pt->pol = *pol;
	return pt;
}

static void gen_free(struct gen *g)
{
	if (g)
		free(g->maps);
	free(g);
}

void fr_proctable__delete(struct fr_proctable *pt)
{
	if (!pt)
		return;
	for (size_t i = 0; i < pt->nr_procs; i++) {
		for (size_t g = 0; g < pt->procs[i].n; g++)
			gen_free(pt->procs[i].gens[g]);
		free(pt->procs[i].gens);
	}
	for (size_t i = 0; i < pt->nr_threads; i++)
		free(pt->threads[i].h);
	free(pt->procs);
	free(pt->threads);
	free(pt->dsos);
	fr_hmap__exit(&pt->pidx);
	fr_hmap__exit(&pt->tidx);
	fr_hmap__exit(&pt->didx);
	fr_strpool__delete(pt->strs);
	fr_strpool__delete(pt->spare);
	free(pt);
}

static const char *intern(struct fr_proctable *pt, const char *s)
{
	pt->interned++;
	return fr_strpool__str(pt->strs, s);
}

/* The process of pid, added if unknown (pointers into procs move then). */
static struct proc *proc_add(struct fr_proctable *pt, uint32_t pid)
{
	struct proc *p = fr_pm_proc(pt, pid);

	if (p)
		return p;
	if (pt->nr_procs >= UINT32_MAX ||
	    fr_grow(&pt->procs, &pt->cap_procs, pt->nr_procs + 1, sizeof(*pt->procs), 64) ||
	    fr_hmap__add(&pt->pidx, fr_pm_hash_id(pid), (uint32_t)pt->nr_procs))
		return NULL;
	p = &pt->procs[pt->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	return p;
}

static struct thread *thread_add(struct fr_proctable *pt, uint32_t tid)
{
	struct thread *t = fr_pm_thread(pt, tid);

	if (t)
		return t;
	if (pt->nr_threads >= UINT32_MAX ||
	    fr_grow(&pt->threads, &pt->cap_threads, pt->nr_threads + 1, sizeof(*pt->threads), 64) ||
	    fr_hmap__add(&pt->tidx, fr_pm_hash_id(tid), (uint32_t)pt->nr_threads))
		return NULL;
	t = &pt->threads[pt->nr_threads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static void set_exit(struct fr_proctable *pt, struct gen *g, uint64_t t)
{
	pt->nr_exited += !g->p.exit_time && t;
	pt->nr_exited -= g->p.exit_time && !t;
	g->p.exit_time = t;
}

/* An exec learnt after the mappings it made (its COMM read after them, from
 * another CPU, or written at the exec's end from sched_process_exec): the
 * previous image's mappings from start on are the new image's. Both arrays
 * stay sorted by address. */
static void take_later_maps(struct gen *prev, struct gen *g, uint64_t start)
{
	size_t k = 0, moved = 0;

	if (!start)
		return;
	for (size_t i = 0; i < prev->n; i++)
		moved += prev->maps[i].time >= start;
	if (!moved || fr_grow(&g->maps, &g->cap, moved, sizeof(*g->maps), 4))
		return;   /* no memory: they stay where they were */
	for (size_t i = 0; i < prev->n; i++) {
		if (prev->maps[i].time >= start) {
			g->maps[g->n++] = prev->maps[i];
			g->unsorted |= prev->unsorted;
			if (prev->maps[i].end - prev->maps[i].start > g->max_len)
				g->max_len = prev->maps[i].end - prev->maps[i].start;
		} else {
			prev->maps[k++] = prev->maps[i];
		}
	}
	prev->n = k;
}

/* The image of p starting at start, added unless one does (a fork or exec
 * seen twice: in the sideband and in a PROCS blob). A new image ends the one
 * before it, and takes over an exit that one was given after its start (an
 * exit read before the earlier exec: records of two CPUs); one added before
 * another ends where that starts. */
static struct gen *add_gen(struct fr_proctable *pt, struct proc *p, uint64_t start)
{
	long gi = fr_pm_gen_index(p, start);
	size_t at = (size_t)(gi + 1);
	struct gen *g;

	if (gi >= 0 && p->gens[gi]->p.start_time == start)
		return p->gens[gi];
	if (fr_grow(&p->gens, &p->cap, p->n + 1, sizeof(*p->gens), 4) ||
	    !(g = calloc(1, sizeof(*g))))
		return NULL;
	memmove(&p->gens[at + 1], &p->gens[at], (p->n - at) * sizeof(*p->gens));
	pt->steps += p->n - at + 1;
	p->gens[at] = g;
	p->n++;
	pt->nr_images++;
	g->p.pid = p->pid;
	g->p.start_time = start;
	if (at + 1 < p->n) {
		uint64_t next = p->gens[at + 1]->p.start_time;

		set_exit(pt, g, next ? next : 1);
	}
	if (at > 0) {
		struct gen *prev = p->gens[at - 1];

		take_later_maps(prev, g, start);
		g->p.ppid = prev->p.ppid;
		if (!prev->p.exit_time || prev->p.exit_time > start) {
			if (prev->p.exit_time && at + 1 == p->n)
				set_exit(pt, g, prev->p.exit_time);
			set_exit(pt, prev, start ? start : 1);
		}
	}
	return g;
}

/* The image a record of pid at time belongs to: the one alive then, else a
 * new one (from the start when pid is new, else from time: a reused pid
 * whose fork was not seen). */
static struct gen *gen_for(struct fr_proctable *pt, uint32_t pid, uint64_t time)
{
	struct proc *p = proc_add(pt, pid);
	long gi;

	if (!p)
		return NULL;
	gi = fr_pm_gen_index(p, time);
	if (gi >= 0 && !(p->gens[gi]->p.exit_time && p->gens[gi]->p.exit_time <= time))
		return p->gens[gi];
	return add_gen(pt, p, gi >= 0 ? time : 0);
}

static void drop_oldest_comms(struct fr_proctable *pt, struct thread *t, size_t k)
{
	memmove(t->h, t->h + k, (t->n - k) * sizeof(*t->h));
	t->n -= k;
	pt->nr_comms -= k;
}

static int repool(struct fr_proctable *pt);

/* comm (interned) from time on, in time order; the same name again in a row
 * adds nothing unless a new image starts with it (since: the image's start;
 * UINT64_MAX: it does). */
static int add_comm(struct fr_proctable *pt, struct thread *t, uint64_t time, const char *comm,
		    uint64_t since)
{
	size_t at = t->n;

	while (at > 0 && t->h[at - 1].time > time)
		at--;
	pt->steps += t->n - at + 1;
	if (at == t->n && at && t->h[at - 1].comm == comm && t->h[at - 1].time >= since)
		return 0;
	if (pt->pol.max_comms && t->n >= pt->pol.max_comms) {
		drop_oldest_comms(pt, t, t->n / 2);
		for (at = t->n; at > 0 && t->h[at - 1].time > time;)
			at--;
	}
	if (fr_grow(&t->h, &t->cap, t->n + 1, sizeof(*t->h), 4))
		return -ENOMEM;
	memmove(&t->h[at + 1], &t->h[at], (t->n - at) * sizeof(*t->h));
	t->h[at] = (struct fr_pcomm){ time, comm };
	t->n++;
	pt->nr_comms++;
	return 0;
}

int fr_proctable__comm(struct fr_proctable *pt, uint32_t pid, uint32_t tid, uint64_t time,
		       const char *comm, bool exec)
{
	const char *c = intern(pt, comm);
	struct thread *t;
	struct gen *g;
	int err;

	if (!c)
		return -ENOMEM;
	pt->version++;
	if (exec) {   /* a new image */
		struct proc *p = proc_add(pt, pid);

		g = p ? add_gen(pt, p, time) : NULL;
	} else {      /* the main thread's name: its image is known from then */
		g = pid == tid ? gen_for(pt, pid, time) : NULL;
	}
	if ((exec || pid == tid) && !g)
		return -ENOMEM;
	t = thread_add(pt, tid);
	if (!t)
		return -ENOMEM;
	t->pid = pid;
	err = add_comm(pt, t, time, c, exec ? UINT64_MAX : g ? g->p.start_time : 0);
	if (!err && pt->pol.max_comms && pt->interned > 2 * (pt->nr_comms + pt->nr_dsos) + 4096)
		err = repool(pt);   /* a rename storm: the pool keeps what is held */
	return err;
}

static uint64_t dso_hash(const char *path, const uint8_t *bid, size_t bid_size)
{
	return fr_hash__bytes(fr_hash__u64((uint64_t)(uintptr_t)path), bid, bid_size);
}

/* The index of the file (path interned, build id), added if new. */
static int dso_index(struct fr_proctable *pt, const char *path, const uint8_t *bid,
		     size_t bid_size, uint32_t *idx)
{
	uint64_t h;
	struct fr_hmap_it it;
	struct fr_dso_id *d;
	uint32_t i;

	if (bid_size > sizeof(d->build_id))
		bid_size = sizeof(d->build_id);
	h = dso_hash(path, bid, bid_size);
	for (bool ok = fr_hmap__first(&pt->didx, h, &it, &i); ok;
	     ok = fr_hmap__next(&pt->didx, &it, &i)) {
		d = &pt->dsos[i];
		if (d->path == path && d->build_id_size == bid_size &&
		    (!bid_size || !memcmp(d->build_id, bid, bid_size))) {
			*idx = i;
			return 0;
		}
	}
	if (pt->nr_dsos >= UINT32_MAX - 1 ||
	    fr_grow(&pt->dsos, &pt->cap_dsos, pt->nr_dsos + 1, sizeof(*pt->dsos), 16) ||
	    fr_hmap__add(&pt->didx, h, (uint32_t)pt->nr_dsos))
		return -ENOMEM;
	d = &pt->dsos[pt->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->build_id_size = (uint8_t)bid_size;
	if (bid_size)
		memcpy(d->build_id, bid, bid_size);
	*idx = (uint32_t)pt->nr_dsos++;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct fr_map *x = *(const struct fr_map *const *)a, *y = *(const struct fr_map *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* At the limit: the older half of g's mappings go (they predate any window a
 * snapshot can still hold). */
static int drop_oldest_maps(struct gen *g)
{
	const struct fr_map **order = malloc(g->n * sizeof(*order));
	uint64_t cut;
	const struct fr_map *cut_at;
	size_t w = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < g->n; i++)
		order[i] = &g->maps[i];
	qsort(order, g->n, sizeof(*order), by_time);
	cut = order[g->n / 2]->time;
	cut_at = order[g->n / 2];
	free(order);
	for (size_t i = 0; i < g->n; i++) {
		const struct fr_map *m = &g->maps[i];

		if (m->time < cut || (m->time == cut && m < cut_at))
			continue;
		g->maps[w++] = *m;
	}
	g->n = w;
	return 0;
}

static int insert_map(struct gen *g, const struct fr_map *m, uint64_t *steps)
{
	size_t at;

	if (fr_grow(&g->maps, &g->cap, g->n + 1, sizeof(*g->maps), 4))
		return -ENOMEM;
	at = fr_pm_map_upper(g, m->start);
	*steps += g->n - at + 1;
	memmove(&g->maps[at + 1], &g->maps[at], (g->n - at) * sizeof(*g->maps));
	g->maps[at] = *m;
	g->n++;
	if (m->end - m->start > g->max_len)
		g->max_len = m->end - m->start;
	return 0;
}

int fr_proctable__mmap(struct fr_proctable *pt, uint32_t pid, uint64_t time, uint64_t start,
		       uint64_t len, uint64_t pgoff, uint32_t prot, const char *path,
		       const uint8_t *build_id, size_t build_id_size)
{
	const char *ipath = intern(pt, path ? path : "");
	struct fr_map m = { start, start + len, pgoff, time, 0, prot };
	struct gen *g;
	int err;

	if (!ipath)
		return -ENOMEM;
	pt->steps++;
	if (!len || start + len < start)
		return -EINVAL;
	pt->version++;
	err = dso_index(pt, ipath, build_id, build_id ? build_id_size : 0, &m.dso);
	if (err)
		return err;
	g = gen_for(pt, pid, time);
	if (!g)
		return -ENOMEM;
	if (pt->pol.max_maps && g->n >= pt->pol.max_maps && (err = drop_oldest_maps(g)))
		return err;
	if (pt->batch && (g->unsorted || (g->n && m.start < g->maps[g->n - 1].start))) {
		if (fr_grow(&g->maps, &g->cap, g->n + 1, sizeof(*g->maps), 4))
			return -ENOMEM;
		g->maps[g->n++] = m;   /* sorted at the batch's end */
		g->unsorted = true;
		if (m.end - m.start > g->max_len)
			g->max_len = m.end - m.start;
		return 0;
	}
	return insert_map(g, &m, &pt->steps);
}

/* Address order; at one address the older first, then any fixed order. */
static int by_start(const void *a, const void *b)
{
	const struct fr_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return memcmp(x, y, sizeof(*x));
}

uint64_t fr_proctable__steps(const struct fr_proctable *pt)
{
	return pt->steps;
}

void fr_proctable__batch(struct fr_proctable *pt, bool on)
{
	pt->batch = on;
	if (on)
		return;
	for (size_t i = 0; i < pt->nr_procs; i++)
		for (size_t k = 0; k < pt->procs[i].n; k++) {
			struct gen *g = pt->procs[i].gens[k];

			if (g->unsorted)
				qsort(g->maps, g->n, sizeof(*g->maps), by_start);
			g->unsorted = false;
		}
	pt->version++;
}

int fr_proctable__fork(struct fr_proctable *pt, uint32_t pid, uint32_t tid, uint32_t ppid,
		       uint32_t ptid, uint64_t time)
{
	const struct thread *parent = fr_pm_thread(pt, ptid);
	const char *comm = NULL;
	struct thread *t;
	struct proc *p;
	struct gen *g;

	if (!parent)
		parent = fr_pm_thread(pt, ppid);
	if (parent && parent->n)
		comm = parent->h[fr_pm_comm_index(parent, time)].comm;
	pt->version++;
	if (pid != ppid) {
		p = proc_add(pt, pid);
		g = p ? add_gen(pt, p, time) : NULL;
		if (!g)
			return -ENOMEM;
		g->p.forked = true;
		g->p.ppid = ppid;
		/* a fork read after the child's exec: the exec's image is its too */
		for (size_t i = (size_t)fr_pm_gen_index(p, time) + 1;
		     i < p->n && !p->gens[i]->p.forked && !p->gens[i]->p.ppid; i++)
			p->gens[i]->p.ppid = ppid;
	} else if (pt->pol.processes_only) {
		return 0;   /* a new thread */
	}
	t = thread_add(pt, tid);
	if (!t)
		return -ENOMEM;
	t->pid = pid;
	if (t->exit_time) {   /* a tid used again */
		t->exit_time = 0;
		pt->nr_exited_threads--;
	}
	t->late = 0;
	return comm ? add_comm(pt, t, time, comm, pid != ppid ? UINT64_MAX : 0) : 0;
}

int fr_proctable__late_comm(struct fr_proctable *pt, uint32_t pid, uint32_t tid, uint64_t time,
			   const char *comm)
{
	int err = fr_proctable__comm(pt, pid, tid, time, comm, false);
	struct thread *t = err ? NULL : fr_pm_thread(pt, tid);

	if (t)
		t->late = time;
	return err;
}

int fr_proctable__exit(struct fr_proctable *pt, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct proc *p = pid == tid ? fr_pm_proc(pt, pid) : NULL;
	long gi = p ? fr_pm_gen_index(p, time) : -1;
	struct thread *t = pid != tid ? fr_pm_thread(pt, tid) : NULL;

	/* a thread's exit ends nothing: its name stays for its samples, until
	 * the collection passes its exit */
	if (t && t->pid == pid && !t->exit_time) {
		t->exit_time = time ? time : 1;
		pt->nr_exited_threads++;
	}
	if (gi < 0 || p->gens[gi]->p.exit_time)
		return 0;
	pt->version++;
	set_exit(pt, p->gens[gi], time ? time : 1);
	return 0;
}

int fr_proctable__image(struct fr_proctable *pt, const struct fr_proc *img)
{
	struct proc *p = proc_add(pt, img->pid);
	struct gen *g = p ? add_gen(pt, p, img->start_time) : NULL;

	if (!g)
		return -ENOMEM;
	pt->version++;
	g->p.ppid = img->ppid;
	if (img->exit_time && (!g->p.exit_time || img->exit_time < g->p.exit_time))
		set_exit(pt, g, img->exit_time);
	return 0;
}

/* ---- collection ---- */

static int copy_map(void *ctx, const struct fr_map *m)
{
	uint64_t steps = 0;

	return insert_map(ctx, m, &steps);
}

/* A forked image whose parent's image goes: a copy of what it saw. */
static int materialize(struct fr_proctable *pt, struct gen *g)
{
	struct gen tmp = { .p = g->p };
	int err = fr_proctable__proc_maps(pt, &g->p, copy_map, &tmp);

	if (err) {
		free(tmp.maps);
		return err;
	}
	free(g->maps);
	g->maps = tmp.maps;
	g->n = tmp.n;
	g->cap = tmp.cap;
	g->max_len = tmp.max_len;
	g->p.forked = false;
	return 0;
}

static bool gone(const struct gen *g, uint64_t before)
{
	return g->p.exit_time && g->p.exit_time < before;
}

/* Every string held interned again into a new pool, and only the files
 * still mapped kept (their indexes change): the pool and the files hold what
 * the model holds, not what it once did. The two pools take turns: the one
 * left is emptied and kept, so a rename storm's repools reuse their memory
 * (no allocation, no index growing again, no fresh pages). */
static int repool(struct fr_proctable *pt)
{
	struct fr_strpool *np = pt->spare ? pt->spare : fr_strpool__new();
	uint32_t *remap = calloc(pt->nr_dsos ? pt->nr_dsos : 1, sizeof(*remap));
	size_t w = 0;

	if (!np || !remap)
		goto fail;
	/* first everything into the new pool (only then can nothing fail) */
	for (size_t i = 0; i < pt->nr_threads; i++)
		for (size_t k = 0; k < pt->threads[i].n; k++)
			if (!fr_strpool__str(np, pt->threads[i].h[k].comm))
				goto fail;
	for (size_t i = 0; i < pt->nr_procs; i++)
		for (size_t g = 0; g < pt->procs[i].n; g++)
			for (size_t k = 0; k < pt->procs[i].gens[g]->n; k++)
				remap[pt->procs[i].gens[g]->maps[k].dso] = 1;
	for (size_t i = 0; i < pt->nr_dsos; i++)
		if (remap[i] && !fr_strpool__str(np, pt->dsos[i].path))
			goto fail;
	for (size_t i = 0; i < pt->nr_threads; i++)
		for (size_t k = 0; k < pt->threads[i].n; k++)
			pt->threads[i].h[k].comm = fr_strpool__str(np, pt->threads[i].h[k].comm);
	fr_hmap__clear(&pt->didx);
	for (size_t i = 0; i < pt->nr_dsos; i++) {
		struct fr_dso_id *d = &pt->dsos[w];

		if (!remap[i])
			continue;
		*d = pt->dsos[i];
		d->path = fr_strpool__str(np, d->path);
		remap[i] = (uint32_t)w;
		/* room for every entry: reserved by the adds that made them */
		fr_hmap__add(&pt->didx, dso_hash(d->path, d->build_id, d->build_id_size),
			     (uint32_t)w++);
	}
	pt->nr_dsos = w;
	for (size_t i = 0; i < pt->nr_procs; i++)
		for (size_t g = 0; g < pt->procs[i].n; g++)
			for (size_t k = 0; k < pt->procs[i].gens[g]->n; k++)
				pt->procs[i].gens[g]->maps[k].dso = remap[pt->procs[i].gens[g]->maps[k].dso];
	fr_strpool__clear(pt->strs);
	pt->spare = pt->strs;
	pt->strs = np;
	pt->interned = 0;
	pt->version++;
	free(remap);
	return 0;
fail:
	if (np)
		fr_strpool__clear(np);
	pt->spare = np;
	free(remap);
	return -ENOMEM;
}

/* The indexes again after entries moved (room reserved by the adds before). */
static void reindex(struct fr_proctable *pt)
{
	fr_hmap__clear(&pt->pidx);
	fr_hmap__clear(&pt->tidx);
	for (size_t i = 0; i < pt->nr_procs; i++)
		fr_hmap__add(&pt->pidx, fr_pm_hash_id(pt->procs[i].pid), (uint32_t)i);
	for (size_t i = 0; i < pt->nr_threads; i++)
		fr_hmap__add(&pt->tidx, fr_pm_hash_id(pt->threads[i].tid), (uint32_t)i);
}

size_t fr_proctable__gc(struct fr_proctable *pt, uint64_t before)
{
	size_t dropped = 0, wp = 0, wt = 0;

	for (size_t i = 0; i < pt->nr_threads; i++) {
		struct thread *t = &pt->threads[i];
		size_t k = 0;

		while (k + 1 < t->n && t->h[k + 1].time <= before)
			k++;
		drop_oldest_comms(pt, t, k);
	}
	/* what a kept image sees of one that goes is copied first */
	for (size_t i = 0; i < pt->nr_procs; i++)
		for (size_t g = 0; g < pt->procs[i].n; g++) {
			struct gen *gn = pt->procs[i].gens[g];
			const struct gen *par = gone(gn, before) ? NULL : fr_pm_parent(pt, gn);

			if (par && gone(par, before) && materialize(pt, gn))
				return 0;   /* no memory: nothing dropped this time */
		}
	for (size_t i = 0; i < pt->nr_procs; i++) {
		struct proc *p = &pt->procs[i];
		size_t w = 0;

		for (size_t g = 0; g < p->n; g++) {
			if (!gone(p->gens[g], before)) {
				p->gens[w++] = p->gens[g];
				continue;
			}
			gen_free(p->gens[g]);
			dropped++;
		}
		p->n = w;
		if (!w) {
			free(p->gens);
			continue;
		}
		pt->procs[wp++] = *p;
	}
	if (dropped) {
		pt->nr_procs = wp;
		pt->nr_images -= dropped;
		pt->nr_exited -= dropped;
		reindex(pt);
	}
	/* a thread goes with the last image of its process, or its exit */
	for (size_t i = 0; i < pt->nr_threads; i++) {
		struct thread *t = &pt->threads[i];

		if (!fr_pm_proc(pt, t->pid) || (t->exit_time && t->exit_time < before)) {
			pt->nr_exited_threads -= t->exit_time != 0;
			pt->nr_comms -= t->n;
			free(t->h);
			continue;
		}
		pt->threads[wt++] = *t;
	}
	if (!dropped && wt == pt->nr_threads)
		return 0;
	pt->nr_threads = wt;
	reindex(pt);
	pt->version++;
	repool(pt);   /* no memory: the old pool stays, as good */
	return dropped;
}
