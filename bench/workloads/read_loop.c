/* bench/workloads/read_loop.c: N x read(1 byte) from /dev/zero, the
 * syscalls:sys_enter_read workload of the design's cost table. Prints ns per
 * read(), one line per run.
 */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>

#include "bench/workloads/wl.h"

static const char *prog = "read_loop";

static double one_run(int fd, long n)
{
	unsigned long long t0 = wl_now_ns(), t1;
	char c;

	for (long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			wl_die(prog, "read(/dev/zero)");
	t1 = wl_now_ns();
	return (double)(t1 - t0) / (double)n;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { 1000000, 1 };
	int fd;

	wl_parse_common(argc, argv, prog, &o);
	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		wl_die(prog, "/dev/zero");
	for (long r = 0; r < o.runs; r++)
		wl_print(one_run(fd, o.ops));
	close(fd);
	return 0;
}
