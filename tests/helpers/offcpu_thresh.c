/* tests/helpers/offcpu_thresh.c: the workload of tests/e2e/offcpu_thresh.sh:
 * oct-long sleeps 50 ms in long_wait (4 times), oct-short sleeps 100 us in
 * short_wait (4,000 times), beside each other; each measures its own sleeps
 * and prints "NAME TID NS" (the sum of their wall times) at the end. Frame
 * pointers, and each blocking call in a function of its own (nap_ns): libc
 * has none, so the function above nanosleep is not on a stack walked by
 * them. Usage: offcpu_thresh
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct waiter {
	const char *name;
	void (*wait)(void);
	int n;
	pid_t tid;
	uint64_t ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void nap_ns(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");   /* no tail call */
}

__attribute__((noinline)) static void long_wait(void)
{
	nap_ns(50000000L);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void short_wait(void)
{
	nap_ns(100000L);
	__asm__ volatile("" ::: "memory");
}

static void *run(void *arg)
{
	struct waiter *w = arg;

	prctl(PR_SET_NAME, w->name);
	w->tid = gettid();
	for (int i = 0; i < w->n; i++) {
		uint64_t t = now_ns();

		w->wait();
		w->ns += now_ns() - t;
	}
	return NULL;
}

int main(void)
{
	struct waiter w[2] = { { "oct-long", long_wait, 4, 0, 0 },
			       { "oct-short", short_wait, 4000, 0, 0 } };
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, run, &w[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 2; i++)
		printf("%s %d %llu\n", w[i].name, (int)w[i].tid, (unsigned long long)w[i].ns);
	return 0;
}
