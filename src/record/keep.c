/* src/record/keep.c: record --keep's in-memory window (keep.h): per-CPU
 * FIFO rings of compressed chunks under one lock, evicted by age and by a
 * shared byte budget; views for snapshots that defer frees while held; the
 * last big chunks evicted kept to hold the next ones added.
 */
#include "config.h"
#include "src/record/keep.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct kchunk {
	struct kchunk *next;
	size_t cap;                 /* data[]'s size: len rounded up to SPARE_ROUND */
	struct fr_keep_chunk c;
	uint8_t data[];
};

struct kcpu {
	struct kchunk *head, *tail;
	struct fr_keep_cpu st;
};

/* A chunk of SPARE_MIN or more (the recorder takes such buffers from mmap:
 * cmd_record.c) has its length rounded up to SPARE_ROUND, and the last
 * NR_SPARE such evicted (spares) hold the next ones added that need no more
 * and would waste at most a quarter: a fresh buffer costs a page fault per
 * 4 KiB written. Smaller ones come from the heap, exact. */
#define SPARE_MIN (256u << 10)
#define SPARE_ROUND (64u << 10)
#define NR_SPARE 4

struct fr_keep {
	pthread_mutex_t lock;
	size_t ncpu;
	uint64_t duration_ns, max_bytes;
	uint64_t bytes;             /* held, all CPUs */
	uint64_t newest;            /* newest record time of any chunk added */
	bool evicted;               /* some chunk was dropped */
	unsigned views;             /* snapshot views held */
	struct kchunk *deferred;    /* evicted while a view is held */
	struct kchunk *spare[NR_SPARE];   /* evicted, kept (outside max_bytes), or NULL */
	unsigned next_spare;        /* the slot the next one evicted takes */
	struct kcpu *cpus;
};

struct fr_keep_view {
	size_t ncpu;
	size_t *start;              /* CPU ci's chunks: ptrs[start[ci] .. start[ci + 1]) */
	const struct fr_keep_chunk **ptrs;
};

int fr_keep__new(size_t ncpu, uint64_t duration_ns, uint64_t max_bytes, struct fr_keep **out)
{
	struct fr_keep *k;

	if (!ncpu || !max_bytes)
		return -EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->cpus = calloc(ncpu, sizeof(*k->cpus));
	if (!k->cpus) {
		free(k);
		return -ENOMEM;
	}
	pthread_mutex_init(&k->lock, NULL);
	k->ncpu = ncpu;
	k->duration_ns = duration_ns;
	k->max_bytes = max_bytes;
	*out = k;
	return 0;
}

static void free_list(struct kchunk *c)
{
	while (c) {
		struct kchunk *n = c->next;

		free(c);
		c = n;
	}
}

void fr_keep__delete(struct fr_keep *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->ncpu; i++)
		free_list(k->cpus[i].head);
	free_list(k->deferred);
	for (unsigned i = 0; i < NR_SPARE; i++)
		free(k->spare[i]);
	pthread_mutex_destroy(&k->lock);
	free(k->cpus);
	free(k);
}

/* Drop CPU ci's oldest chunk, counting what it held. Lock held. */
static void evict(struct fr_keep *k, size_t ci)
{
	struct kcpu *kc = &k->cpus[ci];
	struct kchunk *c = kc->head;

	kc->head = c->next;
	if (!kc->head)
		kc->tail = NULL;
	kc->st.chunks--;
	kc->st.bytes -= c->c.len;
	kc->st.records -= c->c.nr_records;
	kc->st.lost -= c->c.lost;
	kc->st.evicted_chunks++;
	kc->st.evicted_records += c->c.nr_records;
	kc->st.evicted_lost += c->c.lost;
	kc->st.oldest_ns = kc->head ? kc->head->c.first_ns : 0;
	k->bytes -= c->c.len;
	k->evicted = true;
	if (k->views) {
		c->next = k->deferred;
		k->deferred = c;
	} else if (c->cap >= SPARE_MIN) {
		struct kchunk **slot = &k->spare[k->next_spare++ % NR_SPARE];

		free(*slot);
		*slot = c;
	} else {
		free(c);
	}
}

/* Age first (every CPU against the newest time seen), then size (the
 * chunk whose newest record is oldest, across CPUs). Never the one added. */
static void evict_all(struct fr_keep *k, const struct kchunk *added)
{
	if (k->duration_ns && k->newest > k->duration_ns) {
		uint64_t cutoff = k->newest - k->duration_ns;

		for (size_t ci = 0; ci < k->ncpu; ci++)
			while (k->cpus[ci].head && k->cpus[ci].head != added &&
			       k->cpus[ci].head->c.last_ns < cutoff)
				evict(k, ci);
	}
	while (k->bytes > k->max_bytes) {
		size_t best = k->ncpu;

		for (size_t ci = 0; ci < k->ncpu; ci++) {
			const struct kchunk *h = k->cpus[ci].head;

			if (h && h != added &&
			    (best == k->ncpu || h->c.last_ns < k->cpus[best].head->c.last_ns))
				best = ci;
		}
		if (best == k->ncpu)
			break;
		k->cpus[best].st.evicted_by_size++;
		evict(k, best);
	}
}

/* The spare that holds len with the least waste, if one may. Lock held. */
static struct kchunk *take_spare(struct fr_keep *k, size_t len)
{
	struct kchunk *n = NULL;
	unsigned best = 0;

	for (unsigned i = 0; i < NR_SPARE; i++) {
		struct kchunk *s = k->spare[i];

		if (s && s->cap >= len && s->cap - len <= len / 4 && (!n || s->cap < n->cap)) {
			n = s;
			best = i;
		}
	}
	if (n)
		k->spare[best] = NULL;
	return n;
}

int fr_keep__add(struct fr_keep *k, size_t ci, const struct fr_keep_chunk *c)
{
	struct kchunk *n;
	struct kcpu *kc;

	if (ci >= k->ncpu || !c->len || c->len > SIZE_MAX - sizeof(*n) - SPARE_ROUND)
		return -EINVAL;
	pthread_mutex_lock(&k->lock);
	n = take_spare(k, c->len);
	pthread_mutex_unlock(&k->lock);
	if (!n) {
		size_t cap = c->len < SPARE_MIN ? c->len :
			     (c->len + SPARE_ROUND - 1) / SPARE_ROUND * SPARE_ROUND;

		n = malloc(sizeof(*n) + cap);
		if (!n)
			return -ENOMEM;
		n->cap = cap;
	}
	n->next = NULL;
	n->c = *c;
	memcpy(n->data, c->data, c->len);
	n->c.data = n->data;
	pthread_mutex_lock(&k->lock);
	kc = &k->cpus[ci];
	if (kc->tail)
		kc->tail->next = n;
	else
		kc->head = n;
	kc->tail = n;
	if (!kc->st.oldest_ns)
		kc->st.oldest_ns = c->first_ns;
	kc->st.chunks++;
	kc->st.bytes += c->len;
	kc->st.records += c->nr_records;
	kc->st.lost += c->lost;
	k->bytes += c->len;
	if (c->last_ns > k->newest)
		k->newest = c->last_ns;
	evict_all(k, n);
	pthread_mutex_unlock(&k->lock);
	return 0;
}

void fr_keep__cpu(struct fr_keep *k, size_t ci, struct fr_keep_cpu *out)
{
	pthread_mutex_lock(&k->lock);
	*out = ci < k->ncpu ? k->cpus[ci].st : (struct fr_keep_cpu){ 0 };
	pthread_mutex_unlock(&k->lock);
}

uint64_t fr_keep__floor(struct fr_keep *k)
{
	uint64_t floor = UINT64_MAX;

	pthread_mutex_lock(&k->lock);
	if (!k->evicted) {
		pthread_mutex_unlock(&k->lock);
		return 0;
	}
	for (size_t ci = 0; ci < k->ncpu; ci++)
		if (k->cpus[ci].head && k->cpus[ci].head->c.first_ns < floor)
			floor = k->cpus[ci].head->c.first_ns;
	if (floor == UINT64_MAX)
		floor = k->newest;   /* everything dropped: nothing older is shown */
	pthread_mutex_unlock(&k->lock);
	return floor;
}

uint64_t fr_keep__bytes(struct fr_keep *k)
{
	uint64_t b;

	pthread_mutex_lock(&k->lock);
	b = k->bytes;
	pthread_mutex_unlock(&k->lock);
	return b;
}

int fr_keep__view(struct fr_keep *k, struct fr_keep_view **out)
{
	struct fr_keep_view *v = calloc(1, sizeof(*v));
	size_t n = 0, i = 0;

	if (!v)
		return -ENOMEM;
	v->ncpu = k->ncpu;
	v->start = calloc(k->ncpu + 1, sizeof(*v->start));
	pthread_mutex_lock(&k->lock);
	for (size_t ci = 0; ci < k->ncpu; ci++)
		n += k->cpus[ci].st.chunks;
	v->ptrs = calloc(n ? n : 1, sizeof(*v->ptrs));
	if (!v->start || !v->ptrs) {
		pthread_mutex_unlock(&k->lock);
		free(v->start);
		free(v->ptrs);
		free(v);
		return -ENOMEM;
	}
	for (size_t ci = 0; ci < k->ncpu; ci++) {
		v->start[ci] = i;
		for (const struct kchunk *c = k->cpus[ci].head; c; c = c->next)
			v->ptrs[i++] = &c->c;
	}
	v->start[k->ncpu] = i;
	k->views++;
	pthread_mutex_unlock(&k->lock);
	*out = v;
	return 0;
}

size_t fr_keep_view__nr(const struct fr_keep_view *v, size_t ci)
{
	return ci < v->ncpu ? v->start[ci + 1] - v->start[ci] : 0;
}

const struct fr_keep_chunk *fr_keep_view__chunk(const struct fr_keep_view *v, size_t ci, size_t i)
{
	return v->ptrs[v->start[ci] + i];
}

void fr_keep_view__release(struct fr_keep *k, struct fr_keep_view *v)
{
	struct kchunk *dead = NULL;

	if (!v)
		return;
	pthread_mutex_lock(&k->lock);
	if (!--k->views) {
		dead = k->deferred;
		k->deferred = NULL;
	}
	pthread_mutex_unlock(&k->lock);
	free_list(dead);
	free(v->start);
	free(v->ptrs);
	free(v);
}
