/* tests/helpers/wakers.c: waits whose wakers are known by construction, for
 * the waker tests (tests/e2e/wakers.sh): a lock held for HOLD ms in
 * hold_lock() and waited for in wait_lock(); a pipe written after a SLEEP ms
 * sleep in write_late() and read in read_pipe(). N rounds of each; prints
 * what the waiters measured: "wait_lock US" and "read_pipe US" (microseconds
 * in those functions). Every system call is made by inline asm in a
 * function of this file (no libc frame without a frame pointer between)
 * that is not a leaf, built without sibling calls: each function stays on
 * the frame-pointer chain of the stacks -g records.
 *   wakers N HOLD SLEEP
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <pthread.h>
#include <linux/futex.h>

#define NOINLINE __attribute__((noinline))

static int lock_word, held_word, done_word;
static int pfd[2];
static long rounds, hold_ms, sleep_ms;
static unsigned long long lock_us, read_us;

/* A call, so that the function making a system call is not a leaf: gcc
 * gives a leaf no frame even with -fno-omit-frame-pointer, and its caller
 * would then be missing from the chain. */
static NOINLINE void not_leaf(void)
{
	__asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) long sys(long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	not_leaf();
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

static unsigned long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

static NOINLINE void nap(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };

	while (sys(SYS_nanosleep, (long)&d, (long)&d, 0, 0))
		;
}

/* a futex word: wait while it is val, wake one */
static NOINLINE void futex_wait_on(int *w, int val)
{
	sys(SYS_futex, (long)w, FUTEX_WAIT_PRIVATE, val, 0);
}

static NOINLINE void futex_wake_one(int *w)
{
	sys(SYS_futex, (long)w, FUTEX_WAKE_PRIVATE, 1, 0);
}

static NOINLINE void do_lock(void)
{
	while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
		futex_wait_on(&lock_word, 1);
}

static NOINLINE void do_unlock(void)
{
	__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
	futex_wake_one(&lock_word);
}

/* a flag one thread raises and the other waits for (and lowers) */
static NOINLINE void raise_flag(int *w)
{
	__atomic_store_n(w, 1, __ATOMIC_RELEASE);
	futex_wake_one(w);
}

static NOINLINE void await_flag(int *w)
{
	while (!__atomic_load_n(w, __ATOMIC_ACQUIRE))
		futex_wait_on(w, 0);
	__atomic_store_n(w, 0, __ATOMIC_RELAXED);
}

static NOINLINE void do_write(void)
{
	if (sys(SYS_write, pfd[1], (long)"x", 1, 0) != 1)
		abort();
}

static NOINLINE void do_read(void)
{
	char c;

	if (sys(SYS_read, pfd[0], (long)&c, 1, 0) != 1)
		abort();
}

/* the holder: takes the lock, tells the waiter, keeps it HOLD ms */
static NOINLINE void hold_lock(void)
{
	do_lock();
	raise_flag(&held_word);
	nap(hold_ms);
	do_unlock();
}

static NOINLINE void wait_lock(void)
{
	unsigned long long t = now_us();

	do_lock();
	lock_us += now_us() - t;
	do_unlock();
}

static NOINLINE void write_late(void)
{
	nap(sleep_ms);
	do_write();
}

static NOINLINE void read_pipe(void)
{
	unsigned long long t = now_us();

	do_read();
	read_us += now_us() - t;
}

static void *holder(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		hold_lock();
		write_late();
		await_flag(&done_word);
	}
	return arg;
}

static void *waiter(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		await_flag(&held_word);
		wait_lock();
		read_pipe();
		raise_flag(&done_word);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	char *end;

	if (argc != 4)
		return 64;
	rounds = strtol(argv[1], &end, 10);
	if (*end || rounds < 1 || rounds > 100000)
		return 64;
	hold_ms = strtol(argv[2], &end, 10);
	if (*end || hold_ms < 1 || hold_ms > 10000)
		return 64;
	sleep_ms = strtol(argv[3], &end, 10);
	if (*end || sleep_ms < 1 || sleep_ms > 10000)
		return 64;
	if (sys(SYS_pipe2, (long)pfd, 0, 0, 0) || pthread_create(&a, NULL, holder, NULL) ||
	    pthread_create(&b, NULL, waiter, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("wait_lock %llu\nread_pipe %llu\n", lock_us, read_us);
	return 0;
}
