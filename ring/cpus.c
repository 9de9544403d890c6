/* ring/cpus.c: CPU lists as the kernel writes them ("0-3,5,7-8"): parsing
 * one (from sysfs or a user's option), the CPUs online and the CPUs possible
 * (those that may come online while a recording runs).
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

int fr_cpus__ascending(const int *cpus, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cpus[i] <= cpus[i - 1])
			return -EINVAL;
	return 0;
}

int fr_cpus__mark(const int *slots, size_t n, const int *cpus, size_t nr, bool *marked)
{
	if (fr_cpus__ascending(slots, n) || fr_cpus__ascending(cpus, nr))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		marked[i] = false;
	for (size_t i = 0, k = 0; k < nr; k++) {   /* both ascending: one pass */
		while (i < n && slots[i] < cpus[k])
			i++;
		if (i == n || slots[i] != cpus[k])
			return -ENOENT;
		marked[i] = true;
	}
	return 0;
}

/* A CPU list file of sysfs (hostile: fr_cpus__parse checks it all). */
static int read_list(const char *path, int **cpus)
{
	char buf[4096];
	ssize_t n;
	int r, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = '\0';
	r = fr_cpus__parse(buf, cpus);
	if (r > 0 && fr_cpus__ascending(*cpus, (size_t)r)) {   /* the kernel's are */
		free(*cpus);
		*cpus = NULL;
		r = -EINVAL;
	}
	return r;
}

int fr_cpus__online(int **cpus)
{
	return read_list("/sys/devices/system/cpu/online", cpus);
}

int fr_cpus__possible(int **cpus)
{
	return read_list("/sys/devices/system/cpu/possible", cpus);
}
