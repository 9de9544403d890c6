/* src/record/readers.c: the reader threads of --forward and --keep (see
 * readers.h), a thread per CPU's ring, unpinned at nice -10 by default
 * (--reader-cpus places them), woken by the ring watermark or the flush
 * timeout, appending records (and the lapped reads' LOST records) through
 * a per-thread writer its source's sink gives (a file's appender, the
 * keep window); stats are thread-local until the join.
 */
#include "config.h"
#include "src/record/readers.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ring/record.h"
#include "src/util.h"

#define READER_NICE (-10)

struct fwd_cpu {
	struct fr_forward *f;
	pthread_t th;
	bool started;
	size_t ci;
	int stop_fd;
	struct fr_writer *app;
	struct fr_cpu_stat st;
	int err;
	int said_err;               /* the write failure said, until writes resume */
	uint64_t ok_time;           /* the newest record time when a write last succeeded */
	uint64_t hole_from;         /* writes failing: the hole began after this time */
	uint64_t lost_said;         /* the writer's drop count when the last episode ended */
	uint64_t lost_noted;        /* the drops whose hole record reached the file */
	uint64_t holes_dropped;     /* hole records refused themselves (not the workload's) */
	pthread_mutex_t lock;       /* held while reading the ring (fr_forward__sync) */
	uint64_t read_from;         /* the newest record's time before this read */
	void *scratch;              /* FR_RECORD_SCRATCH bytes for record_fn */
};

struct fr_forward {
	struct fr_evlist *el;
	size_t ncpu;
	int flush_ms;
	fr_record_fn record_fn;
	void *ctx;
	struct fr_reader_sink sink;
	cpu_set_t allowed;          /* the recorder's affinity when it started */
	const int *reader_cpus;     /* --reader-cpus, or none: one per ring's CPU */
	size_t nr_reader_cpus;
	bool unpinned;              /* --reader-cpus any */
	bool own;                   /* --reader-cpus own */
	struct fwd_cpu *cpus;
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int record_cb(void *ctx, size_t ci, const struct perf_event_header *h)
{
	struct fwd_cpu *c = ctx;
	uint64_t t = 0, lost = 0;
	int err;

	if (c->f->record_fn(c->f->ctx, ci, &h, &t, c->scratch))
		return 0;   /* left out (the recorder's own) */
	if (h->type == PERF_RECORD_LOST) {
		struct fr_lost l;

		if (!fr_record__lost(h, &l))
			lost = l.lost;
		c->st.lost_records += lost;
	}
	if (t) {
		if (!c->st.first_time)
			c->st.first_time = t;
		c->st.last_time = t;
	}
	c->st.nr_samples++;
	err = fr_writer__record(c->app, h);
	if (!err && c->f->sink.noted)
		c->f->sink.noted(c->f->sink.ctx, c->ci, t, lost);
	return err;
}

/* lost records as a PERF_RECORD_LOST in the CPU's sample stream (doc/format.md
 * §4: the readers count it as they count the kernel's): {id, lost} and the
 * sample event's sample_id_all trailer, whose time, from, is where the hole
 * began (the newest record before it). */
static int append_lost(struct fwd_cpu *c, uint64_t lost, uint64_t from)
{
	const struct fr_event *ev = fr_evlist__event(c->f->el, 0);
	uint64_t buf[16] = { 0 }, type = ev ? ev->attr.sample_type : 0, id = 0;
	struct perf_event_header *h = (void *)buf;
	const uint64_t *ids;
	size_t n = 3, nr = 0;
	int err;

	ids = fr_evlist__ids(c->f->el, 0, &nr);
	if (ids && nr)
		id = ids[c->ci < nr ? c->ci : 0];
	buf[1] = id;
	buf[2] = lost;
	if (ev && ev->attr.sample_id_all) {
		if (type & PERF_SAMPLE_TID)
			buf[n++] = 0;
		if (type & PERF_SAMPLE_TIME)
			buf[n++] = from;
		if (type & PERF_SAMPLE_ID)
			buf[n++] = id;
		if (type & PERF_SAMPLE_STREAM_ID)
			buf[n++] = id;
		if (type & PERF_SAMPLE_CPU)
			buf[n++] = c->st.cpu;
		if (type & PERF_SAMPLE_IDENTIFIER)
			buf[n++] = id;
	}
	h->type = PERF_RECORD_LOST;
	h->size = (uint16_t)(n * 8);
	err = fr_writer__record(c->app, h);
	if (!err && c->f->sink.noted)
		c->f->sink.noted(c->f->sink.ctx, c->ci, from, lost);
	return err;
}

/* The records an episode of refused writes dropped, in the stream
 * (append_lost): written and flushed at once after the first chunk that
 * succeeded again; refused too, its count stays due and goes into the hole
 * record of the next episode's end (the CPU stats at the end count every
 * drop too, and readers take the larger). */
static int note_hole(struct fwd_cpu *c, uint64_t lost)
{
	if (append_lost(c, lost, c->hole_from) || fr_writer__flush(c->app) ||
	    fr_writer__dropped(c->app, &(uint64_t){ 0 }, NULL))
		return -EIO;   /* an appender drops a refused chunk and says so here */
	return 0;
}

/* A drained overwrite ring (--forward, --keep) lapped its reader: the
 * kernel overwrote the oldest records the reader had not reached; the hole
 * began after the newest record of the reads before (told before this
 * read's records, or after them where the count needed them). */
static int lapped_cb(void *ctx, size_t ci, uint64_t records, uint64_t bytes)
{
	struct fwd_cpu *c = ctx;

	(void)ci;
	(void)bytes;
	c->st.lost_records += records;
	c->st.flags |= FR_CPU_FULL;
	return append_lost(c, records, c->read_from);
}

/* A refused write (a full disk) drops chunks until writes succeed again: say
 * so once when it starts and once when it ends, with what that episode lost,
 * which goes into the file (note_hole). */
static void watch_writes(struct fwd_cpu *c)
{
	uint64_t lost;
	int err = fr_writer__dropped(c->app, &lost, NULL);

	if (err && !c->said_err) {
		c->hole_from = c->ok_time ? c->ok_time : c->st.first_time;
		fr_err("forward", "CPU %u: writing the file: %s: dropping records until writes "
		       "succeed again", c->st.cpu, strerror(-err));
	} else if (!err && c->said_err) {
		uint64_t real = lost - c->holes_dropped;

		fr_info("forward: CPU %u: writes resumed (%llu records lost meanwhile)", c->st.cpu,
			(unsigned long long)(real - c->lost_said));
		c->lost_said = real;
		if (!note_hole(c, real - c->lost_noted)) {
			c->lost_noted = real;
		} else {   /* the hole record refused: a new episode began */
			c->holes_dropped++;
			err = fr_writer__dropped(c->app, &lost, NULL);
		}
	}
	if (!err)
		c->ok_time = c->st.last_time;
	c->said_err = err;
}

static void *reader(void *arg)
{
	struct fwd_cpu *c = arg;
	struct fr_forward *f = c->f;
	int cpu = fr_evlist__cpu(f->el, c->ci);
	struct pollfd p[2] = {
		{ .fd = c->stop_fd, .events = POLLIN },
		{ .fd = fr_evlist__sample_fd(f->el, c->ci), .events = POLLIN },
	};
	uint64_t last_flush = mono_ms();
	nfds_t n = p[1].fd >= 0 ? 2 : 1;
	cpu_set_t one;

	/* By default a reader is not pinned (it runs within the recorder's
	 * affinity), at a higher weight: woken, it goes to an idle CPU rather
	 * than preempt the workload on its ring's CPU, and with every CPU busy
	 * it still wins (a reader that waits behind a busy workload loses
	 * records: its CPU time is bounded by the event rate). Measured against
	 * the alternatives in doc/design-notes.md. --reader-cpus own pins each
	 * to its ring's CPU (the default before 2026-12-03), LIST to the CPUs
	 * named, any leaves them unpinned at nice 0. */
	CPU_ZERO(&one);
	if (f->nr_reader_cpus)
		CPU_SET(f->reader_cpus[c->ci % f->nr_reader_cpus], &one);
	else if (f->own && CPU_ISSET(cpu, &f->allowed))
		CPU_SET(cpu, &one);
	if (CPU_COUNT(&one))
		sched_setaffinity(0, sizeof(one), &one);   /* refused: it runs unpinned */
	if (!f->unpinned)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), READER_NICE);
	for (;;) {
		/* wake when the next flush is due, not flush_ms after the last
		 * wake: a wake just before it was due pushed a killed recorder's
		 * loss to almost twice flush_ms */
		uint64_t since = mono_ms() - last_flush;
		int r = poll(p, n, since >= (uint64_t)f->flush_ms ? 0 : f->flush_ms - (int)since);
		bool stop = r > 0 && (p[0].revents & POLLIN);

		if (r < 0 && errno != EINTR) {
			c->err = -errno;
			break;
		}
		pthread_mutex_lock(&c->lock);
		c->read_from = c->st.last_time;
		c->err = fr_evlist__read_samples(f->el, c->ci, record_cb, lapped_cb, c);
		if (c->err == -EBADMSG) {
			c->err = 0;   /* corrupt ring: skipped to head, flagged in the file */
			c->st.flags |= FR_CPU_CORRUPT;
		}
		watch_writes(c);
		if (!c->err && !stop && mono_ms() - last_flush >= (uint64_t)f->flush_ms) {
			c->err = fr_writer__flush(c->app);
			last_flush = mono_ms();
		}
		pthread_mutex_unlock(&c->lock);
		if (c->err || stop)
			break;
		/* a task target that exited hangs up: stop polling it */
		if (n == 2 && (p[1].revents & (POLLHUP | POLLERR)))
			n = 1;
	}
	return NULL;
}

static void free_forward(struct fr_forward *f)
{
	for (size_t i = 0; i < f->ncpu; i++) {
		if (f->cpus[i].stop_fd >= 0)
			close(f->cpus[i].stop_fd);
		if (f->cpus[i].app)
			fr_writer__close(f->cpus[i].app);
		free(f->cpus[i].scratch);
		pthread_mutex_destroy(&f->cpus[i].lock);
	}
	free(f->cpus);
	free(f);
}

/* CPU c's writer, its stream begun, and its thread. */
static int start_cpu(struct fwd_cpu *c)
{
	struct fr_forward *f = c->f;
	int err;

	if (!c->scratch && !(c->scratch = malloc(FR_RECORD_SCRATCH)))
		return -ENOMEM;
	c->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (c->stop_fd < 0)
		return -errno;
	if ((err = f->sink.writer(f->sink.ctx, c->ci, &c->app)))
		return err;
	err = fr_writer__records_begin(c->app, c->st.cpu, FR_STREAM_SAMPLES);
	if (!err)
		err = -pthread_create(&c->th, NULL, reader, c);
	c->started = !err;
	return err;
}

int fr_forward__add_cpu(struct fr_forward *f, size_t ci)
{
	struct fwd_cpu *c = ci < f->ncpu ? &f->cpus[ci] : NULL;

	if (!c || !fr_evlist__cpu_opened(f->el, ci))
		return -EINVAL;
	if (c->started)
		return 0;
	if (c->app || c->stop_fd >= 0)
		return -EBUSY;   /* a start that failed before: its writer stays until stop */
	return start_cpu(c);
}

int fr_forward__start(struct fr_evlist *el, const struct fr_forward_opts *o,
		      fr_record_fn record_fn, void *ctx, struct fr_forward **out)
{
	struct fr_forward *f = calloc(1, sizeof(*f));
	int err = 0;

	if (!f)
		return -ENOMEM;
	f->el = el;
	f->ncpu = fr_evlist__nr_cpus(el);
	f->flush_ms = o->flush_ms;
	f->reader_cpus = o->reader_cpus;
	f->nr_reader_cpus = o->nr_reader_cpus;
	f->unpinned = o->unpinned;
	f->own = o->own;
	if (sched_getaffinity(0, sizeof(f->allowed), &f->allowed))
		CPU_ZERO(&f->allowed);
	f->record_fn = record_fn;
	f->ctx = ctx;
	f->sink = o->sink;
	f->cpus = calloc(f->ncpu, sizeof(*f->cpus));
	if (!f->cpus) {
		free(f);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->ncpu; i++) {
		f->cpus[i].stop_fd = -1;
		pthread_mutex_init(&f->cpus[i].lock, NULL);
	}
	for (size_t i = 0; i < f->ncpu; i++) {
		f->cpus[i].f = f;
		f->cpus[i].ci = i;
		f->cpus[i].st.cpu = (uint32_t)fr_evlist__cpu(el, i);
	}
	for (size_t i = 0; i < f->ncpu && !err; i++)
		if (fr_evlist__cpu_opened(el, i))   /* the rest: fr_forward__add_cpu */
			err = start_cpu(&f->cpus[i]);
	if (err) {
		uint64_t chunks;

		fr_forward__stop(f, NULL, NULL, &chunks);
		return err;
	}
	*out = f;
	return 0;
}

/* Every started ring read by the caller; flush: the chunks in progress
 * written out too, and per CPU the drops so far in drops (may be NULL). */
static int read_all(struct fr_forward *f, bool flush, uint64_t *drops)
{
	int err = 0;

	for (size_t i = 0; i < f->ncpu; i++) {
		struct fwd_cpu *c = &f->cpus[i];
		int e;

		if (!c->started)
			continue;
		pthread_mutex_lock(&c->lock);
		c->read_from = c->st.last_time;
		e = fr_evlist__read_samples(f->el, c->ci, record_cb, lapped_cb, c);
		if (e == -EBADMSG) {
			e = 0;
			c->st.flags |= FR_CPU_CORRUPT;
		}
		if (!e && flush)
			e = fr_writer__flush(c->app);
		if (drops)
			fr_writer__dropped(c->app, &drops[i], NULL);
		pthread_mutex_unlock(&c->lock);
		if (e && !err)
			err = e;
	}
	return err;
}

int fr_forward__sync(struct fr_forward *f, uint64_t *drops)
{
	return read_all(f, true, drops);
}

int fr_forward__read(struct fr_forward *f)
{
	return read_all(f, false, NULL);
}

int fr_forward__stop(struct fr_forward *f, struct fr_cpu_stat *st, uint64_t *drops,
		      uint64_t *chunks)
{
	uint64_t one = 1;
	int err = 0;

	*chunks = 0;
	for (size_t i = 0; i < f->ncpu; i++)
		if (f->cpus[i].started && write(f->cpus[i].stop_fd, &one, sizeof(one)) < 0 && !err)
			err = -errno;
	for (size_t i = 0; i < f->ncpu; i++) {
		struct fwd_cpu *c = &f->cpus[i];
		uint64_t dropped;
		int e, e2;

		if (!c->started)
			continue;
		pthread_join(c->th, NULL);
		if (c->err && !err)
			err = c->err;
		/* the last chunk first: writes that resume there get their
		 * hole's record in before the stream ends */
		e = fr_writer__flush(c->app);
		watch_writes(c);
		e2 = fr_writer__records_end(c->app);
		e = e ? e : e2;
		if (e && !err)
			err = e;
		fr_writer__dropped(c->app, &dropped, NULL);
		*chunks += fr_writer__chunks(c->app);
		if (st)
			st[i] = c->st;
		if (drops)
			drops[i] = dropped;
	}
	free_forward(f);
	return err;
}
