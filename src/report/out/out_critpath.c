/* src/report/out/out_critpath.c: --critical-path TID (--format=critical-path):
 * the samples kept as what each thread ran when, the waits kept with their
 * wakers' stacks, and TID's critical path printed from them (critpath.c).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/report/offcpu/offcpu.h"
#include "src/report/out/output.h"

#define MIN_PCT 0.1   /* segments shorter than this share of the path: summed, not listed */

static int open_cp(struct report *rp, void **st)
{
	struct fr_critpath *cp;
	struct fr_wakers *wk = rp->oc ? fr_offcpu__wakers(fr_offcpu_in__offcpu(rp->oc)) : NULL;
	int err;

	if (!wk)
		return -ENOTSUP;   /* run.c said why before the output opened */
	if ((err = fr_critpath__new(&cp)))
		return err;
	fr_wakers__keep_joins(wk);
	*st = cp;
	return 0;
}

static int sample(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	(void)rp, (void)r;
	return fr_critpath__sample(st, rs);
}

static int finish(void *st, struct report *rp, const char *path)
{
	double min = rp->o->hist.percent_limit > 0 ? rp->o->hist.percent_limit : MIN_PCT;
	(void)path;
	if (!rp->oc)
		return -ENOTSUP;
	/* -ESRCH: the thread was not seen (run.c says so) */
	return fr_critpath__print(st, fr_offcpu_in__offcpu(rp->oc), rp->o->crit_tid, rp->t0, rp->t1,
				  min, rp->out);
}

static void close_cp(void *st)
{
	fr_critpath__delete(st);
}

const struct fr_output_ops fr_output_critpath = {
	.name = "critical-path", .fold = FR_FOLD_EACH, .escaped = true, .offcpu_default = true,
	.wait_intervals = true, .finish_empty = true, .wakers = true,
	.open = open_cp, .sample = sample, .finish = finish, .close = close_cp,
};
