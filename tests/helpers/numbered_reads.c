/* tests/helpers/numbered_reads.c: read(-1, NULL, i) for i = 1..N, straight
 * through the syscall (EBADF, nothing copied): each emits sys_enter_read with
 * count = i, so a recording's reads are numbered and gaps or duplicates show.
 * After every BATCH reads it sleeps PAUSE_MS. Usage: numbered_reads N [BATCH PAUSE_MS]
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long batch = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	long ms = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	if (n < 0 || batch < 0 || ms < 0)
		return 2;
	for (long i = 1; i <= n; i++) {
		if (syscall(SYS_read, -1, NULL, (size_t)i) != -1)
			return 1;
		if (batch && ms && i % batch == 0)
			nanosleep(&ts, NULL);
	}
	return 0;
}
