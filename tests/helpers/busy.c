/* tests/helpers/busy.c: burns CPU for MS milliseconds in a small known call
 * tree (main -> work -> spin), then exits. Usage: busy MS
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static unsigned long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000ul + (unsigned long)ts.tv_nsec / 1000000ul;
}

__attribute__((noinline)) static void spin(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i * 2654435761u;
}

__attribute__((noinline)) static void work(unsigned long until)
{
	while (now_ms() < until)
		spin();
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;

	if (ms < 0 || ms > 3600000)
		return 2;
	work(now_ms() + (unsigned long)ms);
	return 0;
}
