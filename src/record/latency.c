/* src/record/latency.c: --trigger-latency's pair matching: the records of
 * the trigger rings held and sorted by time, then each thread's BEGIN
 * matched with its next END; the pairs longer than the threshold returned.
 * Each ring's records come in time order: the runs are merged, not sorted.
 */
#include "config.h"
#include "src/record/latency.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hmap.h"

#define MAX_THREADS 65536u     /* threads with an open pair; past it the table starts over */
#define MAX_HELD (1u << 22)    /* records waiting for their horizon */

struct rec {
	uint64_t time;
	uint32_t pid, tid, cpu;
	bool begin;
};

struct thr {
	uint32_t tid;
	uint64_t begin;            /* the open BEGIN's time, 0: none */
	uint64_t last_end;         /* the last END's: an older BEGIN is stale */
};

struct fr_latency {
	uint64_t thresh;
	struct rec *held, *tmp;    /* tmp: the merge's other half */
	size_t nr_held, held_cap, tmp_cap;
	size_t *runs;              /* where each run of held (sorted by time) starts */
	size_t nr_runs, runs_cap;
	struct thr *thr;
	size_t nr_thr, thr_cap;
	struct fr_hmap index;      /* tid -> thr */
	uint64_t pairs, dropped;
};

int fr_latency__new(uint64_t thresh_ns, struct fr_latency **out)
{
	struct fr_latency *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->thresh = thresh_ns;
	*out = l;
	return 0;
}

void fr_latency__delete(struct fr_latency *l)
{
	if (!l)
		return;
	fr_hmap__exit(&l->index);
	free(l->held);
	free(l->tmp);
	free(l->runs);
	free(l->thr);
	free(l);
}

void fr_latency__lost(struct fr_latency *l)
{
	for (size_t i = 0; i < l->nr_thr; i++)
		if (l->thr[i].begin) {
			l->thr[i].begin = 0;
			l->dropped++;
		}
}

static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->begin == y->begin ? 0 : x->begin ? -1 : 1;   /* a BEGIN before an END */
}

int fr_latency__add(struct fr_latency *l, bool begin, uint32_t pid, uint32_t tid, uint32_t cpu,
		    uint64_t time)
{
	struct rec r = { time, pid, tid, cpu, begin };
	bool run = !l->nr_held || by_time(&l->held[l->nr_held - 1], &r) > 0;   /* a ring's next */

	if (l->nr_held >= MAX_HELD ||
	    fr_grow(&l->held, &l->held_cap, l->nr_held + 1, sizeof(*l->held), 1024) ||
	    (run && fr_grow(&l->runs, &l->runs_cap, l->nr_runs + 1, sizeof(*l->runs), 16))) {
		fr_latency__lost(l);
		return -ENOMEM;
	}
	if (run)
		l->runs[l->nr_runs++] = l->nr_held;
	l->held[l->nr_held++] = r;
	return 0;
}

/* tid's state, made on first use; NULL when none can be (the table is
 * full: it starts over, its open pairs dropped). */
static struct thr *thread(struct fr_latency *l, uint32_t tid)
{
	uint64_t h = fr_hash__u64(tid);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&l->index, h, &it, &i); ok; ok = fr_hmap__next(&l->index, &it, &i))
		if (l->thr[i].tid == tid)
			return &l->thr[i];
	if (l->nr_thr >= MAX_THREADS) {
		fr_latency__lost(l);
		l->nr_thr = 0;
		fr_hmap__clear(&l->index);
	}
	if (fr_grow(&l->thr, &l->thr_cap, l->nr_thr + 1, sizeof(*l->thr), 64) ||
	    fr_hmap__add(&l->index, h, (uint32_t)l->nr_thr))
		return NULL;
	l->thr[l->nr_thr] = (struct thr){ .tid = tid };
	return &l->thr[l->nr_thr++];
}

/* held in time order: its runs (each ring's records come in time order)
 * merged pairwise, each pass halving them; a qsort where memory is short. */
static void sort_held(struct fr_latency *l)
{
	while (l->nr_runs > 1) {
		size_t k = 0;

		if (fr_grow(&l->tmp, &l->tmp_cap, l->nr_held, sizeof(*l->tmp), 1024)) {
			qsort(l->held, l->nr_held, sizeof(*l->held), by_time);
			break;
		}
		for (size_t i = 0; i < l->nr_runs; i += 2) {
			size_t a = l->runs[i], am = i + 1 < l->nr_runs ? l->runs[i + 1] : l->nr_held;
			size_t b = am, bm = i + 2 < l->nr_runs ? l->runs[i + 2] : l->nr_held, o = a;

			while (a < am || b < bm)
				l->tmp[o++] = b >= bm || (a < am && by_time(&l->held[a], &l->held[b]) <= 0)
					      ? l->held[a++] : l->held[b++];
			l->runs[k++] = l->runs[i];
		}
		memcpy(l->held, l->tmp, l->nr_held * sizeof(*l->held));
		l->nr_runs = k;
	}
	l->nr_runs = l->nr_held ? 1 : 0;
	if (l->nr_runs)
		l->runs[0] = 0;
}

int fr_latency__run(struct fr_latency *l, uint64_t horizon, struct fr_latency_hit *hit,
		    unsigned *more)
{
	size_t n = 0;
	int found = 0;

	*more = 0;
	sort_held(l);
	for (; n < l->nr_held && l->held[n].time < horizon; n++) {
		const struct rec *r = &l->held[n];
		struct thr *t = thread(l, r->tid);

		if (!t)
			continue;
		if (r->begin) {
			if (r->time >= t->last_end)   /* else its END was read before it */
				t->begin = r->time;
			else
				l->dropped++;
			continue;
		}
		if (r->time > t->last_end)
			t->last_end = r->time;
		if (!t->begin || t->begin > r->time)
			continue;   /* no BEGIN seen: begun before the recording, or lost */
		l->pairs++;
		if (r->time - t->begin > l->thresh) {
			if (!found++)
				*hit = (struct fr_latency_hit){ r->pid, r->tid, r->cpu, t->begin, r->time };
			else
				(*more)++;
		}
		t->begin = 0;
	}
	if (n && n < l->nr_held)   /* (held is NULL before the first record) */
		memmove(l->held, l->held + n, (l->nr_held - n) * sizeof(*l->held));
	l->nr_held -= n;
	l->nr_runs = l->nr_held ? 1 : 0;   /* what is left: one sorted run */
	return found ? 1 : 0;
}

void fr_latency__stats(const struct fr_latency *l, uint64_t *pairs, uint64_t *dropped)
{
	*pairs = l->pairs;
	*dropped = l->dropped;
}
