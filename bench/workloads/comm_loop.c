/* bench/workloads/comm_loop.c: N x prctl(PR_SET_NAME); every rename makes the
 * kernel emit a PERF_RECORD_COMM to each comm-tracking event (seed 004), and
 * hits syscalls:sys_enter_prctl once. Prints ns per prctl, one line per run.
 */
#include "config.h"

#include <getopt.h>
#include <sys/prctl.h>

#include "bench/workloads/wl.h"

static const char *prog = "comm_loop";

static double one_run(long n)
{
	char name[32];  /* prctl keeps the first 15 bytes */
	unsigned long long t0 = wl_now_ns(), t1;

	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c:%ld", i);
		if (prctl(PR_SET_NAME, name, 0, 0, 0))
			wl_die(prog, "prctl(PR_SET_NAME)");
	}
	t1 = wl_now_ns();
	prctl(PR_SET_NAME, prog, 0, 0, 0);
	return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { 500000, 1 };

	wl_parse_common(argc, argv, prog, &o);
	for (long r = 0; r < o.runs; r++)
		wl_print(one_run(o.ops));
	return 0;
}
