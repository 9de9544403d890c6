/* tests/helpers/read_loop.c: N x read(1 byte, or COUNT bytes) from
 * /dev/zero, then optionally sleep, so a recorder can see a known process do
 * known reads. Usage: read_loop N [SLEEP_MS [COUNT [RATE]]]. COUNT 0 numbers
 * the reads: read i asks for (i % 16) + 1 bytes at buf + (i / 16) % 2^20, so
 * (buf, count) of consecutive reads tell a gap (modulo 2^24 reads); COUNT -B
 * numbers them B bytes higher ((i % 16) + 1 + B: a range a filter can pick
 * out). RATE > 0 paces the loop to at most RATE reads a second (checked every
 * 256 reads).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	long count = argc > 3 ? strtol(argv[3], NULL, 10) : 1, base = 0;
	long rate = argc > 4 ? strtol(argv[4], NULL, 10) : 0;
	struct timespec t0;
	int fd = open("/dev/zero", O_RDONLY);
	static char c[(1 << 20) + 4096];

	if (count < 0 && count >= -4080) {   /* numbered, B higher */
		base = -count;
		count = 0;
	}
	if (fd < 0 || n < 0 || count < 0 || count > 4096 || rate < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		long k = count ? count : (i & 15) + 1 + base;

		if (rate && i && !(i & 255)) {
			/* read i is due at t0 + i / rate */
			long long due = (long long)t0.tv_sec * 1000000000LL + t0.tv_nsec +
					(long long)(i * (1e9 / (double)rate));
			struct timespec at = { (time_t)(due / 1000000000LL), (long)(due % 1000000000LL) };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		}

		if (read(fd, c + (count ? 0 : (i >> 4) & 0xfffff), (size_t)k) != k)
			return 1;
	}
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	close(fd);
	return 0;
}
