/* bench/workloads/pipe_pingpong.c: two processes bounce 4 bytes over two pipes
 * N times (seed 001's pipe-test-1m, `perf bench sched pipe`): two context
 * switches per round trip when pinned to one CPU. Prints ns per round trip.
 */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <sys/wait.h>

#include "bench/workloads/wl.h"

static const char *prog = "pipe_pingpong";

static void child(int in, int out, long n)
{
	int m;

	for (long i = 0; i < n; i++) {
		if (read(in, &m, sizeof(m)) != (ssize_t)sizeof(m))
			_exit(2);
		if (write(out, &m, sizeof(m)) != (ssize_t)sizeof(m))
			_exit(2);
	}
	_exit(0);
}

static double one_run(long n)
{
	int p1[2], p2[2], m = 0, st;
	unsigned long long t0, t1;
	pid_t pid;

	if (pipe(p1) || pipe(p2))
		wl_die(prog, "pipe");
	pid = fork();
	if (pid < 0)
		wl_die(prog, "fork");
	if (pid == 0) {
		close(p1[1]);
		close(p2[0]);
		child(p1[0], p2[1], n);
	}
	close(p1[0]);
	close(p2[1]);
	t0 = wl_now_ns();
	for (long i = 0; i < n; i++) {
		if (write(p1[1], &m, sizeof(m)) != (ssize_t)sizeof(m))
			wl_die(prog, "write");
		if (read(p2[0], &m, sizeof(m)) != (ssize_t)sizeof(m))
			wl_die(prog, "read");
	}
	t1 = wl_now_ns();
	close(p1[1]);
	close(p2[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "%s: the child failed\n", prog);
		exit(2);
	}
	return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { 100000, 1 };

	wl_parse_common(argc, argv, prog, &o);
	signal(SIGPIPE, SIG_IGN);
	for (long r = 0; r < o.runs; r++)
		wl_print(one_run(o.ops));
	return 0;
}
