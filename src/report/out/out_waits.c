/* src/report/out/out_waits.c: --format=waits: every off-CPU wait of the
 * selected threads, one line each in the order they ended (as perf sched
 * timehist lists them): begin, end, length, state, thread, stack leaf first.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/fmt/fmt.h"
#include "src/report/offcpu/offcpu.h"
#include "src/report/out/output.h"

struct waits {
	uint64_t n;
};

static int open_waits(struct report *rp, void **st)
{
	struct waits *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	fputs("# waits: each thread's switch-out to its switch-in, in the order they ended "
	      "(times: the event clock, s)\n"
	      "#            begin               end     wait ms  st      pid      tid  comm"
	      "              stack, leaf first\n", rp->out);
	*st = w;
	return 0;
}

static int sample(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	(void)st, (void)rp, (void)r, (void)rs;
	return 0;   /* the samples are another view's */
}

/* rs: the wait (time: its start, period: its ns, frames leaf first, its
 * state the outermost frame) */
static int wait(void *st, struct report *rp, const struct fr_rsample *rs)
{
	size_t n = rs->nr_frames;
	int state = n ? fr_offcpu__frame_state(rs->frames[n - 1].sym) : -1;

	((struct waits *)st)->n++;
	fputs("  ", rp->out);
	fr_walltime__put_mono(rp->out, rs->time);
	fputs("  ", rp->out);
	fr_walltime__put_mono(rp->out, rs->time + rs->period);
	fprintf(rp->out, " %11.3f  %c  %7u  %7u  ", (double)rs->period / 1e6,
		state >= 0 ? fr_wait_state__char((enum fr_wait_state)state) : '?', rs->pid, rs->tid);
	fr_put_name(rp->out, rs->comm ? rs->comm : "");
	fprintf(rp->out, "%*s", rs->comm && strlen(rs->comm) < 16 ? (int)(18 - strlen(rs->comm)) : 2,
		"");
	if (state >= 0)
		n--;   /* the state frame is the column */
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(" <- ", rp->out);
		fr_put_name(rp->out, rs->frames[i].sym->name);
	}
	fputc('\n', rp->out);
	return 0;
}

static int finish(void *st, struct report *rp, const char *path)
{
	(void)path;
	if (!rp->oc)
		fputs("# no waits: the file records no context switches (record --off-cpu), or "
		      "--no-off-cpu\n", rp->out);
	else
		fprintf(rp->out, "# %llu waits\n", (unsigned long long)((struct waits *)st)->n);
	return 0;
}

static void close_waits(void *st)
{
	free(st);
}

const struct fr_output_ops fr_output_waits = {
	.name = "waits", .fold = FR_FOLD_EACH, .escaped = true, .offcpu_default = true,
	.finish_empty = true,
	.open = open_waits, .sample = sample, .wait = wait, .finish = finish, .close = close_waits,
};
