/* src/report/out/out_html.c: --format=html: one page: the CPUs' timeline of
 * every selected event, the flame graph of the first sampled one, and with
 * off-CPU time the threads' states and the waits' stacks.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "src/report/fmt/fmt.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/out/output.h"

struct page {
	struct fr_timeline *tl;
	struct fr_folded *fo;   /* the flame graph's: the drawn event's samples and the waits */
};

static void close_page(void *st)
{
	struct page *p = st;

	if (!p)
		return;
	fr_timeline__delete(p->tl);
	fr_folded__delete(p->fo);
	free(p);
}

static int open_page(struct report *rp, void **st)
{
	struct page *p = calloc(1, sizeof(*p));
	struct fr_cpu_gap g[FR_CPU_GAPS_MAX];
	struct fr_wakers *wk;
	uint32_t nr_cpus = 0;
	size_t ng;
	bool bad;
	int err;

	if (!p)
		return -ENOMEM;
	/* each wait's waker and its stack, for the titles of the threads' rows */
	if (rp->oc && (wk = fr_offcpu__wakers(fr_offcpu_in__offcpu(rp->oc))))
		fr_wakers__keep_joins(wk);
	for (size_t i = 0; i < fr_reader__nr_cpu_stats(rp->rd); i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rp->rd, i);

		if (cs->cpu + 1 > nr_cpus)
			nr_cpus = cs->cpu + 1;
	}
	/* with off-CPU time, samples weigh their period (ns), as the waits do */
	if ((err = fr_timeline__new(rp->t0, rp->t1, nr_cpus, rp->o->hist.period || rp->o->off_cpu,
				    &p->tl)) ||
	    (err = fr_folded__new(rp->o->hist.period || rp->o->off_cpu, &p->fo))) {
		close_page(p);
		return err;
	}
	/* the CPUs' times offline (hotplug) */
	ng = fr_input__cpu_gaps(rp->rd, g, FR_CPU_GAPS_MAX, &bad);
	for (size_t i = 0; i < ng; i++)
		fr_timeline__offline(p->tl, g[i].cpu, g[i].from, g[i].to);
	*st = p;
	return 0;
}

static int add(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	struct page *p = st;
	const struct fr_file_event *e = r->event;
	int err = fr_timeline__add(p->tl, rs, r->time, e->attr.type == PERF_TYPE_TRACEPOINT,
				   e == rp->fold_ev);

	return err || e != rp->fold_ev ? err : fr_folded__add(p->fo, rs);
}

/* a wait: in the flame graph, and in the range's redraw */
static int wait(void *st, struct report *rp, const struct fr_rsample *rs)
{
	struct page *p = st;
	int err = fr_folded__add(p->fo, rs);

	return err ? err : fr_timeline__wait(p->tl, rs);
}

static void lost(void *st, uint32_t cpu, uint64_t time, uint64_t n)
{
	fr_timeline__lost(((struct page *)st)->tl, cpu, time, n);
}

static int finish(void *st, struct report *rp, const char *path)
{
	struct page *p = st;
	char title[300];
	struct fr_html_info in = { path, title,
				   rp->o->off_cpu ? "ns" : rp->o->hist.period ? "period" : "samples",
				   rp->samples, false, 0, 0, 0, NULL, NULL };

	/* with off-CPU time the graph is wall clock: the samples and the waits */
	snprintf(title, sizeof(title), "%s%s", rp->fold_ev ? rp->fold_ev->name : "",
		 rp->oc ? (rp->fold_ev ? " and off-CPU waits (wall clock, ns)" : "off-CPU waits (ns)")
		 : "");

	in.has_trigger = fr_input__trigger_time(rp->rd, &in.trigger_ns);
	if (rp->oc) {   /* off-CPU: each thread's states */
		in.more = fr_offcpu_in__html;
		in.more_ctx = rp->oc;
	}
	return fr_html__write(rp->out, &in, p->tl, p->fo);
}

const struct fr_output_ops fr_output_html = {
	.name = "html", .fold = FR_FOLD_SAMPLED_FIRST, .offcpu_default = true, .wait_intervals = true,
	.open = open_page, .sample = add, .wait = wait, .lost = lost, .finish = finish,
	.close = close_page,
};
