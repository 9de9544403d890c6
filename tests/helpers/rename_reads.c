/* tests/helpers/rename_reads.c: a process that renames itself and a thread
 * it starts (prctl PR_SET_NAME, pthread_setname_np), then both make 61-byte
 * read()s (a count no other helper uses) for MS milliseconds, then 2000 more in turn (a ping-pong over two
 * pipes: the newest reads are both threads', however they were scheduled);
 * with "stay" it then sleeps until killed (alive at a snapshot), else it
 * exits. Prints its pid. Usage: rename_reads MS [stay].
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static long ms;
static int ping[2], pong[2];

/* n rounds: read one byte from in, write one to out (first writes first) */
static void turns(int in, int out, bool first)
{
	char c[61] = { 0 };

	for (int i = 0; i < 2000; i++) {
		if ((first || i) && write(out, c, sizeof(c)) != (ssize_t)sizeof(c))
			exit(1);
		if (read(in, c, sizeof(c)) != (ssize_t)sizeof(c))
			exit(1);
	}
	if (!first && write(out, c, sizeof(c)) != (ssize_t)sizeof(c))
		exit(1);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void *reads(void *arg)
{
	int fd = open("/dev/zero", O_RDONLY);
	long long end = now_ms() + ms;
	char c[61];

	(void)arg;
	if (fd < 0)
		exit(1);
	while (now_ms() < end)
		for (int i = 0; i < 1000; i++)
			if (read(fd, c, sizeof(c)) != (ssize_t)sizeof(c))
				exit(1);
	close(fd);
	if (arg)
		turns(ping[0], pong[1], false);
	return NULL;
}

int main(int argc, char **argv)
{
	char *end;
	pthread_t th;

	ms = argc > 1 ? strtol(argv[1], &end, 10) : 500;
	if (argc < 2 || *end || ms < 0 || ms > 600000)
		return 2;
	if (pipe(ping) || pipe(pong) || prctl(PR_SET_NAME, "fr-main-name", 0, 0, 0) ||
	    pthread_create(&th, NULL, reads, ping) || pthread_setname_np(th, "fr-thread-name"))
		return 1;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	reads(NULL);
	turns(pong[0], ping[1], true);
	pthread_join(th, NULL);
	if (argc > 2 && !strcmp(argv[2], "stay"))
		pause();
	return 0;
}
