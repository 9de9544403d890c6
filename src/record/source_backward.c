/* src/record/source_backward.c: the backward source: every CPU's overwrite
 * ring streamed into a snapshot chunk by chunk by its copy thread (ring/copy.h),
 * cut to --window-time, the samples' pids gathered for PROCS; its oldest time
 * from the last stream and from marks of the rings' write counters.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/hmap.h"
#include "ring/record.h"
#include "src/record/session_internal.h"
#include "src/record/record.h"
#include "src/util.h"

/* A ring's write counter at a time: once the kernel wrote a ring's size
 * after it, every record older than the mark is overwritten. Kept from
 * MARK_MS apart; when full, every other one goes and the spacing doubles, so
 * they reach back as far as the ring does, however slowly it fills. */
#define TICK_MS 1000
#define NR_MARKS 32
#define MARK_MS 100
/* a record is published within this of its timestamp (as the table feed's slack) */
#define MARK_SLACK_NS 1000000ull

struct mark {
	uint64_t written, time;
};

struct cpu_marks {
	struct mark m[NR_MARKS];   /* oldest first */
	size_t nr;
	uint64_t every_ns;
};

struct backward {
	struct fr_source src;
	struct fr_ring_stream *streams; /* per CPU: the last stream of its sample ring */
	uint64_t *oldest;          /* per CPU: time of the oldest record that stream held (0: none) */
	struct cpu_marks *marks;   /* per CPU */
};

static struct backward *bw_of(struct fr_source *src)
{
	return (struct backward *)src;
}

static int bw_start(struct fr_source *src, char *path, size_t len)
{
	struct backward *b = bw_of(src);
	size_t ncpu = fr_evlist__nr_cpus(src->s->el);

	(void)path;
	(void)len;
	b->streams = calloc(ncpu, sizeof(*b->streams));
	b->oldest = calloc(ncpu, sizeof(*b->oldest));
	b->marks = calloc(ncpu, sizeof(*b->marks));
	return b->streams && b->oldest && b->marks ? 0 : -ENOMEM;
}

/* The pids the written samples came from: the PROCS blob carries those. */
struct pid_set {
	struct fr_hmap index;
	uint32_t *pids;
	size_t nr, cap;
	uint64_t lost;              /* pids left out: no memory */
};

static void pid_set_add(struct pid_set *ps, uint32_t pid)
{
	uint64_t h = fr_hash__u64(pid);
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&ps->index, h, &it, &i); ok; ok = fr_hmap__next(&ps->index, &it, &i))
		if (ps->pids[i] == pid)
			return;
	if (fr_grow(&ps->pids, &ps->cap, ps->nr + 1, sizeof(*ps->pids), 256) ||
	    fr_hmap__add(&ps->index, h, (uint32_t)ps->nr)) {
		ps->lost++;
		return;
	}
	ps->pids[ps->nr++] = pid;
}

static void pid_set_free(struct pid_set *ps)
{
	fr_hmap__exit(&ps->index);
	free(ps->pids);
	memset(ps, 0, sizeof(*ps));
}

/* a ring's streamed chunk becomes one RECORDS chunk of the file */
_Static_assert(FR_COPY_CHUNK_MAX == FR_CHUNK_RAW_MAX, "ring chunks are file chunks");

/* One CPU's part of the stream: its chunks are processed and compressed on
 * its copy thread (ring/copy.h), in parallel with the other CPUs'. */
struct cpu_ctx {
	struct fr_writer *app;      /* RECORDS chunks of this CPU's samples */
	struct pid_set pids;
	struct pid_set comm_tids;   /* threads renamed in the window (their COMMs) */
	uint32_t last_pid;          /* the pid added last, plus one (0: none) */
	uint64_t dropped_by_window;
};

struct write_ctx {
	struct backward *b;
	struct fr_composer *c;
	struct fr_streams *out;
	uint64_t cutoff;            /* the composer's */
	struct fr_snapshot_stats *st;
	struct cpu_ctx *cpus;       /* per CPU */
};

/* What -m takes: a power of two pages, at least need bytes, as K, M or G. */
static void ring_size_arg(double need, char *buf, size_t len)
{
	uint64_t sz = (uint64_t)sysconf(_SC_PAGESIZE);

	while ((double)sz < need && sz < (2ull << 30))
		sz <<= 1;
	if (sz >= (1ull << 30))
		snprintf(buf, len, "%lluG", (unsigned long long)(sz >> 30));
	else if (sz >= (1ull << 20))
		snprintf(buf, len, "%lluM", (unsigned long long)(sz >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long)(sz >> 10));
}

/* The ring could not hold the requested time: say how large it should be. */
static void window_warning(struct write_ctx *w, size_t ci, uint64_t oldest, uint64_t newest,
			   uint64_t n)
{
	struct fr_session *s = w->b->src.s;
	const struct fr_ring_stream *rs = &w->b->streams[ci];
	double held = (double)(newest - oldest) / 1e9, want = (double)s->o.window_ns / 1e9;
	double need = held > 0 ? (double)rs->len * want / held : 0;
	char size[32];

	if (w->st->warning[0])
		return;
	ring_size_arg(need, size, sizeof(size));
	snprintf(w->st->warning, sizeof(w->st->warning),
		 "CPU %d's ring held %.3f s of the requested %.3f s (%.0f events/s): use -m %s "
		 "or more", fr_evlist__cpu(s->el, ci), held, want,
		 held > 0 ? (double)n / held : 0.0, size);
}

/* A sample's pid; its kernel addresses noted when its event records some.
 * Without addresses to note, only the pid is read (a full decode of every
 * sample of a 256 MiB ring was a sixth of the snapshot's CPU time). 0, or
 * -errno when the sample has no pid. */
static int sample_pid(struct fr_session *s, const struct perf_event_header *h,
		      const struct fr_event *ev, uint32_t *pid)
{
	struct fr_sample smp;

	if (!fr_session_notes_kernel(s, ev))
		return fr_record__pid(h, ev->attr.sample_type, pid);
	if (fr_session_decode_sample(s, h, ev, &smp) || !smp.has_tid)
		return -ENOENT;
	*pid = smp.pid;
	return 0;
}

/* One chunk of CPU ci's sample stream, oldest first (ring/copy.h), on that
 * CPU's copy thread: the records within the window go to the file as one
 * RECORDS chunk (the ring's chunks are the file's size), their stats to
 * the CPU's; touches nothing another CPU's call touches. */
static int samples_chunk(void *ctx, size_t ci, const uint8_t *recs, size_t len, size_t nr)
{
	struct write_ctx *w = ctx;
	struct fr_session *s = w->b->src.s;
	struct fr_cpu_stat *cs = &w->out->cs[ci];
	struct cpu_ctx *cc = &w->cpus[ci];
	uint64_t cutoff = w->cutoff;
	int err = fr_writer__records_begin(cc->app, cs->cpu, FR_STREAM_SAMPLES);
	size_t off = 0;

	for (size_t i = 0; i < nr && !err && off < len; i++) {
		const struct perf_event_header *h = (const void *)(recs + off);
		const struct fr_event *ev = fr_session_record_event(s, h);
		uint64_t t = 0;

		off += h->size;
		if (fr_session_own_record(s, h, ev))
			continue;
		if (!fr_record__time(h, ev->attr.sample_type, &t) && t) {
			if (!w->b->oldest[ci])
				w->b->oldest[ci] = t;
			if (t < cutoff) {
				cc->dropped_by_window++;
				continue;
			}
			if (!cs->first_time)
				cs->first_time = t;
			cs->last_time = t;
		}
		if (h->type == PERF_RECORD_LOST) {
			struct fr_lost l;

			if (!fr_record__lost(h, &l))
				cs->lost_records += l.lost;
		} else if (h->type == PERF_RECORD_COMM) {
			struct fr_comm cm;

			if (!fr_record__comm(h, &cm))
				pid_set_add(&cc->comm_tids, cm.tid);
		} else if (h->type == PERF_RECORD_SAMPLE) {
			uint32_t pid;

			/* runs of one pid are the rule: one set lookup per run */
			if (!sample_pid(s, h, ev, &pid) && pid + 1 != cc->last_pid) {
				pid_set_add(&cc->pids, pid);
				cc->last_pid = pid + 1;
			}
		}
		if (h->type == PERF_RECORD_SAMPLE || h->type == PERF_RECORD_LOST)
			cs->nr_samples++;
		else
			cs->nr_sideband++;   /* the COMMs the sample ring carries */
		err = fr_writer__record(cc->app, h);
	}
	if (!err)
		err = fr_writer__records_end(cc->app);
	return err;
}

/* An appender per CPU for the stream. */
static int cpus_open(struct write_ctx *w, size_t ncpu)
{
	w->cpus = calloc(ncpu, sizeof(*w->cpus));
	if (!w->cpus)
		return -ENOMEM;
	for (size_t ci = 0; ci < ncpu; ci++) {
		int err = fr_composer__appender(w->c, &w->cpus[ci].app);

		if (err)
			return err;
	}
	return 0;
}

/* Fold the CPUs' parts into the file's: chunks into END, pids, counts; an
 * appender that dropped a chunk (a failed write) fails the file. */
static int cpus_close(struct write_ctx *w, size_t ncpu)
{
	struct pid_set all = { 0 }, named = { 0 };
	int ret = 0;

	for (size_t ci = 0; w->cpus && ci < ncpu; ci++) {
		struct cpu_ctx *cc = &w->cpus[ci];
		int err = fr_composer__appender_close(w->c, cc->app);

		if (err && !ret)
			ret = err;
		for (size_t i = 0; i < cc->pids.nr; i++)
			pid_set_add(&all, cc->pids.pids[i]);
		all.lost += cc->pids.lost;
		pid_set_free(&cc->pids);
		for (size_t i = 0; i < cc->comm_tids.nr; i++)
			pid_set_add(&named, cc->comm_tids.pids[i]);
		pid_set_free(&cc->comm_tids);
		w->st->dropped_by_window += cc->dropped_by_window;
	}
	free(w->cpus);
	w->cpus = NULL;
	w->st->pids_lost += all.lost;
	w->out->pids = all.pids;    /* NULL when no sample named one: every process */
	w->out->nr_pids = all.nr;
	w->out->comm_tids = named.pids;
	w->out->nr_comm_tids = named.nr;
	fr_hmap__exit(&all.index);
	fr_hmap__exit(&named.index);
	return ret;
}

/* After the stream: what CPU ci's ring held, in its stats. */
static void samples_done(struct write_ctx *w, size_t ci)
{
	struct fr_session *s = w->b->src.s;
	const struct fr_ring_stream *rs = &w->b->streams[ci];
	struct fr_cpu_stat *cs = &w->out->cs[ci];

	if (s->o.window_ns && rs->full && w->b->oldest[ci] > w->cutoff)
		window_warning(w, ci, w->b->oldest[ci], cs->last_time, cs->nr_samples);
	cs->raced_bytes = rs->raced;
	cs->flags = (rs->full ? FR_CPU_FULL : 0) | (rs->corrupt ? FR_CPU_CORRUPT : 0);
	fr_evlist__lost_samples(s->el, ci, &cs->lost_samples);
}

/* The oldest time every CPU's streamed ring held (0: some ring had not
 * wrapped, so its window reaches back to the start). */
static uint64_t stream_floor(const struct backward *b, size_t ncpu)
{
	uint64_t floor = UINT64_MAX;

	for (size_t ci = 0; ci < ncpu; ci++) {
		if (!b->streams[ci].full || !b->streams[ci].nr || !b->oldest[ci])
			return 0;
		if (b->oldest[ci] < floor)
			floor = b->oldest[ci];
	}
	return floor == UINT64_MAX ? 0 : floor;
}

/* Every CPU's ring streamed into the file as it is copied (memory: a few
 * chunks per CPU, never a whole ring). */
static int bw_stream_into(struct fr_source *src, struct fr_composer *c, struct fr_streams *out,
			  struct fr_snapshot_stats *st)
{
	struct backward *b = bw_of(src);
	struct fr_session *s = src->s;
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	struct write_ctx w = { .b = b, .c = c, .out = out, .cutoff = fr_composer__cutoff(c),
			       .st = st };
	double before = (double)(fr_session_now(CLOCK_MONOTONIC) - fr_composer__t0(c)) / 1e6;
	int err, cerr;

	memset(b->oldest, 0, ncpu * sizeof(*b->oldest));
	err = cpus_open(&w, ncpu);
	if (!err) {
		err = fr_evlist__stream(s->el, b->streams, NULL, &st->copy, samples_chunk, &w);
		st->pinned = !st->copy.paused && !st->copy.skipped;
		st->copy_ms = before + st->copy.begin_ms;
	}
	cerr = cpus_close(&w, ncpu);
	if (!err)
		err = cerr;
	for (size_t ci = 0; ci < ncpu && !err; ci++)
		samples_done(&w, ci);
	out->floor = stream_floor(b, ncpu);
	if (!err)
		fr_composer__meta(c, "pinned_copy", "%s", st->pinned ? "yes" : "no");
	return err;
}

static int bw_snapshot(struct fr_source *src, const struct fr_trigger *tr, char *path,
		       size_t len, struct fr_snapshot_stats *st)
{
	/* the copy threads note kernel addresses in it: the first snapshot
	 * waits for the load, before its clock */
	fr_session_ksyms(src->s);
	return fr_composer__snapshot(src->s, tr, fr_session_now(CLOCK_MONOTONIC), path, len, st);
}

/* Note each ring's write counter now and then (one load per CPU). */
static void take_marks(struct backward *b)
{
	struct fr_session *s = b->src.s;
	uint64_t now = fr_session_now(CLOCK_MONOTONIC);

	for (size_t ci = 0; b->marks && ci < fr_evlist__nr_cpus(s->el); ci++) {
		struct cpu_marks *m = &b->marks[ci];
		struct mark k = { .time = now };
		size_t size;

		if (!m->every_ns)
			m->every_ns = MARK_MS * 1000000ull;
		if (m->nr && now - m->m[m->nr - 1].time < m->every_ns)
			continue;
		if (fr_evlist__sample_written(s->el, ci, &k.written, &size))
			continue;
		if (m->nr == NR_MARKS) {   /* thin out: every other one, twice as far apart */
			for (size_t i = 0; i < NR_MARKS / 2; i++)
				m->m[i] = m->m[2 * i + 1];
			m->nr = NR_MARKS / 2;
			m->every_ns *= 2;
		}
		m->m[m->nr++] = k;
	}
}

static int bw_tick(struct fr_source *src, const char **due, int *wait_ms)
{
	(void)due;
	/* once a second at least: the marks, and the sideband drained (the
	 * renames that woke the loop are in the sample rings now) */
	if (*wait_ms < 0 || *wait_ms > TICK_MS)
		*wait_ms = TICK_MS;
	take_marks(bw_of(src));
	return 0;
}

/* A lower bound of the oldest time CPU ci's ring holds (0: none known):
 * the newest mark the kernel has written a whole ring since, or the oldest
 * record of the last stream of a ring that had wrapped (a ring only moves
 * forward). No record is read. */
static uint64_t cpu_oldest(struct backward *b, size_t ci)
{
	struct fr_session *s = b->src.s;
	const struct cpu_marks *m = &b->marks[ci];
	uint64_t t = b->streams[ci].full && b->streams[ci].nr ? b->oldest[ci] : 0, written;
	size_t size;

	if (fr_evlist__sample_written(s->el, ci, &written, &size))
		return t;
	for (size_t i = m->nr; i-- > 0;)
		if (written - m->m[i].written >= size) {
			if (m->m[i].time > MARK_SLACK_NS && m->m[i].time - MARK_SLACK_NS > t)
				t = m->m[i].time - MARK_SLACK_NS;
			break;
		}
	return t;
}

static uint64_t bw_oldest_time(struct fr_source *src)
{
	struct backward *b = bw_of(src);
	uint64_t floor = UINT64_MAX;

	if (!b->streams)
		return 0;
	take_marks(b);
	for (size_t ci = 0; ci < fr_evlist__nr_cpus(src->s->el); ci++) {
		uint64_t t;

		if (!fr_evlist__cpu_opened(src->s->el, ci))
			continue;   /* offline since the start: no ring, no window */
		t = cpu_oldest(b, ci);

		if (!t)
			return 0;   /* this ring's window may reach back to the start */
		if (t < floor)
			floor = t;
	}
	return floor == UINT64_MAX ? 0 : floor;
}

static void bw_destroy(struct fr_source *src)
{
	struct backward *b = bw_of(src);

	free(b->streams);
	free(b->oldest);
	free(b->marks);
}

/* A snapshot of the rings: what it held, how it was copied, how much of the
 * recording a wrapped ring kept. */
static int bw_say(const struct fr_trigger *tr, const char *path, int err,
		  const struct fr_snapshot_stats *st)
{
	char how[160];

	if (err) {
		fr_err("snapshot", "%s", strerror(-err));
		return err;
	}
	fr_copy_stats__format(&st->copy, how, sizeof(how));
	fr_info("snapshot (%s%s%s) written: %s (%llu samples, %llu sideband, %llu lost, "
		"%llu bytes, copy %.2f ms, total %.2f ms, copied %s)", tr->source,
		tr->coalesced ? ", coalesced " : "", tr->coalesced ? "more" : "", path,
		(unsigned long long)st->samples, (unsigned long long)st->sideband,
		(unsigned long long)st->lost, (unsigned long long)st->bytes, st->copy_ms,
		st->total_ms, how);
	if (st->wrapped_cpus && st->kept_from_ns > st->recorded_from_ns &&
	    st->recorded_to_ns > st->kept_from_ns)
		fr_info("ring wrapped on %u CPU(s): the file keeps the last %.3f s of the "
			"%.3f s recorded (bigger -m, or --forward, keeps more)", st->wrapped_cpus,
			(double)(st->recorded_to_ns - st->kept_from_ns) / 1e9,
			(double)(st->recorded_to_ns - st->recorded_from_ns) / 1e9);
	if (st->warning[0])
		fr_info("window: %s", st->warning);
	return 0;
}

static void bw_say_start(struct fr_source *src, const char *path, int err)
{
	const struct fr_session_opts *o = &src->s->o;

	(void)path;
	if (err) {
		fr_err("record", "%s", strerror(-err));
		return;
	}
	fr_info("recording %d event(s), %s, %zu CPUs, %zu KiB backward ring per CPU; "
		"snapshot: flightrec snapshot%s%s or kill -USR2 %d", o->nr_events, o->target_desc,
		fr_evlist__nr_opened(src->s->el), o->ring_kib,
		strcmp(o->name, "default") ? " --name " : "",
		strcmp(o->name, "default") ? o->name : "", (int)getpid());
}

static const struct fr_source_ops backward_ops = {
	.name = "backward",
	.default_pages = FR_RECORD_BACKWARD_PAGES,
	.drained = false,
	.size = sizeof(struct backward),
	.start = bw_start,
	.snapshot = bw_snapshot,
	.stream_into = bw_stream_into,
	.oldest_time = bw_oldest_time,
	.tick = bw_tick,
	.say = bw_say,
	.say_start = bw_say_start,
	.stop = fr_session_final_snapshot,
	.say_end = fr_session_say_final,
	.destroy = bw_destroy,
};

const struct fr_source_ops *fr_source__backward(void)
{
	return &backward_ops;
}
