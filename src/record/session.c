/* src/record/session.c: a recording session, whatever its source: created
 * over an opened evlist, the event each record belongs to and what a sample
 * notes for the files (its kernel addresses), kallsyms loaded and joined,
 * the sideband drained and the table collected, the source driven.
 */
#include "config.h"
#include "src/record/session.h"
#include "src/file/waitstack.h"

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/grow.h"
#include "ring/record.h"
#include "src/record/session_internal.h"
#include "src/util.h"

uint64_t fr_session_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct fr_idmap *build_id_map(const struct fr_evlist *el)
{
	struct fr_idmap *m = fr_idmap__new();

	for (size_t e = 0; m && e < fr_evlist__nr_events(el); e++) {
		size_t k;
		const uint64_t *ids = fr_evlist__ids(el, e, &k);

		if (fr_idmap__add(m, ids, k, e)) {
			fr_idmap__delete(m);
			return NULL;
		}
	}
	if (m)
		fr_idmap__sort(m);
	return m;
}

/* The reader threads look ids up as they read: the new map is swapped in
 * whole, the old kept to the end (a CPU is opened rarely). */
int fr_session_cpu_opened(struct fr_session *s, size_t ci, bool first_time)
{
	struct fr_idmap *m = build_id_map(s->el), **old;

	if (!m)
		return -ENOMEM;
	old = realloc(s->old_ids, (s->nr_old_ids + 1) * sizeof(*old));
	if (!old) {
		fr_idmap__delete(m);
		return -ENOMEM;
	}
	s->old_ids = old;
	s->old_ids[s->nr_old_ids++] = s->ids;
	__atomic_store_n(&s->ids, m, __ATOMIC_RELEASE);
	return s->src->ops->cpu_opened ? s->src->ops->cpu_opened(s->src, ci, first_time) : 0;
}

/* Per CPU, with the sideband in the sample rings: the COMM, MMAP2 and task
 * records a reader took out of its ring, rewritten as the sideband event's
 * (fr_record__retrail_time), in the ring's order, until the loop drains them
 * as it drains a sideband ring. The reader appends, the loop takes. */
struct fr_sbq {
	pthread_mutex_t lock;
	uint8_t *buf;
	size_t len, cap;
};

static int sbq_new(struct fr_session *s)
{
	size_t n = fr_evlist__nr_cpus(s->el);

	s->sbq = calloc(n, sizeof(*s->sbq));
	if (!s->sbq)
		return -ENOMEM;
	for (size_t ci = 0; ci < n; ci++)
		pthread_mutex_init(&s->sbq[ci].lock, NULL);
	return 0;
}

static void sbq_delete(struct fr_session *s)
{
	if (!s->sbq)
		return;
	for (size_t ci = 0; ci < fr_evlist__nr_cpus(s->el); ci++) {
		pthread_mutex_destroy(&s->sbq[ci].lock);
		free(s->sbq[ci].buf);
	}
	free(s->sbq);
	s->sbq = NULL;
}

/* A reader's sideband record into its CPU's queue: 0, or -errno (no memory,
 * a record without its trailer: it stays in the sample stream, where a
 * reader of the file takes it as sideband still). */
static int sbq_take(struct fr_session *s, size_t ci, const struct perf_event_header *h,
		    const struct fr_event *ev)
{
	struct fr_sbq *q = &s->sbq[ci];
	int n;

	if (!ev || ci >= fr_evlist__nr_cpus(s->el))
		return -EINVAL;
	pthread_mutex_lock(&q->lock);
	n = fr_grow(&q->buf, &q->cap, q->len + h->size + 8, 1, 16384);
	if (!n)
		n = fr_record__retrail_time(h, ev->attr.sample_type, q->buf + q->len,
					    q->cap - q->len);
	if (n > 0)
		q->len += (size_t)n;
	pthread_mutex_unlock(&q->lock);
	return n < 0 ? n : 0;
}

int fr_session__new(struct fr_evlist *el, const struct fr_session_opts *o,
		    struct fr_session **out)
{
	struct fr_session *s = calloc(1, sizeof(*s));
	const struct fr_source_ops *ops = o->source ? o->source : fr_source__backward();
	int err;

	if (!s) {
		fr_evlist__delete(el);
		return -ENOMEM;
	}
	s->el = el;
	s->o = *o;
	s->self_pid = o->exclude_self ? (uint32_t)getpid() : 0;
	for (size_t i = 0; i < fr_evlist__nr_events(el); i++)
		if (!strcmp(fr_evlist__event(el, i)->name, "sched:sched_switch"))
			s->switch_ev = fr_evlist__event(el, i);
	s->start_ns = fr_session_now(CLOCK_MONOTONIC);
	fr_clock__pair(&s->clock_start);
	s->gc_at = 4096;
	s->src = calloc(1, ops->size);
	s->ids = s->src ? build_id_map(el) : NULL;
	err = s->ids ? 0 : -ENOMEM;
	if (!err)
		err = fr_sideband__new(fr_evlist__nr_cpus(el),
				       fr_evlist__sideband_event(el)->attr.sample_type, o->sb_cap,
				       &s->sb);
	if (err) {
		free(s->src);
		s->src = NULL;
		fr_session__delete(s);
		return err;
	}
	s->src->ops = ops;
	s->src->s = s;
	fr_sideband__set_jit_budget(s->sb, o->jit_budget);
	err = fr_names__init(&s->names, el);
	if (!err && o->hotplug)
		err = fr_hotplug__new(s, &s->hp);
	if (!err && fr_evlist__sideband_in_samples(el))
		err = sbq_new(s);
	if (!err && fr_evlist__names_all(el))   /* they see every task: keep the target's */
		err = fr_sideband__set_target(s->sb, o->target_pids, o->nr_target_pids);
	if (err) {
		fr_session__delete(s);
		return err;
	}
	*out = s;
	return 0;
}

enum fr_sb_route fr_source__route(const struct fr_source_ops *ops, bool per_task)
{
	if (!ops->drained)
		return FR_SB_NAMES_IN_SAMPLES;
	return per_task ? FR_SB_SAMPLE_RINGS : FR_SB_RING;
}

void fr_source__rings(const struct fr_source_ops *ops, bool per_task, struct fr_evlist_opts *o)
{
	if (!o->data_pages)
		o->data_pages = ops->default_pages;
	/* overwrite rings always: a reader that falls behind (--forward,
	 * --keep) loses the oldest it had not read, never the newest */
	o->backward = true;
	o->drained = ops->drained;
	o->sb_in_samples = fr_source__route(ops, per_task) == FR_SB_SAMPLE_RINGS;
}

/* Wait for a loading thread, if one was started; loads nothing. */
static void ksyms_join(struct fr_session *s)
{
	int tid;

	if (!s->ksyms_pending)
		return;
	tid = __atomic_load_n(&s->ksyms_tid, __ATOMIC_ACQUIRE);
	if (tid > 0)   /* waited for now: back to our weight (root may) */
		setpriority(PRIO_PROCESS, (id_t)tid, getpriority(PRIO_PROCESS, 0));
	pthread_join(s->ksyms_th, NULL);
	s->ksyms_pending = false;
}

void fr_session__delete(struct fr_session *s)
{
	if (!s)
		return;
	if (s->src)
		s->src->ops->destroy(s->src);
	free(s->src);
	fr_sideband__delete(s->sb);
	fr_hotplug__delete(s->hp);
	sbq_delete(s);
	fr_idmap__delete(s->ids);
	for (size_t i = 0; i < s->nr_old_ids; i++)
		fr_idmap__delete(s->old_ids[i]);
	free(s->old_ids);
	for (size_t i = 0; i < s->nr_files; i++)
		free(s->files[i]);
	free(s->files);
	ksyms_join(s);   /* a recorder that never started loads nothing */
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
	    fr_idmap__find(__atomic_load_n(&s->ids, __ATOMIC_ACQUIRE), h, ev0->attr.sample_type,
			   &i))
		return ev0;
	return fr_evlist__event(s->el, i);
}

bool fr_session_own_record(const struct fr_session *s, const struct perf_event_header *h,
			   const struct fr_event *ev)
{
	uint32_t pid;

	return s->self_pid && h->type == PERF_RECORD_SAMPLE && ev->kind == FR_EVENT_TRACEPOINT &&
	       ev != s->switch_ev && !fr_record__pid(h, ev->attr.sample_type, &pid) &&
	       pid == s->self_pid;
}

/* The loading thread yields to the loop (nice 10) until someone waits for it. */
#define KSYMS_NICE 10

static void ksyms_load(struct fr_session *s)
{
	if (fr_kallsyms__load(NULL, NULL, &s->ksyms))
		s->ksyms = NULL;
}

void fr_session_ksyms(struct fr_session *s)
{
	ksyms_join(s);
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

static void ksyms_load_async(struct fr_session *s)
{
	if (s->ksyms_tried || s->ksyms_pending)
		return;
	s->ksyms_tried = true;
	/* s->ksyms is the thread's until ksyms_join */
	if (pthread_create(&s->ksyms_th, NULL, ksyms_main, s))
		ksyms_load(s);
	else
		s->ksyms_pending = true;
}

int fr_session__hotplug_fd(const struct fr_session *s)
{
	return fr_hotplug__fd(s->hp);
}

struct fr_evlist *fr_session__evlist(const struct fr_session *s)
{
	return s->el;
}

/* Note the kernel addresses a decoded sample holds, for the KSYMS blob. */
static void note_kernel_addrs(struct fr_session *s, const struct perf_event_header *h,
			      const struct fr_sample *smp)
{
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL && smp->ip)
		fr_kallsyms__note(s->ksyms, smp->ip);
	for (uint64_t i = 0; i < smp->nr_ips; i++) {
		uint64_t a;

		memcpy(&a, &smp->ips[i], sizeof(a));
		if (a >= (uint64_t)PERF_CONTEXT_MAX)
			continue;   /* PERF_CONTEXT_KERNEL/USER markers */
		if (a >= 0xffff800000000000ull)
			fr_kallsyms__note(s->ksyms, a);
	}
}

/* The same of an offcpu sample holding a wait's stacks (its raw data). */
static void note_wait_stack(struct fr_session *s, const struct fr_sample *smp)
{
	struct fr_wait_stack w;

	if (fr_wait_stack__parse(smp->raw, smp->raw_size, &w))
		return;
	for (uint32_t i = 0; i < w.nr_kernel; i++) {
		uint64_t a;

		memcpy(&a, &w.kernel[i], sizeof(a));
		if (a >= 0xffff800000000000ull && a < (uint64_t)PERF_CONTEXT_MAX)
			fr_kallsyms__note(s->ksyms, a);
	}
}

int fr_session_decode_sample(struct fr_session *s, const struct perf_event_header *h,
			     const struct fr_event *ev, struct fr_sample *smp)
{
	int err = fr_record__parse_sample(h, ev->attr.sample_type, ev->attr.sample_regs_user, smp);

	if (err || !s->ksyms)
		return err;
	if (ev->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN))
		note_kernel_addrs(s, h, smp);
	else if (fr_session_is_offcpu(ev))
		note_wait_stack(s, smp);
	return 0;
}

static int drain_cb(void *ctx, size_t ci, const struct perf_event_header *h)
{
	struct fr_session *s = ctx;
	uint64_t table[16], file[16];
	int err;

	if (h->type == PERF_RECORD_SAMPLE) {
		int k = fr_names__sample(&s->names, h,
					 fr_evlist__sideband_event(s->el)->attr.sample_type, table,
					 file, sizeof(table));

		if (k <= 0)
			return 0;
		if (k == 2)   /* an exit's name: the table's alone */
			return fr_sideband__pend_name(s->sb, (const void *)table);
		/* where the tracepoints see every task, the table decides in
		 * time order, after the forks, and the file gets the COMM only
		 * of a process the table knows now (else the file has the name
		 * from the table, PROCS); without a target, every one */
		err = fr_sideband__pend_name(s->sb, (const void *)table);
		if (err || !fr_sideband__name_in_target(s->sb, (const void *)file))
			return err;
		h = (const void *)file;
		fr_sideband__named(s->sb, h);
	} else {
		err = fr_sideband__pend(s->sb, h);
	}
	if (err)
		return err;
	if (s->src->ops->sideband)
		return s->src->ops->sideband(s->src, ci, h);
	return fr_sideband__store(s->sb, ci, h);
}

/* Many exited processes: drop those no window can show any more (the
 * source knows the oldest time its windows hold without copying them). */
static void maybe_gc(struct fr_session *s)
{
	if (fr_sideband__nr_exited(s->sb) < s->gc_at)
		return;
	fr_sideband__gc(s->sb, s->src->ops->oldest_time(s->src));
	s->gc_at = fr_sideband__nr_exited(s->sb) * 2 + 4096;
}

/* Records older than this before a drain began were in their rings when
 * it read them (a writer publishes within microseconds of its timestamp). */
#define FEED_SLACK_NS 1000000ull

/* The queues' records through drain_cb, CPU by CPU in their rings' order
 * (the rings read first: what the kernel wrote before the drain began is in
 * them). A ring that could not be read now is its reader's to say (its
 * error stops it and reaches the source's stop), not the loop's. */
static int drain_queues(struct fr_session *s)
{
	int err = 0;

	if (s->src->ops->read)
		(void)s->src->ops->read(s->src);

	for (size_t ci = 0; ci < fr_evlist__nr_cpus(s->el); ci++) {
		struct fr_sbq *q = &s->sbq[ci];
		uint8_t *buf;
		size_t len;

		pthread_mutex_lock(&q->lock);
		buf = q->buf;
		len = q->len;
		q->buf = NULL;
		q->len = q->cap = 0;
		pthread_mutex_unlock(&q->lock);
		for (size_t off = 0; off < len;) {
			const struct perf_event_header *h = (const void *)(buf + off);
			int e = drain_cb(s, ci, h);

			err = err ? err : e;
			off += h->size;   /* sized by fr_record__retrail_time: >= 16 */
		}
		free(buf);
	}
	return err;
}

/* Not at a snapshot's drain: the file's stream may reach back further than
 * the source's oldest time now (the file's write collects the table). */
int fr_session__drain(struct fr_session *s)
{
	uint64_t start = fr_session_now(CLOCK_MONOTONIC);
	int err = fr_evlist__drain_sideband(s->el, drain_cb, s);

	/* a corrupt ring was skipped to its head (flagged): not a failure */
	if (err == -EBADMSG)
		err = 0;
	if (!err && s->sbq)
		err = drain_queues(s);
	/* once the events are disabled nothing older can come: feed it all */
	fr_sideband__feed(s->sb, s->stopped ? UINT64_MAX : start - FEED_SLACK_NS);
	return err;
}

int fr_session__tick(struct fr_session *s, const char **due, int *wait_ms)
{
	int err = fr_session__drain(s);

	*due = NULL;
	*wait_ms = -1;
	if (err)
		return err;
	maybe_gc(s);
	fr_hotplug__check(s->hp, fr_session_now(CLOCK_MONOTONIC), s->stopped);
	fr_sideband__perfmaps_tick(s->sb, fr_session_now(CLOCK_MONOTONIC));
	err = s->src->ops->tick ? s->src->ops->tick(s->src, due, wait_ms) : 0;
	/* no sideband ring wakes the loop: the queues are drained this often */
	if (s->sbq && (*wait_ms < 0 || *wait_ms > s->o.flush_ms))
		*wait_ms = s->o.flush_ms;
	return err;
}

int fr_session__stop(struct fr_session *s)
{
	int err;

	fr_evlist__flush_writer(s->el);   /* what BPF held back, before the events stop */
	err = fr_evlist__disable(s->el);

	s->stopped = true;
	return err;
}

void fr_session__prepare(struct fr_session *s)
{
	if (s->src->ops->ksyms_first)
		fr_session_ksyms(s);
}

int fr_session__start(struct fr_session *s, char *path, size_t len)
{
	int err;

	path[0] = '\0';
	ksyms_load_async(s);
	err = s->src->ops->start ? s->src->ops->start(s->src, path, len) : 0;
	s->src->ops->say_start(s->src, path, err);
	return err;
}

int fr_session__snapshot(struct fr_session *s, const struct fr_trigger *tr, char *path,
			 size_t len, struct fr_snapshot_stats *st)
{
	int ret;

	memset(st, 0, sizeof(*st));
	path[0] = '\0';
	if (!s->stopped)
		fr_evlist__flush_writer(s->el);   /* what BPF held back, into the rings */
	ret = s->src->ops->snapshot(s->src, tr, path, len, st);
	if (ret >= 0 && path[0] && st->lost > s->files_lost)
		s->files_lost = st->lost;
	return ret;
}

int fr_session__say_snapshot(struct fr_session *s, const struct fr_trigger *tr, const char *path,
			     int err, const struct fr_snapshot_stats *st)
{
	if ((err = s->src->ops->say(tr, path, err, st)) || st->switched)
		return err;
	if (st->pids_lost) {
		fr_err(path, "%llu process(es) left out of its PROCS blob: %s",
		       (unsigned long long)st->pids_lost, strerror(ENOMEM));
		return 1;
	}
	if (st->copy.skipped) {
		fr_err(path, "%zu CPU(s) left out (first: CPU %d): their rings could be neither "
		       "copied pinned nor paused: %s", st->copy.skipped, st->copy.skipped_cpus[0].cpu,
		       strerror(st->copy.skip_err ? -st->copy.skip_err : EPERM));
		return 1;
	}
	return 0;
}

int fr_session__end(struct fr_session *s, const struct fr_trigger *tr, bool final, char *path,
		    size_t len)
{
	struct fr_snapshot_stats st;
	int err;

	memset(&st, 0, sizeof(st));
	path[0] = '\0';
	err = s->src->ops->stop(s->src, tr, final, path, len, &st);
	return s->src->ops->say_end(s->src, tr, path, err, &st);
}

int fr_session_final_snapshot(struct fr_source *src, const struct fr_trigger *tr, bool final,
			      char *path, size_t len, struct fr_snapshot_stats *st)
{
	return final ? fr_session__snapshot(src->s, tr, path, len, st) : 0;
}

int fr_session_say_final(struct fr_source *src, const struct fr_trigger *tr, const char *path,
			 int err, const struct fr_snapshot_stats *st)
{
	struct fr_session *s = src->s;

	if (err || path[0])
		err = fr_session__say_snapshot(s, tr, path, err, st);
	/* as forward's: a file that counts losses makes the exit 1, said */
	if (s->files_lost) {
		fr_err("record", "snapshot files written count records lost while recording (up "
		       "to %llu in one; rings overflowed or the recorder was held off): each "
		       "says so when read", (unsigned long long)s->files_lost);
		if (!err)
			err = 1;
	}
	return err;
}

uint64_t fr_session__bytes(const struct fr_session *s)
{
	return s->src->ops->bytes ? s->src->ops->bytes(s->src) : 0;
}

/* An offcpu sample (h, decoded in smp) holding a batch of switches,
 * rewritten in scratch with the batch packed (16 bytes a switch to ~9: the
 * readers' copies and zstd take time by the byte, doc/design-notes.md), or h
 * where it does not shrink or is not one. */
static const struct perf_event_header *pack_batch(const struct perf_event_header *h,
						  const struct fr_sample *smp, uint8_t *scratch)
{
	size_t raw_off, tail, len, size;

	if (fr_offcpu__kind(smp->raw, smp->raw_size) != FR_OFFCPU_BATCH)
		return h;
	raw_off = (size_t)((const uint8_t *)smp->raw - (const uint8_t *)h);
	tail = h->size - raw_off - smp->raw_size;
	if (raw_off + smp->raw_size + tail > FR_RECORD_SCRATCH ||
	    fr_offcpu_batch__pack(smp->raw, smp->raw_size, scratch + raw_off,
				  FR_RECORD_SCRATCH - raw_off - tail - 8, &len))
		return h;
	size = ((len + 4 + 7) & ~(size_t)7) - 4;   /* u32 size + data: whole u64s, as perf's */
	if (size >= smp->raw_size)
		return h;
	memcpy(scratch, h, raw_off - 4);
	memset(scratch + raw_off + len, 0, size - len);
	memcpy(scratch + raw_off + size, (const uint8_t *)smp->raw + smp->raw_size, tail);
	fr_put32(scratch + raw_off - 4, (uint32_t)size);
	((struct perf_event_header *)(void *)scratch)->size = (uint16_t)(raw_off + size + tail);
	return (const struct perf_event_header *)(void *)scratch;
}

/* The readers' per-record hook (reader threads): the record's time, and its
 * kernel addresses noted for the KSYMS blob; an offcpu batch packed into
 * scratch; 1 when it is left out (the recorder's own) or taken into the
 * CPU's sideband queue. A sample is decoded once, for both. */
static int reader_record(void *ctx, size_t ci, const struct perf_event_header **hp,
			 uint64_t *time, void *scratch)
{
	struct fr_session *s = ctx;
	const struct perf_event_header *h = *hp;
	const struct fr_event *ev = fr_evlist__event(s->el, 0);
	struct fr_sample smp;
	bool decoded = false;
	size_t i;

	/* an id not in the map: an event opened for a CPU back online whose
	 * record came before the map was remade (fr_session_cpu_opened), to be
	 * parsed by no guess (another event's layout gives a wrong time) */
	if (fr_evlist__nr_events(s->el) > 1) {
		if (fr_idmap__find(__atomic_load_n(&s->ids, __ATOMIC_ACQUIRE), h,
				   ev->attr.sample_type, &i)) {
			*time = 0;
			return 0;
		}
		ev = fr_evlist__event(s->el, i);
	}
	if (fr_session_own_record(s, h, ev))
		return 1;
	if (s->sbq && fr_record__is_process(h->type) && !sbq_take(s, ci, h, ev))
		return 1;
	if (h->type == PERF_RECORD_SAMPLE && fr_session_notes_kernel(s, ev))
		decoded = !fr_session_decode_sample(s, h, ev, &smp);
	if (fr_record__time(h, ev->attr.sample_type, time))
		*time = 0;
	if (h->type == PERF_RECORD_SAMPLE && fr_session_is_offcpu(ev) &&
	    (decoded || !fr_record__parse_sample(h, ev->attr.sample_type,
						 ev->attr.sample_regs_user, &smp)))
		*hp = pack_batch(h, &smp, scratch);
	return 0;
}

int fr_session_start_readers(struct fr_session *s, const struct fr_reader_sink *sink,
			     struct fr_forward **out)
{
	struct fr_forward_opts fo = { .flush_ms = s->o.flush_ms, .reader_cpus = s->o.reader_cpus,
				      .nr_reader_cpus = s->o.nr_reader_cpus, .sink = *sink,
				      .unpinned = s->o.readers_unpinned, .own = s->o.readers_own };

	return fr_forward__start(s->el, &fo, reader_record, s, out);
}
