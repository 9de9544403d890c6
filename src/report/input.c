/* src/report/input.c: what dump and report share about their input: the
 * newest *.frec of a directory, opening a file with one-line errors, notes
 * on wrapped rings and live files, times written as dump prints them.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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

static uint64_t meta_u64(struct fr_reader *rd, const char *key)
{
	const char *v = fr_reader__meta(rd, key);
	uint64_t n;

	return v && !fr_parse__u64(v, 0, UINT64_MAX, &n) ? n : 0;
}

bool fr_input__wrap_note(struct fr_reader *rd, char *buf, size_t len)
{
	uint64_t start = meta_u64(rd, "record_start_ns"), end = meta_u64(rd, "snapshot_time_ns");
	uint64_t kept = 0;
	size_t n = fr_reader__nr_cpu_stats(rd), wrapped = 0;

	for (size_t i = 0; i < n; i++) {
		const struct fr_cpu_stat *cs = fr_reader__cpu_stat(rd, i);

		if (!(cs->flags & FR_CPU_FULL))
			continue;
		wrapped++;
		if (cs->first_time > kept)
			kept = cs->first_time;
		if (cs->last_time > end)
			end = cs->last_time;
	}
	if (!wrapped)
		return false;
	if (start && kept > start && end > kept)
		snprintf(buf, len, "ring wrapped on %zu of %zu CPUs: the kernel overwrote older "
			 "records; kept the last %.3f s of the %.3f s recorded", wrapped, n,
			 (double)(end - kept) / 1e9, (double)(end - start) / 1e9);
	else
		snprintf(buf, len, "ring wrapped on %zu of %zu CPUs: the kernel overwrote older "
			 "records", wrapped, n);
	return true;
}

bool fr_input__live(struct fr_reader *rd, char *buf, size_t len)
{
	const char *mode = fr_reader__meta(rd, "mode");
	uint64_t pid = meta_u64(rd, "recorder_pid");
	char path[64], comm[32] = "";
	FILE *f;

	if (!mode || strcmp(mode, "forward") || !pid || pid > INT32_MAX)
		return false;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return false;
	/* the pid may be reused: it must still be a flightrec */
	snprintf(path, sizeof(path), "/proc/%llu/comm", (unsigned long long)pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	if (strncmp(comm, "flightrec", 9))
		return false;
	snprintf(buf, len, "live: still being written by recorder pid %llu (no END yet)",
		 (unsigned long long)pid);
	return true;
}
