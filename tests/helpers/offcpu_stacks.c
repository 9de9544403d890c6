/* tests/helpers/offcpu_stacks.c: a small real program that blocks through
 * libc in distinct functions, for tests/e2e/offcpu_bpftrace.sh's per-stack
 * comparison: ocs-nap sleeps in short_nap (nanosleep 10 ms) and long_nap
 * (40 ms), ocs-pipe reads a pipe in wait_pipe that main fills in feed_pipe
 * (nanosleep 25 ms, write), ocs-cond waits out pthread_cond_timedwait in
 * wait_cond (30 ms); ~2 s in all. Once all are done it writes "done" to
 * stdout, main lingers in linger until stdin ends and the threads in hold
 * until main lets them go, so that a tracer can name the stacks of threads
 * that are still there. Built with frame pointers; libc has none, so the
 * caller of a libc function is not on a stack walked by them: each blocking
 * call goes through a function of its own (nap_ms, read_byte), so that the
 * function named above it is. Usage: offcpu_stacks
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define NAPS 60
#define READS 60
#define CONDS 40

static int pipefd[2], endfd[2], readyfd[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

__attribute__((noinline)) static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");   /* no tail call */
}

__attribute__((noinline)) static int read_byte(int fd)
{
	char c;
	int ok = read(fd, &c, 1) == 1;

	__asm__ volatile("" ::: "memory");
	return ok;
}

/* Tells main this thread is done, then waits until main closes endfd. */
__attribute__((noinline)) static void hold(void)
{
	if (write(readyfd[1], "r", 1) != 1)
		return;
	while (read_byte(endfd[0]))
		;
}

__attribute__((noinline)) static void short_nap(void)
{
	nap_ms(10);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void long_nap(void)
{
	nap_ms(40);
	__asm__ volatile("" ::: "memory");
}

static void *napper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "ocs-nap");
	for (int i = 0; i < NAPS; i++) {
		short_nap();
		if (i % 2)
			long_nap();
	}
	hold();
	return NULL;
}

__attribute__((noinline)) static int wait_pipe(void)
{
	int ok = read_byte(pipefd[0]);

	__asm__ volatile("" ::: "memory");
	return ok;
}

static void *reader(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "ocs-pipe");
	for (int i = 0; i < READS; i++)
		if (!wait_pipe())
			break;
	hold();
	return NULL;
}

__attribute__((noinline)) static void wait_cond(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 30000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&mu);
	while (pthread_cond_timedwait(&cv, &mu, &until) == 0)
		;   /* nobody signals: each wait times out */
	pthread_mutex_unlock(&mu);
}

static void *conder(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "ocs-cond");
	for (int i = 0; i < CONDS; i++)
		wait_cond();
	hold();
	return NULL;
}

__attribute__((noinline)) static int feed_pipe(void)
{
	int ok;

	nap_ms(25);
	ok = write(pipefd[1], "x", 1) == 1;
	__asm__ volatile("" ::: "memory");
	return ok;
}

__attribute__((noinline)) static void linger(void)
{
	/* until stdin's end */
	while (read_byte(0))
		;
}

int main(void)
{
	void *(*fn[3])(void *) = { napper, reader, conder };
	pthread_t th[3];

	pthread_setname_np(pthread_self(), "ocs-main");
	if (pipe(pipefd) || pipe(endfd) || pipe(readyfd))
		return 1;
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, fn[i], NULL))
			return 1;
	for (int i = 0; i < READS; i++)
		if (!feed_pipe())
			return 1;
	for (int i = 0; i < 3; i++)
		if (!read_byte(readyfd[0]))
			return 1;
	if (write(1, "done\n", 5) != 5)
		return 1;
	linger();
	close(endfd[1]);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	return 0;
}
