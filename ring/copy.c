/* ring/copy.c: exact streamed copies of every CPU's backward ring (ring.h):
 * per-CPU copy threads that sleep until a snapshot, then stream their ring
 * on their own CPU through the caller's chunk function, raised to
 * SCHED_FIFO meanwhile; for CPUs no thread began in time, a clone of the
 * ring copied while it is paused, streamed once it is resumed.
 */
#define _GNU_SOURCE
#include "config.h"
#include "ring/copy.h"
#include "ring/internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FR_COPY_FIFO_PRIO 90

enum wstate { W_IDLE, W_REQUESTED, W_COPYING, W_DONE, W_ABANDONED };

struct worker {
	struct fr_copier *c;
	size_t i;
	pthread_t th;
	bool alive;
	bool pinned;             /* alive and pinned to the ring's CPU */
	bool prepared;           /* its buffers are touched (under c->mu) */
	enum wstate state;       /* under c->mu */
	int err;
	uint64_t t_begun;        /* when its stream's head was taken and walked */
	struct fr_ring_stream *st;   /* the caller's, during a stream */
	uint8_t *buf;            /* one chunk */
};

struct fr_copier {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	bool quit;
	bool rt_ok;              /* SCHED_FIFO allowed (tried once) */
	uint64_t deadline_ns;
	size_t n;
	struct fr_copy_ring *rings;
	struct worker *w;
	uint8_t *pbuf;           /* the paused stream's chunk */
	size_t pbuf_size;
	/* the stream under way */
	fr_copy_chunk_fn fn;
	void *ctx;
	int fatal;               /* fn's first -errno: every stream stops */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int fr_cpuset__affinity(cpu_set_t **set, size_t *size)
{
	for (int n = 1024; n <= (1 << 22); n *= 2) {
		size_t sz = CPU_ALLOC_SIZE(n);
		cpu_set_t *s = CPU_ALLOC(n);

		if (!s)
			return -ENOMEM;
		CPU_ZERO_S(sz, s);
		if (sched_getaffinity(0, sz, s) == 0) {
			*set = s;
			*size = sz;
			return 0;
		}
		CPU_FREE(s);
		if (errno != EINVAL)
			return -errno;
	}
	return -EINVAL;
}

bool fr_cpuset__has(const cpu_set_t *set, size_t size, struct fr_cpu cpu)
{
	return cpu.cpu >= 0 && (size_t)cpu.cpu / 8 < size && CPU_ISSET_S((size_t)cpu.cpu, size, set);
}

/* Pin thread th to one CPU; 0 or -errno (EINVAL: outside our cpuset). */
static int pin(pthread_t th, struct fr_cpu cpu)
{
	size_t sz = CPU_ALLOC_SIZE(cpu.cpu + 1);
	cpu_set_t *one = CPU_ALLOC(cpu.cpu + 1);
	int err;

	if (!one)
		return -ENOMEM;
	CPU_ZERO_S(sz, one);
	CPU_SET_S((size_t)cpu.cpu, sz, one);
	err = -pthread_setaffinity_np(th, sz, one);
	CPU_FREE(one);
	return err;
}

/* A ring's chunk: FR_COPY_CHUNK_MAX, or a small ring's size (its buffers
 * then cost no more than the ring). */
static size_t chunk_size(const struct fr_copy_ring *cr)
{
	size_t sz = cr->ring ? fr_ring__data_size(cr->ring) : 0;

	if (sz < FR_RING_CHUNK_MIN)
		return FR_RING_CHUNK_MIN;
	return sz < FR_COPY_CHUNK_MAX ? sz : FR_COPY_CHUNK_MAX;
}

static bool on_cpu(const struct fr_copy_ring *cr)
{
	return sched_getcpu() == cr->cpu.cpu;
}

/* Hand one chunk of ring i to fn; 1 when the stream of ring i is to stop
 * (fn wants no more, or another ring's fn failed). Thread-safe. */
static int deliver(struct fr_copier *c, size_t i, const uint8_t *recs, size_t len, size_t nr)
{
	int rc, fatal;

	pthread_mutex_lock(&c->mu);
	fatal = c->fatal;
	pthread_mutex_unlock(&c->mu);
	if (fatal)
		return 1;
	rc = c->fn(c->ctx, i, recs, len, nr);
	if (rc < 0) {
		pthread_mutex_lock(&c->mu);
		if (!c->fatal)
			c->fatal = rc;
		pthread_mutex_unlock(&c->mu);
	}
	return rc ? 1 : 0;
}

/* Stream ring i on its CPU through fn; 0 or -errno (-EXDEV: the thread was
 * not on the ring's CPU, the rest is for the paused stream). It stays at
 * SCHED_FIFO to the end: a pinned thread at normal priority is starved by
 * anything pinned there at a real-time priority (a snapshot then took a
 * minute), and falling behind the kernel costs the oldest records. */
static int worker_stream(struct worker *w, struct fr_copy_ring *cr)
{
	struct fr_copier *c = w->c;
	int err;

	if (!on_cpu(cr))
		return -EXDEV;
	err = fr_ring__stream_begin(cr->ring, chunk_size(cr), w->st);
	if (err || !on_cpu(cr)) {
		memset(w->st, 0, sizeof(*w->st));   /* redone paused from scratch */
		return err ? err : -EXDEV;
	}
	w->t_begun = now_ns();
	for (;;) {
		struct fr_ring_stream before = *w->st;
		const uint8_t *recs;
		size_t len, nr;
		int rc = fr_ring__stream_next(cr->ring, w->st, w->buf, &recs, &len, &nr);

		if (rc <= 0)
			return rc;
		if (!on_cpu(cr)) {
			*w->st = before;   /* not exact: the paused stream redoes it */
			return -EXDEV;
		}
		if (deliver(c, w->i, recs, len, nr))
			return 0;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct fr_copier *c = w->c;
	struct fr_copy_ring *cr = &c->rings[w->i];

	/* first touch on this CPU: the first snapshot pays no page faults */
	memset(w->buf, 0, chunk_size(cr));
	fr_ring__stream_prepare(cr->ring, chunk_size(cr));
	pthread_mutex_lock(&c->mu);
	w->prepared = true;   /* the ring's buffers are no longer touched here */
	pthread_cond_broadcast(&c->done);
	for (;;) {
		int err;

		while (!c->quit && w->state != W_REQUESTED)
			pthread_cond_wait(&c->go, &c->mu);
		if (c->quit)
			break;
		w->state = W_COPYING;
		pthread_mutex_unlock(&c->mu);
		err = worker_stream(w, cr);
		pthread_mutex_lock(&c->mu);
		w->err = err;
		w->state = W_DONE;
		pthread_cond_broadcast(&c->done);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* A thread for ring i if the caller may run on its CPU; no error if not. */
static int start_worker(struct fr_copier *c, size_t i, const cpu_set_t *mine, size_t sz)
{
	struct worker *w = &c->w[i];
	pthread_attr_t a;
	sigset_t all, old;
	int err;

	w->c = c;
	w->i = i;
	if (!c->rings[i].ring || !fr_cpuset__has(mine, sz, c->rings[i].cpu))
		return 0;
	if (!(w->buf = malloc(chunk_size(&c->rings[i]))))
		return -ENOMEM;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	/* signals stay with the caller (signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&w->th, &a, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (err)
		return err == ENOMEM ? -ENOMEM : 0;
	w->alive = true;
	/* not pinned: it is never asked to copy */
	w->pinned = pin(w->th, c->rings[i].cpu) == 0;
	return 0;
}

static void stop_threads(struct fr_copier *c)
{
	pthread_mutex_lock(&c->mu);
	c->quit = true;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->mu);
	for (size_t i = 0; i < c->n; i++)
		if (c->w[i].alive)
			pthread_join(c->w[i].th, NULL);
}

int fr_copier__new(const struct fr_copy_ring *rings, size_t n, struct fr_copier **out)
{
	struct fr_copier *c = calloc(1, sizeof(*c));
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	cpu_set_t *mine = NULL;
	size_t sz = 0;
	int err = 0;

	if (!c)
		return -ENOMEM;
	c->n = n;
	c->rt_ok = true;
	c->deadline_ns = FR_COPY_DEADLINE_NS;
	c->rings = calloc(n ? n : 1, sizeof(*c->rings));
	c->w = calloc(n ? n : 1, sizeof(*c->w));
	if (!c->rings || !c->w) {
		free(c->rings);
		free(c->w);
		free(c);
		return -ENOMEM;
	}
	memcpy(c->rings, rings, n * sizeof(*rings));
	/* a raised copy thread may wait for the mutex held by a normal one */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&c->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->go, &ca);
	pthread_cond_init(&c->done, &ca);
	pthread_condattr_destroy(&ca);
	{
		size_t max = FR_RING_CHUNK_MIN;

		for (size_t i = 0; i < n; i++)
			if (chunk_size(&rings[i]) > max)
				max = chunk_size(&rings[i]);
		c->pbuf = malloc(max);
		c->pbuf_size = max;
		if (!c->pbuf)
			err = -ENOMEM;
	}
	if (!err && fr_cpuset__affinity(&mine, &sz) == 0) {
		for (size_t i = 0; i < n && !err; i++)
			err = start_worker(c, i, mine, sz);
		CPU_FREE(mine);
	}

	if (err) {
		fr_copier__delete(c);
		return err;
	}
	*out = c;
	return 0;
}

void fr_copier__delete(struct fr_copier *c)
{
	if (!c)
		return;
	stop_threads(c);
	for (size_t i = 0; i < c->n; i++)
		free(c->w[i].buf);
	free(c->pbuf);
	pthread_cond_destroy(&c->go);
	pthread_cond_destroy(&c->done);
	pthread_mutex_destroy(&c->mu);
	free(c->rings);
	free(c->w);
	free(c);
}

void fr_copier__set_deadline(struct fr_copier *c, uint64_t ns)
{
	c->deadline_ns = ns;
}

size_t fr_copier__nr_threads(const struct fr_copier *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->w[i].pinned;
	return n;
}

static void set_prio(struct fr_copier *c, struct worker *w, bool raise)
{
	struct sched_param sp = { .sched_priority = raise ? FR_COPY_FIFO_PRIO : 0 };

	if (raise && !c->rt_ok)
		return;
	if (pthread_setschedparam(w->th, raise ? SCHED_FIFO : SCHED_OTHER, &sp) && raise)
		c->rt_ok = false;
}

/* Request a stream from every usable thread and wait for them; those not
 * started by the deadline are abandoned. Under no lock. */
static void run_threads(struct fr_copier *c, struct fr_ring_stream *streams,
			struct fr_copy_stats *st, uint64_t t0)
{
	uint64_t dl = t0 + c->deadline_ns;
	struct timespec ts = { (time_t)(dl / 1000000000ull), (long)(dl % 1000000000ull) };
	bool any = false;

	for (size_t i = 0; i < c->n; i++) {
		struct worker *w = &c->w[i];

		if (w->pinned && w->state == W_IDLE) {
			set_prio(c, w, true);
			any = true;
		}
	}
	if (!any)
		return;
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < c->n; i++) {
		struct worker *w = &c->w[i];

		if (w->pinned && w->state == W_IDLE) {
			w->state = W_REQUESTED;
			w->st = &streams[i];
			w->err = 0;
			w->t_begun = 0;
		}
	}
	pthread_cond_broadcast(&c->go);
	for (;;) {
		bool requested = false, copying = false;

		for (size_t i = 0; i < c->n; i++) {
			requested |= c->w[i].state == W_REQUESTED;
			copying |= c->w[i].state == W_COPYING;
		}
		if (!requested && !copying)
			break;
		if (requested && now_ns() >= dl) {
			for (size_t i = 0; i < c->n; i++)
				if (c->w[i].state == W_REQUESTED)
					c->w[i].state = W_ABANDONED;
			continue;
		}
		/* a stream under way is bounded work: wait for it without deadline */
		if (requested)
			pthread_cond_timedwait(&c->done, &c->mu, &ts);
		else
			pthread_cond_wait(&c->done, &c->mu);
	}
	pthread_mutex_unlock(&c->mu);
	st->wait_ms = (double)(now_ns() - t0) / 1e6;
	for (size_t i = 0; i < c->n; i++)
		if (c->w[i].pinned)
			set_prio(c, &c->w[i], false);
}

static void skip(struct fr_copy_stats *st, enum fr_copy_path *path, struct fr_cpu cpu, int err)
{
	if (st->skipped < FR_COPY_MAX_LISTED)
		st->skipped_cpus[st->skipped] = cpu;
	if (!st->skip_err)
		st->skip_err = err;
	st->skipped++;
	*path = FR_COPY_SKIPPED;
}

static void note_begun(struct fr_copy_stats *st, uint64_t t0, uint64_t t)
{
	double ms = (double)(t - t0) / 1e6;

	if (ms > st->begin_ms)
		st->begin_ms = ms;
}

/* Stream ring i's clone (ring.h: a copy of the ring taken while it was
 * paused) through fn, from where ring i's stream stands (begun or not). */
static int stream_clone(struct fr_copier *c, size_t i, struct fr_ring *clone,
			struct fr_ring_stream *rs)
{
	int err = 0;

	if (!rs->begun && (err = fr_ring__stream_begin(clone, chunk_size(&c->rings[i]), rs)))
		return err;
	for (;;) {
		const uint8_t *recs;
		size_t len, nr;
		int rc = fr_ring__stream_next(clone, rs, c->pbuf, &recs, &len, &nr);

		if (rc <= 0)
			return rc;
		if (deliver(c, i, recs, len, nr))
			return 0;
	}
}

/* The paused stream of every ring whose path is still NONE, one ring at a
 * time: pause it, one grace period, stream, resume. Returns fn's -errno, or
 * -errno when a ring could not be resumed; a ring that cannot be paused or
 * streamed is skipped. */
static int copy_paused(struct fr_copier *c, struct fr_ring_stream *streams,
		       enum fr_copy_path *paths, struct fr_copy_stats *st, uint64_t t0)
{
	int ret = 0;

	for (size_t i = 0; i < c->n && !ret && !c->fatal; i++) {
		struct fr_copy_ring *cr = &c->rings[i];
		struct fr_ring *clone = NULL;
		int err, rerr;

		if (paths[i] != FR_COPY_NONE || !cr->ring)
			continue;
		/* a thread still preparing the ring's buffers (just started)
		 * must be done before this thread uses them */
		pthread_mutex_lock(&c->mu);
		while (c->w[i].alive && !c->w[i].prepared)
			pthread_cond_wait(&c->done, &c->mu);
		pthread_mutex_unlock(&c->mu);
		/* the clone's memory is allocated and touched, and the ring
		 * copied twice, before the pause: the second copy and the paused
		 * one take only what the kernel wrote meanwhile */
		err = fr_ring__clone_new(cr->ring, chunk_size(cr), &clone);
		if (!err) {
			fr_ring__clone_precopy(cr->ring, clone);
			fr_ring__clone_precopy(cr->ring, clone);
			err = fr_ring__pause(cr->ring, cr->fd, true);
		}
		if (err) {
			fr_ring__delete(clone);
			skip(st, &paths[i], cr->cpu, err);
			continue;
		}
		paths[i] = FR_COPY_PAUSED;
		fr_ring__wait_writers();
		fr_ring__clone_copy(cr->ring, clone);
		note_begun(st, t0, now_ns());
		rerr = fr_ring__pause(cr->ring, cr->fd, false);
		if (rerr && (rerr = fr_ring__pause(cr->ring, cr->fd, false)))
			ret = rerr;
		/* resumed: the clone is streamed through fn */
		err = stream_clone(c, i, clone, &streams[i]);
		fr_ring__delete(clone);
		if (err) {
			skip(st, &paths[i], cr->cpu, err);
			continue;
		}
		st->paused++;
	}
	return ret;
}

void fr_copier__repin(struct fr_copier *c, size_t i)
{
	struct worker *w = i < c->n ? &c->w[i] : NULL;

	if (!w || !w->alive)
		return;
	pthread_mutex_lock(&c->mu);
	w->pinned = pin(w->th, c->rings[i].cpu) == 0;
	pthread_mutex_unlock(&c->mu);
}

int fr_copier__add_ring(struct fr_copier *c, size_t i, struct fr_ring *ring, int fd)
{
	struct fr_copy_ring cr = { .ring = ring, .fd = fd };
	cpu_set_t *mine = NULL;
	size_t sz = 0;
	int err = 0;

	if (i >= c->n || c->rings[i].ring || c->w[i].alive || !ring)
		return -EINVAL;
	cr.cpu = c->rings[i].cpu;
	if (chunk_size(&cr) > c->pbuf_size) {
		uint8_t *p = realloc(c->pbuf, chunk_size(&cr));

		if (!p)
			return -ENOMEM;
		c->pbuf = p;
		c->pbuf_size = chunk_size(&cr);
	}
	c->rings[i] = cr;   /* no stream runs: the caller's thread is the streams' */
	if (fr_cpuset__affinity(&mine, &sz) == 0) {
		err = start_worker(c, i, mine, sz);
		CPU_FREE(mine);
	}
	if (err && !c->w[i].alive) {   /* as it was: no ring */
		free(c->w[i].buf);
		c->w[i].buf = NULL;
		c->rings[i].ring = NULL;
	}
	return err;
}

int fr_copier__stream(struct fr_copier *c, struct fr_ring_stream *streams,
		      enum fr_copy_path *paths, struct fr_copy_stats *st, fr_copy_chunk_fn fn,
		      void *ctx)
{
	enum fr_copy_path *p = paths;
	uint64_t t0 = now_ns();
	int err;

	memset(st, 0, sizeof(*st));
	if (!p && !(p = calloc(c->n ? c->n : 1, sizeof(*p))))
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		memset(&streams[i], 0, sizeof(streams[i]));
		p[i] = FR_COPY_NONE;
	}
	c->fn = fn;
	c->ctx = ctx;
	c->fatal = 0;
	run_threads(c, streams, st, t0);
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < c->n; i++) {
		struct worker *w = &c->w[i];

		if (w->state == W_DONE && !w->err) {
			p[i] = FR_COPY_PINNED;
			st->pinned++;
		} else if (w->state == W_DONE || w->state == W_ABANDONED) {
			/* the paused stream goes on from where it stands */
			st->late++;
		}
		if (w->t_begun)
			note_begun(st, t0, w->t_begun);
		/* abandoned: the thread goes back to sleep when it wakes */
		if (w->state == W_DONE || w->state == W_ABANDONED)
			w->state = W_IDLE;
		w->st = NULL;
	}
	pthread_mutex_unlock(&c->mu);
	err = copy_paused(c, streams, p, st, t0);
	if (c->fatal)
		err = c->fatal;
	if (p != paths)
		free(p);
	return err;
}

int fr_copy_stats__format(const struct fr_copy_stats *st, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%zu pinned, %zu paused", st->pinned, st->paused);

	if (st->late && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " (late %zu)", st->late);
	if (st->skipped && n >= 0 && (size_t)n < len) {
		n += snprintf(buf + n, len - (size_t)n, ", %zu skipped: cpu", st->skipped);
		for (size_t i = 0; i < st->skipped && i < FR_COPY_MAX_LISTED; i++)
			if (n >= 0 && (size_t)n < len)
				n += snprintf(buf + n, len - (size_t)n, "%s%d", i ? "," : " ",
					      st->skipped_cpus[i].cpu);
	}
	return n;
}
