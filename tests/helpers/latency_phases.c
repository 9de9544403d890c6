/* tests/helpers/latency_phases.c: a workload whose parallelism is known by
 * construction, for tests/e2e/report_latency.sh (the latency view): one
 * thread burns CPU alone in alone() for PHASE seconds of wall clock (default
 * 0.6), then four burn at once in together() for as long, main asleep in
 * pthread_join meanwhile. Each phase measures itself; main prints a line
 * per phase once both ended:
 *   NAME THREADS WALL_NS ACTIVE_NS CPU_NS
 * (WALL: from the phase's start to its last thread's end; ACTIVE: the time
 * at least one of its threads was on a CPU, in 50 us slots each burning
 * thread marks as it runs; CPU: its threads' CPU time, summed.) Without
 * other load ACTIVE is WALL; beside CPU hogs it is less, and CPU / ACTIVE
 * is the phase's mean parallelism while it ran.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOT_NS 50000ull
#define NTOGETHER 4

struct phase {
	const char *name;
	int threads;
	uint64_t start, end;          /* the wall-clock span the threads burn in */
	unsigned char *slots;         /* 1: some thread ran in this SLOT_NS */
	size_t nslots;
	uint64_t cpu_ns, done;        /* summed CPU time; the last thread's end */
	pthread_barrier_t go;
};

static volatile uint64_t sink;

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The thread ran at t (now): its slot is marked. */
static inline __attribute__((always_inline)) void mark(struct phase *ph, uint64_t t)
{
	uint64_t i = (t - ph->start) / SLOT_NS;

	if (t >= ph->start && i < ph->nslots)
		__atomic_store_n(&ph->slots[i], 1, __ATOMIC_RELAXED);
}

/* About 10 us of arithmetic between two clock reads (the clock's vDSO call
 * then takes well under 1% of the samples). */
static inline __attribute__((always_inline)) uint64_t spin(uint64_t x, uint64_t mul)
{
	for (int i = 0; i < 4000; i++)
		x = x * mul + 1442695040888963407ull;
	return x;
}

static void finish(struct phase *ph, uint64_t cpu0)
{
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0, t = clock_ns(CLOCK_MONOTONIC);
	uint64_t d = __atomic_load_n(&ph->done, __ATOMIC_RELAXED);

	__atomic_fetch_add(&ph->cpu_ns, cpu, __ATOMIC_RELAXED);
	while (d < t && !__atomic_compare_exchange_n(&ph->done, &d, t, false, __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;   /* d: the value seen, tried again */
}

/* Two functions, not one: their samples are told apart by name (and their
 * multipliers differ, so that no pass folds them into one). */
static __attribute__((noinline)) void alone(struct phase *ph)
{
	uint64_t x = sink, t, cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	while ((t = clock_ns(CLOCK_MONOTONIC)) < ph->end) {
		mark(ph, t);
		x = spin(x, 6364136223846793005ull);
	}
	sink = x;
	finish(ph, cpu0);
}

static __attribute__((noinline)) void together(struct phase *ph)
{
	uint64_t x = sink, t, cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	while ((t = clock_ns(CLOCK_MONOTONIC)) < ph->end) {
		mark(ph, t);
		x = spin(x, 2862933555777941757ull);
	}
	sink = x;
	finish(ph, cpu0);
}

static void *thread_main(void *arg)
{
	struct phase *ph = arg;

	pthread_barrier_wait(&ph->go);   /* asleep until main set the span */
	if (ph->threads == 1)
		alone(ph);
	else
		together(ph);
	return NULL;
}

/* Run a phase of n threads for ns of wall clock; print its line. */
static int run(struct phase *ph, const char *name, int n, uint64_t ns)
{
	pthread_t th[NTOGETHER];
	size_t active = 0;

	memset(ph, 0, sizeof(*ph));
	ph->name = name;
	ph->threads = n;
	ph->nslots = (size_t)(ns / SLOT_NS) + 1;
	if (!(ph->slots = calloc(ph->nslots, 1)) ||
	    pthread_barrier_init(&ph->go, NULL, (unsigned)n + 1))
		return -1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, thread_main, ph))
			return -1;
	ph->start = clock_ns(CLOCK_MONOTONIC);
	ph->end = ph->start + ns;
	pthread_barrier_wait(&ph->go);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < ph->nslots; i++)
		active += ph->slots[i];
	printf("%s %d %llu %llu %llu\n", name, n, (unsigned long long)(ph->done - ph->start),
	       (unsigned long long)(active * SLOT_NS), (unsigned long long)ph->cpu_ns);
	pthread_barrier_destroy(&ph->go);
	free(ph->slots);
	return 0;
}

int main(int argc, char **argv)
{
	struct phase ph;
	double sec = argc > 1 ? strtod(argv[1], NULL) : 0.6;
	uint64_t ns;

	if (!(sec > 0 && sec <= 60)) {
		fprintf(stderr, "usage: latency_phases [SECONDS per phase, default 0.6]\n");
		return 2;
	}
	ns = (uint64_t)(sec * 1e9);
	if (run(&ph, "alone", 1, ns) || run(&ph, "together", NTOGETHER, ns)) {
		fprintf(stderr, "latency_phases: cannot start its threads\n");
		return 1;
	}
	return 0;
}
