/* src/report/out/out_flame.c: --format=flamegraph: one flame graph (SVG) per
 * sampled event, and one of the off-CPU waits where there are some.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "src/report/fmt/fmt.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/out/output.h"

struct flame {
	struct fr_folded **per_event;   /* by event index, made at its first sample */
	size_t nr_events;
	struct fr_folded *waits;        /* the off-CPU graph's */
};

static void close_flame(void *st)
{
	struct flame *fl = st;

	if (!fl)
		return;
	for (size_t i = 0; fl->per_event && i < fl->nr_events; i++)
		fr_folded__delete(fl->per_event[i]);
	free(fl->per_event);
	fr_folded__delete(fl->waits);
	free(fl);
}

static int open_flame(struct report *rp, void **st)
{
	struct flame *fl = calloc(1, sizeof(*fl));

	if (!fl || !(fl->per_event = calloc(rp->nr_events + 1, sizeof(*fl->per_event))) ||
	    fr_folded__new(rp->o->hist.period || rp->o->off_cpu, &fl->waits)) {
		close_flame(fl);
		return -ENOMEM;
	}
	fl->nr_events = rp->nr_events;
	*st = fl;
	return 0;
}

static int add(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	struct flame *fl = st;
	size_t i = r->event->index;
	int err;

	if (i >= fl->nr_events)
		return 0;
	if (!fl->per_event[i] &&
	    (err = fr_folded__new(rp->o->hist.period || rp->latency, &fl->per_event[i])))
		return err;
	if (rs->parallelism) {   /* --latency: each sample's period / its parallelism */
		struct fr_rsample ls = *rs;

		ls.period = fr_rsample__latency(rs);
		return fr_folded__add(fl->per_event[i], &ls);
	}
	return fr_folded__add(fl->per_event[i], rs);
}

static int wait(void *st, struct report *rp, const struct fr_rsample *rs)
{
	return fr_folded__add(((struct flame *)st)->waits, rs);
}

/* A flame graph per event with samples (none: one, empty). */
static int finish(void *st, struct report *rp, const char *path)
{
	struct flame *fl = st;
	const char **names = calloc(fl->nr_events + 1, sizeof(*names));
	const char *unit = rp->o->off_cpu ? "ns" : rp->o->hist.period ? "period" : "samples";
	int err = -ENOMEM;

	for (size_t k = 0; names && k < fl->nr_events; k++) {
		const struct fr_file_event *e = fr_reader__event(rp->rd, k);

		if (e->index < fl->nr_events)
			names[e->index] = e->name;
	}
	if (names && rp->o->wakers)   /* the waits with their wakers, one graph */
		err = fr_offcpu_in__wakers_folded(rp->oc)
		      ? fr_flame__svg(fr_offcpu_in__wakers_folded(rp->oc),
				      &(struct fr_flame_opts){ .title = "Off-wake Time Flame Graph",
							       .unit = "ns", .standalone = true },
				      rp->out) : -ENOMEM;
	else if (names)
		err = fr_flame__svgs(fl->per_event, names, fl->nr_events, fl->waits,
				     &(struct fr_flame_opts){ .unit = unit, .standalone = true }, rp->out);
	free(names);
	return err;
}

const struct fr_output_ops fr_output_flame = {
	.name = "flamegraph", .fold = FR_FOLD_EACH, .offcpu_default = true, .latency = true,
	.wakers = true,
	.open = open_flame, .sample = add, .wait = wait, .finish = finish, .close = close_flame,
};
