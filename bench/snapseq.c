/* bench/snapseq.c: a numbered event stream for the snapshot benchmark: event i
 * is read(-1, NULL, i), so a snapshot's dump says exactly which events it holds.
 */

/*
 * Emits WARMUP events (syscalls:sys_enter_read with fd -1 and count i), then per
 * trigger sends SIGUSR2 to the recorder and emits AFTER more; prints
 * "trigger K SEQ TIME_NS" (SEQ: the last event before the signal), then "last SEQ".
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 64

static const char *prog = "snapseq";

static long parse_long(const char *what, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s: expected an integer %ld..%ld, got '%s'\n", prog, what, min,
			max, s);
		exit(EXIT_USAGE);
	}
	return v;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static long emit(long seq, long n)
{
	for (long i = 0; i < n; i++) {
		long r = syscall(SYS_read, -1, NULL, ++seq);   /* EBADF; the tracepoint fired */

		(void)r;
	}
	return seq;
}

int main(int argc, char **argv)
{
	long warmup = 100000, after = 20000, triggers = 5, gap_ms = 50, seq = 0;
	pid_t pid = 0;
	int c;

	while ((c = getopt(argc, argv, "p:w:a:t:g:h")) != -1) {
		switch (c) {
		case 'p': pid = (pid_t)parse_long("-p", optarg, 1, 1 << 30); break;
		case 'w': warmup = parse_long("-w", optarg, 0, 1000000000); break;
		case 'a': after = parse_long("-a", optarg, 0, 1000000000); break;
		case 't': triggers = parse_long("-t", optarg, 0, 10000); break;
		case 'g': gap_ms = parse_long("-g", optarg, 0, 60000); break;
		default:
			fprintf(stderr, "usage: %s -p RECORDER_PID [-w WARMUP] [-a AFTER] [-t TRIGGERS] "
				"[-g GAP_MS]\n", prog);
			return EXIT_USAGE;
		}
	}
	if (!pid || optind != argc) {
		fprintf(stderr, "%s: -p RECORDER_PID is needed\n", prog);
		return EXIT_USAGE;
	}
	seq = emit(seq, warmup);
	for (long k = 1; k <= triggers; k++) {
		unsigned long long t = now_ns();
		struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };

		if (kill(pid, SIGUSR2)) {
			fprintf(stderr, "%s: kill %d: %s\n", prog, (int)pid, strerror(errno));
			return 2;
		}
		printf("trigger %ld %ld %llu\n", k, seq, t);
		seq = emit(seq, after);
		/* let the snapshot finish before the next one: each window must
		 * still reach back past the previous trigger */
		nanosleep(&gap, NULL);
	}
	printf("last %ld\n", seq);
	return 0;
}
