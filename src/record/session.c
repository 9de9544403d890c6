/* src/record/session.c: a recording session's life: created over an opened
 * evlist, the per-CPU state it keeps, the event each record belongs to, and
 * its end. Sideband, synthesis and snapshots live beside it (internal.h).
 */
#include "config.h"
#include "src/record/session.h"

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ring/record.h"
#include "src/record/internal.h"

uint64_t fr_session_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int build_id_map(struct fr_session *s)
{
	s->ids = fr_idmap__new();
	if (!s->ids)
		return -ENOMEM;
	for (size_t e = 0; e < fr_evlist__nr_events(s->el); e++) {
		size_t k;
		const uint64_t *ids = fr_evlist__ids(s->el, e, &k);

		if (fr_idmap__add(s->ids, ids, k, e))
			return -ENOMEM;
	}
	fr_idmap__sort(s->ids);
	return 0;
}

int fr_session__new(struct fr_evlist *el, const struct fr_session_opts *o,
		    struct fr_session **out)
{
	struct fr_session *s = calloc(1, sizeof(*s));
	size_t ncpu = fr_evlist__nr_cpus(el);

	if (!s) {
		fr_evlist__delete(el);
		return -ENOMEM;
	}
	s->el = el;
	s->o = *o;
	s->self_pid = o->exclude_self ? (uint32_t)getpid() : 0;
	s->fd = -1;
	s->sb = calloc(ncpu, sizeof(*s->sb));
	s->streams = calloc(ncpu, sizeof(*s->streams));
	s->oldest = calloc(ncpu, sizeof(*s->oldest));
	if (!s->sb || !s->streams || !s->oldest || build_id_map(s)) {
		fr_session__delete(s);
		return -ENOMEM;
	}
	s->start_ns = fr_session_now(CLOCK_MONOTONIC);
	s->fd = -1;
	s->gc_at = 4096;
	s->procs = fr_proctable__new(&fr_proctable__recorder_policy);
	if (!s->procs) {
		fr_session__delete(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void fr_session__delete(struct fr_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->sb && i < fr_evlist__nr_cpus(s->el); i++)
		fr_sb_store__free(&s->sb[i]);
	free(s->sb);
	fr_sb_store__free(&s->synth);
	free(s->streams);
	free(s->oldest);
	fr_idmap__delete(s->ids);
	free(s->pend.buf);
	free(s->pend_refs);
	for (size_t i = 0; i < s->nr_files; i++)
		free(s->files[i]);
	free(s->files);
	if (s->fwd) {
		uint64_t chunks;

		fr_forward__stop(s->fwd, NULL, NULL, &chunks);
	}
	if (s->keep_view)
		fr_keep_view__release(s->keep, s->keep_view);
	fr_keep__delete(s->keep);
	free(s->keep_drops);
	for (size_t i = 0; s->sbw && i < fr_evlist__nr_cpus(s->el); i++)
		fr_writer__close(s->sbw[i]);
	free(s->sbw);
	free(s->sb_nr);
	free(s->sb_lost);
	free(s->lost_base);
	if (s->w)
		fr_writer__abort(s->w);
	if (s->fd >= 0)
		close(s->fd);
	fr_proctable__delete(s->procs);
	fr_session__load_ksyms(s);   /* joins a loading thread */
	fr_kallsyms__delete(s->ksyms);
	fr_evlist__delete(s->el);
	free(s);
}

/* The event a sample-ring record belongs to. */
const struct fr_event *fr_session_record_event(const struct fr_session *s,
					       const struct perf_event_header *h)
{
	const struct fr_event *ev0 = fr_evlist__event(s->el, 0);
	size_t i;

	if (fr_evlist__nr_events(s->el) == 1 ||
	    fr_idmap__find(s->ids, h, ev0->attr.sample_type, &i))
		return ev0;
	return fr_evlist__event(s->el, i);
}

bool fr_session_own_record(const struct fr_session *s, const struct perf_event_header *h,
			   const struct fr_event *ev)
{
	uint32_t pid;

	return s->self_pid && h->type == PERF_RECORD_SAMPLE && ev->kind == FR_EVENT_TRACEPOINT &&
	       !fr_record__pid(h, ev->attr.sample_type, &pid) && pid == s->self_pid;
}

uint64_t fr_session_record_time(void *ctx, const struct perf_event_header *h)
{
	struct fr_session *s = ctx;
	uint64_t t;

	return fr_record__time(h, fr_session_record_event(s, h)->attr.sample_type, &t) ? 0 : t;
}

/* The loading thread yields to the loop (nice 10) until someone waits for it. */
#define KSYMS_NICE 10

static void ksyms_load(struct fr_session *s)
{
	if (fr_kallsyms__load(NULL, NULL, &s->ksyms))
		s->ksyms = NULL;
}

void fr_session__load_ksyms(struct fr_session *s)
{
	if (s->ksyms_pending) {
		int tid = __atomic_load_n(&s->ksyms_tid, __ATOMIC_ACQUIRE);

		if (tid > 0)   /* waited for now: back to our weight (root may) */
			setpriority(PRIO_PROCESS, (id_t)tid, getpriority(PRIO_PROCESS, 0));
		pthread_join(s->ksyms_th, NULL);
		s->ksyms_pending = false;
	}
	if (s->ksyms_tried)
		return;
	s->ksyms_tried = true;
	ksyms_load(s);
}

static void *ksyms_main(void *arg)
{
	struct fr_session *s = arg;
	int tid = (int)syscall(SYS_gettid);

	setpriority(PRIO_PROCESS, (id_t)tid, KSYMS_NICE);
	__atomic_store_n(&s->ksyms_tid, tid, __ATOMIC_RELEASE);
	ksyms_load(s);
	return NULL;
}

void fr_session__load_ksyms_async(struct fr_session *s)
{
	if (s->ksyms_tried || s->ksyms_pending)
		return;
	s->ksyms_tried = true;
	/* s->ksyms is the thread's until fr_session__load_ksyms joins it */
	if (pthread_create(&s->ksyms_th, NULL, ksyms_main, s))
		ksyms_load(s);
	else
		s->ksyms_pending = true;
}

struct fr_evlist *fr_session__evlist(const struct fr_session *s)
{
	return s->el;
}
