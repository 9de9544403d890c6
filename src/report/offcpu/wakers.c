/* src/report/offcpu/wakers.c: who ended each wait: the wakeup's stack
 * (sched:sched_waking fires in the waker's context) joined to the wait it
 * ended (the wakee's first wakeup after its switch-out); the pairs summed
 * per waiting stack and waker stack, shown as offwaketime's folded stacks
 * and as the top wakers under each off-CPU stack of the text report.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/report/offcpu/offcpu.h"

#define MAX_WAKER_FRAMES 128

/* "--" between the waiting stack and the waker's (bcc offwaketime's) */
static const struct fr_sym sep_sym = { "--", "[wakers]", "[wakers]", false, false, false, 0 };

struct pend {                    /* the last wakeup of a thread, waiting for its wait */
	uint32_t tid;
	uint64_t time;
	const char *comm;            /* the waker's */
	const struct fr_sym **frames;   /* leaf first */
	size_t n, cap;
};

struct pair {                    /* waits of one stack ended by one waker stack */
	const char *wcomm, *kcomm;   /* waiter, waker (NULL: none recorded) */
	const struct fr_sym **w, **k;   /* leaf first; w ends with its state frame */
	size_t wn, kn;
	uint64_t ns, waits;
};

struct join {                    /* one wait's pair, kept for fr_wakers__join */
	uint32_t tid;
	uint32_t pair;               /* UINT32_MAX: preempted (no one woke it) */
	uint64_t start;
};

struct name {                    /* a waker's name as the folded set's root-side frame */
	const char *comm;
	struct fr_sym sym;
};

struct fr_wakers {
	struct pend *pend;
	size_t nr_pend, cap_pend;
	struct fr_hmap pend_index;   /* tid -> pend */
	struct pair *pairs;
	size_t nr_pairs, cap_pairs;
	struct fr_hmap pair_index;   /* (waiter, waker) -> pair */
	struct fr_hmap waiter_index; /* waiter -> its pairs */
	struct name **names;
	size_t nr_names, cap_names;
	struct fr_folded *folded;    /* made on demand */
	struct fr_wakers_totals tot;
	bool keep_joins;             /* each wait's pair remembered (fr_wakers__join) */
	struct join *joins;
	size_t nr_joins, cap_joins;
	struct fr_hmap join_index;   /* (tid, start) -> join */
};

int fr_wakers__new(struct fr_wakers **out)
{
	return (*out = calloc(1, sizeof(**out))) ? 0 : -ENOMEM;
}

void fr_wakers__delete(struct fr_wakers *wk)
{
	if (!wk)
		return;
	for (size_t i = 0; i < wk->nr_pend; i++)
		free(wk->pend[i].frames);
	for (size_t i = 0; i < wk->nr_pairs; i++) {
		free(wk->pairs[i].w);
		free(wk->pairs[i].k);
	}
	for (size_t i = 0; i < wk->nr_names; i++)
		free(wk->names[i]);
	free(wk->pend);
	free(wk->pairs);
	free(wk->names);
	free(wk->joins);
	fr_hmap__exit(&wk->join_index);
	fr_hmap__exit(&wk->pend_index);
	fr_hmap__exit(&wk->pair_index);
	fr_hmap__exit(&wk->waiter_index);
	fr_folded__delete(wk->folded);
	free(wk);
}

int fr_wakers__wakeup(struct fr_wakers *wk, uint32_t tid, uint64_t time,
		      const struct fr_rsample *waker)
{
	uint64_t h = fr_hash__u64(tid);
	size_t n = waker->nr_frames < MAX_WAKER_FRAMES ? waker->nr_frames : MAX_WAKER_FRAMES;
	struct fr_hmap_it it;
	struct pend *p = NULL;
	uint32_t i;

	for (bool ok = fr_hmap__first(&wk->pend_index, h, &it, &i); ok && !p;
	     ok = fr_hmap__next(&wk->pend_index, &it, &i))
		if (wk->pend[i].tid == tid)
			p = &wk->pend[i];
	if (!p) {
		if (fr_grow(&wk->pend, &wk->cap_pend, wk->nr_pend + 1, sizeof(*wk->pend), 64) ||
		    fr_hmap__add(&wk->pend_index, h, (uint32_t)wk->nr_pend))
			return -ENOMEM;
		p = &wk->pend[wk->nr_pend++];
		*p = (struct pend){ .tid = tid };
	}
	if (fr_grow(&p->frames, &p->cap, n + 1, sizeof(*p->frames), 16))
		return -ENOMEM;
	for (size_t f = 0; f < n; f++)
		p->frames[f] = waker->frames[f].sym;
	p->n = n;
	p->time = time;
	p->comm = waker->comm;
	return 0;
}

static uint64_t syms_hash(uint64_t h, const char *comm, const struct fr_sym *const *s, size_t n)
{
	h = fr_hash__mix(h, (uintptr_t)comm);
	for (size_t i = 0; i < n; i++)
		h = fr_hash__mix(h, (uintptr_t)s[i]);
	return fr_hash__mix(h, n);
}

static bool same(const char *ca, const struct fr_sym *const *a, size_t na, const char *cb,
		 const struct fr_sym *const *b, size_t nb)
{
	return ca == cb && na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

static const struct fr_sym **copy(const struct fr_sym *const *s, size_t n)
{
	const struct fr_sym **c = malloc((n + 1) * sizeof(*c));

	if (c && n)
		memcpy(c, s, n * sizeof(*c));
	return c;
}

/* The pair of waiter (comm, w) and waker (kcomm, k), made on first use. */
static struct pair *pair(struct fr_wakers *wk, const char *wcomm, const struct fr_sym *const *w,
			 size_t wn, const char *kcomm, const struct fr_sym *const *k, size_t kn)
{
	uint64_t hw = syms_hash(0, wcomm, w, wn), h = syms_hash(hw, kcomm, k, kn);
	struct fr_hmap_it it;
	const struct fr_sym **wc, **kc;
	struct pair *p;
	uint32_t i;

	for (bool ok = fr_hmap__first(&wk->pair_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&wk->pair_index, &it, &i)) {
		p = &wk->pairs[i];
		if (same(p->wcomm, p->w, p->wn, wcomm, w, wn) && same(p->kcomm, p->k, p->kn, kcomm, k, kn))
			return p;
	}
	/* the copies first: an index entry only for a pair that is there */
	wc = copy(w, wn);
	kc = copy(k, kn);
	if (!wc || !kc ||
	    fr_grow(&wk->pairs, &wk->cap_pairs, wk->nr_pairs + 1, sizeof(*wk->pairs), 64) ||
	    fr_hmap__add(&wk->pair_index, h, (uint32_t)wk->nr_pairs)) {
		free(wc);
		free(kc);
		return NULL;
	}
	if (fr_hmap__add(&wk->waiter_index, hw, (uint32_t)wk->nr_pairs)) {
		fr_hmap__remove(&wk->pair_index, h, (uint32_t)wk->nr_pairs);
		free(wc);
		free(kc);
		return NULL;
	}
	p = &wk->pairs[wk->nr_pairs++];
	*p = (struct pair){ .wcomm = wcomm, .kcomm = kcomm, .w = wc, .wn = wn, .k = kc, .kn = kn };
	return p;
}

static uint64_t join_hash(uint32_t tid, uint64_t start)
{
	return fr_hash__mix(fr_hash__u64(tid), start);
}

/* The wait of waiter (its tid, its start as s->time) was joined to pair. */
static int keep_join(struct fr_wakers *wk, const struct fr_rsample *waiter, uint32_t pair)
{
	if (!wk->keep_joins)
		return 0;
	if (wk->nr_joins >= UINT32_MAX ||
	    fr_grow(&wk->joins, &wk->cap_joins, wk->nr_joins + 1, sizeof(*wk->joins), 256) ||
	    fr_hmap__add(&wk->join_index, join_hash(waiter->tid, waiter->time),
			 (uint32_t)wk->nr_joins))
		return -ENOMEM;
	wk->joins[wk->nr_joins++] = (struct join){ waiter->tid, pair, waiter->time };
	return 0;
}

int fr_wakers__wait(struct fr_wakers *wk, const struct fr_rsample *waiter, uint64_t wake,
		    bool preempted)
{
	const struct fr_sym *w[FR_MAX_FRAMES];
	size_t wn = waiter->nr_frames < FR_MAX_FRAMES ? waiter->nr_frames : FR_MAX_FRAMES;
	uint64_t h = fr_hash__u64(waiter->tid), ns = waiter->period;
	const struct pend *p = NULL;
	struct fr_hmap_it it;
	struct pair *pr;
	uint32_t i;

	for (size_t f = 0; f < wn; f++)
		w[f] = waiter->frames[f].sym;
	for (bool ok = wake && fr_hmap__first(&wk->pend_index, h, &it, &i); ok && !p;
	     ok = fr_hmap__next(&wk->pend_index, &it, &i))
		if (wk->pend[i].tid == waiter->tid && wk->pend[i].time == wake)
			p = &wk->pend[i];
	if (preempted) {   /* no one woke it: it was runnable all along */
		wk->tot.preempted_ns += ns;
		return keep_join(wk, waiter, UINT32_MAX);
	}
	if (!p) {   /* the wakeup was before the window, or not recorded: not guessed */
		wk->tot.unwoken_ns += ns;
		wk->tot.unwoken++;
	} else {
		wk->tot.woken_ns += ns;
		wk->tot.woken++;
	}
	if (!(pr = pair(wk, waiter->comm, w, wn, p ? p->comm : NULL, p ? p->frames : NULL,
			p ? p->n : 0)))
		return -ENOMEM;
	pr->ns += ns;
	pr->waits++;
	fr_folded__delete(wk->folded);
	wk->folded = NULL;
	return keep_join(wk, waiter, (uint32_t)(pr - wk->pairs));
}

void fr_wakers__keep_joins(struct fr_wakers *wk)
{
	wk->keep_joins = true;
}

int fr_wakers__join(const struct fr_wakers *wk, uint32_t tid, uint64_t start,
		    struct fr_waker_join *j)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&wk->join_index, join_hash(tid, start), &it, &i); ok;
	     ok = fr_hmap__next(&wk->join_index, &it, &i)) {
		const struct join *jn = &wk->joins[i];
		const struct pair *p;

		if (jn->tid != tid || jn->start != start)
			continue;
		if (jn->pair == UINT32_MAX) {
			*j = (struct fr_waker_join){ .preempted = true };
			return 0;
		}
		p = &wk->pairs[jn->pair];
		*j = (struct fr_waker_join){ p->wcomm, p->kcomm, p->w, p->k, p->wn, p->kn, false };
		return 0;
	}
	return -ENOENT;
}

void fr_wakers__totals(const struct fr_wakers *wk, struct fr_wakers_totals *t)
{
	*t = wk->tot;
}

/* The waker's name as a frame of its own (interned by comm). */
static const struct fr_sym *name_sym(struct fr_wakers *wk, const char *comm)
{
	struct name *nm;

	for (size_t i = 0; i < wk->nr_names; i++)
		if (wk->names[i]->comm == comm)
			return &wk->names[i]->sym;
	if (fr_grow(&wk->names, &wk->cap_names, wk->nr_names + 1, sizeof(*wk->names), 16) ||
	    !(nm = calloc(1, sizeof(*nm))))
		return NULL;
	nm->comm = comm;
	nm->sym = (struct fr_sym){ comm ? comm : "[unknown]", "[wakers]", "[wakers]", false, false,
				   false, 0 };
	wk->names[wk->nr_names++] = nm;
	return &nm->sym;
}

struct fr_folded *fr_wakers__folded(struct fr_wakers *wk)
{
	struct fr_frame *f = NULL;
	size_t cap = 0;
	int err = 0;

	if (wk->folded || fr_folded__new(true, &wk->folded))
		return wk->folded;
	/* leaf first: the waker's name, its stack root to leaf, "--", then the
	 * waiting stack leaf to root: printed root first, as offwaketime */
	for (size_t i = 0; i < wk->nr_pairs && !err; i++) {
		const struct pair *p = &wk->pairs[i];
		size_t n = 0;
		struct fr_rsample rs = { .comm = p->wcomm, .period = p->ns, .has_stack = true };

		if (!p->kcomm)
			continue;
		if (fr_grow(&f, &cap, p->wn + p->kn + 2, sizeof(*f), 64) ||
		    !(f[n++].sym = name_sym(wk, p->kcomm))) {
			err = -ENOMEM;
			break;
		}
		for (size_t k = p->kn; k-- > 0;)
			f[n++] = (struct fr_frame){ .sym = p->k[k] };
		f[n++] = (struct fr_frame){ .sym = &sep_sym };
		for (size_t k = 0; k < p->wn; k++)
			f[n++] = (struct fr_frame){ .sym = p->w[k] };
		rs.frames = f;
		rs.nr_frames = n;
		err = fr_folded__add(wk->folded, &rs);
	}
	free(f);
	if (err) {
		fr_folded__delete(wk->folded);
		wk->folded = NULL;
	}
	return wk->folded;
}

static int by_ns(const void *x, const void *y)
{
	const struct pair *a = *(const struct pair *const *)x, *b = *(const struct pair *const *)y;

	return a->ns != b->ns ? (a->ns > b->ns ? -1 : 1) : 0;
}

int fr_wakers__each_of(struct fr_wakers *wk, const char *comm, const struct fr_sym *const *frames,
		       size_t n, size_t top, fr_waker_cb cb, void *ctx)
{
	uint64_t h = syms_hash(0, comm, frames, n);
	const struct pair **v = NULL;
	size_t nv = 0, cap = 0;
	struct fr_hmap_it it;
	uint32_t i;
	int err = 0;

	for (bool ok = fr_hmap__first(&wk->waiter_index, h, &it, &i); ok;
	     ok = fr_hmap__next(&wk->waiter_index, &it, &i)) {
		if (!same(wk->pairs[i].wcomm, wk->pairs[i].w, wk->pairs[i].wn, comm, frames, n))
			continue;
		if (fr_grow(&v, &cap, nv + 1, sizeof(*v), 8)) {
			free(v);
			return -ENOMEM;
		}
		v[nv++] = &wk->pairs[i];
	}
	if (nv)
		qsort(v, nv, sizeof(*v), by_ns);
	for (size_t k = 0; k < nv && k < top && !err; k++)
		err = cb(ctx, v[k]->kcomm, v[k]->k, v[k]->kn, v[k]->ns, v[k]->waits);
	free(v);
	return err;
}
