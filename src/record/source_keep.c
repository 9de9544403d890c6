/* src/record/source_keep.c: the --keep source: the forward readers drain
 * the rings into an in-memory window of compressed chunks (keep.c); a
 * snapshot writes the window's chunks as they are, no recompression.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/record/session_internal.h"
#include "src/record/record.h"
#include "src/util.h"

/* A reader's part of the window: the chunk in progress. */
struct keep_cpu {
	struct keep *k;
	size_t ci;
	struct fr_keep_chunk pend;  /* what the chunk in progress holds */
};

struct keep {
	struct fr_source src;
	struct fr_keep *keep;
	struct keep_cpu *cpus;      /* per CPU */
	struct fr_keep_view *view;  /* the chunks a snapshot in progress writes */
	struct fr_forward *readers;
	uint64_t *drops;            /* per CPU: records the window refused (no memory) */
};

static struct keep *kp_of(struct fr_source *src)
{
	return (struct keep *)src;
}

/* The readers' sink: whole chunks kept in memory with what they hold;
 * refused (no memory) a chunk counts as dropped, as a refused write does. */
static int kp_chunk(void *ctx, const void *chunk, size_t len)
{
	struct keep_cpu *kc = ctx;
	struct fr_keep_chunk ch = kc->pend;
	int err;

	memset(&kc->pend, 0, sizeof(kc->pend));
	ch.data = chunk;
	ch.len = len;
	err = fr_keep__add(kc->k->keep, kc->ci, &ch);
	return err == -ENOMEM ? -ENOBUFS : err;
}

static int kp_writer(void *ctx, size_t ci, struct fr_writer **w)
{
	struct keep *k = ctx;

	return fr_writer__sink(kp_chunk, &k->cpus[ci], k->src.s->o.zstd_level, w);
}

/* The chunk in progress gets this record (after it was appended: a full
 * chunk went to the window before it, with what it held). */
static void kp_noted(void *ctx, size_t ci, uint64_t t, uint64_t lost)
{
	struct fr_keep_chunk *p = &((struct keep *)ctx)->cpus[ci].pend;

	if (t) {
		if (!p->first_ns)
			p->first_ns = t;
		if (t > p->last_ns)   /* a lapped read's LOST after its records is older */
			p->last_ns = t;
	}
	p->nr_records++;
	p->lost += lost;
}

static int kp_start(struct fr_source *src, char *path, size_t len)
{
	struct keep *k = kp_of(src);
	struct fr_session *s = src->s;
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	struct fr_reader_sink sink = { .writer = kp_writer, .noted = kp_noted, .ctx = k };
	int err;

	(void)path;
	(void)len;
	fr_session_ksyms(s);   /* before the readers note addresses in it */
	fr_kallsyms__sticky(s->ksyms);   /* a chunk goes into every snapshot it is kept for */
	k->drops = calloc(ncpu, sizeof(*k->drops));
	k->cpus = calloc(ncpu, sizeof(*k->cpus));
	if (!k->drops || !k->cpus)
		return -ENOMEM;
	for (size_t ci = 0; ci < ncpu; ci++)
		k->cpus[ci] = (struct keep_cpu){ .k = k, .ci = ci };
	err = fr_keep__new(ncpu, s->o.keep_ns, s->o.keep_bytes, &k->keep);
	if (err)
		return err;
	return fr_session_start_readers(s, &sink, &k->readers);
}

/* A CPU new since the start gets its reader (a snapshot's EVENT chunks
 * hold every id: nothing to tell the files). */
static int kp_cpu_opened(struct fr_source *src, size_t ci, bool first_time)
{
	struct keep *k = kp_of(src);

	return first_time && k->readers ? fr_forward__add_cpu(k->readers, ci) : 0;
}

static void kp_meta(struct fr_source *src, struct fr_composer *c)
{
	fr_composer__meta(c, "keep_ns", "%llu", (unsigned long long)src->s->o.keep_ns);
	fr_composer__meta(c, "keep_bytes", "%llu", (unsigned long long)src->s->o.keep_bytes);
}

/* CPU ci's held chunks as they are (whole chunks older than the cutoff left
 * out), and its stats. */
static int cpu_samples(struct keep *k, struct fr_composer *c, struct fr_streams *out,
		       size_t ci, struct fr_snapshot_stats *st)
{
	size_t n = fr_keep_view__nr(k->view, ci);
	struct fr_cpu_stat *cs = &out->cs[ci];
	uint64_t cutoff = fr_composer__cutoff(c);
	struct fr_keep_cpu kc;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		const struct fr_keep_chunk *ch = fr_keep_view__chunk(k->view, ci, i);

		if (cutoff && ch->last_ns < cutoff) {
			st->dropped_by_window += ch->nr_records;   /* whole chunks only */
			continue;
		}
		err = fr_composer__raw_chunk(c, ch->data, ch->len);
		if (ch->first_ns && !cs->first_time)
			cs->first_time = ch->first_ns;
		if (ch->last_ns)
			cs->last_time = ch->last_ns;
		cs->nr_samples += ch->nr_records;
		cs->lost_records += ch->lost;
	}
	fr_keep__cpu(k->keep, ci, &kc);
	st->keep_held += kc.bytes;
	st->keep_evicted += kc.evicted_records;
	st->keep_size_evicted += kc.evicted_by_size;
	if (kc.evicted_chunks)
		cs->flags |= FR_CPU_FULL;   /* older records were dropped from the window */
	fr_evlist__lost_samples(k->src.s->el, ci, &cs->lost_samples);
	out->drops[ci] = k->drops[ci];
	return err;
}

static int kp_stream_into(struct fr_source *src, struct fr_composer *c, struct fr_streams *out,
			  struct fr_snapshot_stats *st)
{
	struct keep *k = kp_of(src);
	int err = 0;

	st->keep_ns = src->s->o.keep_ns;
	for (size_t ci = 0; ci < fr_evlist__nr_cpus(src->s->el) && !err; ci++)
		err = cpu_samples(k, c, out, ci, st);
	out->floor = fr_keep__floor(k->keep);
	return err;
}

/* The readers synced (every ring drained into the window), the window's
 * chunks held while the file is written: adds go on meanwhile. */
static int kp_snapshot(struct fr_source *src, const struct fr_trigger *tr, char *path,
		       size_t len, struct fr_snapshot_stats *st)
{
	struct keep *k = kp_of(src);
	uint64_t t0 = fr_session_now(CLOCK_MONOTONIC);
	int err = k->readers ? fr_forward__sync(k->readers, k->drops) : 0;

	if (!err)
		err = fr_keep__view(k->keep, &k->view);
	if (err)
		return err;
	st->copy_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
	err = fr_composer__snapshot(src->s, tr, t0, path, len, st);
	fr_keep_view__release(k->keep, k->view);
	k->view = NULL;
	return err;
}

/* Exited processes stay while the window shows them. */
static uint64_t kp_oldest_time(struct fr_source *src)
{
	struct keep *k = kp_of(src);

	return k->keep ? fr_keep__floor(k->keep) : 0;
}

static void kp_destroy(struct fr_source *src)
{
	struct keep *k = kp_of(src);
	uint64_t chunks;

	if (k->readers)
		fr_forward__stop(k->readers, NULL, NULL, &chunks);
	if (k->view)
		fr_keep_view__release(k->keep, k->view);
	fr_keep__delete(k->keep);
	free(k->drops);
	free(k->cpus);
}

static int kp_read(struct fr_source *src)
{
	struct keep *k = kp_of(src);

	return k->readers ? fr_forward__read(k->readers) : 0;
}

/* --keep: what the window held, and how much of DURATION it covered. */
static int kp_say(const struct fr_trigger *tr, const char *path, int err,
		  const struct fr_snapshot_stats *st)
{
	double kept = (double)(st->recorded_to_ns - st->kept_from_ns) / 1e9;
	uint64_t keep_ns = st->keep_ns;

	if (err) {
		fr_err("snapshot", "%s", strerror(-err));
		return err;
	}
	fr_info("snapshot (%s%s%s) written: %s (%llu samples, %llu sideband, %llu lost, %llu bytes, "
		"drain %.2f ms, total %.2f ms, from the --keep window: %.1f MiB held, %llu records "
		"dropped by age or size so far)", tr->source, tr->coalesced ? ", coalesced " : "",
		tr->coalesced ? "more" : "", path, (unsigned long long)st->samples,
		(unsigned long long)st->sideband, (unsigned long long)st->lost,
		(unsigned long long)st->bytes, st->copy_ms, st->total_ms,
		(double)st->keep_held / 1048576.0, (unsigned long long)st->keep_evicted);
	/* (a window short of DURATION without SIZE evictions is a CPU that had
	 * nothing to record at its start, not a loss) */
	if (st->wrapped_cpus && st->keep_size_evicted && st->kept_from_ns > st->recorded_from_ns &&
	    st->recorded_to_ns > st->kept_from_ns && kept < (double)keep_ns / 1e9 * 0.99)
		fr_info("keep: the window holds %.3f s of the %.3f s asked: its SIZE filled first "
			"(a larger --keep DURATION,SIZE keeps more)", kept, (double)keep_ns / 1e9);
	if (st->warning[0])
		fr_info("window: %s", st->warning);
	return 0;
}

static void kp_say_start(struct fr_source *src, const char *path, int err)
{
	const struct fr_session_opts *o = &src->s->o;

	(void)path;
	if (err) {
		fr_err("--keep", "%s", strerror(-err));
		return;
	}
	fr_info("recording %d event(s), %s, %zu CPUs, %zu KiB overwrite ring per CPU "
		"read as it fills, keeping the last %.3f s (at most %llu MiB) in memory; snapshot: "
		"flightrec snapshot%s%s or kill -USR2 %d", o->nr_events, o->target_desc,
		fr_evlist__nr_opened(src->s->el), o->ring_kib, (double)o->keep_ns / 1e9,
		(unsigned long long)(o->keep_bytes >> 20), strcmp(o->name, "default") ? " --name " : "",
		strcmp(o->name, "default") ? o->name : "", (int)getpid());
}

static const struct fr_source_ops keep_ops = {
	.name = "keep",
	.default_pages = FR_RECORD_FORWARD_PAGES,
	.drained = true,
	.ksyms_first = true,
	.size = sizeof(struct keep),
	.start = kp_start,
	.meta = kp_meta,
	.snapshot = kp_snapshot,
	.stream_into = kp_stream_into,
	.oldest_time = kp_oldest_time,
	.read = kp_read,
	.cpu_opened = kp_cpu_opened,
	.say = kp_say,
	.say_start = kp_say_start,
	.stop = fr_session_final_snapshot,
	.say_end = fr_session_say_final,
	.destroy = kp_destroy,
};

const struct fr_source_ops *fr_source__keep(void)
{
	return &keep_ops;
}
