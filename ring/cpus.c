/* ring/cpus.c: CPU lists as the kernel writes them ("0-3,5,7-8"): parsing
 * one (from sysfs or a user's option) and the CPUs online.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/grow.h"
#include "ring/evlist.h"

int fr_cpus__parse(const char *s, int **out)
{
	int *cpus = NULL, n = 0;
	size_t cap = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a > 65535)
			goto bad;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b > 65535)
				goto bad;
		}
		for (long c = a; c <= b; c++) {
			if (fr_grow(&cpus, &cap, (size_t)n + 1, sizeof(*cpus), 16)) {
				free(cpus);
				return -ENOMEM;
			}
			cpus[n++] = (int)c;
		}
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			goto bad;
	}
	if (!n)
		goto bad;
	*out = cpus;
	return n;
bad:
	free(cpus);
	return -EINVAL;
}

int fr_cpus__online(int **cpus)
{
	char buf[4096];
	ssize_t n;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = '\0';
	return fr_cpus__parse(buf, cpus);
}
