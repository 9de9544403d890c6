/* src/record/client.c: the client side of the control socket (`flightrec
 * snapshot`): checks the run directory, the socket and the peer before it
 * says anything, sends one request, reads one bounded reply; lists recorders.
 */
#include "config.h"
#include "src/record/control.h"

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

#include "src/record/rundir.h"

/* Read up to a newline within timeout_ms; a NUL before it is malformed. */
static void (*wait_cb)(uint64_t waited_ms);

void fr_control__on_wait(void (*cb)(uint64_t waited_ms))
{
	wait_cb = cb;
}

static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	uint64_t start = fr_rundir_now_ms(), end = start + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	size_t got = 0;

	while (got + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = fr_rundir_now_ms();
		const char *nl;
		ssize_t n;
		int r;

		if (now >= end)
			return -ETIMEDOUT;
		/* wake every second to report the wait (a snapshot of big rings) */
		r = poll(&p, 1, (int)(wait_cb && end - now > 1000 ? 1000 : end - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 && wait_cb && fr_rundir_now_ms() < end) {
			wait_cb(fr_rundir_now_ms() - start);
			continue;
		}
		if (r <= 0)
			return r < 0 ? -errno : -ETIMEDOUT;
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		nl = memchr(buf + got, '\n', (size_t)n);
		got += (size_t)n;
		if (nl) {
			size_t ln = (size_t)(nl - buf);

			if (memchr(buf, '\0', ln))
				return -EBADMSG;
			buf[ln] = '\0';
			return 0;
		}
	}
	return -EMSGSIZE;
}

int fr_control__request(const char *run_dir, const char *name, const char *req, char *reply,
			size_t len, int timeout_ms, const char **why)
{
	struct sockaddr_un sa;
	char sockname[80], line[FR_CONTROL_MAX_REQ];
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = timeout_ms % 1000 * 1000 };
	struct ucred cr;
	socklen_t crlen = sizeof(cr);
	uid_t euid = geteuid();
	struct stat st;
	int dfd, fd, err, n;

	*why = NULL;
	if (!fr_control__valid_name(name))
		return -EINVAL;
	n = snprintf(line, sizeof(line), "%s\n", req);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -EMSGSIZE;
	err = fr_rundir_sock_addr(run_dir, name, ".sock", &sa);
	if (err)
		return err;
	dfd = fr_rundir_open_checked(run_dir, false, false, why);
	if (dfd < 0)
		return dfd;
	snprintf(sockname, sizeof(sockname), "%s.sock", name);
	err = fstatat(dfd, sockname, &st, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
	close(dfd);
	if (err)
		return err;
	if (!S_ISSOCK(st.st_mode)) {
		*why = "the control socket's path is not a socket";
		return -EPERM;
	}
	if (st.st_uid != 0 && st.st_uid != euid) {
		*why = "the control socket belongs to neither root nor you";
		return -EPERM;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* bounds connect() on a full backlog and send() alike */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno == EAGAIN || errno == EINPROGRESS ? -ETIMEDOUT : -errno;
		goto out;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) || crlen != sizeof(cr) ||
	    (cr.uid != 0 && cr.uid != euid)) {
		*why = "the process behind the control socket is neither root nor you";
		err = -EPERM;
		goto out;
	}
	if (send(fd, line, (size_t)n, MSG_NOSIGNAL) != (ssize_t)n) {
		err = errno == EAGAIN ? -ETIMEDOUT : -errno;
		/* a recorder that cannot take the request may have answered why
		 * before it closed (out of descriptors): that answer, if any */
		if ((err == -EPIPE || err == -ECONNRESET) && !read_line(fd, reply, len, timeout_ms))
			err = 0;
		goto out;
	}
	err = read_line(fd, reply, len, timeout_ms);
out:
	close(fd);
	return err;
}

int fr_control__list(const char *run_dir, char (*names)[FR_CONTROL_NAME_MAX], size_t max,
		     pid_t *pids, const char **why)
{
	int dfd = fr_rundir_open_checked(run_dir, false, false, why), n = 0;
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return dfd;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char name[FR_CONTROL_NAME_MAX], pidf[FR_CONTROL_NAME_MAX + 8];
		struct stat st;
		pid_t pid;

		if (len < 6 || len - 5 >= sizeof(name) || strcmp(de->d_name + len - 5, ".sock"))
			continue;
		memcpy(name, de->d_name, len - 5);
		name[len - 5] = '\0';
		if (!fr_control__valid_name(name) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISSOCK(st.st_mode))
			continue;
		snprintf(pidf, sizeof(pidf), "%s.pid", name);
		pid = fr_rundir_read_pid(dfd, pidf);
		if (!pid || (kill(pid, 0) && errno == ESRCH))
			continue;   /* left behind by a recorder that was killed */
		if ((size_t)n < max) {
			memcpy(names[n], name, len - 4);
			if (pids)
				pids[n] = pid;
		}
		n++;
	}
	closedir(d);
	return n;
}
