/* src/proc/procfs.c: what the process model learns from /proc: at start,
 * comm, ppid and executable mappings of every process (or of given pids),
 * build ids read from the mapped ELF files; the walk of /proc's ids that a
 * snapshot's thread names and the synthesized stream use.
 */
#include "config.h"
#include "src/proc/proctable.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int fr_procfs__read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

int fr_procfs__thread_comm(int pid, int tid, char comm[32])
{
	char path[64];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	if ((err = fr_procfs__read_text(path, comm, 32)))
		return err;
	comm[strcspn(comm, "\n")] = '\0';
	return comm[0] ? 0 : -ENOENT;
}

/* "start-end perms offset dev inode   path" */
static int scan_maps(struct fr_proctable *pt, int pid)
{
	char path[64], line[4608];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;   /* gone, or a kernel thread */
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];
		int n = 0;
		uint8_t bid[20];
		char *file;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) < 4 ||
		    !n || perms[2] != 'x')
			continue;
		file = line + n;
		file[strcspn(file, "\n")] = '\0';
		if (!*file)
			continue;   /* anonymous executable memory (JIT): nothing to symbolize by */
		err = fr_proctable__mmap(pt, (uint32_t)pid, 0, start, end - start, off,
					 PROT_EXEC | (perms[0] == 'r' ? PROT_READ : 0) |
					 (perms[1] == 'w' ? PROT_WRITE : 0), file, bid,
					 fr_buildid__read_pid((uint32_t)pid, file, bid));
		if (err == -EINVAL)
			err = 0;   /* an empty or wrapping range */
	}
	fclose(f);
	return err;
}

static int scan_pid(struct fr_proctable *pt, int pid)
{
	char path[64], stat[1024], comm[32] = "";
	unsigned ppid = 0;
	char *rp;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (fr_procfs__read_text(path, stat, sizeof(stat)))
		return 0;
	rp = strrchr(stat, ')');
	if (rp && sscanf(rp + 1, " %*c %u", &ppid) != 1)
		ppid = 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (!fr_procfs__read_text(path, comm, sizeof(comm)))
		comm[strcspn(comm, "\n")] = '\0';
	err = fr_proctable__image(pt, &(struct fr_proc){ .pid = (uint32_t)pid, .ppid = ppid });
	if (!err)
		err = fr_proctable__comm(pt, (uint32_t)pid, (uint32_t)pid, 0, comm, false);
	return err ? err : scan_maps(pt, pid);
}

int fr_procfs__for_each_id(const char *dir, int (*cb)(void *ctx, int id), void *ctx)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long id = strtol(de->d_name, &end, 10);

		if (!isdigit((unsigned char)de->d_name[0]) || *end || id <= 0 || id > 0x7fffffff)
			continue;
		err = cb(ctx, (int)id);
	}
	closedir(d);
	return err;
}

static int scan_cb(void *ctx, int pid)
{
	return scan_pid(ctx, pid);
}

int fr_proctable__scan_proc(struct fr_proctable *pt, const int *pids, size_t nr)
{
	int err = 0;

	if (!pids)
		return fr_procfs__for_each_id("/proc", scan_cb, pt);
	for (size_t i = 0; i < nr && !err; i++)
		err = scan_pid(pt, pids[i]);
	return err;
}
