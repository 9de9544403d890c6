/* bench/bpf/empty.c: loads bench/bpf/empty.bpf.o's programs (libbpf) and
 * attaches them (all, or those named) until SIGINT or SIGTERM; with -t, on
 * and off by turns, a second each, for bench/pg_toggle.sh.
 * Usage: empty [-t BASE] OBJECT [PROGRAM...]
 *   without -t: prints "attached N" and holds them
 *   -t BASE: attaches them in the seconds from BASE + 2k to BASE + 2k + 1
 *            (epoch seconds) and detaches them in the others, for every k
 *            from the next whole one on; prints "on T0 T1" and "off T0 T1"
 *            for each change (epoch seconds before and after it)
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#define MAX_PROGS 8

static volatile sig_atomic_t done;

/* named: PROGRAM is among names[0..n), or no names were given */
static int named(const char *prog, char **names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(prog, names[i]))
			return 1;
	return n == 0;
}

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* attach: every program of progs[0..n) attached into links; 0 or -1 */
static int attach(struct bpf_program **progs, struct bpf_link **links, int n)
{
	for (int i = 0; i < n; i++) {
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i]) {
			fprintf(stderr, "empty: %s: not attached\n", bpf_program__name(progs[i]));
			while (i-- > 0)
				bpf_link__destroy(links[i]);
			return -1;
		}
	}
	return 0;
}

static void detach(struct bpf_link **links, int n)
{
	for (int i = 0; i < n; i++) {
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
}

/* sleep_until: until epoch second T, or a signal; 0 at T */
static int sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t };

	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (!done) {
		int err = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);

		if (!err)
			return 0;
		if (err != EINTR)
			return -1;
	}
	return -1;
}

/* toggle: on and off by turns from BASE (see the header) until a signal */
static int toggle(struct bpf_program **progs, struct bpf_link **links, int n, double base)
{
	double k = ceil(now() - base) + 1;
	int on = 0;

	for (;; k += 1) {
		double t0;

		if (sleep_until(base + k))
			break;
		t0 = now();
		on = fmod(k, 2) == 0;
		if (on) {
			if (attach(progs, links, n))
				return 1;
		} else {
			detach(links, n);
		}
		printf("%s %.6f %.6f\n", on ? "on" : "off", t0, now());
		fflush(stdout);
	}
	if (on)
		detach(links, n);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_program *progs[MAX_PROGS], *p;
	struct bpf_link *links[MAX_PROGS];
	struct bpf_object *obj;
	double base = -1;
	char *end;
	int n = 0, rc = 0;

	if (argc > 2 && !strcmp(argv[1], "-t")) {
		errno = 0;
		base = strtod(argv[2], &end);
		if (errno || end == argv[2] || *end || !(base > 0)) {
			fprintf(stderr, "empty: -t %s: not epoch seconds\n", argv[2]);
			return 64;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: empty [-t BASE] OBJECT [PROGRAM...]\n");
		return 64;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "empty: %s: not loaded\n", argv[1]);
		return 1;
	}
	bpf_object__for_each_program(p, obj) {
		if (!named(bpf_program__name(p), argv + 2, argc - 2))
			continue;
		if (n == MAX_PROGS) {
			fprintf(stderr, "empty: %s: more than %d programs\n", argv[1], MAX_PROGS);
			return 1;
		}
		progs[n++] = p;
	}
	if (n == 0 || (argc > 2 && n != argc - 2)) {
		fprintf(stderr, "empty: %s: a program named is not in it\n", argv[1]);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (base > 0) {
		rc = toggle(progs, links, n, base);
	} else {
		if (attach(progs, links, n))
			return 1;
		printf("attached %d\n", n);
		fflush(stdout);
		while (!done)
			pause();
		detach(links, n);
	}
	bpf_object__close(obj);
	return rc;
}
