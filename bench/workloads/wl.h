/* bench/workloads/wl.h: what every workload shares: the clock, strict number
 * parsing of the command line, and printing one ns-per-op figure per run.
 */
#ifndef FR_BENCH_WL_H
#define FR_BENCH_WL_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WL_EXIT_USAGE 64

static inline unsigned long long wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* A decimal integer in [min, max], with an optional k/M suffix (x1000, x1000000). */
static inline long wl_parse(const char *prog, const char *what, const char *s, long min, long max)
{
	char *end;
	long v, mul = 1;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end != s && (*end == 'k' || *end == 'K') && end[1] == '\0') {
		mul = 1000;
		end++;
	} else if (end != s && *end == 'M' && end[1] == '\0') {
		mul = 1000000;
		end++;
	}
	if (errno || end == s || *end || v < 0 || v > LONG_MAX / mul || v * mul < min ||
	    v * mul > max) {
		fprintf(stderr, "%s: %s: expected an integer %ld..%ld, got '%s'\n", prog, what, min,
			max, s);
		exit(WL_EXIT_USAGE);
	}
	return v * mul;
}

/* The common options: -n OPS, -r RUNS; others are the caller's (optstring
 * must start with "n:r:"). Returns 0 when parsed, 1 for a workload option. */
struct wl_opts {
	long ops;
	long runs;
};

static inline void wl_usage(const char *prog, const char *extra)
{
	fprintf(stderr, "usage: %s [-n OPS] [-r RUNS]%s\n"
		"Times itself; prints one number per run: ns per op.\n", prog, extra);
	exit(WL_EXIT_USAGE);
}

/* Parse the common options (-n OPS, -r RUNS) of a workload that has no others. */
static inline void wl_parse_common(int argc, char **argv, const char *prog, struct wl_opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "n:r:h")) != -1) {
		switch (c) {
		case 'n': o->ops = wl_parse(prog, "-n", optarg, 1, 1000000000); break;
		case 'r': o->runs = wl_parse(prog, "-r", optarg, 1, 100000); break;
		default: wl_usage(prog, "");
		}
	}
	if (optind != argc)
		wl_usage(prog, "");
}

static inline void wl_print(double ns_per_op)
{
	printf("%.2f\n", ns_per_op);
	fflush(stdout);
}

static inline void wl_die(const char *prog, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(2);
}

#endif
