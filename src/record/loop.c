/* src/record/loop.c: the recorder's main loop (loop.h), the same for every
 * source. Triggers (SIGUSR2, `flightrec snapshot`, a trigger event, a
 * --trigger-latency pair too long) become one pending snapshot that later
 * triggers join until it is written (forward mode: the file being written
 * completed, the switch to the next one); the rate limit refuses snapshots
 * beyond N per PERIOD; the session's tick says when --switch-output's limits
 * are reached. A failure of the loop itself ends it with one line and
 * FR_EXIT_ERROR (the final snapshot is still written by the caller).
 */
#include "config.h"
#include "src/record/loop.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ring/record.h"
#include "src/record/latency.h"
#include "src/util.h"

#define MAX_WAITERS 64
#define LAT_TICK_MS 20         /* --trigger-latency: the pairs read are matched this often */

struct pending {
	bool active;
	uint64_t due;
	struct fr_trigger tr;
	char event[256], end_event[256];
	int waiters[MAX_WAITERS];   /* clients waiting for the path */
	size_t nr_waiters;
};

struct loop {
	struct fr_session *s;
	struct fr_control *ctl;
	const struct fr_loop_opts *o;
	pid_t child;
	bool ended;
	int status;
	struct pending p;
	uint64_t *history;          /* times of the last rate_n snapshots, a ring */
	size_t hist_pos;
	uint64_t refused;
	uint64_t switch_retry;      /* forward: a failed --switch-output switch is retried then */
	int tick_ms;                /* the session's next tick is due in this (-1: none) */
	unsigned fault_at;          /* FLIGHTREC_TEST_FAULT=loop:N: the Nth tick fails */
	unsigned ticks;
	struct fr_latency *lat;     /* --trigger-latency's pairs, or NULL */
	bool lat_failed;            /* its memory ran out once: said */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void reply_all(struct pending *p, const char *line)
{
	for (size_t i = 0; i < p->nr_waiters; i++)
		fr_control__reply(p->waiters[i], line);
	p->nr_waiters = 0;
}

int fr_record_snapshot_now(struct fr_session *s, const struct fr_trigger *tr, char *path,
			   size_t len)
{
	struct fr_snapshot_stats st;
	int err = fr_session__snapshot(s, tr, path, len, &st);

	return fr_session__say_snapshot(s, tr, path, err, &st);
}

static bool rate_limited(struct loop *l, uint64_t now)
{
	/* the oldest of the last rate_n snapshots is within the period */
	return l->o->rate_n && l->history[l->hist_pos] &&
	       now - l->history[l->hist_pos] < l->o->rate_ns;
}

static void fire(struct loop *l)
{
	char path[PATH_MAX], line[PATH_MAX + 64];
	int err;

	l->p.active = false;
	err = fr_record_snapshot_now(l->s, &l->p.tr, path, sizeof(path));
	if (err > 0) {          /* written, but some CPUs are missing from it */
		l->status = FR_EXIT_PARTIAL;
		err = 0;
	}
	if (err) {
		snprintf(line, sizeof(line), "error %s", strerror(-err));
		l->status = FR_EXIT_PARTIAL;
	} else {
		snprintf(line, sizeof(line), "ok %s", path);
	}
	reply_all(&l->p, line);   /* first: the hooks and the pusher compete for the CPU */
	if (!err && l->o->hooks)
		fr_hooks__run(l->o->hooks, path);   /* reaped on SIGCHLD */
	if (l->o->rate_n) {
		l->history[l->hist_pos] = now_ns();
		l->hist_pos = (l->hist_pos + 1) % l->o->rate_n;
	}
}

/* A trigger: join the pending snapshot, start one, or refuse (rate limit). */
static void trigger(struct loop *l, const struct fr_trigger *tr, int client)
{
	uint64_t now = now_ns();

	if (l->p.active) {
		l->p.tr.coalesced++;
		if (client >= 0 && l->p.nr_waiters < MAX_WAITERS)
			l->p.waiters[l->p.nr_waiters++] = client;
		else if (client >= 0)
			fr_control__reply(client, "error too many clients waiting");
		return;
	}
	if (rate_limited(l, now)) {
		l->refused++;
		if (l->refused == 1 || !(l->refused & (l->refused - 1)))
			fr_info("trigger (%s) refused by --max-snapshots (%llu refused so far)",
				tr->source, (unsigned long long)l->refused);
		if (client >= 0)
			fr_control__reply(client, "error rate limit (--max-snapshots) reached; "
					  "try again later");
		return;
	}
	l->p.active = true;
	l->p.tr = *tr;
	if (tr->event) {
		snprintf(l->p.event, sizeof(l->p.event), "%s", tr->event);
		l->p.tr.event = l->p.event;
	}
	if (tr->end_event) {
		snprintf(l->p.end_event, sizeof(l->p.end_event), "%s", tr->end_event);
		l->p.tr.end_event = l->p.end_event;
	}
	l->p.due = now + tr->after_ns;
	l->p.nr_waiters = 0;
	if (client >= 0)
		l->p.waiters[l->p.nr_waiters++] = client;
	if (!tr->after_ns)
		fire(l);
}

/* Returns true when recording should stop. */
static bool handle_signal(struct loop *l, int sfd)
{
	struct signalfd_siginfo si;
	struct fr_trigger tr = { .source = "sigusr2" };
	pid_t pid;
	int wst;

	if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return false;
	switch (si.ssi_signo) {
	case SIGUSR2:
		tr.time = now_ns();
		trigger(l, &tr, -1);
		return false;
	case SIGCHLD:
		/* the recorded command ends the recording; --exec-on-snapshot
		 * hooks only say how they ended */
		while ((pid = waitpid(-1, &wst, WNOHANG)) > 0) {
			if (l->child > 0 && pid == l->child) {
				l->child = -1;
				l->ended = true;
			} else {
				fr_hooks__reaped(l->o->hooks, pid, wst);
			}
		}
		return l->ended;
	default:
		return true;
	}
}

/* A complete request from the control socket (fr_control__service). */
static void handle_request(void *ctx, int cl, const struct fr_control_req *req)
{
	struct loop *l = ctx;
	struct fr_trigger tr = { .source = "command", .after_ns = req->after_ns };

	if (req->verb != FR_REQ_SNAPSHOT) {
		fr_control__reply(cl, "error unknown request");
		return;
	}
	tr.time = now_ns();
	trigger(l, &tr, cl);
}

/* All trigger records waiting in the rings become one trigger: the first
 * one's details, the rest counted as coalesced. */
struct trig_batch {
	struct loop *l;
	struct fr_trigger tr;
	unsigned n;
};

static int trigger_cb(void *ctx, size_t ci, const struct perf_event_header *h)
{
	struct trig_batch *b = ctx;
	struct fr_evlist *el = fr_session__evlist(b->l->s);
	const struct fr_event *ev = fr_evlist__trigger_event(el);
	struct fr_sample smp;

	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	if (b->n++)
		return 0;
	b->tr.event = ev->name;
	if (!fr_record__parse_sample(h, ev->attr.sample_type, 0, &smp)) {
		b->tr.time = smp.time;
		b->tr.pid = smp.pid;
		b->tr.tid = smp.tid;
	}
	b->tr.cpu = (uint32_t)fr_evlist__cpu(el, ci);
	return 0;
}

/* --trigger-latency: each record of the pair's rings to the matcher (RAW's
 * common_type, the tracepoint's id, tells BEGIN from END); a loss drops
 * what is open. */
static int pair_cb(void *ctx, size_t ci, const struct perf_event_header *h)
{
	struct loop *l = ctx;
	struct fr_evlist *el = fr_session__evlist(l->s);
	const struct fr_event *b = fr_evlist__trigger_event(el), *e = fr_evlist__trigger_end(el);
	struct fr_sample smp;
	uint16_t type;

	if (h->type == PERF_RECORD_LOST) {
		fr_latency__lost(l->lat);
		return 0;
	}
	if (h->type != PERF_RECORD_SAMPLE ||
	    fr_record__parse_sample(h, b->attr.sample_type, 0, &smp) || !smp.raw ||
	    smp.raw_size < sizeof(type))
		return 0;
	memcpy(&type, smp.raw, sizeof(type));
	if (type != b->attr.config && type != e->attr.config)
		return 0;
	if (fr_latency__add(l->lat, type == b->attr.config, smp.pid, smp.tid,
			    (uint32_t)fr_evlist__cpu(el, ci), smp.time) && !l->lat_failed) {
		l->lat_failed = true;
		fr_err("--trigger-latency", "holding the pairs' records: %s (pairs across the "
		       "gap are not matched)", strerror(ENOMEM));
	}
	return 0;
}

/* The pairs read so far, matched up to 2 ms ago (a record of another CPU
 * may still be on its way; last: every one, the recording ends); the first
 * one too long is the trigger, the others coalesced into it. */
static void drain_pairs(struct loop *l, bool last)
{
	struct fr_evlist *el = fr_session__evlist(l->s);
	struct fr_trigger tr = { .source = "latency", .after_ns = l->o->trigger_after_ns };
	struct fr_latency_hit hit;
	unsigned more;
	uint64_t now = now_ns();

	fr_evlist__drain_trigger(el, pair_cb, l);
	if (!fr_latency__run(l->lat, last ? UINT64_MAX : now > 2000000 ? now - 2000000 : 0, &hit,
			     &more))
		return;
	tr.event = fr_evlist__trigger_event(el)->name;
	tr.end_event = fr_evlist__trigger_end(el)->name;
	tr.time = hit.end;
	tr.begin = hit.begin;
	tr.end = hit.end;
	tr.pid = hit.pid;
	tr.tid = hit.tid;
	tr.cpu = hit.cpu;
	tr.coalesced = more;
	if (l->p.active)
		l->p.tr.coalesced += more;   /* trigger() counts one more */
	trigger(l, &tr, -1);
}

static void drain_triggers(struct loop *l)
{
	struct trig_batch b = { .l = l, .tr = { .source = "event", .after_ns = l->o->trigger_after_ns } };

	if (l->lat) {
		drain_pairs(l, false);
		return;
	}

	fr_evlist__drain_trigger(fr_session__evlist(l->s), trigger_cb, &b);
	if (!b.n)
		return;
	if (!b.tr.time)
		b.tr.time = now_ns();
	b.tr.coalesced = b.n - 1;
	if (l->p.active)
		l->p.tr.coalesced += b.n - 1;   /* trigger() counts one more */
	trigger(l, &b.tr, -1);
}

/* The fds to poll: signals, the control socket and its clients still sending
 * (*nctl of them, from fds[1]), live sideband rings, trigger rings. */
static size_t build_fds(struct loop *l, int sfd, struct pollfd *sb, size_t nsb,
			struct pollfd *tg, size_t ntg, struct pollfd *fds, size_t *nctl)
{
	size_t n = 1;

	fds[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	*nctl = fr_control__pollfds(l->ctl, fds + 1, FR_CONTROL_MAX_CLIENTS + 1);
	n += *nctl;
	for (size_t i = 0; i < nsb; i++)
		if (sb[i].fd >= 0)
			fds[n++] = (struct pollfd){ .fd = sb[i].fd, .events = POLLIN };
	for (size_t i = 0; i < ntg; i++)
		if (tg[i].fd >= 0)
			fds[n++] = (struct pollfd){ .fd = tg[i].fd, .events = POLLIN };
	/* a CPU offline or back: the tick after the wake sees it */
	if (fr_session__hotplug_fd(l->s) >= 0)
		fds[n++] = (struct pollfd){ .fd = fr_session__hotplug_fd(l->s), .events = POLLIN };
	return n;
}

static int poll_timeout(struct loop *l)
{
	/* the source's next tick (forward: the flush, --switch-output's limits) */
	int t = l->tick_ms, c = fr_control__timeout_ms(l->ctl);

	if (l->p.active) {
		uint64_t now = now_ns(), ms = l->p.due > now ? (l->p.due - now + 999999) / 1000000 : 0;

		if (t < 0 || ms < (uint64_t)t)
			t = (int)(ms > INT_MAX ? INT_MAX : ms);
	}
	if (c >= 0 && (t < 0 || c < t))
		t = c;      /* a client's deadline */
	if (l->lat && (t < 0 || t > LAT_TICK_MS))
		t = LAT_TICK_MS;   /* the pairs read are matched this often */
	return t;
}

/* -p targets, one pidfd each (readable once the process exited): the loop
 * ends when all are gone, not when the first one goes. */
static size_t open_pidfds(const struct fr_loop_opts *o, int *pfd)
{
	size_t n = 0;

	for (size_t i = 0; i < o->nr_pids; i++) {
		pfd[i] = (int)syscall(SYS_pidfd_open, o->pids[i], 0);
		n += pfd[i] >= 0;
	}
	return n;
}

static bool targets_gone(const struct pollfd *fds, size_t from, size_t n, int *pfd, size_t npfd)
{
	bool live = false;

	for (size_t i = from; i < n; i++)
		if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
			for (size_t k = 0; k < npfd; k++)
				if (pfd[k] == fds[i].fd) {
					close(pfd[k]);
					pfd[k] = -1;
				}
	for (size_t k = 0; k < npfd; k++)
		live |= pfd[k] >= 0;
	return !live;
}

/* forward on a terminal: the bytes written (every file), about every second */
static void progress(struct loop *l, uint64_t *last_ns, uint64_t *last_bytes)
{
	uint64_t now = now_ns(), bytes;

	if (!l->o->progress || now - *last_ns < 1000000000ull)
		return;
	bytes = fr_session__bytes(l->s);
	l->o->progress(bytes, *last_ns && bytes >= *last_bytes ? (bytes - *last_bytes) *
		       1000000000ull / (now - *last_ns) : 0, false);
	*last_ns = now;
	*last_bytes = bytes;
}

/* forward: --switch-output's size or time reached: the next file now (not
 * a pending snapshot's trigger: a --after window does not delay it). */
static void switch_output(struct loop *l, const char *due)
{
	struct fr_trigger tr = { .time = now_ns(), .source = due };
	char path[PATH_MAX];

	if (!due || tr.time < l->switch_retry)
		return;
	if (fr_record_snapshot_now(l->s, &tr, path, sizeof(path))) {
		l->status = FR_EXIT_PARTIAL;
		l->switch_retry = tr.time + 10000000000ull;   /* said once per 10 s at most */
	} else if (l->o->hooks) {
		fr_hooks__run(l->o->hooks, path);   /* reaped on SIGCHLD */
	}
}

/* A test hook (doc/exit-codes.md): FLIGHTREC_TEST_FAULT=loop:N makes the
 * loop's Nth tick fail as an allocation would, so that the loop's failure
 * path can be tested end to end. Unset (always, outside tests): 0. */
static unsigned test_fault(void)
{
	const char *v = getenv("FLIGHTREC_TEST_FAULT");
	unsigned long n;
	char *end;

	if (!v || strncmp(v, "loop:", 5))
		return 0;
	errno = 0;
	n = strtoul(v + 5, &end, 10);
	return errno || *end || !n || n > 1000000 ? 0 : (unsigned)n;
}

/* The session's periodic work after a wake: drain, the source's tick. */
static int tick(struct loop *l, const char **due)
{
	int err = fr_session__tick(l->s, due, &l->tick_ms);

	if (l->fault_at && ++l->ticks == l->fault_at)
		err = -ENOMEM;
	return err;
}

/* The loop cannot go on: said in one line, the exit status says it. */
static void loop_failed(struct loop *l, const char *what, int err)
{
	fr_err("record", "%s: %s (recording stopped; the final file holds what the rings hold)",
	       what, strerror(-err));
	l->status = FR_EXIT_ERROR;
}

/* Mark hung-up fds (their task exited) so they leave the poll set. */
static void drop_hups(const struct pollfd *fds, size_t from, size_t n, struct pollfd *set,
		      size_t nset)
{
	for (size_t i = from; i < n; i++)
		if (fds[i].revents & (POLLHUP | POLLERR))
			for (size_t k = 0; k < nset; k++)
				if (set[k].fd == fds[i].fd)
					set[k].fd = -1;
}

int fr_record_loop(struct fr_session *s, struct fr_control *ctl, const struct fr_loop_opts *o,
		   bool *ended)
{
	struct fr_evlist *el = fr_session__evlist(s);
	size_t ncpu = fr_evlist__nr_cpus(el), nsb, ntg;
	unsigned gen = fr_evlist__generation(el);
	struct loop l = { .s = s, .ctl = ctl, .o = o, .child = o->child, .tick_ms = -1,
			  .fault_at = test_fault() };
	struct pollfd *sb = calloc(ncpu, sizeof(*sb)), *tg = calloc(ncpu, sizeof(*tg));
	struct pollfd *fds = calloc(2 * ncpu + 3 + FR_CONTROL_MAX_CLIENTS + o->nr_pids, sizeof(*fds));
	int *pfd = calloc(o->nr_pids + 1, sizeof(*pfd));
	size_t npfd = 0;
	uint64_t shown_ns = 0, shown_bytes = 0;
	const char *due = NULL;
	int err;

	l.history = calloc(o->rate_n ? o->rate_n : 1, sizeof(*l.history));
	if (fr_evlist__trigger_end(el) && fr_latency__new(o->latency_ns, &l.lat))
		l.lat = NULL;
	if (!sb || !tg || !fds || !l.history || !pfd || (fr_evlist__trigger_end(el) && !l.lat)) {
		loop_failed(&l, "starting the loop", -ENOMEM);
		goto out;
	}
	if (open_pidfds(o, pfd))
		npfd = o->nr_pids;
	nsb = fr_evlist__sideband_pollfds(el, sb, ncpu);
	ntg = fr_evlist__trigger_pollfds(el, tg, ncpu);
	/* the first tick: its wait (forward's flush) and the first marks */
	if ((err = tick(&l, &due))) {
		loop_failed(&l, "draining the sideband", err);
		goto out;
	}
	for (;;) {
		size_t nctl, n = build_fds(&l, o->sfd, sb, nsb, tg, ntg, fds, &nctl), nlive = n;
		size_t live_sb = 0, pfd_from = n;
		int r;

		for (size_t k = 0; k < npfd; k++)
			if (pfd[k] >= 0)
				fds[n++] = (struct pollfd){ .fd = pfd[k], .events = POLLIN };
		for (size_t i = 0; i < nsb; i++)
			live_sb += sb[i].fd >= 0;
		/* without pidfds (old kernels): the targets' rings hang up */
		if (!npfd && nsb && !live_sb && l.child <= 0) {
			l.ended = true;    /* every -p target exited */
			break;
		}
		r = poll(fds, n, poll_timeout(&l));
		if (r < 0 && errno != EINTR) {
			loop_failed(&l, "poll", -errno);
			break;
		}
		if (r > 0 && (fds[0].revents & POLLIN) && handle_signal(&l, o->sfd))
			break;
		/* also on a timeout: silent clients are closed at their deadline */
		fr_control__service(l.ctl, fds + 1, nctl, handle_request, &l);
		if (r > 0) {
			drop_hups(fds, 1 + nctl, nlive, sb, nsb);
			drop_hups(fds, 1 + nctl, nlive, tg, ntg);
		}
		if (npfd && r > 0 && targets_gone(fds, pfd_from, n, pfd, npfd)) {
			l.ended = true;    /* every -p target exited */
			if ((err = fr_session__drain(s)))
				loop_failed(&l, "draining the sideband", err);
			break;
		}
		if ((err = tick(&l, &due))) {
			loop_failed(&l, "draining the sideband", err);
			break;
		}
		if (gen != fr_evlist__generation(el)) {   /* a CPU opened: its rings too */
			gen = fr_evlist__generation(el);
			nsb = fr_evlist__sideband_pollfds(el, sb, ncpu);
			ntg = fr_evlist__trigger_pollfds(el, tg, ncpu);
		}
		switch_output(&l, due);
		progress(&l, &shown_ns, &shown_bytes);
		if (ntg)
			drain_triggers(&l);
		if (l.p.active && now_ns() >= l.p.due)
			fire(&l);
	}
	if (l.lat)   /* a pair that ended last: its snapshot, before the final one */
		drain_pairs(&l, true);
	/* a snapshot still waiting for its post-trigger window is written now */
	if (l.p.active)
		fire(&l);
out:
	if (shown_ns)
		o->progress(0, 0, true);
	if (l.refused)
		fr_info("%llu trigger(s) refused by --max-snapshots", (unsigned long long)l.refused);
	if (l.lat) {
		uint64_t pairs, dropped;

		fr_latency__stats(l.lat, &pairs, &dropped);
		fr_info("--trigger-latency: %llu pairs matched%s", (unsigned long long)pairs,
			dropped ? " (some dropped: records lost, or begun before a gap)" : "");
		fr_latency__delete(l.lat);
	}
	free(l.history);
	for (size_t k = 0; k < npfd; k++)
		if (pfd[k] >= 0)
			close(pfd[k]);
	free(pfd);
	free(sb);
	free(tg);
	free(fds);
	*ended = l.ended;
	return l.status;
}
