/* src/report_input.c: what dump and report share about their input: the
 * newest *.frec of a directory, opening a file with one-line errors, and
 * times written as dump prints them (SEC.NSEC).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "src/util.h"
#include "src/report/report.h"

int fr_input__newest(const char *dir, char *out, size_t len)
{
	struct timespec best = { 0, 0 };
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char p[PATH_MAX];
		struct stat sb;

		if (n < 6 || strcmp(de->d_name + n - 5, ".frec"))
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= sizeof(p))
			continue;
		if (stat(p, &sb) || !S_ISREG(sb.st_mode))
			continue;
		if (!found || sb.st_mtim.tv_sec > best.tv_sec ||
		    (sb.st_mtim.tv_sec == best.tv_sec && sb.st_mtim.tv_nsec > best.tv_nsec) ||
		    (sb.st_mtim.tv_sec == best.tv_sec && sb.st_mtim.tv_nsec == best.tv_nsec &&
		     strcmp(p, out) > 0)) {
			best = sb.st_mtim;
			snprintf(out, len, "%s", p);
			found = 1;
		}
	}
	closedir(d);
	return found ? 0 : -ENOENT;
}

int fr_input__open(const char *path, struct fr_reader **rd)
{
	int err = fr_reader__open(path, rd);

	if (!err)
		return FR_EXIT_OK;
	if (err == -EBADMSG)
		fr_err(path, "not a flightrec file (bad magic)");
	else if (err == -EPROTONOSUPPORT)
		fr_err(path, "written by a newer flightrec (unsupported format version)");
	else
		fr_err(path, "%s", strerror(-err));
	return FR_EXIT_ERROR;
}

int fr_input__parse_time(const char *s, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	const char *p = s;
	int digits = 0;

	if (p == end)
		return -EINVAL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (sec > (UINT64_MAX / 1000000000ull - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return -EINVAL;
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
			if (++digits > 9)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		if (!digits)
			return -EINVAL;
	}
	if (p != end)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return 0;
}
