/* bench/workloads/cpu_tree.c: a CPU-bound loop with a known call tree, for
 * cpu-clock sampling with -g. Prints ns per iteration of run(), one line per run.
 */

/*
 * Built with frame pointers, no inlining, no sibling calls. Work per iteration,
 * in leaf() steps (700 in all), so a profile must show:
 *   main;run;fn_a;fn_b;leaf   300  42.9%
 *   main;run;fn_c;leaf        200  28.6%
 *   main;run;fn_a;leaf        100  14.3%
 *   main;run;leaf             100  14.3%
 */
#include "config.h"

#include <getopt.h>
#include <stdint.h>

#include "bench/workloads/wl.h"

#define NOINLINE __attribute__((noinline))

static const char *prog = "cpu_tree";

static NOINLINE uint64_t leaf(uint64_t x, int steps)
{
	for (int i = 0; i < steps; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static NOINLINE uint64_t fn_b(uint64_t x)
{
	x = leaf(x, 300);
	__asm__ volatile("" : "+r"(x));
	return x;
}

static NOINLINE uint64_t fn_a(uint64_t x)
{
	x = fn_b(x);
	x = leaf(x, 100);
	__asm__ volatile("" : "+r"(x));
	return x;
}

static NOINLINE uint64_t fn_c(uint64_t x)
{
	x = leaf(x, 200);
	__asm__ volatile("" : "+r"(x));
	return x;
}

static NOINLINE uint64_t run(uint64_t x)
{
	x = fn_a(x);
	x = fn_c(x);
	x = leaf(x, 100);
	__asm__ volatile("" : "+r"(x));
	return x;
}

static volatile uint64_t sink;

static double one_run(long n)
{
	unsigned long long t0 = wl_now_ns(), t1;
	uint64_t x = 1;

	for (long i = 0; i < n; i++)
		x = run(x);
	t1 = wl_now_ns();
	sink = x;
	return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { 200000, 1 };

	wl_parse_common(argc, argv, prog, &o);
	for (long r = 0; r < o.runs; r++)
		wl_print(one_run(o.ops));
	return 0;
}
