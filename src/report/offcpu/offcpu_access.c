/* src/report/offcpu/offcpu_access.c: what is set on an fr_offcpu before its
 * pass (the sink, the selection, the names, the wakers, the threshold of
 * stacks that come apart) and what the views read after it (the waits, the
 * threads, the totals, the folded stacks).
 */
#include "config.h"

#include <string.h>

#include "src/report/offcpu/offcpu.h"
#include "src/report/offcpu/offcpu_int.h"

void fr_offcpu__set_sink(struct fr_offcpu *oc, fr_offcpu_sink sink, void *ctx)
{
	oc->sink = sink;
	oc->sink_ctx = ctx;
}

void fr_offcpu__set_wakers(struct fr_offcpu *oc, struct fr_wakers *wk)
{
	oc->wakers = wk;
}

struct fr_wakers *fr_offcpu__wakers(const struct fr_offcpu *oc)
{
	return oc->wakers;
}

void fr_offcpu__set_select(struct fr_offcpu *oc, fr_offcpu_select select, void *ctx)
{
	oc->select = select;
	oc->select_ctx = ctx;
}

void fr_offcpu__set_identify(struct fr_offcpu *oc, fr_offcpu_identify identify, void *ctx)
{
	oc->identify = identify;
	oc->identify_ctx = ctx;
}

void fr_offcpu__set_thresh(struct fr_offcpu *oc, uint64_t thresh_ns)
{
	oc->thresh = thresh_ns;
}

uint64_t fr_offcpu__thresh(const struct fr_offcpu *oc)
{
	return oc->thresh;
}

void fr_offcpu__set_unstacked(struct fr_offcpu *oc, uint32_t pid)
{
	oc->tot.unstacked_pid = pid;
}

const struct fr_wait *fr_offcpu__waits(const struct fr_offcpu *oc, size_t *n)
{
	*n = oc->nr_waits;
	return oc->waits;
}

const struct fr_wait *fr_offcpu__unknowns(const struct fr_offcpu *oc, size_t *n)
{
	*n = oc->nr_unknowns;
	return oc->unknowns;
}

void fr_offcpu__totals(const struct fr_offcpu *oc, struct fr_offcpu_totals *t)
{
	*t = oc->tot;
}

size_t fr_offcpu__nr_threads(const struct fr_offcpu *oc)
{
	return oc->shown ? oc->nr_shown : oc->nr_thr;
}

size_t fr_offcpu__nr_all_threads(const struct fr_offcpu *oc)
{
	return oc->nr_thr;
}

void fr_offcpu__thread(const struct fr_offcpu *oc, size_t i, struct fr_thread_time *tt)
{
	const struct thr *t = &oc->thr[oc->shown ? oc->shown[i] : i];

	*tt = (struct fr_thread_time){ t->pid, t->tid, t->comm, t->start, t->end, t->on,
				       { 0 }, t->delay, t->waits, t->unknown, i };
	memcpy(tt->off_ns, t->off, sizeof(tt->off_ns));
}

void fr_offcpu__window(const struct fr_offcpu *oc, uint64_t *t0, uint64_t *t1)
{
	*t0 = oc->t0;
	*t1 = oc->t1;
}

struct fr_folded *fr_offcpu__folded(struct fr_offcpu *oc)
{
	return oc->folded;
}
