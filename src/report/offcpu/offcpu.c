/* src/report/offcpu/offcpu.c: the waits of one window, from context switches in
 * time order: each thread's switch-out (state, stack) to its switch-in, the
 * wakeup between (scheduler delay), cut at the window's edges, and each
 * thread's on-CPU + off-CPU time; off-CPU stacks into a folded set in ns;
 * which threads the views show (a selection by pid, tid and name).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/offcpu/offcpu_int.h"

/* The outermost frame of an off-CPU stack names its state, so that off-CPU
 * stacks stand apart from on-CPU ones under each thread. */
static const struct fr_sym state_sym[FR_WAIT_NR] = {
	[FR_WAIT_S] = { "[off-cpu: sleeping (S)]", "[off-cpu]", "[off-cpu]", true, false, false, 0 },
	[FR_WAIT_D] = { "[off-cpu: blocked, uninterruptible (D)]", "[off-cpu]", "[off-cpu]", true,
			false, false, 0 },
	[FR_WAIT_R] = { "[off-cpu: preempted, runnable (R)]", "[off-cpu]", "[off-cpu]", true,
			false, false, 0 },
};
/* The leaf of a wait whose switch-out was not seen. */
static const struct fr_sym before_sym = { "[began before the window: stack not recorded]",
					  "[off-cpu]", "[off-cpu]", true, false, false, 0 };
static const struct fr_sym newborn_sym = { "[new thread: runnable until its first run]",
					   "[off-cpu]", "[off-cpu]", true, false, false, 0 };
static const struct fr_sym nostack_sym = { "[stack not recorded]", "[off-cpu]", "[off-cpu]",
					   true, false, false, 0 };
static const struct fr_sym unstacked_sym = { "[the recorder's own: stack not taken]", "[off-cpu]",
					     "[off-cpu]", true, false, false, 0 };
/* record --off-cpu-thresh: a wait's stack is taken as it ends (at its
 * switch-in, which the kernel does not always show) */
static const struct fr_sym noin_sym = { "[switch-in not recorded: stack not taken]", "[off-cpu]",
					"[off-cpu]", true, false, false, 0 };
static const struct fr_sym waiting_sym = { "[still waiting at the window's end: stack not taken yet]",
					   "[off-cpu]", "[off-cpu]", true, false, false, 0 };

int fr_offcpu__frame_state(const struct fr_sym *outer)
{
	for (int i = 0; i < FR_WAIT_NR; i++)
		if (outer == &state_sym[i])
			return i;
	return -1;
}

int fr_offcpu__new(uint64_t t0, uint64_t t1, bool keep, struct fr_offcpu **out)
{
	struct fr_offcpu *oc = calloc(1, sizeof(*oc));
	int err;

	if (!oc)
		return -ENOMEM;
	oc->t0 = t0;
	oc->t1 = t1 < t0 ? t0 : t1;
	oc->keep = keep;
	if ((err = fr_folded__new(true, &oc->folded))) {
		free(oc);
		return err;
	}
	*out = oc;
	return 0;
}

void fr_offcpu__delete(struct fr_offcpu *oc)
{
	if (!oc)
		return;
	for (size_t i = 0; i < oc->nr_thr; i++) {
		free(oc->thr[i].frames);
		free(oc->thr[i].early);
	}
	free(oc->thr);
	free(oc->shown);
	free(oc->waits);
	free(oc->unknowns);
	free(oc->scratch);
	fr_hmap__exit(&oc->index);
	fr_folded__delete(oc->folded);
	free(oc);
}

/* The thread's process and name where its switches did not say them. */
static void identify(struct fr_offcpu *oc, struct thr *t, uint64_t time)
{
	uint32_t pid = 0;
	const char *comm = NULL;

	if (!oc->identify || (t->pid && t->comm))
		return;
	oc->identify(oc->identify_ctx, t->tid, time, &pid, &comm);
	if (!t->pid)
		t->pid = pid;
	if (!t->comm)
		t->comm = comm;
}

/* The name a thread had at its end, from the process model (its COMMs),
 * where the model knows one: a thread renamed after its last switch-out
 * (or never switched out: a CPU burner) kept the name it had before. */
static void last_name(struct fr_offcpu *oc, struct thr *t)
{
	uint32_t pid = 0;
	const char *comm = NULL;

	if (!oc->identify)
		return;
	oc->identify(oc->identify_ctx, t->tid, t->end, &pid, &comm);
	if (comm && comm[0] != ':')
		t->comm = comm;
}

/* The thread is selected at time: asked again only when what is known of it
 * changed, or is not known. */
static bool selected(struct fr_offcpu *oc, struct thr *t, uint64_t time)
{
	if (!oc->select)
		return true;
	identify(oc, t, time);
	if (!t->sel_known || t->sel_pid != t->pid || t->sel_comm != t->comm || !t->pid ||
	    !t->comm) {
		t->sel = oc->select(oc->select_ctx, t->pid, t->tid, t->comm);
		t->sel_pid = t->pid;
		t->sel_comm = t->comm;
		t->sel_known = true;
		t->ever_sel |= t->sel;
	}
	return t->sel;
}

static struct thr *find(const struct fr_offcpu *oc, uint32_t tid)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&oc->index, fr_hash__u64(tid), &it, &i); ok;
	     ok = fr_hmap__next(&oc->index, &it, &i))
		if (oc->thr[i].tid == tid)
			return &oc->thr[i];
	return NULL;
}

/* A new entry for tid, from start on (the newest one of tid from now). */
static struct thr *add_thread(struct fr_offcpu *oc, uint32_t pid, uint32_t tid, uint64_t start)
{
	struct thr *old = find(oc, tid), *t;
	uint64_t h = fr_hash__u64(tid);
	uint32_t idx = (uint32_t)oc->nr_thr;
	size_t old_i = old ? (size_t)(old - oc->thr) : 0;

	if (oc->nr_thr >= UINT32_MAX ||
	    fr_grow(&oc->thr, &oc->cap_thr, oc->nr_thr + 1, sizeof(*oc->thr), 64))
		return NULL;
	if (old ? fr_hmap__replace(&oc->index, h, (uint32_t)old_i, idx)
		: fr_hmap__add(&oc->index, h, idx))
		return NULL;
	t = &oc->thr[oc->nr_thr++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->start = t->since = start;
	t->st = T_FRESH;
	return t;
}

static struct thr *get_thread(struct fr_offcpu *oc, uint32_t tid)
{
	struct thr *t = find(oc, tid);

	return t ? t : add_thread(oc, 0, tid, oc->t0);
}

static void open_wait(struct thr *t, uint64_t start, enum fr_wait_state st, bool cut,
		      const struct fr_sym *leaf)
{
	t->st = T_OFF;
	t->w = (struct fr_wait){ .pid = t->pid, .tid = t->tid, .start = start, .state = st,
				 .cut_start = cut };
	t->leaf = leaf;
	t->nr_frames = 0;
}

/* A wait's stack (leaf, or frames leaf first) with its state frame
 * outermost, weighing ns, into the folded sets. */
static int fold(struct fr_offcpu *oc, struct thr *t, const struct fr_wait *w,
		const struct fr_sym *leaf, const struct fr_frame *frames, size_t nr, uint64_t ns)
{
	/* room for the state frame within what outputs take */
	size_t n = leaf ? 1 : nr < FR_MAX_FRAMES ? nr : FR_MAX_FRAMES - 1;
	struct fr_rsample rs = { .pid = t->pid, .tid = t->tid, .time = w->start, .period = ns,
				 .has_stack = true };
	int err;

	if (fr_grow(&oc->scratch, &oc->cap_scratch, n + 1, sizeof(*oc->scratch), 64))
		return -ENOMEM;
	if (leaf)
		oc->scratch[0] = (struct fr_frame){ .sym = leaf };
	else
		memcpy(oc->scratch, frames, n * sizeof(*oc->scratch));
	oc->scratch[n] = (struct fr_frame){ .sym = &state_sym[w->state] };
	rs.frames = oc->scratch;
	rs.nr_frames = n + 1;
	rs.comm = t->comm ? t->comm : "[unknown]";
	err = fr_folded__add(oc->folded, &rs);
	if (!err && oc->wakers)
		err = fr_wakers__wait(oc->wakers, &rs, w->wake, w->state == FR_WAIT_R);
	if (!err && oc->sink)
		err = oc->sink(oc->sink_ctx, &rs);
	return err;
}

/* A wait's stack and the wait it belongs to have the same length, from
 * the same two stamps (the program measured it; allow for rounding). */
static bool same_wait(uint64_t ns, uint64_t off_ns)
{
	return ns > off_ns ? ns - off_ns <= 1000 : off_ns - ns <= 1000;
}

/* t's closed wait, done, gets the stack sampled at thresh_ns (or none);
 * span: off_ns is the span it was sampled by, not the wait. */
static int take_stack(struct fr_offcpu *oc, struct thr *t, uint64_t off_ns, uint64_t thresh_ns,
		      bool span, const struct fr_frame *frames, size_t nr)
{
	struct fr_wait *w = &t->done;
	uint64_t ns = w->end - w->start, weight = ns;

	t->done_open = false;
	if (!t->done_sel)
		return 0;
	/* kept with probability min(1, off_ns / thresh_ns) (a short wait's
	 * thresh_ns: the scale its CPU sampled at then): its part of the window
	 * weighs ns / that (Horvitz-Thompson), unbiased per stack */
	if (off_ns < thresh_ns) {
		weight = off_ns ? (uint64_t)((double)ns * (double)thresh_ns / (double)off_ns)
				: thresh_ns;
		if (!oc->tot.short_scale_min || thresh_ns < oc->tot.short_scale_min)
			oc->tot.short_scale_min = thresh_ns;
		if (thresh_ns > oc->tot.short_scale_max)
			oc->tot.short_scale_max = thresh_ns;
	}
	/* a short wait in a long span (a long run before it) was kept for sure */
	if (span ? ns < oc->thresh : off_ns < thresh_ns) {
		oc->tot.short_waits++;
		oc->tot.short_ns += ns;
		oc->tot.short_sampled++;
		oc->tot.short_weight_ns += weight;
	} else {
		oc->tot.long_stacks++;
	}
	return fold(oc, t, w, nr ? NULL : &nostack_sym, frames, nr, weight);
}

/* The last closed wait of t that no offcpu-stack sample came for: a long
 * one's stack was lost (its time goes under "[stack not recorded]"); a
 * short one was not sampled (its time is the sampled ones' to stand for). */
static int settle(struct fr_offcpu *oc, struct thr *t)
{
	struct fr_wait *w = &t->done;
	uint64_t ns = w->end - w->start;
	bool mine;

	if (!t->done_open)
		return 0;
	t->done_open = false;
	if (ns < oc->thresh) {
		if (t->done_sel) {
			oc->tot.short_waits++;
			oc->tot.short_ns += ns;
		}
		return 0;
	}
	if (!t->done_sel)
		return 0;
	mine = oc->tot.unstacked_pid && t->pid == oc->tot.unstacked_pid;
	/* a stack is taken at the switch-in: none where that was not seen */
	if (!w->cut_end)
		*(mine ? &oc->tot.long_unstacked : w->cut_start ? &oc->tot.long_before :
		  w->no_switch_in ? &oc->tot.long_no_in : &oc->tot.long_lost) += 1;
	return fold(oc, t, w, w->cut_end ? &waiting_sym : mine ? &unstacked_sym :
		    w->cut_start ? &before_sym : w->no_switch_in ? &noin_sym : &nostack_sym,
		    NULL, 0, ns);
}

/* The thread's own sums take every wait; the totals and the stacks only
 * those of a selected thread. The waits kept (timelines) are all of them. */
static int close_wait(struct fr_offcpu *oc, struct thr *t, uint64_t end)
{
	struct fr_wait *w = &t->w;
	bool sel;
	uint64_t ns, d = 0;

	w->end = end < w->start ? w->start : end;
	ns = w->end - w->start;
	identify(oc, t, w->end);
	sel = selected(oc, t, w->end);
	t->off[w->state] += ns;
	if (w->state == FR_WAIT_R || (w->wake && w->wake <= w->end))
		d = w->state == FR_WAIT_R ? ns : w->end - w->wake;
	t->delay += d;
	t->waits++;
	if (sel) {
		oc->tot.off_ns[w->state] += ns;
		oc->tot.delay_ns += d;
		oc->tot.waits++;
		oc->tot.cut_start += w->cut_start;
		oc->tot.cut_end += w->cut_end;
		oc->tot.no_switch_in += w->no_switch_in;
	}
	t->st = T_RUN;
	t->since = w->end;
	t->last = *w;
	t->last_open = true;
	t->last_sel = sel;
	t->last_idx = SIZE_MAX;
	if (oc->keep) {
		if (fr_grow(&oc->waits, &oc->cap_waits, oc->nr_waits + 1, sizeof(*oc->waits), 64))
			return -ENOMEM;
		t->last_idx = oc->nr_waits;
		oc->waits[oc->nr_waits++] = *w;
	}
	if (oc->thresh && (t->leaf == &nostack_sym || t->leaf == &before_sym) &&
	    w->state != FR_WAIT_R) {
		/* its stack comes apart, after its switch-in (or never) */
		int err = settle(oc, t);

		t->done = *w;
		t->done_open = true;
		t->done_sel = sel;
		if (!err && t->early_off &&
		    (t->early_in ? same_wait(w->end, t->early_in) : same_wait(ns, t->early_off)))
			err = take_stack(oc, t, t->early_off, t->early_thresh, t->early_in != 0,
					 t->early, t->nr_early);
		t->early_off = 0;
		return err;
	}
	return sel ? fold(oc, t, w, t->leaf, t->frames, t->nr_frames, ns) : 0;
}

static void run_until(struct fr_offcpu *oc, struct thr *t, uint64_t time)
{
	uint64_t ns = time > t->since ? time - t->since : 0;

	t->on += ns;
	if (ns && selected(oc, t, time))
		oc->tot.on_ns += ns;
	t->since = time;
}

/* t's time from its last switch-in to time is not known: a switch-out was
 * not recorded (the recorder's own records left out, a record lost), so it
 * is neither on- nor off-CPU, and said so (never "running"). */
static int unknown_until(struct fr_offcpu *oc, struct thr *t, uint64_t time)
{
	uint64_t ns = time > t->since ? time - t->since : 0;

	t->unknown += ns;
	if (ns && selected(oc, t, time))
		oc->tot.unknown_ns += ns;
	if (ns && oc->keep) {
		if (fr_grow(&oc->unknowns, &oc->cap_unknowns, oc->nr_unknowns + 1,
			    sizeof(*oc->unknowns), 16))
			return -ENOMEM;
		oc->unknowns[oc->nr_unknowns++] = (struct fr_wait){ .pid = t->pid, .tid = t->tid,
								    .start = t->since, .end = time };
	}
	t->since = time;
	return 0;
}

static bool outside(const struct fr_offcpu *oc, uint64_t time)
{
	return oc->finished || time < oc->t0 || time > oc->t1;
}

int fr_offcpu__switch_out(struct fr_offcpu *oc, uint32_t pid, uint32_t tid, uint64_t time,
			  enum fr_wait_state st, const struct fr_rsample *s)
{
	struct thr *t;
	int err = 0;

	if (outside(oc, time))
		return 0;
	if (!(t = get_thread(oc, tid)))
		return -ENOMEM;
	if (t->st == T_DEAD)
		return 0;
	if (pid)
		t->pid = pid;
	if (s && s->comm)
		t->comm = s->comm;
	t->outs++;
	if (t->st == T_OFF) {
		/* out twice: the switch-in between was not recorded; the wait
		 * ends at its wakeup if one was seen, else here */
		t->w.no_switch_in = true;
		err = close_wait(oc, t, t->w.wake ? t->w.wake : time);
	}
	run_until(oc, t, time);
	open_wait(t, time, st, false, s && s->nr_frames ? NULL : &nostack_sym);
	if (!err && s && s->nr_frames) {
		if (fr_grow(&t->frames, &t->cap_frames, s->nr_frames, sizeof(*t->frames), 16))
			return -ENOMEM;
		memcpy(t->frames, s->frames, s->nr_frames * sizeof(*t->frames));
		t->nr_frames = s->nr_frames;
	}
	return err;
}

int fr_offcpu__task_dead(struct fr_offcpu *oc, uint32_t tid, uint64_t time)
{
	struct thr *t;
	int err = 0;

	if (!oc->finished && time < oc->t0 && (t = find(oc, tid)) && t->st == T_FRESH) {
		t->st = T_DEAD;   /* exited before the window: nothing in it */
		t->end = t->start;
		return 0;
	}
	if (outside(oc, time))
		return 0;
	if (!(t = get_thread(oc, tid)))
		return -ENOMEM;
	if (t->st == T_DEAD)
		return 0;
	if (t->st == T_OFF)
		err = close_wait(oc, t, time);
	if (!err)
		err = settle(oc, t);
	run_until(oc, t, time);
	t->st = T_DEAD;
	t->end = time;
	return err;
}

static int switch_in(struct fr_offcpu *oc, struct thr *t, uint64_t time, bool by_next)
{
	if (t->st == T_FRESH)   /* off-CPU since before the window */
		open_wait(t, t->start, FR_WAIT_S, true, &before_sym);
	if (t->st == T_RUN) {
		if (t->in_told && !by_next) {   /* the same switch-in, told by its own record */
			t->in_told = false;
			return 0;
		}
		/* in again: its switch-out was not recorded */
		t->doubled |= time > t->since;
		return unknown_until(oc, t, time);
	}
	if (t->st != T_OFF)
		return 0;
	t->in_told = by_next;
	return close_wait(oc, t, time);
}

int fr_offcpu__switch_in(struct fr_offcpu *oc, uint32_t tid, uint64_t time)
{
	struct thr *t;

	if (outside(oc, time))
		return 0;
	if (!(t = get_thread(oc, tid)))
		return -ENOMEM;
	return switch_in(oc, t, time, false);
}

int fr_offcpu__switch_in_known(struct fr_offcpu *oc, uint32_t tid, uint64_t time)
{
	struct thr *t = outside(oc, time) ? NULL : find(oc, tid);

	return t ? switch_in(oc, t, time, true) : 0;
}

int fr_offcpu__ran(struct fr_offcpu *oc, uint32_t tid, uint64_t time)
{
	struct thr *t = outside(oc, time) ? NULL : find(oc, tid);

	if (!t || t->st != T_OFF || time <= t->w.start)
		return 0;
	/* it ran during its wait: its switch-in was not recorded; the wait
	 * ends at its wakeup if one was seen, else here */
	t->w.no_switch_in = true;
	return close_wait(oc, t, t->w.wake && t->w.wake < time ? t->w.wake : time);
}

int fr_offcpu__wait_stack(struct fr_offcpu *oc, uint32_t tid, uint64_t off_ns,
			  uint64_t thresh_ns, uint64_t in_ns, const struct fr_rsample *s)
{
	size_t nr = s ? s->nr_frames : 0;
	struct thr *t;
	bool done;

	if (oc->finished || !oc->thresh || !(t = find(oc, tid)))
		return 0;
	/* the closed wait it is for: the one that ended at its switch-in, or
	 * (files before in_ns) the one of its length */
	done = t->done_open && (in_ns ? same_wait(t->done.end, in_ns)
				      : same_wait(t->done.end - t->done.start, off_ns));
	/* its wait still open, and no closed one of its length: the switch-in
	 * that ends it comes later in time order (a switch's stamp, from the
	 * scheduler's clock, can run tens of us late): kept for that close */
	if (t->st == T_OFF && off_ns && !done) {
		if (nr) {
			if (fr_grow(&t->early, &t->cap_early, nr, sizeof(*t->early), 16))
				return -ENOMEM;
			memcpy(t->early, s->frames, nr * sizeof(*t->early));
		}
		t->nr_early = nr;
		t->early_off = off_ns;
		t->early_thresh = thresh_ns;
		t->early_in = in_ns;
		return 0;
	}
	if (!t->done_open || (in_ns && !done))
		return 0;   /* with in_ns: a preemption's, or a wait's the window cut */
	return take_stack(oc, t, off_ns, thresh_ns, in_ns != 0, s ? s->frames : NULL, nr);
}

int fr_offcpu__run_delay(struct fr_offcpu *oc, uint32_t tid, uint64_t delay_ns)
{
	struct thr *t;
	uint64_t len;

	if (oc->finished || !delay_ns || !(t = find(oc, tid)) || !t->last_open ||
	    t->last.state == FR_WAIT_R || t->last.wake)
		return 0;   /* a preemption's delay is its length, counted at its close */
	t->last_open = false;
	len = t->last.end - t->last.start;
	if (delay_ns > len)
		delay_ns = len;   /* a delay begun before the window: its part in it */
	t->delay += delay_ns;
	if (t->last_sel)
		oc->tot.delay_ns += delay_ns;
	if (t->last_idx != SIZE_MAX)
		oc->waits[t->last_idx].wake = oc->waits[t->last_idx].end - delay_ns;
	return 0;
}

int fr_offcpu__wakeup(struct fr_offcpu *oc, uint32_t tid, uint64_t time)
{
	return fr_offcpu__woken_by(oc, tid, time, 0, 0);
}

int fr_offcpu__woken_by(struct fr_offcpu *oc, uint32_t tid, uint64_t time, uint32_t wpid,
			uint32_t wtid)
{
	struct thr *t;

	/* only threads seen switching: a per-task recording also sees the
	 * wakeups its threads do of others */
	if (outside(oc, time) || !(t = find(oc, tid)))
		return 0;
	if (t->st == T_FRESH)
		open_wait(t, t->start, FR_WAIT_S, true, &before_sym);
	if (t->st == T_OFF && !t->w.wake && t->w.state != FR_WAIT_R) {
		t->w.wake = time;
		t->w.waker_pid = wpid;
		t->w.waker_tid = wtid;
	}
	return 0;
}

int fr_offcpu__fork(struct fr_offcpu *oc, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct thr *t;

	if (oc->finished || time > oc->t1)
		return 0;
	t = find(oc, tid);
	if (time < oc->t0) {   /* born before the window: as if first seen in it */
		if (!t && !(t = add_thread(oc, pid, tid, oc->t0)))
			return -ENOMEM;
		return 0;
	}
	if (t && t->st != T_DEAD && t->st != T_FRESH)
		return 0;   /* the thread is known alive: a stray FORK */
	if (!(t = t && t->st == T_FRESH ? t : add_thread(oc, pid, tid, time)))
		return -ENOMEM;
	t->pid = pid;
	t->start = t->since = time;
	/* runnable from its fork to its first switch-in */
	open_wait(t, time, FR_WAIT_R, false, &newborn_sym);
	return 0;
}

int fr_offcpu__finish(struct fr_offcpu *oc)
{
	int err = 0;

	for (size_t i = 0; i < oc->nr_thr && !err; i++) {
		struct thr *t = &oc->thr[i];

		if (t->st == T_DEAD)
			continue;
		if (t->st == T_OFF) {
			t->w.cut_end = true;
			err = close_wait(oc, t, oc->t1);
		}
		if (!err)
			err = settle(oc, t);
		/* no switch seen at all, or switched in again and again with no
		 * switch-out: not known to be running */
		if (!err && (t->st == T_FRESH || (t->doubled && !t->outs)))
			err = unknown_until(oc, t, oc->t1);
		else
			run_until(oc, t, oc->t1);
		if (t->st == T_FRESH)
			t->st = T_RUN;
		t->end = oc->t1;
	}
	/* the views show a thread selected at any time of the window */
	if (!err && !(oc->shown = calloc(oc->nr_thr + 1, sizeof(*oc->shown))))
		err = -ENOMEM;
	for (size_t i = 0; i < oc->nr_thr && !err; i++) {
		struct thr *t = &oc->thr[i];

		identify(oc, t, t->end);
		last_name(oc, t);
		selected(oc, t, t->end);   /* as it was at its end, too */
		if (t->end == t->start && !t->waits)
			continue;   /* nothing in the window (exited before it) */
		if (!oc->select || t->ever_sel)
			oc->shown[oc->nr_shown++] = (uint32_t)i;
	}
	oc->finished = true;
	return err;
}
