/* src/report/pass/readahead.c: the records of a file, in fr_reader__for_each's
 * order, read (chunks decompressed, streams merged) by a second thread while
 * the caller's thread handles the records already read: copied into a few
 * fixed batches handed over in order.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/pass/pass.h"

#define NR_BATCHES 8
#define BATCH_BYTES (128u << 10)   /* a record is at most 64 KiB (u16 size) */

struct ent {                     /* followed by the record, 8-byte aligned */
	const struct fr_file_event *event;
	uint64_t time;
	uint32_t cpu;
	uint32_t kind;
	uint32_t size;               /* of the record copied (0: no record) */
	uint32_t pad;
};

struct batch {
	uint8_t *buf;
	size_t used;
};

struct ahead {
	struct fr_reader *rd;
	struct batch b[NR_BATCHES];
	size_t nfull;                /* batches read, not yet handled */
	size_t wr, rd_at;            /* the batch being filled, the next to handle */
	bool done, stop;             /* reader finished; caller stopped early */
	int ret;                     /* fr_reader__for_each's answer */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The batch being filled is complete: hand it over, wait for a free one.
 * Returns non-zero when the caller stopped. */
static int publish(struct ahead *a)
{
	int stop;

	pthread_mutex_lock(&a->mu);
	a->nfull++;
	pthread_cond_broadcast(&a->cv);
	while (a->nfull == NR_BATCHES && !a->stop)
		pthread_cond_wait(&a->cv, &a->mu);
	stop = a->stop;
	pthread_mutex_unlock(&a->mu);
	a->wr = (a->wr + 1) % NR_BATCHES;
	a->b[a->wr].used = 0;
	return stop;
}

static int copy_cb(void *ctx, const struct fr_rec *r)
{
	struct ahead *a = ctx;
	uint32_t size = r->h ? r->h->size : 0;
	size_t need = sizeof(struct ent) + align8(size);
	struct batch *b = &a->b[a->wr];
	struct ent *e;

	if (b->used + need > BATCH_BYTES) {
		if (publish(a))
			return 1;
		b = &a->b[a->wr];
	}
	e = (struct ent *)(b->buf + b->used);
	*e = (struct ent){ r->event, r->time, r->cpu, (uint32_t)r->kind, size, 0 };
	if (size)
		memcpy(e + 1, r->h, size);
	b->used += need;
	return 0;
}

static void *reader_main(void *arg)
{
	struct ahead *a = arg;
	int ret = fr_reader__for_each(a->rd, copy_cb, a);

	pthread_mutex_lock(&a->mu);
	if (!a->stop)
		a->nfull++;   /* the last batch, maybe empty */
	a->done = true;
	a->ret = ret;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Hand the records of one batch to cb; its first non-zero answer. */
static int handle(const struct batch *b, fr_rec_cb cb, void *ctx)
{
	for (size_t at = 0; at < b->used;) {
		const struct ent *e = (const struct ent *)(b->buf + at);
		struct fr_sample smp;
		struct fr_rec r = { e->cpu, (enum fr_stream_kind)e->kind, e->time,
				    e->size ? (const struct perf_event_header *)(e + 1) : NULL,
				    e->event, NULL };
		int ret;

		/* the copy's fields (the reader thread's point into its chunk) */
		if (r.h && r.h->type == PERF_RECORD_SAMPLE && r.event &&
		    !fr_record__parse_sample(r.h, r.event->attr.sample_type,
					     r.event->attr.sample_regs_user, &smp))
			r.sample = &smp;
		ret = cb(ctx, &r);

		if (ret)
			return ret;
		at += sizeof(*e) + align8(e->size);
	}
	return 0;
}

int fr_readahead__for_each(struct fr_reader *rd, fr_rec_cb cb, void *ctx)
{
	struct ahead a = { .rd = rd };
	pthread_t th;
	int ret = 0;
	size_t i;

	for (i = 0; i < NR_BATCHES; i++)
		if (!(a.b[i].buf = malloc(BATCH_BYTES)))
			break;
	if (i < NR_BATCHES || pthread_mutex_init(&a.mu, NULL)) {
		while (i--)
			free(a.b[i].buf);
		return fr_reader__for_each(rd, cb, ctx);   /* no memory: read here */
	}
	pthread_cond_init(&a.cv, NULL);
	if (pthread_create(&th, NULL, reader_main, &a)) {
		ret = fr_reader__for_each(rd, cb, ctx);
		goto out;
	}
	for (;;) {
		bool last;

		pthread_mutex_lock(&a.mu);
		while (!a.nfull && !a.done)
			pthread_cond_wait(&a.cv, &a.mu);
		if (!a.nfull) {   /* done, everything handled */
			pthread_mutex_unlock(&a.mu);
			break;
		}
		last = a.done && a.nfull == 1;
		pthread_mutex_unlock(&a.mu);
		ret = handle(&a.b[a.rd_at], cb, ctx);
		pthread_mutex_lock(&a.mu);
		a.nfull--;
		if (ret)
			a.stop = true;
		pthread_cond_broadcast(&a.cv);
		pthread_mutex_unlock(&a.mu);
		a.rd_at = (a.rd_at + 1) % NR_BATCHES;
		if (ret || last)
			break;
	}
	pthread_join(th, NULL);
	if (!ret)
		ret = a.ret;
out:
	pthread_cond_destroy(&a.cv);
	pthread_mutex_destroy(&a.mu);
	for (i = 0; i < NR_BATCHES; i++)
		free(a.b[i].buf);
	return ret;
}
