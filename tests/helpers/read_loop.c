/* tests/helpers/read_loop.c: N x read(1 byte) from /dev/zero, then optionally
 * sleep, so a recorder can see a known process do known reads.
 * Usage: read_loop N [SLEEP_MS]
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	int fd = open("/dev/zero", O_RDONLY);
	char c;

	if (fd < 0 || n < 0)
		return 1;
	for (long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			return 1;
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	close(fd);
	return 0;
}
