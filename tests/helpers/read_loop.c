/* tests/helpers/read_loop.c: N x read(1 byte, or COUNT bytes) from
 * /dev/zero, then optionally sleep, so a recorder can see a known process do
 * known reads. Usage: read_loop N [SLEEP_MS [COUNT]]
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	long count = argc > 3 ? strtol(argv[3], NULL, 10) : 1;
	int fd = open("/dev/zero", O_RDONLY);
	char c[4096];

	if (fd < 0 || n < 0 || count < 1 || count > (long)sizeof(c))
		return 1;
	for (long i = 0; i < n; i++)
		if (read(fd, c, (size_t)count) != count)
			return 1;
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	close(fd);
	return 0;
}
