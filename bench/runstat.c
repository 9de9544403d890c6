/* bench/runstat.c: runs a command and reports what it cost: wall seconds,
 * user and system CPU seconds and peak RSS (wait4 rusage, threads included).
 * SIGINT, SIGTERM, SIGHUP and SIGUSR2 are passed on to the command.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 64

static const char *prog = "runstat";
static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR2 };
	struct sigaction sa;
	struct rusage ru;
	const char *out = NULL;
	double t0, t1;
	FILE *f;
	pid_t pid;
	int c, st;

	while ((c = getopt(argc, argv, "+o:h")) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-o FILE] [--] COMMAND [ARGS...]\n"
				"Writes 'wall_s user_s sys_s maxrss_kb exit' to FILE (or stderr).\n",
				prog);
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "%s: no command\n", prog);
		return EXIT_USAGE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
		return 2;
	}
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "%s: %s: %s\n", prog, argv[optind], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "%s: wait4: %s\n", prog, strerror(errno));
			return 2;
		}
	}
	t1 = now_s();
	child_pid = 0;
	f = out ? fopen(out, "w") : stderr;
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
		return 2;
	}
	fprintf(f, "%.6f %.6f %.6f %ld %d\n", t1 - t0, tv_s(ru.ru_utime), tv_s(ru.ru_stime),
		ru.ru_maxrss, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	if (f != stderr)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
