/* tests/helpers/prctl_loop.c: N x prctl(PR_SET_NAME, "prctl_NNN", i): each
 * call emits sys_enter_prctl (arg3 = i, so order is checkable) and a
 * PERF_RECORD_COMM. Usage: prctl_loop [N] (default 111).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 111;
	char name[16];

	if (n < 0 || n > 100000000)
		return 2;
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "prctl_%03ld", i % 1000);
		if (prctl(PR_SET_NAME, name, i, 0, 0))
			return 1;
	}
	return 0;
}
