/* src/report/out/out_json.c: --format=json: a Chrome trace (json.c) of the
 * selected samples and, with off-CPU time asked for, each thread's running,
 * runnable, sleeping and blocked slices.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "src/report/fmt/fmt.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/out/output.h"

struct trace {
	struct fr_json *j;   /* NULL once finished (finish frees it) */
};

static int open_trace(struct report *rp, void **st)
{
	struct trace *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	if ((err = fr_json__new(rp->out, rp->tp, &t->j))) {
		free(t);
		return err;
	}
	/* with off-CPU time its stage gives every state slice, running
	 * included: one source, none overlapping */
	if (rp->oc)
		fr_json__no_running(t->j);
	*st = t;
	return 0;
}

static int add(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	return fr_json__sample(((struct trace *)st)->j, rs);
}

/* a wait (rs->time: its start): the thread's frames end at its switch-out */
static int wait(void *st, struct report *rp, const struct fr_rsample *rs)
{
	fr_json__switched_out(((struct trace *)st)->j, rs->tid, rs->time);
	return 0;
}

static int finish(void *st, struct report *rp, const char *path)
{
	struct trace *t = st;
	int err = rp->oc ? fr_offcpu_in__json(rp->oc, t->j) : 0;
	int e2 = fr_json__finish(t->j, path);

	t->j = NULL;
	return err ? err : e2;
}

static void close_trace(void *st)
{
	struct trace *t = st;

	if (!t)
		return;
	fr_json__delete(t->j);
	free(t);
}

const struct fr_output_ops fr_output_json = {
	.name = "json", .fold = FR_FOLD_EACH, .offcpu_default = true, .wait_intervals = true,
	.finish_empty = true,
	.open = open_trace, .sample = add, .wait = wait, .finish = finish, .close = close_trace,
};
