/* tests/helpers/sleeps.c: N sleeps of 1 ms, the Kth of them MS ms instead;
 * prints "slow BEGIN END" (CLOCK_MONOTONIC ns around the slow sleep) so a
 * test can check a --trigger-latency snapshot against it:
 *   sleeps N K MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n, k, ms;
	char *end;

	if (argc != 4)
		return 64;
	n = strtol(argv[1], &end, 10);
	if (*end || n < 1 || n > 1000000)
		return 64;
	k = strtol(argv[2], &end, 10);
	if (*end || k < 0 || k >= n)
		return 64;
	ms = strtol(argv[3], &end, 10);
	if (*end || ms < 1 || ms > 60000)
		return 64;
	for (long i = 0; i < n; i++) {
		struct timespec d = { 0, 1000000L };
		unsigned long long b = now();

		if (i == k) {
			d.tv_sec = ms / 1000;
			d.tv_nsec = (ms % 1000) * 1000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &d, &d))
			;
		if (i == k)
			printf("slow %llu %llu\n", b, now());
	}
	fflush(stdout);
	return 0;
}
