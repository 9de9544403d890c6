/* src/report/out/out_script.c: --format=perf-script: each selected sample as
 * perf script prints it (script.c), as it is read; the records themselves,
 * so off-CPU time only when asked.
 */
#include "config.h"

#include "src/report/fmt/fmt.h"
#include "src/report/out/output.h"

static int open_script(struct report *rp, void **st)
{
	*st = NULL;
	return 0;
}

static int add(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	return fr_script__sample_tod(rp->out, rs, rp->tp, rp->name_width, rp->tod);
}

static int finish(void *st, struct report *rp, const char *path)
{
	return 0;
}

static void close_script(void *st)
{
}

const struct fr_output_ops fr_output_script = {
	.name = "perf-script", .fold = FR_FOLD_EACH, .escaped = true, .tod = true,
	.open = open_script, .sample = add, .finish = finish, .close = close_script,
};
