/* tests/helpers/offcpu_work.c: a workload whose off-CPU split is known by
 * construction, for tests/e2e/offcpu.sh: one thread sleeps in sleep_here
 * (nanosleep), one blocks in pipe_wait_here (read of a pipe the main thread
 * writes to now and then), one burns CPU in burn_here. The system calls are
 * made inline, so that the user part of each switch-out stack starts in the
 * function itself. Each thread measures itself; main prints a line per
 * thread once they ended:
 *   NAME TID WALL_NS FN_NS RAN_NS
 * (WALL: from just before pthread_create to the thread function's end (the
 * stacks are given, so pthread_create maps nothing); RAN: from the thread's
 * first instruction to its end. The kernel's start of the thread lies
 * between the two: main may be preempted between its clock and clone. FN:
 * time inside the calls).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 8
#define SLEEP_NS 60000000L
#define PACE_NS 65000000L
#define BURN_NS 500000000ull

#define STACK (1 << 20)

static int pipefd[2];
static char stacks[3][STACK] __attribute__((aligned(4096)));
static volatile uint64_t sink;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long raw_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) static uint64_t sleep_here(void)
{
	struct timespec ts = { 0, SLEEP_NS };
	uint64_t t = now();

	raw_syscall3(SYS_nanosleep, (long)&ts, 0, 0);
	return now() - t;
}

__attribute__((noinline)) static uint64_t pipe_wait_here(void)
{
	char c;
	uint64_t t = now();

	raw_syscall3(SYS_read, pipefd[0], (long)&c, 1);
	return now() - t;
}

__attribute__((noinline)) static uint64_t burn_here(uint64_t ns)
{
	uint64_t t = now(), x = 1;

	while (now() - t < ns)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
	return now() - t;
}

/* What a thread measured, printed by main once it ended: printing here
 * (a write that may block) would lengthen the thread past its WALL. */
struct result {
	const char *name;
	long tid;
	uint64_t wall, fn, ran;
};
static struct result results[3];

static void report(int i, const char *name, uint64_t t0, uint64_t first, uint64_t fn)
{
	uint64_t end = now();

	results[i] = (struct result){ name, (long)syscall(SYS_gettid), end - t0, fn, end - first };
}

static void *sleeper(void *arg)
{
	uint64_t first = now(), t0 = *(uint64_t *)arg, fn = 0;

	pthread_setname_np(pthread_self(), "oc-sleeper");
	for (int i = 0; i < ROUNDS; i++)
		fn += sleep_here();
	report(0, "sleeper", t0, first, fn);
	return NULL;
}

static void *piper(void *arg)
{
	uint64_t first = now(), t0 = *(uint64_t *)arg, fn = 0;

	pthread_setname_np(pthread_self(), "oc-piper");
	for (int i = 0; i < ROUNDS; i++)
		fn += pipe_wait_here();
	report(1, "piper", t0, first, fn);
	return NULL;
}

static void *burner(void *arg)
{
	uint64_t first = now(), t0 = *(uint64_t *)arg, fn;

	pthread_setname_np(pthread_self(), "oc-burner");
	fn = burn_here(BURN_NS);
	report(2, "burner", t0, first, fn);
	return NULL;
}

int main(void)
{
	void *(*fn[3])(void *) = { sleeper, piper, burner };
	static uint64_t born[3];
	pthread_attr_t attr[3];
	pthread_t th[3];
	struct timespec pace = { 0, PACE_NS };

	if (pipe(pipefd))
		return 1;
	for (int i = 0; i < 3; i++)
		if (pthread_attr_init(&attr[i]) || pthread_attr_setstack(&attr[i], stacks[i], STACK))
			return 1;
	for (int i = 0; i < 3; i++) {
		born[i] = now();
		if (pthread_create(&th[i], &attr[i], fn[i], &born[i]))
			return 1;
	}
	for (int i = 0; i < ROUNDS; i++) {
		nanosleep(&pace, NULL);
		if (write(pipefd[1], "x", 1) != 1)
			return 1;
	}
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 3; i++)
		printf("%s %ld %llu %llu %llu\n", results[i].name, results[i].tid,
		       (unsigned long long)results[i].wall, (unsigned long long)results[i].fn,
		       (unsigned long long)results[i].ran);
	return 0;
}
