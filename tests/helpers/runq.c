/* tests/helpers/runq.c: the workload of tests/e2e/offcpu_delay.sh: on one
 * CPU (the last it may use), two burners (rq-burn) and a nice-5 thread
 * (rq-wait) that sleeps 1 ms and works 200 us, 150 times, so that each of
 * its wakeups waits for the CPU. At the end it prints "rq-wait TID NS": the
 * kernel's own count of the time that thread spent runnable, waiting for a
 * CPU (/proc/self/task/TID/schedstat's run_delay). Usage: runq
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *burn(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "rq-burn");
	while (!stop)
		sink = sink + 1;
	return NULL;
}

/* The thread's run_delay (ns), or -1. */
static long long run_delay(pid_t tid)
{
	char path[64];
	unsigned long long run, delay;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	if (!(f = fopen(path, "r")))
		return -1;
	n = fscanf(f, "%llu %llu", &run, &delay);
	fclose(f);
	return n == 2 ? (long long)delay : -1;
}

int main(void)
{
	cpu_set_t set;
	pthread_t b[2];
	pid_t tid = (pid_t)syscall(SYS_gettid);
	long long d;
	int cpu = -1;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpu = c;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))   /* the threads made after inherit it */
		return 1;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&b[i], NULL, burn, NULL))
			return 1;
	prctl(PR_SET_NAME, "rq-wait");
	if (setpriority(PRIO_PROCESS, (id_t)tid, 5))
		return 1;
	for (int i = 0; i < 150; i++) {
		struct timespec ts = { 0, 1000000 };
		uint64_t t0;

		nanosleep(&ts, NULL);
		for (t0 = now_ns(); now_ns() - t0 < 200000;)
			sink = sink + 1;
	}
	d = run_delay(tid);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(b[i], NULL);
	if (d < 0)
		return 1;
	printf("rq-wait %d %lld\n", (int)tid, d);
	return 0;
}
