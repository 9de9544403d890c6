/* tests/helpers/vdso_loop.c: calls clock_gettime (the vdso's, no system
 * call) in a loop for MS milliseconds, so almost every sample of it lands in
 * [vdso]. Usage: vdso_loop MS
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	struct timespec ts, t0;
	long el;

	if (ms < 0 || ms > 3600000)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		el = (ts.tv_sec - t0.tv_sec) * 1000 + (ts.tv_nsec - t0.tv_nsec) / 1000000;
	} while (el < ms);
	return 0;
}
