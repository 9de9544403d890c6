/* src/record/rundir.c: the run directory where recorders keep their control
 * sockets, pid and lock files: socket addresses, creating it 0700 and
 * refusing one that is a symlink, another user's or open to others.
 */
#include "config.h"
#include "src/record/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int fr_rundir_sock_addr(const char *run_dir, const char *name, const char *suffix,
		     struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s%s", run_dir, name,
			     suffix) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

/* Returns 1 when it created dir itself, 0 when it existed, or -errno. */
int fr_rundir_mkdir_p(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (!mkdir(path, 0700))
		return 1;
	return errno == EEXIST ? 0 : -errno;
}

/* Open dir without following a symlink at its last component and check it:
 * the recorder wants its own 0700 directory, a client one that root or it
 * owns and nobody else can write. */
int fr_rundir_open_checked(const char *dir, bool server, bool created, const char **why)
{
	uid_t euid = geteuid();
	struct stat ls, st;
	int fd;

	if (lstat(dir, &ls))
		return -errno;
	if (S_ISLNK(ls.st_mode)) {
		*why = "the run directory is a symlink";
		return -ELOOP;
	}
	if (!S_ISDIR(ls.st_mode)) {
		*why = "the run directory is not a directory";
		return -ENOTDIR;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_dev != ls.st_dev || st.st_ino != ls.st_ino) {
		close(fd);
		*why = "the run directory changed while being checked";
		return -EAGAIN;
	}
	if (server && st.st_uid != euid) {
		*why = "the run directory belongs to another user";
		goto denied;
	}
	if (server && created && (st.st_mode & 07777) != 0700 && fchmod(fd, 0700) == 0)
		st.st_mode = (st.st_mode & ~07777u) | 0700;   /* our umask took bits away */
	if (server && (st.st_mode & 07777) != 0700) {
		*why = "the run directory's mode is not 0700";
		goto denied;
	}
	if (!server && st.st_uid != 0 && st.st_uid != euid) {
		*why = "the run directory belongs to neither root nor you";
		goto denied;
	}
	if (!server && (st.st_mode & 022)) {
		*why = "the run directory is writable by others";
		goto denied;
	}
	return fd;
denied:
	close(fd);
	return -EPERM;
}


uint64_t fr_rundir_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The pid in the pid file, 0 if none can be read (yet). */
pid_t fr_rundir_read_pid(int dirfd, const char *name)
{
	char buf[32], *end;
	long v;
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v <= 0 || v > 4194304)
		return 0;
	return (pid_t)v;
}
