/* src/report/offcpu/offcpu_in.c: a report's records to the waits of offcpu.c:
 * which events carry context switches, their tracepoint fields (through
 * tpdecode's public API), the switch-out stacks (the resolver), the offcpu
 * event's records put back in time order, the window, the threads --pid,
 * --tid and --comm select.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/offcpu/offcpu.h"
#include "src/report/pass/order.h"
#include "src/report/tp/tpdecode.h"
#include "src/file/waitstack.h"
#include "src/util.h"

/* The offcpu event's switches reach the report in batches, each on its
 * CPU's stream at the time it was written, up to about two ticks (20 ms)
 * after its first switch: what offcpu.c is told is held this long and
 * handed on in the order it happened. */
#define ORDER_NS 100000000ull

enum item_kind { IT_SWITCH, IT_STACK, IT_FORK, IT_DEAD, IT_WAKEUP };

/* A wait's stacks, resolved when read (the process model as of then). */
struct held_stack {
	uint32_t tid;
	uint64_t off_ns, thresh_ns, in_ns;
	struct fr_rsample rs;
	struct fr_frame frames[];
};

struct item {
	uint8_t kind;
	union {
		struct fr_offcpu_switch sw;          /* IT_SWITCH */
		struct held_stack *stk;              /* IT_STACK */
		struct { uint32_t pid, tid; } task;  /* IT_FORK, IT_DEAD, IT_WAKEUP */
	} u;
};

struct offcpu_in {
	struct fr_offcpu *oc;
	struct fr_resolver *res;
	struct fr_tpdecode *tp;
	const struct fr_file_event *sw_ev, *wake_ev;
	const struct fr_file_event *stk_ev;   /* offcpu (record --off-cpu-thresh): the switches
					       * and the stacks of waits, from BPF */
	struct fr_file_event stk_chain;       /* the same, as an event with a callchain */
	uint64_t chain[2 + 2 * FR_WAIT_FRAMES];
	uint64_t stk_bad;                     /* offcpu samples that did not parse */
	bool switch_recs;       /* some event has context_switch: a per-task recording */
	struct fr_order *q;     /* with stk_ev: what offcpu.c is told, held to be in order */
	struct fr_par *par;     /* the latency view's parallelism, or NULL: not tracked */
	struct fr_wakers *wk;   /* sched_waking with stacks: each wait's waker, or NULL */
	int (*sink)(void *ctx, const struct fr_rsample *s);   /* the report's output, or NULL */
	void *sink_ctx;
	const struct fr_report_opts *o;   /* --pid, --tid, --comm */
};

static int sink(void *ctx, const struct fr_rsample *s)
{
	struct offcpu_in *in = ctx;

	return in->sink(in->sink_ctx, s);
}

/* A thread first seen switching in, from the process model. */
static void identify_cb(void *ctx, uint32_t tid, uint64_t time, uint32_t *pid, const char **comm)
{
	struct offcpu_in *in = ctx;

	*pid = fr_resolver__pid(in->res, tid);
	*comm = fr_resolver__comm(in->res, tid, time);
}

static bool select_cb(void *ctx, uint32_t pid, uint32_t tid, const char *comm)
{
	return fr_report_opts__selects(((struct offcpu_in *)ctx)->o, pid, tid, comm);
}

struct tpfields {
	uint64_t prev_pid, prev_state, next_pid, pid;
	bool has_prev_state, has_next_pid, has_pid;
};

static int field_cb(void *ctx, const char *field, const char *text, bool is_signed,
		    unsigned long long v, long long sv)
{
	struct tpfields *f = ctx;

	(void)is_signed;
	(void)sv;
	if (text)
		return 0;
	if (!strcmp(field, "prev_pid"))
		f->prev_pid = v;
	else if (!strcmp(field, "prev_state"))
		f->prev_state = v, f->has_prev_state = true;
	else if (!strcmp(field, "next_pid"))
		f->next_pid = v, f->has_next_pid = true;
	else if (!strcmp(field, "pid"))
		f->pid = v, f->has_pid = true;
	return 0;
}

/* The latest first record time of a CPU whose ring wrapped: before it, that
 * CPU's switches are gone, so waits there could not be told apart. */
static uint64_t complete_from(struct fr_reader *rd, uint64_t t0)
{
	for (size_t i = 0; i < fr_reader__nr_cpu_stats(rd); i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rd, i);

		if ((cs->flags & FR_CPU_FULL) && cs->first_time > t0)
			t0 = cs->first_time;
	}
	return t0;
}

static bool switch_event(const struct fr_file_event *e)
{
	return !(e->flags & FR_EVENT_SIDEBAND) &&
	       ((e->attr.type == PERF_TYPE_TRACEPOINT && !strcmp(e->name, "sched:sched_switch")) ||
		fr_offcpu_in__stack_event(e));
}

bool fr_offcpu_in__in_file(struct fr_reader *rd)
{
	for (size_t k = 0; k < fr_reader__nr_events(rd); k++) {
		const struct fr_file_event *e = fr_reader__event(rd, k);

		if (switch_event(e) || e->attr.context_switch)
			return true;
	}
	return false;
}

int fr_offcpu_in__new(struct fr_reader *rd, struct fr_resolver *res, struct fr_tpdecode *tp,
		      uint64_t t0, uint64_t t1,
		      int (*sink_fn)(void *ctx, const struct fr_rsample *s), void *sink_ctx,
		      bool keep, struct offcpu_in **out)
{
	struct offcpu_in *in = calloc(1, sizeof(*in));
	int err;

	if (!in)
		return -ENOMEM;
	in->res = res;
	in->tp = tp;
	in->sink = sink_fn;
	in->sink_ctx = sink_ctx;
	for (size_t k = 0; k < fr_reader__nr_events(rd); k++) {
		const struct fr_file_event *e = fr_reader__event(rd, k);

		if (e->flags & FR_EVENT_SIDEBAND)
			continue;
		if (e->attr.type == PERF_TYPE_TRACEPOINT && !strcmp(e->name, "sched:sched_switch"))
			in->sw_ev = e;
		else if (e->attr.type == PERF_TYPE_TRACEPOINT &&
			 ((!in->wake_ev && !strcmp(e->name, "sched:sched_wakeup")) ||
			  !strcmp(e->name, "sched:sched_waking")))
			in->wake_ev = e;   /* sched_waking first: the waker's context */
		else if (fr_offcpu_in__stack_event(e))
			in->stk_ev = e;
		if (e->attr.context_switch)
			in->switch_recs = true;
	}
	if ((err = fr_offcpu__new(complete_from(rd, t0), t1, keep, &in->oc))) {
		free(in);
		return err;
	}
	if (in->stk_ev && (err = fr_order__new(sizeof(struct item), ORDER_NS, &in->q))) {
		fr_offcpu__delete(in->oc);
		free(in);
		return err;
	}
	if (in->stk_ev) {
		const char *v = fr_reader__meta(rd, "offcpu_thresh_ns");
		uint64_t thresh, pid;

		in->stk_chain = *in->stk_ev;
		in->stk_chain.attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (v && !fr_parse__u64(v, 1, UINT64_MAX, &thresh))
			fr_offcpu__set_thresh(in->oc, thresh);
		/* the programs take no stacks of the recorder's own threads */
		v = fr_reader__meta(rd, "recorder_pid");
		if (v && !fr_parse__u64(v, 1, INT32_MAX, &pid))
			fr_offcpu__set_unstacked(in->oc, (uint32_t)pid);
	}
	if (sink_fn)
		fr_offcpu__set_sink(in->oc, sink, in);
	fr_offcpu__set_identify(in->oc, identify_cb, in);
	/* the waker's stack: sched_waking's (it fires in the waker), with -g */
	if (in->sw_ev && !in->stk_ev && in->wake_ev && !strcmp(in->wake_ev->name, "sched:sched_waking") &&
	    (in->wake_ev->attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER))) {
		if ((err = fr_wakers__new(&in->wk))) {
			fr_offcpu_in__delete(in);
			return err;
		}
		fr_offcpu__set_wakers(in->oc, in->wk);
	}
	*out = in;
	return 0;
}

void fr_offcpu_in__select(struct offcpu_in *in, const struct fr_report_opts *o)
{
	in->o = o;
	if (o->nr_pids || o->nr_tids || o->nr_comms)
		fr_offcpu__set_select(in->oc, select_cb, in);
}

int fr_offcpu_in__summary(struct offcpu_in *in, FILE *f)
{
	return fr_offcpu__summary(in->oc, 3, f);
}

size_t fr_offcpu_in__nr_threads(const struct offcpu_in *in)
{
	return fr_offcpu__nr_threads(in->oc);
}

static void free_item(void *p)
{
	struct item *it = p;

	if (it->kind == IT_STACK)
		free(it->u.stk);
}

void fr_offcpu_in__delete(struct offcpu_in *in)
{
	if (!in)
		return;
	fr_par__delete(in->par);
	fr_order__delete(in->q, free_item);
	fr_offcpu__delete(in->oc);
	fr_wakers__delete(in->wk);
	free(in);
}

bool fr_offcpu_in__stack_event(const struct fr_file_event *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_BPF_OUTPUT &&
	       !strcmp(e->name, FR_OFFCPU_EVENT);
}

bool fr_offcpu_in__usable(const struct offcpu_in *in)
{
	return in->sw_ev || in->switch_recs || in->stk_ev;
}

bool fr_offcpu_in__event(const struct offcpu_in *in, const struct fr_file_event *e)
{
	return e && (e == in->sw_ev || e == in->wake_ev || e == in->stk_ev);
}

const char *fr_offcpu_in__no_wakers(struct fr_reader *rd)
{
	bool sw = false, waking = false, stack = false;

	for (size_t k = 0; k < fr_reader__nr_events(rd); k++) {
		const struct fr_file_event *e = fr_reader__event(rd, k);

		if (e->attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		sw |= !strcmp(e->name, "sched:sched_switch");
		if (!strcmp(e->name, "sched:sched_waking")) {
			waking = true;
			stack = e->attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER);
		}
	}
	return !sw || !waking ? "the file has no sched:sched_switch and sched:sched_waking "
				"(record --off-cpu -g records them)"
	       : !stack ? "the file's wakeups have no stacks (record --off-cpu with -g or "
			  "--call-graph dwarf)" : NULL;
}

struct fr_folded *fr_offcpu_in__wakers_folded(struct offcpu_in *in)
{
	return in && in->wk ? fr_wakers__folded(in->wk) : NULL;
}

const char *fr_offcpu_in__no_latency(struct fr_reader *rd)
{
	bool bpf = false;

	for (size_t k = 0; k < fr_reader__nr_events(rd); k++) {
		const struct fr_file_event *e = fr_reader__event(rd, k);

		if (e->attr.context_switch || (switch_event(e) && !fr_offcpu_in__stack_event(e)))
			return NULL;
		bpf |= switch_event(e);
	}
	return bpf ? "the file's context switches come from the BPF offcpu event (record "
		     "--off-cpu-thresh), read after the samples they would weigh: record with "
		     "--off-cpu (or -e sched:sched_switch -a)"
		   : "the file has no context switches (record with --off-cpu, or -e "
		     "sched:sched_switch -a)";
}

static uint32_t pid_of(void *ctx, uint32_t tid)
{
	return fr_resolver__pid(((struct offcpu_in *)ctx)->res, tid);
}

int fr_offcpu_in__track_parallelism(struct offcpu_in *in)
{
	return in->par ? 0 : fr_par__new(pid_of, in, &in->par);
}

unsigned fr_offcpu_in__parallelism(const struct offcpu_in *in, uint32_t pid, uint32_t tid)
{
	return in->par ? fr_par__of(in->par, pid, tid) : 0;
}

/* What the parallelism is told (tracked or not): tid on the CPU of r's
 * stream (tid 0: none of ours there), off its CPU, born or dead (pid: its
 * process, 0 when the record does not say). */
static int par_on(struct offcpu_in *in, const struct fr_rec *r, uint32_t pid, uint32_t tid,
		  bool known)
{
	return in->par ? fr_par__on(in->par, r->cpu, pid, tid, known) : 0;
}

static int par_off(struct offcpu_in *in, uint32_t pid, uint32_t tid)
{
	return in->par ? fr_par__off(in->par, pid, tid) : 0;
}

static int par_born(struct offcpu_in *in, uint32_t pid, uint32_t tid)
{
	return in->par ? fr_par__born(in->par, pid, tid) : 0;
}

static void par_dead(struct offcpu_in *in, uint32_t tid)
{
	if (in->par)
		fr_par__dead(in->par, tid);
}

/* A switch-in on r's CPU (known: of a thread seen before only; pid: 0 when
 * not told). */
static int switch_in(struct offcpu_in *in, const struct fr_rec *r, uint32_t pid, uint32_t tid,
		     uint64_t time, bool known)
{
	int err = par_on(in, r, pid, tid, known);

	if (err)
		return err;
	return known ? fr_offcpu__switch_in_known(in->oc, tid, time)
		     : fr_offcpu__switch_in(in->oc, tid, time);
}

static int switch_sample(struct offcpu_in *in, const struct fr_rec *r, const struct fr_sample *s,
			 const struct tpfields *f)
{
	enum fr_wait_state st;
	struct fr_rsample rs;
	int err = 0;

	if (!f->has_prev_state || !fr_wait_state__of(f->prev_state, &st)) {
		/* a dead task's last switch: the sample's tid is -1 by then
		 * (unhashed), prev_pid still names it */
		uint32_t dead = f->prev_pid && f->prev_pid <= UINT32_MAX ? (uint32_t)f->prev_pid
									 : s->tid;

		if (f->has_prev_state) {
			par_dead(in, dead);
			err = fr_offcpu__task_dead(in->oc, dead, r->time);
		}
	} else {
		err = fr_resolver__sample(in->res, r, s, true, &rs);
		if (!err && s->tid)   /* the idle task (0) waits for nothing */
			err = par_off(in, s->pid, s->tid);
		if (!err && s->tid)
			err = fr_offcpu__switch_out(in->oc, s->pid, s->tid, r->time, st, &rs);
	}
	/* the next task's switch-in. Per task, next_pid may be a task not
	 * recorded: only threads seen before; the others' own PERF_RECORD_SWITCH
	 * says it, later by the switch itself and the recording of this sample
	 * (~10 us with a call chain), so the tracepoint's time is taken where
	 * there is one, as bpftrace's offcputime measures */
	if (!err && f->has_next_pid && f->next_pid && f->next_pid <= UINT32_MAX)
		err = switch_in(in, r, 0, (uint32_t)f->next_pid, r->time, in->switch_recs);
	else if (!err && f->has_next_pid && !f->next_pid)
		err = par_on(in, r, 0, 0, false);   /* the idle task: none of ours on this CPU */
	return err;
}

/* An offcpu switch: prev went out (or died), next came in; delay_ns is
 * next's runnable time before it came in (delay_in), or, in files before
 * that, prev's before the run that ends here. */
static int bpf_switch(struct offcpu_in *in, uint64_t time, const struct fr_offcpu_switch *sw)
{
	static const enum fr_wait_state st[] = { FR_WAIT_R, FR_WAIT_S, FR_WAIT_D };
	struct fr_rsample rs = { 0 };
	int err = 0;

	/* prev's scheduler delay before the run that ends here: of its last wait */
	if (sw->prev_tid && sw->delay_ns && !sw->delay_in &&
	    (err = fr_offcpu__run_delay(in->oc, sw->prev_tid, sw->delay_ns)))
		return err;
	if (sw->prev_tid && sw->state == FR_SWITCH_DEAD) {
		err = fr_offcpu__task_dead(in->oc, sw->prev_tid, time);
	} else if (sw->prev_tid) {
		/* the name it has now (renames: the process model's COMMs) */
		if (!(rs.comm = fr_resolver__comm(in->res, sw->prev_tid, time)))
			return -ENOMEM;
		err = fr_offcpu__switch_out(in->oc, sw->prev_pid, sw->prev_tid, time, st[sw->state],
					    &rs);
	}
	if (err || !sw->next_tid)
		return err;
	if ((err = fr_offcpu__switch_in(in->oc, sw->next_tid, time)))
		return err;
	/* next's scheduler delay: of the wait that ends here */
	return sw->delay_in && sw->delay_ns ? fr_offcpu__run_delay(in->oc, sw->next_tid, sw->delay_ns)
					    : 0;
}

static int hand_on(struct offcpu_in *in, uint64_t time, struct item *it)
{
	struct held_stack *h;
	int err = 0;

	switch (it->kind) {
	case IT_SWITCH:
		return bpf_switch(in, time, &it->u.sw);
	case IT_STACK:
		h = it->u.stk;
		err = fr_offcpu__wait_stack(in->oc, h->tid, h->off_ns, h->thresh_ns, h->in_ns, &h->rs);
		free(h);
		return err;
	case IT_FORK:
		return fr_offcpu__fork(in->oc, it->u.task.pid, it->u.task.tid, time);
	case IT_DEAD:
		return fr_offcpu__task_dead(in->oc, it->u.task.tid, time);
	default:
		return fr_offcpu__wakeup(in->oc, it->u.task.tid, time);
	}
}

/* Hand on what is due (everything at the end), in the order it happened. */
static int release(struct offcpu_in *in, bool all)
{
	struct item it;
	uint64_t time;
	int err = 0;

	while (!err && fr_order__pop(in->q, all, &time, &it) == 1)
		err = hand_on(in, time, &it);
	return err;
}

/* Hold it, which happened at time (taking a stack's ownership), read in a
 * record of read_time; hand on what that makes due. */
static int hold(struct offcpu_in *in, uint64_t time, struct item *it, uint64_t read_time)
{
	if (fr_order__push(in->q, time, read_time, it)) {
		free_item(it);
		return -ENOMEM;
	}
	return release(in, false);
}

/* A batch's switches, or a single one (files before batches). */
static int bpf_switches(struct offcpu_in *in, const struct fr_rec *r, const struct fr_sample *s)
{
	struct fr_offcpu_batch b;
	struct item it = { .kind = IT_SWITCH };
	uint64_t time;
	int err = 0;

	if (fr_offcpu__kind(s->raw, s->raw_size) == FR_OFFCPU_SWITCH) {
		if (fr_offcpu_switch__parse(s->raw, s->raw_size, &it.u.sw)) {
			in->stk_bad++;
			return 0;
		}
		return hold(in, r->time, &it, r->time);
	}
	if (fr_offcpu_batch__parse(s->raw, s->raw_size, &b)) {
		in->stk_bad++;
		return 0;
	}
	while (!err && !fr_offcpu_batch__next(&b, &it.u.sw, &time))
		err = hold(in, time, &it, r->time);
	return err;
}

/* An offcpu wait's stacks: kernel and user, as one callchain the resolver
 * reads as perf's, to the wait it ended. */
static int wait_stack(struct offcpu_in *in, const struct fr_rec *r, const struct fr_sample *s)
{
	struct fr_wait_stack w;
	struct fr_rec cr = *r;
	struct fr_sample cs = { 0 };
	struct fr_rsample rs;
	struct item it = { .kind = IT_STACK };
	size_t n = 0;
	int err;

	if (fr_wait_stack__parse(s->raw, s->raw_size, &w)) {
		in->stk_bad++;
		return 0;
	}
	if (w.nr_kernel) {
		in->chain[n++] = PERF_CONTEXT_KERNEL;
		memcpy(in->chain + n, w.kernel, w.nr_kernel * sizeof(*in->chain));
		n += w.nr_kernel;
	}
	if (w.nr_user) {
		in->chain[n++] = PERF_CONTEXT_USER;
		memcpy(in->chain + n, w.user, w.nr_user * sizeof(*in->chain));
		n += w.nr_user;
	}
	cs.pid = w.pid;
	cs.tid = w.tid;
	cs.time = r->time;
	cs.has_tid = cs.has_time = true;
	cs.ips = in->chain;
	cs.nr_ips = n;
	cr.event = &in->stk_chain;
	if ((err = fr_resolver__sample(in->res, &cr, &cs, true, &rs)))
		return err;
	if (!(it.u.stk = malloc(sizeof(*it.u.stk) + rs.nr_frames * sizeof(rs.frames[0]))))
		return -ENOMEM;
	it.u.stk->tid = w.tid;
	it.u.stk->off_ns = w.off_ns;
	it.u.stk->thresh_ns = w.thresh_ns;
	it.u.stk->in_ns = w.in_ns;
	it.u.stk->rs = rs;
	it.u.stk->rs.raw = NULL;
	it.u.stk->rs.raw_size = 0;
	if (rs.nr_frames)
		memcpy(it.u.stk->frames, rs.frames, rs.nr_frames * sizeof(rs.frames[0]));
	it.u.stk->rs.frames = it.u.stk->frames;
	return hold(in, r->time, &it, r->time);
}

/* A wakeup of tid; with wakers, its stack is the waker's (sched_waking). */
static int waking(struct offcpu_in *in, const struct fr_rec *r, const struct fr_sample *s,
		  uint32_t tid)
{
	struct fr_rsample rs;
	int err = in->wk && r->event == in->wake_ev && s->has_tid
		  ? fr_offcpu__woken_by(in->oc, tid, r->time, s->pid, s->tid)
		  : fr_offcpu__wakeup(in->oc, tid, r->time);

	if (err || !in->wk || r->event != in->wake_ev)
		return err;
	if ((err = fr_resolver__sample(in->res, r, s, true, &rs)))
		return err;
	return fr_wakers__wakeup(in->wk, tid, r->time, &rs);
}

static int take_sample(struct offcpu_in *in, const struct fr_rec *r)
{
	const struct fr_file_event *e = r->event;
	struct tpfields f = { 0 };
	struct fr_sample s;

	if (!r->sample || !r->sample->raw || !r->sample->has_time)
		return 0;   /* a record shorter than its fields: the reader counted it */
	s = *r->sample;
	if (e == in->stk_ev) {
		enum fr_offcpu_kind k = fr_offcpu__kind(s.raw, s.raw_size);

		return k == FR_OFFCPU_STACK || k == FR_OFFCPU_STACK_IN ? wait_stack(in, r, &s)
									: bpf_switches(in, r, &s);
	}
	fr_tpdecode__check(in->tp, e->name, s.raw, s.raw_size);   /* one outside it is counted */
	if (fr_tpdecode__each(in->tp, e->name, s.raw, s.raw_size, field_cb, &f))
		return 0;   /* fields outside the record: nothing to trust */
	if (e == in->sw_ev)
		return switch_sample(in, r, &s, &f);
	if (!f.has_pid || !f.pid || f.pid > UINT32_MAX)
		return 0;
	if (in->stk_ev)
		return hold(in, r->time, &(struct item){ .kind = IT_WAKEUP,
							 .u.task.tid = (uint32_t)f.pid }, r->time);
	return waking(in, r, &s, (uint32_t)f.pid);
}

static int take_record(struct offcpu_in *in, const struct fr_rec *r)
{
	const struct fr_file_event *e = r->event;
	struct fr_task t;
	struct fr_sample s;

	switch (r->h->type) {
	case PERF_RECORD_FORK:
		if (fr_record__task(r->h, &t))
			return 0;
		if (in->stk_ev)
			return hold(in, r->time ? r->time : t.time,
				    &(struct item){ .kind = IT_FORK, .u.task = { t.pid, t.tid } },
				    r->time);
		if (par_born(in, t.pid, t.tid))   /* born runnable */
			return -ENOMEM;
		return fr_offcpu__fork(in->oc, t.pid, t.tid, r->time ? r->time : t.time);
	case PERF_RECORD_EXIT:
		if (fr_record__task(r->h, &t) || !(r->time ? r->time : t.time))
			return 0;
		if (in->stk_ev)
			return hold(in, r->time ? r->time : t.time,
				    &(struct item){ .kind = IT_DEAD, .u.task = { t.pid, t.tid } },
				    r->time);
		/* with sched_switch system-wide, the task's last switch-out
		 * (its state dead) ends it: EXIT is written as do_exit begins,
		 * and the task still runs (and is sampled) until that switch.
		 * Per task its events go at EXIT: that switch is not recorded */
		if (in->sw_ev && !in->switch_recs)
			return 0;
		/* (then it still runs to its last switch, which is not
		 * recorded: another thread's switch to it is that, not a run) */
		par_dead(in, t.tid);
		return fr_offcpu__task_dead(in->oc, t.tid, r->time ? r->time : t.time);
	case PERF_RECORD_SWITCH:
		if (!e || fr_record__parse_id(r->h, e->attr.sample_type, &s) || !s.has_tid ||
		    !s.has_time || !s.tid)
			return 0;
		if (!(r->h->misc & PERF_RECORD_MISC_SWITCH_OUT))
			return switch_in(in, r, s.pid, s.tid, s.time, false);
		if (par_off(in, s.pid, s.tid))   /* (its sched_switch sample too, if any) */
			return -ENOMEM;
		if (in->sw_ev)   /* its sched_switch sample, with the stack, said it */
			return 0;
		return fr_offcpu__switch_out(in->oc, s.pid, s.tid, s.time,
					     (r->h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
					     ? FR_WAIT_R : FR_WAIT_S, NULL);
	default:
		return 0;
	}
}

int fr_offcpu_in__take(struct offcpu_in *in, const struct fr_rec *r)
{
	int err = take_record(in, r);

	if (err || r->h->type != PERF_RECORD_SAMPLE)
		return err;
	if (fr_offcpu_in__event(in, r->event))
		return (err = take_sample(in, r)) ? err : 1;
	/* any other sample: its thread ran then on the CPU of its stream (a
	 * wait still open lost its switch-in; one running since before the
	 * window, never switched, is on a CPU for the parallelism; the idle
	 * task: none of ours on that CPU) */
	if (!r->sample || in->stk_ev)
		return 0;
	if ((err = par_on(in, r, r->sample->pid, r->sample->tid, false)) || !r->sample->tid)
		return err;
	return fr_offcpu__ran(in->oc, r->sample->tid, r->time);
}

int fr_offcpu_in__finish(struct offcpu_in *in)
{
	int err = in->q ? release(in, true) : 0;

	return err ? err : fr_offcpu__finish(in->oc);
}

struct fr_offcpu *fr_offcpu_in__offcpu(struct offcpu_in *in)
{
	return in->oc;
}

int fr_offcpu_in__json(struct offcpu_in *in, struct fr_json *j)
{
	return fr_offcpu__json(in->oc, j);
}

int fr_offcpu_in__html(void *ctx, FILE *f, const struct fr_html_info *hi)
{
	struct offcpu_in *in = ctx;

	return fr_offcpu__html(in->oc, f, hi);
}

int fr_offcpu_in__print(struct offcpu_in *in, double percent_limit, FILE *f)
{
	char source[160];
	int err;

	snprintf(source, sizeof(source), "%s", in->sw_ev ? "sched:sched_switch" :
		 in->stk_ev ? "the offcpu event (BPF, record --off-cpu-thresh)" :
		 "context switch records");
	err = fr_offcpu__print(in->oc, source, percent_limit, f);
	if (!err && in->stk_bad)
		fprintf(f, "# offcpu samples not used (their raw data does not parse): %llu\n",
			(unsigned long long)in->stk_bad);
	if (!err && in->q && fr_order__late(in->q))
		fprintf(f, "# offcpu records read more than %llu ms after later ones (taken in the "
			"order read): %llu\n", ORDER_NS / 1000000,
			(unsigned long long)fr_order__late(in->q));
	return err;
}
