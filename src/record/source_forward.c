/* src/record/source_forward.c: the forward source: one reader thread per CPU
 * (readers.c) streams the samples into the file being written while the
 * loop drains the sideband into it; a snapshot (a signal, a client, the
 * loop's --trigger or --trigger-latency) or --switch-output's limit
 * completes it, with that trigger, and goes on into the next one.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/record/session_internal.h"
#include "src/record/record.h"
#include "src/util.h"

#define SIZE_CHECK_MS 250   /* --switch-output SIZE: the file's size is looked at this often */

struct forward {
	struct fr_source src;
	struct fr_composer *cur;    /* the file being written */
	struct fr_forward *readers; /* NULL: stopped (after a failure, or at the end) */
	uint64_t *lost_base;        /* per CPU PERF_FORMAT_LOST count when the file began */
	unsigned nr;                /* files begun */
	bool gone;                  /* the file was removed (its directory with it) */
	uint64_t done_bytes;        /* bytes of the files completed */
	struct fr_snapshot_stats total; /* samples, sideband, lost, bytes of every file */
	size_t *ids_told;           /* per event: its ids the current file has (EVENT, event_ids) */
};

static struct forward *fw_of(struct fr_source *src)
{
	return (struct forward *)src;
}

static void fw_meta(struct fr_source *src, struct fr_composer *c)
{
	/* 1, 2, ...: this recorder's files in order */
	fr_composer__meta(c, "forward_file", "%u", ++fw_of(src)->nr);
}

/* The readers append to the current file (a switch stops them and starts
 * new ones on the next file). */
/* The readers' sink: appenders of the file being written. */
static int fw_writer(void *ctx, size_t ci, struct fr_writer **w)
{
	struct forward *f = ctx;

	(void)ci;
	return fr_composer__appender(f->cur, w);
}

/* The current file's EVENT chunks were written now: they hold every id. */
static void ids_written(struct forward *f)
{
	for (size_t e = 0; e < fr_evlist__nr_events(f->src.s->el); e++)
		fr_evlist__ids(f->src.s->el, e, &f->ids_told[e]);
}

/* Events opened since the current file's EVENT chunks (a CPU back or new)
 * have ids it lacks: an `event_ids` META line per event, "INDEX:ID,ID..."
 * (doc/format.md), so that their samples are attributed. */
static int tell_ids(struct forward *f)
{
	struct fr_evlist *el = f->src.s->el;
	int err = 0;

	for (size_t e = 0; e < fr_evlist__nr_events(el) && !err; e++) {
		size_t nr, k = f->ids_told[e];
		const uint64_t *ids = fr_evlist__ids(el, e, &nr);

		while (k < nr && !err) {   /* lines under the composer's 1 KiB */
			char buf[640];
			int w = snprintf(buf, sizeof(buf), "%zu:", e);

			for (size_t j = 0; k < nr && j < 24; j++, k++)
				w += snprintf(buf + w, sizeof(buf) - (size_t)w, "%s%llu", j ? "," : "",
					      (unsigned long long)ids[k]);
			err = fr_composer__meta_now(f->cur, "event_ids", buf);
		}
		if (!err)
			f->ids_told[e] = nr;
	}
	return err;
}

static int fw_cpu_opened(struct fr_source *src, size_t ci, bool first_time)
{
	struct forward *f = fw_of(src);
	int err = f->cur ? tell_ids(f) : 0;

	/* a CPU back has its reader (its ring stayed): a new one gets one */
	if (!err && first_time && f->readers)
		err = fr_forward__add_cpu(f->readers, ci);
	return err;
}

static int start_readers(struct forward *f)
{
	struct fr_reader_sink sink = { .writer = fw_writer, .ctx = f };

	return fr_session_start_readers(f->src.s, &sink, &f->readers);
}

static int fw_start(struct fr_source *src, char *path, size_t len)
{
	struct forward *f = fw_of(src);
	struct fr_session *s = src->s;
	int err;

	fr_session_ksyms(s);   /* before the readers note addresses in it */
	f->lost_base = calloc(fr_evlist__nr_cpus(s->el), sizeof(*f->lost_base));
	f->ids_told = calloc(fr_evlist__nr_events(s->el) + 1, sizeof(*f->ids_told));
	if (!f->lost_base || !f->ids_told)
		return -ENOMEM;
	err = fr_composer__open(s, true, "stream", fr_session_now(CLOCK_MONOTONIC), &f->cur);
	if (err)
		return err;
	ids_written(f);
	snprintf(path, len, "%s", fr_composer__path(f->cur));
	err = start_readers(f);
	if (err) {   /* no half-made file is left behind */
		fr_composer__discard(f->cur);
		f->cur = NULL;
	}
	return err;
}

/* The file's samples are all in it: the readers stopped after a last drain
 * of their rings (what the kernel writes meanwhile waits for the next
 * readers), each CPU's PERF_FORMAT_LOST count since the file began. */
static int fw_stream_into(struct fr_source *src, struct fr_composer *c, struct fr_streams *out,
			  struct fr_snapshot_stats *st)
{
	struct forward *f = fw_of(src);
	struct fr_session *s = src->s;
	uint64_t chunks = 0;
	int err = 0;

	(void)c;
	(void)st;
	if (f->readers)
		err = fr_forward__stop(f->readers, out->cs, out->drops, &chunks);
	f->readers = NULL;
	out->chunks += chunks;
	for (size_t ci = 0; ci < fr_evlist__nr_cpus(s->el); ci++) {
		uint64_t now = 0;

		fr_evlist__lost_samples(s->el, ci, &now);
		out->cs[ci].lost_samples = now > f->lost_base[ci] ? now - f->lost_base[ci] : 0;
		f->lost_base[ci] = now;
	}
	return err;
}

static void add_total(struct forward *f, const struct fr_snapshot_stats *st)
{
	f->done_bytes += st->bytes;
	f->total.samples += st->samples;
	f->total.sideband += st->sideband;
	f->total.lost += st->lost;
	f->total.bytes += st->bytes;
}

/* Complete the file now and go on into the next one: the next file is made
 * first, while the readers still run, so they stop only for the time it
 * takes to join them and start the next ones (st->copy_ms). On an error the
 * recording goes on: in the current file if the next could not be made. */
static int fw_snapshot(struct fr_source *src, const struct fr_trigger *tr, char *path,
		       size_t len, struct fr_snapshot_stats *st)
{
	struct forward *f = fw_of(src);
	struct fr_session *s = src->s;
	uint64_t t0 = fr_session_now(CLOCK_MONOTONIC), t_stop;
	unsigned nr_cur = f->nr;
	struct fr_composer *next, *old;
	double gap_ms;
	int err, e;

	st->switched = true;
	if (!f->cur || !f->readers)
		return -EIO;   /* the readers stopped after an earlier failure */
	err = fr_composer__open(s, true, "stream", t0, &next);
	if (err) {
		f->nr = nr_cur;   /* the current file goes on as it was */
		return err;
	}
	t_stop = fr_session_now(CLOCK_MONOTONIC);
	err = fr_composer__take_streams(f->cur, st);
	old = f->cur;
	f->cur = next;
	e = start_readers(f);
	gap_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t_stop) / 1e6;
	if (e) {
		/* no readers on the next file: back to the current one */
		f->cur = old;
		fr_composer__discard(next);
		f->nr = nr_cur;
		if (start_readers(f))
			f->readers = NULL;
		return e;
	}
	ids_written(f);   /* next's EVENT chunks: every id so far */
	e = fr_composer__finish(old, tr, fr_session_now(CLOCK_MONOTONIC), path, len, st);
	err = err ? err : e;
	add_total(f, st);
	st->copy_ms = gap_ms;
	st->total_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
	return err;
}

/* Forward mode names every process that ran since the file began in its
 * PROCS blob (the whole table): exited ones stay 10 s, or as long as the
 * file being written (--switch-output) reaches back. */
static uint64_t fw_oldest_time(struct fr_source *src)
{
	struct forward *f = fw_of(src);
	uint64_t before = fr_session_now(CLOCK_MONOTONIC) - 10000000000ull;

	if (src->s->o.switch_output && f->cur && fr_composer__t0(f->cur) < before)
		before = fr_composer__t0(f->cur);
	return before;
}

/* Between files the readers are stopped: their last drain read everything. */
static int fw_read(struct fr_source *src)
{
	struct forward *f = fw_of(src);

	return f->readers ? fr_forward__read(f->readers) : 0;
}

static int fw_sideband(struct fr_source *src, size_t ci, const struct perf_event_header *h)
{
	struct forward *f = fw_of(src);

	return f->cur ? fr_composer__sideband(f->cur, ci, h) : 0;
}

/* The file removed while written (rm -rf of the output directory): its
 * link count is 0. Said at once; the readers stop (nothing written there can
 * be read again) and the end says so and exits 1 (doc/recording.md). */
static void watch_file(struct forward *f)
{
	uint64_t chunks;

	if (f->gone || !f->cur || !fr_composer__unlinked(f->cur))
		return;
	f->gone = true;
	fr_err(fr_composer__path(f->cur), "removed while recording (its directory is gone?): writing stops, "
	       "what is recorded from now on is lost");
	if (f->readers)
		fr_forward__stop(f->readers, NULL, NULL, &chunks);
	f->readers = NULL;
}

/* The sideband chunks in progress written (a killed recorder loses at most
 * flush_ms of it); --switch-output's limits. */
static int fw_tick(struct fr_source *src, const char **due, int *wait_ms)
{
	struct forward *f = fw_of(src);
	const struct fr_session_opts *o = &src->s->o;
	uint64_t now = fr_session_now(CLOCK_MONOTONIC), at;
	int err;

	watch_file(f);
	err = f->cur && !f->gone ? fr_composer__flush(f->cur) : 0;
	*wait_ms = o->flush_ms;
	if (err || !f->cur || !f->readers)
		return err;
	if (o->switch_ns) {
		at = fr_composer__t0(f->cur) + o->switch_ns;
		if (now >= at) {   /* the next file, begun now, is due switch_ns from now */
			*due = "time";
			at = now + o->switch_ns;
		}
		if ((at - now + 999999) / 1000000 < (uint64_t)*wait_ms)
			*wait_ms = (int)((at - now + 999999) / 1000000);
	}
	if (o->switch_bytes) {
		/* looked at again SIZE_CHECK_MS from now: in this file, or in
		 * the next one when this tick makes it (a switch now) */
		if (!*due && fr_composer__size(f->cur) >= o->switch_bytes)
			*due = "size";
		if (*wait_ms > SIZE_CHECK_MS)
			*wait_ms = SIZE_CHECK_MS;
	}
	return 0;
}

/* The end: the readers stopped, the file completed; st: the counts of every
 * file of the recording together. */
static int fw_stop(struct fr_source *src, const struct fr_trigger *tr, bool final, char *path,
		   size_t len, struct fr_snapshot_stats *st)
{
	struct forward *f = fw_of(src);
	uint64_t t0 = fr_session_now(CLOCK_MONOTONIC);
	struct fr_snapshot_stats last = { 0 };
	int err, e;

	(void)final;   /* the file is completed, whatever --no-final says */
	if (!f->cur)
		return -EIO;
	watch_file(f);
	if (f->gone) {   /* nothing to complete: said when it was noticed */
		snprintf(path, len, "%s", fr_composer__path(f->cur));
		return -ENOENT;
	}
	err = fr_composer__take_streams(f->cur, &last);
	e = fr_composer__finish(f->cur, tr, fr_session_now(CLOCK_MONOTONIC), path, len, &last);
	err = err ? err : e;
	f->cur = NULL;
	add_total(f, &last);
	*st = f->total;
	st->total_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
	return err;
}

static uint64_t fw_bytes(const struct fr_source *src)
{
	const struct forward *f = (const struct forward *)src;

	return f->done_bytes + (f->cur ? fr_composer__size(f->cur) : 0);
}

static void fw_destroy(struct fr_source *src)
{
	struct forward *f = fw_of(src);
	uint64_t chunks;

	if (f->readers)
		fr_forward__stop(f->readers, NULL, NULL, &chunks);
	if (f->cur) {
		/* a recording that failed after it began: the file stays as
		 * written (it reads up to its last chunk) */
		fr_composer__abandon(f->cur);
	}
	free(f->lost_base);
	free(f->ids_told);
}

/* Forward mode's snapshot: the file completed now, the next one begun. */
static int fw_say(const struct fr_trigger *tr, const char *path, int err,
		  const struct fr_snapshot_stats *st)
{
	if (err) {
		fr_err("forward", "switching to the next file (%s): %s", tr->source, strerror(-err));
		return err;
	}
	fr_info("forward: file complete (%s%s%s): %s (%llu samples, %llu sideband, %llu lost, "
		"%llu bytes, readers paused %.2f ms, switch %.2f ms)", tr->source,
		tr->coalesced ? ", coalesced " : "", tr->coalesced ? "more" : "", path,
		(unsigned long long)st->samples, (unsigned long long)st->sideband,
		(unsigned long long)st->lost, (unsigned long long)st->bytes, st->copy_ms,
		st->total_ms);
	return 0;
}

static void fw_say_start(struct fr_source *src, const char *path, int err)
{
	const struct fr_session_opts *o = &src->s->o;

	if (err) {
		fr_err("forward", "%s", strerror(-err));
		return;
	}
	fr_info("recording %d event(s), %s, %zu CPUs, %zu KiB overwrite ring per CPU "
		"read as it fills, streaming into %s%s%s%s", o->nr_events, o->target_desc,
		fr_evlist__nr_opened(src->s->el), o->ring_kib, path,
		o->switch_spec ? " (the next file at " : "", o->switch_spec ? o->switch_spec : "",
		o->switch_spec ? ")" : "");
}

/* The recording's end: every file's counts together, or why its last file
 * could not be completed; records lost make the exit 1. */
static int fw_say_end(struct fr_source *src, const struct fr_trigger *tr, const char *path,
		      int err, const struct fr_snapshot_stats *st)
{
	(void)tr;
	if (err) {
		fr_err("forward", "completing the file %s: %s", path, strerror(-err));
		if (st->lost)   /* what was dropped is said even so */
			fr_err("forward", "%llu records lost (dropped while writes failed, or the "
			       "readers fell behind)", (unsigned long long)st->lost);
		return err;
	}
	fr_info("forward: %llu samples, %llu sideband, %llu lost%s%s",
		(unsigned long long)st->samples, (unsigned long long)st->sideband,
		(unsigned long long)st->lost, path[0] ? "; last file " : "", path);
	if (st->lost && src->s->o.quiet)   /* exit 1 says something was lost: say what, -q or not */
		fr_err("forward", "%llu records lost (the readers fell behind; a bigger -m keeps up "
		       "longer)", (unsigned long long)st->lost);
	return st->lost ? 1 : 0;
}

static const struct fr_source_ops forward_ops = {
	.name = "forward",
	.default_pages = FR_RECORD_FORWARD_PAGES,
	.drained = true,
	.ksyms_first = true,
	.size = sizeof(struct forward),
	.start = fw_start,
	.meta = fw_meta,
	.snapshot = fw_snapshot,
	.stream_into = fw_stream_into,
	.oldest_time = fw_oldest_time,
	.sideband = fw_sideband,
	.read = fw_read,
	.tick = fw_tick,
	.stop = fw_stop,
	.bytes = fw_bytes,
	.cpu_opened = fw_cpu_opened,
	.say = fw_say,
	.say_start = fw_say_start,
	.say_end = fw_say_end,
	.destroy = fw_destroy,
};

const struct fr_source_ops *fr_source__forward(void)
{
	return &forward_ops;
}
