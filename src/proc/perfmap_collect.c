/* src/proc/perfmap_collect.c: the perf maps and jitdumps of running
 * processes read into the set: through /proc/PID/root (a container's files),
 * held open to read on once the process is gone (and marked gone: its
 * entries go first past the budget), a map written at exit found in the
 * collector's own /tmp.
 */
#include "config.h"
#include "src/proc/perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "src/proc/jitdump.h"
#include "src/proc/perfmap_internal.h"

/* The innermost namespace pid of pid (NSpid's last field), or pid. */
static uint32_t ns_pid(uint32_t pid)
{
	char path[64], buf[4096], *p, *end;
	uint32_t last = pid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return pid;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return pid;
	buf[n] = '\0';
	if (!(p = strstr(buf, "\nNSpid:")))
		return pid;
	p += 7;
	for (;;) {
		unsigned long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || end == p || v == 0 || v > UINT32_MAX)
			return pid;
		last = (uint32_t)v;
		p = end;
	}
	return last;
}

/* name (the process's view of a path) opened inside the root of pid
 * (RESOLVE_IN_ROOT: its symlinks cannot lead out of it), the last component
 * never a symlink. -ESRCH: no such process. */
static int open_in_root(uint32_t pid, const char *name, uid_t *uid)
{
	char path[64];
	struct open_how how = { .flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	struct stat sb;
	int root, fd;

	snprintf(path, sizeof(path), "/proc/%u", pid);
	if (stat(path, &sb))
		return errno == ENOENT ? -ESRCH : -errno;
	*uid = sb.st_uid;
	snprintf(path, sizeof(path), "/proc/%u/root", pid);
	if ((root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	fd = (int)syscall(SYS_openat2, root, name, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)   /* before Linux 5.6 */
		fd = openat(root, name, (int)how.flags);
	if (fd < 0)
		fd = errno == ELOOP || errno == EXDEV ? -EPERM : -errno;
	close(root);
	return fd;
}

/* The perf map of pid, named with its namespace pid ns, in its root. */
static int open_map(uint32_t pid, uint32_t ns, uid_t *uid)
{
	char name[64];

	snprintf(name, sizeof(name), "tmp/perf-%u.map", ns);
	return open_in_root(pid, name, uid);
}

/* The process is gone (its /proc/PID/root with it): the file it had, through
 * the descriptor held (*slot) since it was read while the process ran (the
 * very file: no path is looked up again), to read what it wrote since. */
static int open_gone(const int *slot)
{
	int fd;

	if (*slot < 0)
		return -ENOENT;
	return (fd = fcntl(*slot, F_DUPFD_CLOEXEC, 0)) < 0 ? -errno : fd;
}

/* A process gone that had no map while it ran in the collector's mount
 * namespace: the map it wrote as it exited (a JVM's DumpPerfMapAtExit) is in
 * the collector's own /tmp, under its namespace pid, owned by its owner
 * (read_fd checks) and written since it was last seen without one (an older
 * process's map under the same name is not). */
static int open_local(const struct pmap *m)
{
	char path[64];
	struct stat sb;
	int fd;

	if (!m->local)
		return -ENOENT;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", m->nspid);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &sb) || sb.st_mtime < m->seen) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/* pid runs, without a map now: what open_local needs once it is gone. */
static int note_alive(struct fr_perfmaps *pm, uint32_t pid, uint32_t ns, uid_t uid)
{
	struct pmap *m = fr_pmap_of(pm, pid);
	char path[64];
	struct stat a, b;

	if (!m)
		return -ENOMEM;
	if (m->fd >= 0)
		return 0;   /* a map was held: that one is read on */
	snprintf(path, sizeof(path), "/proc/%u/ns/mnt", pid);
	m->local = !stat(path, &a) && !stat("/proc/self/ns/mnt", &b) && a.st_ino == b.st_ino &&
		   a.st_dev == b.st_dev;
	m->nspid = ns;
	m->uid = uid;
	m->seen = time(NULL);
	return 0;
}

/* Hold fd in *slot, a file of pid just read through /proc (it replaces one
 * held). */
static void hold(struct fr_perfmaps *pm, int *slot, int fd)
{
	if (*slot < 0 && pm->held >= HELD_MAX) {
		close(fd);
		return;
	}
	if (*slot >= 0)
		close(*slot);
	else
		pm->held++;
	*slot = fd;
}

int fr_perfmap__collect(struct fr_perfmaps *pm, const uint32_t *pids, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		uint32_t ns = ns_pid(pids[i]);
		struct pmap *m;
		uid_t uid;
		int fd = open_map(pids[i], ns, &uid), err = 0;
		bool fresh = fd >= 0;

		if (fd == -ENOENT && (err = note_alive(pm, pids[i], ns, uid)))
			return err;
		if ((m = fr_pmap_find(pm, pids[i])))
			m->gone = fd == -ESRCH;   /* its entries go first past the budget */
		if (fd == -ESRCH && m) {
			uid = m->uid;
			if ((fd = open_gone(&m->fd)) == -ENOENT)
				fd = open_local(m);
		}
		if (fd < 0)
			continue;
		err = fr_pmap_read_fd(pm, pids[i], fd, uid);
		if (fresh && !err && (m = fr_pmap_find(pm, pids[i]))) {
			hold(pm, &m->fd, fd);
			m->uid = uid;
		} else {
			close(fd);
		}
		if (err == -ENOMEM)
			return err;
	}
	return 0;
}

struct dump_ctx {
	struct fr_perfmaps *pm;
	struct pmap *m;
};

static int dump_cb(void *ctx, uint64_t start, uint64_t size, const char *name, size_t len,
		   const char **kept)
{
	struct dump_ctx *c = ctx;
	uint64_t before = c->pm->seq;
	int err = fr_pmap_add(c->pm, c->m, start, size, name, len);

	/* added (a batch of older entries may have gone first): its copy is
	 * the last; left out (larger than the budget): none */
	if (!err && c->pm->seq != before)
		*kept = c->m->ents[c->m->n - 1].e.name;
	return err;
}

int fr_perfmap__collect_dump(struct fr_perfmaps *pm, uint32_t pid, const char *path)
{
	struct pmap *m = fr_pmap_of(pm, pid);
	struct dump_ctx c = { pm, m };
	uid_t uid;
	int fd = -ESRCH, err;
	bool fresh;

	if (!m)
		return -ENOMEM;
	if (!m->dump) {
		if (!(m->dump = malloc(sizeof(*m->dump))))
			return -ENOMEM;
		fr_jitdump__init(m->dump);
	}
	if (path && path[0] == '/')   /* the process's view: from its root */
		fd = open_in_root(pid, path + 1, &uid);
	fresh = fd >= 0;
	if (fd == -ESRCH && path)
		m->gone = true;
	if (fd == -ESRCH) {
		uid = m->uid;
		fd = open_gone(&m->dump->fd);
	}
	if (fd < 0)
		return 0;
	err = fr_jitdump__read(m->dump, fd, uid, dump_cb, &c);
	if (fresh && !err) {
		hold(pm, &m->dump->fd, fd);
		m->uid = uid;
	} else {
		close(fd);
	}
	return err == -ENOMEM ? err : 0;
}

