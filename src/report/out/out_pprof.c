/* src/report/out/out_pprof.c: --format=pprof: the samples of one event, and
 * the off-CPU waits as an off_cpu/nanoseconds sample type, with --latency
 * each sample's period / parallelism as a latency one, as a gzipped pprof
 * Profile (pprof.c writes it).
 */
#include "config.h"

#include "src/file/clock.h"
#include "src/report/fmt/fmt.h"
#include "src/report/out/output.h"

static int open_pprof(struct report *rp, void **st)
{
	struct fr_pprof *p;
	int err = fr_pprof__new(&p);

	if (!err)
		*st = p;
	return err;
}

static int add(void *st, struct report *rp, const struct fr_rec *r, const struct fr_rsample *rs)
{
	return fr_pprof__add(st, rp->res, rs);
}

static int wait(void *st, struct report *rp, const struct fr_rsample *rs)
{
	return fr_pprof__add_off_cpu(st, rp->res, rs);
}

static int finish(void *st, struct report *rp, const char *path)
{
	struct fr_clock_ref c;
	struct fr_pprof_info in = { rp->fold_ev, rp->first, rp->samples ? rp->last - rp->first : 0,
				    !rp->o->sym.no_inline };

	if (!fr_clock__of_file(rp->rd, &c))   /* wall clock: the file's clock pair */
		in.time_ns = fr_clock__to_real(&c, rp->first);
	return fr_pprof__write(st, rp->out, &in);
}

static void close_pprof(void *st)
{
	fr_pprof__delete(st);
}

const struct fr_output_ops fr_output_pprof = {
	.name = "pprof", .fold = FR_FOLD_ONE, .offcpu_default = true, .binary = true, .latency = true,
	.open = open_pprof, .sample = add, .wait = wait, .finish = finish, .close = close_pprof,
};
