/* src/report/out/out_folded.c: --folded: the samples of one event, and the
 * off-CPU waits, as folded stacks (one line per stack: frames root first,
 * then its weight: samples, periods, or with off-CPU time microseconds;
 * --latency: each sample's period / its parallelism; --wakers: each wait
 * with its waker's stack, as bcc offwaketime prints them).
 */
#include "config.h"

#include <errno.h>

#include "src/report/fmt/fmt.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/out/output.h"

static int open_folded(struct report *rp, void **st)
{
	struct fr_folded *fo;
	int err = fr_folded__new(rp->o->hist.period || rp->o->off_cpu, &fo);

	if (!err)
		*st = fo;
	return err;
}

static int add(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	if (rs->parallelism) {   /* --latency: each sample's period / its parallelism */
		struct fr_rsample ls = *rs;

		ls.period = fr_rsample__latency(rs);
		return fr_folded__add(st, &ls);
	}
	return fr_folded__add(st, rs);
}

static int wait(void *st, struct report *rp, const struct fr_rsample *rs)
{
	return fr_folded__add(st, rs);
}

/* with off-CPU time: on-CPU periods and waits in ns, printed in us;
 * --wakers: the waits joined to their wakers instead (offwaketime's lines) */
static int finish(void *st, struct report *rp, const char *path)
{
	struct fr_folded *fo = rp->o->wakers ? fr_offcpu_in__wakers_folded(rp->oc) : st;

	return fo ? fr_folded__print_scaled(fo, rp->o->off_cpu ? 1000 : 1, rp->out) : -ENOMEM;
}

static void close_folded(void *st)
{
	fr_folded__delete(st);
}

const struct fr_output_ops fr_output_folded = {
	.name = "folded", .fold = FR_FOLD_ONE, .escaped = true, .offcpu_default = true,
	.latency = true, .wakers = true,
	.open = open_folded, .sample = add, .wait = wait, .finish = finish, .close = close_folded,
};
